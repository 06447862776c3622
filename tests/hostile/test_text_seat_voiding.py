"""A language-model entrant tries to void the games it is losing (issue 39, hole 6).

The entrant controls its own chat endpoint. Here the endpoint answers legally while its side is
not behind, and answers HTTP 500 (or 429) to every request once the prompt's scores show its side
behind: on the old text seat one provider error voided the game (recorded as aborted, never
rated), so the entrant chose which games counted. A failure of the entrant's provider is the
entrant's failure: the seat retries a bounded number of times, then the late policy applies to
that seat alone, and the game is rated.
"""

from __future__ import annotations

import re
import shlex
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from chat_endpoint import chat_endpoint
from rookery.arena.config import BotSpec, TournamentConfig
from rookery.arena.launch import SandboxMode
from rookery.arena.records import RunStore, load_run
from rookery.arena.run import TournamentOptions, TournamentRunner
from rookery.engine import Ruleset
from rookery.server import TimeControl

PYTHON = shlex.quote(sys.executable)
_SCORES = re.compile(r"Scores so far: (.*?) \(your side: (\d+)\)")
_MOVES = re.compile(r"Your legal moves: (.*?)\.\n")
_EXAMPLE = re.compile(r"\(for example: (bury [^)]*)\)")


class Endpoint:
    """Legal while not behind; HTTP 500 and 429 in turn once behind. Counts both."""

    def __init__(self) -> None:
        self.answered = 0
        self.refused = 0
        self.lock = threading.Lock()

    def answer(self, messages: list[dict[str, str]]) -> tuple[int, str]:
        prompt = next(
            m["content"] for m in reversed(messages) if "Your legal moves" in m["content"]
        )
        scores = _SCORES.search(prompt)
        assert scores is not None, prompt
        points = [int(p.split(": ")[1]) for p in scores.group(1).split(", ")]
        mine = points[int(scores.group(2))]
        with self.lock:
            if mine < max(points):
                self.refused += 1
                return (500 if self.refused % 2 else 429), "upstream overloaded"
            self.answered += 1
        example = _EXAMPLE.search(prompt)
        moves = _MOVES.search(prompt)
        assert moves is not None, prompt
        move = example.group(1) if example else moves.group(1).split(", ")[0]
        return 200, f"MOVE: {move}"


@contextmanager
def entrant_endpoint() -> Iterator[tuple[str, Endpoint]]:
    endpoint = Endpoint()
    with chat_endpoint(endpoint.answer) as url:
        yield url, endpoint


async def test_an_entrant_cannot_void_the_games_it_is_losing(tmp_path: Path) -> None:
    with entrant_endpoint() as (url, endpoint):
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
            name="void",
            ruleset=Ruleset.preset("standard").replace(target=300, max_hands=3),
            bots=(entrant, honest),
            games=4,
            concurrency=2,
            seed=7,
            time_control=TimeControl(action_ms=2000, strike_limit=2, grace_ms=500),
            bootstrap=20,
            sandbox=SandboxMode.OFF,
        )
        options = TournamentOptions(
            connect_timeout_s=30.0, join_timeout_s=20.0, game_timeout_s=120.0
        )
        result = await TournamentRunner(config, tmp_path / "run", options=options).run()
    assert result.recorded == 4
    with RunStore(tmp_path / "run") as store:
        rows = store.games("void")
        incidents = store.incidents("void")
    assert [i for i in incidents if i[0] == "entrant"] == []
    assert endpoint.refused > 0 and endpoint.answered > 0  # it fell behind, and attacked
    terminations = [row.termination for row in rows]
    assert "ABORTED" not in terminations  # the old seat voided all 4 (it fell behind in each)
    forfeits = [row for row in rows if row.termination == "FORFEIT_STRIKES"]
    assert forfeits and all(row.seat_bots[row.forfeit_seat] == "entrant" for row in forfeits)
    standings = {s.name: s for s in load_run(tmp_path / "run").summary.standings}
    assert standings["entrant"].games == standings["heuristic"].games == 4
    assert standings["entrant"].losses >= len(forfeits)
    assert standings["heuristic"].timeouts == standings["heuristic"].auto_plays == 0
