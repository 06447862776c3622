"""An engine event as the proto ``Event`` a seat (or a spectator) may see."""

from __future__ import annotations

from rookery.engine import (
    AuctionWon,
    BidMade,
    CardCalled,
    CardPlayed,
    CardsBuried,
    Event,
    Forfeit,
    GameOver,
    HandDealt,
    HandRedealt,
    HandScored,
    NestTaken,
    PartnerRevealed,
    Passed,
    Ruleset,
    TrickWon,
    TrumpNamed,
)
from rookery.v1 import events_pb2

from ._convert_cards import CARD_PROTOS, fill_cards, suit_to_proto
from ._convert_results import game_result_to_proto, hand_result_to_proto

__all__ = ["event_to_proto"]


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
        message.card_played.card.CopyFrom(CARD_PROTOS[view.card])
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
            fill_cards(dealt.your_cards, view.hands[viewer])
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
        fill_cards(message.nest_taken.cards, view.cards)
    elif isinstance(view, TrumpNamed):
        message.trump_named.seat = view.seat
        message.trump_named.suit = suit_to_proto(view.suit)
    elif isinstance(view, CardsBuried):
        message.cards_buried.seat = view.seat
        message.cards_buried.count = view.count
        fill_cards(message.cards_buried.cards, view.cards)
    elif isinstance(view, CardCalled):
        message.card_called.seat = view.seat
        message.card_called.card.CopyFrom(CARD_PROTOS[view.card])
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
