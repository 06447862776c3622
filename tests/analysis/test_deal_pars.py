"""The deal set's pars (every seat and trump's contract on each shipped deal) and the
benchmark's regrets against par: the shipped file is the pinned one, its deals solve again to
the same lines, a malformed file is refused naming its line, and `rookery benchmark
--phase-regret` gives each side's auction and nest and bury regret as the par of each game
worked out again from its hand."""

from __future__ import annotations

import importlib.util
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from rookery.client.benchmark import (
    BENCHMARK_RULESET,
    REFERENCES,
    DealSetError,
    play_deal,
    read_deal_set,
    write_deal_set,
)
from rookery.client.deal_pars import pars_path, read_pars, solve_deal_par
from rookery.client.deal_results import results_digest, results_node_limit
from rookery.client.par import deal_par_net, hand_par

# `make setup` builds the core wherever cargo is found: there, a missing core is a failure.
if shutil.which("cargo") is None and importlib.util.find_spec("rookery_core") is None:
    pytest.skip("no Rust toolchain here: the native core is not built", allow_module_level=True)

ROOT = Path(__file__).resolve().parents[2]
SET = ROOT / "benchmark" / "deals" / "standard-1000.txt"
PARS = ROOT / "benchmark" / "deals" / "standard-1000-par.txt"
DOC = ROOT / "docs" / "benchmark.md"
#: The shipped pars' SHA-256 (docs/benchmark.md prints it too).
DIGEST = "a1061014631dfc31d9d0882c0cde5955a07427e1f6c2d5cedaa1354315bd599d"


def test_the_shipped_pars_are_the_pinned_ones_and_solve_again_to_the_same_lines() -> None:
    assert pars_path(SET) == PARS
    assert results_digest(PARS) == DIGEST
    assert DIGEST in DOC.read_text(encoding="utf-8")
    deals = read_deal_set(SET)
    pars = read_pars(PARS, deals)
    assert [par.seed for par in pars] == list(deals.seeds)
    limit = results_node_limit(PARS)
    assert limit == 2_000_000
    for index in (0, 1):
        again = solve_deal_par(deals.seeds[index], deals.deals[index], node_limit=limit)
        assert again.line() == pars[index].line()


def test_the_command_writes_the_shipped_lines_and_goes_on_where_it_stopped(
    tmp_path: Path,
) -> None:
    printed = "python bench/deal_pars.py benchmark/deals/standard-1000.txt --jobs 2"
    assert printed in DOC.read_text(encoding="utf-8")
    out = tmp_path / "pars.txt"
    _, script, deals, *options = printed.split()
    # A stopped run left deal 1 solved in the partial file (marked by a wrong total, so that
    # keeping it shows): the run keeps it and solves deal 0.
    shipped = PARS.read_text(encoding="utf-8").splitlines()
    body = [line for line in shipped if not line.startswith("#")]
    kept = body[1].split()
    kept[1] = "0"
    (tmp_path / "pars.txt.partial").write_text(" ".join(kept) + "\n", encoding="utf-8")
    run = subprocess.run(
        [sys.executable, script, deals, *options, "--out", str(out), "--first", "2"],
        cwd=ROOT, capture_output=True, text=True, timeout=300, check=True,
    )  # fmt: skip
    assert "1 deals solved before, 1 to solve" in run.stdout
    written = out.read_text(encoding="utf-8").splitlines()
    header = [line for line in shipped if line.startswith("#")]
    assert written[: len(header)] == header  # with its node limit
    assert written[len(header) :] == [body[0], " ".join(kept)]
    assert not (tmp_path / "pars.txt.partial").exists()


def test_a_malformed_pars_file_is_refused_naming_its_line(tmp_path: Path) -> None:
    deals = read_deal_set(SET).first(2)
    lines = PARS.read_text(encoding="utf-8").splitlines()
    header = [line for line in lines if line.startswith("#")]
    body = [line for line in lines if not line.startswith("#")][:2]
    path = tmp_path / "pars.txt"
    for broken, message in (
        ([body[0], body[1].rsplit(" ", 1)[0]], "expected a seed and 16 totals, got 16 fields"),
        ([body[1], body[0]], "seed 1 is not the deal set's deal 0"),
        ([body[0], body[1].replace(" ", " 130 ", 1).rsplit(" ", 1)[0]], "must be 0 to 120"),
        ([body[0]], "1 deals, not the deal set's 2"),
    ):
        path.write_text("\n".join([*header, *broken]) + "\n", encoding="utf-8")
        with pytest.raises(DealSetError, match=message):
            read_pars(path, deals)


def _rookery(folder: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rookery.cli.main", "benchmark", *argv], cwd=folder,
        capture_output=True, text=True, timeout=600, check=False,
    )  # fmt: skip


def test_phase_regret_is_each_games_par_worked_out_again(tmp_path: Path) -> None:
    deals = read_deal_set(SET).first(4)
    pars = {par.seed: par.contracts for par in read_pars(PARS, read_deal_set(SET))}
    # The deals as a set of their own, its pars beside it: the command reads that file.
    own = tmp_path / "four.txt"
    write_deal_set(own, deals)
    lines = PARS.read_text(encoding="utf-8").splitlines(keepends=True)
    header = [line for line in lines if line.startswith("#")]
    body = [line for line in lines if not line.startswith("#")]
    pars_path(own).write_text("".join(header + body[:4]), encoding="utf-8")
    done = _rookery(tmp_path, "heuristic", "--against", "random", "--deal-set", str(own),
                    "--phase-regret", "--json")  # fmt: skip
    assert done.returncode == 0, done.stderr
    (row,) = json.loads(done.stdout)
    expected = [[0.0, 0.0] for _ in range(4)]
    for seed in deals.seeds:
        for bot_side in (0, 1):
            policies = [
                REFERENCES["heuristic" if seat % 2 == bot_side else "random"]() for seat in range(4)
            ]
            result = play_deal(seed, policies).hand_results[0]
            share = 1 / (2 * len(deals))
            if result.redeal:
                # Every seat passed: each side's auction regret is its par (the hand scores 0).
                par = deal_par_net(BENCHMARK_RULESET, result.deal, result.dealer, pars[seed])
                side_0, side_1 = (par.low, par.high), (-par.high, -par.low)
                mine, theirs = (side_0, side_1) if bot_side == 0 else (side_1, side_0)
                gains = [mine, theirs, (0, 0), (0, 0)]
            else:
                hand = hand_par(BENCHMARK_RULESET, result, node_limit=2_000_000,
                                contracts=pars[seed])  # fmt: skip
                regret, bury = hand.auction_regret, hand.bury_regret
                ours = result.bidder % 2 == bot_side
                bidding = (regret.low, regret.high)
                defending = (-regret.high, -regret.low)
                spans = (bury.low, bury.high)
                gains = (
                    [bidding, defending, spans, (0, 0)]
                    if ours
                    else [defending, bidding, (0, 0), spans]
                )
            for index, (low, high) in enumerate(gains):
                expected[index][0] += low * share
                expected[index][1] += high * share
    names = ("auction_regret", "reference_auction_regret", "bury_regret", "reference_bury_regret")
    for name, (least, most) in zip(names, expected, strict=True):
        assert row[name] == pytest.approx([least, most]), (name, row[name], least, most)
    # The heuristic bids what it can make far more often than random: its auctions lose
    # less against par than random's, and random's buries lose points.
    assert row["auction_regret"][1] < row["reference_auction_regret"][0]
    assert row["reference_bury_regret"][0] > 0
    # Printed as columns too.
    done = _rookery(tmp_path, "heuristic", "--against", "random", "--deal-set", str(own),
                    "--phase-regret")  # fmt: skip
    assert done.returncode == 0, done.stderr
    title = done.stdout.splitlines()[1]
    assert title.split()[-4:] == ["auction", "r.auction", "bury", "r.bury"]


def test_the_docs_phase_regret_command_runs_as_printed_on_fewer_deals(tmp_path: Path) -> None:
    printed = (
        "rookery benchmark heuristic --against random --against pimc-16 --first 100 --phase-regret"
    )
    assert printed in " ".join(DOC.read_text(encoding="utf-8").split())
    argv = printed.split()[2:]  # after "rookery benchmark"
    argv[argv.index("--first") + 1] = "2"
    done = _rookery(tmp_path, *argv)
    assert done.returncode == 0, done.stderr
    rows = done.stdout.splitlines()[2:]
    assert [row.split()[:2] for row in rows] == [["heuristic", "random"], ["heuristic", "pimc-16"]]
    span = re.compile(r"[+-]\d+\.\d(\.\.[+-]\d+\.\d)?")
    for row in rows:  # the four regrets against par close each row
        assert all(span.fullmatch(field) for field in row.split()[-4:]), row


def test_phase_regret_needs_the_pars_beside_the_set(tmp_path: Path) -> None:
    own = tmp_path / "two.txt"
    write_deal_set(own, read_deal_set(SET).first(2))
    done = _rookery(tmp_path, "heuristic", "--against", "random", "--deal-set", str(own),
                    "--phase-regret")  # fmt: skip
    assert done.returncode == 1
    assert f"no pars beside the deal set ({tmp_path / 'two-par.txt'})" in done.stderr
    assert "bench/deal_pars.py" in done.stderr
