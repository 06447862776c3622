"""The deal sets' double-dummy results: the shipped file is the pinned one, one result per deal
of its set; its deals solve again to the same values (a bounded deal to bounds that agree);
the command that writes it writes the same lines and goes on where a stopped run stopped; a
malformed file is refused naming its line."""

from __future__ import annotations

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rookery.client.benchmark import DealSetError, read_deal_set
from rookery.client.deal_results import (
    DealResult,
    read_results,
    results_digest,
    results_node_limit,
    results_path,
    solve_deal,
    summary,
)
from rookery.engine import Suit

# `make setup` builds the core wherever cargo is found: there, a missing core is a failure.
if shutil.which("cargo") is None and importlib.util.find_spec("rookery_core") is None:
    pytest.skip("no Rust toolchain here: the native core is not built", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[2]
DEALS = ROOT / "benchmark" / "deals"
SET = DEALS / "standard-1000.txt"
DOC = ROOT / "docs" / "benchmark.md"

#: Each shipped deal set's results file, its SHA-256 (docs/benchmark.md prints them too) and
#: the node limit its deals were solved with.
SHIPPED = {
    "standard-1000.txt": (
        "standard-1000-dd.txt",
        "d32590ffb9c0a54baf505206da5087c14724b2601679a1aa27a85ac5e36f78ee",
        10_000_000,
    ),
    "standard-10000.txt.gz": (
        "standard-10000-dd.txt",
        "ec8ebb7ac69943a467e19546c5f5c1722e3f57f1115e5fd9e811a038d9a9f254",
        2_000_000,
    ),
}


def _shipped(name: str = "standard-1000.txt") -> tuple[DealResult, ...]:
    results, _, _ = SHIPPED[name]
    return read_results(DEALS / results, read_deal_set(DEALS / name))


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_the_shipped_results_are_the_pinned_ones_one_a_deal_of_the_set(name: str) -> None:
    results_name, digest, limit = SHIPPED[name]
    path = DEALS / results_name
    assert results_path(DEALS / name) == path
    assert results_digest(path) == digest
    assert results_node_limit(path) == limit
    doc = DOC.read_text(encoding="utf-8")
    assert digest in doc
    results = _shipped(name)  # one per deal of the set, in its order
    assert summary(results) in doc  # the doc quotes the file's own figures
    # The results are varied: makeable and not, solved and bounded, every trump named.
    assert {result.makeable for result in results} == {True, False, None}
    assert sum(result.solved for result in results) >= 0.6 * len(results)
    assert sum(result.makeable is not None for result in results) >= 0.9 * len(results)
    assert {result.trump for result in results if result.contract} == set(Suit)
    for result in results:
        assert result.dd_low <= result.dd_high


@pytest.mark.parametrize("name", sorted(SHIPPED))
def test_shipped_deals_solve_again_to_the_same_results(name: str) -> None:
    results = _shipped(name)
    # The first deals (some in milliseconds, some in a second), and one the limit stopped.
    solved = [result for result in results[:12] if result.solved]
    bounded = next(result for result in results if not result.solved)
    assert len(solved) >= 6
    limit = SHIPPED[name][2]
    for expected in solved:
        assert solve_deal(expected.seed, node_limit=limit) == expected
    again = solve_deal(bounded.seed, node_limit=limit)
    # The same contract; bounds that both hold the value (a faster solver may narrow them).
    assert (again.bidder, again.bid, again.trump, again.buried, again.taken) == (
        bounded.bidder,
        bounded.bid,
        bounded.trump,
        bounded.buried,
        bounded.taken,
    )
    assert again.dd_low <= bounded.dd_high and bounded.dd_low <= again.dd_high


def test_the_command_writes_the_shipped_lines_and_goes_on_where_it_stopped(
    tmp_path: Path,
) -> None:
    # The doc's command, on the set's first deals and into another file.
    printed = "python bench/deal_results.py benchmark/deals/standard-1000.txt --jobs 2"
    assert printed in DOC.read_text(encoding="utf-8")
    out = tmp_path / "results.txt"
    _, script, deals, *options = printed.split()
    command = [sys.executable, script, deals, *options, "--out", str(out)]

    def run_first(count: int) -> str:
        run = subprocess.run(
            [*command, "--first", str(count)],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        )
        return run.stdout

    assert "0 deals solved before, 3 to solve" in run_first(3)
    shipped = _shipped()
    assert read_results(out) == shipped[:3]
    assert not (tmp_path / "results.txt.partial").exists()
    # A stopped run left deal 0 solved in the partial file: the next run keeps it, solves the
    # rest. (The kept line is marked by a wrong value, so keeping it shows.)
    kept = shipped[0].line().split()
    kept[6] = "1"  # what the heuristic took
    (tmp_path / "results.txt.partial").write_text(" ".join(kept) + "\n", encoding="utf-8")
    stdout = run_first(2)
    assert "1 deals solved before, 1 to solve" in stdout
    again = read_results(out)
    assert again[0].taken == 1 and again[1] == shipped[1]


@pytest.mark.parametrize(
    ("line", "error"),
    [
        ("0 1 70 black 8400000844000 120", "expected 7 fields"),
        ("0 passes", "expected 7 fields .* or 'seed passed'"),
        ("0 1 70 purple 8400000844000 120 110", "trump must be black, red, yellow or green"),
        ("0 1 70 black 8400000844000 90..80 110", "dd's bounds must be low..high"),
        ("0 7 70 black 8400000844000 120 110", "bidder must be a seat"),
        ("0 1 70 black 8400000844000 125 110", "dd must be 0 to 120"),
        ("0 1 70 black 8400000844001 120 110", "buried must be 5 cards"),
        ("0 1 70 black zz 120 110", "invalid literal"),
    ],
)
def test_a_malformed_result_is_refused_naming_its_line(
    tmp_path: Path, line: str, error: str
) -> None:
    path = tmp_path / "results.txt"
    path.write_text(f"# header\n{line}\n", encoding="utf-8")
    with pytest.raises(DealSetError, match=rf"results.txt:2: .*{error}"):
        read_results(path)


def test_results_of_other_seeds_than_the_set_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "results.txt"
    lines = [result.line() for result in _shipped()[:5]]
    path.write_text("\n".join(lines[1:]) + "\n", encoding="utf-8")
    with pytest.raises(DealSetError, match="its 4 results are not the deal set's 5 seeds"):
        read_results(path, read_deal_set(SET).first(5))


def test_a_deal_every_seat_passed_is_a_line_of_its_own(tmp_path: Path) -> None:
    # Deal 1003188 of the 10,000 set: the heuristic passes at every seat.
    assert solve_deal(1_003_188) == DealResult.passed_out(1_003_188)
    assert DealResult.passed_out(1_003_188) in _shipped("standard-10000.txt.gz")
    path = tmp_path / "results.txt"
    played = _shipped()[0]
    path.write_text(f"{played.line()}\n1 passed\n", encoding="utf-8")
    results = read_results(path)
    assert results == (played, DealResult.passed_out(1))
    passed = results[1]
    assert not passed.contract and passed.makeable is None and not passed.made
    assert passed.line() == "1 passed"
    assert summary(results).startswith("2 deals (1 passed out), ")
