"""``PolicyBot``: an SDK ``Bot`` that answers every request with a policy."""

from __future__ import annotations

import random

from rookery.client import Bot, Table
from rookery.engine import Action, Observation

from ._match import Policy

__all__ = ["PolicyBot"]


class PolicyBot(Bot):
    """A ``Bot`` driven by ``policy(observation, legal, rng)``; its generator is seeded per table.

    The generator's seed is ``"{seed}:{table.bot_seed}"``: the server's per-seat bot seed, so the
    same tournament plays the same game again on a rerun, a resume or another backend. From a server
    that sends no bot seed it is ``"{seed}:{table_id}:{seat}"`` (different between tables).
    """

    def __init__(self, policy: Policy, *, seed: int = 0) -> None:
        self.policy = policy
        self.seed = seed
        self.rng = random.Random(seed)

    def on_table_joined(self, table: Table) -> None:
        if table.bot_seed:
            self.rng.seed(f"{self.seed}:{table.bot_seed}")
        else:
            self.rng.seed(f"{self.seed}:{table.table_id}:{table.seat}")

    def act(self, observation: Observation) -> Action:
        return self.policy(observation, observation.legal_actions(), self.rng)
