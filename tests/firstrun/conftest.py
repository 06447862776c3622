"""Fixtures for the first-hour tests: the repository's root and the `rookery` of this venv."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

#: The repository's root.
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def root() -> Path:
    """The repository's root (this checkout)."""
    return ROOT


@pytest.fixture(scope="session")
def venv_bin() -> Path:
    """The folder of this venv's ``python`` and ``rookery`` scripts."""
    folder = Path(sys.executable).parent
    assert (folder / "rookery").exists(), f"no rookery script in {folder}: run make setup"
    return folder
