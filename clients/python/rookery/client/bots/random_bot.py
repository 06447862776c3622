"""The random bot: a uniformly random legal action, from a seeded generator."""

from __future__ import annotations

import random

from rookery.engine import Action, LegalActions, Observation

from ._bot import PolicyBot

__all__ = ["RandomBot", "random_policy"]


def random_policy(obs: Observation, legal: LegalActions, rng: random.Random) -> Action:
    """One legal action drawn uniformly with ``rng`` (a bury: uniformly among every combination)."""
    return legal.sample(rng)


class RandomBot(PolicyBot):
    """The ``random`` reference bot: a uniformly random legal action, seeded per table."""

    def __init__(self, *, seed: int = 0) -> None:
        super().__init__(random_policy, seed=seed)
