"""What a hand and a game come to: scores, winners, and why the game ended."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from ._cards import Suit
from ._deal import Deal

__all__ = ["GameResult", "HandResult", "HandScore", "Termination"]


class Termination(Enum):
    """Why a game ended."""

    TARGET_REACHED = "TARGET_REACHED"
    """A side reached the target after a scored hand and won under the ``both_over`` policy."""
    MAX_HANDS = "MAX_HANDS"
    """``max_hands`` hands (redeals included) were dealt: the highest score wins; a tie draws."""
    FORFEIT = "FORFEIT"
    """A seat forfeited (the server records which and why): every other side wins jointly."""
    ABORTED = "ABORTED"
    """The game was stopped without a result: nobody wins."""


@dataclass(frozen=True, slots=True)
class HandScore:
    """What the rules make of one played hand's points (``score_hand``).

    ``bidding_total`` is the bidding side's count (its tricks, the last trick's bonus if it won
    it, and the buried cards); ``made`` whether it reached the bid; ``points_per_side`` what each
    side counted; ``score_deltas`` each side's score change (the bidding side's total, or minus
    the bid when set; every other side what it counted); ``bidding_sides`` the sides the bidding
    seats belong to (with scores per player: the bidder's and its partner's).
    """

    made: bool
    bidding_total: int
    points_per_side: tuple[int, ...]
    score_deltas: tuple[int, ...]
    bidding_sides: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class HandResult:
    """The outcome of one hand, everything revealed.

    ``points_per_side`` is what each side counted: the points of the tricks its members won, the
    ``last_trick_bonus`` if it won the last trick, and for the bidder's side (for the bidder's own
    seat when scores are per player) the buried cards. ``bidding_total`` is the bidding side's
    count (bidder plus called partner). A void hand of an all-pass redeal has ``redeal = True``,
    ``bidder = -1`` and all deltas 0.
    """

    hand_number: int
    dealer: int
    bidder: int
    bid: int
    forced: bool
    trump: Suit | None
    made: bool
    bidding_total: int
    points_per_side: tuple[int, ...]
    score_deltas: tuple[int, ...]
    scores_after: tuple[int, ...]
    deal: Deal
    buried: int
    called_card: int
    partner: int
    redeal: bool


@dataclass(frozen=True, slots=True)
class GameResult:
    """The outcome of a game: the winning sides (empty for a draw or an abort) and final scores."""

    winners: tuple[int, ...]
    scores: tuple[int, ...]
    hands_played: int
    reason: Termination

    @property
    def is_draw(self) -> bool:
        """Whether nobody won."""
        return not self.winners
