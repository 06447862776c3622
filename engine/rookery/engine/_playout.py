"""Random playouts: whole games of uniformly random legal actions."""

from __future__ import annotations

import random

from ._choice import Game
from ._ruleset import Ruleset

__all__ = ["random_playout"]


def random_playout(ruleset: Ruleset, seed: int, rng: random.Random, *, events: bool = True) -> Game:
    """A finished game of ``ruleset`` seeded ``seed``, every action drawn uniformly with ``rng``.

    >>> game = random_playout(Ruleset.preset("straight"), 3, random.Random(3))
    >>> game.is_over
    True
    """
    game = Game(ruleset, seed, events=events)
    while not game.is_over:
        game.apply(game.legal_actions().sample(rng))
    return game
