"""Bot notes and fallback marks on replies: bounds checked (a reply past them is refused whole,
with the bound it broke), recorded on the move in the replay, never sent to another seat."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable
from typing import Any

import pytest
from rookery.engine import cards_of
from rookery.server import RookeryServer
from rookery.server.testing import RawBot, bot_names, reply_to, seat_raw_bots, simple_action
from rookery.v1 import bot_service_pb2 as pb
from rookery.v1 import notes_pb2, replay_pb2
from rookery.wire.convert import observation_from_proto
from rookery.wire.replay import verify_replay

MARK = "seat-zero-secret"
Replier = Callable[[pb.ActionRequest], Any]


async def _play(bot: RawBot, replier: Replier) -> None:
    """Answers every request with ``replier(request)`` until the table finishes."""
    while True:
        message = await bot.read(30.0)
        kind = message.WhichOneof("message")
        if kind == "action_request":
            await bot.send(replier(message.action_request))
        elif kind == "table_finished":
            return


def _noted(request: pb.ActionRequest) -> Any:
    """A reply whose note names the seat's own cards (what it must keep private)."""
    reply = reply_to(request)
    hand = observation_from_proto(request.observation).hand
    reply.action_reply.note.text = f"{MARK} holding {len(cards_of(hand))} cards: {hand:x}"
    reply.action_reply.note.values["samples"] = 400
    reply.action_reply.note.values["best"] = 12.5
    return reply


def _fallback(request: pb.ActionRequest) -> Any:
    reply = reply_to(request)
    reply.action_reply.fallback.reason = "act raised ValueError: no card"
    return reply


async def test_notes_are_recorded_on_their_moves_and_never_sent_to_another_seat(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    table, players = await seat_raw_bots(server, bots, bot_names(4))
    repliers: list[Replier] = [_noted, _fallback, reply_to, reply_to]
    await asyncio.wait_for(
        asyncio.gather(*(_play(bot, r) for bot, r in zip(players, repliers, strict=True))), 60
    )
    outcome = await table.wait_finished()
    # Another seat (and the noting seat itself) never receives a note, in any message.
    for bot in players:
        assert all(MARK.encode() not in m.SerializeToString() for m in bot.received)
    moves = [a for h in outcome.replay.hands for a in h.actions]
    noted = [a for a in moves if a.HasField("note")]
    assert noted and all(a.seat == 0 and a.note.text.startswith(MARK) for a in noted)
    assert len(noted) == sum(1 for a in moves if a.seat == 0)
    assert dict(noted[0].note.values) == {"samples": 400.0, "best": 12.5}
    marked = [a for a in moves if a.HasField("fallback")]
    assert {a.seat for a in marked} == {1}
    assert marked[0].fallback.reason == "act raised ValueError: no card"
    assert outcome.seat_stats[1].fallbacks == len(marked)
    assert [s.fallbacks for s in outcome.seat_stats if s.seat != 1] == [0, 0, 0]
    assert verify_replay(outcome.replay) == []


def _with_values(count: int) -> notes_pb2.BotNote:
    return notes_pb2.BotNote(values={f"v{i}": float(i) for i in range(count)})


@pytest.mark.parametrize(
    ("note", "fallback", "message"),
    [
        (notes_pb2.BotNote(text="é" * 257), None, "note.text is 514 bytes of UTF-8; at most 512"),
        (_with_values(17), None, "note.values has 17 entries; at most 16 are allowed"),
        (notes_pb2.BotNote(values={"a b": 1.0}), None, "note.values name 'a b' is not 1 to 32"),
        (notes_pb2.BotNote(values={"x" * 33: 1.0}), None, "is not 1 to 32 characters"),
        (notes_pb2.BotNote(values={"ev": math.nan}), None, "note.values['ev'] is nan"),
        (None, notes_pb2.Fallback(reason="r" * 257), "fallback.reason is 257 bytes"),
    ],
)
async def test_a_reply_past_the_bounds_is_refused_whole_and_loses_nothing(
    server: RookeryServer,
    bots: Callable[..., RawBot],
    note: notes_pb2.BotNote | None,
    fallback: notes_pb2.Fallback | None,
    message: str,
) -> None:
    table, players = await seat_raw_bots(server, bots, bot_names(4))
    to_act = table.game.current_player
    assert to_act is not None
    bot = players[to_act]  # the seat the first request goes to
    request = await bot.read_kind("action_request")
    bad = reply_to(request)
    if note is not None:
        bad.action_reply.note.CopyFrom(note)
    if fallback is not None:
        bad.action_reply.fallback.CopyFrom(fallback)
    await bot.send(bad)
    rejected = await bot.read_kind("action_rejected")
    assert rejected.reason == pb.REJECTION_REASON_MALFORMED_ACTION
    assert message in rejected.message and "refused whole" in rejected.message
    await bot.send(reply_to(request))  # the same action again, without the bad part: played
    await asyncio.wait_for(asyncio.gather(*(b.play(simple_action) for b in players)), 60)
    outcome = await table.wait_finished()
    first_hand = outcome.replay.hands[0].actions
    assert first_hand[0].outcome == replay_pb2.ACTION_OUTCOME_REJECTED
    assert message in first_hand[0].rejection_reason
    assert not first_hand[0].HasField("note") and not first_hand[0].HasField("fallback")
    assert first_hand[1].outcome == replay_pb2.ACTION_OUTCOME_ACCEPTED
    assert first_hand[1].action == simple_action(request)
    assert outcome.seat_stats[request.seat].malformed_replies == 1
    assert verify_replay(outcome.replay) == []
