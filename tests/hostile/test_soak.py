"""A small soak (``bench/soak.py``, what ``make soak`` runs at full size) within a minute."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SOAK = Path(__file__).parents[2] / "bench" / "soak.py"


def test_a_short_soak_plays_every_game_normally_with_bounded_memory() -> None:
    done = subprocess.run(
        [sys.executable, str(SOAK), "--games", "20", "--concurrency", "10",
         "--duration", "45", "--interval", "5", "--max-growth-mib", "64"],
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    summary = done.stdout.strip().splitlines()[-1]
    assert summary.startswith("soak: 20 games"), done.stdout
