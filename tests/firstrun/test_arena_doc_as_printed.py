"""docs/arena.md's commands as printed, from a fresh folder outside the clone, with the sandbox at
its default (on, where this machine can make it): each tournament ends in finished games.

The folder holds what the doc says it holds: the Python guide's bot saved as ``my_bot.py``. The
commands run in bash with this venv's ``rookery`` and ``python`` first on PATH (an installed
Rookery) and no ``ROOKERY_*`` variables. One change is made, and said here: the SPRT recipe's
cap of 4,000 games becomes 4, so the test ends within a minute; it then ends inconclusive at the
cap, which the recipe's ``case`` reports. The remote contest recipe's server listens where the
doc says, 0.0.0.0:50051: the test waits for that port to be free (the README session's test
takes it too), and runs the contestants' ``&`` lines in the background, as a shell would.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from doc_commands import shell_env, wait_until_free
from processes import Background, background_group
from rookery.arena.records import RunStore
from test_readme_session import example_bot

#: How a tournament may end on its own: the games of a run directory all end so.
FINISHED = {"TARGET_REACHED", "MAX_HANDS"}


def _block_after(text: str, marker: str) -> str:
    """The first plain code block after ``marker``, its lines joined."""
    assert marker in text, f"docs/arena.md no longer says {marker!r}"
    match = re.search(r"```\n(.*?)```", text.split(marker, 1)[1], re.DOTALL)
    assert match, f"no code block after {marker!r}"
    return match.group(1)


def _shell(command: str, folder: Path, venv_bin: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", command], cwd=folder, env=shell_env(venv_bin), capture_output=True,
        text=True, timeout=300, check=False,
    )  # fmt: skip


def _finished_games(run_dir: Path) -> list[str]:
    """The terminations of the run's games; AssertionError if one did not end on its own."""
    with RunStore(run_dir) as store:
        (tournament,) = store.tournaments()
        terminations = [game.termination for game in store.games(tournament.tournament_id)]
    assert terminations and set(terminations) <= FINISHED, terminations
    return terminations


@pytest.fixture
def folder(root: Path, tmp_path: Path) -> Path:
    """A user's folder outside the clone with the Python guide's bot as ``my_bot.py``."""
    mine = tmp_path / "mine"
    mine.mkdir(mode=0o755)  # others may read it: the sandbox's user
    (mine / "my_bot.py").write_text(example_bot(root / "docs" / "bots" / "python.md"))
    return mine


@pytest.mark.timeout(600)
def test_running_a_tournament_as_printed(root: Path, venv_bin: Path, folder: Path) -> None:
    doc = (root / "docs" / "arena.md").read_text(encoding="utf-8")
    lines = _block_after(doc, "## Running a tournament").strip().splitlines()
    assert [line.split()[:3] for line in lines] == [
        ["rookery", "arena", "run"],
        ["rookery", "arena", "run"],
        ["rookery", "arena", "report"],
        ["rookery", "arena", "report"],
    ], lines
    assert lines[3].endswith(" --regret"), lines
    runs: list[Path] = []
    for line in lines:
        done = _shell(line, folder, venv_bin)
        assert done.returncode == 0, f"{line!r}:\n{done.stdout}{done.stderr}"
        assert "mine" in done.stdout, done.stdout
        if " run " in line:
            assert "sandbox: bubblewrap" in done.stdout + done.stderr, done.stdout + done.stderr
            runs.append((folder / "runs" / "latest").resolve())
    assert len(set(runs)) == 2, runs  # a run directory each
    assert len(_finished_games(runs[0])) == 4  # one pairing, 4 games
    assert len(_finished_games(runs[1])) == 6  # three pairings, 2 games each
    assert (runs[1] / "report.html").is_file()  # written by the report lines
    assert (runs[1] / "regret.json").is_file()  # written by --regret


@pytest.mark.timeout(600)
def test_the_sprt_recipe_as_printed_with_a_cap_of_four_games(
    root: Path, venv_bin: Path, folder: Path
) -> None:
    doc = (root / "docs" / "arena.md").read_text(encoding="utf-8")
    section = doc.split("## Recipe: regression testing a new version", 1)[1]
    prepare = re.search(r"\(here the same file:\n?`([^`]+)`\)", section)
    assert prepare, "the recipe no longer says how release/ is made"
    recipe = _block_after(section, "in CI, name the run after the commit")
    assert "--games 4000" in recipe
    short = recipe.replace("--games 4000", "--games 4")
    done = _shell(f"{prepare.group(1)}\n{short}", folder, venv_bin)
    output = done.stdout + done.stderr
    # Two copies of one bot: no verdict within 4 games, the recipe's case says so.
    assert done.returncode == 1 and "inconclusive at the cap" in done.stdout, output
    assert "sandbox: bubblewrap" in output, output
    assert len(_finished_games(folder / "runs" / "regression")) == 4


def _blocks(section: str) -> list[tuple[str, str]]:
    """The fenced blocks of a section (indented in a list or not): (language, text) each."""
    found = re.findall(r"^( *)```(\w*)\n(.*?)^\1```", section, re.DOTALL | re.MULTILINE)
    return [
        (language, "\n".join(line[len(indent) :] for line in text.splitlines()))
        for indent, language, text in found
    ]


@pytest.mark.timeout(600)
def test_the_remote_contest_recipe_as_printed(root: Path, venv_bin: Path, folder: Path) -> None:
    doc = (root / "docs" / "arena.md").read_text(encoding="utf-8")
    section = doc.split("## Recipe: a contest (remote bots", 1)[1].split("\n## ", 1)[0]
    register, tournament, start, connect, report = _blocks(section)
    assert tournament[0] == "toml" and "\ngames = 4 " in tournament[1], tournament
    done = _shell(register[1], folder, venv_bin)
    assert done.returncode == 0, done.stdout + done.stderr
    assert all(
        (folder / f"{team}.token").read_text().startswith("rk_")
        for team in ("team-alpha", "team-beta")
    )
    (folder / "contest.toml").write_text(tournament[1])
    wait_until_free(50051, timeout=300)
    env = shell_env(venv_bin)
    with background_group() as started:
        arena = Background(start[1].strip(), folder / "arena.out", folder, env)
        started.append(arena)
        arena.wait_for(lambda text: "sandbox" in text, 60, "the arena's start")
        for index, line in enumerate(connect[1].strip().splitlines()):
            command = line.strip()
            assert command.endswith("&"), command  # the contestants' bots run in the background
            started.append(Background(command[:-1], folder / f"bot{index}.out", folder, env))
        arena.process.wait(timeout=400)
        output = arena.output()
        assert arena.process.returncode == 0, output
        assert "sandbox: bubblewrap" in output, output
    done = _shell(report[1], folder, venv_bin)
    assert done.returncode == 0 and "team-alpha" in done.stdout, done.stdout + done.stderr
    run = (folder / "runs" / "latest").resolve()
    assert len(_finished_games(run)) == 12  # three pairings, 4 games each
    with RunStore(run) as store:
        (record,) = store.tournaments()
        assert store.incidents(record.tournament_id) == []
    assert (run / "report.html").is_file()


@pytest.mark.timeout(600)
def test_the_sandboxed_contest_recipe_as_printed(root: Path, venv_bin: Path, folder: Path) -> None:
    doc = (root / "docs" / "arena.md").read_text(encoding="utf-8")
    section = doc.split("## Recipe: a contest of submitted bots", 1)[1].split("\n## ", 1)[0]
    prepare, tournament, run = _blocks(section)
    assert tournament[0] == "toml" and 'sandbox = "on"' in tournament[1], tournament
    done = _shell(prepare[1], folder, venv_bin)
    assert done.returncode == 0, done.stdout + done.stderr
    (folder / "spring-contest.toml").write_text(tournament[1])
    lines = run[1].strip().splitlines()
    assert [line.split()[:3] for line in lines] == [
        ["rookery", "arena", "run"],
        ["rookery", "arena", "report"],
    ], lines
    outputs = []
    for line in lines:
        done = _shell(line, folder, venv_bin)
        outputs.append(done.stdout + done.stderr)
        assert done.returncode == 0 and "team-beta" in done.stdout, f"{line!r}:\n{outputs[-1]}"
    assert "sandbox: bubblewrap" in outputs[0], outputs[0]
    run_dir = (folder / "runs" / "latest").resolve()
    assert len(_finished_games(run_dir)) == 4  # one pairing, 4 games
    with RunStore(run_dir) as store:
        (record,) = store.tournaments()
        assert store.incidents(record.tournament_id) == []
    assert (run_dir / "report.html").is_file()
