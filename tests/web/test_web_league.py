"""The league's pages in Chromium, over a real little season: two versions submitted and
qualified, rated pairs, a final evaluation, then the board, a bot's page and a replay."""

from __future__ import annotations

import asyncio
import json
import shutil
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from playwright.sync_api import Page
from rookery.arena.league import League, LeagueOptions, LeagueServer, VersionState
from rookery.arena.league.submissions import pack_folder
from rookery.engine import Ruleset
from rookery.server import ServerConfig, TimeControl
from rookery.web import WebServer
from rookery.web.testing import LoopThread
from screenshots import save_screenshot

pytestmark = pytest.mark.slow

HERE = Path(__file__).parent
#: Short games: the first side to 100 points wins, after two hands at most.
SHORT = Ruleset.preset("standard").replace(target=100, max_hands=2)


@dataclass
class LeagueSite:
    running: LeagueServer
    web: WebServer

    @property
    def league(self) -> League:
        return self.running.league


async def _season(root: Path) -> LeagueSite:
    options = LeagueOptions(
        ruleset=SHORT,
        concurrency=2,
        sandbox="off",
        open_mode=True,
        min_pairs=1,
        bootstrap=30,
        time_control=TimeControl(action_ms=2000, grace_ms=500),
    )
    config = ServerConfig(address="127.0.0.1:0", log_level="warning")
    running = await LeagueServer.start(root / "league" / "league.sqlite", config, options)
    league = running.league
    league.create_season("autumn", time.time() + 3600, 0.95, 2)
    for bot, cls in (("alpha", "GreedyBot"), ("beta", "FirstBot")):
        folder = root / bot
        folder.mkdir()
        shutil.copy(HERE / "web_bots.py", folder / "web_bots.py")
        command = f"rookery bot run web_bots.py:{cls}"
        await league.submit(bot, None, command, archive=pack_folder(folder), note=f"{bot} one")
    deadline = time.monotonic() + 90
    while league.store.count_pairs(1, ("rated",)) < 2:
        assert time.monotonic() < deadline, [v.detail for v in league.store.versions()]
        await asyncio.sleep(0.2)
    league.start_final_evaluation()
    while league.store.season().status != "closed":
        assert time.monotonic() < deadline, "the final evaluation did not end"
        await asyncio.sleep(0.2)
    web = WebServer("127.0.0.1:0", server=running.server, league=league)
    await web.start()
    return LeagueSite(running, web)


@pytest.fixture(scope="module")
def site(loop_thread: LoopThread) -> Iterator[LeagueSite]:
    with tempfile.TemporaryDirectory(prefix="rookery-league-web-") as tmp:
        built = loop_thread.run(_season(Path(tmp)), 150.0)
        yield built

        async def stop() -> None:
            await built.web.stop()
            await built.running.stop()

        loop_thread.run(stop(), 60.0)


def _api(url: str) -> dict:  # type: ignore[type-arg]
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())  # type: ignore[no-any-return]


def test_the_board_shows_the_final_standings_with_intervals_and_verdicts(
    page: Page, site: LeagueSite, artifacts: Path
) -> None:
    page.goto(f"{site.web.url}/league")
    page.wait_for_selector("#board tbody tr")
    shown = page.locator("#board tbody tr").evaluate_all("rows => rows.map(r => r.dataset.version)")
    final = site.league.store.season().final
    assert shown == final["ranking"]
    assert sorted(shown) == ["alpha@1", "beta@1"]
    first = page.locator("#board tbody tr").first.locator("td").all_inner_texts()
    assert "±" in first[3] and first[4].startswith("[")
    assert page.locator("#final h2").inner_text() == "Final evaluation: done"
    verdicts = page.locator("#final-verdicts li").all_inner_texts()
    assert verdicts == final["verdicts"]
    progress = page.locator("#final-progress").inner_text()
    played = site.league.store.count_pairs(1, ("final",))
    assert progress.startswith(f"{played} of at most 2 pairs")
    save_screenshot(page, artifacts / "league-board.png", full_page=True)


def test_the_rating_chart_draws_the_history_of_every_version(page: Page, site: LeagueSite) -> None:
    page.goto(f"{site.web.url}/league")
    page.wait_for_selector("#rating-chart")
    page.wait_for_selector("#rating-chart circle")
    lines = page.locator("#rating-chart polyline")
    assert sorted(lines.evaluate_all("ls => ls.map(l => l.dataset.version)")) == [
        "alpha@1",
        "beta@1",
    ]
    history = site.league.store.rating_history(1, "alpha@1")
    points = lines.first.get_attribute("points") or ""
    assert len(points.split()) == len(history) >= 2


def test_recent_games_link_to_their_replays_in_the_viewer(page: Page, site: LeagueSite) -> None:
    page.goto(f"{site.web.url}/league")
    page.wait_for_selector("#recent-games a.replay-link")
    link = page.locator("#recent-games a.replay-link").first
    href = link.get_attribute("href") or ""
    game_id = href.rsplit("/", 1)[-1]
    assert site.league.store.game(game_id) is not None
    page.goto(f"{site.web.url}{href}")
    page.wait_for_selector("#counter")
    replay = _api(f"{site.web.url}/api/replays/{game_id}")
    recorded = site.league.store.game(game_id)
    assert recorded is not None
    assert [seat["bot"] for seat in replay["seats"]] == list(recorded.seats)


def test_a_bots_page_lists_its_versions_chart_and_games(page: Page, site: LeagueSite) -> None:
    page.goto(f"{site.web.url}/league/bots/alpha")
    page.wait_for_selector("#versions tbody tr")
    row = page.locator("#versions tbody tr").first
    assert row.get_attribute("data-version") == "alpha@1"
    cells = row.locator("td").all_inner_texts()
    assert cells[1] == VersionState.ACTIVE
    assert "qualified" in cells[6]
    assert page.locator("#rating-chart polyline").count() == 1
    games = page.locator("#recent-games tbody tr").count()
    assert games == len(site.league.store.pairs(1, version="alpha@1"))
    page.goto(f"{site.web.url}/league/bots/nobody")
    page.wait_for_selector("#league-error")
    assert "no bot 'nobody'" in page.locator("#league-error").inner_text()


def test_the_league_json_never_shows_commands_seeds_or_build_logs(site: LeagueSite) -> None:
    board = json.dumps(_api(f"{site.web.url}/api/league"))
    bot = json.dumps(_api(f"{site.web.url}/api/league/bots/alpha"))
    for text in (board, bot):
        assert "web_bots.py" not in text  # the command line
        assert '"seed"' not in text
    with pytest.raises(urllib.error.HTTPError) as missing:
        _api(f"{site.web.url}/api/replays/league-1-000000000000-0")
    assert missing.value.code == 404
