"""A live table watched in the browser while slow bots play it on a real server, and the trust
rules: no hidden card in any page or API answer before its hand is over."""

from __future__ import annotations

import json
import re
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page
from rookery.engine import CardPlayed, Game, HandScored, card_name, cards_of
from rookery.web.testing import LiveGame

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
    page.screenshot(path=str(artifacts / "live-table.png"))


def test_the_dashboard_lists_the_live_table(page: Page, live_game: LiveGame) -> None:
    page.goto(live_game.web.url + "/")
    row = page.locator(f"#tables-list tr[data-table='{live_game.table.id}']")
    row.wait_for()
    assert "slow-a" in row.inner_text()


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
