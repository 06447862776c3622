"""A bot that joins its table and dies at its first move: it cannot qualify."""

from __future__ import annotations

import os

from rookery.client import Bot
from rookery.engine import Action, Observation


class CrashBot(Bot):
    """Exits the process when asked to act."""

    def act(self, observation: Observation) -> Action:
        os._exit(3)
