"""`rookery arena report --regret` sums, per bot of a real arena run, what its cards cost in the
last 6 tricks of every hand, into regret.json (with `--par`, its auctions' and buries' regret
against par too); an unreadable replay is named."""

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
from rookery.client.par import hand_par
from rookery.engine import PRESETS
from rookery.wire.analysis import analyze_replay, regret_by_bot
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


def test_with_par_the_report_sums_each_bots_auction_and_bury_regret(tmp_path: Path) -> None:
    out = tmp_path / "run"
    done = _rookery(
        "arena", "run", "--bot", "random", "--bot", "heuristic", "--games", "2",
        "--preset", "traditional", "--target", "100", "--concurrency", "2", "--out", out,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    done = _rookery("arena", "report", out, "--regret", "--par")
    assert done.returncode == 0, done.stderr
    assert "Regret against par" in done.stdout
    written = json.loads((out / "regret.json").read_text(encoding="utf-8"))
    assert written["phases_measured"] == ["play", "auction", "nest and bury"]
    # Worked out again hand by hand: each bot's side's auction regret, its bury regret as bidder.
    expected: dict[str, list[int]] = {"random": [0, 0, 0, 0], "heuristic": [0, 0, 0, 0]}
    rules = PRESETS["traditional"]
    for path in sorted((out / "replays").iterdir()):
        replay = read_replay(path)
        names = [seat.bot_name for seat in replay.header.seats]
        analysis = analyze_replay(replay, last_tricks=0)
        for hand in analysis.hands:
            if hand.skipped:
                continue
            result = analysis.results[hand.hand_number]
            par = hand_par(rules, result, node_limit=2_000_000)
            assert par.auction_regret.known and par.bury_regret.known
            bidder_name = names[result.bidder]
            other = "random" if bidder_name == "heuristic" else "heuristic"
            assert names[(result.bidder + 1) % 4] == other  # a pair of each bot
            expected[bidder_name][0] += 1
            expected[other][0] += 1
            expected[bidder_name][1] += par.auction_regret.low
            expected[other][1] -= par.auction_regret.low
            expected[bidder_name][2] += 1
            expected[bidder_name][3] += par.bury_regret.low
    assert expected["random"][0] >= 2
    for name, (hands, auction, bids, bury) in expected.items():
        entry = written["bots"][name]["par"]
        assert entry["hands"] == hands and entry["bids"] == bids
        assert entry["auction"] == [auction, auction] and entry["bury"] == [bury, bury]
    # Each hand's auction regret is one side's loss and the other's gain.
    bots = written["bots"]
    assert bots["random"]["par"]["auction"][0] == -bots["heuristic"]["par"]["auction"][0]
    done = _rookery("arena", "report", out, "--par")
    assert done.returncode == 3 and "--par and --node-limit go with --regret" in done.stderr
