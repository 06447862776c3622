"""Fixtures of the league tests (the helpers are in ``league_helpers``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from league_helpers import LeagueProcess


@pytest.fixture
def league_process(tmp_path: Path) -> Iterator[LeagueProcess]:
    """A league server process (not started: set ``args`` first), stopped after the test."""
    running = LeagueProcess(tmp_path)
    try:
        yield running
    finally:
        running.stop()
