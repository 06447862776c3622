"""Batching in every kit: each offers it by default (Hello.batching), unpacks the server's
ConnectResponse.batch messages in order and sends the replies it has ready together as one
ConnectRequest.batch; with batching turned off, every message travels alone.

The server counts what went each way on the kit's ``Session`` (``batches_sent``,
``reply_batches``). The kit bot plays eight short tables at once, all dealt from one seed, so that
requests for several of its tables reach it together.
"""

from __future__ import annotations

import asyncio
import dataclasses

import pytest
from kit_support import (
    KITS,
    Launcher,
    build_kit,
    check_kit_seat,
    game_over,
)
from rookery.engine import Ruleset
from rookery.server import RookeryServer, Session, TableOutcome, TableSpec, TimeControl

pytestmark = pytest.mark.timeout(900)

LANGUAGES = tuple(KITS)
#: Each kit's way of turning batching off.
NO_BATCHING = {
    "go": "-batching=false",
    "rust": "--no-batching",
    "typescript": "--no-batching",
    "java": "--no-batching",
    "cpp": "--no-batching",
}
#: The longest one build.sh may take (cached: nothing when the kit's own tests built it).
BUILD_TIMEOUT_S = 900.0
#: Two hands a game: long enough for many requests, short enough for eight tables at once.
RULESET = dataclasses.replace(Ruleset.preset("standard"), max_hands=2)
CLOCK = TimeControl(action_ms=5000, grace_ms=15000)
TABLES = 8


async def play_eight_tables(
    server: RookeryServer, launcher: Launcher, language: str, *kit_options: str
) -> tuple[Session, list[TableOutcome]]:
    """The kit bot ``kit`` (one session, eight tables) plays eight two-hand games at once, each in
    seat 1 beside three Python bots, all dealt from one seed; its session and the outcomes."""
    build_kit(language, timeout=BUILD_TIMEOUT_S)
    kit = await launcher.kit_bot(
        language, server.target, "kit", "--max-tables", str(TABLES), *kit_options
    )
    await launcher.python_bot(server.target, "py", "--sessions", "3", "--max-tables", str(TABLES))
    await server.wait_for_bot("kit", timeout=60.0)
    (session,) = server.sessions["kit"]
    specs = [
        TableSpec(RULESET, ("py", "kit", "py", "py"), seed=21, time_control=CLOCK)
        for _ in range(TABLES)
    ]
    tables = [await server.create_table(spec) for spec in specs]
    outcomes = list(await asyncio.gather(*(game_over(table) for table in tables)))
    for outcome in outcomes:
        await check_kit_seat(server.target, outcome, 1, kit)
    return session, outcomes


@pytest.mark.parametrize("language", LANGUAGES)
async def test_kit_bot_gets_batches_and_packs_its_replies_by_default(
    language: str, server: RookeryServer, launcher: Launcher
) -> None:
    session, _ = await play_eight_tables(server, launcher, language)

    assert session.batching
    assert session.batches_sent > 0  # every game played out, every action accepted: unpacked
    assert session.reply_batches > 0


@pytest.mark.parametrize("language", LANGUAGES)
async def test_kit_bot_with_batching_turned_off_gets_and_sends_every_message_alone(
    language: str, server: RookeryServer, launcher: Launcher
) -> None:
    session, _ = await play_eight_tables(server, launcher, language, NO_BATCHING[language])

    assert not session.batching
    assert (session.batches_sent, session.reply_batches) == (0, 0)
