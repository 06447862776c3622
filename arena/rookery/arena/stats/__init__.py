"""The arena's statistics: pure functions and values, no I/O.

- ``_ratings``: online Elo, Bradley–Terry with bootstrap intervals, OpenSkill for teams.
- ``_bradley_terry_numpy``: the vectorised Bradley–Terry fit (when numpy is installed).
- ``_sprt``: the generalised SPRT on duplicate pairs (fishtest's), ``_sprt_estimate`` its Elo.
"""

from __future__ import annotations

from rookery.arena.stats._ratings import (
    BradleyTerryFit,
    GameScore,
    OnlineElo,
    Rating,
    expected_score,
    fit_bradley_terry,
    numpy_available,
    team_ratings,
)
from rookery.arena.stats._sprt import SprtDecision, SprtParams, SprtTest

__all__ = [
    "BradleyTerryFit",
    "GameScore",
    "OnlineElo",
    "Rating",
    "SprtDecision",
    "SprtParams",
    "SprtTest",
    "expected_score",
    "fit_bradley_terry",
    "numpy_available",
    "team_ratings",
]
