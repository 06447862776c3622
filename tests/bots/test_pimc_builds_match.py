"""``bench/pimc_builds_match.py``: pimc on the native core against pimc on the pure engine.

Its figure is only worth something if the two sides really are the two builds, every hand is
played out whole, and a run given the same file goes on where it stopped: that is what this
checks, on real worker processes, with a budget small enough for a test.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "bench" / "pimc_builds_match.py"


def _run(out: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(SCRIPT), "--out", str(out), "--budget", "0.01", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=300, check=False)


def test_a_match_plays_whole_duplicate_hands_and_resumes_where_it_stopped(tmp_path: Path) -> None:
    out = tmp_path / "match.jsonl"
    first = _run(out, "--pairs", "2", "--jobs", "2")
    assert first.returncode == 0, first.stderr
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(row["seed"] for row in rows) == [3_000_000, 3_000_001]
    for row in rows:
        for (ours, theirs), margin in zip(row["points"], row["margins"], strict=True):
            assert ours + theirs == 120  # every card of the hand was played and counted
            assert -400 <= margin <= 400
    assert "2 pairs (4 hands)" in first.stdout
    # Each side's workers said which engine and playout model they run.
    assert first.stderr.count("core side: engine core, playouts core") == 2
    assert first.stderr.count("pure side: engine pure, playouts pure") == 2
    # The same file and one more pair: only the new seed is played.
    again = _run(out, "--pairs", "3", "--jobs", "1")
    assert again.returncode == 0, again.stderr
    assert "played 1 pairs" in again.stderr
    seeds = [json.loads(line)["seed"] for line in out.read_text().splitlines()]
    assert sorted(seeds) == [3_000_000, 3_000_001, 3_000_002]
    summary = _run(out, "--summary")
    assert summary.stdout.startswith("pimc core vs pure: 3 pairs (6 hands): ")
    # A size set before the run: the figures of the first deals only.
    first = _run(out, "--summary", "--first", "2")
    assert first.stdout.startswith("pimc core vs pure: 2 pairs (4 hands): ")


def test_a_baseline_must_be_a_compiled_tree_and_is_refused_otherwise(tmp_path: Path) -> None:
    # Not a source tree: refused before any game.
    empty = _run(tmp_path / "none.jsonl", "--pairs", "1", "--baseline", str(tmp_path))
    assert empty.returncode == 2
    assert "not a source tree" in empty.stderr
    # This tree as the baseline: its workers run the native core, not a mypyc-compiled engine,
    # so the match stops before playing (a baseline that is not today's build proves nothing).
    out = tmp_path / "self.jsonl"
    itself = _run(out, "--pairs", "1", "--jobs", "1", "--baseline", str(ROOT))
    assert itself.returncode == 1
    assert "the base side runs the core engine and core playouts" in itself.stderr
    assert not out.exists() or not out.read_text().strip()


def test_double_dummy_pimc_plays_the_core_side_and_a_file_keeps_one_policy(tmp_path: Path) -> None:
    out = tmp_path / "ddpimc.jsonl"
    played = _run(out, "--pairs", "1", "--jobs", "1", "--policy", "ddpimc")
    assert played.returncode == 0, played.stderr
    (row,) = [json.loads(line) for line in out.read_text().splitlines()]
    assert row["policy"] == "ddpimc"
    assert row["builds"]["core"]["policy"] == "ddpimc"
    assert row["builds"]["pure"]["policy"] == "pimc"
    assert played.stdout.startswith("ddpimc core vs pure: 1 pairs (2 hands): ")
    # Its pairs are not read as pimc's, nor are pimc's pairs resumed as double-dummy pimc's.
    mixed = _run(out, "--summary")
    assert mixed.returncode == 1
    assert "holds pairs of ddpimc, not pimc" in mixed.stderr


def test_a_file_keeps_one_opponent_and_refuses_pairs_against_another(tmp_path: Path) -> None:
    # Two baseline trees (the reading needs only their engine/ folders) and rows as a match
    # against the first one writes them.
    first, second = tmp_path / "first", tmp_path / "second"
    for tree in (first, second):
        (tree / "engine").mkdir(parents=True)
    builds = {"core": {"engine": "core", "playouts": "core", "source": str(ROOT)},
              "base": {"engine": "compiled", "playouts": "compiled",
                       "source": str(first.resolve())}}  # fmt: skip
    row = {"seed": 3_000_000, "margins": [10, -5], "points": [[70, 50], [55, 65]],
           "opponent": "base", "policy": "pimc", "builds": builds}  # fmt: skip
    out = tmp_path / "first.jsonl"
    out.write_text(json.dumps(row) + "\n")
    read = _run(out, "--summary", "--baseline", str(first))
    assert read.returncode == 0, read.stderr
    assert read.stdout.startswith("pimc core vs base: 1 pairs (2 hands): +2.5 points a hand")
    # Resuming it against another tree, or against the pure engine, stops before any game.
    for other in (("--baseline", str(second)), ()):
        resumed = _run(out, "--pairs", "2", "--jobs", "1", *other)
        assert resumed.returncode == 1
        assert f"{out} holds pairs against {first.resolve()}, not " in resumed.stderr
        assert "give this match a file of its own" in resumed.stderr
        assert len(out.read_text().splitlines()) == 1
