"""SDK bots, each a separate `rookery bot run` process, play whole games on a real server."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path
from typing import Any

import pytest
from rookery.engine import Ruleset, Termination
from rookery.server import RookeryServer
from rookery.server.testing import running_server

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


@pytest.fixture
def certificate(tmp_path: Path) -> tuple[Path, Path]:
    """A self-signed certificate for 127.0.0.1 and localhost: (cert, key)."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
            "-keyout", str(key), "-out", str(cert), "-subj", "/CN=localhost",
            "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
        ],
        check=True,
        capture_output=True,
        timeout=30,
    )  # fmt: skip
    return cert, key


async def test_a_bot_plays_over_tls_trusting_the_given_certificate(
    bots: Any, play: Any, certificate: tuple[Path, Path]
) -> None:
    cert, key = certificate
    async with running_server(tls_cert=str(cert), tls_key=str(key)) as server:
        process = await bots.start(
            "Simple", server.target, "secure", "--ca-cert", str(cert), "--sessions", "4"
        )

        outcome = await play(server, "standard", ("secure",) * 4)

        assert outcome.result.reason is Termination.TARGET_REACHED
        assert outcome.seat_stats[0].actions > 0
        await process.stop()
