"""The human seat's view, fed what a seat's SDK session hands its bot from whole engine games:
it holds exactly the seat's hand and never a card the seat may not know; and the seat's bot,
which refuses an answer that is not legal and gives up a request the person lets run out."""

from __future__ import annotations

import asyncio
import random
import time

import pytest
from rookery.client import NoAnswer, Seat, Table
from rookery.engine import PRESETS, Game, Pass, PlayCard, card_name, cards_of
from rookery.web._seat import SeatView
from rookery.web._seat_bot import ANSWER_MARGIN_S, SeatBot
from rookery.web.testing import LoopThread
from rookery.wire import convert
from rookery.wire.selfplay import random_action

_CLOCK = {"action_ms": 1000, "bank_ms": 0, "late_policy": "AUTO_PLAY", "strike_limit": 3}


def _table(game: Game, seat: int) -> Table:
    ruleset = game.ruleset
    return Table(
        table_id="t",
        seat=seat,
        ruleset=ruleset,
        seats=tuple(Seat(s, ruleset.side_of(s), f"b{s}", "") for s in range(ruleset.players)),
        action_ms=1000,
        bank_ms=0,
        game_number=0,
    )


def _names(mask: int) -> set[str]:
    return {card_name(card) for card in cards_of(mask)}


@pytest.mark.parametrize("preset", ["standard", "called-partner", "cutthroat", "six-handed"])
def test_the_view_holds_the_seats_hand_and_nothing_hidden(preset: str) -> None:
    ruleset = PRESETS[preset].replace(target=150, max_hands=6)
    game = Game(ruleset, 17)
    seat = 1
    view = SeatView()
    view.joined(_table(game, seat), _CLOCK)
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
            view.requested(sent, observation, game.legal_actions(), 1000, 0)
            offered = view.json()["request"]["offer"]
            assert offered["phase"] == game.phase.name
        game.apply(random_action(game.legal_actions(), rng))
        if view.request is not None:
            view.answered()
    assert checks > 20


def _seat_bot(game: Game, seat: int, seconds: float) -> tuple[SeatBot, SeatView]:
    view = SeatView()
    bot = SeatBot(view, lambda: None, lambda table_id: _CLOCK, lambda table_id: None)
    bot.table = _table(game, seat)
    bot.on_table_joined(bot.table)
    for event in game.events_since(0):
        bot.on_event(convert.event_to_proto(event, game.ruleset, seat))
    bot.deadline = time.monotonic() + seconds
    return bot, view


def test_an_answer_that_is_not_legal_is_refused_and_the_request_stays_open(
    loop_thread: LoopThread,
) -> None:
    # On the servers' loop thread: the browser tests' own loop runs in this one.
    loop_thread.run(_refuse_an_illegal_answer(), 10.0)


async def _refuse_an_illegal_answer() -> None:
    game = Game(PRESETS["standard"], 3)
    seat = game.current_player
    assert seat is not None
    bot, view = _seat_bot(game, seat, 30.0)
    acting = asyncio.create_task(bot.act(game.observation_for(seat)))
    await asyncio.sleep(0)
    assert view.request is not None
    request_id = view.request["request_id"]
    with pytest.raises(ValueError, match="not legal"):
        bot.answer(request_id, PlayCard(1))  # a card in the auction
    assert view.request is not None and view.request["request_id"] == request_id
    assert "not legal" in view.rejected
    with pytest.raises(ValueError, match="no such request"):
        bot.answer(request_id + 1, Pass())
    bot.answer(request_id, Pass())
    assert await acting == Pass()
    assert view.request is None


def test_a_request_left_to_run_out_gives_no_answer_and_the_clocks_move_is_marked(
    loop_thread: LoopThread,
) -> None:
    loop_thread.run(_let_a_request_run_out(), 10.0)


async def _let_a_request_run_out() -> None:
    game = Game(PRESETS["standard"], 3)
    seat = game.current_player
    assert seat is not None
    bot, view = _seat_bot(game, seat, ANSWER_MARGIN_S + 0.1)
    with pytest.raises(NoAnswer):
        await bot.act(game.observation_for(seat))
    assert view.request is not None  # open on the page until the server's clock plays
    with pytest.raises(ValueError, match="too late"):
        bot.answer(view.request["request_id"], Pass())
    sent = game.events_since(0)[-1].seq
    game.apply(Pass())
    for event in game.events_since(sent):
        bot.on_event(convert.event_to_proto(event, game.ruleset, seat))
    assert view.request is None
    assert view.steps[-1]["auto"] is True
