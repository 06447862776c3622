"""Fuzzing: message decoding, action validation and the replay reader fail only precisely.

- Any bytes, and any structurally valid but nonsensical proto, given to the wire conversion give
  an engine value or ``MalformedMessageError`` — never another exception.
- Any reply, at any point of a game, given to a table gives ``None`` (applied) or a rejection with
  a reason and a message; the game stays consistent (its replay verifies). A rejection of a card
  the bot does not hold reads the same wherever the card lies.
- Any corruption of a real replay file read back gives a replay or ``ReplayFileError``.
"""

from __future__ import annotations

import asyncio
import gzip
import random
import zlib
from collections.abc import Callable
from typing import Any

import pytest
from google.protobuf.message import DecodeError, Message
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from rookery.engine import (
    PRESETS,
    Bid,
    Game,
    IllegalActionError,
    Pass,
    Phase,
    PlayCard,
    Ruleset,
    card_name,
    cards_of,
)
from rookery.server import Table, TableSpec, TimeControl, bot_reply_from_proto, fallback_action
from rookery.server._replies import REJECTION_CODES
from rookery.server.testing import bot_names, simple_action
from rookery.v1 import (
    actions_pb2,
    bot_service_pb2,
    cards_pb2,
    events_pb2,
    replay_pb2,
    results_pb2,
    ruleset_pb2,
)
from rookery.wire import convert
from rookery.wire.errors import MalformedMessageError, ReplayFileError
from rookery.wire.replay import decode_replay, encode_replay, verify_replay

pb = bot_service_pb2
STANDARD = Ruleset.preset("standard")
FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# Decoding ---------------------------------------------------------------------------------------

CONVERSIONS: dict[str, tuple[type[Message], Callable[[Any], object]]] = {
    "action": (actions_pb2.Action, convert.action_from_proto),
    "card": (cards_pb2.Card, convert.card_from_proto),
    "ruleset": (ruleset_pb2.Ruleset, convert.ruleset_from_proto),
    "legal_actions": (actions_pb2.LegalActions, convert.legal_actions_from_proto),
    "observation": (actions_pb2.Observation, convert.observation_from_proto),
    "trick": (actions_pb2.Trick, convert.trick_from_proto),
    "deal": (results_pb2.Deal, convert.deal_from_proto),
    "hand_result": (
        results_pb2.HandResult,
        lambda message: convert.hand_result_from_proto(message, STANDARD),
    ),
    "game_result": (results_pb2.GameResult, convert.game_result_from_proto),
}


def converts_or_refuses_precisely(convert_one: Callable[[Any], object], message: Message) -> None:
    try:
        convert_one(message)
    except MalformedMessageError as error:
        assert error.field and error.reason


@pytest.mark.parametrize("kind", list(CONVERSIONS))
@FUZZ
@given(data=st.binary(max_size=400))
def test_random_bytes_decode_to_a_value_or_a_malformed_message_error(
    kind: str, data: bytes
) -> None:
    message_type, convert_one = CONVERSIONS[kind]
    try:
        message = message_type.FromString(data)
    except DecodeError:
        return  # the protobuf layer refused: the server answers INVALID_ARGUMENT
    converts_or_refuses_precisely(convert_one, message)


small_ints = st.integers(-3, 20) | st.integers(-(2**31), 2**31 - 1)
unsigned = st.integers(0, 20) | st.integers(0, 2**32 - 1)
cards = st.builds(
    lambda suit, rank, rook: cards_pb2.Card.FromString(
        cards_pb2.Card(rank=rank, rook=rook).SerializeToString() + bytes([0x08, suit & 0x7F])
    ),
    st.integers(min_value=0, max_value=9),
    unsigned,
    unsigned,
)


def _action(kind: int, card: cards_pb2.Card, more: list[cards_pb2.Card], amount: int) -> Any:
    action = actions_pb2.Action()
    if kind == 0:
        action.play_card.card.CopyFrom(card)
    elif kind == 1:
        action.bury.cards.extend(more)
    elif kind == 2:
        action.call_card.card.CopyFrom(card)
    elif kind == 3:
        action.bid.amount = amount
    elif kind == 4:
        action.name_trump.suit = card.suit
    elif kind == 5:
        getattr(action, "pass").SetInParent()
    elif kind == 6:
        action.play_card.SetInParent()  # a play with no card
    return action


actions = st.builds(
    _action,
    st.integers(min_value=0, max_value=7),
    cards,
    st.lists(cards, max_size=12),
    small_ints,
)


@FUZZ
@given(action=actions)
def test_valid_ish_actions_convert_or_are_malformed(action: actions_pb2.Action) -> None:
    converts_or_refuses_precisely(convert.action_from_proto, action)


@FUZZ
@given(
    values=st.fixed_dictionaries(
        {
            name: small_ints
            for name in (
                "players",
                "lowest_rank",
                "rook_cards",
                "nest_size",
                "min_bid",
                "bid_step",
                "max_bid",
                "target",
                "max_hands",
                "last_trick_bonus",
                "first_dealer",
            )
        }
    ),
    enums=st.lists(st.integers(min_value=0, max_value=7), min_size=5, max_size=5),
)
def test_valid_ish_rulesets_convert_or_are_malformed(
    values: dict[str, int], enums: list[int]
) -> None:
    message = ruleset_pb2.Ruleset()
    for name, value in values.items():
        if name in message.DESCRIPTOR.fields_by_name:
            field = message.DESCRIPTOR.fields_by_name[name]
            if field.type in (field.TYPE_UINT32, field.TYPE_UINT64):
                value = abs(value)
            setattr(message, name, value)
    enum_fields = [f for f in message.DESCRIPTOR.fields if f.enum_type is not None]
    raw = message.SerializeToString()
    for field, value in zip(enum_fields, enums, strict=False):
        tag = field.number << 3  # a varint: field 16 and above take two bytes
        raw += bytes([tag & 0x7F | 0x80, tag >> 7] if tag > 0x7F else [tag]) + bytes([value])
    converts_or_refuses_precisely(convert.ruleset_from_proto, ruleset_pb2.Ruleset.FromString(raw))


@FUZZ
@given(
    hands=st.lists(st.lists(cards, max_size=6), max_size=7),
    nest=st.lists(cards, max_size=4),
    dead=st.lists(cards, max_size=3),
)
def test_valid_ish_deals_convert_or_are_malformed(
    hands: list[list[cards_pb2.Card]], nest: list[cards_pb2.Card], dead: list[cards_pb2.Card]
) -> None:
    deal = results_pb2.Deal(nest=nest, dead=dead)
    for hand in hands:
        deal.hands.add(cards=hand)
    converts_or_refuses_precisely(convert.deal_from_proto, deal)


# Action validation through the server's table ---------------------------------------------------


class _Seat:
    """A seated session that records its requests and answers nothing by itself."""

    def __init__(self, name: str) -> None:
        self.bot, self.version, self.is_attached = name, "", True
        self.wants_events = True
        self.defers_events = False
        self.groups_events = False
        self.wants_card_masks = True
        self.requests: list[pb.ActionRequest] = []

    def join(self, table: Table, seat: int) -> None: ...

    def leave(self, table_id: str) -> None: ...

    def table_finished(self, table_id: str, message: pb.ConnectResponse) -> None: ...

    def send_encoded(self, message: bytes) -> None:  # the table sends most messages encoded
        self.send(pb.ConnectResponse.FromString(message))

    def send(self, message: pb.ConnectResponse) -> None:
        if message.WhichOneof("message") == "action_request":
            self.requests.append(message.action_request)


async def _fuzz_a_game(preset: str, seed: int, replies: list[tuple[int, Any, int]]) -> Table:
    """A game in which hostile replies (from any seat, for any table and request id) arrive
    before each legal one."""
    ruleset = PRESETS[preset].replace(max_hands=1)
    names = bot_names(ruleset.players)
    table = Table("t-fuzz", TableSpec(ruleset, names, seed=seed), seed, TimeControl())
    seats = [_Seat(name) for name in names]
    table.start()
    table.seat(seats)  # type: ignore[arg-type]
    rng = random.Random(seed)
    pending = list(replies)
    answered: set[int] = set()
    for _ in range(5000):
        await asyncio.sleep(0)
        if table.is_finished:
            break
        requests = [request for seat in seats for request in seat.requests]
        if not requests:
            continue
        latest = max(requests, key=lambda request: request.request_id)
        if latest.request_id in answered:
            continue
        answered.add(latest.request_id)
        for _ in range(rng.randrange(4)):
            if not pending:
                break
            seat, action, id_shift = pending.pop()
            reply = pb.ActionReply(
                table_id=rng.choice(["t-fuzz", "t-other", ""]),
                request_id=max(0, latest.request_id + id_shift),
                action=action,
            )
            answer = table.submit(seat % ruleset.players, bot_reply_from_proto(reply))
            if answer is not None:
                assert pb.RejectionReason.Name(REJECTION_CODES[answer.reason]) and answer.message
        legal = pb.ActionReply(
            table_id="t-fuzz", request_id=latest.request_id, action=simple_action(latest)
        )
        table.submit(
            latest.seat, bot_reply_from_proto(legal)
        )  # refused only if a hostile reply was legal and applied
    await asyncio.wait_for(table.wait_finished(), 10)
    return table


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    preset=st.sampled_from(sorted(PRESETS)),
    seed=st.integers(min_value=0, max_value=2**32),
    replies=st.lists(
        st.tuples(st.integers(min_value=0, max_value=5), actions, st.integers(-2, 2)), max_size=60
    ),
)
def test_any_reply_at_any_point_is_applied_legally_or_rejected_precisely(
    preset: str, seed: int, replies: list[tuple[int, Any, int]]
) -> None:
    table = asyncio.run(_fuzz_a_game(preset, seed, replies))
    assert table.outcome is not None
    assert verify_replay(table.outcome.replay) == []


def _to_play(ruleset: Ruleset, seed: int) -> Game:
    """A game at its first play: the first seat bids the minimum, the others pass."""
    game = Game(ruleset, seed)
    while game.phase is not Phase.PLAY:
        legal = game.legal_actions()
        seat = game.current_player
        assert seat is not None
        if legal.phase is Phase.BIDDING:
            opening = game.observation_for(seat).high_bid == 0 or not legal.can_pass
            game.apply(Bid(legal.bids[0]) if opening else Pass())
        else:
            game.apply(fallback_action(legal))
    return game


@pytest.mark.parametrize(
    "preset", ["standard", "nest-6", "straight", "called-partner", "six-handed"]
)
def test_playing_a_card_not_held_is_refused_alike_wherever_the_card_lies(preset: str) -> None:
    ruleset = PRESETS[preset]
    game = _to_play(ruleset, 17)
    seat = game.current_player
    assert seat is not None
    places = {
        f"seat {other}": game.observation_for(other).hand
        for other in range(ruleset.players)
        if other != seat
    }
    places["buried"] = game.observation_for(game.bidder).buried if game.bidder != seat else 0
    places["dead"] = game.deal.dead
    texts: dict[str, set[str]] = {}
    for place, mask in places.items():
        for card in cards_of(mask):
            with pytest.raises(IllegalActionError) as error:
                game.apply(PlayCard(card))
            texts.setdefault(place, set()).add(str(error.value).replace(card_name(card), "CARD"))
    assert len(set().union(*texts.values())) == 1, texts


# The replay reader --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def replay_bytes() -> bytes:
    table = asyncio.run(_fuzz_a_game("called-partner", 21, []))
    assert table.outcome is not None
    return encode_replay(table.outcome.replay, compress=False)


def _corrupt(data: bytes, rng: random.Random, how: int) -> bytes:
    if how == 0:  # flip bytes
        out = bytearray(data)
        for _ in range(rng.randrange(1, 8)):
            out[rng.randrange(len(out))] ^= 1 << rng.randrange(8)
        return bytes(out)
    if how == 1:  # truncate
        return data[: rng.randrange(len(data))]
    if how == 2:  # insert garbage
        at = rng.randrange(len(data))
        return data[:at] + rng.randbytes(rng.randrange(1, 40)) + data[at:]
    lines = data.split(b"\n")
    if how == 3:  # drop, duplicate or swap lines
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        choice = rng.randrange(3)
        if choice == 0:
            del lines[i]
        elif choice == 1:
            lines.insert(i, lines[j])
        else:
            lines[i], lines[j] = lines[j], lines[i]
        return b"\n".join(lines)
    # replace a JSON value by another type
    text = data.decode()
    for old, new in (
        ('"seat":', '"seat":"x",'),
        ("[", '{"a":'),
        ('"', "'"),
        ("1", "-"),
        (":", "::"),
    ):
        if old in text and rng.random() < 0.5:
            at = rng.choice([i for i in range(len(text)) if text.startswith(old, i)])
            text = text[:at] + new + text[at + len(old) :]
    return text.encode()


@FUZZ
@given(seed=st.integers(min_value=0, max_value=2**32), how=st.integers(0, 4), gz=st.booleans())
def test_a_corrupt_replay_file_gives_a_replay_file_error_and_nothing_else(
    replay_bytes: bytes, seed: int, how: int, gz: bool
) -> None:
    rng = random.Random(seed)
    data = _corrupt(replay_bytes, rng, how)
    if gz:
        data = gzip.compress(data, mtime=0)
        if rng.random() < 0.5:
            data = _corrupt(data, rng, rng.randrange(3))
    try:
        replay = decode_replay(data, "fuzz.jsonl")
    except ReplayFileError as error:
        assert error.path == "fuzz.jsonl" and error.reason
        return
    assert isinstance(replay, replay_pb2.Replay)


@FUZZ
@given(data=st.binary(max_size=600))
def test_random_bytes_as_a_replay_file_give_a_replay_file_error(data: bytes) -> None:
    for candidate in (data, b"\x1f\x8b" + data, zlib.compress(data)):
        try:
            decode_replay(candidate, "noise")
        except ReplayFileError:
            continue


def test_events_convert_for_every_viewer_of_a_fuzzed_game() -> None:
    """Every event of a game with hostile replies converts for every seat and spectators."""
    table = asyncio.run(_fuzz_a_game("five-handed", 8, [(1, actions_pb2.Action(), 0)] * 10))
    for event in table.game.events:
        for viewer in (None, *range(table.ruleset.players)):
            assert isinstance(
                convert.event_to_proto(event, table.ruleset, viewer), events_pb2.Event
            )
