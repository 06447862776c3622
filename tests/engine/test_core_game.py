"""``CoreGame`` (``rookery.engine``'s ``Game`` API on the native core) gives exactly what the pure
``Game`` gives: legal actions, observations, events, actions, records, results, refusals (the
exception, its reason and message, for wrong types too), clones, pickles and searches."""

from __future__ import annotations

import pickle
import random
from itertools import islice
from typing import Any

import pytest
from core_support import random_action
from rookery.engine import (
    PRESETS,
    Bid,
    Bury,
    CallCard,
    EngineError,
    GameRecord,
    IllegalActionError,
    MalformedActionError,
    NameTrump,
    Pass,
    PlayCard,
    Ruleset,
    Suit,
    sample_deals,
)
from rookery.engine._core_game import CoreGame
from rookery.engine._game import Game
from test_core_differential import VARIANTS

WEIRD: list[Any] = [
    PlayCard("R5"),  # type: ignore[arg-type]
    PlayCard(None),  # type: ignore[arg-type]
    PlayCard(True),
    PlayCard(-1),
    PlayCard(58),
    PlayCard(2**70),
    PlayCard(3.0),  # type: ignore[arg-type]
    CallCard("ROOK"),  # type: ignore[arg-type]
    CallCard(2**64),
    Bid("70"),  # type: ignore[arg-type]
    Bid(70.0),  # type: ignore[arg-type]
    Bid(2**80),
    Bid(-(2**80)),
    Bid(2**80 + 5),
    NameTrump("R"),  # type: ignore[arg-type]
    NameTrump(7),  # type: ignore[arg-type]
    NameTrump(1.0),  # type: ignore[arg-type]
    NameTrump(True),  # type: ignore[arg-type]
    Bury(-5),
    Bury("B5"),  # type: ignore[arg-type]
    Bury(2**70 | 1),
    Bury(1 << 63),
    "play R5",
    None,
    Pass,
]


def refusal(game: Game | CoreGame, action: object) -> tuple[type, str, str] | None:
    """What ``game.apply(action)`` raises: the exception type, reason and message."""
    try:
        game.apply(action)  # type: ignore[arg-type]
    except (EngineError, TypeError, OverflowError) as error:
        return (type(error), getattr(error, "reason", ""), str(error))
    return None


def assert_refused_alike(pure: Game, native: CoreGame, action: object) -> None:
    """The core refuses ``action`` as the pure build does. The pure build lets
    ``PlayCard(2**70)`` during the play through to an ``OverflowError`` (``1 << card`` before the
    range check): the core refuses it as not a card index."""
    want, got = refusal(pure, action), refusal(native, action)
    if want is not None and not issubclass(want[0], EngineError):
        assert got is not None and got[0] is MalformedActionError, (action, got)
    else:
        assert got == want, repr(action)


def assert_alike(pure: Game, native: CoreGame, *, every_seat: bool) -> None:
    assert native.phase is pure.phase
    assert native.current_player == pure.current_player
    assert native.legal_actions() == pure.legal_actions()
    assert list(islice(native.legal_actions(), 2000)) == list(islice(pure.legal_actions(), 2000))
    assert native.hands == pure.hands
    assert native.scores == pure.scores
    assert (native.hand_number, native.dealer, native.bidder, native.trump) == (
        pure.hand_number,
        pure.dealer,
        pure.bidder,
        pure.trump,
    )
    assert native.deal == pure.deal
    assert native.is_over == pure.is_over
    assert repr(native) == repr(pure)
    seats = range(-1, pure.ruleset.players) if every_seat else [pure.current_player or 0]
    for seat in seats:
        assert native.observation_for(seat) == pure.observation_for(seat)


def play_alike(ruleset: Ruleset, seed: int, *, events: bool = True) -> tuple[Game, CoreGame]:
    rng = random.Random(seed)
    pure, native = Game(ruleset, seed, events=events), CoreGame(ruleset, seed, events=events)
    step = 0
    while not pure.is_over:
        if rng.random() < 0.2:
            assert_refused_alike(pure, native, rng.choice(WEIRD))
        action = random_action(pure, rng)
        assert refusal(native, action) is None
        pure.apply(action)
        step += 1
        assert_alike(pure, native, every_seat=step % 11 == 0)
    return pure, native


@pytest.mark.parametrize("name", sorted(VARIANTS))
def test_a_core_game_gives_what_the_pure_game_gives(name: str) -> None:
    ruleset = VARIANTS[name].replace(max_hands=min(4, VARIANTS[name].max_hands))
    for seed in (1, 2):
        pure, native = play_alike(ruleset, seed)
        assert native.events == pure.events
        assert native.events_since(17) == pure.events_since(17)
        assert native.last_seq == pure.last_seq
        assert native.actions == pure.actions
        assert native.hand_results == pure.hand_results
        assert native.result == pure.result
        assert GameRecord.from_game(native).to_dict() == GameRecord.from_game(pure).to_dict()  # type: ignore[arg-type]
        assert_refused_alike(pure, native, Pass())


def test_without_events_the_actions_and_results_are_the_pure_games() -> None:
    pure, native = play_alike(PRESETS["five-handed"].replace(max_hands=3), 4, events=False)
    assert native.events == pure.events == []
    assert native.actions == pure.actions
    assert native.hand_results == pure.hand_results


def test_forfeit_abort_and_bad_seats_are_refused_alike() -> None:
    ruleset = PRESETS["standard"]
    pure, native = Game(ruleset, 3), CoreGame(ruleset, 3)
    for bad in (4, -1, "1", None):
        if type(bad) is int:  # (the compiled build refuses a str with a TypeError)
            with pytest.raises(ValueError, match="not a seat"):
                pure.forfeit(bad)
        with pytest.raises(ValueError, match="not a seat"):
            native.forfeit(bad)  # type: ignore[arg-type]
        with pytest.raises(ValueError, match="not a seat"):
            native.observation_for(bad if bad != -1 else 9)  # type: ignore[arg-type]
    pure.forfeit(1, "crashed")
    native.forfeit(1, "crashed")
    assert native.result == pure.result and native.forfeited == pure.forfeited
    assert native.events == pure.events
    for game in (pure, native):
        with pytest.raises(IllegalActionError, match="the game is over: cannot abort"):
            game.abort()
    assert_refused_alike(pure, native, PlayCard(3))
    with pytest.raises(ValueError, match="seed must be"):
        CoreGame(ruleset, -1)
    with pytest.raises(TypeError, match="ruleset must be"):
        CoreGame("standard", 1)  # type: ignore[arg-type]


def test_clones_and_pickles_go_on_alike() -> None:
    ruleset = PRESETS["called-partner"]
    pure, native = Game(ruleset, 8), CoreGame(ruleset, 8)
    rng = random.Random(8)
    for _ in range(40):
        action = random_action(pure, rng)
        pure.apply(action)
        native.apply(action)
    copies = [native.clone(), pickle.loads(pickle.dumps(native))]
    rest = []
    while not pure.is_over:
        action = random_action(pure, rng)
        rest.append(action)
        pure.apply(action)
    for copy in copies:
        for action in rest:
            copy.apply(action)
        assert copy.events == pure.events
        assert copy.result == pure.result
        assert copy.actions == pure.actions
    assert not native.is_over  # the original did not move


def test_searching_from_sampled_deals_is_alike() -> None:
    ruleset = PRESETS["standard"]
    rng = random.Random(5)
    pure = Game(ruleset, 5)
    while pure.phase.name != "PLAY" or len(pure.observation_for(0).completed_tricks) < 3:
        pure.apply(random_action(pure, rng))
    obs = pure.observation_for(pure.current_player or 0)
    for deal in sample_deals(obs, random.Random(1), 8):
        world = Game.from_observation(obs, deal)
        mirror = CoreGame.from_observation(obs, deal)
        assert_alike(world, mirror, every_seat=True)
        play = random.Random(2)
        while not world.is_over and world.hand_number == obs.hand_number:
            action = random_action(world, play)
            world.apply(action)
            mirror.apply(action)
        assert mirror.hand_results == world.hand_results
    with pytest.raises(ValueError, match="does not fit"):
        CoreGame.from_observation(obs, sample_deals(pure.observation_for(-1), rng, 1)[0])


def test_a_game_from_a_deal_refuses_a_bad_deal_alike() -> None:
    ruleset = PRESETS["standard"]
    deal = Game(ruleset, 2).deal
    bad = type(deal)((deal.hands[0],) * 4, deal.nest, deal.dead)
    for maker in (Game, CoreGame):
        with pytest.raises(ValueError, match="two places"):
            maker.from_deal(ruleset, bad)
    assert CoreGame.from_deal(ruleset, deal, dealer=3).legal_actions() == (
        Game.from_deal(ruleset, deal, dealer=3).legal_actions()
    )
    assert NameTrump(Suit.RED) in [NameTrump(suit) for suit in Suit]


def test_legal_actions_kept_by_the_caller_never_change() -> None:
    # The core fills its last legal actions in again only when nobody else holds them.
    game, rng = CoreGame(PRESETS["standard"], 3), random.Random(3)
    kept = []
    while not game.is_over:
        legal = game.legal_actions()
        kept.append((legal, repr(legal), tuple(legal)))
        game.apply(legal.sample(rng))
    assert len({id(legal) for legal, _, _ in kept}) == len(kept)
    for legal, text, items in kept:
        assert (repr(legal), tuple(legal)) == (text, items)
