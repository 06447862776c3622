"""The ``ActionRequest`` family, both ways: the server's encoder and the SDK's reader.

A table asks for an action after every move. Most of an ``ActionRequest`` does not change from
one request to the next (the ruleset, the hand's completed tricks) or comes from a small set
(cards), so :class:`RequestEncoder` encodes those parts once and assembles a request from bytes:
exactly what ``convert`` plus ``SerializeToString`` give. For a game on the native core,
:meth:`RequestEncoder.game_request` has the core write the whole request from the game's state
in one call (``rookery_core.RequestWriter``, ``core/src/requests.rs``: field numbers generated
from the .proto files like ``rookery.v1.field_numbers``, and this module's cards, enums and
ruleset bytes); the Python encoder is the reference the core is held to, and the fallback.

A bot reads a request as protobuf parsed it (:func:`read_request`), straight into an engine
``Observation`` and ``LegalActions``: the card sets from the card masks (never a message per
card), the ruleset and each trick looked up by their bytes (decoded by ``convert`` the first
time), the rest as integers. Only the regular case is read so (an observation, legal actions and
card masks, values ``convert`` accepts); anything else raises :class:`Irregular` and the caller
lets ``convert`` decode it, with its own errors. Where the native core is built, ``_responses``
has the core read a request's bytes first (``rookery_core.RequestReader``, the same values), and
this reader is the reference it is held to and the fallback.
"""

from __future__ import annotations

from typing import Any, Final

from rookery.engine import (
    NUM_CARDS,
    Game,
    LegalActions,
    Observation,
    Phase,
    Ruleset,
    Suit,
    Trick,
    new_observation,
    new_trick,
)
from rookery.v1 import actions_pb2, bot_service_pb2, ruleset_pb2
from rookery.v1 import field_numbers as fields

from .. import convert
from .._convert_cards import CARD_BY_KEY
from ..errors import WireError
from ..memo import BoundedMemo
from ._cards import CARD_BYTES, card_elements, card_list
from ._protobuf import (
    LENGTH,
    Irregular,
    field,
    fixed64_field,
    packed_field,
    scalar_field,
    tag,
    uint_field,
    varint,
)

_O = fields.Observation
_L = fields.LegalActions
_R = fields.ActionRequest
_M = fields.CardMasks
_T = fields.Trick
_E = fields.AuctionEntry

_PHASE_NUMBERS: Final[dict[Phase, int]] = {
    phase: int(convert.phase_to_proto(phase)) for phase in Phase
}
_SUIT_NUMBERS: Final[dict[Suit | None, int]] = {
    **{suit: int(convert.suit_to_proto(suit)) for suit in Suit},
    None: int(convert.suit_to_proto(None)),
}
_PHASES: Final[dict[int, Phase]] = {number: phase for phase, number in _PHASE_NUMBERS.items()}
_SUITS: Final[dict[int, Suit]] = {
    number: suit for suit, number in _SUIT_NUMBERS.items() if suit is not None
}
_PLAY = Phase.PLAY


def _native() -> tuple[type[Any], type[Any]] | None:
    """The native core's game class and request writer, where the core is built: it writes the
    requests of a game on the core (``None``: no core, or one built before the writer)."""
    try:
        from rookery_core import EngineGame, RequestWriter
    except ImportError:
        return None
    return EngineGame, RequestWriter


_NATIVE: Final = _native()


def _new_writer(ruleset: bytes) -> Any:
    """The core's writer of the requests of a ruleset (its encoded ``Observation.ruleset``)."""
    assert _NATIVE is not None
    return _NATIVE[1](
        ruleset,
        list(CARD_BYTES),
        [_PHASE_NUMBERS[phase] for phase in Phase],
        [_SUIT_NUMBERS[suit] for suit in (*Suit, None)],
    )


_WRITERS: Final[BoundedMemo[bytes, Any]] = BoundedMemo(64, _new_writer)
"""The core's request writers by ruleset, shared by every table of a ruleset (a writer holds only
what ``convert`` encodes once: the ruleset, the cards, the enums)."""

# Writing ---------------------------------------------------------------------------------------

_HAND = card_list(_O.HAND)
_NEST = card_list(_O.NEST)
_BURIED = card_list(_O.BURIED)
_CALLED = card_elements(_O.CALLED_CARD)
_BURY_FROM = card_list(_L.BURY_CANDIDATES)
_CALL_FROM = card_list(_L.CALLABLE_CARDS)
_PLAYABLE = card_list(_L.PLAYABLE_CARDS)
_OBS_SEAT = scalar_field(_O.SEAT)
_OBS_HAND_NUMBER = scalar_field(_O.HAND_NUMBER)
_OBS_DEALER = scalar_field(_O.DEALER)
_OBS_PHASE = scalar_field(_O.PHASE)
_OBS_CURRENT_PLAYER = scalar_field(_O.CURRENT_PLAYER)
_OBS_HIGH_BID = scalar_field(_O.HIGH_BID)
_OBS_HIGH_BIDDER = scalar_field(_O.HIGH_BIDDER)
_OBS_BIDDER = scalar_field(_O.BIDDER)
_OBS_BID = scalar_field(_O.BID)
_OBS_TRUMP = scalar_field(_O.TRUMP)
_OBS_BURIED_COUNT = scalar_field(_O.BURIED_COUNT)
_OBS_PARTNER = scalar_field(_O.PARTNER)
_OBS_PARTNER_REVEALED = scalar_field(_O.PARTNER_REVEALED)
_TRICK_LEADER = scalar_field(_T.LEADER)
_TRICK_WINNER = scalar_field(_T.WINNER)
_TRICK_POINTS = scalar_field(_T.POINTS)
_LEGAL_PHASE = scalar_field(_L.PHASE)
_LEGAL_SEAT = scalar_field(_L.SEAT)
_LEGAL_CAN_PASS = scalar_field(_L.CAN_PASS)
_LEGAL_BURY_COUNT = scalar_field(_L.BURY_COUNT)
_REQUEST_SEAT = scalar_field(_R.SEAT)
_REQUEST_DEADLINE_MS = scalar_field(_R.DEADLINE_MS)
_REQUEST_BANK_MS = scalar_field(_R.BANK_MS)
_OBSERVATION_TAG = tag(_R.OBSERVATION, LENGTH)
_LEGAL_ACTIONS_TAG = tag(_R.LEGAL_ACTIONS, LENGTH)
_ACTION_REQUEST_TAG = tag(fields.ConnectResponse.ACTION_REQUEST, LENGTH)

_PLAYED: tuple[tuple[bytes, ...], ...] = tuple(
    tuple(
        field(
            _T.CARDS,
            scalar_field(fields.PlayedCard.SEAT)[seat] + field(fields.PlayedCard.CARD, card_bytes),
        )
        for card_bytes in CARD_BYTES
    )
    for seat in range(8)  # a ruleset seats at most 6
)
"""``_PLAYED[seat][card]``: one card of a trick, encoded as an element of ``Trick.cards``."""
assert len(_PLAYED[0]) == NUM_CARDS


def _auction_entry(key: tuple[int, int]) -> bytes:
    seat, amount = key
    return field(_O.AUCTION, scalar_field(_E.SEAT)[seat] + scalar_field(_E.AMOUNT)[amount])


_AUCTION_ENTRIES: BoundedMemo[tuple[int, int], bytes] = BoundedMemo(65536, _auction_entry)
"""An auction entry encoded as an element of ``Observation.auction``, by (seat, amount) (a hit:
75× faster than encoding)."""


def _trick(trick: Trick) -> bytes:
    """A ``Trick`` message's bytes (fields in number order: leader, cards, winner, points)."""
    return b"".join(
        [
            _TRICK_LEADER[trick.leader],
            *[_PLAYED[seat][card] for seat, card in trick.cards],
            _TRICK_WINNER[trick.winner],
            _TRICK_POINTS[trick.points],
        ]
    )


def _legal(legal: LegalActions) -> bytes:
    """A ``LegalActions`` message's bytes (as ``convert.legal_actions_to_proto``)."""
    phase = legal.phase
    if phase is _PLAY:  # most requests: the phase, the seat and the playable cards
        return _PLAY_HEADS[legal.player] + _PLAYABLE(legal.play)
    parts = [
        _LEGAL_PHASE[_PHASE_NUMBERS[phase]],
        _LEGAL_SEAT[legal.player],
        _LEGAL_CAN_PASS[legal.can_pass],
        packed_field(_L.BIDS, legal.bids),
        packed_field(_L.TRUMP_SUITS, tuple([_SUIT_NUMBERS[suit] for suit in legal.suits])),
    ]
    if legal.bury_from:
        parts.append(_BURY_FROM(legal.bury_from))
    parts.append(_LEGAL_BURY_COUNT[legal.bury_count])
    if legal.call_from:
        parts.append(_CALL_FROM(legal.call_from))
    if legal.play:
        parts.append(_PLAYABLE(legal.play))
    return b"".join(parts)


_PLAY_HEADS: BoundedMemo[int, bytes] = BoundedMemo(
    64, lambda seat: _LEGAL_PHASE[_PHASE_NUMBERS[_PLAY]] + _LEGAL_SEAT[seat]
)
"""By seat: the fields of a PLAY phase's ``LegalActions`` before its cards."""


def _card_masks(observation: Observation, legal: LegalActions) -> bytes:
    """A ``CardMasks`` message's bytes (as ``convert.card_masks_to_proto``)."""
    return b"".join(
        (
            fixed64_field(_M.HAND, observation.hand),
            fixed64_field(_M.NEST, observation.nest),
            fixed64_field(_M.BURIED, observation.buried),
            fixed64_field(_M.BURY_CANDIDATES, legal.bury_from),
            fixed64_field(_M.CALLABLE_CARDS, legal.call_from),
            fixed64_field(_M.PLAYABLE_CARDS, legal.play),
        )
    )


class RequestEncoder:
    """One table's (one game's) ``ActionRequest`` encoder: the ruleset and each completed trick
    encoded once."""

    __slots__ = (
        "_auction",
        "_hand_number",
        "_joined",
        "_last_trick",
        "_ruleset",
        "_table_id",
        "_tail",
        "_tricks",
        "_writer",
    )

    def __init__(self, ruleset: Ruleset) -> None:
        self._ruleset = field(_O.RULESET, convert.ruleset_to_proto(ruleset).SerializeToString())
        self._writer: Any = None if _NATIVE is None else _WRITERS[self._ruleset]
        self._hand_number = -1
        self._tricks: list[bytes] = []
        self._joined = b""
        self._last_trick: Trick | None = None
        self._table_id = ("", b"")
        self._auction: tuple[tuple[tuple[int, int], ...], bytes] = ((), b"")
        self._tail: tuple[tuple[tuple[int, ...], ...], bytes] = ((), b"")

    def _completed_tricks(self, observation: Observation) -> bytes:
        """The encoded ``completed_tricks`` of the hand, new tricks encoded as they complete."""
        tricks = observation.completed_tricks
        encoded = self._tricks
        known = len(encoded)
        if (
            observation.hand_number != self._hand_number
            or len(tricks) < known
            or (
                known
                and tricks[known - 1] is not self._last_trick  # the engine's own, usually
                and tricks[known - 1] != self._last_trick
            )
        ):
            self._hand_number = observation.hand_number
            encoded.clear()
            known = 0
            self._joined = b""
        if len(tricks) > known:
            encoded += [field(_O.COMPLETED_TRICKS, _trick(trick)) for trick in tricks[known:]]
            self._joined = b"".join(encoded)
        if tricks:
            self._last_trick = tricks[-1]
        return self._joined

    def observation(self, observation: Observation) -> bytes:
        """An ``Observation`` message's bytes (as ``convert.observation_to_proto``): its fields
        in number order, each encoded as protobuf does (zero values omitted)."""
        o = observation
        parts = [
            self._ruleset,
            _OBS_SEAT[o.seat],
            _OBS_HAND_NUMBER[o.hand_number],
            _OBS_DEALER[o.dealer],
            _OBS_PHASE[_PHASE_NUMBERS[o.phase]],
            _OBS_CURRENT_PLAYER[o.current_player],
        ]
        parts.append(_HAND(o.hand))
        if o.nest:
            parts.append(_NEST(o.nest))
        if o.auction:
            parts.append(self._auction_bytes(o.auction))
        parts += (
            _OBS_HIGH_BID[o.high_bid],
            _OBS_HIGH_BIDDER[o.high_bidder],
            _OBS_BIDDER[o.bidder],
            _OBS_BID[o.bid],
            _OBS_TRUMP[_SUIT_NUMBERS[o.trump]],
        )
        if o.buried:
            parts.append(_BURIED(o.buried))
        parts.append(_OBS_BURIED_COUNT[o.buried_count])
        if o.called_card >= 0:
            parts.append(_CALLED[o.called_card])
        parts += (
            _OBS_PARTNER[o.partner],
            _OBS_PARTNER_REVEALED[convert.is_partner_revealed(o)],
            field(_O.CURRENT_TRICK, _trick(o.current_trick)),
            self._completed_tricks(o),
            self._tail_bytes(o.points_captured, o.scores, o.sides),
        )
        return b"".join(parts)

    def _auction_bytes(self, auction: tuple[tuple[int, int], ...]) -> bytes:
        """The encoded auction entries, remembered: after the auction they repeat to the end of
        the hand."""
        known, encoded = self._auction
        if auction != known:
            encoded = b"".join([_AUCTION_ENTRIES[entry] for entry in auction])
            self._auction = (auction, encoded)
        return encoded

    def _tail_bytes(
        self, points: tuple[int, ...], scores: tuple[int, ...], sides: tuple[int, ...]
    ) -> bytes:
        """The encoded points captured, scores and sides, remembered (they change by tricks)."""
        known, encoded = self._tail
        if (points, scores, sides) != known:
            encoded = b"".join(
                [
                    packed_field(_O.POINTS_CAPTURED, points),
                    packed_field(_O.SCORES, scores),
                    packed_field(_O.SIDES, sides),
                ]
            )
            self._tail = ((points, scores, sides), encoded)
        return encoded

    def game_request(
        self,
        game: Game,
        *,
        table_id: str,
        request_id: int,
        seat: int,
        deadline_ms: int,
        bank_ms: int,
        last_seq: int,
        masks: bool = False,
    ) -> bytes:
        """:meth:`action_request` of ``seat``'s observation of ``game`` now and the legal actions:
        written by the native core in one call where ``game`` runs on it, else by this encoder."""
        writer = self._writer
        if writer is not None and _NATIVE is not None and isinstance(game, _NATIVE[0]):
            encoded_id = self._table_id_field(table_id)
            written: bytes = writer.write(
                game, encoded_id, request_id, seat, deadline_ms, bank_ms, last_seq, masks
            )
            return written
        return self.action_request(
            table_id=table_id,
            request_id=request_id,
            seat=seat,
            observation=game.observation_for(seat),
            legal=game.legal_actions(),
            deadline_ms=deadline_ms,
            bank_ms=bank_ms,
            last_seq=last_seq,
            masks=masks,
        )

    def _table_id_field(self, table_id: str) -> bytes:
        """The encoded ``ActionRequest.table_id`` (remembered: a table's requests share it)."""
        known_id, encoded_id = self._table_id
        if table_id != known_id:
            encoded_id = field(_R.TABLE_ID, table_id.encode()) if table_id else b""
            self._table_id = (table_id, encoded_id)
        return encoded_id

    def action_request(
        self,
        *,
        table_id: str,
        request_id: int,
        seat: int,
        observation: Observation,
        legal: LegalActions,
        deadline_ms: int,
        bank_ms: int,
        last_seq: int,
        masks: bool = False,
    ) -> bytes:
        """A ``ConnectResponse`` carrying an ``ActionRequest``, as bytes; with ``masks``, its
        card sets as ``card_masks`` too (for a session whose Hello asked: ``Hello.card_masks``)."""
        encoded_id = self._table_id_field(table_id)
        observed = self.observation(observation)
        allowed = _legal(legal)
        body = b"".join(
            [
                encoded_id,
                uint_field(_R.REQUEST_ID, request_id),
                _REQUEST_SEAT[seat],
                _OBSERVATION_TAG,
                varint(len(observed)),
                observed,
                _LEGAL_ACTIONS_TAG,
                varint(len(allowed)),
                allowed,
                _REQUEST_DEADLINE_MS[deadline_ms],
                _REQUEST_BANK_MS[bank_ms],
                uint_field(_R.LAST_SEQ, last_seq),
                field(_R.CARD_MASKS, _card_masks(observation, legal)) if masks else b"",
            ]
        )
        return b"".join((_ACTION_REQUEST_TAG, varint(len(body)), body))


# Reading ---------------------------------------------------------------------------------------


class Request:
    """What the SDK uses of an ``ActionRequest``, in engine values."""

    __slots__ = ("deadline_ms", "legal", "observation", "request_id", "table_id")

    def __init__(
        self,
        table_id: str,
        request_id: int,
        deadline_ms: int,
        observation: Observation,
        legal: LegalActions,
    ) -> None:
        self.table_id = table_id
        self.request_id = request_id
        self.deadline_ms = deadline_ms
        self.observation = observation
        self.legal = legal


_RULESETS: Final[BoundedMemo[bytes, Ruleset]] = BoundedMemo(
    64, lambda raw: convert.ruleset_from_proto(ruleset_pb2.Ruleset.FromString(raw))
)
"""Rulesets by their bytes (every observation carries one)."""
_TRICKS: Final[BoundedMemo[bytes, Trick]] = BoundedMemo(
    4096, lambda raw: convert.trick_from_proto(actions_pb2.Trick.FromString(raw))
)
"""Completed tricks by their bytes (a completed trick comes again in every later observation of
its hand); the trick in progress, seen once, is read as it is (:func:`_read_trick`)."""
_NO_TRICK: Final = Trick(-1, (), -1, 0)
_NO_CARD_BITS: Final = ~((1 << NUM_CARDS) - 1)
"""The bits of a card mask that stand for no card."""
_CARD_BY_KEY: Final = CARD_BY_KEY


def _trick_from_message(message: actions_pb2.Trick) -> Trick:
    """A trick read from its message's fields."""
    played = []
    get = _CARD_BY_KEY.get
    for one in message.cards:
        proto = one.card
        card = get((proto.suit, proto.rank, proto.rook))  # an unset card is no card's key
        if card is None:
            raise Irregular  # convert's error for it
        played.append((one.seat, card))
    return new_trick(message.leader, tuple(played), message.winner, message.points)


_PLAYED_READ: Final[dict[bytes, tuple[int, int]]] = {
    element: (seat, card) for seat, row in enumerate(_PLAYED) for card, element in enumerate(row)
}
"""``(seat, card)`` by the bytes of a ``Trick.cards`` element."""
_LEADER_KEY: Final = _T.LEADER << 3
_CARDS_KEY: Final = _T.CARDS << 3 | LENGTH
_WINNER_KEY: Final = _T.WINNER << 3
_POINTS_KEY: Final = _T.POINTS << 3
_MINUS_ONE: Final = varint((1 << 64) - 1)
"""-1 as an int32 varint (ten bytes): a trick in progress has no winner."""


def _trick_from_bytes(raw: bytes) -> Trick | None:
    """A trick from its bytes as protobuf writes them, or ``None`` for what this does not read
    (a value over 127 other than -1, a card element of no card or seat, another field)."""
    leader = winner = points = 0
    played = []
    at, end = 0, len(raw)
    while at < end:
        key = raw[at]
        if key == _CARDS_KEY:  # an element: seat and card, a few bytes
            stop = at + 2 + raw[at + 1]
            one = _PLAYED_READ.get(raw[at:stop])
            if one is None:
                return None
            played.append(one)
            at = stop
            continue
        value = raw[at + 1]
        if value < 0x80:
            at += 2
        elif raw.startswith(_MINUS_ONE, at + 1):
            value = -1
            at += 11
        else:
            return None
        if key == _LEADER_KEY:
            leader = value
        elif key == _WINNER_KEY:
            winner = value
        elif key == _POINTS_KEY:
            points = value
        else:
            return None
    return new_trick(leader, tuple(played), winner, points)


def _read_trick(message: actions_pb2.Trick) -> Trick:
    """A trick as it is, from its bytes, else from the message (no memo: the trick in progress
    differs at every request, and a stream's reader reads each completed trick once)."""
    trick = _trick_from_bytes(message.SerializeToString())
    return _trick_from_message(message) if trick is None else trick


class HandsRead:
    """What one reader has read of each table's hand so far: its auction and completed tricks.

    Both only grow during a hand (a redeal is the next hand), so a request of a table's same hand
    is read from the entries it adds: the rest is the same as before, and each trick is read
    once (no memo by bytes). A reader of one stream keeps one (:class:`ResponseReader`); tables
    beyond ``size`` start over, read in full.
    """

    __slots__ = ("_auctions", "_tricks")

    def __init__(self, size: int = 1024) -> None:
        self._auctions: BoundedMemo[str, tuple[int, tuple[tuple[int, int], ...]]] = BoundedMemo(
            size
        )
        self._tricks: BoundedMemo[str, tuple[int, tuple[Trick, ...]]] = BoundedMemo(size)

    def auction(
        self, table_id: str, observation: actions_pb2.Observation
    ) -> tuple[tuple[int, int], ...]:
        """The observation's auction, its new entries read."""
        entries = observation.auction
        count = len(entries)
        if not count:
            return ()
        hand = observation.hand_number
        known = self._auctions.get(table_id)
        if known is not None and known[0] == hand:
            auction = known[1]
            if len(auction) == count:
                return auction
            if len(auction) < count:
                auction += tuple([(entry.seat, entry.amount) for entry in entries[len(auction) :]])
                self._auctions[table_id] = (hand, auction)
                return auction
        auction = tuple([(entry.seat, entry.amount) for entry in entries])
        self._auctions.remember(table_id, (hand, auction))
        return auction

    @property
    def known_tricks(self) -> dict[str, tuple[int, tuple[Trick, ...]]]:
        """Each table's ``(hand number, completed tricks)`` read so far (the native reader reads
        only the tricks past these)."""
        return self._tricks

    def add_tricks(
        self, table_id: str, hand_number: int, since: int, new: tuple[Trick, ...]
    ) -> tuple[Trick, ...]:
        """The table's completed tricks: the first ``since`` known already, then ``new``."""
        if since:
            known = self._tricks[table_id][1]
            if not new:
                return known
            tricks = known + new
            self._tricks[table_id] = (hand_number, tricks)
            return tricks
        if new:
            self._tricks.remember(table_id, (hand_number, new))
        return new

    def tricks(self, table_id: str, observation: actions_pb2.Observation) -> tuple[Trick, ...]:
        """The observation's completed tricks, its new ones read."""
        completed = observation.completed_tricks
        count = len(completed)
        if not count:
            return ()
        hand = observation.hand_number
        known = self._tricks.get(table_id)
        if known is not None and known[0] == hand:
            tricks = known[1]
            if len(tricks) == count:
                return tricks
            if len(tricks) < count:
                tricks += tuple([_read_trick(trick) for trick in completed[len(tricks) :]])
                self._tricks[table_id] = (hand, tricks)
                return tricks
        tricks = tuple([_read_trick(trick) for trick in completed])
        self._tricks.remember(table_id, (hand, tricks))
        return tricks


def read_request(message: bot_service_pb2.ActionRequest, hands: HandsRead | None = None) -> Request:
    """The SDK's view of a parsed ``ActionRequest``; :class:`Irregular` outside the regular case
    (no card masks, no observation or legal actions, a value ``convert`` refuses).

    With ``hands`` (the same for every request of a stream), a table's auction and completed
    tricks are read once each: a request of the same hand adds only the entries it adds.
    """
    if not (
        message.HasField("card_masks")
        and message.HasField("observation")
        and message.HasField("legal_actions")
    ):
        raise Irregular  # convert's errors, or a server without card masks
    masks = message.card_masks
    o = message.observation
    legal = message.legal_actions
    table_id = message.table_id
    hand, nest, buried = masks.hand, masks.nest, masks.buried
    bury_from, call_from, play = masks.bury_candidates, masks.callable_cards, masks.playable_cards
    if (hand | nest | buried | bury_from | call_from | play) & _NO_CARD_BITS:
        raise Irregular  # a bit that stands for no card: convert's error
    try:
        ruleset = _RULESETS[o.ruleset.SerializeToString()]
        called = convert.card_from_proto(o.called_card) if o.HasField("called_card") else -1
        current = o.current_trick if o.HasField("current_trick") else None
        trick = _NO_TRICK if current is None else _read_trick(current)
        if hands is None:
            tricks = tuple([_TRICKS[t.SerializeToString()] for t in o.completed_tricks])
            auction = tuple([(entry.seat, entry.amount) for entry in o.auction])
        else:
            tricks = hands.tricks(table_id, o)
            auction = hands.auction(table_id, o)
    except WireError as error:
        raise Irregular from error
    seat = o.seat
    trump = o.trump
    phase = _PHASES.get(o.phase)
    legal_phase = _PHASES.get(legal.phase)
    suits = legal.trump_suits
    if (
        not o.HasField("ruleset")
        or not -1 <= seat < ruleset.players
        or phase is None
        or legal_phase is None
        or (trump and trump not in _SUITS)
        or (suits and any(suit not in _SUITS for suit in suits))
    ):
        raise Irregular
    observation = new_observation(
        ruleset,
        seat,
        o.hand_number,
        o.dealer,
        phase,
        o.current_player,
        hand,
        nest,
        auction,
        o.high_bid,
        o.high_bidder,
        o.bidder,
        o.bid,
        _SUITS[trump] if trump else None,
        buried,
        o.buried_count,
        called,
        o.partner,  # partner_revealed: not an engine field
        trick,
        tricks,
        tuple(o.points_captured),
        tuple(o.scores),
        tuple(o.sides),
    )
    if legal_phase is _PLAY:  # most requests: the cards to play are all there is
        allowed = LegalActions(_PLAY, legal.seat, play=play)
    else:
        allowed = LegalActions(
            legal_phase,
            legal.seat,
            can_pass=legal.can_pass,
            bids=tuple(legal.bids),
            bury_from=bury_from,
            bury_count=legal.bury_count,
            call_from=call_from,
            play=play,
        )
    return Request(table_id, message.request_id, message.deadline_ms, observation, allowed)
