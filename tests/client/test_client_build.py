"""The compiled SDK session and the pure one: which runs, and that both play a whole game alike.

``make setup`` compiles the SDK's session hot path (``rookery.client._session``, ``_decoding``,
``_encoding``) with mypyc where a C compiler exists (``clients/python/compile_client.py``);
``ROOKERY_PURE_ENGINE=1`` forces the pure modules of it and of the engine (``make test`` runs
``tests/client`` on both builds).
"""

from __future__ import annotations

from pathlib import Path

from rookery.client import client_build
from rookery.engine.testing import assert_build_info, assert_builds_alike, load_build_script

ROOT = Path(__file__).resolve().parents[2]
compile_client = load_build_script(ROOT / "clients" / "python" / "compile_client.py")
# Whether `make setup` can build the compiled SDK here (a C compiler, headers, mypyc).
BUILDABLE = compile_client.why_not() is None

# Four SDK sessions of a recording bot play seeded games on a real server; prints, per game, what
# every seat's bot was handed (its table, every event, every observation and its result) and
# the game's moves, as the server recorded them.
_PLAY = r"""
import asyncio, hashlib, json
from rookery.client import Bot, arun_bot, client_build, configure_logging
from rookery.engine import Ruleset
from rookery.server import RookeryServer, ServerConfig, TableSpec
import rookery.client._session as session_module
configure_logging("error")
print(json.dumps({"kind": client_build().kind, "module": session_module.__file__}))
seen = {}

class Recorder(Bot):
    def on_event(self, event):
        seen.setdefault(self.table.table_id, {}).setdefault(self.table.seat, []).append(
            event.SerializeToString().hex())
    def act(self, observation):
        seen.setdefault(self.table.table_id, {}).setdefault(self.table.seat, []).append(
            repr(observation))
        legal = observation.legal_actions()
        return legal[len(legal) // 2]
    def on_table_finished(self, result):
        seen.setdefault(self.table.table_id, {}).setdefault(self.table.seat, []).append(
            repr(result))

async def main():
    from rookery.server import configure_logging as server_logging
    server_logging("error")
    server = RookeryServer(ServerConfig(address="127.0.0.1:0", log_level="error"))
    await server.start()
    stop = asyncio.Event()
    runner = asyncio.create_task(arun_bot(Recorder, server.target, name="rec", sessions=4,
                                          max_tables=2, stop=stop))
    await server.wait_for_bot("rec", sessions=4, timeout=30)
    for name in ("standard", "called-partner"):
        for seed in (1, 2):
            spec = TableSpec(Ruleset.preset(name).replace(max_hands=2), ("rec",) * 4, seed=seed)
            table = await server.create_table(spec)
            await table.wait_finished()
            moves = [a.action.SerializeToString().hex()
                     for hand in table.outcome.replay.hands for a in hand.actions]
            views = seen.pop(table.id)
            print(json.dumps({"game": f"{name}/{seed}", "moves": moves,
                              "views": hashlib.sha256(json.dumps(
                                  [views[s] for s in sorted(views)]).encode()).hexdigest()}))
    stop.set()
    await asyncio.wait_for(runner, 30)
    await server.stop(grace_s=0)

asyncio.run(main())
"""


def test_the_builds_play_alike() -> None:
    lines = assert_builds_alike(
        _PLAY, source="_session.py", buildable=BUILDABLE, build="the SDK's session"
    )
    assert lines == 5


def test_client_build_says_which_build_runs() -> None:
    assert_build_info(client_build(), "rookery.client._session", compile_client.COMPILED)
