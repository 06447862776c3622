"""Fixtures for the wire tests: games driven by seeded random players."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

import pytest
from rookery.engine import Game, Ruleset

#: Play a game and yield it after every action: ``states(preset, seed, max_actions)``.
GameStates = Callable[[str, int, int], Iterator[Game]]


def _states(preset: str, seed: int, max_actions: int) -> Iterator[Game]:
    game = Game(Ruleset.preset(preset), seed)
    rng = random.Random(seed)
    yield game
    for _ in range(max_actions):
        if game.is_over:
            return
        game.apply(game.legal_actions().sample(rng))
        yield game


@pytest.fixture
def game_states() -> GameStates:
    """Seeded random play: a generator of the game after each action (the same object)."""
    return _states


@pytest.fixture
def short_ruleset() -> Callable[[str], Ruleset]:
    """A preset with a low target, so that random play finishes a game in a few hands."""

    def make(preset: str) -> Ruleset:
        return Ruleset.preset(preset).replace(target=100, max_hands=6)

    return make
