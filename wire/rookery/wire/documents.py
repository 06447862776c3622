"""The values of a JSON or TOML document, typed: what Rookery writes as JSON (replays, the web
pages' payloads, stored configurations) and what a parsed TOML file holds (configs), in one place.

A parsed document comes in as ``object`` (``json.loads`` and ``tomllib`` promise nothing more
to a type checker) and is narrowed at the edge with isinstance checks, then turned into
dataclasses; nothing past the edge sees a raw document.
"""

from __future__ import annotations

import datetime
from collections.abc import Mapping, Sequence
from typing import TypeAlias

__all__ = ["JsonObject", "JsonValue", "TomlTable", "TomlValue"]

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
