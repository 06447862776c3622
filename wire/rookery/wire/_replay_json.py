"""A replay record's JSON form: ``json_format.MessageToDict``'s dict (or its compact JSON text),
built with less work.

``MessageToDict`` is pure Python, field by field, every card of every deal a message of its own.
Here the same dict is built by walking a message with ``ListFields`` (the set fields in
field-number order, which is ``MessageToDict``'s order), naming each field by its JSON name and
its enums by their value names, exactly as ``MessageToDict`` does for the field kinds it handles
here (32-bit integers, booleans, strings, enums and messages); a card or an action, which come
again and again, is converted once and remembered, and the usual replay action (seat, action,
think time, outcome) is read field by field directly. A message with a field of any other kind
set (64-bit integers, floats, bytes, maps: a bot note's values) goes through ``MessageToDict``
whole, as does a well-known type (the header's timestamp); an enum value the schema does not
name is written as its number, as ``MessageToDict`` does. One difference: a map's entries are
written in key order (``MessageToDict`` follows the map's own order, which protobuf leaves
unspecified, so that two copies of one message could give two texts).

:func:`message_json` writes the same value as compact JSON text (``json.dumps`` with
``separators=(",", ":")`` and ``ensure_ascii=False``) without building the dict: each field's
text joined in order, a card's or an action's text remembered whole.
:func:`rookery.wire.replay.encode_replay` writes its lines with it; its bytes are the reference
encoding's, ``MessageToDict`` of every record (``tests/wire/test_replay_json.py`` checks it over
played games of every preset and over hand-made unusual records, and the text against
``json.dumps`` of the dict).
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from google.protobuf import json_format
from google.protobuf.descriptor import FieldDescriptor
from google.protobuf.message import Message
from rookery.v1 import actions_pb2, cards_pb2, replay_pb2
from rookery.wire.documents import JsonValue
from rookery.wire.memo import BoundedMemo

__all__ = ["message_dict", "message_json"]

_PLAIN_KINDS = frozenset(
    {
        FieldDescriptor.TYPE_INT32,
        FieldDescriptor.TYPE_SINT32,
        FieldDescriptor.TYPE_SFIXED32,
        FieldDescriptor.TYPE_UINT32,
        FieldDescriptor.TYPE_FIXED32,
        FieldDescriptor.TYPE_BOOL,
        FieldDescriptor.TYPE_STRING,
        FieldDescriptor.TYPE_ENUM,
        FieldDescriptor.TYPE_MESSAGE,
    }
)
"""Field kinds whose JSON value is the Python value itself (or an enum's name, a message's dict)."""

_REMEMBERED = frozenset(
    {cards_pb2.Card.DESCRIPTOR.full_name, actions_pb2.Action.DESCRIPTOR.full_name}
)
"""The message types converted once per distinct value: cards, actions."""

_MEMO: BoundedMemo[tuple[str, bytes], dict[str, JsonValue]] = BoundedMemo(8192)
"""Their dicts, by (type, serialised bytes); shared between records and only read."""


_ACTION_FIELDS = ("seat", "action", "think_ms", "outcome")
"""The fields of the usual ``ReplayAction`` (the others: a rejection's reason, a note, a mark)."""

_REPLAY_ACTION = replay_pb2.ReplayAction.DESCRIPTOR.full_name
_DIRECT = {field.name for field in replay_pb2.ReplayAction.DESCRIPTOR.fields} == {
    *_ACTION_FIELDS,
    "rejection_reason",
    "note",
    "fallback",
}
"""Whether ``ReplayAction`` has the fields :func:`_replay_action` knows (a schema with more
turns it off: every action then goes the general way)."""

_OUTCOMES = {value.number: value.name for value in replay_pb2.ActionOutcome.DESCRIPTOR.values}


def _replay_action(recorded: replay_pb2.ReplayAction) -> dict[str, JsonValue]:
    """``MessageToDict(recorded)`` for the usual action (four fields read directly: most of a
    replay's records); the general way for the others."""
    if recorded.rejection_reason or recorded.HasField("note") or recorded.HasField("fallback"):
        return _fields(recorded)
    out: dict[str, JsonValue] = {}
    if recorded.seat:
        out["seat"] = recorded.seat
    if recorded.HasField("action"):
        out["action"] = _message(recorded.action)
    if recorded.think_ms:
        out["thinkMs"] = recorded.think_ms
    if recorded.outcome:
        out["outcome"] = _OUTCOMES.get(recorded.outcome, recorded.outcome)
    return out


def _enum_value(field: FieldDescriptor, number: int) -> str | int:
    assert field.enum_type is not None
    value = field.enum_type.values_by_number.get(number)
    return value.name if value is not None else number


def _message(message: Message) -> JsonValue:
    """``MessageToDict(message)``: a dict, or a well-known type's own JSON value (a
    ``Timestamp``'s text)."""
    name = message.DESCRIPTOR.full_name
    if name == _REPLAY_ACTION and _DIRECT:
        return _replay_action(message)  # type: ignore[arg-type]
    if name.startswith("google.protobuf."):  # a well-known type: its own JSON form
        return json_format.MessageToDict(message)
    if name in _REMEMBERED:
        key = (name, message.SerializeToString())
        found = _MEMO.get(key)
        return found if found is not None else _MEMO.remember(key, _fields(message))
    return _fields(message)


def _fields(message: Message) -> dict[str, JsonValue]:
    """``MessageToDict(message)`` built from its set fields; the reference for the whole message
    when one of them is of another kind (64-bit, float, bytes, a map, an extension)."""
    out: dict[str, JsonValue] = {}
    for field, value in message.ListFields():
        kind = field.type
        repeated = field.is_repeated
        if (
            kind not in _PLAIN_KINDS
            or field.is_extension
            or (field.message_type is not None and field.message_type.GetOptions().map_entry)
        ):
            return _sorted_maps(message, json_format.MessageToDict(message))
        if kind == FieldDescriptor.TYPE_MESSAGE:
            out[field.json_name] = [_message(v) for v in value] if repeated else _message(value)
        elif kind == FieldDescriptor.TYPE_ENUM:
            out[field.json_name] = (
                [_enum_value(field, v) for v in value] if repeated else _enum_value(field, value)
            )
        else:
            out[field.json_name] = list(value) if repeated else value
    return out


def _sorted_maps(message: Message, out: dict[str, JsonValue]) -> dict[str, JsonValue]:
    """``out`` (``MessageToDict(message)``) with every map's entries in key order, at any depth:
    protobuf keeps no order in a map (a copy of a message may list its entries otherwise), and the
    same replay must give the same bytes."""
    for field, value in message.ListFields():
        name = field.json_name
        kind = field.message_type
        if name not in out or kind is None or kind.full_name.startswith("google.protobuf."):
            continue  # not a message, or a well-known type (its own JSON form)
        written = out[name]
        if kind.GetOptions().map_entry and isinstance(written, dict):  # (maps hold scalars)
            out[name] = dict(sorted(written.items()))
        elif field.is_repeated and isinstance(written, list):
            out[name] = [
                _sorted_maps(m, d) if isinstance(d, dict) else d
                for m, d in zip(value, written, strict=True)
            ]
        elif isinstance(written, dict):
            out[name] = _sorted_maps(value, written)
    return out


def message_dict(message: Message) -> dict[str, JsonValue]:
    """``json_format.MessageToDict(message)``, the same dict with less work (maps in key order)."""
    found = _message(message)
    if not isinstance(found, dict):  # a well-known type's own JSON value (a timestamp's text)
        raise TypeError(f"{message.DESCRIPTOR.full_name} is not written as a JSON object")
    return found


# The same as JSON text ----------------------------------------------------------------------------

_dumps = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
"""``json.dumps(value, separators=(",", ":"), ensure_ascii=False)``, the encoder made once."""

_REMEMBERED_TEXTS = _REMEMBERED | ({_REPLAY_ACTION} if _DIRECT else set())
"""The types whose text is remembered: cards, actions and (a fast bot's think time is 0, so the
same few hundred come in every game) the usual recorded actions."""

_TEXTS: BoundedMemo[tuple[str, bytes], str] = BoundedMemo(16384)
"""Their JSON text, by (type, serialised bytes)."""

_KEYS: BoundedMemo[str, str] = BoundedMemo(4096, lambda name: _dumps(name) + ":")
"""A field's ``"jsonName":``, by JSON name."""


def message_json(message: Message) -> str:
    """``json.dumps(message_dict(message), separators=(",", ":"), ensure_ascii=False)``."""
    name = message.DESCRIPTOR.full_name
    if name in _REMEMBERED_TEXTS:  # cards, actions, and the recorded actions (seat, think time…)
        key = (name, message.SerializeToString())
        found = _TEXTS.get(key)
        return found if found is not None else _remembered_text(key, message)
    if name.startswith("google.protobuf."):
        return _dumps(json_format.MessageToDict(message))
    return _fields_json(message)


def _remembered_text(key: tuple[str, bytes], message: Message) -> str:
    """The text of a remembered type's message (its dict's), remembered under ``key``."""
    return _TEXTS.remember(key, _dumps(_message(message)))


def fields_json(message: Message, replaced: Mapping[str, str]) -> str:
    """``message_json(message)`` where the caller knows the text of some fields already:
    ``replaced`` maps a field's name to its value's JSON text (used when the field is set)."""
    return _fields_json(message, replaced)


def _fields_json(message: Message, replaced: Mapping[str, str] | None = None) -> str:
    parts = []
    for field, value in message.ListFields():
        kind = field.type
        if (
            kind not in _PLAIN_KINDS
            or field.is_extension
            or (field.message_type is not None and field.message_type.GetOptions().map_entry)
        ):
            return _dumps(_fields(message))  # the general way, as for the dict
        if replaced and field.name in replaced:
            parts.append(_KEYS[field.json_name] + replaced[field.name])
            continue
        repeated = field.is_repeated
        if kind == FieldDescriptor.TYPE_MESSAGE:
            assert field.message_type is not None
            item_name = field.message_type.full_name
            if repeated and item_name in _REMEMBERED_TEXTS:  # a deal's cards, a hand's actions
                texts = []
                for item in value:
                    key = (item_name, item.SerializeToString())
                    found = _TEXTS.get(key)
                    texts.append(found if found is not None else _remembered_text(key, item))
                text = "[" + ",".join(texts) + "]"
            elif repeated:
                text = "[" + ",".join([message_json(item) for item in value]) + "]"
            else:
                text = message_json(value)
        elif kind == FieldDescriptor.TYPE_ENUM:
            if repeated:
                text = _dumps([_enum_value(field, item) for item in value])
            else:
                text = _dumps(_enum_value(field, value))
        else:
            text = _dumps(list(value) if repeated else value)
        parts.append(_KEYS[field.json_name] + text)
    return "{" + ",".join(parts) + "}"
