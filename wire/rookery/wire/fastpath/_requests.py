"""The ``ActionRequest`` family, both ways: the server's encoder and the SDK's reader.

A table asks for an action after every move. Most of an ``ActionRequest`` does not change from
one request to the next (the ruleset, the hand's completed tricks) or comes from a small set
(cards), so :class:`RequestEncoder` encodes those parts once and assembles a request from bytes:
exactly what ``convert`` plus ``SerializeToString`` give.

A bot reads a request once from its bytes (:func:`read_request`): the card sets from the card
masks, the ruleset, each trick and the called card looked up by their bytes (decoded by
``convert`` the first time), the rest as integers. Only the regular case is read by hand (each
submessage once, known fields with their wire types, an observation, legal actions and card
masks, values ``convert`` accepts); anything else raises :class:`Irregular` and the caller lets
protobuf and ``convert`` decode it, with their own errors. One leniency: the repeated card
fields beside their masks are skipped, not parsed, so bytes protobuf would refuse inside them go
unseen.
"""

from __future__ import annotations

from typing import Final

from rookery.engine import (
    NUM_CARDS,
    LegalActions,
    Observation,
    Phase,
    Ruleset,
    Suit,
    Trick,
    new_observation,
)
from rookery.v1 import actions_pb2, cards_pb2, ruleset_pb2
from rookery.v1 import field_numbers as fields

from .. import convert
from ..memo import BoundedMemo
from ._cards import CARD_BYTES, card_elements, card_list
from ._protobuf import (
    FIXED64,
    LENGTH,
    VARINT,
    Irregular,
    field,
    fixed64_field,
    int32,
    packed_field,
    read_length,
    read_varint,
    scalar_field,
    skip,
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
    )

    def __init__(self, ruleset: Ruleset) -> None:
        self._ruleset = field(_O.RULESET, convert.ruleset_to_proto(ruleset).SerializeToString())
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
        known_id, encoded_id = self._table_id
        if table_id != known_id:
            encoded_id = field(_R.TABLE_ID, table_id.encode()) if table_id else b""
            self._table_id = (table_id, encoded_id)
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
# Each reader walks its message's fields once. A known field with another wire type than the
# contract's is irregular (protobuf would keep it as an unknown field); an unknown field is
# skipped, as protobuf does. Keys, lengths and values under 128 (nearly all) are read inline:
# a call per varint would cost a third of a request's reading.


class Request:
    """What the SDK uses of an ``ActionRequest``, read from its bytes."""

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


def _key(data: bytes, at: int, end: int) -> tuple[int, int]:
    """The key at ``at`` (``at < end``) and the position after it."""
    key = data[at]
    if key < 0x80:
        return key, at + 1
    if at + 1 < end and data[at + 1] < 0x80:  # fields 16 and up
        return key & 0x7F | data[at + 1] << 7, at + 2
    return read_varint(data, at, end)


def _payload(data: bytes, at: int, end: int) -> tuple[int, int]:
    """A length-delimited field's payload: (start, end)."""
    if at < end:
        size = data[at]
        if size < 0x80:
            stop = at + 1 + size
            if stop > end:
                raise Irregular
            return at + 1, stop
    return read_length(data, at, end)


_MINUS_ONE: Final = varint((1 << 64) - 1)
"""-1 as an ``int32`` field writes it (ten bytes): an unknown seat, frequent in observations."""


def _value(data: bytes, at: int, end: int) -> tuple[int, int]:
    """A varint field's value as an ``int32`` and the position after it."""
    if at < end:
        value = data[at]
        if value < 0x80:
            return value, at + 1
        if at + 1 < end and data[at + 1] < 0x80:  # two bytes: bids, scores
            return value & 0x7F | data[at + 1] << 7, at + 2
        if data[at : at + 10] == _MINUS_ONE:
            return -1, at + 10
    value, at = read_varint(data, at, end)
    return int32(value), at


_R_TABLE_ID: Final = _R.TABLE_ID
_R_REQUEST_ID: Final = _R.REQUEST_ID
_R_DEADLINE_MS: Final = _R.DEADLINE_MS
_R_OBSERVATION: Final = _R.OBSERVATION
_R_LEGAL_ACTIONS: Final = _R.LEGAL_ACTIONS
_R_CARD_MASKS: Final = _R.CARD_MASKS
_R_VARINTS: Final = frozenset((_R.REQUEST_ID, _R.SEAT, _R.DEADLINE_MS, _R.BANK_MS, _R.LAST_SEQ))
_R_LENGTHS: Final = frozenset((_R.TABLE_ID, _R.OBSERVATION, _R.LEGAL_ACTIONS, _R.CARD_MASKS))


def read_request(data: bytes, at: int, end: int) -> Request:
    """The ``ActionRequest`` in ``data[at:end]``; :class:`Irregular` outside the regular case."""
    table_id = ""
    request_id = deadline_ms = 0
    observation_at = observation_end = legal_at = legal_end = masks_at = masks_end = -1
    while at < end:
        key, at = _key(data, at, end)
        number = key >> 3
        wire_type = key & 7
        if wire_type == LENGTH:
            start, at = _payload(data, at, end)
            if number == _R_OBSERVATION:
                if observation_at >= 0:
                    raise Irregular  # protobuf would merge the two
                observation_at, observation_end = start, at
            elif number == _R_LEGAL_ACTIONS:
                if legal_at >= 0:
                    raise Irregular
                legal_at, legal_end = start, at
            elif number == _R_CARD_MASKS:
                if masks_at >= 0:
                    raise Irregular
                masks_at, masks_end = start, at
            elif number == _R_TABLE_ID:
                table_id = data[start:at].decode()
            elif number in _R_VARINTS:
                raise Irregular
        elif wire_type == VARINT:
            if number == _R_REQUEST_ID:
                request_id, at = read_varint(data, at, end)  # a uint64
            elif number == _R_DEADLINE_MS:
                deadline_ms, at = _value(data, at, end)
            elif number in _R_LENGTHS:
                raise Irregular
            else:
                at = read_varint(data, at, end)[1]
        elif number in _R_VARINTS or number in _R_LENGTHS:
            raise Irregular
        else:
            at = skip(data, at, end, wire_type)
    if observation_at < 0 or legal_at < 0 or masks_at < 0:
        raise Irregular  # convert's errors, or a server without card masks
    masks = _read_masks(data, masks_at, masks_end)
    return Request(
        table_id,
        request_id,
        deadline_ms,
        _read_observation(data, observation_at, observation_end, masks),
        _read_legal(data, legal_at, legal_end, masks),
    )


_M_FIRST: Final = min(_M.HAND, _M.NEST, _M.BURIED, _M.BURY_CANDIDATES, _M.CALLABLE_CARDS)
_M_LAST: Final = max(_M.HAND, _M.NEST, _M.BURIED, _M.BURY_CANDIDATES, _M.PLAYABLE_CARDS)
assert _M_LAST - _M_FIRST == 5  # the six masks, numbered in a row


def _read_masks(data: bytes, at: int, end: int) -> list[int]:
    """A request's ``CardMasks``, by field number."""
    masks = [0] * (_M_LAST + 1)
    while at < end:
        key, at = _key(data, at, end)
        number = key >> 3
        wire_type = key & 7
        if _M_FIRST <= number <= _M_LAST:
            if wire_type != FIXED64 or at + 8 > end:
                raise Irregular
            masks[number] = convert.mask_from_bits(int.from_bytes(data[at : at + 8], "little"))
            at += 8
        else:
            at = skip(data, at, end, wire_type)
    return masks


_RULESETS: Final[BoundedMemo[bytes, Ruleset]] = BoundedMemo(
    64, lambda raw: convert.ruleset_from_proto(ruleset_pb2.Ruleset.FromString(raw))
)
"""Rulesets by their bytes (every observation carries one)."""
_TRICKS: Final[BoundedMemo[bytes, Trick]] = BoundedMemo(
    4096, lambda raw: convert.trick_from_proto(actions_pb2.Trick.FromString(raw))
)
"""Tricks by their bytes (a completed trick comes again in every later observation of its
hand)."""
_CARDS: Final[BoundedMemo[bytes, int]] = BoundedMemo(
    256, lambda raw: convert.card_from_proto(cards_pb2.Card.FromString(raw))
)
"""Cards by their bytes (the called card)."""
_NO_TRICK: Final = Trick(-1, (), -1, 0)

_O_RULESET: Final = _O.RULESET
_O_AUCTION: Final = _O.AUCTION
_O_CALLED_CARD: Final = _O.CALLED_CARD
_O_CURRENT_TRICK: Final = _O.CURRENT_TRICK
_O_COMPLETED_TRICKS: Final = _O.COMPLETED_TRICKS
_O_CARD_FIELDS: Final = frozenset((_O.HAND, _O.NEST, _O.BURIED))
"""The observation's card fields (read from the card masks instead)."""
_O_INTS: Final = frozenset((_O.POINTS_CAPTURED, _O.SCORES, _O.SIDES))
"""The observation's repeated ``int32`` fields."""
_O_SCALARS: Final = frozenset(
    (
        _O.SEAT,
        _O.HAND_NUMBER,
        _O.DEALER,
        _O.PHASE,
        _O.CURRENT_PLAYER,
        _O.HIGH_BID,
        _O.HIGH_BIDDER,
        _O.BIDDER,
        _O.BID,
        _O.TRUMP,
        _O.BURIED_COUNT,
        _O.PARTNER,
        _O.PARTNER_REVEALED,
    )
)
"""The observation's varint fields."""
_O_SIZE: Final = max(_O_SCALARS | _O_INTS) + 1


def _read_observation(data: bytes, at: int, end: int, masks: list[int]) -> Observation:
    ruleset: Ruleset | None = None
    values = [0] * _O_SIZE  # the scalars by field number
    ints: list[list[int]] = [[] for _ in range(_O_SIZE)]  # the repeated ints by field number
    auction: list[tuple[int, int]] = []
    called_card = -1
    current_trick: Trick | None = None
    tricks: list[Trick] = []
    while at < end:
        key = data[at]  # _key and _payload written out: the hand's cards are a field each
        if key < 0x80:
            at += 1
        elif at + 1 < end and data[at + 1] < 0x80:  # fields 16 and up: two-byte keys
            key = key & 0x7F | data[at + 1] << 7
            at += 2
        else:
            key, at = read_varint(data, at, end)
        number = key >> 3
        wire_type = key & 7
        if wire_type == LENGTH:
            if at < end and data[at] < 0x80:
                start = at + 1
                at = start + data[at]
                if at > end:
                    raise Irregular
            else:
                start, at = read_length(data, at, end)
            if number == _O_COMPLETED_TRICKS:
                tricks.append(_TRICKS[data[start:at]])
            elif number in _O_CARD_FIELDS:
                pass  # read from the card masks
            elif number == _O_AUCTION:
                auction.append(_ENTRIES[data[start:at]])
            elif number == _O_CURRENT_TRICK:
                if current_trick is not None:
                    raise Irregular
                current_trick = _TRICKS[data[start:at]]
            elif number == _O_RULESET:
                if ruleset is not None:
                    raise Irregular
                ruleset = _RULESETS[data[start:at]]
            elif number == _O_CALLED_CARD:
                if called_card >= 0:
                    raise Irregular
                called_card = _CARDS[data[start:at]]
            elif number in _O_INTS:
                into = ints[number]
                while start < at:
                    value, start = _value(data, start, at)
                    into.append(value)
            elif number in _O_SCALARS:
                raise Irregular
        elif wire_type == VARINT:
            value, at = _value(data, at, end)
            if number in _O_SCALARS:
                values[number] = value
            elif number in _O_INTS:
                ints[number].append(value)
            elif number < _O_SIZE or number in _O_CARD_FIELDS:
                raise Irregular  # a message or card field as a varint
        elif number < _O_SIZE or number in _O_CARD_FIELDS:
            raise Irregular
        else:
            at = skip(data, at, end, wire_type)
    seat = values[_O.SEAT]
    if ruleset is None or not -1 <= seat < ruleset.players:
        raise Irregular
    phase = _PHASES.get(values[_O.PHASE])
    if phase is None:
        raise Irregular
    trump: Suit | None = None
    if values[_O.TRUMP]:
        trump = _SUITS.get(values[_O.TRUMP])
        if trump is None:
            raise Irregular
    return new_observation(
        ruleset,
        seat,
        values[_O.HAND_NUMBER],
        values[_O.DEALER],
        phase,
        values[_O.CURRENT_PLAYER],
        masks[_M.HAND],
        masks[_M.NEST],
        tuple(auction),
        values[_O.HIGH_BID],
        values[_O.HIGH_BIDDER],
        values[_O.BIDDER],
        values[_O.BID],
        trump,
        masks[_M.BURIED],
        values[_O.BURIED_COUNT],
        called_card,
        values[_O.PARTNER],  # partner_revealed: not an engine field
        _NO_TRICK if current_trick is None else current_trick,
        tuple(tricks),
        tuple(ints[_O.POINTS_CAPTURED]),
        tuple(ints[_O.SCORES]),
        tuple(ints[_O.SIDES]),
    )


_E_SEAT: Final = _E.SEAT
_E_AMOUNT: Final = _E.AMOUNT


def _read_entry(data: bytes) -> tuple[int, int]:
    """An ``AuctionEntry`` from its bytes: (seat, amount)."""
    at, end = 0, len(data)
    seat = amount = 0
    while at < end:
        key, at = _key(data, at, end)
        number = key >> 3
        wire_type = key & 7
        if number in (_E_SEAT, _E_AMOUNT):
            if wire_type != VARINT:
                raise Irregular
            value, at = _value(data, at, end)
            if number == _E_SEAT:
                seat = value
            else:
                amount = value
        else:
            at = skip(data, at, end, wire_type)
    return seat, amount


_ENTRIES: Final[BoundedMemo[bytes, tuple[int, int]]] = BoundedMemo(4096, _read_entry)
"""Auction entries by their bytes (each comes again in every later observation of its hand)."""


_L_CARD_FIELDS: Final = frozenset((_L.BURY_CANDIDATES, _L.CALLABLE_CARDS, _L.PLAYABLE_CARDS))
_L_INTS: Final = frozenset((_L.BIDS, _L.TRUMP_SUITS))
_L_SCALARS: Final = frozenset((_L.PHASE, _L.SEAT, _L.BURY_COUNT, _L.CAN_PASS))
_L_SIZE: Final = max(_L_CARD_FIELDS | _L_INTS | _L_SCALARS) + 1


def _read_legal(data: bytes, at: int, end: int, masks: list[int]) -> LegalActions:
    values = [0] * _L_SIZE
    ints: list[list[int]] = [[] for _ in range(_L_SIZE)]
    while at < end:
        key = data[at]  # as in _read_observation: the playable cards are a field each
        if key < 0x80:
            at += 1
        else:
            key, at = read_varint(data, at, end)
        number = key >> 3
        wire_type = key & 7
        if wire_type == LENGTH:
            if at < end and data[at] < 0x80:
                start = at + 1
                at = start + data[at]
                if at > end:
                    raise Irregular
            else:
                start, at = read_length(data, at, end)
            if number in _L_INTS:
                into = ints[number]
                while start < at:
                    value, start = _value(data, start, at)
                    into.append(value)
            elif number in _L_SCALARS:
                raise Irregular
            # the card fields: read from the card masks
        elif wire_type == VARINT:
            if number == _L.CAN_PASS:
                value, at = read_varint(data, at, end)  # a bool: any value but 0 is true
                values[number] = value != 0
            else:
                value, at = _value(data, at, end)
                if number in _L_SCALARS:
                    values[number] = value
                elif number in _L_INTS:
                    ints[number].append(value)
                elif number in _L_CARD_FIELDS:
                    raise Irregular
        elif number < _L_SIZE:
            raise Irregular
        else:
            at = skip(data, at, end, wire_type)
    phase = _PHASES.get(values[_L.PHASE])
    if phase is None:
        raise Irregular
    for suit in ints[_L.TRUMP_SUITS]:
        if suit not in _SUITS:
            raise Irregular
    return LegalActions(
        phase,
        values[_L.SEAT],
        can_pass=bool(values[_L.CAN_PASS]),
        bids=tuple(ints[_L.BIDS]),
        bury_from=masks[_M.BURY_CANDIDATES],
        bury_count=values[_L.BURY_COUNT],
        call_from=masks[_M.CALLABLE_CARDS],
        play=masks[_M.PLAYABLE_CARDS],
    )
