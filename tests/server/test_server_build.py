"""The compiled server hot path and the pure one: which runs, and that they send the same bytes.

``make setup`` compiles the table, the session and their encodings with mypyc where a C compiler
exists (``server/compile_server.py``); ``ROOKERY_PURE_ENGINE=1`` forces the pure modules of it and
of the engine (``make test`` runs this folder on both builds).
"""

from __future__ import annotations

from pathlib import Path

from rookery.engine.testing import assert_build_info, assert_builds_alike, load_build_script
from rookery.server import server_build

ROOT = Path(__file__).resolve().parents[2]
compile_server = load_build_script(ROOT / "server" / "compile_server.py")
# Whether `make setup` can build the compiled server here (a C compiler, headers, mypyc).
BUILDABLE = compile_server.why_not() is None

# Whole games at tables without a network, each seat's session asking for another mix of the
# Hello's options; prints, per game, the digest of every message each seat was sent, in order,
# and of the replay's moves: what the hot path makes.
_PLAY = r"""
import asyncio, dataclasses, hashlib, json
from rookery.engine import PRESETS
from rookery.server import TableSpec, TimeControl, configure_logging, server_build
from rookery.server._table import Table
from rookery.server.testing import simple_action
from rookery.v1 import bot_service_pb2 as pb
import rookery.server._table as table_module
configure_logging("error")
print(json.dumps({"kind": server_build().kind, "module": table_module.__file__}))

class Channel:
    def __init__(self, name, index):
        self.bot, self.version, self.is_attached = name, "1", True
        self.wants_events = index != 3
        self.defers_events = index in (0, 1)
        self.groups_events = index in (0, 2)
        self.wants_card_masks = index % 2 == 0
        self.table, self.seat, self.sent = None, -1, hashlib.sha256()
    def join(self, table, seat):
        self.table, self.seat = table, seat
    def leave(self, table_id):
        pass
    def table_finished(self, table_id, message):
        self.sent.update(message.SerializeToString())
    def send(self, message):
        self.send_encoded(message.SerializeToString())
    def send_encoded(self, message):
        self.sent.update(len(message).to_bytes(4, "big") + message)
        parsed = pb.ConnectResponse.FromString(message)
        if parsed.WhichOneof("message") == "action_request":
            request = parsed.action_request
            reply = pb.ActionReply(table_id=request.table_id, request_id=request.request_id,
                                   action=simple_action(request))
            asyncio.get_running_loop().call_soon(self.table.submit, self.seat, reply)

async def main():
    for name in sorted(PRESETS):
        ruleset = dataclasses.replace(PRESETS[name], max_hands=3)
        for seed in (1, 2):
            names = tuple(f"bot{i}" for i in range(ruleset.players))
            table = Table(f"t-{name}-{seed}", TableSpec(ruleset, names, seed=seed), seed,
                          TimeControl())
            channels = [Channel(n, i) for i, n in enumerate(names)]
            table.start()
            table.seat(channels)
            await asyncio.wait_for(table.wait_finished(), 60)
            print(json.dumps({
                "game": f"{name}/{seed}",
                "seats": [c.sent.hexdigest() for c in channels],
                "replay": hashlib.sha256(b"".join(  # its moves (its clock times vary)
                    action.action.SerializeToString() + bytes([action.seat])
                    for hand in table.outcome.replay.hands for action in hand.actions
                )).hexdigest(),
                "result": str(table.outcome.result),
            }))

asyncio.run(main())
"""


def test_the_builds_send_the_same_bytes() -> None:
    lines = assert_builds_alike(
        _PLAY, source="_table.py", buildable=BUILDABLE, build="the server's hot path"
    )
    assert lines > 6


def test_server_build_says_which_build_runs() -> None:
    assert_build_info(server_build(), "rookery.server._table", compile_server.COMPILED)
