"""Rookery's wire layer: engine ↔ proto conversion (``rookery.wire.convert``) and replays
(``rookery.wire.replay``: building, writing, reading and verifying replay files).

Everything is imported from its module: ``from rookery.wire.convert import action_from_proto``.
Errors live in the leaf module ``rookery.wire.errors``.

The hot modules (``convert``, ``protobytes``) are compiled by mypyc where ``make setup`` could
build them (``wire/compile_wire.py``), the pure modules otherwise or with
``ROOKERY_PURE_ENGINE=1``: ``wire_build()`` says which is in use.
"""

from __future__ import annotations

from pathlib import Path as _Path

from rookery.engine import BuildInfo, choose_build

# Before any module of the package is imported: the compiled modules or the pure ones.
_BUILD = choose_build(__name__, _Path(__file__).resolve().parent)

__all__ = ["wire_build"]
"""Only the build at the package root: each module (``convert``, ``replay``, ``notation``,
``protobytes``, ``selfplay``, ``version``, ``errors``) lists its own public names."""


def wire_build() -> BuildInfo:
    """The build of the wire layer's hot modules in use: compiled (mypyc) or pure.

    >>> wire_build().kind in ("compiled", "pure")
    True
    """
    return _BUILD
