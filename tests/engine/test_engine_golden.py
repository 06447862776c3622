"""Golden playthroughs: one fixed game per preset, diffed against ``golden/<preset>.txt``.

Regenerate after an intended change: ``ROOKERY_REGENERATE_GOLDEN=1 pytest tests/engine`` or
``PYTHONPATH=engine python -m rookery.engine._golden``; review the diff before committing it.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest
from rookery.engine import PRESETS
from rookery.engine._golden import golden_text

GOLDEN = Path(__file__).parent / "golden"


@pytest.mark.parametrize("name", list(PRESETS))
def test_golden_playthrough(name: str) -> None:
    path = GOLDEN / f"{name}.txt"
    actual = golden_text(name)
    if os.environ.get("ROOKERY_REGENERATE_GOLDEN") == "1":
        path.write_text(actual, encoding="utf-8")
    expected = path.read_text(encoding="utf-8")
    if actual != expected:
        diff = difflib.unified_diff(
            expected.splitlines(), actual.splitlines(), "golden", "actual", lineterm="", n=2
        )
        pytest.fail(f"{name} differs from {path}:\n" + "\n".join(list(diff)[:60]))
