"""The values of a JSON or TOML document, typed: what Rookery writes as JSON (replays, the web
pages' payloads, stored configurations) and what a parsed TOML file holds (configs), in one place.

A parsed document comes in as ``object`` (``json.loads`` and ``tomllib`` promise nothing more
to a type checker) and is narrowed at the edge with :func:`json_object` / :func:`toml_table`
and isinstance checks, then turned into dataclasses; nothing past the edge sees a raw document.

>>> json_object({"seat": 2}, "a seat")
{'seat': 2}
>>> json_object([2], "a seat")
Traceback (most recent call last):
ValueError: a seat must be a JSON object, not list
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from typing import TypeAlias

__all__ = ["JsonObject", "JsonValue", "TomlTable", "TomlValue", "json_object", "toml_table"]

JsonValue: TypeAlias = (
    "bool | int | float | str | Sequence[JsonValue] | Mapping[str, JsonValue] | None"
)
"""A value ``json.dumps`` writes: its containers read-only (so a ``dict[str, int]`` is one)."""

JsonObject: TypeAlias = "Mapping[str, JsonValue]"
"""A JSON object."""

TomlValue: TypeAlias = (
    "bool | int | float | str | datetime.datetime | datetime.date | datetime.time"
    " | Sequence[TomlValue] | Mapping[str, TomlValue]"
)
"""A value of a parsed TOML document (``tomllib``'s types)."""

TomlTable: TypeAlias = "Mapping[str, TomlValue]"
"""A TOML table (a parsed document is one)."""


def json_object(value: object, what: str) -> dict[str, object]:
    """``value`` as a JSON object (a ``dict`` with string keys), its values still to narrow;
    ``ValueError`` naming ``what`` when it is not one."""
    if not isinstance(value, dict) or not all(isinstance(key, str) for key in value):
        raise ValueError(f"{what} must be a JSON object, not {type(value).__name__}")
    return {str(key): item for key, item in value.items()}


def toml_table(value: object, what: str) -> dict[str, object]:
    """``value`` as a TOML table, its values still to narrow; ``ValueError`` naming ``what``
    when it is not one."""
    if not isinstance(value, dict) or not all(isinstance(key, str) for key in value):
        raise ValueError(f"{what} must be a TOML table, not {type(value).__name__}")
    return {str(key): item for key, item in value.items()}
