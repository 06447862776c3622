"""The static report pages: self-contained, the same leaderboard, working replay pages."""

from __future__ import annotations

import re
import urllib.parse
from pathlib import Path

import pytest
from playwright.sync_api import Page
from rookery.web import render_report_pages, write_report_pages
from rookery.web.testing import Tournament
from screenshots import save_screenshot

pytestmark = pytest.mark.slow


def test_the_report_pages_are_self_contained(tournament: Tournament) -> None:
    pages = render_report_pages(tournament.run_dir)
    assert "index.html" in pages
    assert len(pages) == 1 + len(tournament.data.games)
    for name, text in pages.items():
        without_svg_namespace = text.replace("http://www.w3.org/2000/svg", "")
        assert not re.search(r"https?://|src=|<link", without_svg_namespace), name


def test_the_static_leaderboard_matches_the_arena_standings(
    page: Page, tournament: Tournament, tmp_path: Path, artifacts: Path
) -> None:
    write_report_pages(tournament.run_dir, tmp_path)
    page.goto((tmp_path / "index.html").as_uri())
    page.wait_for_selector("#leaderboard tbody tr")
    shown = page.locator("#leaderboard tbody tr").evaluate_all("rs => rs.map(r => r.dataset.bot)")
    assert shown == [s.name for s in tournament.data.summary.standings]
    save_screenshot(page, artifacts / "report-leaderboard.png", full_page=True)


def test_the_static_report_links_to_working_replay_pages(
    page: Page, tournament: Tournament, tmp_path: Path
) -> None:
    write_report_pages(tournament.run_dir, tmp_path)
    page.goto((tmp_path / "index.html").as_uri())
    page.locator("a.replay-link").first.click()
    page.wait_for_selector("#counter")
    page.keyboard.press("End")
    assert "Game over" in page.inner_text("#step-text")
    # The download link reaches the run's replay file from wherever the pages were written.
    game_id = page.url.rsplit("/", 1)[1].split(".html")[0]
    row = next(g for g in tournament.data.games if g.game_id == game_id)
    href = page.evaluate("document.getElementById('download-link').href")
    assert (
        Path(urllib.parse.urlparse(href).path).resolve()
        == (tournament.run_dir / row.replay_path).resolve()
    )
    page.locator("#home-link").click()
    page.wait_for_selector("#leaderboard")


def test_the_report_embeds_at_most_the_replays_asked_for(tournament: Tournament) -> None:
    pages = render_report_pages(tournament.run_dir, max_replays=2)
    assert sorted(pages)[:1] == ["index.html"] and len(pages) == 3
