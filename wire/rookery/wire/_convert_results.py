"""Deals, results and seats between the engine and the proto: a hand's deal and result, how a
game ended (``TerminationReason``, ``termination_name``) and who won, and a seat's assignment.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeAlias

from rookery.engine import (
    Deal,
    Forfeit,
    ForfeitKind,
    GameResult,
    HandResult,
    Ruleset,
    SeatAssignment,
    Termination,
    card_name,
    redeal_result,
)
from rookery.v1 import results_pb2, table_pb2

from ._convert_cards import (
    CARD_PROTOS,
    fill_cards,
    mask_from_proto,
    optional_card_from_proto,
    optional_suit_from_proto,
    suit_to_proto,
)
from .errors import MalformedMessageError

__all__ = [
    "deal_from_proto",
    "deal_to_proto",
    "forfeit_from_proto",
    "game_result_from_proto",
    "game_result_to_proto",
    "hand_result_from_proto",
    "hand_result_to_proto",
    "seat_info_from_proto",
    "seat_info_to_proto",
    "termination_from_proto",
    "termination_name",
    "termination_to_proto",
]

_Reason: TypeAlias = results_pb2.TerminationReason.ValueType


def deal_to_proto(deal: Deal) -> results_pb2.Deal:
    """The proto ``Deal``: every seat's hand, the nest and the dead pile as dealt."""
    message = results_pb2.Deal()
    for hand in deal.hands:
        fill_cards(message.hands.add().cards, hand)
    fill_cards(message.nest, deal.nest)
    fill_cards(message.dead, deal.dead)
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
    fill_cards(message.buried, result.buried)
    if result.called_card >= 0:
        message.called_card.CopyFrom(CARD_PROTOS[result.called_card])
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
        trump=optional_suit_from_proto(message.trump, f"{field}.trump"),
        made=message.made,
        bidding_total=bidding_total,
        points_per_side=points,
        score_deltas=tuple(message.score_deltas),
        scores_after=tuple(message.scores),
        deal=deal_from_proto(message.deal, f"{field}.deal"),
        buried=mask_from_proto(message.buried, f"{field}.buried"),
        called_card=optional_card_from_proto(
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

    >>> from rookery.v1 import results_pb2
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
