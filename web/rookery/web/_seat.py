"""What one seat may know, built from that seat's own protocol messages and nothing else.

A human seat's page is drawn from a :class:`SeatView`: it is fed what the seat's SDK session
hands its bot (the table joined, each event in the seat's view, each observation with its legal
actions, the game's result), so it can hold no card the server did not show that seat:
its own hand (from ``HandDealt.your_cards``), the nest and the buried cards if it took the nest,
the cards played, and each hand's reveal once the hand is scored. Hidden information is the
server's to enforce; this module only draws what came.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import Any

from rookery.client import Table
from rookery.engine import GameResult, LegalActions, Observation, Ruleset, card_name, cards_of
from rookery.v1 import cards_pb2, events_pb2
from rookery.wire import convert

from ._model import game_result_json, hand_result_json, ruleset_json

__all__ = ["SeatView"]

JSON = dict[str, Any]

_SUITS = {1: "B", 2: "R", 3: "Y", 4: "G"}
#: The events that are a seat's own move (its reply to a request), and their steps' types.
_ACTIONS = ("bid_made", "passed", "trump_named", "cards_buried", "card_called", "card_played")
_KINDS = ("bid", "pass", "trump", "buried", "called", "play")


def _cards(cards: Iterable[cards_pb2.Card]) -> int:
    return convert.mask_from_proto(cards)


def _sorted_cards(mask: int) -> list[str]:
    """A hand as people sort it: by suit (black, red, yellow, green), high cards first, the Rook
    last."""
    return [card_name(card) for card in sorted(cards_of(mask), key=_hand_order)]


def _hand_order(card: int) -> tuple[int, int]:
    name = card_name(card)
    if name.startswith("ROOK"):
        return (9, 0)
    return ("BRYG".index(name[0]), -int(name[1:]))


class SeatView:
    """The seat's knowledge, updated message by message; ``json()`` is what its page gets."""

    def __init__(self) -> None:
        self.version = 0
        self.table_id = ""
        self.seat = -1
        self.ruleset: Ruleset | None = None
        self.seats: list[JSON] = []
        self.clock: JSON = {}
        self.status = "waiting"
        self.error = ""
        self.hand_number = -1
        self.dealer = -1
        self.hand = 0
        self.nest = 0  # the nest's cards, once this seat has taken it
        self.buried = 0  # this seat's buried cards
        self.steps: list[JSON] = []
        self.scores: list[int] = []
        self.previous: JSON | None = None
        self.request: JSON | None = None
        self.rejected = ""
        self.result: JSON | None = None
        self.last_seq = 0
        """The sequence number of the last event this seat received."""

    def _changed(self) -> None:
        self.version += 1

    # Messages ---------------------------------------------------------------------------------

    def joined(self, table: Table, clock: JSON) -> None:
        """The table joined: its id, the seat, the rules and who sits where; ``clock``: the
        table's time control (``action_ms``, ``bank_ms``, ``late_policy``, ``strike_limit``)."""
        self.table_id = table.table_id
        self.seat = table.seat
        self.ruleset = table.ruleset
        self.seats = [
            {"seat": s.seat, "side": s.side, "name": s.bot_name, "version": s.bot_version}
            for s in table.seats
        ]
        self.clock = dict(clock)
        self.scores = [0] * table.ruleset.num_sides
        self.status = "playing"
        self._changed()

    def event(self, event: events_pb2.Event) -> None:
        """One event, as this seat may see it."""
        kind = event.WhichOneof("kind")
        step: JSON = {"seq": event.seq, "hand": event.hand_number, "type": kind}
        self.last_seq = max(self.last_seq, event.seq)
        if kind == "hand_dealt":
            dealt = event.hand_dealt
            if self.steps and self.hand_number >= 0:
                self._close_hand()
            self.hand_number = event.hand_number
            self.dealer = dealt.dealer
            self.hand = _cards(dealt.your_cards)
            self.nest = self.buried = 0
            self.steps = []
            step.update(type="dealt", dealer=dealt.dealer)
        elif kind == "bid_made":
            step.update(type="bid", seat=event.bid_made.seat, amount=event.bid_made.amount)
        elif kind == "passed":
            step.update(type="pass", seat=event.passed.seat)
        elif kind == "auction_won":
            won = event.auction_won
            step.update(type="auction_won", seat=won.seat, amount=won.amount, forced=won.forced)
        elif kind == "nest_taken":
            taken = event.nest_taken
            if taken.seat == self.seat and taken.cards:
                self.nest = _cards(taken.cards)
                self.hand |= self.nest
            step.update(type="nest_taken", seat=taken.seat, count=taken.count)
        elif kind == "trump_named":
            named = event.trump_named
            step.update(type="trump", seat=named.seat, suit=_SUITS.get(named.suit, "?"))
        elif kind == "cards_buried":
            buried = event.cards_buried
            if buried.seat == self.seat and buried.cards:
                self.buried = _cards(buried.cards)
                self.hand &= ~self.buried
            step.update(type="buried", seat=buried.seat, count=buried.count)
        elif kind == "card_called":
            called = event.card_called
            step.update(
                type="called",
                seat=called.seat,
                card=card_name(convert.card_from_proto(called.card)),
            )
        elif kind == "partner_revealed":
            step.update(type="partner", seat=event.partner_revealed.seat)
        elif kind == "card_played":
            played = event.card_played
            card = convert.card_from_proto(played.card)
            if played.seat == self.seat:
                self.hand &= ~(1 << card)
            step.update(type="play", seat=played.seat, card=card_name(card))
        elif kind == "trick_won":
            won_trick = event.trick_won
            step.update(
                type="trick",
                seat=won_trick.seat,
                points=won_trick.points,
                trick=won_trick.trick_index + 1,
            )
        elif kind == "hand_scored":
            assert self.ruleset is not None
            forced = any(s["type"] == "auction_won" and s["forced"] for s in self.steps)
            result = convert.hand_result_from_proto(
                event.hand_scored.result, self.ruleset, forced=forced, scores_before=self.scores
            )
            step.update(type="scored", result=hand_result_json(result))
            if not result.redeal:
                self.scores = list(result.scores_after)
        elif kind == "game_over":
            step.update(
                type="game_over",
                result=game_result_json(convert.game_result_from_proto(event.game_over.result)),
            )
        if step.get("seat") == self.seat and self.request is not None and kind in _ACTIONS:
            # The seat's move came while its request was still open: the server's clock played it.
            step["auto"] = True
            self.request = None
        self.steps.append(step)
        self._changed()

    def _close_hand(self) -> None:
        scored = next((s for s in self.steps if s["type"] == "scored"), None)
        self.previous = {
            "number": self.hand_number,
            "steps": self.steps,
            "result": scored["result"] if scored else None,
        }

    def requested(
        self,
        request_id: int,
        observation: Observation,
        legal: LegalActions,
        deadline_ms: int,
        bank_ms: int,
    ) -> None:
        """The seat is to act (request ``request_id``, ``deadline_ms`` of action time and
        ``bank_ms`` of bank left); its observation is the authority on its hand."""
        self.hand = observation.hand
        if observation.nest:
            self.nest = observation.nest
        phase = legal.phase.name
        offer: JSON = {"phase": phase}
        if phase == "BIDDING":
            offer.update(bids=list(legal.bids), can_pass=legal.can_pass)
        elif phase == "NAME_TRUMP":
            offer.update(suits=[suit.letter for suit in legal.suits])
        elif phase == "BURY":
            offer.update(cards=_sorted_cards(legal.bury_from), count=legal.bury_count)
        elif phase == "CALL":
            offer.update(cards=_sorted_cards(legal.call_from))
        elif phase == "PLAY":
            offer.update(cards=_sorted_cards(legal.play))
        self.request = {
            "request_id": request_id,
            "offer": offer,
            "deadline_ms": deadline_ms,
            "bank_ms": bank_ms,
            "received_at": time.time(),
        }
        self.rejected = ""
        self._changed()

    def answered(self) -> None:
        """The seat's reply went out: no request is open until the server sends the next."""
        self.request = None
        self._changed()

    def refused(self, message: str) -> None:
        """The person's answer was not legal: the request stays open, with why it was not."""
        self.rejected = message
        self._changed()

    def finished(self, result: GameResult, reason_name: str, detail: str) -> None:
        """The game is over: its result, why it ended (``FORFEIT_STRIKES``, ...) and the
        server's detail."""
        shown = game_result_json(result)
        shown["reason_name"] = reason_name
        shown["detail"] = detail
        self.result = shown
        self.request = None
        self.status = "finished"
        if any(s["type"] == "scored" for s in self.steps):
            self._close_hand()  # the last hand is revealed too
        self._changed()

    def failed(self, message: str) -> None:
        """The seat's session ended without a game: say why."""
        self.error = message
        if self.status != "finished":
            self.status = "failed"
        self.request = None
        self._changed()

    # The page's data --------------------------------------------------------------------------

    def json(self, turn: JSON | None = None) -> JSON:
        """Everything the page shows, as of now; ``turn``: the table's public "who is to act"
        (``{seat, ms_left}``) when it is known to match this seat's events."""
        request = self.request
        if request is not None:
            elapsed = int((time.time() - request["received_at"]) * 1000)
            request = {k: v for k, v in request.items() if k != "received_at"}
            request["ms_left"] = max(0, request["deadline_ms"] - elapsed)
        return {
            "version": self.version,
            "status": self.status,
            "error": self.error,
            "table_id": self.table_id,
            "seat": self.seat,
            "ruleset": ruleset_json(self.ruleset) if self.ruleset is not None else None,
            "seats": self.seats,
            "clock": self.clock,
            "hand_number": self.hand_number,
            "dealer": self.dealer,
            "hand": _sorted_cards(self.hand),
            "nest": _sorted_cards(self.nest),
            "buried": _sorted_cards(self.buried),
            "steps": self.steps,
            "scores": self.scores,
            "previous": self.previous,
            "request": request,
            "rejected": self.rejected,
            "result": self.result,
            "turn": turn,
            "replay": f"/replays/{self.table_id}" if self.status == "finished" else None,
        }
