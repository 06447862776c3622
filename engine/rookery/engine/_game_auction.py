"""The auction (RULES.md §3): bids and passes, the next bidder, the winner taking the nest, and a
hand every player passed (redealt, or the dealer forced to bid).
"""

from __future__ import annotations

from typing import Final

from ._actions import PASS, bid_action
from ._errors import IllegalActionError, MalformedActionError
from ._events import AuctionWon, BidMade, HandRedealt, NestTaken, Passed
from ._game_end import adjudicate, next_hand
from ._game_state import _BIDDING, _BURY, _NAME_TRUMP, GameState
from ._rulebook import redeal_result
from ._ruleset import AllPass, Ruleset

__all__ = ["bid", "check_bid", "pass_turn"]

# Enum members read through their class cost a Python-level attribute hook each (Python 3.11).
_DEALER_FORCED: Final = AllPass.DEALER_FORCED


def bid(game: GameState, amount: object) -> None:
    """The seat to act bids ``amount`` (refused as malformed or illegal first)."""
    if type(amount) is not int:
        raise MalformedActionError(f"a bid amount must be an int, got {amount!r}")
    seat = game._expect(_BIDDING, "bid")
    check_bid(game._rules, amount, game._high_bid)
    game._auction.append((seat, amount))
    game._high_bid = amount
    game._high_bidder = seat
    game._actions.append((seat, bid_action(amount)))
    game._emit(BidMade, seat, amount)
    _next_bidder(game)


def check_bid(rules: Ruleset, amount: int, high_bid: int) -> None:
    """Refuses a bid of ``amount`` over ``high_bid`` that ``rules`` do not allow, with the
    reason of the first check it fails: a multiple of the step, at least the minimum, above the
    high bid, at most the maximum (``IllegalActionError``).
    """
    if amount % rules.bid_step:
        raise IllegalActionError(
            "bid_not_multiple", f"bid {amount} is not a multiple of {rules.bid_step}"
        )
    if amount < rules.min_bid:
        raise IllegalActionError(
            "bid_too_low", f"bid {amount} is below the minimum bid {rules.min_bid}"
        )
    if amount <= high_bid:
        raise IllegalActionError(
            "bid_too_low", f"bid {amount} is not above the high bid {high_bid}"
        )
    if amount > rules.effective_max_bid:
        raise IllegalActionError(
            "bid_too_high", f"bid {amount} is above the maximum bid {rules.effective_max_bid}"
        )


def pass_turn(game: GameState) -> None:
    """The seat to act passes: it takes no further part in the auction."""
    seat = game._expect(_BIDDING, "pass")
    game._auction.append((seat, 0))
    game._passed |= 1 << seat
    game._actions.append((seat, PASS))
    game._emit(Passed, seat)
    _next_bidder(game)


def _next_bidder(game: GameState) -> None:
    players = game._players
    passed = game._passed
    remaining = players - passed.bit_count()
    if remaining == 1 and game._high_bidder >= 0:
        # The high bidder never passes (they act again only once outbid), so they are the one.
        _win_auction(game, game._high_bidder, game._high_bid, forced=False)
    elif not remaining:
        _all_passed(game)
    else:
        seat = (game._current + 1) % players
        while game._passed >> seat & 1:
            seat = (seat + 1) % players
        game._current = seat


def _all_passed(game: GameState) -> None:
    """Every player passed: REDEAL deals hand ``hand_number + 1`` with the same dealer (the
    void hand is recorded with ``redeal=True`` and counts toward ``max_hands``);
    DEALER_FORCED makes the dealer the bidder at ``min_bid``."""
    rules = game._rules
    if rules.all_pass is _DEALER_FORCED:
        _win_auction(game, game._dealer, rules.min_bid, forced=True)
        return
    result = redeal_result(
        rules,
        hand_number=game._hand_number,
        dealer=game._dealer,
        scores_after=game._scores,
        deal=game._deal,
    )
    game._hand_results.append(result)
    game._emit(HandRedealt, game._dealer)
    if game._hand_number + 1 >= rules.max_hands:
        adjudicate(game)
    else:
        next_hand(game, rotate=False)


def _win_auction(game: GameState, seat: int, amount: int, *, forced: bool) -> None:
    rules = game._rules
    game._bidder = seat
    game._bid = amount
    game._forced = forced
    game._current = seat
    game._emit(AuctionWon, seat, amount, forced)
    nest = game._deal.nest
    if rules.nest_size:
        game._hands[seat] |= nest
        game._nest = nest
        game._emit(NestTaken, seat, nest, rules.nest_size)
    game._phase = _NAME_TRUMP if rules.trump_first or not rules.nest_size else _BURY
