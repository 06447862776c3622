"""``trick_winner``: the SDK's trick-winner helper says what the engine decides, in every preset."""

from __future__ import annotations

import random

import pytest
from rookery.engine import (
    PRESETS,
    ROOK,
    ROOK2,
    Game,
    Phase,
    Ruleset,
    Suit,
    parse_card,
    trick_winner,
)


def _cards(text: str) -> list[int]:
    return [parse_card(card) for card in text.split()]


def test_the_highest_card_of_the_led_suit_wins_without_trump() -> None:
    assert trick_winner(_cards("R5 R14 B14 R9"), Suit.GREEN) == 1


def test_any_trump_beats_the_led_suit_and_the_highest_trump_wins() -> None:
    assert trick_winner(_cards("R14 G2 R13 G3"), Suit.GREEN) == 3


def test_the_rook_is_the_highest_trump_and_rook2_the_next() -> None:
    assert trick_winner([parse_card("G14"), ROOK2, ROOK, parse_card("G13")], Suit.GREEN) == 2
    assert trick_winner([parse_card("G14"), ROOK2], Suit.GREEN) == 1


def test_a_rook_led_is_a_trump_lead() -> None:
    assert trick_winner([ROOK, parse_card("Y14"), parse_card("B14")], Suit.YELLOW) == 0


def test_an_open_trick_names_the_card_winning_so_far() -> None:
    assert trick_winner(_cards("B7"), Suit.RED) == 0
    with pytest.raises(ValueError):
        trick_winner([], Suit.RED)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_it_agrees_with_the_engine_on_every_trick_of_random_games(preset: str) -> None:
    rng = random.Random(preset)
    rules = Ruleset.preset(preset)
    checked = 0
    for seed in range(3):
        game = Game(rules, seed=seed)
        while game.phase is not Phase.GAME_OVER:
            playing = game.phase is Phase.PLAY
            game.apply(game.legal_actions().sample(rng))
            if not playing:
                continue
            seen = game.observation_for(-1)
            if seen.current_trick.cards or not seen.completed_tricks or seen.trump is None:
                continue  # no trick was completed by that card
            trick = seen.completed_tricks[-1]
            seats = [seat for seat, _ in trick.cards]
            cards = [card for _, card in trick.cards]
            assert seats[trick_winner(cards, seen.trump)] == trick.winner, (preset, trick)
            checked += 1
    assert checked > 20
