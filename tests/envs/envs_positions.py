"""Positions for the learning environments' tests: every preset, seeded random tables."""

from __future__ import annotations

import random

from rookery.engine import PRESETS, Ruleset
from rookery.envs._core import RookTable, episode_rules

ALL_PRESETS = sorted(PRESETS)


def table_at_random_point(name: str, seed: int, steps: int) -> RookTable:
    """A one-hand table of preset ``name`` after ``steps`` random legal ids (or at its end)."""
    table = RookTable.new(episode_rules(Ruleset.preset(name), 1), seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if table.is_over:
            break
        table.step(rng.choice(table.legal_ids()))
    return table
