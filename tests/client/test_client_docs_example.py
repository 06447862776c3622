"""The example bot of docs/bots/python.md is real: it plays a whole game against a real server."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from rookery.engine import Termination
from rookery.server import RookeryServer

DOC = Path(__file__).resolve().parents[2] / "docs" / "bots" / "python.md"


def example_bot_source() -> str:
    """The ```python block that follows the ``<!-- example-bot`` marker."""
    text = DOC.read_text(encoding="utf-8")
    match = re.search(r"<!-- example-bot.*?-->\s*```python\n(.*?)```", text, re.DOTALL)
    assert match, f"no example bot block in {DOC}"
    return match.group(1)


def test_the_example_bot_is_at_most_30_lines() -> None:
    assert len(example_bot_source().splitlines()) <= 30


async def test_the_example_bot_plays_a_whole_game(
    server: RookeryServer, bots: Any, play: Any, tmp_path: Path
) -> None:
    source = tmp_path / "greedy.py"
    source.write_text(example_bot_source(), encoding="utf-8")
    process = await bots.start(
        f"{source}:Greedy", server.target, "greedy", "--sessions", "4", "--games", "1"
    )

    outcome = await play(server, "standard", ("greedy",) * 4)

    assert outcome.result.reason is Termination.TARGET_REACHED
    for stats in outcome.seat_stats:
        assert (stats.auto_plays, stats.illegal_replies) == (0, 0)
    assert await process.wait() == 0, process.log()
    assert " fallbacks=0 rejections=0 " in process.log()  # the kit contract's summary line
