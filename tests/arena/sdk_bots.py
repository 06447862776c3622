"""Small SDK bots for the arena's tests: uniformly random, and a greedy one that is stronger."""

from __future__ import annotations

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
    """Never bids beyond the minimum, and plays its highest-point card: beats random."""

    def __init__(self) -> None:
        self.rng = random.Random()

    def act(self, observation: Observation) -> Action:
        legal = observation.legal_actions()
        actions = list(legal) if len(legal) < 200 else [legal.sample(self.rng)]
        bids = [a for a in actions if isinstance(a, Bid)]
        if bids or any(isinstance(a, Pass) for a in actions):
            if not observation.auction and bids:
                return min(bids, key=lambda b: b.amount)
            return Pass() if any(isinstance(a, Pass) for a in actions) else bids[0]
        plays = [a for a in actions if isinstance(a, PlayCard)]
        if plays:
            return max(plays, key=lambda p: (card_points(p.card), p.card))
        return actions[0]
