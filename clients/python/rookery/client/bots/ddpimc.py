"""Double-dummy pimc: pimc whose samples are valued by the native core's double-dummy solver.

The GIB approach: in the play, each sampled deal's rest of the hand is solved exactly (both
sides perfect, the native core's ``rookery.engine.DoubleDummy``) instead of played out by the
heuristic, as soon as the hand has ``dd_tricks`` tricks left or fewer and the solver applies
(two fixed sides). A sample whose search passes ``node_limit`` nodes is played out by the
heuristic instead, so a decision keeps its time budget. Before that point, and in the auction
and the exchange, it is today's pimc. One solver serves every sample of a decision (its table is
keyed by holdings).
"""

from __future__ import annotations

import dataclasses
import random

from rookery.engine import DoubleDummy, Observation

from ._sampling import Sample
from ._simulate import HandSimulation
from ._solve import solvable
from .pimc import (
    CardValues,
    PimcParameters,
    PimcPolicy,
    _base,
    _Budget,
    _each_card,
    _finish,
    distinct_cards,
)

__all__ = ["DdPimcParameters", "DdPimcPolicy"]


@dataclasses.dataclass(frozen=True)
class DdPimcParameters(PimcParameters):
    """pimc's parameters, and: ``dd_tricks``, the tricks left from which samples are solved;
    ``node_limit``, the most nodes one sample's search may take (0: no limit)."""

    dd_tricks: int = 7
    node_limit: int = 200_000


class DdPimcPolicy(PimcPolicy):
    """pimc with double-dummy valued samples in the play's last ``dd_tricks`` tricks."""

    def __init__(self, parameters: DdPimcParameters | None = None) -> None:
        super().__init__(parameters or DdPimcParameters())
        self.dd = parameters or DdPimcParameters()
        self.solved = 0
        self.unsolved = 0

    def play(self, obs: Observation, legal: int, rng: random.Random) -> int:
        tricks_left = obs.ruleset.hand_size - len(obs.completed_tricks)
        if tricks_left > self.dd.dd_tricks or not solvable(obs.ruleset):
            return super().play(obs, legal, rng)
        cards = distinct_cards(obs, legal)
        if len(cards) == 1:
            return cards[0]
        return self.search_cards(obs, legal, cards, rng, self._double_dummy_values(obs))

    def _double_dummy_values(self, obs: Observation) -> CardValues:
        """A sample's worth per card by the double-dummy solver (one per bidding side); a
        sample past ``node_limit`` nodes is played out by the heuristic instead."""
        solvers: dict[int, DoubleDummy] = {}
        rules = obs.ruleset

        def values(sample: Sample, cards: list[int], budget: _Budget) -> list[float] | None:
            base = _base(obs, sample)
            solver = solvers.get(base.bidding_mask)
            if solver is None:
                solver = DoubleDummy(
                    base.players,
                    base.trump,
                    base.bidding_mask,
                    rook_free_play=rules.rook_free_play,
                    last_trick_bonus=rules.last_trick_bonus,
                    node_limit=self.dd.node_limit,
                )
                solvers[base.bidding_mask] = solver

            def finish(sim: HandSimulation) -> None:
                try:
                    points = solver.solve(sim.hands, sim.leader, [c for _, c in sim.trick])
                except ValueError:
                    self.unsolved += 1
                    sim.play_out()
                else:
                    self.solved += 1
                    _finish(sim, points)

            return _each_card(self, obs, base, cards, budget, finish)

        return values
