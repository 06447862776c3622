"""The wire format's primitives are exactly what protobuf serializes, and the field numbers the
codecs use are the contract's."""

from __future__ import annotations

import inspect
from typing import Any

import pytest
from google.protobuf.descriptor import Descriptor
from rookery.v1 import (
    actions_pb2,
    arena_service_pb2,
    bot_service_pb2,
    cards_pb2,
    events_pb2,
    league_pb2,
    notes_pb2,
    replay_pb2,
    results_pb2,
    ruleset_pb2,
    spectator_service_pb2,
    table_pb2,
)
from rookery.v1 import field_numbers as fields
from rookery.wire.fastpath._protobuf import field, packed_field, scalar_field, uint_field, varint

MODULES = (
    actions_pb2, arena_service_pb2, bot_service_pb2, cards_pb2, events_pb2, league_pb2,
    notes_pb2, replay_pb2, results_pb2, ruleset_pb2, spectator_service_pb2, table_pb2,
)  # fmt: skip


def _messages() -> list[tuple[str, Descriptor]]:
    found: list[tuple[str, Descriptor]] = []

    def walk(prefix: str, descriptor: Descriptor) -> None:
        if descriptor.GetOptions().map_entry:
            return
        name = f"{prefix}{descriptor.name}"
        found.append((name, descriptor))
        for nested in descriptor.nested_types:
            walk(f"{name}.", nested)

    for module in MODULES:
        for descriptor in module.DESCRIPTOR.message_types_by_name.values():
            walk("", descriptor)
    return found


def _generated(path: str) -> Any:
    value: Any = fields
    for part in path.split("."):
        value = getattr(value, part)
    return value


def test_the_generated_field_numbers_are_every_field_of_every_message() -> None:
    messages = _messages()
    assert len(messages) > 100
    for name, descriptor in messages:
        generated = _generated(name)
        numbers = {
            key: value
            for key, value in vars(generated).items()
            if key.isupper() and not inspect.isclass(value)
        }
        assert numbers == {f.name.upper(): f.number for f in descriptor.fields}, name
    top_level = {name for name, value in vars(fields).items() if inspect.isclass(value)}
    assert top_level == {name for name, _ in messages if "." not in name}


@pytest.mark.parametrize("value", [0, 1, 127, 128, 300, 16383, 16384, 2**31 - 1, 2**63])
def test_a_varint_is_protobufs(value: int) -> None:
    number = fields.ReplayHeader.SEED  # a uint64
    encoded = replay_pb2.ReplayHeader(seed=value).SerializeToString()
    assert uint_field(number, value) == encoded
    if value:
        assert varint(number << 3) + varint(value) == encoded


@pytest.mark.parametrize("value", [0, 1, -1, 70, 127, 128, -(2**31), 2**31 - 1])
def test_a_scalar_field_is_protobufs_for_every_int32(value: int) -> None:
    table = scalar_field(fields.Observation.BIDDER)
    assert table[value] == actions_pb2.Observation(bidder=value).SerializeToString()
    assert table[value] is table[value]  # computed once


@pytest.mark.parametrize("size", [0, 1, 127, 128, 20000])
def test_a_length_delimited_field_is_protobufs(size: int) -> None:
    reason = "x" * size
    message = replay_pb2.ReplayAction(rejection_reason=reason)
    expected = message.SerializeToString()
    assert (field(fields.ReplayAction.REJECTION_REASON, reason.encode()) if size else b"") == (
        expected
    )


def test_a_field_number_above_fifteen_takes_a_two_byte_tag() -> None:
    number = fields.Observation.CURRENT_TRICK
    assert number > 15
    trick = actions_pb2.Trick(leader=2)
    message = actions_pb2.Observation()
    message.current_trick.CopyFrom(trick)
    assert field(number, trick.SerializeToString()) == message.SerializeToString()


@pytest.mark.parametrize("values", [(), (0,), (1, 2, 3), (-1, 300, 0)])
def test_a_packed_field_is_protobufs(values: tuple[int, ...]) -> None:
    number = fields.Observation.SCORES
    expected = actions_pb2.Observation(scores=values).SerializeToString()
    assert packed_field(number, values) == expected
