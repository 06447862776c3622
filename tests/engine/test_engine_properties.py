"""Invariants over every preset, checked on random games (hypothesis).

Games are cut to three hands (``max_hands = 3``) so that each example also ends by adjudication.
"""

from __future__ import annotations

import random
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from rookery.engine import (
    PASS,
    PLAY,
    PRESETS,
    TRUMP,
    Action,
    Bid,
    Bury,
    CallCard,
    CardPlayed,
    EngineError,
    Game,
    GameRecord,
    HandScored,
    Observation,
    TrickWon,
    mask_points,
    parse_card,
    sample_deal,
)
from rookery.engine.testing import all_observations, lowest_bid_or_sample

SETTINGS = settings(max_examples=25, deadline=None, derandomize=True)
games = st.tuples(
    st.sampled_from(sorted(PRESETS)),
    st.integers(min_value=0, max_value=2**64 - 1),
    st.integers(min_value=0, max_value=2**32),
)


def play(name: str, seed: int, rng_seed: int, *, watch: bool = False) -> tuple[Game, list[Any]]:
    """A random game of ``name`` (three hands at most), with every observation when ``watch``."""
    game = Game(PRESETS[name].replace(max_hands=3), seed)
    rng = random.Random(rng_seed)
    seen = [all_observations(game)] if watch else []
    while not game.is_over:
        # Pass or bid the minimum, so that hands are made as well as set.
        game.apply(lowest_bid_or_sample(game.legal_actions(), rng))
        if watch:
            seen.append(all_observations(game))
    return game, seen


@SETTINGS
@given(games)
def test_every_card_is_played_exactly_once_per_hand(case: tuple[str, int, int]) -> None:
    game, _ = play(*case)
    played: dict[int, list[int]] = {}
    for event in game.events:
        if isinstance(event, CardPlayed):
            played.setdefault(event.hand_number, []).append(event.card)
    for result in game.hand_results:
        if result.redeal:
            assert result.hand_number not in played
            continue
        cards = played[result.hand_number]
        assert len(cards) == len(set(cards))
        mask = sum(1 << card for card in cards)
        assert mask == game.ruleset.deck_mask & ~result.buried & ~result.deal.dead


@SETTINGS
@given(games)
def test_captured_buried_and_dead_points_make_the_deck_total(case: tuple[str, int, int]) -> None:
    game, _ = play(*case)
    captured: dict[int, int] = {}
    for event in game.events:
        if isinstance(event, TrickWon):
            captured[event.hand_number] = captured.get(event.hand_number, 0) + event.points
    for event in game.events:
        if isinstance(event, HandScored):
            result = event.result
            total = (
                captured[result.hand_number]
                + mask_points(result.buried)
                + mask_points(result.deal.dead)
            )
            assert total == game.ruleset.deck_points
            bonus = game.ruleset.last_trick_bonus
            assert sum(result.points_per_side) + mask_points(result.deal.dead) == total + bonus


CARD_WORD = re.compile(r"\b(?:[BRYG](?:1[0-4]|[1-9])|ROOK2?)\b")


def visible_cards(observation: Observation) -> int:
    """Every card named anywhere in the observation's dict form."""
    text = str(observation.to_dict())
    return sum(1 << parse_card(word) for word in set(CARD_WORD.findall(text)))


@SETTINGS
@given(games)
def test_no_observation_shows_a_card_its_seat_may_not_know(case: tuple[str, int, int]) -> None:
    game, seen = play(*case, watch=True)
    for step, observations in enumerate(seen):
        for observation in observations:
            public = observation.current_trick.cards + tuple(
                entry for trick in observation.completed_tricks for entry in trick.cards
            )
            allowed = sum(1 << card for _, card in public)
            if observation.called_card >= 0:
                allowed |= 1 << observation.called_card
            if observation.seat < 0:
                assert (observation.hand, observation.nest, observation.buried) == (0, 0, 0)
            else:
                allowed |= observation.hand
                if observation.seat == observation.bidder:
                    allowed |= observation.nest | observation.buried
                else:
                    assert observation.nest == observation.buried == 0
            assert observation.hand & ~(game.ruleset.deck_mask) == 0
            if step % 4 == 0:  # the text form names no other card (sampled: it is slow)
                assert visible_cards(observation) & ~allowed == 0


@SETTINGS
@given(games)
def test_resimulation_reproduces_every_observation_and_its_legal_actions(
    case: tuple[str, int, int],
) -> None:
    game, seen = play(*case, watch=True)
    record = GameRecord.from_dict(GameRecord.from_game(game).to_dict())
    replayed = Game(record.ruleset, record.seed)
    assert all_observations(replayed) == seen[0]
    for index, (seat, action) in enumerate(record.actions):
        # What a seat computes from its observation alone is what the referee allows.
        assert seen[index][seat + 1].legal_actions() == replayed.legal_actions()
        replayed.apply(action)
        assert all_observations(replayed) == seen[index + 1]
    assert record.replay().result == game.result


def outside_actions(game: Game, rng: random.Random) -> list[Action]:
    """A few actions of every kind, some legal, most not."""
    deck = game.ruleset.deck_cards
    actions: list[Action] = [PASS, Bid(rng.choice([0, 5, 65, 70, 72, 125, 140, 145]))]
    actions += [PLAY[rng.choice(range(58))], PLAY[rng.choice(deck)], TRUMP[rng.randrange(4)]]
    actions.append(CallCard(rng.choice(deck)))
    size = game.ruleset.nest_size
    actions.append(Bury(sum(1 << card for card in rng.sample(deck, max(size, 1)))))
    return actions


@SETTINGS
@given(games)
def test_an_action_outside_the_legal_actions_is_refused_and_changes_nothing(
    case: tuple[str, int, int],
) -> None:
    name, seed, rng_seed = case
    game = Game(PRESETS[name].replace(max_hands=2), seed)
    rng = random.Random(rng_seed)
    while not game.is_over:
        legal = game.legal_actions()
        before = (all_observations(game), game.actions, len(game.events))
        for action in rng.sample(outside_actions(game, rng), 3):
            if action in legal:
                continue
            try:
                game.apply(action)
            except EngineError:
                pass
            else:
                raise AssertionError(f"{action} was accepted outside {legal!r}")
            assert (all_observations(game), game.actions, len(game.events)) == before
        game.apply(legal.sample(rng))


@settings(max_examples=15, deadline=None, derandomize=True)
@given(games)
def test_sampled_deals_rebuild_the_observation_they_were_drawn_from(
    case: tuple[str, int, int],
) -> None:
    name, seed, rng_seed = case
    game = Game(PRESETS[name].replace(max_hands=1), seed)
    rng = random.Random(rng_seed)
    step = 0
    while not game.is_over:
        if step % 7 == 0:
            seat = rng.choice([-1, *range(game.ruleset.players)])
            observation = game.observation_for(seat)
            deal = sample_deal(observation, rng)
            assert Game.from_observation(observation, deal).observation_for(seat) == observation
        game.apply(game.legal_actions().sample(rng))
        step += 1
