"""A league test bot of known strength: the heuristic move with probability p, else random.

``p`` is read from ``strength.txt`` next to this file, so that each version's folder (and its
content hash) differs by that one number.
"""

from __future__ import annotations

import random
from pathlib import Path

from rookery.client import Bot, Table
from rookery.client.bots import HeuristicPolicy, random_policy
from rookery.engine import Action, Observation

STRENGTH = float((Path(__file__).parent / "strength.txt").read_text().strip())


class MixBot(Bot):
    """Plays the heuristic move with probability ``STRENGTH``, else a random legal one."""

    def __init__(self) -> None:
        self.heuristic = HeuristicPolicy()
        self.rng = random.Random(0)

    def on_table_joined(self, table: Table) -> None:
        self.rng.seed(f"{table.bot_seed or table.table_id}:{table.seat}")

    def act(self, observation: Observation) -> Action:
        legal = observation.legal_actions()
        if self.rng.random() < STRENGTH:
            return self.heuristic(observation, legal, self.rng)
        return random_policy(observation, legal, self.rng)
