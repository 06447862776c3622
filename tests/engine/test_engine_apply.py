"""``apply`` refuses malformed and illegal actions precisely and changes nothing then."""

from __future__ import annotations

from typing import Any

import pytest
from rookery.engine import (
    PRESETS,
    ROOK2,
    Action,
    Bid,
    Bury,
    CallCard,
    Game,
    GameOverError,
    IllegalActionError,
    MalformedActionError,
    NameTrump,
    Pass,
    PlayCard,
    Suit,
    parse_action,
    parse_card,
)
from rookery.engine.testing import act, all_observations

STANDARD = PRESETS["standard"]


def snapshot(game: Game) -> tuple[Any, ...]:
    return (all_observations(game), game.actions, game.events, game.hand_results)


@pytest.mark.parametrize(
    "action",
    ["play B1", "nonsense", PlayCard(99), PlayCard(-1), PlayCard(ROOK2), Bid("70"), NameTrump(7)],  # type: ignore[arg-type]
)
def test_malformed_actions_are_refused(action: object) -> None:
    game = Game(STANDARD, 2)
    before = snapshot(game)
    with pytest.raises(MalformedActionError):
        game.apply(action)  # type: ignore[arg-type]
    assert snapshot(game) == before


def test_a_bury_of_the_wrong_size_or_outside_the_deck_is_malformed() -> None:
    game = Game(STANDARD, 2)
    act(game, "bid 70", "pass", "pass", "pass", "trump R")
    before = snapshot(game)
    for cards in (0b111, 1 << 60 | 0b1111, -1):
        with pytest.raises(MalformedActionError):
            game.apply(Bury(cards))
    assert snapshot(game) == before


def test_illegal_actions_name_their_reason_and_change_nothing() -> None:
    game = Game(STANDARD, 2)
    before = snapshot(game)
    cases: list[tuple[Action, str]] = [
        (PlayCard(0), "wrong_phase"),
        (NameTrump(Suit.RED), "wrong_phase"),
        (CallCard(3), "wrong_phase"),
        (Bid(65), "bid_too_low"),
        (Bid(71), "bid_not_multiple"),
        (Bid(200), "bid_too_high"),
    ]
    for action, reason in cases:
        with pytest.raises(IllegalActionError) as caught:
            game.apply(action)
        assert caught.value.reason == reason
        assert str(caught.value)
    assert snapshot(game) == before


def test_must_follow_suit_is_refused_with_the_cards_that_follow() -> None:
    game = Game(STANDARD, 2)
    act(game, "bid 70", "pass", "pass", "pass", "trump R")
    game.apply(game.legal_actions()[0])
    game.apply(game.legal_actions()[0])  # a lead
    legal = game.legal_actions()
    seat = game.current_player
    assert seat is not None
    hand = game.observation_for(seat).hand
    revoke = hand & ~legal.play
    if not revoke:
        pytest.skip("this deal gives the next seat no card to revoke with")
    before = snapshot(game)
    card = (revoke & -revoke).bit_length() - 1
    with pytest.raises(IllegalActionError, match="must follow suit") as caught:
        game.apply(PlayCard(card))
    assert caught.value.reason == "must_follow_suit"
    assert snapshot(game) == before


def test_acting_on_a_finished_game_raises_game_over() -> None:
    game = Game(STANDARD, 2)
    game.abort()
    with pytest.raises(GameOverError):
        game.apply(Pass())
    with pytest.raises(GameOverError):
        game.forfeit(0)
    with pytest.raises(GameOverError):
        game.abort()
    assert game.legal_actions().player == -1 and len(game.legal_actions()) == 0


def test_game_over_error_is_an_illegal_action_error() -> None:
    assert issubclass(GameOverError, IllegalActionError)


def test_is_legal_agrees_with_apply() -> None:
    game = Game(STANDARD, 2)
    assert game.is_legal(Bid(70)) and game.is_legal(Pass())
    assert not game.is_legal(Bid(65)) and not game.is_legal(PlayCard(parse_card("B1")))
    assert not game.is_legal("bid 70")


def test_parse_action_text_forms() -> None:
    for text in ("pass", "bid 75", "trump R", "call G14", "play ROOK", "bury B5 R10"):
        assert str(parse_action(text)) == text
    for bad in ("", "bid", "bid x", "trump Q", "play", "fold", "call B1 B2"):
        with pytest.raises(MalformedActionError):
            parse_action(bad)


def test_a_bury_without_cards_is_a_parse_error_not_an_empty_bury() -> None:
    with pytest.raises(MalformedActionError, match="name the cards to bury"):
        parse_action("bury")


def test_clone_is_independent() -> None:
    game = Game(STANDARD, 2)
    copy = game.clone()
    act(copy, "bid 70")
    assert game.actions == [] and len(copy.actions) == 1
    assert game.observation_for(1).auction == ()


@pytest.mark.parametrize("amount", ["1²", "٧٥", "७५"])
def test_a_bid_in_digits_that_are_not_ascii_is_a_parse_error(amount: str) -> None:
    with pytest.raises(MalformedActionError, match="not a number"):
        parse_action(f"bid {amount}")
