"""What one seat may know at one moment, and the tricks it has seen."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ._actions import Phase
from ._builders import positional_builder
from ._cards import Suit, card_name, format_cards
from ._legal import LegalActions, legal_play_mask
from ._ruleset import Ruleset

__all__ = ["Observation", "Trick", "new_observation", "new_trick"]


@dataclass(frozen=True, slots=True)
class Trick:
    """A trick: who led, the cards played in order as ``(seat, card)``, and who won it.

    ``winner`` is -1 while the trick is open; ``points`` counts the cards played so far.
    """

    leader: int
    cards: tuple[tuple[int, int], ...]
    winner: int
    points: int

    def __str__(self) -> str:
        played = " ".join(f"{seat}:{card_name(card)}" for seat, card in self.cards)
        won = f" -> {self.winner} (+{self.points})" if self.winner >= 0 else ""
        return f"led by {self.leader}: {played}{won}"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict (cards as text forms)."""
        return {
            "leader": self.leader,
            "cards": [[seat, card_name(card)] for seat, card in self.cards],
            "winner": self.winner,
            "points": self.points,
        }


_new_trick = positional_builder(Trick)


def new_trick(leader: int, cards: tuple[tuple[int, int], ...], winner: int, points: int) -> Trick:
    """``Trick(leader, cards, winner, points)``, faster: the hot paths' constructor."""
    return _new_trick(leader, cards, winner, points)


NO_TRICK = Trick(-1, (), -1, 0)
"""The current trick outside the PLAY phase."""


@dataclass(frozen=True, slots=True)
class Observation:
    """Exactly what ``seat`` may know now (``seat = -1``: a spectator, public information only).

    Private fields hold 0 / -1 for whoever may not see them: ``hand`` is the seat's own cards;
    ``nest`` is shown only to the bidder, from the pickup until the bury is done; ``buried`` only
    to the bidder; ``partner`` is known to everybody once the called card is played, and to the
    partner from the call on. ``scores`` are the cumulative scores of the hands scored so far;
    ``points_captured`` counts the tricks each side has won in this hand (buried cards and the
    last-trick bonus excluded). Anything derivable (voids, cards left) is not stored.
    """

    ruleset: Ruleset
    seat: int
    hand_number: int
    dealer: int
    phase: Phase
    current_player: int
    hand: int
    nest: int
    auction: tuple[tuple[int, int], ...]
    high_bid: int
    high_bidder: int
    bidder: int
    bid: int
    trump: Suit | None
    buried: int
    buried_count: int
    called_card: int
    partner: int
    current_trick: Trick
    completed_tricks: tuple[Trick, ...]
    points_captured: tuple[int, ...]
    scores: tuple[int, ...]
    sides: tuple[int, ...]

    @property
    def is_spectator(self) -> bool:
        """Whether this is the public view."""
        return self.seat < 0

    def legal_actions(self) -> LegalActions:
        """The legal actions of the seat to act, computed from this observation alone.

        Empty (``player = -1``) unless this observation's seat is the one to act.
        """
        seat = self.seat
        phase = self.phase
        rules = self.ruleset
        if seat < 0 or seat != self.current_player or phase is Phase.GAME_OVER:
            return LegalActions(Phase.GAME_OVER, -1)
        if phase is Phase.BIDDING:
            return LegalActions(phase, seat, can_pass=True, bids=rules.bids_above(self.high_bid))
        if phase is Phase.NAME_TRUMP:
            return LegalActions(phase, seat)
        if phase is Phase.BURY:
            return LegalActions(phase, seat, bury_from=self.hand, bury_count=rules.nest_size)
        if phase is Phase.CALL:
            call_from = rules.deck_mask & ~self.hand & ~self.buried
            return LegalActions(phase, seat, call_from=call_from)
        assert self.trump is not None
        cards = self.current_trick.cards
        lead = cards[0][1] if cards else -1
        play = legal_play_mask(self.hand, lead, self.trump, rules.rook_free_play)
        return LegalActions(phase, seat, play=play)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able dict: cards and card sets as text forms, enums by name."""
        return {
            "ruleset": self.ruleset.to_dict(),
            "seat": self.seat,
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "phase": self.phase.name,
            "current_player": self.current_player,
            "hand": format_cards(self.hand),
            "nest": format_cards(self.nest),
            "auction": [list(entry) for entry in self.auction],
            "high_bid": self.high_bid,
            "high_bidder": self.high_bidder,
            "bidder": self.bidder,
            "bid": self.bid,
            "trump": self.trump.letter if self.trump is not None else None,
            "buried": format_cards(self.buried),
            "buried_count": self.buried_count,
            "called_card": card_name(self.called_card) if self.called_card >= 0 else None,
            "partner": self.partner,
            "current_trick": self.current_trick.to_dict(),
            "completed_tricks": [trick.to_dict() for trick in self.completed_tricks],
            "points_captured": list(self.points_captured),
            "scores": list(self.scores),
            "sides": list(self.sides),
        }


_new_observation = positional_builder(Observation)


def new_observation(
    ruleset: Ruleset,
    seat: int,
    hand_number: int,
    dealer: int,
    phase: Phase,
    current_player: int,
    hand: int,
    nest: int,
    auction: tuple[tuple[int, int], ...],
    high_bid: int,
    high_bidder: int,
    bidder: int,
    bid: int,
    trump: Suit | None,
    buried: int,
    buried_count: int,
    called_card: int,
    partner: int,
    current_trick: Trick,
    completed_tricks: tuple[Trick, ...],
    points_captured: tuple[int, ...],
    scores: tuple[int, ...],
    sides: tuple[int, ...],
) -> Observation:
    """``Observation(...)`` of the same arguments, faster: the hot paths' constructor."""
    return _new_observation(
        ruleset, seat, hand_number, dealer, phase, current_player, hand, nest, auction,
        high_bid, high_bidder, bidder, bid, trump, buried, buried_count, called_card,
        partner, current_trick, completed_tricks, points_captured, scores, sides,
    )  # fmt: skip
