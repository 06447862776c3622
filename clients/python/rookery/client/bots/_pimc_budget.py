"""pimc's knobs, its budget per decision and what a search reports (its note).

A decision's search stops when its samples or its time run out (:class:`_Budget`);
:func:`_sampled_totals` sums each candidate's worth over the samples the budget allows, and
:func:`search_note` writes a reply's note from the last search's :class:`SearchStats`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

__all__ = ["PimcParameters", "SearchStats", "search_note"]

_C = TypeVar("_C")
_S = TypeVar("_S")


@dataclass(frozen=True)
class PimcParameters:
    """The search's budget and knobs.

    ``time_budget``: seconds per decision (``None``: samples only); a sample the deadline
    interrupts is dropped, and with no complete sample the heuristic's choice is played.
    ``samples``: the most sampled deals per decision. Every ``prune_every`` samples, a card
    whose average worth trails the best by more than ``prune_margin`` is dropped (0: never).
    ``bury_candidates`` and ``call_candidates``: how many of the heuristic's best buries and
    calls are searched.
    ``pass_value``: the expected score difference of passing when no opponent can still bid;
    ``contested_value``: when an opponent holds the high bid, and ``open_value``: when opponents
    may still bid (both per 120 points of deck): what letting them play the hand is worth.
    ``overbid_partner``: how far above a partner's high bid its limit must reach to bid over it.
    ``auction_rollouts``: choose between passing and the lowest bid by rollouts of the rest of
    the auction (every seat bidding as the heuristic) instead of by the simulated bid limit.
    ``game_aware``: in the play and the exchange, value a hand by the side's resulting chance to
    win the game (two sides; ``win_chance``) rather than by the points alone.
    ``infer_tries``: draw the sampled deals in proportion to how well they explain the other
    seats' bids, passes and trump (``Inference``), rejecting up to this many draws per sample
    (0, the default: uniform samples; 8 measured no better against the heuristic);
    ``infer_spread``: how soft that reading is, in units of the heuristic model's residual
    spread.
    ``exchange_scale`` and ``bid_scale``: the trump, bury and call searches, and the bidding
    search, get this many times the samples and the time budget of a card to play (a hand has
    one exchange and a bid or two, but a dozen cards to play). ``trump_buries``: how many of
    the heuristic's best buries for each suit the trump search tries.
    ``endgame_tricks``: with this many tricks left or fewer (two sides), every candidate card
    is valued on every sample by solving the rest of the hand exactly (``EndgameSolver``)
    instead of by a heuristic playout (0: never).
    ``bid_nest_trump``: the bidding search plays each sample in the trump the heuristic would
    name on seeing that sample's nest (one playout a sample), not every suit for all samples.
    ``read_play_tries``: in the play, each sample is the likeliest of this many drawn deals, by
    how well it explains the opponents' cards so far as heuristic play (``play_likelihood``,
    each card the heuristic would not have played counting ``read_play_miss``); 0: one draw.
    """

    time_budget: float | None = 0.2
    samples: int = 10_000
    prune_every: int = 8
    prune_margin: float = 20.0
    bury_candidates: int = 4
    call_candidates: int = 4
    pass_value: float = 0.0
    contested_value: float = -35.0
    open_value: float = -15.0
    overbid_partner: int = 20
    auction_rollouts: bool = False
    game_aware: bool = True
    infer_tries: int = 0
    infer_spread: float = 0.5
    exchange_scale: float = 2.0
    bid_scale: float = 2.0
    trump_buries: int = 1
    endgame_tricks: int = 0
    bid_nest_trump: bool = True
    read_play_tries: int = 8
    read_play_miss: float = 0.25


@dataclass(frozen=True)
class SearchStats:
    """What the last decision's search did: sampled deals and seconds spent, the expected
    worth (mean over the samples) of the best and second-best candidates (``None``: no search,
    or a single candidate), and in the play the playouts (or solved positions) of the samples
    counted: one per candidate card still searched on each."""

    samples: int
    seconds: float
    best: float | None = None
    second: float | None = None
    playouts: int = 0


class _Budget:
    """Counts samples and time; ``more()`` says whether another sample fits."""

    __slots__ = ("_deadline", "_limit", "_start", "count")

    def __init__(self, samples: int, time_budget: float | None) -> None:
        self._start = time.perf_counter()
        self._deadline = None if time_budget is None else self._start + time_budget
        self._limit = max(samples, 1)
        self.count = 0

    @property
    def elapsed(self) -> float:
        return time.perf_counter() - self._start

    def more(self) -> bool:
        """Whether to start another sample: under the sample limit, and likely to finish."""
        if self.count >= self._limit:
            return False
        if self._deadline is None:
            return True
        now = time.perf_counter()
        per_sample = (now - self._start) / self.count if self.count else 0.0
        return now + per_sample / 2 < self._deadline

    def expired(self) -> bool:
        """Whether the time is up: the sample under way is then dropped."""
        return self._deadline is not None and time.perf_counter() > self._deadline


def search_note(search: SearchStats) -> tuple[str, dict[str, float]]:
    """A reply's note from its search: the text and the numbers (samples, ms, best, second).

    >>> text, values = search_note(SearchStats(400, 0.25, 0.5, 0.25))
    >>> text
    '400 samples: best 0.500, second 0.250'
    >>> values
    {'samples': 400, 'ms': 250.0, 'best': 0.5, 'second': 0.25}
    """
    if not search.samples:
        return "no search: a single choice or the heuristic's", {}
    values: dict[str, float] = {"samples": search.samples, "ms": round(search.seconds * 1000, 1)}
    text = f"{search.samples} samples"
    if search.best is not None and search.second is not None:
        values["best"] = search.best
        values["second"] = search.second
        text += f": best {search.best:.3f}, second {search.second:.3f}"
    return text, values


def _sampled_totals(
    budget: _Budget,
    candidates: Sequence[_C],
    sample: Callable[[], _S],
    worth: Callable[[_S, _C], float],
) -> list[float]:
    """Each candidate's worth summed over the samples the budget allows (``budget.count`` of
    them); a sample the deadline cuts short counts for no candidate."""
    totals = [0.0] * len(candidates)
    while budget.more():
        drawn = sample()
        values = []
        for candidate in candidates:
            if budget.expired():
                return totals
            values.append(worth(drawn, candidate))
        for index, value in enumerate(values):
            totals[index] += value
        budget.count += 1
    return totals
