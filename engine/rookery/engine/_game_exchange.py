"""Between the auction and the play (RULES.md §4, §6): trump named, the nest's cards buried, a
partner's card called, and the first trick's leader.
"""

from __future__ import annotations

from typing import Final

from ._actions import TRUMP, Bury, CallCard
from ._cards import ALL_CARDS_MASK, Suit, card_name, format_cards
from ._errors import IllegalActionError, MalformedActionError
from ._events import CardCalled, CardsBuried, TrumpNamed
from ._game_state import _BURY, _CALL, _KEYS, _NAME_TRUMP, _PLAY, _SUITS, GameState
from ._rulebook import TRUMP_MASKS
from ._ruleset import FirstLead, Partnership

__all__ = ["bury", "call_card", "name_trump"]

_TRUMP_MASKS: Final[tuple[int, ...]] = TRUMP_MASKS
# Enum members read through their class cost a Python-level attribute hook each (Python 3.11).
_LEFT_OF_BIDDER: Final = FirstLead.LEFT_OF_BIDDER
_CALLED: Final = Partnership.CALLED


def name_trump(game: GameState, suit: object) -> None:
    """The bidder names ``suit`` trump."""
    if type(suit) is not Suit and (type(suit) is not int or not 0 <= suit < 4):
        raise MalformedActionError(f"not a suit: {suit!r}")
    seat = game._expect(_NAME_TRUMP, "name trump")
    trump = int(suit)
    game._trump = trump
    game._trump_mask = _TRUMP_MASKS[trump]
    game._keys = _KEYS[trump]
    game._actions.append((seat, TRUMP[trump]))
    game._emit(TrumpNamed, seat, _SUITS[trump])
    if game._rules.nest_size and not game._buried:
        game._phase = _BURY
    else:
        _after_exchange(game)


def bury(game: GameState, cards: object) -> None:
    """The bidder buries ``cards`` (a mask of exactly ``nest_size`` cards of its hand)."""
    rules = game._rules
    if type(cards) is not int or cards < 0:
        raise MalformedActionError(f"a bury must be a card mask (non-negative int), got {cards!r}")
    if cards & ~rules.deck_mask:
        outside = cards & ~rules.deck_mask
        named = format_cards(outside & ALL_CARDS_MASK) if outside <= ALL_CARDS_MASK else ""
        raise MalformedActionError(f"bury: not in the {rules.name} deck: {named or hex(outside)}")
    if cards.bit_count() != rules.nest_size:
        raise MalformedActionError(
            f"bury: exactly {rules.nest_size} cards must be buried, got {cards.bit_count()}"
        )
    seat = game._expect(_BURY, "bury")
    hand = game._hands[seat]
    if cards & ~hand:
        raise IllegalActionError(
            "not_in_hand", f"cannot bury cards not in hand: {format_cards(cards & ~hand)}"
        )
    game._hands[seat] = hand ^ cards
    game._buried = cards
    game._nest = 0
    game._actions.append((seat, Bury(cards)))
    game._emit(CardsBuried, seat, cards, rules.nest_size)
    if game._trump < 0:
        game._phase = _NAME_TRUMP
    else:
        _after_exchange(game)


def _after_exchange(game: GameState) -> None:
    if game._rules.partnership is _CALLED:
        game._phase = _CALL
    else:
        _start_play(game)


def call_card(game: GameState, card: object) -> None:
    """The bidder calls ``card``: whoever holds it is the bidder's partner."""
    card = game._check_card(card, "call")
    seat = game._expect(_CALL, "call a card")
    bit = 1 << card
    if game._hands[seat] & bit:
        raise IllegalActionError(
            "own_card", f"cannot call {card_name(card)}: it is in the bidder's hand"
        )
    if game._buried & bit:
        raise IllegalActionError("own_card", f"cannot call {card_name(card)}: the bidder buried it")
    game._called = card
    game._partner = next((holder for holder, hand in enumerate(game._hands) if hand & bit), -1)
    game._actions.append((seat, CallCard(card)))
    game._emit(CardCalled, seat, card)
    _start_play(game)


def _start_play(game: GameState) -> None:
    """The first trick: the bidder leads, or the seat left of the bidder (whoever passed)."""
    bidder = game._bidder
    if game._rules.first_lead is _LEFT_OF_BIDDER:
        game._current = (bidder + 1) % game._rules.players
    else:
        game._current = bidder
    game._phase = _PLAY
