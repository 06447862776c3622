"""The human seat's view, fed a seat's own protocol messages from whole engine games: it holds
exactly the seat's hand and never a card the seat may not know."""

from __future__ import annotations

import random

import pytest
from rookery.engine import PRESETS, Game, card_name, cards_of
from rookery.v1 import bot_service_pb2, table_pb2
from rookery.web._seat import SeatView
from rookery.wire import convert
from rookery.wire.selfplay import random_action


def _joined(game: Game, seat: int) -> bot_service_pb2.TableJoined:
    ruleset = game.ruleset
    return bot_service_pb2.TableJoined(
        table_id="t",
        seat=seat,
        ruleset=convert.ruleset_to_proto(ruleset),
        seats=[
            table_pb2.SeatInfo(seat=s, side=ruleset.side_of(s), bot_name=f"b{s}")
            for s in range(ruleset.players)
        ],
        time_control=table_pb2.TimeControl(
            action_ms=1000, late_policy=table_pb2.LATE_POLICY_AUTO_PLAY
        ),
    )


def _request(game: Game, seat: int, request_id: int) -> bot_service_pb2.ActionRequest:
    return bot_service_pb2.ActionRequest(
        table_id="t",
        request_id=request_id,
        seat=seat,
        observation=convert.observation_to_proto(game.observation_for(seat)),
        legal_actions=convert.legal_actions_to_proto(game.legal_actions()),
        deadline_ms=1000,
    )


def _names(mask: int) -> set[str]:
    return {card_name(card) for card in cards_of(mask)}


@pytest.mark.parametrize("preset", ["standard", "called-partner", "cutthroat", "six-handed"])
def test_the_view_holds_the_seats_hand_and_nothing_hidden(preset: str) -> None:
    ruleset = PRESETS[preset].replace(target=150, max_hands=6)
    game = Game(ruleset, 17)
    seat = 1
    view = SeatView()
    view.joined(_joined(game, seat))
    rng = random.Random(17)
    sent = 0
    checks = 0
    while True:
        for event in game.events_since(sent):
            view.event(convert.event_to_proto(event, ruleset, seat))
            sent = event.seq
        if game.is_over:
            break
        observation = game.observation_for(seat)
        assert view.hand == observation.hand
        state = view.json()
        if not any(step["type"] == "scored" for step in state["steps"]):
            deal = game.deal
            known = _names(observation.hand | observation.buried)
            known |= {step["card"] for step in state["steps"] if "card" in step}
            if observation.bidder == seat:
                known |= _names(deal.nest)
            named = set(state["hand"]) | set(state["nest"]) | set(state["buried"])
            named |= {step["card"] for step in state["steps"] if "card" in step}
            assert named <= known | _names(deal.hands[seat])
            checks += 1
        if game.current_player == seat:
            view.requested(_request(game, seat, sent))
            offered = view.json()["request"]["offer"]
            assert offered["phase"] == game.phase.name
        game.apply(random_action(game.legal_actions(), rng))
        if view.request is not None:
            view.answered()
    assert checks > 20


def test_a_refused_reply_reopens_the_request_unless_it_came_late() -> None:
    game = Game(PRESETS["standard"], 3)
    view = SeatView()
    view.joined(_joined(game, 1))
    for event in game.events_since(0):
        view.event(convert.event_to_proto(event, game.ruleset, 1))
    view.requested(_request(game, 1, 7))
    view.answered()
    assert view.request is None
    illegal = bot_service_pb2.ActionRejected(
        table_id="t", request_id=7, reason=bot_service_pb2.REJECTION_REASON_ILLEGAL_ACTION
    )
    view.rejected_reply(illegal)
    assert view.request is not None and view.request["request_id"] == 7
    view.answered()
    late = bot_service_pb2.ActionRejected(
        table_id="t", request_id=7, reason=bot_service_pb2.REJECTION_REASON_LATE, message="late"
    )
    view.rejected_reply(late)
    assert view.request is None and view.rejected == "late"
