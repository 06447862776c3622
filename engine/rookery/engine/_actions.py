"""The six kinds of action, the phases of a hand, and their text forms."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import TypeAlias

from ._cards import NUM_CARDS, Suit, card_name, format_cards, parse_card, parse_cards
from ._errors import CardParseError, MalformedActionError

__all__ = [
    "PASS",
    "PLAY",
    "TRUMP",
    "Action",
    "Bid",
    "Bury",
    "CallCard",
    "NameTrump",
    "Pass",
    "Phase",
    "PlayCard",
    "bid_action",
    "parse_action",
]


class Phase(Enum):
    """What the game is waiting for."""

    BIDDING = "BIDDING"
    """The auction: the player to act bids or passes."""
    NAME_TRUMP = "NAME_TRUMP"
    """The bidder names the trump suit."""
    BURY = "BURY"
    """The bidder, holding the nest, buries ``nest_size`` cards."""
    CALL = "CALL"
    """The bidder calls a card (``partnership = CALLED``)."""
    PLAY = "PLAY"
    """Tricks are being played."""
    GAME_OVER = "GAME_OVER"
    """The game has ended; nobody acts."""


@dataclass(frozen=True, slots=True)
class Bid:
    """Bid ``amount`` points in the auction."""

    amount: int

    def __str__(self) -> str:
        return f"bid {self.amount}"


@dataclass(frozen=True, slots=True)
class Pass:
    """Pass in the auction (and take no further part in it)."""

    def __str__(self) -> str:
        return "pass"


@dataclass(frozen=True, slots=True)
class NameTrump:
    """Name ``suit`` as trump (bidder only)."""

    suit: Suit

    def __str__(self) -> str:
        return f"trump {Suit(self.suit).letter}"


@dataclass(frozen=True, slots=True)
class Bury:
    """Bury the cards of the mask ``cards`` face down (bidder only; exactly ``nest_size``)."""

    cards: int

    def __str__(self) -> str:
        return f"bury {format_cards(self.cards)}".rstrip()


@dataclass(frozen=True, slots=True)
class CallCard:
    """Call ``card``: its holder becomes the bidder's secret partner (``CALLED`` only)."""

    card: int

    def __str__(self) -> str:
        return f"call {card_name(self.card)}"


@dataclass(frozen=True, slots=True)
class PlayCard:
    """Play ``card`` to the current trick."""

    card: int

    def __str__(self) -> str:
        return f"play {card_name(self.card)}"


Action: TypeAlias = Bid | Pass | NameTrump | Bury | CallCard | PlayCard
"""Any action a player can take."""

PASS = Pass()
"""The one ``Pass`` action (any ``Pass()`` compares equal to it)."""
PLAY: tuple[PlayCard, ...] = tuple(PlayCard(card) for card in range(NUM_CARDS))
"""``PLAY[card]``: prebuilt ``PlayCard`` actions for the hot path."""
TRUMP: tuple[NameTrump, ...] = tuple(NameTrump(suit) for suit in Suit)
"""``TRUMP[suit]``: prebuilt ``NameTrump`` actions."""
_BIDS: dict[int, Bid] = {}


def bid_action(amount: int) -> Bid:
    """A shared ``Bid(amount)`` instance (bids are interned as they are first used)."""
    action = _BIDS.get(amount)
    if action is None:
        action = _BIDS[amount] = Bid(amount)
    return action


def parse_action(text: str) -> Action:
    """The action whose text form is ``text``: ``bid 75``, ``pass``, ``trump R``,
    ``bury B5 R10 …``, ``call G14``, ``play ROOK``.

    >>> parse_action("play r14"), str(parse_action("bury B5 ROOK"))
    (PlayCard(card=27), 'bury B5 ROOK')
    """
    if not isinstance(text, str):
        raise MalformedActionError(f"an action's text form must be a str, got {text!r}")
    words = text.split()
    if not words:
        raise MalformedActionError("empty action text")
    verb, args = words[0].lower(), words[1:]
    try:
        if verb == "pass" and not args:
            return PASS
        if verb == "bid" and len(args) == 1:
            if not (args[0].isascii() and args[0].isdigit()):
                raise MalformedActionError(f"bid amount is not a number: {args[0]!r}")
            return bid_action(int(args[0]))
        if verb == "trump" and len(args) == 1:
            return TRUMP[Suit.from_letter(args[0])]
        if verb == "bury":
            if not args:
                raise MalformedActionError("malformed action 'bury': name the cards to bury")
            return Bury(parse_cards(" ".join(args)))
        if verb == "call" and len(args) == 1:
            return CallCard(parse_card(args[0]))
        if verb == "play" and len(args) == 1:
            return PLAY[parse_card(args[0])]
    except CardParseError as error:
        raise MalformedActionError(f"malformed action {text!r}: {error}") from None
    raise MalformedActionError(
        f"not an action: {text!r} (expected pass, bid N, trump S, bury CARDS, call CARD, play CARD)"
    )
