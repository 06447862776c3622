"""The random bot: a uniformly random legal action, from a seeded generator."""

from __future__ import annotations

import random

from rookery.engine import Action, LegalActions, Observation

__all__ = ["random_policy"]


def random_policy(obs: Observation, legal: LegalActions, rng: random.Random) -> Action:
    """One legal action drawn uniformly with ``rng`` (a bury: uniformly among every combination)."""
    return legal.sample(rng)
