"""SDK bots, each a separate `rookery bot run` process, play whole games on a real server."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from rookery.engine import Ruleset, Termination
from rookery.server import RookeryServer

SEAT_NAMES = ("north", "east", "south", "west")


@pytest.mark.parametrize("preset", ["standard", "traditional", "cutthroat"])
async def test_bot_processes_finish_a_whole_game_whose_replay_verifies(
    preset: str, server: RookeryServer, bots: Any, play: Any, verify_replay: Any
) -> None:
    names = SEAT_NAMES[: Ruleset.preset(preset).players]
    for name in names:
        await bots.start("Random", server.target, name)

    outcome = await play(server, preset, names)

    assert outcome.result.reason in (Termination.TARGET_REACHED, Termination.MAX_HANDS)
    for stats in outcome.seat_stats:
        assert (stats.auto_plays, stats.illegal_replies, stats.malformed_replies) == (0, 0, 0)
    await verify_replay(outcome.replay)


async def test_one_session_plays_several_tables_at_once(
    server: RookeryServer, bots: Any, play: Any
) -> None:
    processes = [
        await bots.start("Random", server.target, name, "--sessions", "1", "--max-tables", "3")
        for name in SEAT_NAMES
    ]

    outcomes = await asyncio.gather(
        *(play(server, "standard", SEAT_NAMES, seed=seed) for seed in (1, 2, 3))
    )

    assert all(o.result.reason is Termination.TARGET_REACHED for o in outcomes)
    for process in processes:
        await process.stop()
        assert process.tables_joined_before_first_finish() == {0: 3}, process.log()


async def test_a_bot_partnering_itself_fills_every_seat_from_one_process(
    server: RookeryServer, bots: Any, play: Any
) -> None:
    process = await bots.start("Simple", server.target, "solo", "--sessions", "4", "--games", "1")

    outcome = await play(server, "standard", ("solo",) * 4)

    assert outcome.result.reason is Termination.TARGET_REACHED
    assert await process.wait() == 0, process.log()
