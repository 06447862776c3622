"""The one action encoding and the one observation encoding of Rook for learning agents.

Every integration (PettingZoo, Gymnasium, OpenSpiel, the bridge back to Rookery) speaks these
ids and tensors; ``docs/ai.md`` describes the layout. Actions have fixed ids per ruleset:

====================  ==========================================
``0``                 pass
``1 .. B``            bid ``min_bid``, ``min_bid + step``, … ``effective_max_bid``
``B+1 .. B+4``        name trump B, R, Y, G
next ``NUM_CARDS``    bury card ``c`` (one card a step; the bury is applied when complete)
next ``NUM_CARDS``    call card ``c``
next ``NUM_CARDS``    play card ``c``
====================  ==========================================

The observation tensor is built from the engine's :class:`~rookery.engine.Observation` alone
(plus the cards chosen so far for a bury in progress, which only the bidder has), with every
seat given relative to the observer (0 = the observer, 1 = the seat to its left, …), so one
policy can sit at any seat.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt
from rookery.engine import (
    NUM_CARDS,
    PASS,
    PLAY,
    TRUMP,
    Action,
    Bid,
    Bury,
    CallCard,
    LegalActions,
    NameTrump,
    Observation,
    Pass,
    Phase,
    PlayCard,
    Ruleset,
    Suit,
    bid_action,
    card_name,
    cards_of,
)

__all__ = ["ActionCodec", "ObservationEncoder", "Tensor", "card_bits"]

Tensor = npt.NDArray[np.float32]
"""A float32 vector: an observation or information-state tensor."""


def card_bits(mask: int) -> npt.NDArray[np.uint8]:
    """The ``NUM_CARDS`` bits of a card mask, card 0 first."""
    raw = np.frombuffer(mask.to_bytes(8, "little"), dtype=np.uint8)
    return np.unpackbits(raw, bitorder="little")[:NUM_CARDS]


PHASES: tuple[Phase, ...] = (
    Phase.BIDDING,
    Phase.NAME_TRUMP,
    Phase.BURY,
    Phase.CALL,
    Phase.PLAY,
    Phase.GAME_OVER,
)


@dataclass(frozen=True)
class ActionCodec:
    """Fixed action ids for one ruleset: pass, every bid, four trumps, bury/call/play a card."""

    ruleset: Ruleset
    bids: tuple[int, ...] = field(init=False)
    bid0: int = field(init=False)
    trump0: int = field(init=False)
    bury0: int = field(init=False)
    call0: int = field(init=False)
    play0: int = field(init=False)
    size: int = field(init=False)

    def __post_init__(self) -> None:
        rules = self.ruleset
        bids = tuple(range(rules.min_bid, rules.effective_max_bid + 1, rules.bid_step))
        set_ = object.__setattr__
        set_(self, "bids", bids)
        set_(self, "bid0", 1)
        set_(self, "trump0", 1 + len(bids))
        set_(self, "bury0", self.trump0 + 4)
        set_(self, "call0", self.bury0 + NUM_CARDS)
        set_(self, "play0", self.call0 + NUM_CARDS)
        set_(self, "size", self.play0 + NUM_CARDS)

    # ids of the engine's legal actions --------------------------------------------------------

    def legal_ids(self, legal: LegalActions, pending: int = 0) -> list[int]:
        """The legal action ids, ascending; ``pending`` is the bury chosen so far (a card mask)."""
        phase = legal.phase
        if phase is Phase.BIDDING:
            ids = [0] if legal.can_pass else []
            first = self.bids[0] if self.bids else 0
            step = self.ruleset.bid_step
            ids.extend(self.bid0 + (amount - first) // step for amount in legal.bids)
            return ids
        if phase is Phase.NAME_TRUMP:
            return [self.trump0 + int(suit) for suit in legal.suits]
        if phase is Phase.BURY:
            return [self.bury0 + card for card in cards_of(legal.bury_from & ~pending)]
        if phase is Phase.CALL:
            return [self.call0 + card for card in cards_of(legal.call_from)]
        if phase is Phase.PLAY:
            return [self.play0 + card for card in cards_of(legal.play)]
        return []

    def mask(self, legal: LegalActions, pending: int = 0) -> npt.NDArray[np.int8]:
        """The legal action mask: 1 at every legal id, else 0."""
        mask = np.zeros(self.size, dtype=np.int8)
        mask[self.legal_ids(legal, pending)] = 1
        return mask

    # id <-> action ----------------------------------------------------------------------------

    def step_action(
        self, action_id: int, legal: LegalActions, pending: int, *, checked: bool = False
    ) -> Action | int:
        """What ``action_id`` does now: an engine action to apply, or (a bury step that does not
        complete the bury) the new pending bury mask. Raises ``ValueError`` if it is not legal
        (``checked``: the caller has checked it is)."""
        if not checked and action_id not in self.legal_ids(legal, pending):
            raise ValueError(
                f"action id {action_id} ({self.describe(action_id)}) is not legal now; "
                f"legal ids: {self.legal_ids(legal, pending)}"
            )
        if legal.phase is Phase.BURY:
            pending |= 1 << (action_id - self.bury0)
            if pending.bit_count() == legal.bury_count:
                return Bury(pending)
            return pending
        return self.to_action(action_id)

    def to_action(self, action_id: int) -> Action:
        """The engine action of a non-bury id (a bury id has no action of its own)."""
        if action_id == 0:
            return PASS
        if self.bid0 <= action_id < self.trump0:
            return bid_action(self.bids[action_id - self.bid0])
        if self.trump0 <= action_id < self.bury0:
            return TRUMP[Suit(action_id - self.trump0)]
        if self.call0 <= action_id < self.play0:
            return CallCard(action_id - self.call0)
        if self.play0 <= action_id < self.size:
            return PLAY[action_id - self.play0]
        raise ValueError(f"action id {action_id} is a bury step or outside 0..{self.size - 1}")

    def to_ids(self, action: Action) -> list[int]:
        """The ids of an engine action: one id, or a bury's cards ascending (one step each)."""
        if isinstance(action, Pass):
            return [0]
        if isinstance(action, Bid):
            return [self.bid0 + self.bids.index(action.amount)]
        if isinstance(action, NameTrump):
            return [self.trump0 + int(action.suit)]
        if isinstance(action, Bury):
            return [self.bury0 + card for card in cards_of(action.cards)]
        if isinstance(action, CallCard):
            return [self.call0 + action.card]
        if isinstance(action, PlayCard):
            return [self.play0 + action.card]
        raise TypeError(f"not an engine action: {action!r}")

    def describe(self, action_id: int) -> str:
        """The id in words: ``"bid 75"``, ``"bury card R5"``, ``"play ROOK"``."""
        if self.bury0 <= action_id < self.call0:
            return f"bury card {card_name(action_id - self.bury0)}"
        if 0 <= action_id < self.size:
            return str(self.to_action(action_id))
        return f"out of range (0..{self.size - 1})"


class ObservationEncoder:
    """The observation tensor of a seat (see ``docs/ai.md`` for the layout), and the
    information-state tensor (the observation plus the order of the auction and of the play, and
    for the bidder the nest it picked up and the order of its bury: perfect recall)."""

    def __init__(self, ruleset: Ruleset) -> None:
        self.ruleset = ruleset
        self.players = p = ruleset.players
        self.codec = ActionCodec(ruleset)
        c = NUM_CARDS
        sizes = [
            ("phase", len(PHASES)),
            ("to_act", p),
            ("dealer", p),
            ("hand", c),
            ("nest", c),
            ("buried", c),
            ("pending_bury", c),
            ("last_bid", p),
            ("passed", p),
            ("high_bid", 1),
            ("high_bidder", p),
            ("bidder", p),
            ("bid", 1),
            ("trump", 4),
            ("called_card", c),
            ("partner", p),
            ("trick_leader", p),
            ("trick", p * c),
            ("played", p * c),
            ("same_side", p),
            ("points", p),
            ("scores", p),
            ("buried_count", 1),
        ]
        self.offsets: dict[str, tuple[int, int]] = {}
        at = 0
        for name, size in sizes:
            self.offsets[name] = (at, size)
            at += size
        self.size = at
        self._top = float(ruleset.effective_max_bid)
        self._points = float(max(1, ruleset.deck_points))
        self.auction_slots = len(self.codec.bids) + p
        self.info_size = self.size + self.auction_slots * (p + 1) + 3 * c

    def _rel(self, observer: int, seat: int) -> int:
        return (seat - observer) % self.players

    def encode(self, obs: Observation, pending: int = 0) -> Tensor:
        """The observation tensor of ``obs.seat`` (``pending``: the bury chosen so far)."""
        out = np.zeros(self.size, dtype=np.float32)
        self.encode_into(out, obs, pending)
        return out

    def encode_into(self, out: Tensor, obs: Observation, pending: int = 0) -> None:
        """Write the observation tensor into ``out`` (zeros, of length ``size``)."""
        rules = self.ruleset
        o = self.offsets
        p = self.players
        me = obs.seat
        top = self._top
        out[o["phase"][0] + PHASES.index(obs.phase)] = 1.0
        if obs.current_player >= 0:
            out[o["to_act"][0] + (obs.current_player - me) % p] = 1.0
        out[o["dealer"][0] + (obs.dealer - me) % p] = 1.0
        for name, mask in (
            ("hand", obs.hand),
            ("nest", obs.nest),
            ("buried", obs.buried),
            ("pending_bury", pending),
        ):
            if mask:
                base = o[name][0]
                out[base : base + NUM_CARDS] = card_bits(mask)
        last_bid, passed = o["last_bid"][0], o["passed"][0]
        for seat, amount in obs.auction:
            if amount:
                out[last_bid + (seat - me) % p] = amount / top
            else:
                out[passed + (seat - me) % p] = 1.0
        out[o["high_bid"][0]] = obs.high_bid / top
        if obs.high_bidder >= 0:
            out[o["high_bidder"][0] + (obs.high_bidder - me) % p] = 1.0
        if obs.bidder >= 0:
            out[o["bidder"][0] + (obs.bidder - me) % p] = 1.0
            out[o["bid"][0]] = obs.bid / top
        if obs.trump is not None:
            out[o["trump"][0] + int(obs.trump)] = 1.0
        if obs.called_card >= 0:
            out[o["called_card"][0] + obs.called_card] = 1.0
        if obs.partner >= 0:
            out[o["partner"][0] + (obs.partner - me) % p] = 1.0
        trick = obs.current_trick
        if trick.leader >= 0:
            out[o["trick_leader"][0] + (trick.leader - me) % p] = 1.0
        base = o["trick"][0]
        played = o["played"][0]
        for seat, card in trick.cards:
            rel = (seat - me) % p * NUM_CARDS + card
            out[base + rel] = 1.0
            out[played + rel] = 1.0
        for done in obs.completed_tricks:
            for seat, card in done.cards:
                out[played + (seat - me) % p * NUM_CARDS + card] = 1.0
        sides = obs.sides
        mine = sides[me]
        same, points_at, scores_at = o["same_side"][0], o["points"][0], o["scores"][0]
        captured, scores = obs.points_captured, obs.scores
        for rel in range(p):
            side = sides[(me + rel) % p]
            if side == mine:
                out[same + rel] = 1.0
            out[points_at + rel] = captured[side] / self._points
            out[scores_at + rel] = scores[side] / rules.target
        if rules.nest_size:
            out[o["buried_count"][0]] = obs.buried_count / rules.nest_size

    def encode_info_state(
        self,
        obs: Observation,
        pending: int = 0,
        *,
        picked_up: int = 0,
        bury_order: Sequence[int] = (),
    ) -> Tensor:
        """The information-state tensor: the observation, then the auction in order (a slot per
        call: relative seat one-hot and the amount, 0 for a pass), then the play order (for each
        card, its place in the hand's play sequence over the number of cards dealt, 0 if
        unplayed), then what only the bidder remembers once the observation forgets it:
        ``picked_up`` (the nest as it took it, a card mask) and ``bury_order`` (the cards it chose
        to bury, in the order chosen: each card's place over the nest's size).
        """
        out = np.zeros(self.info_size, dtype=np.float32)
        self.encode_into(out[: self.size], obs, pending)
        p = self.players
        top = float(self.ruleset.effective_max_bid)
        base = self.size
        for slot, (seat, amount) in enumerate(obs.auction[: self.auction_slots]):
            at = base + slot * (p + 1)
            out[at + self._rel(obs.seat, seat)] = 1.0
            out[at + p] = amount / top
        order = base + self.auction_slots * (p + 1)
        total = float(self.ruleset.deck_size)
        index = 0
        for trick in (*obs.completed_tricks, obs.current_trick):
            for _, card in trick.cards:
                index += 1
                out[order + card] = index / total
        nest = order + NUM_CARDS
        if picked_up:
            out[nest : nest + NUM_CARDS] = card_bits(picked_up)
        buried = nest + NUM_CARDS
        size = float(max(1, self.ruleset.nest_size))
        for place, card in enumerate(bury_order, 1):
            out[buried + card] = place / size
        return out
