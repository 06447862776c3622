"""Rookery's reference bots: ``random``, ``heuristic`` and ``pimc``.

Each bot's core is a pure policy over the engine, ``policy(observation, legal, rng) -> action``,
testable and fast without a network.
"""

from ._match import Policy, play_game
from .heuristic import HeuristicParameters, HeuristicPolicy
from .random_bot import random_policy

__all__ = [
    "HeuristicParameters",
    "HeuristicPolicy",
    "Policy",
    "play_game",
    "random_policy",
]
