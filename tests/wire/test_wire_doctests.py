"""The examples in the wire modules' docstrings run as written."""

from __future__ import annotations

import doctest
from types import ModuleType

import pytest
from rookery.wire import convert, notation, replay


@pytest.mark.parametrize("module", [convert, notation, replay], ids=lambda module: module.__name__)
def test_docstring_examples_run(module: ModuleType) -> None:
    failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    # A compiled module's functions hide their examples from doctest: they run on the pure build
    # (`make test` runs this folder with ROOKERY_PURE_ENGINE=1 too).
    assert tried > 0 or not str(module.__file__).endswith(".py")
    assert failures == 0
