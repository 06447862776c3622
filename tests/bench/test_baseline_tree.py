"""``bench/baseline_tree.py`` and ``bench/run.py``: ``make bench``'s baseline of "today's" build.

The baseline's real build (mypyc, minutes) is not run here: these check that a bad ref is refused
clearly before anything is built or measured, that a failed build leaves nothing a later call
would take for finished, that a finished tree is reused at once, and that ``run.py`` hands the
tree to the benchmarks that compare with it, under options those benchmarks take.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = ROOT / "bench"
sys.path.insert(0, str(BENCH))
baseline_tree: Any = importlib.import_module("baseline_tree")
run: Any = importlib.import_module("run")


def _bench(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, *args]
    return subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=120)


def _repository(path: Path, files: dict[str, str]) -> str:
    """A git repository at ``path`` with one commit of ``files``; the commit's id."""
    for name, text in files.items():
        (path / name).parent.mkdir(parents=True, exist_ok=True)
        (path / name).write_text(text)
    git = ["git", "-C", str(path), "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git[:3], "init", "-q"], check=True)
    subprocess.run([*git, "add", "."], check=True)
    subprocess.run([*git, "commit", "-q", "-m", "one"], check=True)
    return subprocess.run(
        [*git[:3], "rev-parse", "HEAD"], capture_output=True, text=True, check=True
    ).stdout.strip()


def test_a_bad_ref_is_refused_clearly_before_anything_is_built_or_measured() -> None:
    before = sorted((ROOT / "build").glob("baseline-*"))
    missing = _bench("bench/baseline_tree.py", "no-such-ref-of-rookery")
    assert missing.returncode == 2
    assert "baseline ref 'no-such-ref-of-rookery': no such commit" in missing.stderr
    option = _bench("bench/baseline_tree.py", "--", "--output=x")
    assert option.returncode == 2
    assert "baseline ref '--output=x': not a git ref" in option.stderr
    benches = _bench("bench/run.py", "--baseline", "no-such-ref-of-rookery")
    assert benches.returncode == 2
    assert "no such commit" in benches.stderr
    assert "==" not in benches.stdout  # no benchmark ran
    assert sorted((ROOT / "build").glob("baseline-*")) == before


def test_a_failed_build_leaves_nothing_and_a_finished_tree_is_reused(tmp_path: Path) -> None:
    commit = _repository(tmp_path, {"README.md": "a commit without proto/\n"})
    with pytest.raises(baseline_tree.BaselineError, match="has no proto"):
        baseline_tree.build(commit[:10], root=tmp_path)
    assert list((tmp_path / "build").iterdir()) == []  # no tree, finished or partial
    tree = baseline_tree.tree_path(commit, tmp_path)
    assert tree == tmp_path / "build" / f"baseline-{commit[:7]}"
    tree.mkdir()
    stamp = {"ref": "HEAD", "commit": commit, "took_s": 250.0}
    (tree / baseline_tree.STAMP).write_text(json.dumps(stamp))
    assert baseline_tree.build("HEAD", root=tmp_path) == tree  # the stamp: not built again


@pytest.mark.parametrize(
    ("bench", "expected"),
    [
        ("server_bench", [[], ["--baseline", "TREE"]]),
        ("arena_bench", [[], ["--baseline", "TREE"]]),
        ("pimc_bench", [["--tree", "TREE"]]),
        ("engine_bench", [[]]),
    ],
)
def test_run_hands_the_baseline_to_the_benches_that_compare(
    bench: str, expected: list[list[str]], tmp_path: Path
) -> None:
    script = BENCH / f"{bench}.py"
    runs = run.commands(script, tmp_path)
    assert [command[2:] for command in runs] == [
        [str(tmp_path) if part == "TREE" else part for part in args] for args in expected
    ]
    assert run.commands(script, None) == [[sys.executable, str(script)]]  # BASELINE=none
    for args in expected:  # the bench takes the option it is given
        if args:
            helped = _bench(str(script), "--help")
            assert helped.returncode == 0, helped.stderr
            assert f"{args[0]} " in helped.stdout
