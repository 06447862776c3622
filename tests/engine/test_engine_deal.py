"""RULES.md §2 (the deal) and §9 (determinism): deals come from the game seed and hand number."""

from __future__ import annotations

import pytest
from rookery.engine import PRESETS, Game, deal_for_hand
from rookery.engine.testing import act


@pytest.mark.parametrize("name", list(PRESETS))
def test_a_deal_partitions_the_deck_into_hands_nest_and_dead(name: str) -> None:
    ruleset = PRESETS[name]
    deal = deal_for_hand(ruleset, 12345, 0)
    assert len(deal.hands) == ruleset.players
    assert all(hand.bit_count() == ruleset.hand_size for hand in deal.hands)
    assert deal.nest.bit_count() == ruleset.nest_size
    assert deal.dead.bit_count() == ruleset.dead_count
    union = 0
    for mask in (*deal.hands, deal.nest, deal.dead):
        assert not union & mask
        union |= mask
    assert union == ruleset.deck_mask


def test_the_same_seed_and_hand_number_give_the_same_deal() -> None:
    standard = PRESETS["standard"]
    assert deal_for_hand(standard, 99, 3) == deal_for_hand(standard, 99, 3)


def test_hands_and_seeds_give_different_deals() -> None:
    standard = PRESETS["standard"]
    assert deal_for_hand(standard, 99, 0) != deal_for_hand(standard, 99, 1)
    assert deal_for_hand(standard, 99, 0) != deal_for_hand(standard, 100, 0)


def test_the_deal_is_pinned_for_duplicate_tables() -> None:
    # Changing the derivation would silently change every duplicate match: pin one deal.
    deal = deal_for_hand(PRESETS["standard"], 1, 0)
    assert str(deal).splitlines()[0] == "seat 0: B6 B7 B10 R10 Y7 Y8 Y9 Y13 G2 G6 G10 G13 ROOK"


def test_every_hand_of_a_game_is_dealt_from_its_hand_number() -> None:
    standard = PRESETS["standard"]
    game = Game(standard, 42)
    assert game.deal == deal_for_hand(standard, 42, 0)
    act(game, "pass", "pass", "pass", "pass")  # an all-pass redeal is hand 1
    assert game.hand_number == 1
    assert game.deal == deal_for_hand(standard, 42, 1)


def test_two_games_with_one_seed_see_the_same_deals() -> None:
    first, second = Game(PRESETS["standard"], 7), Game(PRESETS["standard"], 7)
    assert first.observation_for(2) == second.observation_for(2)


def test_seed_must_be_a_64_bit_unsigned_int() -> None:
    with pytest.raises(ValueError):
        Game(PRESETS["standard"], -1)
    with pytest.raises(ValueError):
        Game(PRESETS["standard"], 1 << 64)
    Game(PRESETS["standard"], (1 << 64) - 1)
