"""The benchmarks' fast deterministic bot, launched by the arena benchmark as a real process.

Opens the auction at the minimum, passes after; otherwise the first legal action (what
``server_bench.py``'s SDK bots do).
"""

from __future__ import annotations

from rookery.client import Bot
from rookery.engine import Action, Bid, Observation, Phase


class FastBot(Bot):
    """The first legal action, bidding the minimum once."""

    def act(self, observation: Observation) -> Action:
        legal = observation.legal_actions()
        if observation.phase is Phase.BIDDING and observation.high_bid == 0 and legal.bids:
            return Bid(legal.bids[0])
        return legal[0]
