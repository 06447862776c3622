"""Small SDK bots for the arena's tests: uniformly random, and a greedy one that is stronger."""

from __future__ import annotations

import os
import random
import sys

from rookery.client import Bot
from rookery.engine import Action, Bid, Observation, Pass, Phase, PlayCard, card_points


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


class SeededRandomBot(Bot):
    """A random legal action drawn from a generator seeded by the observation: deterministic.

    The same game (seed, seats, bots) gets the same actions in any process, on any machine, so
    two runs of a tournament can be compared action by action.
    """

    def act(self, observation: Observation) -> Action:
        return observation.legal_actions().sample(random.Random(repr(observation)))


class SeededGreedyBot(GreedyBot):
    """:class:`GreedyBot` with a generator seeded by the observation: deterministic."""

    def act(self, observation: Observation) -> Action:
        self.rng = random.Random(repr(observation))
        return super().act(observation)


class FlakyNotingBot(SeededRandomBot):
    """Deterministic; notes every move, and its ``act`` raises on the third trick of every hand
    (the SDK then plays its fallback, marked as one)."""

    def act(self, observation: Observation) -> Action:
        if observation.phase is Phase.PLAY and len(observation.completed_tricks) == 2:
            raise ValueError("no card for the third trick")
        self.note(f"hand {observation.hand_number} seat {observation.seat}", moves=1)
        return super().act(observation)


class AddressBot(GreedyBot):
    """:class:`GreedyBot` that writes where it was told the server is (``ROOKERY_SERVER``) to its
    log, once."""

    said = False

    def act(self, observation: Observation) -> Action:
        if not AddressBot.said:
            AddressBot.said = True
            print(f"server at {os.environ.get('ROOKERY_SERVER', '')}", file=sys.stderr, flush=True)
        return super().act(observation)
