"""A tournament's name is any text: its id and run directory are derived from it safely."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from rookery.arena._config_values import tournament_id_for
from rookery.arena.config import config_from_dict
from rookery.arena.errors import ArenaConfigError

ROOKERY = str(Path(sys.executable).with_name("rookery"))


def test_a_safe_name_is_its_own_id() -> None:
    assert tournament_id_for("nightly-2026.12_a") == "nightly-2026.12_a"


def test_other_names_get_a_safe_id_that_tells_them_apart() -> None:
    spaced, dashed = tournament_id_for("Spring contest"), tournament_id_for("Spring-contest")
    assert spaced.startswith("Spring-contest-") and spaced != dashed
    for name in ("Spring contest", "Équipe « A » / 2026", "***", "x" * 300):
        made = tournament_id_for(name)
        assert made[0].isalnum() and len(made) <= 64
        assert all((c.isalnum() and c.isascii()) or c in "._-" for c in made), made


def test_an_empty_name_is_refused_up_front() -> None:
    bots = [{"name": "a", "command": "x"}, {"name": "b", "command": "y"}]
    with pytest.raises(ArenaConfigError, match="name: the tournament needs a name"):
        config_from_dict({"name": " ", "bots": bots})


def test_a_tournament_named_with_spaces_plays_every_game(tmp_path: Path) -> None:
    done = subprocess.run(
        [ROOKERY, "arena", "run", "--name", "Spring contest", "--bot", "heuristic",
         "--bot", "random", "--games", "2", "--target", "100", "--concurrency", "1"],
        cwd=tmp_path, capture_output=True, text=True, timeout=240, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Spring contest: standings" in done.stdout
    (run_dir,) = (p for p in (tmp_path / "runs").iterdir() if not p.is_symlink())
    assert run_dir.name.startswith(tournament_id_for("Spring contest") + "-")
    assert f"2/2 recorded in runs/{run_dir.name}" in done.stdout
    assert len(list((run_dir / "replays").glob("*.jsonl.gz"))) == 2
