"""Bots that make all-pass redeals happen in one game of a duplicate pair and not in its twin.

``RookBidder`` bids the minimum only while holding the Rook, ``Passer`` never bids: a hand is
redealt exactly when the Rook lies with a ``Passer`` seat or in the nest, so the two games of a
pair (sides swapped) mostly disagree on which hands are redealt.
"""

from __future__ import annotations

from rookery.client import Bot
from rookery.engine import PASS, ROOK, Action, Bid, Observation


class Passer(Bot):
    """Passes every auction; otherwise the first legal action."""

    def act(self, observation: Observation) -> Action:
        legal = observation.legal_actions()
        return PASS if legal.can_pass else next(iter(legal))


class RookBidder(Bot):
    """Bids the minimum while holding the Rook, else passes; otherwise the first legal action."""

    def act(self, observation: Observation) -> Action:
        legal = observation.legal_actions()
        if legal.bids and observation.hand >> ROOK & 1:
            return Bid(legal.bids[0])
        return PASS if legal.can_pass else next(iter(legal))
