"""Observations and events hold exactly what a seat may know (RULES.md §4, §6; DESIGN: trust)."""

from __future__ import annotations

import dataclasses
import json
import pickle

import pytest
from rookery.engine import (
    PRESETS,
    CardsBuried,
    Game,
    HandDealt,
    NestTaken,
    Observation,
    Phase,
    Suit,
    Trick,
    new_observation,
    new_trick,
)
from rookery.engine.testing import act, all_observations, played_game

STANDARD = PRESETS["standard"]


def test_a_seat_sees_its_own_hand_only() -> None:
    game = Game(STANDARD, 4)
    for seat in range(4):
        assert game.observation_for(seat).hand == game.deal.hands[seat]
    assert game.public_view().hand == 0 and game.public_view().seat == -1


def test_public_information_is_shared_by_all() -> None:
    game = Game(STANDARD, 4)
    act(game, "bid 70", "pass", "pass", "pass", "trump G")
    views = [game.observation_for(seat) for seat in (-1, 0, 1, 2, 3)]
    assert {(view.auction, view.bidder, view.bid, view.trump) for view in views} == {
        (((1, 70), (2, 0), (3, 0), (0, 0)), 1, 70, Suit.GREEN)
    }


def test_the_bidder_sees_the_nest_only_until_the_bury() -> None:
    game = Game(STANDARD, 4)
    act(game, "bid 70", "pass", "pass", "pass", "trump G")
    assert game.observation_for(1).nest == game.deal.nest
    game.apply(game.legal_actions()[0])
    assert game.observation_for(1).nest == 0
    assert game.observation_for(1).buried.bit_count() == 5


def test_a_spectator_never_sees_private_cards() -> None:
    game = Game(STANDARD, 4)
    act(game, "bid 70", "pass", "pass", "pass", "trump G")
    game.apply(game.legal_actions()[0])
    view = game.public_view()
    assert (view.hand, view.nest, view.buried, view.partner) == (0, 0, 0, -1)
    assert view.buried_count == 5
    assert view.legal_actions().player == -1


def test_the_current_trick_and_completed_tricks_are_public() -> None:
    game = Game(STANDARD, 4)
    act(game, "bid 70", "pass", "pass", "pass", "trump G")
    game.apply(game.legal_actions()[0])
    for _ in range(6):
        game.apply(game.legal_actions()[0])
    view = game.public_view()
    assert len(view.completed_tricks) == 1 and len(view.current_trick.cards) == 2
    assert view.current_trick.winner == -1
    assert view.points_captured[view.sides[view.completed_tricks[0].winner]] == (
        view.completed_tricks[0].points
    )


def test_legal_actions_from_an_observation_match_the_game() -> None:
    game = Game(STANDARD, 4)
    while game.hand_number == 0:
        seat = game.current_player
        assert seat is not None
        assert game.observation_for(seat).legal_actions() == game.legal_actions()
        other = (seat + 1) % 4
        assert len(game.observation_for(other).legal_actions()) == 0
        game.apply(
            game.legal_actions()[-1] if game.phase is Phase.PLAY else game.legal_actions()[0]
        )


def test_observations_convert_to_json() -> None:
    game = Game(STANDARD, 4)
    act(game, "bid 70", "pass", "pass", "pass", "trump G")
    data = json.loads(json.dumps(game.observation_for(1).to_dict()))
    assert data["phase"] == "BURY" and data["trump"] == "G" and len(data["nest"].split()) == 5
    assert json.loads(json.dumps(game.public_view().to_dict()))["hand"] == ""


def test_events_are_numbered_in_order() -> None:
    game = Game(STANDARD, 4)
    act(game, "bid 70", "pass", "pass", "pass")
    events = game.events
    assert [event.seq for event in events] == list(range(1, len(events) + 1))
    assert isinstance(events[0], HandDealt)
    assert game.events_since(2) == events[2:]


def test_last_seq_is_the_latest_events_seq_without_reading_the_events() -> None:
    game = Game(STANDARD, 4)
    assert game.last_seq == 1  # the deal
    act(game, "bid 70", "pass")
    assert game.last_seq == game.events[-1].seq == 3
    quiet = Game(STANDARD, 4, events=False)
    act(quiet, "bid 70")
    assert quiet.last_seq == 0


def test_event_views_hide_other_seats_cards() -> None:
    game = Game(STANDARD, 4)
    act(game, "bid 70", "pass", "pass", "pass", "trump G")
    game.apply(game.legal_actions()[0])
    dealt = game.events[0]
    assert isinstance(dealt, HandDealt)
    view = dealt.view(2)
    assert view.hands[2] == game.deal.hands[2] and view.hands[0] == view.hands[1] == 0
    assert dealt.view(None).hands == (0, 0, 0, 0)
    nest = next(event for event in game.events if isinstance(event, NestTaken))
    assert nest.view(1) == nest and nest.view(0).cards == 0 and nest.view(0).count == 5
    buried = next(event for event in game.events if isinstance(event, CardsBuried))
    assert buried.view(1).cards and buried.view(3).cards == 0 and buried.view(None).count == 5


def test_a_search_game_records_no_events() -> None:
    game = Game(STANDARD, 4, events=False)
    act(game, "bid 70", "pass")
    assert game.events == []
    assert game.clone().events == []
    assert len(game.actions) == 2


def test_the_fast_constructors_build_what_the_constructors_build() -> None:
    """``new_observation`` and ``new_trick`` (the hot paths' constructors, which set a compiled
    class's fields directly) give the same values as the classes, every field set, and the
    values stay frozen."""
    games = [played_game(STANDARD, 3, steps) for steps in (0, 8, 30, 60, 400)]
    for observation in [o for game in games for o in all_observations(game)]:
        values = [getattr(observation, field.name) for field in dataclasses.fields(Observation)]
        built = new_observation(*values)
        assert type(built) is Observation
        assert built == Observation(*values) == observation
        assert hash(built) == hash(observation) and repr(built) == repr(observation)
        assert built.legal_actions() == observation.legal_actions()
        assert pickle.loads(pickle.dumps(built)) == observation
        with pytest.raises(dataclasses.FrozenInstanceError):
            built.seat = 3  # type: ignore[misc]
        for trick in (*observation.completed_tricks, observation.current_trick):
            copy = new_trick(trick.leader, trick.cards, trick.winner, trick.points)
            assert type(copy) is Trick and copy == trick and hash(copy) == hash(trick)
            with pytest.raises(dataclasses.FrozenInstanceError):
                copy.points = 0  # type: ignore[misc]
