"""`rookery arena report --regret` sums, per bot of a real arena run, what its cards cost in the
last 6 tricks of every hand, into regret.json; an unreadable replay is named."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rookery.arena.errors import StorageError
from rookery.arena.records import load_run, run_regret
from rookery.wire.analysis import regret_by_bot
from rookery.wire.replay import read_replay

# `make setup` builds the core wherever cargo is found: there, a missing core is a failure.
if shutil.which("cargo") is None and importlib.util.find_spec("rookery_core") is None:
    pytest.skip("no Rust toolchain here: the native core is not built", allow_module_level=True)


def _rookery(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rookery.cli.main", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real arena run: random against the heuristic, 4 games to 100 points."""
    out = tmp_path_factory.mktemp("regret") / "run"
    done = _rookery(
        "arena", "run", "--bot", "random", "--bot", "heuristic", "--games", "4",
        "--target", "100", "--concurrency", "2", "--out", out,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return out


def test_the_report_sums_each_bots_play_regret_over_the_runs_replays(run_dir: Path) -> None:
    done = _rookery("arena", "report", run_dir, "--regret")
    assert done.returncode == 0, done.stderr
    assert "Play regret" in done.stdout and str(run_dir / "regret.json") in done.stdout
    written = json.loads((run_dir / "regret.json").read_text(encoding="utf-8"))
    assert written["last_tricks"] == 6 and written["phases_measured"] == ["play"]
    replays = [read_replay(path) for path in sorted((run_dir / "replays").iterdir())]
    assert len(replays) == 4
    expected = regret_by_bot(replays)
    assert set(written["bots"]) == {"random", "heuristic"} == set(expected)
    for name, regret in expected.items():
        entry = written["bots"][name]
        assert [entry["hands"], entry["cards"], entry["play"]] == [
            regret.hands,
            regret.cards,
            regret.play,
        ]
        assert entry["cards"] == entry["hands"] * 12  # its two seats' cards in 6 tricks
    assert sum(entry["play"] for entry in written["bots"].values()) > 0


def test_an_unreadable_replay_is_named(run_dir: Path, tmp_path: Path) -> None:
    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    replay = sorted((copy / "replays").iterdir())[0]
    replay.write_bytes(b"not a replay")
    with pytest.raises(StorageError, match=r"000000\.jsonl\.gz: cannot read the replay of "):
        run_regret(load_run(copy))
