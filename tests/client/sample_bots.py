"""Bots the SDK tests run as processes: `rookery bot run tests/client/sample_bots.py:NAME`."""

from __future__ import annotations

import asyncio
import random

from rookery.client import Bot, Table
from rookery.engine import Action, Bid, Observation, Phase


class Simple(Bot):
    """Deterministic: opens the auction at the minimum, else passes; otherwise the first action."""

    def act(self, observation: Observation) -> Action:
        legal = observation.legal_actions()
        if observation.phase is Phase.BIDDING and observation.high_bid == 0 and legal.bids:
            return Bid(legal.bids[0])
        return legal[0]


class Random(Simple):
    """Bids like ``Simple`` (so games end in a few hands); otherwise uniformly random legal
    actions, from a generator seeded by the table and seat."""

    def on_table_joined(self, table: Table) -> None:
        self.rng = random.Random(f"{table.table_id}:{table.seat}")

    def act(self, observation: Observation) -> Action:
        if observation.phase is Phase.BIDDING:
            return super().act(observation)
        return observation.legal_actions().sample(self.rng)


class Steady(Bot):
    """A random bot that thinks for a few milliseconds per action, so a game lasts seconds."""

    def on_table_joined(self, table: Table) -> None:
        self.rng = random.Random(f"{table.table_id}:{table.seat}")

    async def act(self, observation: Observation) -> Action:
        await asyncio.sleep(0.004)
        legal = observation.legal_actions()
        if observation.phase is Phase.BIDDING:
            return Bid(legal.bids[0]) if observation.high_bid == 0 and legal.bids else legal[0]
        return legal.sample(self.rng)


class Raising(Bot):
    """Raises in every hook: the runner must play legal fallbacks for it all game."""

    def act(self, observation: Observation) -> Action:
        raise RuntimeError("this bot always fails")


class Illegal(Bot):
    """Answers with actions that are never legal: the runner must replace them."""

    def act(self, observation: Observation) -> Action:
        return Bid(3)
