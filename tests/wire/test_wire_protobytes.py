"""Hand-assembled protobuf bytes are exactly what protobuf serializes."""

from __future__ import annotations

import pytest
from rookery.v1 import actions_pb2, replay_pb2
from rookery.wire.protobytes import (
    field,
    field_number,
    packed_field,
    scalar_field,
    uint_field,
    varint,
)


@pytest.mark.parametrize("value", [0, 1, 127, 128, 300, 16383, 16384, 2**31 - 1, 2**63])
def test_a_varint_is_protobufs(value: int) -> None:
    number = field_number(replay_pb2.ReplayHeader, "seed")  # a uint64
    encoded = replay_pb2.ReplayHeader(seed=value).SerializeToString()
    assert uint_field(number, value) == encoded
    if value:
        assert varint(number << 3) + varint(value) == encoded


@pytest.mark.parametrize("value", [0, 1, -1, 70, 127, 128, -(2**31), 2**31 - 1])
def test_a_scalar_field_is_protobufs_for_every_int32(value: int) -> None:
    table = scalar_field(actions_pb2.Observation, "bidder")
    assert table[value] == actions_pb2.Observation(bidder=value).SerializeToString()
    assert table[value] is table[value]  # computed once


@pytest.mark.parametrize("size", [0, 1, 127, 128, 20000])
def test_a_length_delimited_field_is_protobufs(size: int) -> None:
    reason = "x" * size
    message = replay_pb2.ReplayAction(rejection_reason=reason)
    number = field_number(replay_pb2.ReplayAction, "rejection_reason")
    expected = message.SerializeToString()
    assert (field(number, reason.encode()) if size else b"") == expected


def test_a_field_number_above_fifteen_takes_a_two_byte_tag() -> None:
    number = field_number(actions_pb2.Observation, "current_trick")  # 20
    trick = actions_pb2.Trick(leader=2)
    message = actions_pb2.Observation()
    message.current_trick.CopyFrom(trick)
    assert field(number, trick.SerializeToString()) == message.SerializeToString()


@pytest.mark.parametrize("values", [(), (0,), (1, 2, 3), (-1, 300, 0)])
def test_a_packed_field_is_protobufs(values: tuple[int, ...]) -> None:
    number = field_number(actions_pb2.Observation, "scores")
    expected = actions_pb2.Observation(scores=values).SerializeToString()
    assert packed_field(number, values) == expected
