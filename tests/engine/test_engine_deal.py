"""RULES.md §2 (the deal) and §9 (determinism): deals come from the game seed and hand number."""

from __future__ import annotations

import hashlib

import pytest
from rookery.engine import PRESETS, Deal, Game, Ruleset, deal_for_hand, mask_of
from rookery.engine._deal import _exact_order
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


def _reference_deal(ruleset: Ruleset, game_seed: int, hand_number: int) -> Deal:
    """deal_for_hand's definition, step by step: the deck sorted by (64-bit key, card)."""
    cards = ruleset.deck_cards
    digest = hashlib.shake_256(f"{game_seed}:{hand_number}".encode()).digest(8 * len(cards))
    keys = [int.from_bytes(digest[8 * i : 8 * i + 8], "little") for i in range(len(cards))]
    deck = [card for _, card in sorted(zip(keys, cards, strict=True))]
    size, dealt = ruleset.hand_size, ruleset.hand_size * ruleset.players
    hands = tuple(mask_of(deck[start : start + size]) for start in range(0, dealt, size))
    nest = mask_of(deck[dealt : dealt + ruleset.nest_size])
    return Deal(hands, nest, mask_of(deck[dealt + ruleset.nest_size :]))


# Hand 0 of this game seed: two of its 57 keys share their top 24 bits and the order of those
# top bits alone differs from the keys' (the shuffle's fast sort must fall back to the exact one).
_TIED_SEED = 49440


def test_a_deal_whose_keys_tie_in_their_top_bits_is_still_the_exact_shuffle() -> None:
    standard = PRESETS["standard"]
    digest = hashlib.shake_256(f"{_TIED_SEED}:0".encode()).digest(8 * 57)
    tops = [int.from_bytes(digest[8 * i + 5 : 8 * i + 8], "little") for i in range(57)]
    assert len(set(tops)) < 57
    assert sorted(range(57), key=tops.__getitem__) != _exact_order(digest, 57)
    assert deal_for_hand(standard, _TIED_SEED, 0) == _reference_deal(standard, _TIED_SEED, 0)


@pytest.mark.parametrize("name", list(PRESETS))
def test_deals_are_the_shuffle_as_defined(name: str) -> None:
    ruleset = PRESETS[name]
    for game_seed in range(40):
        for hand_number in (0, 1, 7):
            expected = _reference_deal(ruleset, game_seed, hand_number)
            assert deal_for_hand(ruleset, game_seed, hand_number) == expected
