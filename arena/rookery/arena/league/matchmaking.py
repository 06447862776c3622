"""Which duplicate pair the league plays next: the pairing that settles the ranking most.

Pure functions over ratings (no I/O), so that the league, the tests and the simulations that
compare it with a round-robin all use the same choice.

- **Continuous play** (:func:`choose_pairing`): a version with fewer than ``min_pairs`` rated
  pairs goes first (new versions are placed quickly), against the version rated nearest to it;
  otherwise the pairing whose intervals overlap most, the overlap shared by how many pairs each
  side already has in flight, so that the budget spreads over the uncertain parts of the board.
- **Final evaluation** (:func:`final_pairing`, :func:`separations`): only neighbours in the
  ranking play, the unseparated neighbours nearest to separating first (the highest likelihood of
  superiority below the confidence, with a bonus for those with few final pairs), until every
  adjacent pair is separated at the season's confidence or the budget is spent.
"""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

__all__: list[str] = []  # the league's names are its package's (rookery.arena.league)

#: Rating differences within this many Elo are ties (one half), as in the ratings' own LOS.
_TIE_ELO = 1e-6


@dataclass(frozen=True)
class Placed:
    """A version as matchmaking sees it: its rating, interval and rated pairs so far."""

    version_id: str
    elo: float
    lower: float
    upper: float
    pairs: int
    submitted_at: float = 0.0


@dataclass(frozen=True)
class Separation:
    """What the statistics say of two neighbours of the ranking (``upper`` above ``lower``)."""

    upper: str
    lower: str
    #: The likelihood that ``upper`` is the stronger (bootstrap share of refits).
    los: float
    separated: bool


def _overlap(a: Placed, b: Placed) -> float:
    return min(a.upper, b.upper) - max(a.lower, b.lower)


def choose_pairing(
    field: Sequence[Placed],
    busy: Mapping[str, int],
    *,
    min_pairs: int = 3,
    exclude: Collection[str] = (),
) -> tuple[str, str] | None:
    """The next rated pairing among ``field`` (``None`` if fewer than two are free).

    ``busy`` counts the pairs each version has in flight; a version in ``exclude`` (its
    processes are full) is not chosen.
    """
    free = [p for p in field if p.version_id not in exclude]
    if len(free) < 2:
        return None
    newcomers = [p for p in free if p.pairs < min_pairs]
    if newcomers:
        # Newest first among those least placed: a fresh submission is rated at once.
        first = min(newcomers, key=lambda p: (p.pairs + busy.get(p.version_id, 0), -p.submitted_at))
        others = [p for p in free if p.version_id != first.version_id]
        second = min(
            others,
            key=lambda p: (busy.get(p.version_id, 0), abs(p.elo - first.elo), p.version_id),
        )
        return first.version_id, second.version_id
    best: tuple[float, str, str] | None = None
    ordered = sorted(free, key=lambda p: -p.elo)
    for i, a in enumerate(ordered):
        for b in ordered[i + 1 :]:
            overlap = _overlap(a, b)
            load = 1 + busy.get(a.version_id, 0) + busy.get(b.version_id, 0)
            # Separated pairs still get a little weight: the nearest of them, by the gap.
            score = overlap / load if overlap > 0 else overlap * load - 1e6
            if best is None or score > best[0]:
                best = (score, a.version_id, b.version_id)
    assert best is not None
    return best[1], best[2]


def centred_los(point_difference: float, differences: Sequence[float]) -> float:
    """The likelihood that ``a``, rated ``point_difference`` Elo above ``b`` by the fit, is the
    stronger: the share of bootstrap refits rating ``a`` above ``b`` (ties one half), their
    differences shifted so that their median is the fit's own difference.

    The refits' raw share can fall below ½ for two near-equal versions, the bootstrap's bias
    putting its median on the other side of the fit's difference; shifted, the share is ≥ ½
    exactly when the fit rates ``a`` above ``b``, so a ranking by rating never shows an upper
    neighbour less likely to be the stronger. Equal ratings, or no refits, are ½.

    >>> centred_los(10.0, [-3.0, -1.0, 2.0])  # raw share 1/3; shifted: 8, 10, 13
    1.0
    >>> centred_los(0.0, [-5.0, 5.0])
    0.5
    """
    if abs(point_difference) <= _TIE_ELO or not differences:
        return 0.5  # equal, or no refits to tell (under two pairs)
    shift = point_difference - statistics.median(differences)
    total = 0.0
    for difference in differences:
        shifted = difference + shift
        total += 0.5 if abs(shifted) <= _TIE_ELO else 1.0 if shifted > 0 else 0.0
    return total / len(differences)


def separations(
    ranked: Sequence[str], los: Mapping[tuple[str, str], float], confidence: float
) -> list[Separation]:
    """Each adjacent pair of ``ranked`` (best first) and whether it is separated."""
    result = []
    for upper, lower in itertools.pairwise(ranked):
        value = los.get((upper, lower), 0.5)
        result.append(Separation(upper, lower, value, value >= confidence))
    return result


def final_pairing(
    steps: Sequence[Separation],
    played: Mapping[frozenset[str], int],
    busy: Mapping[str, int],
) -> tuple[str, str] | None:
    """The final evaluation's next pair: the unseparated neighbours with the fewest final pairs
    (and neither side busy), or ``None`` when every neighbour pair is separated or busy."""
    open_steps = [
        s for s in steps if not s.separated and not busy.get(s.upper) and not busy.get(s.lower)
    ]
    if not open_steps:
        return None

    def pairs_of(step: Separation) -> int:
        return played.get(frozenset((step.upper, step.lower)), 0)

    # The neighbours nearest to separating go first (a pair whose LOS stays near ½ after many
    # games is most likely a true tie, and more games would be spent for nothing), with a bonus
    # for neighbours that have had few final pairs, so that none is left unexplored.
    step = max(
        open_steps,
        key=lambda s: (s.los + _EXPLORATION / math.sqrt(1 + pairs_of(s)), s.upper),
    )
    return step.upper, step.lower


#: How much a neighbour pair without final pairs is preferred (in LOS).
_EXPLORATION = 0.35
