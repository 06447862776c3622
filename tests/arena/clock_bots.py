"""A bot that spends a fixed amount of CPU time on every move, for the clock tests."""

from __future__ import annotations

import os
import random
import time

from rookery.client import Bot
from rookery.engine import Action, Observation

#: CPU milliseconds each move costs.
SPIN_MS = float(os.environ.get("SPIN_MS", "60"))


class SpinBot(Bot):
    """Burns ``SPIN_MS`` of CPU time, then plays a random legal action."""

    def __init__(self) -> None:
        self.rng = random.Random(3)

    def act(self, observation: Observation) -> Action:
        until = time.thread_time() + SPIN_MS / 1000.0
        while time.thread_time() < until:
            pass
        return observation.legal_actions().sample(self.rng)
