"""A live table watched in the browser while slow bots play it on a real server, and the trust
rules: no hidden card in any page or API answer before its hand is over."""

from __future__ import annotations

import asyncio
import json
import re
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page
from rookery.client import arun_bot, load_bot
from rookery.engine import CardPlayed, Game, HandScored, Ruleset, card_name, cards_of
from rookery.server import Table, TableSpec, TimeControl
from rookery.web import WebServer
from rookery.web.testing import LiveGame
from screenshots import save_screenshot

CARD = re.compile(r"\b(ROOK2?|[BRYG](?:1[0-4]|[1-9]))\b")

pytestmark = pytest.mark.slow


def _get(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def _public_cards(game: Game) -> dict[int, set[str]]:
    """Per hand, the cards a spectator may know now: those played, or all once it is scored."""
    public: dict[int, set[str]] = {}
    for event in game.events_since(0):
        cards = public.setdefault(event.hand_number, set())
        if isinstance(event, CardPlayed):
            cards.add(card_name(event.card))
        elif isinstance(event, HandScored):
            deal = event.result.deal
            deck = deal.nest | deal.dead
            for hand in deal.hands:
                deck |= hand
            cards.update(card_name(card) for card in cards_of(deck))
    return public


def _named_in_json(value: Any, hand: int | None, found: list[tuple[int | None, str]]) -> None:
    """Every card code in a JSON value, with the hand number of the nearest enclosing object."""
    if isinstance(value, dict):
        here = value.get("hand", value.get("number", hand))
        here = here if isinstance(here, int) else hand
        for item in value.values():
            _named_in_json(item, here, found)
    elif isinstance(value, list):
        for item in value:
            _named_in_json(item, hand, found)
    elif isinstance(value, str):
        found.extend((hand, code) for code in CARD.findall(value))


def test_the_live_table_updates_as_cards_are_played(
    page: Page, live_game: LiveGame, artifacts: Path
) -> None:
    page.goto(f"{live_game.web.url}/tables/{live_game.table.id}")
    page.wait_for_selector("#step-text")
    seen: set[str] = set()
    deadline = time.monotonic() + 20
    while len(seen) < 4 and time.monotonic() < deadline:
        seen.add(page.inner_text("#table-head"))
        page.wait_for_timeout(150)
    assert len(seen) >= 4, "the page did not change while the game was played"
    page.wait_for_selector("#trick [data-card]", timeout=20000)
    save_screenshot(page, artifacts / "live-table.png")


def test_the_dashboard_lists_the_live_table(page: Page, live_game: LiveGame) -> None:
    page.goto(live_game.web.url + "/")
    table_id = live_game.table.id
    row = page.locator(
        f"#tables-list tr[data-table='{table_id}'], #finished-list tr[data-table='{table_id}']"
    )
    row.wait_for()
    assert "slow-a" in row.inner_text()
    # Under "Live tables" while it is played, under "Recently finished" once over.
    listed = row.evaluate("r => r.closest('table').id")
    assert listed == ("finished-list" if "FINISHED" in row.inner_text() else "tables-list")


def test_no_hidden_card_appears_before_its_hand_is_over(page: Page, live_game: LiveGame) -> None:
    url = f"{live_game.web.url}/tables/{live_game.table.id}"
    page.goto(url)
    page.wait_for_selector("#step-text")
    checks = 0
    deadline = time.monotonic() + 25
    while time.monotonic() < deadline and checks < 30:
        shown = page.locator("[data-card]").evaluate_all(
            "ns => ns.map(n => [Number(n.dataset.hand), n.dataset.card])"
        )
        loose = page.evaluate(
            "() => { const c = document.body.cloneNode(true);"
            " c.querySelectorAll('[data-card], script').forEach(n => n.remove());"
            " return c.textContent; }"
        )
        _, state = _get(f"{live_game.web.url}/api/tables/{live_game.table.id}")
        in_json: list[tuple[int | None, str]] = []
        _named_in_json(state, None, in_json)
        public = live_game.call(_public_cards, live_game.table.game)
        for hand, card in shown:
            assert card in public.get(hand, set()), f"page shows {card} of hand {hand}"
        for hand, card in in_json:
            assert hand is not None and card in public.get(hand, set()), f"API names {card}"
        assert not CARD.findall(loose), "a card named outside a card element"
        assert page.locator("#hands [data-card]").count() == 0, "a live hand shown face up"
        checks += 1
        page.wait_for_timeout(200)
    assert checks >= 10


def test_the_replay_of_an_unfinished_game_is_refused(live_game: LiveGame) -> None:
    status, body = _get(f"{live_game.web.url}/api/replays/{live_game.table.id}")
    assert status == 409
    assert "still" in body["error"]


def test_the_api_is_read_only(live_game: LiveGame) -> None:
    request = urllib.request.Request(f"{live_game.web.url}/api/tables", method="POST", data=b"")
    try:
        urllib.request.urlopen(request, timeout=10)
    except urllib.error.HTTPError as error:
        assert error.code == 405
        assert error.headers["Allow"] == "GET, HEAD"
    else:
        raise AssertionError("POST was accepted")


def test_an_unknown_table_is_not_found(live_game: LiveGame) -> None:
    status, body = _get(f"{live_game.web.url}/api/tables/nope")
    assert status == 404 and "nope" in body["error"]


def _table_of_own(
    live_game: LiveGame, names: tuple[str, str], bot_class: str, target: int
) -> tuple[Table, asyncio.Event]:
    """A table of two bots of its own (two sessions each) on the live game's server, started
    at once: the shared live game may be over by the time a test runs."""
    assert live_game.loop is not None
    stop = asyncio.Event()

    async def start() -> Table:
        bot = load_bot(f"{Path(__file__).parent / 'web_bots.py'}:{bot_class}")
        for name in names:
            asyncio.get_running_loop().create_task(
                arun_bot(bot, live_game.server.target, name=name, sessions=2, stop=stop)
            )
        for name in names:
            await live_game.server.wait_for_bot(name, sessions=2, timeout=20.0)
        return await live_game.server.create_table(
            TableSpec(
                ruleset=Ruleset.preset("standard").replace(target=target),
                seat_bots=(names[0], names[1], names[0], names[1]),
                seed=3,
                time_control=TimeControl(action_ms=5000, bank_ms=2000),
            )
        )

    return live_game.loop.run(start(), 60.0), stop


def _stop(live_game: LiveGame, stop: asyncio.Event) -> None:
    assert live_game.loop is not None
    live_game.loop.loop.call_soon_threadsafe(stop.set)


def test_the_live_table_shows_whose_turn_the_clocks_and_the_trick(
    page: Page, live_game: LiveGame
) -> None:
    table, stop = _table_of_own(live_game, ("clock-a", "clock-b"), "SlowBot", 1000)
    try:
        page.goto(f"{live_game.web.url}/tables/{table.id}")
        page.wait_for_selector("#trick [data-card]", timeout=20000)
        assert page.locator("#clocks tbody tr").count() == 4
        assert page.locator("#perspective").count() == 0  # no face-up view of a live hand
        assert page.locator("#hands [data-card]").count() == 0
        # The seat the clock runs for is the one named to act (read both at one moment).
        seat, text, left, bank = page.evaluate(
            """() => { const row = document.querySelector('#clocks tr.acting');
              return [Number(row.dataset.seat), document.getElementById('to-act').textContent,
                      row.querySelector('.clock-left').textContent,
                      row.children[1].textContent]; }"""
        )
        assert text == f"To act: seat {seat} ({table.spec.seat_bots[seat]})"
        assert left.endswith(" s") and 0 <= float(left.split()[0]) <= 7.0
        assert bank.endswith(" s") and 0 <= float(bank.split()[0]) <= 2.0
    finally:
        _stop(live_game, stop)


def test_the_page_says_so_when_its_stream_drops(page: Page, live_game: LiveGame) -> None:
    """A second dashboard on the same game server: its stream ends when it stops."""
    table, stop = _table_of_own(live_game, ("drop-a", "drop-b"), "SlowBot", 1000)
    web = WebServer("127.0.0.1:0", server=live_game.server, poll_interval_s=0.05)
    assert live_game.loop is not None
    live_game.loop.run(web.start())
    try:
        page.goto(f"{web.url}/tables/{table.id}")
        page.wait_for_selector("#step-text")
        page.wait_for_timeout(300)
        assert page.locator("#stale-banner").count() == 0
        assert page.inner_text("#status") == "PLAYING"
    finally:
        live_game.loop.run(web.stop())
    try:
        page.wait_for_selector("#stale-banner", timeout=10000)
        assert "not updating" in page.inner_text("#stale-banner")
    finally:
        _stop(live_game, stop)


def test_a_finished_table_leaves_the_live_tables(page: Page, live_game: LiveGame) -> None:
    """Two quick bots play a short game beside the live one: once it ends, the dashboard
    lists it under "Recently finished", not under "Live tables"."""
    page.goto(live_game.web.url + "/")
    page.wait_for_selector("#tables-list, #tables p")
    table, stop = _table_of_own(live_game, ("quick-a", "quick-b"), "RandomBot", 50)
    try:
        assert live_game.loop is not None
        live_game.loop.run(asyncio.wait_for(table.wait_finished(), 60.0), 70.0)
        page.wait_for_selector(f"#finished-list tr[data-table='{table.id}']", timeout=10000)
        assert page.locator(f"#tables-list tr[data-table='{table.id}']").count() == 0
    finally:
        _stop(live_game, stop)


def test_the_live_pages_fit_a_phone(browser: Browser, live_game: LiveGame, artifacts: Path) -> None:
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    page = context.new_page()
    try:
        page.goto(f"{live_game.web.url}/tables/{live_game.table.id}")
        page.wait_for_selector("#step-text")
        page.wait_for_timeout(300)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        save_screenshot(page, artifacts / "live-table-phone.png")
    finally:
        context.close()
