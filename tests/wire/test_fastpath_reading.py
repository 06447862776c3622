"""The SDK's reader of the server's messages (``rookery.wire.fastpath.read_response``) against
the reference, on both readers: the native core's (``rookery_core.RequestReader``, where it
is built) and the Python one (the fallback, and the reference the core is held to).

The reference is protobuf's parse of the whole ``ConnectResponse`` and ``wire.convert``'s
decoding of each action request, field by field. On the server's own bytes
for random games of every preset, alone and in batches with events, the reader must give the
same messages; on bytes edited at random, whatever protobuf accepts must read the same as the
reference, errors included.
"""

from __future__ import annotations

import contextlib
import random
import shutil
from collections.abc import Iterator
from typing import Any

import pytest
from google.protobuf.message import DecodeError
from hypothesis import given, settings
from hypothesis import strategies as st
from rookery.engine import PRESETS, Game, build_info
from rookery.engine.testing import played_game
from rookery.v1 import bot_service_pb2 as pb
from rookery.v1 import field_numbers as fields
from rookery.wire import convert, fastpath
from rookery.wire.errors import WireError
from rookery.wire.fastpath import (
    RequestEncoder,
    _requests,
    _responses,
    batch_bytes,
    event_bytes,
    table_event_prefix,
)
from rookery.wire.fastpath._protobuf import varint

RESP = fields.ConnectResponse
REQ = fields.ActionRequest
OBS = fields.Observation
LEGAL = fields.LegalActions
MASKS = fields.CardMasks
UINT64 = st.integers(0, 2**64 - 1)
INT32 = st.integers(-(2**31), 2**31 - 1)
TABLE_IDS = st.text(min_size=0, max_size=300)
FAST = settings(max_examples=15, deadline=None)


@pytest.fixture(scope="module", autouse=True, params=["core", "python"])
def reader(request: pytest.FixtureRequest) -> Iterator[str]:
    """Every test of the module on the core's reader, then on the Python reader alone."""
    native = _responses.NATIVE_READER
    if request.param == "core" and native is None:
        info = build_info()
        if info.kind == "core" or (shutil.which("cargo") and "not built" in info.reason):
            pytest.fail("cargo is here but the native core (with its reader) is not built")
        pytest.skip(f"the engine is {info}")
    if request.param == "python":
        _responses.NATIVE_READER = None
    try:
        yield request.param
    finally:
        _responses.NATIVE_READER = native


GAMES = st.builds(
    played_game, st.sampled_from([PRESETS[name] for name in sorted(PRESETS)]),
    st.integers(0, 10**6), st.integers(0, 400),
)  # fmt: skip


def _seat(game: Game) -> int:
    """The seat to act (seat 0 once the game is over)."""
    return 0 if game.current_player is None else game.current_player


def _request_bytes(
    game: Game, table_id: str, request_id: int, deadline_ms: int, masks: bool = True
) -> bytes:
    seat = _seat(game)
    return RequestEncoder(game.ruleset).action_request(
        table_id=table_id,
        request_id=request_id,
        seat=seat,
        observation=game.observation_for(seat),
        legal=game.legal_actions(),
        deadline_ms=deadline_ms,
        bank_ms=500,
        last_seq=7,
        masks=masks,
    )


def _reference(request: pb.ActionRequest) -> tuple[Any, ...]:
    """What the SDK acts on, decoded by ``convert`` from the parsed message (or its error)."""
    masks = request.card_masks if request.HasField("card_masks") else None
    try:
        observation = convert.observation_from_proto(request.observation, masks=masks)
        legal = convert.legal_actions_from_proto(request.legal_actions, masks=masks)
    except WireError as error:
        return ("unreadable", type(error).__name__, str(error))
    return (request.table_id, request.request_id, request.deadline_ms, observation, legal)


def _read(message: Any) -> tuple[Any, ...]:
    if isinstance(message, fastpath.Request):
        return (
            message.table_id,
            message.request_id,
            message.deadline_ms,
            message.observation,
            message.legal,
        )
    return _reference(message)


def _same_as_protobuf(data: bytes) -> None:
    """``read_response(data)`` gives what protobuf and convert give."""
    parsed = pb.ConnectResponse.FromString(data)
    got = fastpath.read_response(data)
    kind = parsed.WhichOneof("message")
    inners = list(parsed.batch.messages) if kind == "batch" else [parsed]
    assert got.batched == (kind == "batch")
    assert len(got.messages) == len(inners)
    for (got_kind, message), inner in zip(got.messages, inners, strict=True):
        inner_kind = inner.WhichOneof("message")
        assert got_kind == inner_kind
        if inner_kind == "action_request":
            assert _read(message) == _reference(inner.action_request)
        elif inner_kind is not None:
            assert message == getattr(inner, inner_kind)


@FAST
@given(GAMES, TABLE_IDS, UINT64, INT32)
def test_a_request_reads_as_protobuf_and_convert_read_it(
    game: Game, table_id: str, request_id: int, deadline_ms: int
) -> None:
    data = _request_bytes(game, table_id, request_id, deadline_ms)
    response = fastpath.read_response(data)
    [(kind, request)] = response.messages
    assert kind == "action_request" and not response.batched
    assert isinstance(request, fastpath.Request)  # read for the SDK, not left to convert
    assert _read(request) == _reference(pb.ConnectResponse.FromString(data).action_request)
    seat = _seat(game)
    assert request.observation == game.observation_for(seat)
    assert request.legal == game.legal_actions()


@FAST
@given(GAMES, TABLE_IDS)
def test_a_batch_of_requests_and_events_reads_in_order(game: Game, table_id: str) -> None:
    prefix = table_event_prefix(table_id)
    messages = []
    for index, event in enumerate(game.events_since(0)[-6:]):
        messages.append(event_bytes(prefix, convert.event_to_proto(event, game.ruleset, 0)))
        messages.append(_request_bytes(game, f"{table_id}{index}", index, 1000))
    if not messages:
        return
    data = batch_bytes(messages)
    _same_as_protobuf(data)
    kinds = [kind for kind, _ in fastpath.read_response(data).messages]
    assert kinds == ["event", "action_request"] * (len(messages) // 2)


@FAST
@given(GAMES, TABLE_IDS)
def test_a_request_without_card_masks_is_read_by_protobuf(game: Game, table_id: str) -> None:
    data = _request_bytes(game, table_id, 3, 1000, masks=False)
    [(kind, request)] = fastpath.read_response(data).messages
    assert kind == "action_request"
    assert isinstance(request, pb.ActionRequest)  # the reference path: an older server
    _same_as_protobuf(data)


def _edited(data: bytes, rng: random.Random) -> bytes:
    """``data`` with one to three random edits: mostly a byte changed (a value), sometimes one
    inserted or removed (a length or a key broken)."""
    edited = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(edited))
        choice = rng.randrange(10)
        if choice < 8:
            edited[at] = rng.randrange(256)
        elif choice == 8:
            edited.insert(at, rng.randrange(256))
        else:
            del edited[at]
    return bytes(edited)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_edited_bytes_read_as_protobuf_reads_them_errors_included(preset: str) -> None:
    rng = random.Random(preset)
    accepted = 0
    for steps in (0, 5, 9, 40, 120, 300):
        original = _request_bytes(played_game(PRESETS[preset], steps, steps), "table-7", 12, 1000)
        for _ in range(60):
            data = _edited(original, rng)
            try:
                pb.ConnectResponse.FromString(data)
            except DecodeError:
                # Refused by protobuf: the reader refuses too, or (its one leniency) reads the
                # request without parsing the card fields its card masks stand for.
                with contextlib.suppress(DecodeError):
                    fastpath.read_response(data)
                continue
            accepted += 1
            _same_as_protobuf(data)
    assert accepted >= 20  # enough edits protobuf accepts for the comparison to mean something


def _field(number: int, wire_type: int, payload: bytes) -> bytes:
    key = varint(number << 3 | wire_type)
    if wire_type == 2:
        return key + varint(len(payload)) + payload
    return key + payload


def _irregular(game: Game) -> list[bytes]:
    """Requests protobuf accepts that the reader leaves to protobuf and convert, or reads with
    care: values convert refuses, submessages twice (merged), unknown fields, unpacked
    repeated integers, no card masks, no observation."""
    request = pb.ConnectResponse.FromString(_request_bytes(game, "t", 1, 1000)).action_request
    variants = []

    def variant(edit: Any) -> None:
        copy = pb.ActionRequest()
        copy.CopyFrom(request)
        edit(copy)
        variants.append(pb.ConnectResponse(action_request=copy).SerializeToString())

    variant(lambda r: setattr(r.observation, "seat", 9))
    variant(lambda r: setattr(r.observation, "seat", -2))
    variant(lambda r: setattr(r.observation, "phase", 99))
    variant(lambda r: setattr(r.observation, "trump", 9))
    variant(lambda r: setattr(r.observation, "trump", -1))
    variant(lambda r: setattr(r.observation.ruleset, "players", 0))
    variant(lambda r: setattr(r.observation.ruleset, "name", "other"))
    variant(lambda r: setattr(r.legal_actions, "phase", 0))
    variant(lambda r: r.legal_actions.trump_suits.append(7))
    variant(lambda r: r.legal_actions.trump_suits.extend([1, 2]))
    variant(lambda r: setattr(r.card_masks, "hand", r.card_masks.hand | 1 << 60))
    variant(lambda r: setattr(r.card_masks, "playable_cards", 1 << 63))
    variant(lambda r: r.ClearField("card_masks"))
    variant(lambda r: r.ClearField("observation"))
    variant(lambda r: r.ClearField("legal_actions"))
    variant(lambda r: r.observation.called_card.SetInParent())
    variant(lambda r: r.observation.called_card.MergeFrom(convert.card_to_proto(5)))
    variant(lambda r: r.observation.current_trick.cards.add(seat=1))
    variant(lambda r: r.observation.auction.add(seat=-1, amount=-5))
    plain = pb.ConnectResponse(action_request=request).SerializeToString()
    body = request.SerializeToString()
    observation = request.observation.SerializeToString()
    ruleset = request.observation.ruleset.SerializeToString()
    extra = [
        _field(99, 0, b"\x01"),  # an unknown varint
        _field(98, 2, b"abc"),  # an unknown length-delimited field
        _field(97, 1, bytes(8)),  # an unknown fixed64
        _field(96, 5, bytes(4)),  # an unknown fixed32
        _field(REQ.REQUEST_ID, 2, b"x"),  # request_id with another wire type
        _field(REQ.OBSERVATION, 2, _field(OBS.RULESET, 2, ruleset)),  # observation again: merged
        _field(REQ.OBSERVATION, 2, _field(OBS.SEAT, 0, varint(1))),  # ... its seat again: last wins
        _field(REQ.OBSERVATION, 2, _field(OBS.POINTS_CAPTURED, 0, varint(5))),  # unpacked
        _field(REQ.OBSERVATION, 2, _field(OBS.COMPLETED_TRICKS, 2, b"")),  # an empty trick
        _field(REQ.OBSERVATION, 2, _field(OBS.SEAT, 2, b"")),  # its seat as bytes
        _field(REQ.LEGAL_ACTIONS, 2, _field(LEGAL.BIDS, 0, varint(70))),  # merged
        _field(REQ.CARD_MASKS, 2, _field(MASKS.HAND, 0, varint(3))),  # a card mask as a varint
        _field(REQ.TABLE_ID, 2, "é".encode()),  # the table id again: last wins
    ]
    for field in extra:
        variants.append(_field(RESP.ACTION_REQUEST, 2, body + field))
    # The observation before the rest of the request.
    variants.append(_field(RESP.ACTION_REQUEST, 2, _field(REQ.OBSERVATION, 2, observation) + body))
    variants.append(plain + plain)  # the request twice in one message: merged
    variants.append(plain + _field(RESP.PONG, 2, b""))  # then a pong: the oneof's last wins
    inner_batch = _field(RESP.BATCH, 2, b"")
    batch_in_batch = _field(fields.ResponseBatch.MESSAGES, 2, inner_batch)
    variants.append(_field(RESP.BATCH, 2, batch_in_batch))  # a batch in a batch
    return variants


@pytest.mark.parametrize("steps", [0, 7, 30, 200])
def test_irregular_requests_read_as_protobuf_and_convert_read_them(steps: int) -> None:
    for preset in sorted(PRESETS):
        for data in _irregular(played_game(PRESETS[preset], steps, steps)):
            _same_as_protobuf(data)


def test_a_message_that_is_no_connect_response_raises_protobufs_error() -> None:
    with pytest.raises(DecodeError):
        fastpath.read_response(b"\xff\xff\xff")
    assert fastpath.read_response(b"").messages == [(None, None)]


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_a_streams_reader_reads_each_request_of_several_hands_as_convert_does(preset: str) -> None:
    """One stream's reader (``ResponseReader``) reads each hand's auction and tricks once; over
    games of several hands (redeals too, two tables interleaved, every seat asked, batches and
    single messages) each request still reads exactly as protobuf and convert read it."""
    rng = random.Random(preset)
    games = {table_id: Game(PRESETS[preset], rng.randrange(10**6)) for table_id in ("a", "b")}
    reader = fastpath.ResponseReader()
    hands_seen, requests = set(), 0
    while requests < 500 and any(not game.is_over for game in games.values()):
        batch = []
        for table_id, game in games.items():
            if game.is_over:
                continue
            batch.append(_request_bytes(game, table_id, requests, 1000))
            hands_seen.add((table_id, game.hand_number))
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])
            requests += 1
        data = batch[0] if len(batch) == 1 else batch_bytes(batch)
        inners = fastpath.read_response(data).messages
        for (kind, got), (_, alone) in zip(reader(data).messages, inners, strict=True):
            assert kind == "action_request" and isinstance(got, fastpath.Request)
            assert _read(got) == _read(alone)
    assert {(table_id, 1) for table_id in games} <= hands_seen  # every table saw a new hand


def test_the_core_reads_a_regular_request_and_leaves_the_rest_to_protobuf(reader: str) -> None:
    """Not vacuous: the core's reader reads the server's requests itself (with or without a
    stream's hands), and gives ``None`` (protobuf's turn) for one without card masks."""
    game = played_game(PRESETS["called-partner"], 3, 60)
    data = _request_bytes(game, "t-1", 5, 900)
    message = pb.ConnectResponse.FromString(data).action_request.SerializeToString()
    hands = _requests.HandsRead()
    got = [_responses.read_request_bytes(message, known) for known in (None, hands, hands)]
    if reader == "python":
        assert got == [None, None, None]
        return
    for request in got:
        assert request is not None
        assert _read(request) == _reference(pb.ActionRequest.FromString(message))
    no_masks = _request_bytes(game, "t-1", 5, 900, masks=False)
    inner = pb.ConnectResponse.FromString(no_masks).action_request.SerializeToString()
    assert _responses.read_request_bytes(inner) is None
