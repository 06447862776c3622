"""The Rust, Java and C++ starter kits: built with their own tools (cargo, Maven, CMake),
unit-tested with their own test runners (cargo test, Surefire/JUnit, ctest/GoogleTest), and played
as separate processes through whole games with and against Python bots on a real server, every
action accepted.

Each kit's ``build.sh`` is cached by a hash of its inputs, so a test run pays each build once and a
second run pays nothing. What the kit test modules share is in ``kit_support``; this module keeps
what is particular to these three kits.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from kit_support import (
    KITS,
    PLAYED_OUT,
    PYTHON_BOT_COMMAND,
    Build,
    Launcher,
    Tables,
    actions_of,
    build_kit,
    check_kit_seat,
    fetch_replay,
    game_over,
    refused_actions,
    run_arena,
)
from rookery.server import RookeryServer, TimeControl
from rookery.server.testing import TcpProxy

#: A cold build of a kit (downloads included) on a loaded two-core machine takes minutes; the
#: first test that needs a kit pays for its build. Every wait inside a test has its own limit.
pytestmark = pytest.mark.timeout(900)

LANGUAGES = ("rust", "java", "cpp")
#: The longest one build.sh may take.
BUILD_TIMEOUT_S = 900.0
#: A clock loose enough for a loaded test machine, tight enough to end a stuck test; a minute for
#: the bots to join a table, and for a game to get under way.
TABLES = Tables(
    TimeControl(action_ms=5000, grace_ms=15000), join_timeout_s=60.0, under_way_limit_s=60.0
)
#: The summary line every kit's runner prints when it stops after --games.
DONE_LINE = re.compile(
    r"\[rookery\] done: games=(\d+) actions=(\d+) fallbacks=(\d+) rejections=(\d+) "
    r"reconnects=(\d+) resumes=(\d+)"
)


@dataclass(frozen=True)
class RunSummary:
    """The counts of a kit runner's closing ``done:`` line."""

    games: int
    actions: int
    fallbacks: int
    rejections: int
    reconnects: int
    resumes: int


def run_summary(log: str) -> RunSummary:
    """The kit runner's ``done:`` line, parsed; AssertionError with the log when there is none."""
    match = DONE_LINE.search(log)
    assert match is not None, f"no done: line in the bot's log:\n{log}"
    return RunSummary(*(int(group) for group in match.groups()))


class BuiltKits:
    """Each kit built, with its unit tests run (``build.sh test``), once per test run and only
    when a test first needs it, so that no single test pays for more than one cold build."""

    def __init__(self) -> None:
        self._builds: dict[str, Build] = {}

    def __getitem__(self, language: str) -> Build:
        if language not in self._builds:
            self._builds[language] = build_kit(language, "test", timeout=BUILD_TIMEOUT_S)
        return self._builds[language]

    def all(self) -> None:
        for language in LANGUAGES:
            self[language]


@pytest.fixture(scope="session")
def built_kits() -> Iterator[BuiltKits]:
    yield BuiltKits()


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_second_build_with_nothing_changed_does_nothing(
    language: str, built_kits: BuiltKits
) -> None:
    _, command = KITS[language]
    built_kits[language]

    again = build_kit(language, timeout=BUILD_TIMEOUT_S)

    assert again.output.strip() == str(command), again.output
    assert again.seconds < 2.0


def test_rust_kit_unit_tests_pass_under_cargo_test(built_kits: BuiltKits) -> None:
    output = built_kits["rust"].output

    assert re.search(r"test result: ok\. 1\d passed; 0 failed", output), output
    assert "test sample::tests::plays_the_cheapest_winning_card ... ok" in output, output
    assert re.search(r"test client::tests::a_batch_is_handled_in_order\w* \.\.\. ok", output), (
        output
    )


def test_java_kit_unit_tests_pass_under_surefire(built_kits: BuiltKits) -> None:
    output = built_kits["java"].output

    assert "Tests run: 6, Failures: 0, Errors: 0, Skipped: 0" in output, output  # CardsTest
    assert "Tests run: 11, Failures: 0, Errors: 0, Skipped: 0" in output, output  # SampleBotTest
    assert "Tests run: 3, Failures: 0, Errors: 0, Skipped: 0" in output, output  # BotRunnerTest


def test_cpp_kit_unit_tests_pass_under_ctest(built_kits: BuiltKits) -> None:
    output = built_kits["cpp"].output

    assert "100% tests passed, 0 tests failed out of 21" in output, output
    assert re.search(r"Client\.HandlesABatchInOrder\w+ \.+ +Passed", output), output


@pytest.mark.parametrize("language", LANGUAGES)
async def test_kit_bot_plays_four_games_with_and_against_python_bots_every_action_accepted(
    language: str, built_kits: BuiltKits, server: RookeryServer, launcher: Launcher
) -> None:
    built_kits[language]

    kit, outcomes = await TABLES.kit_in_every_seat(
        server, launcher, language, "--games", "4", seed=200
    )

    for kit_seat, outcome in enumerate(outcomes):
        await check_kit_seat(server.target, outcome, kit_seat, kit)
    assert await kit.wait() == 0, kit.log()
    summary = run_summary(kit.log())
    assert (summary.games, summary.fallbacks, summary.rejections) == (4, 0, 0), kit.log()
    assert summary.actions == sum(
        outcome.seat_stats[seat].actions for seat, outcome in enumerate(outcomes)
    )


async def test_rust_java_and_cpp_bots_play_one_game_together_with_a_python_bot(
    built_kits: BuiltKits, server: RookeryServer, launcher: Launcher
) -> None:
    built_kits.all()
    for language in LANGUAGES:
        await launcher.kit_bot(language, server.target, language)
    await launcher.python_bot(server.target, "py")

    # Rust partners C++ (seats 0 and 2) against Java and Python (seats 1 and 3).
    outcome = await TABLES.play(server, ("rust", "java", "cpp", "py"), seed=7)

    assert outcome.termination in PLAYED_OUT, outcome.detail
    replay = await fetch_replay(server.target, outcome.table_id)
    assert refused_actions(replay) == []
    assert [actions_of(replay, seat) > 0 for seat in range(4)] == [True] * 4


@pytest.mark.parametrize("language", LANGUAGES)
async def test_kit_bot_reports_the_version_it_is_given_and_none_of_its_own(
    language: str, built_kits: BuiltKits, server: RookeryServer, launcher: Launcher
) -> None:
    built_kits[language]
    _, command = KITS[language]
    env = {"ROOKERY_BOT_VERSION": "2.5.0"}
    await launcher.command_bot([str(command)], server.target, "unversioned")
    await launcher.command_bot([str(command)], server.target, "from-env", env)
    await launcher.python_bot(server.target, "py", "--sessions", "2")

    outcome = await TABLES.play(server, ("unversioned", "from-env", "py", "py"), seed=13)

    assert outcome.termination in PLAYED_OUT, outcome.detail
    replay = await fetch_replay(server.target, outcome.table_id)
    assert [seat.bot_version for seat in replay.header.seats] == ["", "2.5.0", "", ""]


@pytest.mark.parametrize("language", LANGUAGES)
async def test_kit_bot_resumes_its_session_after_the_network_drops_mid_game(
    language: str, built_kits: BuiltKits, server: RookeryServer, launcher: Launcher
) -> None:
    built_kits[language]
    async with TcpProxy.running(server.target) as proxy:
        kit = await launcher.kit_bot(language, proxy.target, "kit", "--games", "1")
        await launcher.python_bot(server.target, "py", "--sessions", "3")
        table = await TABLES.under_way(server, ("kit", "py", "py", "py"), seed=11)
        assert proxy.cut() > 0

        outcome = await game_over(table)
        assert await kit.wait() == 0, kit.log()

    assert outcome.termination in PLAYED_OUT, (outcome.detail, kit.log())
    summary = run_summary(kit.log())
    assert summary.resumes >= 1, kit.log()
    assert (summary.games, summary.rejections) == (1, 0), kit.log()
    replay = await fetch_replay(server.target, outcome.table_id)
    assert refused_actions(replay) == [], kit.log()


@pytest.mark.parametrize("language", LANGUAGES)
async def test_kit_bot_exits_4_with_a_clear_message_when_no_server_answers(
    language: str, built_kits: BuiltKits, launcher: Launcher
) -> None:
    built_kits[language]
    kit = await launcher.kit_bot(language, "127.0.0.1:1", "kit", "--connect-timeout", "1")

    assert await kit.wait() == 4, kit.log()
    assert "was unreachable" in kit.log() and "127.0.0.1:1" in kit.log(), kit.log()


def test_arena_round_robin_rates_all_six_languages(built_kits: BuiltKits, tmp_path: Path) -> None:
    built_kits.all()
    for language in KITS:
        if language not in LANGUAGES:  # the other kits, built by their own (cached) build.sh
            build_kit(language, timeout=BUILD_TIMEOUT_S)
    bots = {f"{language}-kit": str(command) for language, (_, command) in KITS.items()}
    bots["python-heuristic"] = PYTHON_BOT_COMMAND

    arena = run_arena(tmp_path, "six-languages", bots, seed=9, timeout_s=420)

    assert arena.returncode == 0, arena.output
    games = arena.games()
    assert len(games) == 30, arena.output  # 15 pairings x 2 games (a duplicate pair each)
    assert {game["termination"] for game in games} <= {"TARGET_REACHED", "MAX_HANDS"}, games
    for name in bots:
        assert sum(name in game["seats"].split() for game in games) == 10, (name, games)
    assert arena.refused_games() == []
    standings = arena.standings()
    for name in bots:
        assert name in standings, standings
