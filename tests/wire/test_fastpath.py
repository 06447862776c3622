"""Every hand-made fast path against the reference, on random inputs.

The bytes assembled by hand (``rookery.wire.fastpath``: one test per message family, the action
requests, the events and batches, the SDK's replies, the replay actions, and the primitives
they compose) against protobuf's own ``SerializeToString`` of the message ``convert`` builds;
``convert``'s incremental decoding, and its reading of the card masks, against decoding
everything; the one memo against its contract. Random games of every preset, random
multi-byte ids, sequence numbers and clocks, long and non-ASCII table ids.
"""

from __future__ import annotations

import contextlib
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rookery.engine import PRESETS, Game
from rookery.engine.testing import played_game
from rookery.v1 import actions_pb2, bot_service_pb2, notes_pb2, replay_pb2
from rookery.v1 import field_numbers as fields
from rookery.wire import convert
from rookery.wire.errors import MalformedMessageError
from rookery.wire.fastpath import (
    RequestEncoder,
    batch_bytes,
    event_bytes,
    event_element,
    event_message,
    events_message,
    public_event_bytes,
    public_event_element,
    replay_hand_actions,
    reply_bytes,
    request_bytes,
    table_event_prefix,
    table_id_field,
)
from rookery.wire.fastpath._protobuf import fixed64_field, packed_field, scalar_field, uint_field
from rookery.wire.memo import BoundedMemo
from rookery.wire.replay import ActionOutcome

pb = bot_service_pb2
UINT64 = st.integers(0, 2**64 - 1)
INT32 = st.integers(-(2**31), 2**31 - 1)
TABLE_IDS = st.text(min_size=0, max_size=300)
FAST = settings(max_examples=12, deadline=None)


GAMES = st.builds(
    played_game, st.sampled_from([PRESETS[name] for name in sorted(PRESETS)]),
    st.integers(0, 10**6), st.integers(0, 400),
)  # fmt: skip


@FAST
@given(GAMES, TABLE_IDS, UINT64, UINT64, INT32, INT32)
def test_an_action_request_is_protobufs_for_any_game_ids_and_clocks(
    game: Game, table_id: str, request_id: int, last_seq: int, deadline_ms: int, bank_ms: int
) -> None:
    encoder = RequestEncoder(game.ruleset)
    for seat in range(game.ruleset.players):
        observation, legal = game.observation_for(seat), game.legal_actions()
        for masks in (True, False):  # a session that asked for card masks, and one that did not
            expected = pb.ActionRequest(
                table_id=table_id,
                request_id=request_id,
                seat=seat,
                observation=convert.observation_to_proto(observation),
                legal_actions=convert.legal_actions_to_proto(legal),
                deadline_ms=deadline_ms,
                bank_ms=bank_ms,
                last_seq=last_seq,
                card_masks=convert.card_masks_to_proto(observation, legal) if masks else None,
            )
            got = encoder.action_request(
                table_id=table_id,
                request_id=request_id,
                seat=seat,
                observation=observation,
                legal=legal,
                deadline_ms=deadline_ms,
                bank_ms=bank_ms,
                last_seq=last_seq,
                masks=masks,
            )
            assert got == pb.ConnectResponse(action_request=expected).SerializeToString()


@FAST
@given(GAMES, TABLE_IDS)
def test_events_and_batches_are_protobufs(game: Game, table_id: str) -> None:
    prefix = table_event_prefix(table_id)
    encoded, expected = [], pb.ResponseBatch()
    for event in game.events_since(0)[-40:]:
        for seat in (None, *range(game.ruleset.players)):
            proto = convert.event_to_proto(event, game.ruleset, seat)
            message = pb.ConnectResponse(event=pb.TableEvent(table_id=table_id, event=proto))
            assert event_bytes(prefix, proto) == message.SerializeToString()
            if seat is None:  # the frequent public events from bytes: the same, or None
                fast = public_event_bytes(prefix, event)
                assert fast is None or fast == message.SerializeToString()
                element = public_event_element(event)
                assert (element is None) == (fast is None)
                assert element is None or element == event_element(proto)
                kind = proto.WhichOneof("kind")
                scored = kind == "hand_scored" and not proto.hand_scored.result.redeal
                assert (fast is not None) == (
                    kind in ("card_played", "trick_won", "bid_made", "passed") or scored
                )
            encoded.append(event_bytes(prefix, proto))
            expected.messages.append(message)
    if encoded:
        assert batch_bytes(encoded) == pb.ConnectResponse(batch=expected).SerializeToString()
    # A TableEvents of the same events, as the server groups them (Hello.group_events).
    elements = [event_element(m.event.event) for m in expected.messages]
    grouped = pb.TableEvents(table_id=table_id, events=[m.event.event for m in expected.messages])
    assert events_message(prefix, elements) == (
        pb.ConnectResponse(table_events=grouped).SerializeToString()
    )
    for message, element in zip(expected.messages, elements, strict=True):
        assert event_message(prefix, element) == message.SerializeToString()


@FAST
@given(GAMES, TABLE_IDS, st.lists(UINT64, min_size=1, max_size=5), st.booleans())
def test_the_sdks_replies_are_protobufs(
    game: Game, table_id: str, request_ids: list[int], marked: bool
) -> None:
    if game.is_over:
        return
    actions = [*game.legal_actions()][: len(request_ids)]
    note = notes_pb2.BotNote(text="é 400", values={"samples": 400.0}) if marked else None
    reason = "act raised ValueError: no card" if marked else None
    encoded, expected = [], []
    for request_id, action in zip(request_ids, actions, strict=False):
        reply = pb.ActionReply(
            table_id=table_id, request_id=request_id, action=convert.action_to_proto(action)
        )
        if note is not None:
            reply.note.CopyFrom(note)
        if reason is not None:
            reply.fallback.reason = reason
        got = reply_bytes(
            table_id_field(table_id),
            request_id,
            action,
            note=note,
            fallback_reason=reason,
        )
        assert got == reply.SerializeToString()
        encoded.append(got)
        expected.append(reply)
    alone = pb.ConnectRequest(action_reply=expected[0]).SerializeToString()
    assert request_bytes(encoded[:1]) == alone
    batch = pb.ConnectRequest(batch=pb.ReplyBatch(replies=expected)).SerializeToString()
    assert len(encoded) == 1 or request_bytes(encoded) == batch


@FAST
@given(GAMES, st.lists(st.tuples(st.integers(0, 5), INT32, st.sampled_from(ActionOutcome),
                                 st.text(max_size=200)), max_size=30))  # fmt: skip
def test_replay_actions_are_protobufs(
    game: Game, recorded: list[tuple[int, int, ActionOutcome, str]]
) -> None:
    actions = [*game.legal_actions()][: len(recorded)]
    entries = [
        (seat, action, think, outcome, reason, b"")
        for (seat, think, outcome, reason), action in zip(recorded, actions, strict=False)
    ]
    expected = replay_pb2.ReplayHand(
        actions=[
            replay_pb2.ReplayAction(
                seat=seat,
                action=convert.action_to_proto(action),
                think_ms=think,
                outcome=outcome.value,
                rejection_reason=reason,
            )
            for seat, action, think, outcome, reason, _ in entries
        ]
    )
    assert replay_hand_actions(entries) == expected.SerializeToString()


@FAST
@given(st.lists(INT32, max_size=40), INT32, UINT64)
def test_the_byte_primitives_are_protobufs(values: list[int], scalar: int, big: int) -> None:
    observation = actions_pb2.Observation
    packed = packed_field(fields.Observation.SCORES, tuple(values))
    assert packed == observation(scores=values).SerializeToString()
    table = scalar_field(fields.Observation.BIDDER)
    assert table[scalar] == observation(bidder=scalar).SerializeToString()
    request = pb.ActionRequest
    got = uint_field(fields.ActionRequest.REQUEST_ID, big)
    assert got == request(request_id=big).SerializeToString()
    masks = actions_pb2.CardMasks
    got = fixed64_field(fields.CardMasks.PLAYABLE_CARDS, big)
    assert got == masks(playable_cards=big).SerializeToString()


@FAST
@given(GAMES)
def test_reading_the_card_masks_gives_what_reading_the_card_fields_gives(game: Game) -> None:
    legal = game.legal_actions() if not game.is_over else None
    for seat in range(game.ruleset.players):
        observation = game.observation_for(seat)
        message = convert.observation_to_proto(observation)
        if legal is None:  # the game is over: the observation's own sets
            masks = actions_pb2.CardMasks(
                hand=observation.hand, nest=observation.nest, buried=observation.buried
            )
            assert convert.observation_from_proto(message, masks=masks) == (
                convert.observation_from_proto(message)
            )
            continue
        masks = pb.ActionRequest.FromString(
            pb.ActionRequest(
                card_masks=convert.card_masks_to_proto(observation, legal)
            ).SerializeToString()
        ).card_masks
        assert convert.observation_from_proto(message, masks=masks) == (
            convert.observation_from_proto(message)
        )
        proto_legal = convert.legal_actions_to_proto(legal)
        assert convert.legal_actions_from_proto(proto_legal, masks=masks) == legal


def test_a_card_mask_with_a_bit_that_is_no_card_is_malformed() -> None:
    game = played_game(PRESETS["standard"], 1, 3)
    observation = game.observation_for(game.current_player or 0)
    masks = convert.card_masks_to_proto(observation, game.legal_actions())
    masks.hand |= 1 << 58
    with pytest.raises(MalformedMessageError, match=r"card_masks\.hand.*bit 58"):
        convert.observation_from_proto(convert.observation_to_proto(observation), masks=masks)
    masks.hand, masks.playable_cards = observation.hand, 1 << 63
    with pytest.raises(MalformedMessageError, match=r"card_masks\.playable_cards.*bit 63"):
        convert.legal_actions_from_proto(
            convert.legal_actions_to_proto(game.legal_actions()), masks=masks
        )


@FAST
@given(GAMES, st.integers(0, 400))
def test_decoding_only_what_is_new_since_an_earlier_observation_gives_the_full_decoding(
    game: Game, more: int
) -> None:
    seat = game.current_player or 0
    earlier = convert.observation_from_proto(
        convert.observation_to_proto(game.observation_for(seat))
    )
    rng = random.Random(more)
    for _ in range(more % 40):  # a later observation of the same game
        if game.is_over:
            break
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(min(len(legal), 30))])
    after = convert.observation_to_proto(game.observation_for(seat))
    assert convert.observation_from_proto(after, earlier=earlier) == (
        convert.observation_from_proto(after)
    )


def test_a_memo_is_bounded_and_remembers_no_failure() -> None:
    calls: list[int] = []

    def compute(key: int) -> int:
        calls.append(key)
        if key < 0:
            raise ValueError(key)
        return key * 2

    memo: BoundedMemo[int, int] = BoundedMemo(3, compute)
    assert [memo[k] for k in (1, 2, 1, 3)] == [2, 4, 2, 6]
    assert calls == [1, 2, 3]  # 1 computed once
    assert memo[4] == 8 and len(memo) == 1  # full: every entry dropped, then the new one
    for key in range(100):
        memo[key]
        assert len(memo) <= 3
    with contextlib.suppress(ValueError):
        memo[-1]
    assert -1 not in memo
    assert memo.remember(7, 0) == 0 and memo[7] == 0
