"""The five starter kits built with their own tools (npm/tsc, go, cargo, Maven, CMake), cached by a
hash of their inputs, unit-tested with their own test runners (node --test, go test, cargo test,
Surefire/JUnit, ctest/GoogleTest), and all six languages rated together by ``rookery arena run``
on a real server, every action accepted.

What each client does at the protocol's edges (exit codes, the summary line, batching, resuming,
fallbacks, notes) is the kit contract, checked the same way for all six in
``test_kit_conformance.py``.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from kit_support import KITS, PYTHON_BOT_COMMAND, Build, build_kit, run_arena

#: A cold build of a kit (downloads included) on a loaded two-core machine takes minutes; the
#: first test that needs a kit pays for its build. Every wait inside a test has its own limit.
pytestmark = pytest.mark.timeout(900)

#: The longest one build.sh may take.
BUILD_TIMEOUT_S = 900.0
#: The kits whose build.sh runs their unit tests (``build.sh test``, cached like the build).
TESTED_BY_BUILD = ("rust", "java", "cpp")


class BuiltKits:
    """Each kit built (with its unit tests, where build.sh runs them) once per test run and only
    when a test first needs it, so that no single test pays for more than one cold build."""

    def __init__(self) -> None:
        self._builds: dict[str, Build] = {}

    def __getitem__(self, language: str) -> Build:
        if language not in self._builds:
            args = ("test",) if language in TESTED_BY_BUILD else ()
            self._builds[language] = build_kit(language, *args, timeout=BUILD_TIMEOUT_S)
        return self._builds[language]


_BUILT = BuiltKits()


@pytest.fixture(scope="session")
def built_kits() -> BuiltKits:
    return _BUILT


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


@pytest.mark.parametrize("language", tuple(KITS))
def test_a_second_build_with_nothing_changed_does_nothing(
    language: str, built_kits: BuiltKits
) -> None:
    _, command = KITS[language]
    built_kits[language]

    again = build_kit(language, timeout=BUILD_TIMEOUT_S)

    assert again.output.strip() in ("", str(command)), again.output
    assert again.seconds < 2.0


def test_typescript_kit_unit_tests_pass_under_node_test(built_kits: BuiltKits) -> None:
    built_kits["typescript"]

    output = run_unit_tests(["node", "--test", "dist/test/"], KITS["typescript"][0])

    assert "# fail 0" in output, output


def test_go_kit_unit_tests_pass_under_go_test(built_kits: BuiltKits) -> None:
    built_kits["go"]

    output = run_unit_tests(["go", "test", "./..."], KITS["go"][0])

    assert "ok  \trookery/kit/samplebot" in output, output
    assert "ok  \trookery/kit/rookery" in output, output


def test_rust_kit_unit_tests_pass_under_cargo_test(built_kits: BuiltKits) -> None:
    output = built_kits["rust"].output

    assert re.search(r"test result: ok\. \d+ passed; 0 failed", output), output
    assert "test sample::tests::plays_the_cheapest_winning_card ... ok" in output, output
    assert "test note::tests::each_bound_of_a_note_is_a_clear_error ... ok" in output, output
    assert re.search(r"test client::tests::a_batch_is_handled_in_order\w* \.\.\. ok", output), (
        output
    )


def test_java_kit_unit_tests_pass_under_surefire(built_kits: BuiltKits) -> None:
    output = built_kits["java"].output

    runs = re.findall(r"Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+)", output)
    assert runs and all(failed == errors == "0" for _, failed, errors, _ in runs), output
    assert re.search(r"Tests run: 3, Failures: 0, Errors: 0, Skipped: 0.* in .*NoteTest", output), (
        output
    )


def test_cpp_kit_unit_tests_pass_under_ctest(built_kits: BuiltKits) -> None:
    output = built_kits["cpp"].output

    assert re.search(r"100% tests passed, 0 tests failed out of \d+", output), output
    assert re.search(r"Client\.HandlesABatchInOrder\w+ \.+ +Passed", output), output
    assert re.search(r"Note\.EachBoundIsAClearError \.+ +Passed", output), output


def test_arena_round_robin_rates_all_six_languages(built_kits: BuiltKits, tmp_path: Path) -> None:
    for language in KITS:
        built_kits[language]
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
