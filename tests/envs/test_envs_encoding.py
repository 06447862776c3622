"""The action ids and the observation tensor: a fixed layout, exact mapping, nothing hidden."""

from __future__ import annotations

import dataclasses
import random

import numpy as np
import pytest
from envs_positions import ALL_PRESETS, table_at_random_point
from hypothesis import given, settings
from hypothesis import strategies as st
from rookery.engine import (
    NUM_CARDS,
    Bury,
    Game,
    Phase,
    Ruleset,
    sample_deals,
)
from rookery.envs._encoding import ActionCodec, ObservationEncoder


def test_the_action_layout_is_pass_bids_trumps_then_a_card_range_each_for_bury_call_play() -> None:
    codec = ActionCodec(Ruleset.preset("standard"))
    assert codec.bids == (70, 75, 80, 85, 90, 95, 100, 105, 110, 115, 120)
    assert (codec.bid0, codec.trump0, codec.bury0) == (1, 12, 16)
    assert (codec.call0, codec.play0, codec.size) == (16 + NUM_CARDS, 16 + 2 * NUM_CARDS, 190)
    assert [codec.describe(i) for i in (0, 1, 11, 12, 15)] == [
        "pass",
        "bid 70",
        "bid 120",
        "trump B",
        "trump G",
    ]
    assert codec.describe(16 + 56) == "bury card ROOK"
    assert codec.describe(codec.play0 + 13) == "play B14"


def test_double_bird_has_more_bid_ids_than_standard() -> None:
    assert ActionCodec(Ruleset.preset("double-bird")).size == 194


@pytest.mark.parametrize("name", ALL_PRESETS)
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32), steps=st.integers(0, 80))
def test_every_legal_id_maps_to_an_engine_legal_action_and_back(
    name: str, seed: int, steps: int
) -> None:
    table = table_at_random_point(name, seed, steps)
    if table.is_over:
        return
    codec, legal, pending = table.codec, table.legal(), table.pending
    ids = table.legal_ids()
    assert ids, "a seat to act always has a legal id"
    assert np.flatnonzero(table.mask()).tolist() == ids
    for action_id in ids:
        step = codec.step_action(action_id, legal, pending)
        if legal.phase is Phase.BURY:
            card = action_id - codec.bury0
            assert legal.bury_from >> card & 1 and not pending >> card & 1
            if isinstance(step, Bury):
                assert step in legal
                assert action_id in codec.to_ids(step)
            else:
                assert step == pending | 1 << card
        else:
            assert not isinstance(step, int)
            assert step in legal
            assert codec.to_ids(step) == [action_id]
    if legal.phase is not Phase.BURY:
        assert sorted(i for a in legal for i in codec.to_ids(a)) == ids
    outside = [i for i in range(codec.size) if i not in ids]
    for action_id in random.Random(seed).sample(outside, 5):
        with pytest.raises(ValueError, match="is not legal now"):
            codec.step_action(action_id, legal, pending)


@pytest.mark.parametrize("name", ALL_PRESETS)
@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32), steps=st.integers(0, 90))
def test_a_seats_tensor_never_changes_when_only_other_seats_hidden_cards_change(
    name: str, seed: int, steps: int
) -> None:
    table = table_at_random_point(name, seed, steps)
    if table.is_over:
        return
    rng = random.Random(seed)
    encoder = table.encoder
    for seat in range(table.ruleset.players):
        obs = table.observation(seat)
        pending = table.pending_for(seat)
        tensor = encoder.encode(obs, pending)
        info = encoder.encode_info_state(obs, pending)
        for deal in sample_deals(obs, rng, 3):
            world = Game.from_observation(obs, deal)
            other = world.observation_for(seat)
            assert np.array_equal(encoder.encode(other, pending), tensor)
            assert np.array_equal(encoder.encode_info_state(other, pending), info)


def test_the_tensor_shows_the_own_hand_and_not_another_seats() -> None:
    game = Game(Ruleset.preset("standard"), 11, events=False)
    encoder = ObservationEncoder(game.ruleset)
    at, size = encoder.offsets["hand"]
    for seat in range(4):
        tensor = encoder.encode(game.observation_for(seat))
        shown = {int(i) for i in np.flatnonzero(tensor[at : at + size])}
        assert shown == {c for c in range(NUM_CARDS) if game.hands[seat] >> c & 1}


def test_seats_are_relative_to_the_observer() -> None:
    game = Game(Ruleset.preset("standard"), 3, events=False)
    encoder = ObservationEncoder(game.ruleset)
    at, _ = encoder.offsets["dealer"]
    dealer = game.dealer
    for seat in range(4):
        tensor = encoder.encode(game.observation_for(seat))
        assert tensor[at + (dealer - seat) % 4] == 1.0


def test_a_spectator_style_view_of_a_seat_has_no_private_cards() -> None:
    game = Game(Ruleset.preset("standard"), 3, events=False)
    encoder = ObservationEncoder(game.ruleset)
    public = dataclasses.replace(game.public_view(), seat=0)
    at, size = encoder.offsets["hand"]
    assert not encoder.encode(public)[at : at + size].any()
