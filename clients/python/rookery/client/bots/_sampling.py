"""Determinization: every seat's current cards, sampled consistently with one observation.

A thin adapter over the engine's ``sample_deal`` (own hand, cards seen played, voids shown,
nest and bury for the bidder, the called card's constraints), turning its "as dealt" deal into
what the search needs: each seat's cards now, and the nest (or the bury) and the dead pile.
"""

from __future__ import annotations

import random
from typing import NamedTuple

from rookery.engine import Observation, sample_deal

__all__ = ["Sample", "sample_hands"]


class Sample(NamedTuple):
    """Every seat's current cards; the nest (after the bury: the buried cards); the dead pile."""

    hands: list[int]
    nest: int
    dead: int


def sample_hands(obs: Observation, rng: random.Random) -> Sample:
    """One sample of every seat's current cards and of the cards out of every hand."""
    deal = sample_deal(obs, rng)
    played = 0
    for trick in obs.completed_tricks:
        for _, card in trick.cards:
            played |= 1 << card
    for _, card in obs.current_trick.cards:
        played |= 1 << card
    hands = [hand & ~played for hand in deal.hands]
    hands[obs.seat] = obs.hand
    return Sample(hands, deal.nest, deal.dead)
