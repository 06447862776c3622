"""The Rook AI benchmark: the shipped deal sets are the ones pinned by their checksums and the
engine still deals them; `rookery benchmark heuristic` reproduces docs/benchmark.md's table
within its intervals; a run is reproducible; a Python bot file plays, a broken one is named."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rookery.cli.main import main
from rookery.client.benchmark import (
    REFERENCES,
    DealSetError,
    deal_set_digest,
    generate_deal_set,
    read_deal_set,
    run_benchmark,
)

ROOT = Path(__file__).resolve().parents[2]
DEALS = ROOT / "benchmark" / "deals"
DOC = ROOT / "docs" / "benchmark.md"

#: The SHA-256 of each shipped deal set's text (docs/benchmark.md prints them too).
DIGESTS = {
    "standard-1000.txt": "4c5ec9b62680e960273b7ad4226d32528c83aeabfc51b9550c890a7d31edd182",
    "standard-10000.txt.gz": "22abf8039db01e69a5a1798dec937f66478bbbdf48c676aa79a2be1bf413e450",
}


@pytest.mark.parametrize(
    ("name", "count"), [("standard-1000.txt", 1000), ("standard-10000.txt.gz", 10000)]
)
def test_a_shipped_deal_set_is_the_pinned_one_and_the_engine_deals_it(
    name: str, count: int
) -> None:
    path = DEALS / name
    assert deal_set_digest(path) == DIGESTS[name]
    assert DIGESTS[name] in DOC.read_text(encoding="utf-8")
    deals = read_deal_set(path)  # every deal checked against the engine's deal of its seed
    assert len(deals) == count
    assert len(set(deals.seeds)) == count
    assert len({deal.hands for deal in deals.deals}) == count


def test_the_sets_are_disjoint() -> None:
    small = read_deal_set(DEALS / "standard-1000.txt")
    large = read_deal_set(DEALS / "standard-10000.txt.gz")
    assert not set(small.seeds) & set(large.seeds)


def test_a_deal_the_engine_does_not_deal_is_refused_naming_its_line(tmp_path: Path) -> None:
    text = (DEALS / "standard-1000.txt").read_text(encoding="utf-8").splitlines()
    seed, *masks = text[3].split()
    text[3] = " ".join([seed, masks[1], masks[0], *masks[2:]])  # two seats' hands swapped
    path = tmp_path / "deals.txt"
    path.write_text("\n".join(text) + "\n", encoding="utf-8")
    with pytest.raises(DealSetError, match=rf"deals.txt:4: seed {seed} does not deal these cards"):
        read_deal_set(path)
    path.write_text("7 1 2 3\n", encoding="utf-8")
    with pytest.raises(DealSetError, match=r"deals.txt:1: expected a seed and 5 card masks"):
        read_deal_set(path)


def _doc_table() -> dict[tuple[str, str], tuple[float, float]]:
    """docs/benchmark.md's reference table: (bot, reference) -> (points a deal, interval)."""
    rows: dict[tuple[str, str], tuple[float, float]] = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        match = re.match(r"\| (\S+) \| (\S+) \| [\d,]+ \| ([+−-]?[\d.]+) \| ±([\d.]+) \|", line)
        if match:
            mean = float(match.group(3).replace("−", "-"))
            rows[(match.group(1), match.group(2))] = (mean, float(match.group(4)))
    return rows


def test_rookery_benchmark_heuristic_reproduces_the_docs_table_within_its_intervals(
    capsys: pytest.CaptureFixture[str],
) -> None:
    table = _doc_table()
    assert ("heuristic", "random") in table and ("heuristic", "heuristic") in table
    assert main(["benchmark", "heuristic", "--first", "100", "--json"]) == 0
    results = json.loads(capsys.readouterr().out)
    assert [r["reference"] for r in results] == ["random", "heuristic"]
    for result in results:
        mean, interval = table[("heuristic", result["reference"])]
        measured, half = result["points_per_deal"], result["interval_95"]
        assert abs(measured - mean) <= interval + half, (result, mean, interval)
        assert result["deals"] == 100
    # Against itself every deal's two games are the same game with the sides swapped: 0.
    assert results[1]["points_per_deal"] == 0 and results[1]["interval_95"] == 0


def test_the_searchers_rows_of_the_docs_table_are_reproduced_within_their_intervals(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The table's searcher rows are on all 1,000 deals; their first 30 agree with them.
    table = _doc_table()
    command = ["benchmark", "pimc-16", "ddpimc-16", "--against", "heuristic", "--first", "30"]
    assert main([*command, "--json"]) == 0
    results = json.loads(capsys.readouterr().out)
    assert [(r["bot"], r["reference"]) for r in results] == [
        ("pimc-16", "heuristic"),
        ("ddpimc-16", "heuristic"),
    ]
    for result in results:
        mean, interval = table[(result["bot"], result["reference"])]
        measured, half = result["points_per_deal"], result["interval_95"]
        assert abs(measured - mean) <= interval + half, (result, mean, interval)
        assert result["deals"] == 30 and result["bids"] + result["reference_bids"] == 60
    assert ("ddpimc-16", "pimc-16") in table


def test_a_run_is_reproducible_to_the_point() -> None:
    deals = generate_deal_set(20, first_seed=77)
    runs = [run_benchmark("random", REFERENCES["random"], "heuristic", deals) for _ in range(2)]
    assert runs[0] == runs[1]
    assert runs[0].mean < 0 and runs[0].opponent_bids + runs[0].bids + runs[0].passed_out == 40


def test_a_python_bot_file_plays_and_an_illegal_one_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot = tmp_path / "my_bot.py"
    bot.write_text(
        "from rookery.client import Bot\n"
        "from rookery.engine import Pass\n\n"
        "class First(Bot):\n"
        "    def act(self, observation):\n"
        "        return observation.legal_actions()[0]\n\n"
        "class Passer(Bot):\n"
        "    def act(self, observation):\n"
        "        return Pass()\n",
        encoding="utf-8",
    )
    assert main(["benchmark", f"{bot}:First", "--against", "random", "--first", "5"]) == 0
    out = capsys.readouterr().out
    assert re.search(rf"{re.escape(str(bot))}:First\s+random\s+5\s+[+-]\d", out), out
    assert main(["benchmark", f"{bot}:Passer", "--against", "heuristic", "--first", "5"]) == 1
    err = capsys.readouterr().err
    assert f"{bot}:Passer against heuristic: an illegal action" in err
    assert main(["benchmark", f"{tmp_path / 'none.py'}:X", "--first", "1"]) == 1
    assert "cannot load bot" in capsys.readouterr().err


def test_play_regret_values_the_last_tricks_of_both_sides() -> None:
    deals = generate_deal_set(10, first_seed=91)
    mirror = run_benchmark(
        "heuristic", REFERENCES["heuristic"], "heuristic", deals, regret_tricks=6
    )
    regrets = mirror.play_regrets
    assert regrets is not None and regrets[0] == regrets[1] > 0  # the same games, mirrored
    assert len(mirror.play_regret) == 10
    weak = run_benchmark("heuristic", REFERENCES["heuristic"], "random", deals, regret_tricks=6)
    assert weak.play_regrets is not None
    ours, theirs = weak.play_regrets
    assert theirs > ours  # random cards lose more than the heuristic's
    assert run_benchmark("heuristic", REFERENCES["heuristic"], "random", deals).play_regrets is None


def test_jobs_play_deals_at_once_with_the_same_results_deal_for_deal() -> None:
    deals = generate_deal_set(12, first_seed=501)
    alone = run_benchmark("heuristic", REFERENCES["heuristic"], "random", deals, regret_tricks=4)
    seen: list[int] = []
    together = run_benchmark(
        "heuristic",
        REFERENCES["heuristic"],
        "random",
        deals,
        regret_tricks=4,
        jobs=2,
        progress=seen.append,
    )
    assert together == alone and len(alone.per_deal) == 12
    assert seen == list(range(1, 13))  # every deal reported, in the set's order
    with pytest.raises(ValueError, match="jobs"):
        run_benchmark("heuristic", REFERENCES["heuristic"], "random", deals, jobs=0)


def test_a_bot_that_crashes_or_cheats_in_a_worker_is_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bot = tmp_path / "bad_bot.py"
    bot.write_text(
        "from rookery.client import Bot\n"
        "from rookery.engine import Pass\n\n"
        "class Crasher(Bot):\n"
        "    def act(self, observation):\n"
        "        raise KeyError('no such card')\n\n"
        "class Passer(Bot):\n"
        "    def act(self, observation):\n"
        "        return Pass()\n",
        encoding="utf-8",
    )
    for jobs in ("1", "2"):
        command = ["benchmark", f"{bot}:Crasher", "--against", "random", "--first", "4"]
        assert main([*command, "--jobs", jobs]) == 1
        err = capsys.readouterr().err
        assert f"{bot}:Crasher against random: deal 0: KeyError: 'no such card'" in err, err
        command = ["benchmark", f"{bot}:Passer", "--against", "heuristic", "--first", "4"]
        assert main([*command, "--jobs", jobs]) == 1
        assert f"{bot}:Passer against heuristic: an illegal action" in capsys.readouterr().err
    assert main(["benchmark", "heuristic", "--jobs", "0"]) == 2
    assert "--jobs: expected 1 or more" in capsys.readouterr().err
