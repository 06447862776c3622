"""Events: everything that happens at a table, in order, with what each seat may see of it.

Every event carries ``seq`` (1-based position in the game's event list) and ``hand_number``.
``event.view(seat)`` is the event as ``seat`` may see it (``None``: a spectator); an event without
private content is its own view.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TypeAlias

from ._cards import Suit
from ._results import GameResult, HandResult

__all__ = [
    "AuctionWon",
    "BidMade",
    "CardCalled",
    "CardPlayed",
    "CardsBuried",
    "Event",
    "EventBase",
    "GameOver",
    "HandDealt",
    "HandRedealt",
    "HandScored",
    "NestTaken",
    "PartnerRevealed",
    "Passed",
    "TrickWon",
    "TrumpNamed",
]


@dataclass(frozen=True, slots=True)
class EventBase:
    """Fields common to every event."""

    seq: int
    hand_number: int

    def view(self, seat: int | None) -> EventBase:
        """This event as ``seat`` may see it (``None`` or -1: a spectator)."""
        return self


@dataclass(frozen=True, slots=True)
class HandDealt(EventBase):
    """A hand was dealt; ``hands[s]`` is seat ``s``'s cards (a seat's view shows only its own)."""

    dealer: int
    hands: tuple[int, ...]

    def view(self, seat: int | None) -> HandDealt:
        hands = tuple(hand if index == seat else 0 for index, hand in enumerate(self.hands))
        return dataclasses.replace(self, hands=hands)


@dataclass(frozen=True, slots=True)
class BidMade(EventBase):
    """``seat`` bid ``amount``."""

    seat: int
    amount: int


@dataclass(frozen=True, slots=True)
class Passed(EventBase):
    """``seat`` passed and is out of the auction."""

    seat: int


@dataclass(frozen=True, slots=True)
class AuctionWon(EventBase):
    """``seat`` is the bidder at ``amount``; ``forced`` when the dealer was forced (all passed)."""

    seat: int
    amount: int
    forced: bool


@dataclass(frozen=True, slots=True)
class HandRedealt(EventBase):
    """Every player passed: the hand is void and ``dealer`` deals again."""

    dealer: int


@dataclass(frozen=True, slots=True)
class NestTaken(EventBase):
    """The bidder ``seat`` picked up the ``count`` nest cards (their faces only for the bidder)."""

    seat: int
    cards: int
    count: int

    def view(self, seat: int | None) -> NestTaken:
        return self if seat == self.seat else dataclasses.replace(self, cards=0)


@dataclass(frozen=True, slots=True)
class TrumpNamed(EventBase):
    """The bidder ``seat`` named ``suit`` trump."""

    seat: int
    suit: Suit


@dataclass(frozen=True, slots=True)
class CardsBuried(EventBase):
    """The bidder ``seat`` buried ``count`` cards (their faces only for the bidder)."""

    seat: int
    cards: int
    count: int

    def view(self, seat: int | None) -> CardsBuried:
        return self if seat == self.seat else dataclasses.replace(self, cards=0)


@dataclass(frozen=True, slots=True)
class CardCalled(EventBase):
    """The bidder ``seat`` called ``card``: its holder is the secret partner."""

    seat: int
    card: int


@dataclass(frozen=True, slots=True)
class PartnerRevealed(EventBase):
    """The called card was played: ``seat`` is the bidder's partner."""

    seat: int


@dataclass(frozen=True, slots=True)
class CardPlayed(EventBase):
    """``seat`` played ``card``."""

    seat: int
    card: int


@dataclass(frozen=True, slots=True)
class TrickWon(EventBase):
    """``seat`` won trick ``trick_index`` (0-based in the hand), worth ``points``."""

    seat: int
    points: int
    trick_index: int


@dataclass(frozen=True, slots=True)
class HandScored(EventBase):
    """The hand was scored; everything about it is revealed."""

    result: HandResult


@dataclass(frozen=True, slots=True)
class GameOver(EventBase):
    """The game ended."""

    result: GameResult


Event: TypeAlias = (
    HandDealt
    | BidMade
    | Passed
    | AuctionWon
    | HandRedealt
    | NestTaken
    | TrumpNamed
    | CardsBuried
    | CardCalled
    | PartnerRevealed
    | CardPlayed
    | TrickWon
    | HandScored
    | GameOver
)
"""Any event."""
