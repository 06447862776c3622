"""A language-model entrant's replies that commit to nothing are never played (issue 39, hole 7).

The old text seat searched a reply for any move it named: "I will definitely not pass." was
played as ``pass``, "Should I bid 70?" as ``bid 70``, a sentence about an opponent's card as that
card. Here a real arena game seats the text seat against the heuristic bot, and the entrant's
endpoint answers every decision first with such a trap, naming a legal move it does not mean,
and only when re-prompted with ``MOVE: <another legal move>``. Every trap must be refused and
counted as an invalid reply, and every move played must be the one the answer format named.
(The trap table itself, reply by reply, is ``tests/envs/test_text_parser.py``.)
"""

from __future__ import annotations

import shlex
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from chat_endpoint import chat_endpoint
from rookery.arena.config import BotSpec, TournamentConfig
from rookery.arena.launch import SandboxMode
from rookery.arena.records import RunStore, load_run, run_ledger
from rookery.arena.run import TournamentOptions, TournamentRunner
from rookery.engine import Ruleset
from rookery.server import TimeControl
from test_text_seat_voiding import _EXAMPLE, _MOVES

PYTHON = shlex.quote(sys.executable)


def _trap(meant: str, named: str) -> str:
    """A reply that names ``named`` without committing to it (the real move is ``meant``)."""
    if named == "pass":
        return "I will definitely not pass."
    if named.startswith("bid "):
        return f"Should I {named}? Let me think about it."
    if named.startswith("play "):
        return f"My opponent's {named.split()[1]} worries me; I am still deciding."
    return f"Not {named}: that would be a mistake. Thinking of {meant} instead."


class Endpoint:
    """Answers each decision first with a trap naming a legal move it does not mean, then, when
    re-prompted, with ``MOVE: <move>``. Remembers what it meant, decision by decision."""

    def __init__(self) -> None:
        self.traps = 0
        self.meant: list[str] = []
        self.lock = threading.Lock()

    def answer(self, messages: list[dict[str, str]]) -> tuple[int, str]:
        prompt = next(
            m["content"] for m in reversed(messages) if "Your legal moves" in m["content"]
        )
        moves_found = _MOVES.search(prompt)
        assert moves_found is not None, prompt
        moves = moves_found.group(1).split(", ")
        example = _EXAMPLE.search(prompt)
        meant = example.group(1) if example else moves[-1]
        reprompted = "Your legal moves" not in messages[-1]["content"]
        others = [m for m in moves if m != meant and not m.startswith("bury")]
        with self.lock:
            if reprompted or not others:
                self.meant.append(meant)
                return 200, f"MOVE: {meant}"
            self.traps += 1
            return 200, _trap(meant, others[0])


@contextmanager
def trapping_endpoint() -> Iterator[tuple[str, Endpoint]]:
    endpoint = Endpoint()
    with chat_endpoint(endpoint.answer) as url:
        yield url, endpoint


async def test_replies_that_commit_to_nothing_are_refused_and_counted(tmp_path: Path) -> None:
    with trapping_endpoint() as (url, endpoint):
        entrant = BotSpec(
            "entrant",
            f"{PYTHON} -m rookery.cli.main bot run rookery.envs.seat:TextSeatBot",
            env={"ROOKERY_CHAT_URL": url, "ROOKERY_CHAT_MODEL": "mine"},
        )
        honest = BotSpec(
            "heuristic",
            f"{PYTHON} -m rookery.cli.main bot run rookery.client.bots.heuristic:HeuristicBot",
        )
        config = TournamentConfig(
            name="traps",
            ruleset=Ruleset.preset("standard").replace(target=300, max_hands=1),
            bots=(entrant, honest),
            games=2,
            concurrency=2,
            seed=11,
            time_control=TimeControl(action_ms=5000, strike_limit=3, grace_ms=500),
            bootstrap=20,
            sandbox=SandboxMode.OFF,
        )
        options = TournamentOptions(
            connect_timeout_s=30.0, join_timeout_s=20.0, game_timeout_s=180.0
        )
        result = await TournamentRunner(config, tmp_path / "run", options=options).run()
    assert result.recorded == 2
    with RunStore(tmp_path / "run") as store:
        rows = store.games("traps")
        incidents = store.incidents("traps")
    assert all(row.termination not in ("ABORTED", "FORFEIT_STRIKES") for row in rows)
    assert incidents == []
    ledger = run_ledger(tmp_path / "run")["entrant"]
    # Every trap was refused and counted (the old parser played 13 of the 20 kinds of trap);
    # every decision was answered in the answer format at the second attempt or the first.
    assert endpoint.traps > 10
    assert ledger.invalid_replies == endpoint.traps
    assert ledger.missed == 0
    assert ledger.decisions == len(endpoint.meant)
    assert ledger.attempts == ledger.decisions + endpoint.traps
    standings = {s.name: s for s in load_run(tmp_path / "run").summary.standings}
    assert standings["entrant"].illegal_replies == endpoint.traps
    assert standings["heuristic"].timeouts == standings["heuristic"].auto_plays == 0
