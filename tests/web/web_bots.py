"""Bots of the web tests: random, a greedy one that beats random, a weak one, and a slow one."""

from __future__ import annotations

import asyncio
import random

from rookery.client import Bot
from rookery.engine import Action, Bid, Observation, Pass, PlayCard, card_points


class RandomBot(Bot):
    """A uniformly random legal action."""

    def __init__(self) -> None:
        self.rng = random.Random()

    def act(self, observation: Observation) -> Action:
        return observation.legal_actions().sample(self.rng)


class GreedyBot(Bot):
    """Opens at the minimum bid, then passes; plays its highest-point card: beats random."""

    def __init__(self) -> None:
        self.rng = random.Random()

    def act(self, observation: Observation) -> Action:
        legal = observation.legal_actions()
        actions = list(legal) if len(legal) < 200 else [legal.sample(self.rng)]
        bids = [a for a in actions if isinstance(a, Bid)]
        can_pass = any(isinstance(a, Pass) for a in actions)
        if bids or can_pass:
            if not observation.auction and bids:
                return min(bids, key=lambda b: b.amount)
            return Pass() if can_pass else bids[0]
        plays = [a for a in actions if isinstance(a, PlayCard)]
        if plays:
            return max(plays, key=lambda p: (card_points(p.card), p.card))
        return actions[0]


class SlowBot(RandomBot):
    """Random, but thinks for a while before each action, so that a page can watch the game."""

    delay_s = 0.04

    async def act(self, observation: Observation) -> Action:  # type: ignore[override]
        await asyncio.sleep(self.delay_s)
        return observation.legal_actions().sample(self.rng)


class FirstBot(Bot):
    """Always the first legal action: passes every auction, plays its lowest card."""

    def act(self, observation: Observation) -> Action:
        return observation.legal_actions()[0]
