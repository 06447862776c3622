"""Rookery's wire layer: engine ↔ proto conversion (``rookery.wire.convert``), replays
(``rookery.wire.replay``: building, writing, reading and verifying replay files) and the
hand-made protobuf codecs of the hot paths (``rookery.wire.fastpath``).

Everything is imported from its module: ``from rookery.wire.convert import action_from_proto``.
Errors live in the leaf module ``rookery.wire.errors``.
"""

from __future__ import annotations

__all__: list[str] = []
"""Nothing at the package root: each module (``convert``, ``fastpath``, ``replay``,
``notation``, ``selfplay``, ``version``, ``errors``) lists its own public names."""
