"""The tournament pages after a real round-robin: leaderboard, crosstable, chart, progress."""

from __future__ import annotations

import itertools
import json
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import Page
from rookery.web.testing import Tournament
from screenshots import save_screenshot

pytestmark = pytest.mark.slow


def _number(text: str) -> int:
    """A shown Elo ("+137", "−275", "0") as a number."""
    return int(text.replace("−", "-").replace("+", ""))


def _api(url: str) -> dict:  # type: ignore[type-arg]
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())  # type: ignore[no-any-return]


def test_the_leaderboard_lists_the_bots_in_the_arenas_order(
    page: Page, tournament: Tournament, artifacts: Path
) -> None:
    page.goto(f"{tournament.web.url}/tournaments/{tournament.key}")
    page.wait_for_selector("#leaderboard tbody tr")
    rows = page.locator("#leaderboard tbody tr")
    shown = rows.evaluate_all("rows => rows.map(r => r.dataset.bot)")
    expected = [s.name for s in tournament.data.summary.standings]
    assert shown == expected
    for row, standing in zip(rows.all(), tournament.data.summary.standings, strict=True):
        cells = row.locator("td").all_inner_texts()
        games, wins, losses, draws = (int(c) for c in cells[6:10])
        assert (games, wins, losses, draws) == (
            standing.games,
            standing.wins,
            standing.losses,
            standing.draws,
        )
    save_screenshot(page, artifacts / "leaderboard.png", full_page=True)


def test_the_crosstable_shows_each_pairings_points(page: Page, tournament: Tournament) -> None:
    page.goto(f"{tournament.web.url}/tournaments/{tournament.key}")
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
    page.goto(f"{tournament.web.url}/tournaments/{tournament.key}")
    page.wait_for_selector("#rating-chart polyline")
    bots = page.locator("#rating-chart polyline").evaluate_all("ls => ls.map(l => l.dataset.bot)")
    assert sorted(bots) == sorted(s.name for s in tournament.data.summary.standings)


def test_the_progress_counts_the_recorded_games(page: Page, tournament: Tournament) -> None:
    page.goto(f"{tournament.web.url}/tournaments/{tournament.key}")
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
    assert page.url.endswith(f"/tournaments/{tournament.key}")


def test_the_tournament_api_agrees_with_the_arena_report(tournament: Tournament) -> None:
    view = _api(f"{tournament.web.url}/api/tournaments/{tournament.key}")
    standings = tournament.data.summary.standings
    assert [s["bot"] for s in view["standings"]] == [s.name for s in standings]
    assert [s["elo"] for s in view["standings"]] == [s.elo for s in standings]
    assert view["progress"]["done"] == len(tournament.data.games)


def test_serve_shows_its_own_tournament_and_its_replays(page: Page, tournament: Tournament) -> None:
    """The session's tournament was created through ArenaService on a dashboard given no run
    directory (as ``rookery serve`` starts it): it is listed, and its replays open."""
    assert tournament.web.runs.paths == (tournament.run_dir.parent,)
    page.goto(f"{tournament.web.url}/")
    page.locator("#tournaments a", has_text="webtest").click()
    page.wait_for_selector("#games a.replay-link")
    links = page.locator("#games a.replay-link")
    assert links.count() == len(tournament.data.games)
    for href in links.evaluate_all("as => as.map(a => a.getAttribute('href'))"):
        with urllib.request.urlopen(
            tournament.web.url + href.replace("/replays/", "/api/replays/"), timeout=10
        ) as response:
            assert response.status == 200
    links.first.click()
    page.wait_for_selector("#counter")
    assert page.locator("#crumbs a", has_text=tournament.key).count() == 1
    # While it ran, its page linked the tables it played ("Now playing", seen in the browser),
    # and a finished game whose twin was still to be played was withheld (409); every such
    # replay is public now.
    assert tournament.seen_playing
    assert tournament.server is not None
    for table_id in tournament.seen_playing:
        assert tournament.server.get_table(table_id).spec.tournament_id == tournament.key
    print(
        f"seen playing: {sorted(tournament.seen_playing)}; withheld: {sorted(tournament.withheld)}"
    )
    for game_id in tournament.withheld:
        assert _api(f"{tournament.web.url}/api/replays/{game_id}")["game_id"] == game_id


def test_the_chart_plots_the_leaderboards_rating(page: Page, tournament: Tournament) -> None:
    page.goto(f"{tournament.web.url}/tournaments/{tournament.key}")
    page.wait_for_selector("#rating-chart polyline")
    board = {
        row.get_attribute("data-bot"): row.locator("td").nth(2).inner_text()
        for row in page.locator("#leaderboard tbody tr").all()
    }
    lines = page.locator("#rating-chart polyline").evaluate_all(
        "ls => ls.map(l => [l.dataset.bot, Number(l.dataset.elo)])"
    )
    labels = page.locator("#rating-chart text.chart-label").evaluate_all(
        "ts => ts.map(t => [t.dataset.bot, t.getBoundingClientRect().top, t.textContent])"
    )
    standings = {s.name: s.elo for s in tournament.data.summary.standings}
    for bot, elo in lines:
        assert abs(elo - standings[bot]) < 0.05
    for bot, _, text in labels:
        assert text.endswith(board[bot]), (text, board[bot])
    tops = sorted(top for _, top, _ in labels)
    assert all(b - a >= 10 for a, b in itertools.pairwise(tops)), "chart labels overlap"


def test_report_html_and_the_pages_agree_and_link_each_other(
    page: Page, tournament: Tournament, tmp_path: Path
) -> None:
    import shutil

    from rookery.web import write_report, write_report_pages

    run_dir = tmp_path / "run"
    shutil.copytree(tournament.run_dir, run_dir, ignore=shutil.ignore_patterns("logs"))
    write_report(run_dir)
    write_report_pages(run_dir)
    page.goto((run_dir / "web" / "index.html").as_uri())
    page.wait_for_selector("#leaderboard tbody tr")
    board = {
        row.get_attribute("data-bot"): row.locator("td").nth(2).inner_text()
        for row in page.locator("#leaderboard tbody tr").all()
    }
    board_los = {
        row.get_attribute("data-bot"): row.locator("td").nth(5).inner_text()
        for row in page.locator("#leaderboard tbody tr").all()
    }
    page.click("#report-link")
    page.wait_for_selector("#web-pages")
    rows = page.locator("table").first.locator("tr").all()[1:]
    report = {
        row.locator("td").nth(1).inner_text().split()[0]: row.locator("td").nth(2).inner_text()
        for row in rows
    }
    assert {bot: _number(elo) for bot, elo in report.items()} == {
        bot: _number(elo) for bot, elo in board.items()
    }
    los = {
        row.locator("td").nth(1).inner_text().split()[0]: row.locator("td").nth(5).inner_text()
        for row in rows
    }
    assert los == board_los
    chart = page.locator("svg text[fill]").all_text_contents()
    for bot, elo in report.items():
        assert any(t.startswith(bot) and _number(t.split()[-1]) == _number(elo) for t in chart)
    assert page.evaluate("document.querySelector('meta[name=viewport]') !== null")
    page.click("#web-pages")
    page.wait_for_selector("#leaderboard tbody tr")
