"""Fixtures for the engine's tests (helpers live in ``rookery.engine.testing``)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[2] / "engine"
if str(ENGINE) not in sys.path:
    sys.path.insert(0, str(ENGINE))


@pytest.fixture
def rng() -> random.Random:
    """A seeded generator: tests are reproducible."""
    return random.Random(20240601)
