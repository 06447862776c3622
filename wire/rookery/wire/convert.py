"""Engine ↔ proto conversion: the one place where ``rookery.engine`` values meet ``rookery.v1``.

Every function here is a pure mapping. ``*_to_proto`` builds a new message from an engine value;
``*_from_proto`` reads a message into an engine value and raises ``MalformedMessageError`` naming
the offending field when the message cannot describe one (an action with no kind, a card with an
impossible suit/rank/rook combination, a bury naming a card twice, an unknown enum value, a
ruleset the engine refuses). Whether an action is *legal* is the engine's business, not this
module's.

Proto ``0`` / ``UNSPECIFIED`` values read as the defaults the proto comments document:
``PARTNERSHIP_UNSPECIFIED`` → ``FIXED``, ``FIRST_LEAD_UNSPECIFIED`` → ``BIDDER``,
``ALL_PASS_UNSPECIFIED`` → ``REDEAL``, ``BOTH_OVER_UNSPECIFIED`` → ``HIGHER_TOTAL``,
``max_bid = 0`` → the deck's point total, an empty ruleset name → ``"custom"``.

>>> from rookery.engine import parse_action, parse_card
>>> card_from_proto(card_to_proto(parse_card("R14"))) == parse_card("R14")
True
>>> str(action_from_proto(action_to_proto(parse_action("bury B5 ROOK"))))
'bury B5 ROOK'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from enum import Enum
from typing import Any, TypeAlias, TypeVar

from google.protobuf.internal.containers import RepeatedCompositeFieldContainer
from rookery.engine import (
    NUM_CARDS,
    Action,
    AllPass,
    AuctionWon,
    Bid,
    BidMade,
    BothOver,
    Bury,
    CallCard,
    CardCalled,
    CardPlayed,
    CardsBuried,
    Deal,
    Event,
    FirstLead,
    Forfeit,
    ForfeitKind,
    GameOver,
    GameResult,
    HandDealt,
    HandRedealt,
    HandResult,
    HandScored,
    HandSeeds,
    LegalActions,
    NameTrump,
    NestTaken,
    Observation,
    PartnerRevealed,
    Partnership,
    Pass,
    Passed,
    Phase,
    PlayCard,
    Ruleset,
    RulesetError,
    SeatAssignment,
    Suit,
    Termination,
    Trick,
    TrickWon,
    TrumpNamed,
    bid_action,
    card_name,
    card_rank,
    card_suit,
    cards_of,
    new_observation,
    new_trick,
    redeal_result,
)
from rookery.engine import PASS as ENGINE_PASS
from rookery.engine import PLAY as ENGINE_PLAY
from rookery.engine import TRUMP as ENGINE_TRUMP
from rookery.v1 import (
    actions_pb2,
    cards_pb2,
    events_pb2,
    results_pb2,
    ruleset_pb2,
    table_pb2,
)

from .errors import MalformedMessageError
from .memo import BoundedMemo

__all__ = [
    # Compatibility only: these three are defined in (and exported by) ``rookery.engine``, where
    # new code imports them; they stay here by name for code written before they moved.
    "Forfeit",
    "ForfeitKind",
    "SeatAssignment",
    "action_from_proto",
    "action_to_proto",
    "card_from_proto",
    "card_masks_to_proto",
    "card_to_proto",
    "cards_to_proto",
    "deal_from_proto",
    "deal_to_proto",
    "event_to_proto",
    "forfeit_from_proto",
    "game_result_from_proto",
    "game_result_to_proto",
    "hand_result_from_proto",
    "hand_result_to_proto",
    "is_partner_revealed",
    "legal_actions_from_proto",
    "legal_actions_to_proto",
    "mask_from_bits",
    "mask_from_proto",
    "observation_from_proto",
    "observation_to_proto",
    "phase_from_proto",
    "phase_to_proto",
    "ruleset_from_proto",
    "ruleset_to_proto",
    "seat_info_from_proto",
    "seat_info_to_proto",
    "suit_from_proto",
    "suit_to_proto",
    "termination_from_proto",
    "termination_name",
    "termination_to_proto",
    "trick_from_proto",
    "trick_to_proto",
]

_E = TypeVar("_E", bound=Enum)
_Suit: TypeAlias = cards_pb2.Suit.ValueType
_Phase: TypeAlias = actions_pb2.Phase.ValueType
_Reason: TypeAlias = results_pb2.TerminationReason.ValueType

# Cards ------------------------------------------------------------------------------------------


def _card_key(card: int) -> tuple[int, int, int]:
    suit = card_suit(card)
    if suit is None:
        return (0, 0, card - NUM_CARDS + 3)  # ROOK = 56 → rook 1, ROOK2 = 57 → rook 2
    return (int(suit) + 1, card_rank(card), 0)


_CARD_KEYS: tuple[tuple[int, int, int], ...] = tuple(_card_key(card) for card in range(NUM_CARDS))
_CARD_BY_KEY: dict[tuple[int, int, int], int] = {key: card for card, key in enumerate(_CARD_KEYS)}
# Prebuilt messages, only ever copied (``extend`` and ``CopyFrom`` copy), never handed out.
_CARD_PROTOS: tuple[cards_pb2.Card, ...] = tuple(
    cards_pb2.Card(suit=_Suit(suit), rank=rank, rook=rook) for suit, rank, rook in _CARD_KEYS
)
_SUIT_NAMES = {value.number: value.name for value in cards_pb2.Suit.DESCRIPTOR.values}


def card_to_proto(card: int) -> cards_pb2.Card:
    """The proto ``Card`` of the engine card index ``card``."""
    suit, rank, rook = _CARD_KEYS[card]
    return cards_pb2.Card(suit=_Suit(suit), rank=rank, rook=rook)


def card_from_proto(message: cards_pb2.Card, field: str = "card") -> int:
    """The engine card index of a proto ``Card``; ``MalformedMessageError`` when no card has it."""
    key = (message.suit, message.rank, message.rook)
    card = _CARD_BY_KEY.get(key)
    if card is not None:
        return card
    suit, rank, rook = key
    if rook not in (0, 1, 2):
        raise MalformedMessageError(
            f"{field}.rook", f"must be 0, 1 (ROOK) or 2 (ROOK2), got {rook}"
        )
    if rook:
        raise MalformedMessageError(
            field,
            f"a Rook card (rook={rook}) has suit SUIT_UNSPECIFIED and rank 0, "
            f"got suit {_SUIT_NAMES.get(suit, suit)} and rank {rank}",
        )
    if suit == cards_pb2.SUIT_UNSPECIFIED:
        raise MalformedMessageError(
            f"{field}.suit", "a numbered card needs a suit (rook = 0), got SUIT_UNSPECIFIED"
        )
    if suit not in _SUIT_NAMES:
        raise MalformedMessageError(f"{field}.suit", f"unknown Suit value {suit}")
    raise MalformedMessageError(f"{field}.rank", f"must be 1 to 14, got {rank}")


def cards_to_proto(mask: int) -> list[cards_pb2.Card]:
    """The proto cards of a card mask, ascending by engine index."""
    return [card_to_proto(card) for card in cards_of(mask)]


def _fill_cards(target: RepeatedCompositeFieldContainer[cards_pb2.Card], mask: int) -> None:
    target.extend(_CARD_PROTOS[card] for card in cards_of(mask))


def mask_from_proto(cards: Iterable[cards_pb2.Card], field: str = "cards") -> int:
    """The card mask of repeated proto cards; a card given twice is malformed."""
    mask = 0
    get = _CARD_BY_KEY.get
    for message in cards:  # the common case first: no field names built
        card = get((message.suit, message.rank, message.rook))
        if card is None or mask >> card & 1:
            return _checked_mask_from_proto(cards, field)
        mask |= 1 << card
    return mask


_NO_CARD_BITS = ~((1 << NUM_CARDS) - 1)


def mask_from_bits(bits: int, field: str = "cards") -> int:
    """The card mask of a ``CardMasks`` field: refused when a bit stands for no card."""
    if bits & _NO_CARD_BITS:
        raise MalformedMessageError(
            field, f"sets bit {(bits & _NO_CARD_BITS).bit_length() - 1}: only bits 0..57 are cards"
        )
    return bits


def card_masks_to_proto(observation: Observation, legal: LegalActions) -> actions_pb2.CardMasks:
    """The ``CardMasks`` of an ActionRequest: its observation's and legal actions' card sets."""
    return actions_pb2.CardMasks(
        hand=observation.hand,
        nest=observation.nest,
        buried=observation.buried,
        bury_candidates=legal.bury_from,
        callable_cards=legal.call_from,
        playable_cards=legal.play,
    )


def _checked_mask_from_proto(cards: Iterable[cards_pb2.Card], field: str) -> int:
    mask = 0
    for index, message in enumerate(cards):
        bit = 1 << card_from_proto(message, f"{field}[{index}]")
        if mask & bit:
            raise MalformedMessageError(
                f"{field}[{index}]", f"{card_name(bit.bit_length() - 1)} is given twice"
            )
        mask |= bit
    return mask


def _optional_card_from_proto(message: cards_pb2.Card, present: bool, field: str) -> int:
    return card_from_proto(message, field) if present else -1


# Suits and phases -------------------------------------------------------------------------------


def suit_to_proto(suit: Suit | None) -> _Suit:
    """The proto ``Suit`` of an engine suit (``None``: ``SUIT_UNSPECIFIED``)."""
    return _Suit(0 if suit is None else int(suit) + 1)


def suit_from_proto(value: int, field: str = "suit") -> Suit:
    """The engine suit of a proto ``Suit``; UNSPECIFIED or an unknown value is malformed."""
    if 1 <= value <= 4:
        return Suit(value - 1)
    if value == cards_pb2.SUIT_UNSPECIFIED:
        raise MalformedMessageError(field, "SUIT_UNSPECIFIED is not a suit")
    raise MalformedMessageError(field, f"unknown Suit value {value}")


def _optional_suit_from_proto(value: int, field: str) -> Suit | None:
    return None if value == cards_pb2.SUIT_UNSPECIFIED else suit_from_proto(value, field)


_PHASE_TO_PROTO: dict[Phase, _Phase] = {
    Phase.BIDDING: actions_pb2.PHASE_BIDDING,
    Phase.NAME_TRUMP: actions_pb2.PHASE_NAME_TRUMP,
    Phase.BURY: actions_pb2.PHASE_BURY,
    Phase.CALL: actions_pb2.PHASE_CALL,
    Phase.PLAY: actions_pb2.PHASE_PLAY,
    Phase.GAME_OVER: actions_pb2.PHASE_GAME_OVER,
}
_PHASE_FROM_PROTO: dict[int, Phase] = {value: phase for phase, value in _PHASE_TO_PROTO.items()}


def phase_to_proto(phase: Phase) -> _Phase:
    """The proto ``Phase`` of an engine phase."""
    return _PHASE_TO_PROTO[phase]


def phase_from_proto(value: int, field: str = "phase") -> Phase:
    """The engine phase of a proto ``Phase``; UNSPECIFIED or an unknown value is malformed."""
    phase = _PHASE_FROM_PROTO.get(value)
    if phase is None:
        if value == actions_pb2.PHASE_UNSPECIFIED:
            raise MalformedMessageError(field, "PHASE_UNSPECIFIED is not a phase")
        raise MalformedMessageError(field, f"unknown Phase value {value}")
    return phase


# Ruleset ----------------------------------------------------------------------------------------

_PARTNERSHIP = {
    Partnership.FIXED: ruleset_pb2.PARTNERSHIP_FIXED,
    Partnership.NONE: ruleset_pb2.PARTNERSHIP_NONE,
    Partnership.CALLED: ruleset_pb2.PARTNERSHIP_CALLED,
}
_FIRST_LEAD = {
    FirstLead.BIDDER: ruleset_pb2.FIRST_LEAD_BIDDER,
    FirstLead.LEFT_OF_BIDDER: ruleset_pb2.FIRST_LEAD_LEFT_OF_BIDDER,
}
_ALL_PASS = {
    AllPass.REDEAL: ruleset_pb2.ALL_PASS_REDEAL,
    AllPass.DEALER_FORCED: ruleset_pb2.ALL_PASS_DEALER_FORCED,
}
_BOTH_OVER = {
    BothOver.HIGHER_TOTAL: ruleset_pb2.BOTH_OVER_HIGHER_TOTAL,
    BothOver.BIDDER_WINS: ruleset_pb2.BOTH_OVER_BIDDER_WINS,
}
_HAND_SEEDS = {
    HandSeeds.DEALT: ruleset_pb2.HAND_SEEDS_DEALT,
    HandSeeds.PLAYED: ruleset_pb2.HAND_SEEDS_PLAYED,
}


def _enum_reader(
    table: Mapping[_E, int], default: _E, type_name: str
) -> tuple[dict[int, _E], _E, str]:
    return ({value: member for member, value in table.items()}, default, type_name)


_PARTNERSHIP_FROM = _enum_reader(_PARTNERSHIP, Partnership.FIXED, "Partnership")
_FIRST_LEAD_FROM = _enum_reader(_FIRST_LEAD, FirstLead.BIDDER, "FirstLead")
_ALL_PASS_FROM = _enum_reader(_ALL_PASS, AllPass.REDEAL, "AllPass")
_BOTH_OVER_FROM = _enum_reader(_BOTH_OVER, BothOver.HIGHER_TOTAL, "BothOver")
_HAND_SEEDS_FROM = _enum_reader(_HAND_SEEDS, HandSeeds.DEALT, "HandSeeds")


def _read_enum(reader: tuple[dict[int, _E], _E, str], value: int, field: str) -> _E:
    table, default, type_name = reader
    if value == 0:
        return default
    member = table.get(value)
    if member is None:
        raise MalformedMessageError(field, f"unknown {type_name} value {value}")
    return member


def ruleset_to_proto(ruleset: Ruleset) -> ruleset_pb2.Ruleset:
    """The complete proto ``Ruleset`` (``max_bid = None`` is sent as 0: the deck's total)."""
    return ruleset_pb2.Ruleset(
        name=ruleset.name,
        players=ruleset.players,
        partnership=_PARTNERSHIP[ruleset.partnership],
        lowest_rank=ruleset.lowest_rank,
        rook_cards=ruleset.rook_cards,
        nest_size=ruleset.nest_size,
        min_bid=ruleset.min_bid,
        bid_step=ruleset.bid_step,
        max_bid=ruleset.max_bid or 0,
        first_lead=_FIRST_LEAD[ruleset.first_lead],
        all_pass=_ALL_PASS[ruleset.all_pass],
        trump_first=ruleset.trump_first,
        rook_free_play=ruleset.rook_free_play,
        both_over=_BOTH_OVER[ruleset.both_over],
        target=ruleset.target,
        max_hands=ruleset.max_hands,
        last_trick_bonus=ruleset.last_trick_bonus,
        first_dealer=ruleset.first_dealer,
        hand_seeds=_HAND_SEEDS[ruleset.hand_seeds],
    )


def ruleset_from_proto(message: ruleset_pb2.Ruleset, field: str = "ruleset") -> Ruleset:
    """The engine ruleset of a proto ``Ruleset``, validated by the engine.

    A parameter the engine refuses raises ``MalformedMessageError`` naming ``ruleset.<parameter>``.
    Rulesets read before are remembered (by their encoding): every observation carries one.
    """
    key = message.SerializeToString(deterministic=True)
    known = _RULESETS_READ.get(key)
    if known is not None:
        return known
    return _RULESETS_READ.remember(key, _ruleset_from_proto(message, field))


_RULESETS_READ: BoundedMemo[bytes, Ruleset] = BoundedMemo(64)
"""Rulesets read, by encoding (a hit: 4.8× faster than validating the ruleset again)."""


def _ruleset_from_proto(message: ruleset_pb2.Ruleset, field: str) -> Ruleset:
    try:
        return Ruleset(
            name=message.name or "custom",
            players=message.players,
            partnership=_read_enum(_PARTNERSHIP_FROM, message.partnership, f"{field}.partnership"),
            lowest_rank=message.lowest_rank,
            rook_cards=message.rook_cards,
            nest_size=message.nest_size,
            min_bid=message.min_bid,
            bid_step=message.bid_step,
            max_bid=message.max_bid or None,
            first_lead=_read_enum(_FIRST_LEAD_FROM, message.first_lead, f"{field}.first_lead"),
            all_pass=_read_enum(_ALL_PASS_FROM, message.all_pass, f"{field}.all_pass"),
            trump_first=message.trump_first,
            rook_free_play=message.rook_free_play,
            both_over=_read_enum(_BOTH_OVER_FROM, message.both_over, f"{field}.both_over"),
            target=message.target,
            max_hands=message.max_hands,
            last_trick_bonus=message.last_trick_bonus,
            first_dealer=message.first_dealer,
            hand_seeds=_read_enum(_HAND_SEEDS_FROM, message.hand_seeds, f"{field}.hand_seeds"),
        )
    except RulesetError as error:
        raise MalformedMessageError(f"{field}.{error.parameter}", error.reason) from error


# Actions ----------------------------------------------------------------------------------------


def action_to_proto(action: Action) -> actions_pb2.Action:
    """The proto ``Action`` of an engine action."""
    message = actions_pb2.Action()
    if isinstance(action, PlayCard):
        message.play_card.card.CopyFrom(_CARD_PROTOS[action.card])
    elif isinstance(action, Bid):
        message.bid.amount = action.amount
    elif isinstance(action, Pass):
        getattr(message, "pass").SetInParent()  # `pass` is a Python keyword
    elif isinstance(action, NameTrump):
        message.name_trump.suit = suit_to_proto(action.suit)
    elif isinstance(action, Bury):
        _fill_cards(message.bury.cards, action.cards)
    elif isinstance(action, CallCard):
        message.call_card.card.CopyFrom(_CARD_PROTOS[action.card])
    else:
        raise TypeError(f"not an engine action: {action!r}")
    return message


_ACTION_KINDS = "bid, pass, name_trump, bury, call_card or play_card"


def action_from_proto(message: actions_pb2.Action, field: str = "action") -> Action:
    """The engine action of a proto ``Action``.

    Malformed (``MalformedMessageError``): no kind set, an impossible card, a card field left
    unset, ``SUIT_UNSPECIFIED`` as trump, a bury naming a card twice. Everything else — a bid
    that is too low, a card not in hand, a bury of the wrong size — is for the engine to judge.
    Actions read before are remembered (by their encoding): the server reads one per move.
    """
    key = message.SerializeToString()
    known = _ACTIONS_READ.get(key)
    if known is not None:
        return known
    action = _action_from_proto(message, field)
    if len(key) <= _ACTION_KEPT_BYTES:  # not a bot's padding (unknown fields are kept)
        _ACTIONS_READ.remember(key, action)
    return action


_ACTION_KEPT_BYTES = 128
_ACTIONS_READ: BoundedMemo[bytes, Action] = BoundedMemo(4096)
"""Actions read, by encoding (a hit: 2.8× faster than decoding)."""


def _action_from_proto(message: actions_pb2.Action, field: str) -> Action:
    kind = message.WhichOneof("kind")
    if kind == "play_card":
        if not message.play_card.HasField("card"):
            raise MalformedMessageError(f"{field}.play_card.card", "is not set")
        return ENGINE_PLAY[card_from_proto(message.play_card.card, f"{field}.play_card.card")]
    if kind == "bid":
        return bid_action(message.bid.amount)
    if kind == "pass":
        return ENGINE_PASS
    if kind == "name_trump":
        return ENGINE_TRUMP[suit_from_proto(message.name_trump.suit, f"{field}.name_trump.suit")]
    if kind == "bury":
        return Bury(mask_from_proto(message.bury.cards, f"{field}.bury.cards"))
    if kind == "call_card":
        if not message.call_card.HasField("card"):
            raise MalformedMessageError(f"{field}.call_card.card", "is not set")
        return CallCard(card_from_proto(message.call_card.card, f"{field}.call_card.card"))
    raise MalformedMessageError(field, f"no action kind is set (expected one of {_ACTION_KINDS})")


def legal_actions_to_proto(legal: LegalActions) -> actions_pb2.LegalActions:
    """The proto ``LegalActions``: the compact description, never the enumerated bury choices."""
    message = actions_pb2.LegalActions(
        phase=_PHASE_TO_PROTO[legal.phase],
        seat=legal.player,
        can_pass=legal.can_pass,
        bids=legal.bids,
        trump_suits=[suit_to_proto(suit) for suit in legal.suits],
        bury_count=legal.bury_count,
    )
    _fill_cards(message.bury_candidates, legal.bury_from)
    _fill_cards(message.callable_cards, legal.call_from)
    _fill_cards(message.playable_cards, legal.play)
    return message


def legal_actions_from_proto(
    message: actions_pb2.LegalActions,
    field: str = "legal_actions",
    *,
    masks: actions_pb2.CardMasks | None = None,
) -> LegalActions:
    """The engine ``LegalActions`` of a proto ``LegalActions``; with ``masks`` (an
    ActionRequest's ``card_masks``), its card sets are read from those instead of the repeated
    card fields."""
    phase = phase_from_proto(message.phase, f"{field}.phase")
    for index, suit in enumerate(message.trump_suits):
        suit_from_proto(suit, f"{field}.trump_suits[{index}]")
    if masks is not None:
        bury_from = mask_from_bits(masks.bury_candidates, "card_masks.bury_candidates")
        call_from = mask_from_bits(masks.callable_cards, "card_masks.callable_cards")
        play = mask_from_bits(masks.playable_cards, "card_masks.playable_cards")
    else:
        bury_from = mask_from_proto(message.bury_candidates, f"{field}.bury_candidates")
        call_from = mask_from_proto(message.callable_cards, f"{field}.callable_cards")
        play = mask_from_proto(message.playable_cards, f"{field}.playable_cards")
    return LegalActions(
        phase,
        message.seat,
        can_pass=message.can_pass,
        bids=tuple(message.bids),
        bury_from=bury_from,
        bury_count=message.bury_count,
        call_from=call_from,
        play=play,
    )


# Tricks and observations ------------------------------------------------------------------------

_NO_TRICK = Trick(-1, (), -1, 0)


def trick_to_proto(trick: Trick) -> actions_pb2.Trick:
    """The proto ``Trick`` of an engine trick (open: ``winner = -1``)."""
    message = actions_pb2.Trick(leader=trick.leader, winner=trick.winner, points=trick.points)
    for seat, card in trick.cards:
        played = message.cards.add(seat=seat)
        played.card.CopyFrom(_CARD_PROTOS[card])
    return message


def trick_from_proto(message: actions_pb2.Trick, field: str = "trick") -> Trick:
    """The engine trick of a proto ``Trick``.

    Tricks read before are remembered (by their encoding): a completed trick comes again in every
    later observation of its hand.
    """
    key = message.SerializeToString(deterministic=True)
    known = _TRICKS_READ.get(key)
    if known is not None:
        return known
    cards = []
    get = _CARD_BY_KEY.get
    for played in message.cards:  # the common case first: no field names built
        proto = played.card
        card = get((proto.suit, proto.rank, proto.rook))  # an unset card is no card's key
        if card is None:
            return _checked_trick_from_proto(message, field)
        cards.append((played.seat, card))
    return _TRICKS_READ.remember(
        key, new_trick(message.leader, tuple(cards), message.winner, message.points)
    )


_TRICKS_READ: BoundedMemo[bytes, Trick] = BoundedMemo(4096)
"""Tricks read, by encoding (a hit: 1.4× faster than decoding)."""


def _checked_trick_from_proto(message: actions_pb2.Trick, field: str) -> Trick:
    cards = []
    for index, played in enumerate(message.cards):
        if not played.HasField("card"):
            raise MalformedMessageError(f"{field}.cards[{index}].card", "is not set")
        cards.append((played.seat, card_from_proto(played.card, f"{field}.cards[{index}].card")))
    return new_trick(message.leader, tuple(cards), message.winner, message.points)


def is_partner_revealed(observation: Observation) -> bool:
    """Whether the called card has been played (the proto ``Observation.partner_revealed``)."""
    called = observation.called_card
    if called < 0:
        return False
    for trick in (*observation.completed_tricks, observation.current_trick):
        for _, card in trick.cards:
            if card == called:
                return True
    return False


def observation_to_proto(observation: Observation) -> actions_pb2.Observation:
    """The proto ``Observation``: exactly the engine observation, nothing added.

    ``partner_revealed`` is derived: the called card has been played.
    """
    message = actions_pb2.Observation(
        seat=observation.seat,
        hand_number=observation.hand_number,
        dealer=observation.dealer,
        phase=_PHASE_TO_PROTO[observation.phase],
        current_player=observation.current_player,
        high_bid=observation.high_bid,
        high_bidder=observation.high_bidder,
        bidder=observation.bidder,
        bid=observation.bid,
        trump=suit_to_proto(observation.trump),
        buried_count=observation.buried_count,
        partner=observation.partner,
        partner_revealed=is_partner_revealed(observation),
        points_captured=observation.points_captured,
        scores=observation.scores,
        sides=observation.sides,
    )
    message.ruleset.CopyFrom(ruleset_to_proto(observation.ruleset))
    _fill_cards(message.hand, observation.hand)
    _fill_cards(message.nest, observation.nest)
    _fill_cards(message.buried, observation.buried)
    for seat, amount in observation.auction:
        message.auction.add(seat=seat, amount=amount)
    if observation.called_card >= 0:
        message.called_card.CopyFrom(_CARD_PROTOS[observation.called_card])
    message.current_trick.CopyFrom(trick_to_proto(observation.current_trick))
    message.completed_tricks.extend(trick_to_proto(trick) for trick in observation.completed_tricks)
    return message


def observation_from_proto(
    message: actions_pb2.Observation,
    field: str = "observation",
    *,
    earlier: Observation | None = None,
    masks: actions_pb2.CardMasks | None = None,
) -> Observation:
    """The engine ``Observation`` of a proto ``Observation`` (for bots that want engine values).

    ``earlier``: the observation read last for the same seat at the same table. Within a hand
    the auction and the completed tricks only grow, so while ``earlier`` is of the same hand its
    auction entries and tricks are taken as the message's first ones (when the message has at
    least as many and the last of them agrees) and only the new ones are decoded.

    ``masks``: the ActionRequest's ``card_masks``; the hand, nest and buried cards are then read
    from those (three integers) instead of the repeated card fields.
    """
    if not message.HasField("ruleset"):
        raise MalformedMessageError(f"{field}.ruleset", "is not set")
    ruleset = ruleset_from_proto(message.ruleset, f"{field}.ruleset")
    if not -1 <= message.seat < ruleset.players:
        raise MalformedMessageError(
            f"{field}.seat",
            f"must be -1 (spectator) or a seat 0..{ruleset.players - 1}, got {message.seat}",
        )
    current_trick = (
        trick_from_proto(message.current_trick, f"{field}.current_trick")
        if message.HasField("current_trick")
        else _NO_TRICK
    )
    known_auction: tuple[tuple[int, int], ...] = ()
    known_tricks: tuple[Trick, ...] = ()
    if earlier is not None and earlier.hand_number == message.hand_number:
        known_auction, known_tricks = earlier.auction, earlier.completed_tricks
    if masks is not None:
        hand = mask_from_bits(masks.hand, "card_masks.hand")
        nest = mask_from_bits(masks.nest, "card_masks.nest")
        buried = mask_from_bits(masks.buried, "card_masks.buried")
    else:
        hand = mask_from_proto(message.hand, f"{field}.hand")
        nest = mask_from_proto(message.nest, f"{field}.nest")
        buried = mask_from_proto(message.buried, f"{field}.buried")
    return new_observation(
        ruleset=ruleset,
        seat=message.seat,
        hand_number=message.hand_number,
        dealer=message.dealer,
        phase=phase_from_proto(message.phase, f"{field}.phase"),
        current_player=message.current_player,
        hand=hand,
        nest=nest,
        auction=_auction_from_proto(message.auction, known_auction),
        high_bid=message.high_bid,
        high_bidder=message.high_bidder,
        bidder=message.bidder,
        bid=message.bid,
        trump=_optional_suit_from_proto(message.trump, f"{field}.trump"),
        buried=buried,
        buried_count=message.buried_count,
        called_card=_optional_card_from_proto(
            message.called_card, message.HasField("called_card"), f"{field}.called_card"
        ),
        partner=message.partner,
        current_trick=current_trick,
        completed_tricks=_completed_tricks_from_proto(
            message.completed_tricks, field, known_tricks
        ),
        points_captured=tuple(message.points_captured),
        scores=tuple(message.scores),
        sides=tuple(message.sides),
    )


def _auction_from_proto(
    entries: Any, known: tuple[tuple[int, int], ...]
) -> tuple[tuple[int, int], ...]:
    count = len(known)
    if count and len(entries) >= count:
        last = entries[count - 1]
        if (last.seat, last.amount) == known[-1]:
            if len(entries) == count:
                return known
            return known + tuple((entry.seat, entry.amount) for entry in entries[count:])
    return tuple((entry.seat, entry.amount) for entry in entries)


def _completed_tricks_from_proto(
    tricks: Any, field: str, known: tuple[Trick, ...]
) -> tuple[Trick, ...]:
    count = len(known)
    if count and len(tricks) >= count:
        last, proto = known[-1], tricks[count - 1]
        if (proto.leader, proto.winner, proto.points) == (last.leader, last.winner, last.points):
            if len(tricks) == count:
                return known
            return known + tuple(
                trick_from_proto(tricks[index], f"{field}.completed_tricks[{index}]")
                for index in range(count, len(tricks))
            )
    return tuple(
        trick_from_proto(trick, f"{field}.completed_tricks[{index}]")
        for index, trick in enumerate(tricks)
    )


# Deals and results ------------------------------------------------------------------------------


def deal_to_proto(deal: Deal) -> results_pb2.Deal:
    """The proto ``Deal``: every seat's hand, the nest and the dead pile as dealt."""
    message = results_pb2.Deal()
    for hand in deal.hands:
        _fill_cards(message.hands.add().cards, hand)
    _fill_cards(message.nest, deal.nest)
    _fill_cards(message.dead, deal.dead)
    return message


def deal_from_proto(message: results_pb2.Deal, field: str = "deal") -> Deal:
    """The engine ``Deal`` of a proto ``Deal``; a card lying in two places is malformed."""
    seen = 0
    parts: list[int] = []
    names = [f"{field}.hands[{seat}].cards" for seat in range(len(message.hands))]
    lists = [hand.cards for hand in message.hands]
    for name, cards in (
        *zip(names, lists, strict=True),
        (f"{field}.nest", message.nest),
        (f"{field}.dead", message.dead),
    ):
        mask = mask_from_proto(cards, name)
        if mask & seen:
            raise MalformedMessageError(
                name, f"{card_name((mask & seen).bit_length() - 1)} is dealt to two places"
            )
        seen |= mask
        parts.append(mask)
    return Deal(tuple(parts[:-2]), parts[-2], parts[-1])


def hand_result_to_proto(result: HandResult) -> results_pb2.HandResult:
    """The proto ``HandResult``. A redeal carries only its hand number, dealer and ``redeal``."""
    message = results_pb2.HandResult(
        hand_number=result.hand_number, dealer=result.dealer, redeal=result.redeal
    )
    if result.redeal:
        return message
    message.bidder = result.bidder
    message.bid = result.bid
    message.trump = suit_to_proto(result.trump)
    message.made = result.made
    message.points.extend(result.points_per_side)
    message.score_deltas.extend(result.score_deltas)
    message.scores.extend(result.scores_after)
    message.deal.CopyFrom(deal_to_proto(result.deal))
    _fill_cards(message.buried, result.buried)
    if result.called_card >= 0:
        message.called_card.CopyFrom(_CARD_PROTOS[result.called_card])
    message.partner = result.partner
    return message


def hand_result_from_proto(
    message: results_pb2.HandResult,
    ruleset: Ruleset,
    field: str = "result",
    *,
    forced: bool = False,
    scores_before: Sequence[int] | None = None,
) -> HandResult:
    """The engine ``HandResult`` of a proto ``HandResult`` played under ``ruleset``.

    The proto does not carry two engine fields: ``forced`` (pass it when known) and, for a
    redeal, the cumulative scores (``scores_before``; zeros when not given). ``bidding_total``
    is derived from the points of the bidder's side (bidder plus partner when per player).
    """
    sides = ruleset.num_sides
    if message.redeal:
        scores = tuple(scores_before) if scores_before is not None else (0,) * sides
        return redeal_result(
            ruleset,
            hand_number=message.hand_number,
            dealer=message.dealer,
            scores_after=scores,
            deal=deal_from_proto(message.deal, f"{field}.deal"),
        )
    points = tuple(message.points)
    for name, values in (
        ("points", points),
        ("score_deltas", message.score_deltas),
        ("scores", message.scores),
    ):
        if len(values) != sides:
            raise MalformedMessageError(
                f"{field}.{name}", f"must hold one value per side ({sides}), got {len(values)}"
            )
    if not 0 <= message.bidder < ruleset.players:
        raise MalformedMessageError(f"{field}.bidder", f"not a seat: {message.bidder}")
    if ruleset.is_per_player:
        bidding_total = points[message.bidder]
        if 0 <= message.partner < ruleset.players:
            bidding_total += points[message.partner]
    else:
        bidding_total = points[ruleset.side_of(message.bidder)]
    return HandResult(
        hand_number=message.hand_number,
        dealer=message.dealer,
        bidder=message.bidder,
        bid=message.bid,
        forced=forced,
        trump=_optional_suit_from_proto(message.trump, f"{field}.trump"),
        made=message.made,
        bidding_total=bidding_total,
        points_per_side=points,
        score_deltas=tuple(message.score_deltas),
        scores_after=tuple(message.scores),
        deal=deal_from_proto(message.deal, f"{field}.deal"),
        buried=mask_from_proto(message.buried, f"{field}.buried"),
        called_card=_optional_card_from_proto(
            message.called_card, message.HasField("called_card"), f"{field}.called_card"
        ),
        partner=message.partner,
        redeal=False,
    )


_FORFEIT_REASONS: dict[ForfeitKind, _Reason] = {
    ForfeitKind.TIMEOUT: results_pb2.TERMINATION_REASON_FORFEIT_TIMEOUT,
    ForfeitKind.DISCONNECT: results_pb2.TERMINATION_REASON_FORFEIT_DISCONNECT,
    ForfeitKind.STRIKES: results_pb2.TERMINATION_REASON_FORFEIT_STRIKES,
}
_FORFEIT_KINDS: dict[int, ForfeitKind] = {value: kind for kind, value in _FORFEIT_REASONS.items()}
_REASONS: dict[Termination, _Reason] = {
    Termination.TARGET_REACHED: results_pb2.TERMINATION_REASON_TARGET_REACHED,
    Termination.MAX_HANDS: results_pb2.TERMINATION_REASON_MAX_HANDS,
    Termination.ABORTED: results_pb2.TERMINATION_REASON_ABORTED,
}
_TERMINATIONS: dict[int, Termination] = {value: reason for reason, value in _REASONS.items()} | {
    value: Termination.FORFEIT for value in _FORFEIT_KINDS
}


def termination_to_proto(reason: Termination, forfeit: ForfeitKind | None = None) -> _Reason:
    """The proto ``TerminationReason``; a ``FORFEIT`` needs its ``ForfeitKind``."""
    if reason is Termination.FORFEIT:
        if forfeit is None:
            raise ValueError("a FORFEIT termination needs a ForfeitKind to map to the proto")
        return _FORFEIT_REASONS[forfeit]
    return _REASONS[reason]


def termination_from_proto(value: int, field: str = "reason") -> Termination:
    """The engine ``Termination`` of a proto ``TerminationReason`` (the three forfeits: FORFEIT)."""
    reason = _TERMINATIONS.get(value)
    if reason is None:
        if value == results_pb2.TERMINATION_REASON_UNSPECIFIED:
            raise MalformedMessageError(
                field, "TERMINATION_REASON_UNSPECIFIED: the game has not ended"
            )
        raise MalformedMessageError(field, f"unknown TerminationReason value {value}")
    return reason


_TERMINATION_PREFIX = "TERMINATION_REASON_"


def termination_name(value: int, *, proto: bool = False) -> str:
    """A proto ``TerminationReason`` as text: its short name (``TARGET_REACHED``,
    ``FORFEIT_TIMEOUT``), or with ``proto`` its full enum name (``TERMINATION_REASON_…``, as in
    metrics labels and logs). A number this build does not know is shown as the number.

    >>> termination_name(results_pb2.TERMINATION_REASON_FORFEIT_STRIKES)
    'FORFEIT_STRIKES'
    """
    member = results_pb2.TerminationReason.DESCRIPTOR.values_by_number.get(value)
    if member is None:
        return str(value)
    return member.name if proto else member.name.removeprefix(_TERMINATION_PREFIX)


def game_result_to_proto(
    result: GameResult, *, forfeit: Forfeit | None = None, detail: str = ""
) -> results_pb2.GameResult:
    """The proto ``GameResult``. A forfeited game needs ``forfeit`` (seat and kind).

    ``detail`` is the human-readable explanation; for a forfeit it defaults to the forfeit's.
    """
    if result.reason is Termination.FORFEIT and forfeit is None:
        raise ValueError("a forfeited game's result needs the Forfeit (seat and kind)")
    kind = forfeit.kind if forfeit is not None else None
    is_forfeit = result.reason is Termination.FORFEIT and forfeit is not None
    return results_pb2.GameResult(
        winners=result.winners,
        scores=result.scores,
        hands_played=result.hands_played,
        reason=termination_to_proto(result.reason, kind),
        forfeit_seat=forfeit.seat if is_forfeit and forfeit is not None else -1,
        detail=detail or (forfeit.detail if is_forfeit and forfeit is not None else ""),
    )


def game_result_from_proto(message: results_pb2.GameResult, field: str = "result") -> GameResult:
    """The engine ``GameResult`` of a proto ``GameResult`` (see ``forfeit_from_proto`` for who)."""
    return GameResult(
        winners=tuple(message.winners),
        scores=tuple(message.scores),
        hands_played=message.hands_played,
        reason=termination_from_proto(message.reason, f"{field}.reason"),
    )


def forfeit_from_proto(message: results_pb2.GameResult, field: str = "result") -> Forfeit | None:
    """The forfeit a proto ``GameResult`` records, or ``None`` when the game was not forfeited."""
    kind = _FORFEIT_KINDS.get(message.reason)
    if kind is None:
        return None
    if message.forfeit_seat < 0:
        raise MalformedMessageError(
            f"{field}.forfeit_seat", f"a forfeit needs the seat, got {message.forfeit_seat}"
        )
    return Forfeit(message.forfeit_seat, kind, message.detail)


# Seats ------------------------------------------------------------------------------------------


def seat_info_to_proto(seat: SeatAssignment) -> table_pb2.SeatInfo:
    """The proto ``SeatInfo`` of a seat assignment."""
    return table_pb2.SeatInfo(
        seat=seat.seat, side=seat.side, bot_name=seat.bot_name, bot_version=seat.bot_version
    )


def seat_info_from_proto(message: table_pb2.SeatInfo, field: str = "seat") -> SeatAssignment:
    """The seat assignment of a proto ``SeatInfo``."""
    if message.seat < 0:
        raise MalformedMessageError(f"{field}.seat", f"not a seat: {message.seat}")
    return SeatAssignment(message.seat, message.side, message.bot_name, message.bot_version)


# Events -----------------------------------------------------------------------------------------


def event_to_proto(
    event: Event,
    ruleset: Ruleset,
    seat: int | None,
    *,
    forfeit: Forfeit | None = None,
    detail: str = "",
) -> events_pb2.Event:
    """The proto ``Event`` of an engine event as ``seat`` may see it (``None`` or -1: spectator).

    Private details are removed by the engine event's own ``view(seat)``. An all-pass
    ``HandRedealt`` becomes a ``HandScored`` whose result has ``redeal = true``. ``forfeit`` and
    ``detail`` complete a ``GameOver`` the way ``game_result_to_proto`` does.
    """
    viewer = -1 if seat is None else seat
    view = event.view(None if viewer < 0 else viewer)
    message = events_pb2.Event(seq=view.seq, hand_number=view.hand_number)
    if isinstance(view, CardPlayed):
        message.card_played.seat = view.seat
        message.card_played.card.CopyFrom(_CARD_PROTOS[view.card])
    elif isinstance(view, TrickWon):
        message.trick_won.seat = view.seat
        message.trick_won.points = view.points
        message.trick_won.trick_index = view.trick_index
    elif isinstance(view, HandDealt):
        dealt = message.hand_dealt
        dealt.dealer = view.dealer
        dealt.hand_size = ruleset.hand_size
        dealt.nest_size = ruleset.nest_size
        if 0 <= viewer < len(view.hands):
            _fill_cards(dealt.your_cards, view.hands[viewer])
    elif isinstance(view, BidMade):
        message.bid_made.seat = view.seat
        message.bid_made.amount = view.amount
    elif isinstance(view, Passed):
        message.passed.seat = view.seat
    elif isinstance(view, AuctionWon):
        message.auction_won.seat = view.seat
        message.auction_won.amount = view.amount
        message.auction_won.forced = view.forced
    elif isinstance(view, HandRedealt):
        redeal = message.hand_scored.result
        redeal.hand_number = view.hand_number
        redeal.dealer = view.dealer
        redeal.redeal = True
    elif isinstance(view, NestTaken):
        message.nest_taken.seat = view.seat
        message.nest_taken.count = view.count
        _fill_cards(message.nest_taken.cards, view.cards)
    elif isinstance(view, TrumpNamed):
        message.trump_named.seat = view.seat
        message.trump_named.suit = suit_to_proto(view.suit)
    elif isinstance(view, CardsBuried):
        message.cards_buried.seat = view.seat
        message.cards_buried.count = view.count
        _fill_cards(message.cards_buried.cards, view.cards)
    elif isinstance(view, CardCalled):
        message.card_called.seat = view.seat
        message.card_called.card.CopyFrom(_CARD_PROTOS[view.card])
    elif isinstance(view, PartnerRevealed):
        message.partner_revealed.seat = view.seat
    elif isinstance(view, HandScored):
        message.hand_scored.result.CopyFrom(hand_result_to_proto(view.result))
    elif isinstance(view, GameOver):
        message.game_over.result.CopyFrom(
            game_result_to_proto(view.result, forfeit=forfeit, detail=detail)
        )
    else:
        raise TypeError(f"not an engine event: {event!r}")
    return message
