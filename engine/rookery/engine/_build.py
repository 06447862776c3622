"""Which build of the engine runs: ``Game`` on the native core (``rookery_core``, where
``make setup`` built it) or the pure Python engine (``ROOKERY_PURE_ENGINE=1`` forces it)."""

from __future__ import annotations

import os
from dataclasses import dataclass

from ._core import PURE_ENV, core_version, native, on_core

__all__ = ["PURE_ENV", "BuildInfo", "build_info"]


@dataclass(frozen=True)
class BuildInfo:
    """A build in use: ``kind`` is ``"core"`` (the engine's ``Game`` on the native core) or
    ``"pure"``.

    ``reason`` says why the pure build runs (``""`` otherwise); ``core`` is the native core's
    version (``"core"`` only).
    """

    kind: str
    reason: str
    core: str = ""

    def __str__(self) -> str:
        if self.kind == "core":
            return "Game on the native core"
        return f"pure Python ({self.reason})"


def build_info() -> BuildInfo:
    """The engine build in use (``str()`` of it is what ``rookery --version`` prints).

    >>> build_info().kind in ("core", "pure")
    True
    """
    if on_core:
        return BuildInfo("core", "", core_version() or "")
    if native is not None:
        return BuildInfo("pure", f"{PURE_ENV}={os.environ[PURE_ENV]}")
    return BuildInfo("pure", "no native core: rookery_core is not built here")
