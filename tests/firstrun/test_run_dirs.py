"""A rerun of ``rookery arena run`` starts afresh; a tournament is resumed only when asked.

Real runs of the installed ``rookery`` in a fresh folder, two short games each: the second run of
the same command (as after editing a bot) gets a run directory of its own and plays its games,
``runs/latest`` follows it, ``--out`` refuses a directory that holds the tournament's games, and
``--resume DIR`` goes on with one.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
from rookery.arena.records import RunStore
from rookery.cli._run_dirs import new_run_dir, point_latest

_ARENA = ["arena", "run", "--bot", "random", "--bot", "heuristic", "--games", "2",
          "--target", "50", "--concurrency", "2", "--no-report"]  # fmt: skip


def _arena(venv_bin: Path, folder: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(venv_bin / "rookery"), *_ARENA, *extra],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )


def _games(run_dir: Path) -> int:
    with RunStore(run_dir) as store:
        return store.count_games("arena")


@pytest.mark.timeout(400)
def test_a_rerun_plays_its_own_games_in_a_new_run_directory(venv_bin: Path, tmp_path: Path) -> None:
    first = _arena(venv_bin, tmp_path)
    assert first.returncode == 0, first.stdout + first.stderr
    latest = tmp_path / "runs" / "latest"
    first_dir = latest.resolve()
    assert first_dir.parent == (tmp_path / "runs").resolve() and first_dir.name.startswith("arena-")
    assert f"2/2 recorded in runs/{first_dir.name}" in first.stdout, first.stdout

    second = _arena(venv_bin, tmp_path)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "resumed" not in second.stdout and "played 2 game(s)" in second.stdout, second.stdout
    second_dir = latest.resolve()
    assert second_dir != first_dir
    assert _games(first_dir) == _games(second_dir) == 2
    assert sorted(p.name for p in (tmp_path / "runs").iterdir()) == sorted(
        [first_dir.name, second_dir.name, "latest"]
    )


@pytest.mark.timeout(400)
def test_out_refuses_recorded_games_and_resume_goes_on(venv_bin: Path, tmp_path: Path) -> None:
    run_dir = tmp_path / "mine"
    played = _arena(venv_bin, tmp_path, "--out", str(run_dir))
    assert played.returncode == 0, played.stdout + played.stderr

    again = _arena(venv_bin, tmp_path, "--out", str(run_dir))
    assert again.returncode == 3, again.stdout + again.stderr
    assert f"{run_dir} holds 2 recorded game(s)" in again.stderr
    assert f"--resume {run_dir}" in again.stderr
    assert _games(run_dir) == 2

    resumed = _arena(venv_bin, tmp_path, "--resume", str(run_dir))
    assert resumed.returncode == 0, resumed.stdout + resumed.stderr
    assert "resumed and played 0 game(s)" in resumed.stdout, resumed.stdout
    assert not (tmp_path / "runs").exists()  # an explicit directory makes no runs/latest

    nothing = _arena(venv_bin, tmp_path, "--resume", str(tmp_path / "nowhere"))
    assert nothing.returncode == 3
    assert "holds no tournament 'arena' to go on with" in nothing.stderr


def test_runs_of_the_same_second_get_directories_of_their_own(tmp_path: Path) -> None:
    now = time.time()
    made = [new_run_dir(tmp_path / "runs", "arena", now) for _ in range(3)]
    assert len(set(made)) == 3 and all(p.is_dir() for p in made)
    assert made[1].name == made[0].name + "-2" and made[2].name == made[0].name + "-3"


def test_latest_follows_the_last_run_and_never_replaces_a_real_folder(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    one, two = new_run_dir(runs, "a"), new_run_dir(runs, "b")
    assert point_latest(one) == runs / "latest" and (runs / "latest").resolve() == one
    point_latest(two)
    assert (runs / "latest").resolve() == two
    elsewhere = tmp_path / "other" / "runs"
    (elsewhere / "latest").mkdir(parents=True)
    mine = new_run_dir(elsewhere, "c")
    assert point_latest(mine) is None and (elsewhere / "latest").is_dir()
    assert not (elsewhere / "latest").is_symlink()


def test_the_dashboard_lists_a_run_once_beside_its_latest_link(tmp_path: Path) -> None:
    from rookery.arena.records import DATABASE_NAME
    from rookery.web._sources import RunDirectories

    runs = tmp_path / "runs"
    run_dir = new_run_dir(runs, "arena")
    (run_dir / DATABASE_NAME).write_bytes(b"")
    point_latest(run_dir)
    assert RunDirectories([runs]).run_dirs() == [run_dir]
