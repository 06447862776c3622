"""The text forms the notation writes and reads alike: quoted text's escapes, an enum value's
name without its prefix, and which recorded outcomes the engine applied.
"""

from __future__ import annotations

import re
from typing import Protocol

from google.protobuf.descriptor import EnumDescriptor
from rookery.v1 import replay_pb2

__all__ = ["APPLIED", "FieldDescription", "enum_of", "enum_prefix", "escape", "unescape"]


class FieldDescription(Protocol):
    """What the notation reads of a proto field's descriptor (protobuf's stubs type a message's
    descriptor as the pure or the upb class: both have these)."""

    @property
    def type(self) -> int: ...

    @property
    def enum_type(self) -> object: ...


def escape(text: str) -> str:
    """``text`` for inside double quotes: backslash, quote and newline escaped."""
    return text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def unescape(text: str) -> str:
    """The text that ``escape`` wrote."""
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), text)


def enum_of(descriptor: FieldDescription) -> EnumDescriptor:
    """The enum type of an enum field."""
    enum = descriptor.enum_type
    assert isinstance(enum, EnumDescriptor)
    return enum


def enum_prefix(enum: EnumDescriptor) -> str:
    """An enum's value-name prefix (``LATE_POLICY_`` for ``LatePolicy``), left out in text."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", enum.name).upper() + "_"


APPLIED = (replay_pb2.ACTION_OUTCOME_ACCEPTED, replay_pb2.ACTION_OUTCOME_AUTO_PLAYED)
"""The recorded outcomes the engine applied (a trick's card plays count these)."""
