"""report.html shows where each bot loses points: after `rookery arena report --regret --par`
on a real arena run, its Regret table (in a real Chromium) holds regret.json's figures; a
regret.json summed over fewer games than the run has is said to be so, and an unreadable one is
named while the rest of the report is written."""

from __future__ import annotations

import importlib.util
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from playwright.sync_api import Page
from rookery.web import write_report

# `make setup` builds the core wherever cargo is found: there, a missing core is a failure.
if shutil.which("cargo") is None and importlib.util.find_spec("rookery_core") is None:
    pytest.skip("no Rust toolchain here: the native core is not built", allow_module_level=True)


def _rookery(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "rookery.cli.main", *map(str, args)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip


def _span(value: list[float]) -> str:
    low, high = value
    return f"{low:+.1f}" if low == high else f"{low:+.1f}..{high:+.1f}"


def _regret_rows(page: Page, report: Path) -> list[list[str]]:
    page.goto(report.as_uri())
    return [
        row.locator("td").all_inner_texts()
        for row in page.locator("#regret tr").all()
        if row.locator("td").count()
    ]


def test_report_html_shows_regret_json_and_says_when_it_is_stale_or_unreadable(
    page: Page, tmp_path: Path
) -> None:
    run = tmp_path / "run"
    done = _rookery(
        "arena", "run", "--bot", "random", "--bot", "heuristic", "--games", "2",
        "--preset", "traditional", "--target", "100", "--concurrency", "2", "--out", run,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    report = run / "report.html"
    page.goto(report.as_uri())
    assert page.locator("#regret, #regret-error").count() == 0  # no regret.json yet
    done = _rookery("arena", "report", run, "--regret", "--par")
    assert done.returncode == 0, done.stderr
    written = json.loads((run / "regret.json").read_text(encoding="utf-8"))
    assert written["games"] == 2
    expected = [
        [
            name,
            str(entry["hands"]),
            f"{entry['play_per_hand']:.1f}",
            _span(entry["par"]["auction_per_hand"]),
            str(entry["par"]["bids"]),
            _span(entry["par"]["bury_per_bid"]),
        ]
        for name, entry in written["bots"].items()
    ]
    assert _regret_rows(page, report) == expected
    assert {row[0] for row in expected} == {"random", "heuristic"}
    assert "Summed over" not in page.locator("body").inner_text()
    # Summed before the run had all its games (as after a resume): the page says so.
    written["games"] = 1
    (run / "regret.json").write_text(json.dumps(written), encoding="utf-8")
    write_report(run)
    assert _regret_rows(page, report) == expected
    assert "Summed over 1 of the run's 2 games with a replay" in page.locator("body").inner_text()
    # A regret.json that is not one: named, and the rest of the report is still written.
    (run / "regret.json").write_text('{"bots": [1, 2]', encoding="utf-8")
    (run / "report.html").unlink()
    done = _rookery("arena", "report", run)
    assert done.returncode == 0, done.stderr
    page.goto(report.as_uri())
    error = page.locator("#regret-error").inner_text()
    assert "regret.json cannot be read" in error and "JSONDecodeError" in error, error
    assert page.locator("#regret").count() == 0
    assert page.locator("h2", has_text="Crosstable").count() == 1
