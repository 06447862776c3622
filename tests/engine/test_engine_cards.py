"""RULES.md §2: the deck, the text forms of cards and their points."""

from __future__ import annotations

import random

import pytest
from rookery.engine import (
    NUM_CARDS,
    PRESETS,
    ROOK,
    ROOK2,
    ROOK_MASK,
    SUIT_MASKS,
    CardParseError,
    Suit,
    card_name,
    card_points,
    card_rank,
    card_suit,
    cards_of,
    format_cards,
    make_card,
    mask_of,
    mask_points,
    parse_card,
    parse_cards,
    popcount,
)


def test_card_indices_follow_suit_then_rank() -> None:
    assert make_card(Suit.BLACK, 1) == 0
    assert make_card(Suit.RED, 14) == 27
    assert make_card(Suit.GREEN, 14) == 55
    assert (ROOK, ROOK2, NUM_CARDS) == (56, 57, 58)


def test_every_card_text_form_round_trips() -> None:
    for card in range(NUM_CARDS):
        assert parse_card(card_name(card)) == card
    assert card_name(make_card(Suit.YELLOW, 5)) == "Y5"
    assert card_name(ROOK) == "ROOK" and card_name(ROOK2) == "ROOK2"


def test_parse_card_is_case_insensitive() -> None:
    assert parse_card(" g10 ") == make_card(Suit.GREEN, 10)
    assert parse_card("rook") == ROOK


@pytest.mark.parametrize("text", ["", "B0", "B15", "X3", "ROOK3", "14", "B 3"])
def test_parse_card_refuses_what_is_not_a_card(text: str) -> None:
    with pytest.raises(CardParseError):
        parse_card(text)


def test_card_parse_error_is_a_value_error() -> None:
    assert issubclass(CardParseError, ValueError)


def test_parse_cards_refuses_duplicates() -> None:
    assert parse_cards("B5, R10 ROOK") == mask_of([4, 23, ROOK])
    with pytest.raises(CardParseError):
        parse_cards("B5 B5")


def test_rook_cards_have_no_suit_and_no_rank() -> None:
    assert card_suit(ROOK) is None and card_rank(ROOK) == 0
    assert card_suit(make_card(Suit.RED, 3)) is Suit.RED
    assert card_rank(make_card(Suit.RED, 3)) == 3


@pytest.mark.parametrize(
    ("text", "points"),
    [("B5", 5), ("R10", 10), ("Y14", 10), ("ROOK", 20), ("ROOK2", 20), ("G1", 0), ("B13", 0)],
)
def test_card_points(text: str, points: int) -> None:
    assert card_points(parse_card(text)) == points
    assert mask_points(parse_card_mask(text)) == points


def parse_card_mask(text: str) -> int:
    return 1 << parse_card(text)


def test_standard_deck_is_57_cards_worth_120() -> None:
    standard = PRESETS["standard"]
    assert standard.deck_size == 57 and standard.deck_points == 120


def test_double_bird_deck_is_58_cards_worth_140() -> None:
    assert PRESETS["double-bird"].deck_size == 58
    assert PRESETS["double-bird"].deck_points == 140


def test_lowest_rank_5_leaves_41_cards_worth_120() -> None:
    traditional = PRESETS["traditional"]
    assert traditional.deck_size == 41 and traditional.deck_points == 120
    assert format_cards(traditional.deck_mask & SUIT_MASKS[Suit.BLACK]).split()[0] == "B5"


def test_mask_helpers() -> None:
    mask = mask_of([ROOK, 0, 27])
    assert cards_of(mask) == [0, 27, ROOK]
    assert popcount(mask) == 3
    assert format_cards(mask) == "B1 R14 ROOK"
    assert format_cards(0) == ""
    assert ROOK_MASK == (1 << ROOK) | (1 << ROOK2)


def test_popcount_is_bit_count_for_every_int() -> None:
    # Below 2**60 the count is native arithmetic; above it (and for negatives) ``bit_count``.
    rng = random.Random(3)
    values = [0, 1, ROOK_MASK, (1 << NUM_CARDS) - 1, (1 << 60) - 1, 1 << 60, (1 << 62) - 1, -5]
    values += [1 << bit for bit in range(70)] + [(1 << bit) - 1 for bit in range(70)]
    values += [rng.getrandbits(rng.randint(1, 64)) for _ in range(2000)] + [(1 << 200) - 7]
    for value in values:
        assert popcount(value) == value.bit_count(), hex(value)


def test_suit_letters() -> None:
    assert [suit.letter for suit in Suit] == ["B", "R", "Y", "G"]
    assert Suit.from_letter("y") is Suit.YELLOW
    with pytest.raises(CardParseError):
        Suit.from_letter("Q")
