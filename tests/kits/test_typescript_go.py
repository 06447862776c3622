"""The TypeScript and Go starter kits: built with their own tools, unit-tested with their own test
runners, and played as separate processes through whole games against Python bots on a real
server, every action accepted.

What the kit test modules share is in ``kit_support``; this module keeps what is particular to
these two kits.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from kit_support import (
    KITS,
    PLAYED_OUT,
    PYTHON_BOT_COMMAND,
    Launcher,
    Tables,
    build_kit,
    check_kit_seat,
    fetch_replay,
    game_over,
    refused_actions,
    run_arena,
)
from rookery.server import RookeryServer, TimeControl
from rookery.server.testing import TcpProxy

LANGUAGES = ("typescript", "go")
#: The longest one build.sh may take.
BUILD_TIMEOUT_S = 600.0
#: A clock loose enough for a loaded test machine, tight enough to end a stuck test; half a
#: minute for the bots to join a table, and for a game to get under way.
TABLES = Tables(
    TimeControl(action_ms=5000, grace_ms=10000), join_timeout_s=30.0, under_way_limit_s=30.0
)


def run_unit_tests(command: list[str], cwd: Path, timeout: float = 300.0) -> str:
    """Run a kit's own test tool; its output, or an AssertionError with that output."""
    process = subprocess.run(
        ["nice", "-n", "10", *command],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    output = process.stdout + process.stderr
    assert process.returncode == 0, f"{' '.join(command)} failed in {cwd}:\n{output}"
    return output


@pytest.fixture(scope="session")
def built_kits() -> Iterator[dict[str, float]]:
    """Build both kits once per test run (each build.sh is itself cached across runs)."""
    yield {language: build_kit(language, timeout=BUILD_TIMEOUT_S).seconds for language in LANGUAGES}


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_second_build_with_nothing_changed_does_nothing(
    language: str, built_kits: dict[str, float]
) -> None:
    again = build_kit(language, timeout=BUILD_TIMEOUT_S)

    assert again.output == "", again.output
    assert again.seconds < 2.0


def test_typescript_kit_unit_tests_pass_under_node_test(built_kits: dict[str, float]) -> None:
    kit, _ = KITS["typescript"]

    output = run_unit_tests(["node", "--test", "dist/test/"], kit)

    assert "# fail 0" in output, output


def test_go_kit_unit_tests_pass_under_go_test(built_kits: dict[str, float]) -> None:
    kit, _ = KITS["go"]

    output = run_unit_tests(["go", "test", "./..."], kit)

    assert "ok  \trookery/kit/samplebot" in output, output
    assert "ok  \trookery/kit/rookery" in output, output


@pytest.mark.parametrize("language", LANGUAGES)
async def test_kit_bot_plays_four_games_with_and_against_python_bots_every_action_accepted(
    language: str, built_kits: dict[str, float], server: RookeryServer, launcher: Launcher
) -> None:
    kit, outcomes = await TABLES.kit_in_every_seat(server, launcher, language, seed=100)

    for kit_seat, outcome in enumerate(outcomes):
        await check_kit_seat(server.target, outcome, kit_seat, kit)
        stats = outcome.seat_stats[kit_seat]
        assert (stats.auto_plays, stats.illegal_replies, stats.malformed_replies) == (0, 0, 0)
    assert "rejected" not in kit.log() and "fallback" not in kit.log(), kit.log()


async def test_typescript_and_go_bots_partner_each_other_against_python_bots(
    built_kits: dict[str, float], server: RookeryServer, launcher: Launcher
) -> None:
    await launcher.kit_bot("typescript", server.target, "ts")
    await launcher.kit_bot("go", server.target, "go")
    await launcher.python_bot(server.target, "py", "--sessions", "2")

    outcome = await TABLES.play(server, ("ts", "py", "go", "py"), seed=7)

    assert outcome.termination in PLAYED_OUT, outcome.detail
    replay = await fetch_replay(server.target, outcome.table_id)
    assert refused_actions(replay) == []


@pytest.mark.parametrize("language", LANGUAGES)
async def test_kit_bot_resumes_its_session_after_the_network_drops_mid_game(
    language: str, built_kits: dict[str, float], server: RookeryServer, launcher: Launcher
) -> None:
    async with TcpProxy.running(server.target) as proxy:
        kit = await launcher.kit_bot(language, proxy.target, "kit")
        await launcher.python_bot(server.target, "py", "--sessions", "3")
        table = await TABLES.under_way(server, ("kit", "py", "py", "py"), seed=11)
        assert proxy.cut() > 0

        outcome = await game_over(table)

    assert outcome.termination in PLAYED_OUT, (outcome.detail, kit.log())
    assert "resumed: session" in kit.log(), kit.log()
    replay = await fetch_replay(server.target, outcome.table_id)
    assert refused_actions(replay) == [], kit.log()


async def test_kit_bots_exit_after_their_games_with_the_games_flag(
    built_kits: dict[str, float], server: RookeryServer, launcher: Launcher
) -> None:
    ts = await launcher.kit_bot("typescript", server.target, "ts", "--games", "1")
    go = await launcher.kit_bot("go", server.target, "go", "--games", "1")
    await launcher.python_bot(server.target, "py", "--sessions", "2")

    await TABLES.play(server, ("ts", "go", "py", "py"), seed=3)

    assert await ts.wait() == 0, ts.log()
    assert await go.wait() == 0, go.log()
    assert "done: 1 tables" in ts.log() and "done: 1 tables" in go.log()


@pytest.mark.parametrize("language", LANGUAGES)
async def test_kit_bot_reports_the_version_it_is_given_and_none_of_its_own(
    language: str, built_kits: dict[str, float], server: RookeryServer, launcher: Launcher
) -> None:
    _, command = KITS[language]
    env = {"ROOKERY_BOT_VERSION": "2.5.0"}
    await launcher.command_bot([str(command)], server.target, "unversioned")
    await launcher.command_bot([str(command)], server.target, "from-env", env)
    await launcher.command_bot([str(command), "--version", "3.0"], server.target, "flag", env)
    await launcher.python_bot(server.target, "py")

    outcome = await TABLES.play(server, ("unversioned", "from-env", "flag", "py"), seed=13)

    assert outcome.termination in PLAYED_OUT, outcome.detail
    replay = await fetch_replay(server.target, outcome.table_id)
    versions = [seat.bot_version for seat in replay.header.seats]
    assert versions == ["", "2.5.0", "3.0", ""]


def test_arena_round_robin_rates_the_typescript_and_go_bots_beside_a_python_bot(
    built_kits: dict[str, float], tmp_path: Path
) -> None:
    bots = {
        "typescript-kit": str(KITS["typescript"][1]),
        "go-kit": str(KITS["go"][1]),
        "python-heuristic": PYTHON_BOT_COMMAND,
    }

    arena = run_arena(tmp_path, "kits", bots, seed=5, timeout_s=240)

    assert arena.returncode == 0, arena.output
    games = arena.games()
    assert len(games) == 6, arena.output  # 3 pairings x 2 games
    assert {game["termination"] for game in games} <= {"TARGET_REACHED", "MAX_HANDS"}, games
    for name in ("typescript-kit", "go-kit"):
        assert sum(name in game["seats"].split() for game in games) == 4, games
    assert arena.refused_games() == []
