"""Rookery's wire layer: engine ↔ proto conversion (``rookery.wire.convert``) and replays
(``rookery.wire.replay``: building, writing, reading and verifying replay files).

Everything is imported from its module: ``from rookery.wire.convert import action_from_proto``.
Errors live in the leaf module ``rookery.wire.errors``.
"""

from __future__ import annotations

__all__: list[str] = []
"""Nothing at the package root: each module (``convert``, ``replay``, ``notation``, ``protobytes``,
``selfplay``, ``version``, ``errors``) lists its own public names."""
