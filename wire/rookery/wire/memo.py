"""The one memo of the hot paths: a bounded dict, computed on a miss, cleared when full.

Every cache of Rookery's hot paths (values encoded or decoded once and looked up again, per move
of every table) is a :class:`BoundedMemo`, with one eviction rule: when ``size`` entries are held
and another is added, all are dropped and the memo fills again with what is in use. A hit is one
dict lookup in C (``memo[key]``); nothing grows without bound whatever a peer sends.

Measured benefit (``bench/memo_bench.py``, one run, a hit against computing the value; the figures
are recorded where each memo is defined): decoding a proto ``Ruleset`` 4.8×, an ``Action`` 2.8×,
a ``Trick`` 1.4×; encoding a scalar field 2.8×, a packed field 5.2×, an auction entry 75×, a
replay action 4.3×.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

__all__ = ["BoundedMemo"]

_K = TypeVar("_K")
_V = TypeVar("_V")


class BoundedMemo(dict[_K, _V]):
    """At most ``size`` remembered values; ``memo[key]`` computes a missing one with ``compute``
    (an exception from it is raised and nothing is remembered).

    For values whose computation needs more than the key (a field name for its error messages),
    look up with ``memo.get(key)`` and add with :meth:`remember`.
    """

    __slots__ = ("_compute", "size")

    def __init__(self, size: int, compute: Callable[[_K], _V] | None = None) -> None:
        super().__init__()
        if size < 1:
            raise ValueError(f"a memo holds at least 1 value, not {size}")
        self.size = size
        self._compute = compute

    def remember(self, key: _K, value: _V) -> _V:
        """Adds ``value`` under ``key`` (dropping every entry first when full); ``value``."""
        if len(self) >= self.size:
            self.clear()
        self[key] = value
        return value

    def __missing__(self, key: _K) -> _V:
        compute = self._compute
        if compute is None:
            raise KeyError(key)
        return self.remember(key, compute(key))
