"""``hand_seeds``: under ``PLAYED`` a redeal in one game of a duplicate pair moves no later deal."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rookery.engine import (
    PASS,
    PRESETS,
    Action,
    AllPass,
    Bid,
    Deal,
    Game,
    GameRecord,
    HandSeeds,
    Ruleset,
    deal_for_hand,
)

SETTINGS = settings(max_examples=40, deadline=None, derandomize=True)
REDEAL_PRESETS = sorted(name for name, rules in PRESETS.items() if rules.all_pass is AllPass.REDEAL)
Slot = tuple[int, int]  # (hands played out before, redeals since)


def play(rules: Ruleset, seed: int, rng_seed: int, *, first_all_pass: bool) -> Game:
    """A random game; its first auction all passes, or its first bidder bids the minimum."""
    game = Game(rules, seed)
    rng = random.Random(rng_seed)
    first = True
    while not game.is_over:
        legal = game.legal_actions()
        if first and legal.bids:
            action: Action = PASS if first_all_pass else Bid(legal.bids[0])
        elif legal.bids and rng.random() < 0.6:
            action = PASS if rng.random() < 0.6 else Bid(legal.bids[0])
        else:
            action = legal.sample(rng)
        if first and not first_all_pass:
            first = False
        game.apply(action)
        if first and first_all_pass and game.hand_number > 0:
            first = False
    return game


def deals_by_slot(game: Game) -> dict[Slot, tuple[int, Deal]]:
    """The dealer and deal of every hand, keyed by its slot: hands played out before it and
    redeals since the last one (the current, unfinished hand included)."""
    slots: dict[Slot, tuple[int, Deal]] = {}
    played = redeals = 0
    for result in game.hand_results:
        slots[played, redeals] = (result.dealer, result.deal)
        if result.redeal:
            redeals += 1
        else:
            played, redeals = played + 1, 0
    if not game.is_over:
        slots[played, redeals] = (game.dealer, game.deal)
    return slots


@SETTINGS
@given(
    st.sampled_from(REDEAL_PRESETS),
    st.integers(min_value=0, max_value=2**64 - 1),
    st.integers(min_value=0, max_value=2**32),
    st.integers(min_value=0, max_value=2**32),
)
def test_played_seeds_keep_a_pair_in_step_after_a_redeal_in_one_game(
    name: str, seed: int, rng_a: int, rng_b: int
) -> None:
    rules = PRESETS[name].replace(hand_seeds=HandSeeds.PLAYED, max_hands=6)
    redealt = play(rules, seed, rng_a, first_all_pass=True)
    straight = play(rules, seed, rng_b, first_all_pass=False)
    assert redealt.hand_results[0].redeal and not straight.hand_results[0].redeal
    a, b = deals_by_slot(redealt), deals_by_slot(straight)
    shared = sorted(set(a) & set(b))
    assert (0, 0) in shared and (1, 0) in shared
    for slot in shared:
        assert a[slot] == b[slot], slot
    # The first deal of a game is hand 0's under either numbering.
    assert a[0, 0][1] == deal_for_hand(rules, seed, 0)


def test_dealt_seeds_put_a_pair_out_of_step_after_a_redeal_in_one_game() -> None:
    """Why ``PLAYED`` exists: under ``DEALT`` the redealt game's second hand played out is the
    other game's third deal, and its dealer is one seat behind."""
    rules = PRESETS["standard"].replace(max_hands=6)
    redealt = play(rules, 11, 1, first_all_pass=True)
    straight = play(rules, 11, 2, first_all_pass=False)
    a, b = deals_by_slot(redealt), deals_by_slot(straight)
    assert a[1, 0] != b[1, 0]
    assert a[1, 0][0] == 1 and b[1, 0][0] == 1
    assert a[0, 1][1] == b[1, 0][1]  # the redeal took the deal of the other game's hand 1


def test_played_seeds_name_each_redeal_of_a_slot_apart() -> None:
    rules = PRESETS["standard"].replace(hand_seeds=HandSeeds.PLAYED)
    game = Game(rules, 5)
    deals = [game.deal]
    for _ in range(3):
        for _ in range(rules.players):
            game.apply(PASS)
        deals.append(game.deal)
    assert game.dealer == rules.first_dealer and game.hand_number == 3
    assert deals == [deal_for_hand(rules, 5, 0)] + [
        deal_for_hand(rules, 5, 0, redeals=r) for r in (1, 2, 3)
    ]
    assert len({str(deal) for deal in deals}) == 4


def test_dealt_is_the_default_and_deals_hand_k_from_k() -> None:
    rules = PRESETS["standard"]
    assert rules.hand_seeds is HandSeeds.DEALT
    game = Game(rules, 5)
    for _ in range(rules.players):
        game.apply(PASS)
    assert game.deal == deal_for_hand(rules, 5, 1)


@pytest.mark.parametrize("name", REDEAL_PRESETS)
def test_a_played_seeds_game_replays_exactly(name: str) -> None:
    rules = PRESETS[name].replace(hand_seeds=HandSeeds.PLAYED, max_hands=6)
    game = play(rules, 3, 4, first_all_pass=True)
    record = GameRecord.from_game(game)
    again = GameRecord.from_dict(record.to_dict()).replay()
    assert again.hand_results == game.hand_results
    assert again.result == game.result
    written = record.to_dict()["ruleset"]
    assert isinstance(written, dict) and written["hand_seeds"] == "PLAYED"


def test_hand_seeds_reads_and_writes_by_name() -> None:
    rules = Ruleset.from_dict({"hand_seeds": "PLAYED"})
    assert rules.hand_seeds is HandSeeds.PLAYED
    assert rules.replace(hand_seeds=HandSeeds.DEALT) == Ruleset()
    assert Ruleset.from_dict(rules.to_dict()) == rules
    assert Ruleset.from_dict({}).hand_seeds is HandSeeds.DEALT  # records from before the field
