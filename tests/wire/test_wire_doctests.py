"""The examples in the wire modules' docstrings run as written."""

from __future__ import annotations

import doctest
from types import ModuleType

import pytest
from rookery.wire import convert, notation, replay


@pytest.mark.parametrize("module", [convert, notation, replay], ids=lambda module: module.__name__)
def test_docstring_examples_run(module: ModuleType) -> None:
    failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert tried > 0
    assert failures == 0
