"""What the sandbox covers up inside a bot's mounted folder (:func:`hidden_inside`), really."""

from __future__ import annotations

from pathlib import Path

from rookery.arena.launch._sandbox_folders import hidden_inside


def test_the_run_directory_and_the_folder_of_earlier_runs_are_covered(tmp_path: Path) -> None:
    run_dir = tmp_path / "runs" / "arena-2"
    (tmp_path / "runs" / "arena-1").mkdir(parents=True)
    run_dir.mkdir()
    assert hidden_inside(tmp_path, run_dirs=[run_dir]) == [tmp_path / "runs"]


def test_a_run_directory_directly_in_the_folder_is_covered_but_not_the_folder(
    tmp_path: Path,
) -> None:
    (tmp_path / "out").mkdir()
    assert hidden_inside(tmp_path, run_dirs=[tmp_path / "out"]) == [tmp_path / "out"]


def test_an_older_run_two_levels_down_is_found_by_its_sqlite_file(tmp_path: Path) -> None:
    older = tmp_path / "results" / "nightly"
    older.mkdir(parents=True)
    (older / "arena.sqlite").write_bytes(b"")
    (tmp_path / "node_modules" / "x").mkdir(parents=True)
    (tmp_path / "node_modules" / "x" / "arena.sqlite").write_bytes(b"")  # not looked into
    assert hidden_inside(tmp_path) == [older]


def test_another_bots_folder_inside_is_covered_and_a_folder_holding_this_one_is_not(
    tmp_path: Path,
) -> None:
    (tmp_path / "other").mkdir()
    assert hidden_inside(tmp_path, private=[tmp_path / "other", tmp_path.parent]) == [
        tmp_path / "other"
    ]


def test_the_home_folder_shows_no_dotfiles_and_a_home_inside_is_covered(tmp_path: Path) -> None:
    (tmp_path / ".netrc").write_text("secret")
    (tmp_path / ".ssh").mkdir()
    (tmp_path / "bot.py").write_text("")
    assert hidden_inside(tmp_path, home=tmp_path) == [tmp_path / ".netrc", tmp_path / ".ssh"]
    home = tmp_path / "home" / "organiser"
    home.mkdir(parents=True)
    assert hidden_inside(tmp_path, home=home) == [home]


def test_nothing_the_bot_needs_is_covered(tmp_path: Path) -> None:
    venv = tmp_path / ".venv"
    (venv / "lib").mkdir(parents=True)
    (tmp_path / ".cache").mkdir()
    assert hidden_inside(tmp_path, home=tmp_path, keep=[venv / "lib"]) == [tmp_path / ".cache"]
