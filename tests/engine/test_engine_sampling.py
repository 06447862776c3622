"""Determinization: sampled deals agree with everything an observation shows."""

from __future__ import annotations

import random

import pytest
from rookery.engine import (
    PRESETS,
    SUIT_MASKS,
    Game,
    Partnership,
    Suit,
    parse_cards,
    sample_deal,
    sample_deals,
)
from rookery.engine.testing import act, make_deal, seat_zero_bids, small_rules


def test_sampled_deals_keep_the_observers_cards_and_rebuild_the_observation() -> None:
    rng = random.Random(1)
    game = Game(PRESETS["standard"], 6)
    act(game, "bid 70", "pass", "pass", "pass", "trump B")
    game.apply(game.legal_actions()[0])
    for _ in range(9):
        game.apply(game.legal_actions()[0])
    for seat in (-1, 0, 1, 2, 3):
        observation = game.observation_for(seat)
        for deal in sample_deals(observation, rng, 5):
            search = Game.from_observation(observation, deal)
            assert search.observation_for(seat) == observation
            assert search.events == []


def test_the_bidders_sample_keeps_the_nest_and_the_bury() -> None:
    rng = random.Random(2)
    game = Game(PRESETS["standard"], 6)
    act(game, "bid 70", "pass", "pass", "pass", "trump B")
    observation = game.observation_for(1)
    deal = sample_deal(observation, rng)
    assert deal.nest == observation.nest and deal.hands[1] == game.deal.hands[1]
    game.apply(game.legal_actions()[0])
    observation = game.observation_for(1)
    assert sample_deal(observation, rng).nest == observation.buried


def test_voids_shown_by_not_following_suit_are_respected() -> None:
    rules = small_rules()
    deal = make_deal(
        rules,
        ["B14 B13 R14 R13", "ROOK Y11 Y12 G12", "B12 Y14 Y13 G13", "B11 R12 R11 G14"],
        nest="G11",
    )
    game = seat_zero_bids(rules, deal, "R")
    act(game, "play B14", "play Y11")  # seat 1 shows a void in black
    observation = game.observation_for(2)
    rng = random.Random(3)
    for sampled in sample_deals(observation, rng, 40):
        assert not sampled.hands[1] & SUIT_MASKS[Suit.BLACK]
        assert sampled.hands[2] == deal.hands[2]


def test_a_rook_thrown_under_rook_free_play_shows_no_void() -> None:
    rules = small_rules(rook_free_play=True)
    deal = make_deal(
        rules,
        ["B14 B13 R14 R13", "ROOK B11 Y11 G12", "B12 Y14 Y13 G13", "R12 R11 G14 Y12"],
        nest="G11",
    )
    game = seat_zero_bids(rules, deal, "R")
    act(game, "play B14", "play ROOK")
    observation = game.observation_for(2)
    holders = {
        bool(sampled.hands[1] & SUIT_MASKS[Suit.BLACK])
        for sampled in sample_deals(observation, random.Random(4), 60)
    }
    assert holders == {True, False}


def test_the_called_card_is_never_given_to_the_bidder_or_the_bury() -> None:
    rules = small_rules(partnership=Partnership.CALLED)
    deal = make_deal(
        rules,
        ["ROOK B14 B13 B12", "R14 R13 R12 R11", "Y14 Y13 Y12 Y11", "G14 G13 G12 G11"],
        nest="B11",
    )
    game = Game.from_deal(rules, deal)
    act(game, "pass", "pass", "pass", "bid 5", "trump B", "bury B11", "call R14")
    observation = game.observation_for(3)
    called = parse_cards("R14")
    for sampled in sample_deals(observation, random.Random(5), 40):
        assert not (sampled.hands[0] | sampled.nest) & called


def test_unconstrained_cards_reach_every_hidden_place() -> None:
    game = Game(PRESETS["nest-4"], 9)
    observation = game.observation_for(0)
    places = set()
    card = next(c for c in PRESETS["nest-4"].deck_cards if not observation.hand >> c & 1)
    for sampled in sample_deals(observation, random.Random(6), 200):
        where = [seat for seat, hand in enumerate(sampled.hands) if hand >> card & 1]
        places.add(where[0] if where else ("nest" if sampled.nest >> card & 1 else "dead"))
    assert places == {1, 2, 3, "nest", "dead"}


def test_a_deal_that_does_not_fit_is_refused() -> None:
    game = Game(PRESETS["standard"], 6)
    observation = game.observation_for(0)
    other = Game(PRESETS["standard"], 7).deal
    with pytest.raises(ValueError):
        Game.from_observation(observation, other)
