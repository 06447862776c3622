"""Bot notes and fallback marks: their bounds, checked alike by the server, the SDK and
``replay verify``.

A ``BotNote`` is free text of at most :data:`NOTE_TEXT_MAX_BYTES` bytes of UTF-8 and at most
:data:`NOTE_VALUES_MAX` named numbers, each name 1 to :data:`NOTE_NAME_MAX` characters of
``[A-Za-z0-9_.-]`` and each value finite. A ``Fallback`` reason is at most
:data:`FALLBACK_REASON_MAX_BYTES` bytes of UTF-8.

>>> from rookery.v1 import notes_pb2
>>> note_problem(notes_pb2.BotNote(text="x" * 513))
'note.text is 513 bytes of UTF-8; at most 512 are allowed'
>>> note_problem(notes_pb2.BotNote(text="ok", values={"samples": 400})) is None
True
>>> clip_utf8("é" * 200, 5)
'éé'
"""

from __future__ import annotations

import math
import re

from rookery.v1 import notes_pb2

__all__ = [
    "FALLBACK_REASON_MAX_BYTES",
    "LEDGER_VALUES",
    "NOTE_NAME_MAX",
    "NOTE_TEXT_MAX_BYTES",
    "NOTE_VALUES_MAX",
    "clip_utf8",
    "fallback_problem",
    "is_bounds_rejection",
    "note_problem",
]

NOTE_TEXT_MAX_BYTES = 512
"""The most bytes of UTF-8 in ``BotNote.text``."""
LEDGER_VALUES = (
    "attempts",
    "invalid_replies",
    "provider_errors",
    "prompt_tokens",
    "completion_tokens",
    "cost_usd",
)
"""A language-model seat's counts in its move's ``BotNote.values`` (its ledger, which the arena
sums per bot); ``latency_ms`` too, and ``unanswered_`` + each name for the decisions given no move
since the seat's previous reply."""
NOTE_VALUES_MAX = 16
"""The most named numbers in ``BotNote.values``."""
NOTE_NAME_MAX = 32
"""The longest name of a ``BotNote`` value, in characters."""
FALLBACK_REASON_MAX_BYTES = 256
"""The most bytes of UTF-8 in ``Fallback.reason``."""

_NAME = re.compile(r"[A-Za-z0-9_.\-]{1,32}")


def note_problem(note: notes_pb2.BotNote) -> str | None:
    """What is wrong with ``note`` (a sentence naming the field and the bound), or ``None``."""
    size = len(note.text.encode("utf-8", "surrogatepass"))
    if size > NOTE_TEXT_MAX_BYTES:
        return f"note.text is {size} bytes of UTF-8; at most {NOTE_TEXT_MAX_BYTES} are allowed"
    if len(note.values) > NOTE_VALUES_MAX:
        return f"note.values has {len(note.values)} entries; at most {NOTE_VALUES_MAX} are allowed"
    for name in sorted(note.values):
        if not _NAME.fullmatch(name):
            shown = name if len(name) <= 40 else name[:40] + "…"
            return (
                f"note.values name {shown!r} is not 1 to {NOTE_NAME_MAX} characters of "
                "[A-Za-z0-9_.-]"
            )
        value = note.values[name]
        if not math.isfinite(value):
            return f"note.values[{name!r}] is {value}; values must be finite"
    return None


def fallback_problem(fallback: notes_pb2.Fallback) -> str | None:
    """What is wrong with ``fallback``, or ``None``."""
    size = len(fallback.reason.encode("utf-8", "surrogatepass"))
    if size > FALLBACK_REASON_MAX_BYTES:
        return (
            f"fallback.reason is {size} bytes of UTF-8; at most {FALLBACK_REASON_MAX_BYTES} "
            "are allowed"
        )
    return None


def clip_utf8(text: str, max_bytes: int) -> str:
    """``text`` cut to at most ``max_bytes`` bytes of UTF-8, never inside a character."""
    data = text.encode("utf-8", "replace")
    if len(data) <= max_bytes:
        return text
    return data[:max_bytes].decode("utf-8", "ignore")


def is_bounds_rejection(rejection_reason: str) -> bool:
    """Whether a recorded rejection is the server's refusal of a note or fallback mark past its
    bounds (its message starts with the field: ``note.text is 600 bytes ...``): the action of
    such a reply may well be legal."""
    return rejection_reason.startswith(("note.", "fallback."))
