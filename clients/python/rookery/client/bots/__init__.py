"""Rookery's reference bots: ``random``, ``heuristic`` and ``pimc``.

Each bot's core is a pure policy over the engine, ``policy(observation, legal, rng) -> action``,
testable and fast without a network (``POLICIES``); each is also an SDK ``Bot`` (``BOTS``) that
``rookery bot run`` launches: ``rookery bot run rookery.client.bots.pimc:PimcBot``.

>>> sorted(BOTS)
['heuristic', 'pimc', 'random']
>>> bot_command("pimc")
'rookery bot run rookery.client.bots.pimc:PimcBot'

pimc draws its samples and plays them out on the native core where the engine runs on it
(``rookery.engine.sample_deals`` and ``HeuristicPlayouts``); the Python playout model (``_play``,
``_simulate``) is the readable reference and the fallback.
"""

from __future__ import annotations

from collections.abc import Callable

from ._match import Policy, play_game
from .heuristic import HeuristicBot, HeuristicParameters, HeuristicPolicy
from .pimc import PimcBot, PimcParameters, PimcPolicy, SearchStats
from .random_bot import RandomBot, random_policy

__all__ = [
    "BOTS",
    "POLICIES",
    "HeuristicBot",
    "HeuristicParameters",
    "HeuristicPolicy",
    "PimcBot",
    "PimcParameters",
    "PimcPolicy",
    "Policy",
    "RandomBot",
    "SearchStats",
    "bot_command",
    "bot_reference",
    "play_game",
    "random_policy",
]

BOTS: dict[str, type[RandomBot | HeuristicBot | PimcBot]] = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
    "pimc": PimcBot,
}
"""The reference bots by short name: SDK ``Bot`` classes (``rookery bot run`` and the arena)."""

POLICIES: dict[str, Callable[[], Policy]] = {
    "random": lambda: random_policy,
    "heuristic": HeuristicPolicy,
    "pimc": PimcPolicy,
}
"""Factories of the reference bots' policies by short name, for in-process games."""


def bot_reference(name: str) -> str:
    """The ``module:Class`` reference of the reference bot ``name`` (``KeyError`` if unknown)."""
    bot = BOTS[name]
    return f"{bot.__module__}:{bot.__qualname__}"


def bot_command(name: str) -> str:
    """The command line that launches the reference bot ``name`` as a process."""
    return f"rookery bot run {bot_reference(name)}"
