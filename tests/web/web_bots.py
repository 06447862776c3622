"""Bots of the web tests: random, a greedy one that beats random, a weak one, and a slow one."""

from __future__ import annotations

import asyncio
import random
import time

from rookery.client import Bot
from rookery.engine import (
    Action,
    Bid,
    Observation,
    Pass,
    Phase,
    PlayCard,
    card_points,
    format_cards,
)

#: Every note the web bots write starts with this, so that a test can look for it anywhere.
NOTE_MARK = "private-note"


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
            self.note(f"{NOTE_MARK} greedy: highest points", options=len(plays))
            return max(plays, key=lambda p: (card_points(p.card), p.card))
        return actions[0]


class SlowBot(RandomBot):
    """Random, but thinks for a while before each action, so that a page can watch the game."""

    delay_s = 0.04

    async def act(self, observation: Observation) -> Action:  # type: ignore[override]
        await asyncio.sleep(self.delay_s)
        # The note names the seat's own cards: nobody else may read it before the hand is scored.
        self.note(f"{NOTE_MARK} {format_cards(observation.hand)}")
        return observation.legal_actions().sample(self.rng)


class FirstBot(Bot):
    """Always the first legal action: passes every auction, plays its lowest card.

    Its ``act`` raises on the third trick of each hand: the SDK's fallback (the first legal
    action too, so the games are the same) is then marked as a fallback in the replay. It thinks
    ``delay_s`` a move (wall time), so that the tournament's games last long enough for its page
    to be seen listing them as they are played (without it, the whole round-robin can end
    between two reloads of the page)."""

    delay_s = 0.01

    def act(self, observation: Observation) -> Action:
        time.sleep(self.delay_s)
        if observation.phase is Phase.PLAY and len(observation.completed_tricks) == 2:
            raise ValueError("first bot fails on trick 3")
        return observation.legal_actions()[0]
