"""Fixtures for the reference bots' tests: in-process games on the engine, no network."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import pytest
from rookery.client.bots import Policy
from rookery.engine import Game, Ruleset

GameRunner = Callable[[Ruleset, int, Sequence[Policy]], Game]


def run_checked_game(ruleset: Ruleset, seed: int, policies: Sequence[Policy]) -> Game:
    """Play one game, asserting before each action that the policy chose a legal action."""
    game = Game(ruleset, seed, events=False)
    rngs = [random.Random(f"{seed}:{seat}") for seat in range(ruleset.players)]
    while not game.is_over:
        seat = game.current_player
        assert seat is not None
        obs = game.observation_for(seat)
        legal = obs.legal_actions()
        action = policies[seat](obs, legal, rngs[seat])
        assert action in legal, f"{ruleset.name} seed {seed} seat {seat}: illegal {action}"
        assert game.is_legal(action)
        game.apply(action)
    return game


@pytest.fixture
def checked_game() -> GameRunner:
    """Plays a game to its end, failing on the first illegal action."""
    return run_checked_game
