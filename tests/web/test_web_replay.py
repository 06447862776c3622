"""The replay viewer on real replays: the right cards at a trick, stepping, keys, deep links,
and hidden cards revealed only at the end of their hand."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page
from rookery.engine import card_name
from rookery.v1 import replay_pb2
from rookery.web.testing import Tournament
from rookery.wire.convert import card_from_proto
from rookery.wire.replay import read_replay
from screenshots import save_screenshot

pytestmark = pytest.mark.slow


def _replay(tournament: Tournament) -> tuple[str, replay_pb2.Replay]:
    """The tournament's longest game (most hands), by game id."""
    game = max(tournament.data.games, key=lambda g: (g.hands_played, g.index))
    replay = read_replay(tournament.run_dir / game.replay_path)
    assert len(replay.hands) >= 2
    return game.game_id, replay


def _played_hand(replay: replay_pb2.Replay) -> int:
    """The first hand that was played out (not a redeal)."""
    return next(i for i, hand in enumerate(replay.hands) if len(_tricks(replay, i)) >= 6)


def _tricks(replay: replay_pb2.Replay, hand: int) -> list[list[tuple[int, str]]]:
    """The tricks of a hand straight from the replay file: (seat, card) in order of play."""
    players = len(replay.header.seats)
    plays = [
        (a.seat, card_name(card_from_proto(a.action.play_card.card)))
        for a in replay.hands[hand].actions
        if a.outcome != replay_pb2.ACTION_OUTCOME_REJECTED and a.action.HasField("play_card")
    ]
    return [plays[i : i + players] for i in range(0, len(plays), players)]


def _trick_on_table(page: Page) -> list[tuple[int, str]]:
    cards = page.locator("#trick [data-card]").evaluate_all(
        "gs => gs.map(g => [Number(g.dataset.seat), g.dataset.card])"
    )
    return [(seat, card) for seat, card in cards]


def test_a_deep_link_shows_the_cards_of_that_trick(
    page: Page, tournament: Tournament, artifacts: Path
) -> None:
    game_id, replay = _replay(tournament)
    h = _played_hand(replay)
    expected = _tricks(replay, h)[4]
    page.goto(f"{tournament.web.url}/replays/{game_id}#hand={h}&trick=5")
    page.wait_for_selector("#trick [data-card]")
    assert _trick_on_table(page) == expected
    assert "wins trick 5" in page.inner_text("#step-text")
    save_screenshot(page, artifacts / "replay-trick.png")


def test_stepping_forward_and_back_walks_through_the_cards_played(
    page: Page, tournament: Tournament
) -> None:
    game_id, replay = _replay(tournament)
    h = _played_hand(replay)
    tricks = _tricks(replay, h)
    page.goto(f"{tournament.web.url}/replays/{game_id}#hand={h}&trick=2")
    page.wait_for_selector("#trick [data-card]")
    page.keyboard.press("ArrowRight")
    assert _trick_on_table(page) == tricks[2][:1]
    page.keyboard.press("ArrowRight")
    assert _trick_on_table(page) == tricks[2][:2]
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    assert _trick_on_table(page) == tricks[1]
    assert "trick=2" in page.evaluate("location.hash")


def test_keys_jump_between_hands_and_to_the_ends(page: Page, tournament: Tournament) -> None:
    game_id, replay = _replay(tournament)
    page.goto(f"{tournament.web.url}/replays/{game_id}")
    page.wait_for_selector("#counter")
    assert page.inner_text("#counter").startswith("hand 0 · step 1/")
    page.keyboard.press("n")
    assert page.inner_text("#counter").startswith(f"hand {replay.hands[1].hand_number} · step 1/")
    page.keyboard.press("p")
    assert page.inner_text("#counter").startswith("hand 0 · step 1/")
    page.keyboard.press("End")
    assert "Game over" in page.inner_text("#step-text")
    page.keyboard.press("Home")
    assert page.inner_text("#counter").startswith("hand 0 · step 1/")


def test_hidden_cards_appear_only_once_the_hand_is_over(
    page: Page, tournament: Tournament, artifacts: Path
) -> None:
    game_id, replay = _replay(tournament)
    h = _played_hand(replay)
    played = {card for trick in _tricks(replay, h)[:5] for _, card in trick}
    page.goto(f"{tournament.web.url}/replays/{game_id}#hand={h}&trick=5")
    page.wait_for_selector("#trick [data-card]")
    assert page.locator("[data-card]").count() > 0
    shown = set(
        page.locator(f"[data-hand='{h}'][data-card]").evaluate_all(
            "nodes => nodes.map(n => n.dataset.card)"
        )
    )
    assert shown <= played
    assert page.locator("#reveal").count() == 0
    page.keyboard.press("n")
    page.keyboard.press("ArrowLeft")
    assert "Hand scored" in page.inner_text("#step-text")
    nest = [card_name(card_from_proto(c)) for c in replay.hands[h].deal.nest]
    revealed = page.locator("#reveal [data-card]").evaluate_all("ns => ns.map(n => n.dataset.card)")
    assert set(nest) <= set(revealed)
    dealt = page.locator("g.hand[data-seat='1'] [data-card]").evaluate_all(
        "ns => ns.map(n => n.dataset.card)"
    )
    assert dealt == [card_name(card_from_proto(c)) for c in replay.hands[h].deal.hands[1].cards]
    save_screenshot(page, artifacts / "replay-reveal.png")


def test_following_a_seat_shows_its_hand_as_it_held_it(page: Page, tournament: Tournament) -> None:
    game_id, replay = _replay(tournament)
    h = next(
        i
        for i, hand in enumerate(replay.hands)
        if len(_tricks(replay, i)) >= 6 and hand.result.bidder != 2
    )
    page.goto(f"{tournament.web.url}/replays/{game_id}#hand={h}&trick=5&seat=2")
    page.wait_for_selector("#trick [data-card]")
    dealt = {card_name(card_from_proto(c)) for c in replay.hands[h].deal.hands[2].cards}
    played = {card for trick in _tricks(replay, h)[:5] for seat, card in trick if seat == 2}
    held = set(
        page.locator("g.hand[data-seat='2'] [data-card]").evaluate_all(
            "ns => ns.map(n => n.dataset.card)"
        )
    )
    assert held == dealt - played
    assert page.locator("g.hand[data-seat='1'] [data-card]").count() == 0
