"""The serving processes' collector settings."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest
from rookery.server import tune_gc


class _Node:
    other: object = None


@pytest.fixture
def restored_gc() -> Iterator[None]:
    before = gc.get_threshold()
    yield
    gc.unfreeze()
    gc.set_threshold(*before)


@pytest.mark.usefixtures("restored_gc")
def test_tune_gc_raises_the_young_threshold_and_freezes_what_exists() -> None:
    _, middle, oldest = gc.get_threshold()
    tune_gc(12_345)
    assert gc.get_threshold() == (12_345, middle, oldest)
    assert gc.get_freeze_count() > 0
    # Cycles made afterwards are still collected.
    node = _Node()
    node.other = node
    alive = weakref.ref(node)
    del node
    gc.collect()
    assert alive() is None


@pytest.mark.usefixtures("restored_gc")
def test_tune_gc_refuses_a_threshold_below_one() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        tune_gc(0)
