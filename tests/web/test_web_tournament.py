"""The tournament pages after a real round-robin: leaderboard, crosstable, chart, progress."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import Page
from rookery.web.testing import Tournament

pytestmark = pytest.mark.slow


def _api(url: str) -> dict:  # type: ignore[type-arg]
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())  # type: ignore[no-any-return]


def test_the_leaderboard_lists_the_bots_in_the_arenas_order(
    page: Page, tournament: Tournament, artifacts: Path
) -> None:
    page.goto(f"{tournament.web.url}/tournaments/webtest")
    page.wait_for_selector("#leaderboard tbody tr")
    rows = page.locator("#leaderboard tbody tr")
    shown = rows.evaluate_all("rows => rows.map(r => r.dataset.bot)")
    expected = [s.name for s in tournament.data.summary.standings]
    assert shown == expected
    for row, standing in zip(rows.all(), tournament.data.summary.standings, strict=True):
        cells = row.locator("td").all_inner_texts()
        games, wins, losses, draws = (int(c) for c in cells[5:9])
        assert (games, wins, losses, draws) == (
            standing.games,
            standing.wins,
            standing.losses,
            standing.draws,
        )
    page.screenshot(path=str(artifacts / "leaderboard.png"), full_page=True)


def test_the_crosstable_shows_each_pairings_points(page: Page, tournament: Tournament) -> None:
    page.goto(f"{tournament.web.url}/tournaments/webtest")
    page.wait_for_selector("#crosstable")
    summary = tournament.data.summary
    names = [s.name for s in summary.standings]
    cells = page.locator("#crosstable tr").evaluate_all(
        "rows => rows.slice(1).map("
        "r => Array.from(r.querySelectorAll('td')).map(c => c.textContent))"
    )
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            if a == b:
                continue
            entry = summary.crosstable[a][b]
            assert cells[i][j] == f"{entry.points:g}/{entry.games}"


def test_the_rating_chart_draws_one_line_per_bot(page: Page, tournament: Tournament) -> None:
    page.goto(f"{tournament.web.url}/tournaments/webtest")
    page.wait_for_selector("#rating-chart polyline")
    bots = page.locator("#rating-chart polyline").evaluate_all("ls => ls.map(l => l.dataset.bot)")
    assert sorted(bots) == sorted(s.name for s in tournament.data.summary.standings)


def test_the_progress_counts_the_recorded_games(page: Page, tournament: Tournament) -> None:
    page.goto(f"{tournament.web.url}/tournaments/webtest")
    total = tournament.data.tournament.games_total
    done = len(tournament.data.games)
    page.wait_for_selector("#progress-text")
    assert f"{done} / {total} games" in page.inner_text("#progress-text")
    assert page.locator("#games tr[data-game]").count() == done


def test_the_dashboard_links_every_tournament(page: Page, tournament: Tournament) -> None:
    page.goto(tournament.web.url + "/")
    link = page.locator("#tournaments a", has_text="webtest")
    link.wait_for()
    link.click()
    page.wait_for_selector("#leaderboard tbody tr")
    assert page.url.endswith("/tournaments/webtest")


def test_the_tournament_api_agrees_with_the_arena_report(tournament: Tournament) -> None:
    view = _api(f"{tournament.web.url}/api/tournaments/webtest")
    standings = tournament.data.summary.standings
    assert [s["bot"] for s in view["standings"]] == [s.name for s in standings]
    assert [s["elo"] for s in view["standings"]] == [s.elo for s in standings]
    assert view["progress"]["done"] == len(tournament.data.games)
