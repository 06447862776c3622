"""In-process games between policies on the engine: no network, for tests and the ladder."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from rookery.engine import Action, Game, GameResult, LegalActions, Observation, Ruleset

__all__ = ["Policy", "play_game"]

Policy = Callable[[Observation, LegalActions, random.Random], Action]
"""A bot's core: ``policy(observation, legal_actions, rng) -> action``."""


def play_game(
    ruleset: Ruleset, seed: int, policies: Sequence[Policy], *, rng_seed: int = 0
) -> GameResult:
    """Play one game, seat ``s`` choosing with ``policies[s]``; each seat has its own generator.

    Raises the engine's error if a policy returns an illegal action.
    """
    if len(policies) != ruleset.players:
        raise ValueError(f"{ruleset.name} needs {ruleset.players} policies, got {len(policies)}")
    game = Game(ruleset, seed, events=False)
    rngs = [random.Random(f"{rng_seed}:{seed}:{seat}") for seat in range(ruleset.players)]
    while not game.is_over:
        seat = game.current_player
        assert seat is not None
        obs = game.observation_for(seat)
        game.apply(policies[seat](obs, obs.legal_actions(), rngs[seat]))
    assert game.result is not None
    return game.result
