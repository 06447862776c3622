"""The native core (``rookery_core``, built from ``core/`` by ``make setup``), when it is here:
its version, and its rules of a ``Ruleset``. The engine's only import outside the standard
library, and an optional one: without it (no Rust toolchain, another platform) the pure engine
runs."""

from __future__ import annotations

import os
from types import ModuleType
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._ruleset import Ruleset

__all__ = ["PURE_ENV", "core_rules", "core_version", "native", "new_batch", "on_core"]

PURE_ENV = "ROOKERY_PURE_ENGINE"
"""Set to ``1`` to run the pure engine even where the core (and the compiled modules) are built."""


def _import_core() -> ModuleType | None:
    try:
        import rookery_core
    except ImportError:
        return None
    # A core built before the engine's bindings (``EngineGame``) is as good as none.
    return rookery_core if hasattr(rookery_core, "EngineGame") else None


native: ModuleType | None = _import_core()
"""The ``rookery_core`` module, or ``None`` when it is not built."""

on_core: bool = native is not None and os.environ.get(PURE_ENV, "") in ("", "0")
"""Whether ``rookery.engine.Game`` runs on the core (it is built, and ``PURE_ENV`` is not set)."""

_RULES: dict[int, tuple[Ruleset, Any]] = {}


def core_version() -> str | None:
    """The native core's version, or ``None`` when it is not built."""
    return None if native is None else str(native.__version__)


def core_rules(ruleset: Ruleset) -> Any:
    """The core's rules of ``ruleset`` (cached per ruleset object; the core must be built)."""
    cached = _RULES.get(id(ruleset))
    if cached is not None and cached[0] is ruleset:
        return cached[1]
    if native is None:
        raise RuntimeError("the native core (rookery_core) is not built")
    rules = native.Rules.from_dict(ruleset.to_dict())
    if len(_RULES) > 256:
        _RULES.clear()
    _RULES[id(ruleset)] = (ruleset, rules)
    return rules


def new_batch(ruleset: Ruleset, n: int, seed: int, zero_sum: bool) -> Any:
    """The core's batch of ``n`` tables of ``ruleset`` (the core must be built)."""
    if native is None:
        raise RuntimeError("the native core (rookery_core) is not built")
    return native.Batch(core_rules(ruleset), n, seed, zero_sum)
