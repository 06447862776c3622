"""The first hour's smaller surprises, each as a user met it: real ``rookery arena run`` runs.

- a bot that crashes: the standings' ``crash`` column counts its crashes once (it showed 8 beside
  the 4 crashes the incidents listed: each crash's dropped seat was counted again);
- two games, one duplicate pair: the LOS is read from the ± beside it (it said 100 % beside ±309);
- ``--bot heurstic`` names the reference bot meant;
- ``python missing.py`` says which file is missing where (in the sandbox it named the folder of
  ``python``, e.g. pyenv's shims);
- ``--games`` is per pairing, as ``--help`` says.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from rich.console import Console
from rookery.arena.records import RunStore, load_run, report_dict
from rookery.cli._report_tables import standings_table

_CRASHING_BOT = """\
import os
from rookery.client import Bot, run_bot


class Crashing(Bot):
    def bid(self, obs):
        os._exit(1)

    def play(self, obs):
        os._exit(1)


run_bot(Crashing)
"""


def _arena(venv_bin: Path, folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(venv_bin / "rookery"), "arena", "run", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )


@pytest.mark.timeout(300)
def test_crashes_are_counted_once_and_two_games_are_not_a_sure_order(
    venv_bin: Path, tmp_path: Path
) -> None:
    (tmp_path / "crashing.py").write_text(_CRASHING_BOT)
    run_dir = tmp_path / "run"
    done = _arena(venv_bin, tmp_path, "--bot", "crashing=python crashing.py", "--bot",
                  "heuristic", "--games", "2", "--target", "50", "--no-report",
                  "--sandbox", "off", "--out", str(run_dir))  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    with RunStore(run_dir) as store:
        crashes = [i for i in store.incidents("arena") if i[0] == "crashing" and i[1] == "crash"]
    data = load_run(run_dir)
    standings = {s.name: s for s in data.summary.standings}
    assert crashes and standings["crashing"].crashes == len(crashes), (crashes, standings)

    top = data.summary.standings[0]
    assert top.name == "heuristic" and top.los_next is not None
    assert 0.6 < top.los_next < 0.99, top.los_next  # 2-0 in one duplicate pair
    console = Console(width=200, record=True)
    console.print(standings_table(data.summary))
    assert "100%" not in console.export_text()
    assert report_dict(data)["los"]["heuristic>crashing"] == top.los_next  # report.json agrees


def test_a_misspelt_reference_bot_names_the_one_meant(venv_bin: Path, tmp_path: Path) -> None:
    done = _arena(venv_bin, tmp_path, "--bot", "heurstic", "--bot", "random")
    assert done.returncode == 3
    assert "did you mean --bot heuristic?" in done.stderr, done.stderr
    assert not (tmp_path / "runs").exists()


@pytest.mark.timeout(300)
def test_a_missing_script_is_named_in_the_folder_it_was_looked_for(
    venv_bin: Path, tmp_path: Path
) -> None:
    for sandbox in ("auto", "off"):
        done = _arena(venv_bin, tmp_path, "--bot", "mine=python my_bot.py", "--bot", "random",
                      "--games", "2", "--target", "50", "--sandbox", sandbox)  # fmt: skip
        assert done.returncode == 3, done.stdout + done.stderr
        expected = f"python cannot open 'my_bot.py': no such file in {tmp_path}"
        assert expected in done.stderr, done.stderr
        assert "shims" not in done.stdout + done.stderr


def test_the_help_says_games_are_per_pairing(venv_bin: Path, tmp_path: Path) -> None:
    done = _arena(venv_bin, tmp_path, "--help")
    words = " ".join(done.stdout.split())
    assert "--games GAMES games per pairing, each pair of bots plays this many" in words, words
    assert "--resume DIR" in words
