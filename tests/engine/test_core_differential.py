"""The native core plays exactly the pure engine's game: the same deals, legal actions,
observations, events, refusals and scores, over many random and hostile games of every preset.

The core (``rookery_core``, built from ``core/`` by ``make setup`` where a Rust toolchain is
found) is held to the pure engine (``_game.Game``), the readable reference, whichever build
``rookery.engine.Game`` is; the core's game is read as ``CoreGame``, through the plain values of
its ``rookery_core.EngineGame``.
"""

from __future__ import annotations

import dataclasses
import random

import pytest
from core_support import (
    apply_both,
    core,
    core_game,
    core_observation,
    core_rules,
    hostile_action,
    plain_deal,
    plain_event,
    plain_game_result,
    plain_hand_result,
    plain_legal,
    plain_observation,
    random_action,
)
from rookery.engine import (
    PRESETS,
    AllPass,
    Bid,
    BothOver,
    FirstLead,
    Game,
    GameOverError,
    HandSeeds,
    Partnership,
    Pass,
    Ruleset,
    deal_for_hand,
)
from rookery.engine._core_game import CoreGame
from rookery.engine._game import Game as PureGame

# Variations that reach every branch the presets leave out: dealer forced, the played hand seeds,
# a last-trick bonus, a short game adjudicated at max_hands, rook free play with the bidder leading.
VARIANTS: dict[str, Ruleset] = {
    **PRESETS,
    "forced-bonus": PRESETS["standard"].replace(
        name="forced-bonus", all_pass=AllPass.DEALER_FORCED, last_trick_bonus=20, target=200
    ),
    "played-seeds": PRESETS["traditional"].replace(
        name="played-seeds", hand_seeds=HandSeeds.PLAYED, max_hands=12
    ),
    "called-five-free": PRESETS["five-handed"].replace(
        name="called-five-free",
        rook_free_play=True,
        first_lead=FirstLead.LEFT_OF_BIDDER,
        both_over=BothOver.BIDDER_WINS,
        target=150,
    ),
    "cutthroat-short": PRESETS["cutthroat"].replace(
        name="cutthroat-short", max_hands=3, first_dealer=2, trump_first=False
    ),
    "small-steps": Ruleset(
        name="small-steps",
        players=4,
        partnership=Partnership.FIXED,
        lowest_rank=11,
        nest_size=1,
        min_bid=5,
        bid_step=5,
        max_bid=40,
        target=60,
    ),
}


def assert_same_state(pure: Game, native: CoreGame, *, every_seat: bool) -> None:
    """The core's state is the pure engine's: phase, seat, legal actions and observations."""
    assert native.phase is pure.phase
    assert plain_legal(native.legal_actions()) == plain_legal(pure.legal_actions())
    assert native.hands == pure.hands
    assert native.scores == pure.scores
    assert native.hand_number == pure.hand_number
    seats = range(-1, pure.ruleset.players) if every_seat else [pure.current_player or 0]
    for seat in seats:
        assert core_observation(native, seat) == plain_observation(pure.observation_for(seat))


def play_both(ruleset: Ruleset, seed: int, *, hostile: float = 0.0, checks: int = 3) -> Game:
    """Plays one random game on both builds, comparing every step; returns the pure game."""
    rng = random.Random(seed * 7919 + len(ruleset.name))
    pure = PureGame(ruleset, seed)
    native = core_game(ruleset, seed)
    step = 0
    while not pure.is_over:
        if rng.random() < hostile:
            refusal = apply_both(pure, native, hostile_action(pure, rng))
            if refusal is not None:  # nothing changed
                assert_same_state(pure, native, every_seat=False)
        if pure.is_over:
            break
        before = pure.phase
        assert apply_both(pure, native, random_action(pure, rng)) is None
        step += 1
        assert_same_state(pure, native, every_seat=pure.phase is not before or step % checks == 0)
    assert native.is_over
    assert native._result_plain() == plain_game_result(pure.result)  # type: ignore[arg-type]
    assert native._hand_results_plain(0) == [plain_hand_result(r) for r in pure.hand_results]
    assert native._events_plain(0) == [plain_event(event) for event in pure.events]
    assert native.last_seq == pure.last_seq
    assert_same_state(pure, native, every_seat=True)
    return pure


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_random_games_are_the_same_on_both_builds(name: str) -> None:
    for seed in range(4):
        play_both(VARIANTS[name], seed)


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_hostile_actions_are_refused_alike_and_change_nothing(name: str) -> None:
    refused = 0
    for seed in range(100, 103):
        ruleset = VARIANTS[name].replace(max_hands=2)
        pure = play_both(ruleset, seed, hostile=0.5, checks=1)
        assert pure.is_over
        refused += 1
    assert refused == 3


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_deals_are_the_pure_engines(name: str) -> None:
    ruleset = VARIANTS[name]
    rules = core_rules(ruleset)
    for seed in (0, 1, 7, 2**63 + 5, 2**64 - 1, *range(1000, 1040)):
        for hand in (0, 1, 13):
            assert rules.deal(seed, hand) == plain_deal(deal_for_hand(ruleset, seed, hand))
        assert rules.deal(seed, 2, 3) == plain_deal(deal_for_hand(ruleset, seed, 2, redeals=3))


def test_a_game_over_refuses_everything_and_forfeit_and_abort_end_alike() -> None:
    ruleset = PRESETS["called-partner"]
    pure, native = PureGame(ruleset, 5), core_game(ruleset, 5)
    pure.forfeit(2, "timeout")
    native.forfeit(2, "timeout")
    assert native._result_plain() == plain_game_result(pure.result)  # type: ignore[arg-type]
    assert native.forfeited == pure.forfeited
    assert native._events_plain(0) == [plain_event(event) for event in pure.events]
    assert apply_both(pure, native, random_action(PureGame(ruleset, 5), random.Random(1)))
    with pytest.raises(GameOverError):
        native._abort()
    pure, native = PureGame(ruleset, 6), core_game(ruleset, 6)
    pure.abort()
    native.abort()
    assert native._result_plain() == plain_game_result(pure.result)  # type: ignore[arg-type]
    assert native.is_aborted


def test_a_game_from_a_deal_plays_as_the_pure_one() -> None:
    ruleset = PRESETS["standard"]
    deal = deal_for_hand(ruleset, 99, 4)
    pure = PureGame.from_deal(ruleset, deal, seed=3, dealer=2, hand_number=4, scores=(250, 280))
    native = CoreGame.from_deal(ruleset, deal, seed=3, dealer=2, hand_number=4, scores=(250, 280))
    rng = random.Random(4)
    while not pure.is_over:
        assert apply_both(pure, native, random_action(pure, rng)) is None
        assert_same_state(pure, native, every_seat=False)
    assert native._events_plain(0) == [plain_event(event) for event in pure.events]
    with pytest.raises(ValueError, match="two places"):
        core.EngineGame._from_deal(
            core_rules(ruleset), [deal.hands[0]] * 4, deal.nest, deal.dead, seed=3
        )


def test_a_clone_goes_its_own_way() -> None:
    native = core_game(PRESETS["standard"], 11)
    native.apply(Bid(70))
    copy = native.clone()
    copy.apply(Pass())
    assert native.current_player == 2 and copy.current_player == 3
    assert len(copy._events_plain(0)) == len(native._events_plain(0)) + 1


def test_core_random_playouts_finish_every_preset_and_replay_on_the_pure_engine() -> None:
    for name in sorted(PRESETS):
        ruleset = dataclasses.replace(PRESETS[name])
        native = core_game(ruleset, 3, events=False)
        actions = native.random_playout(3)
        assert native.is_over and actions > 0
        assert native._events_plain(0) == []
        assert len(native.actions) == actions
        pure = PureGame(ruleset, 3, events=False)
        for seat, action in native.actions:
            assert pure.current_player == seat
            pure.apply(action)
        assert pure.is_over and pure.scores == native.scores
