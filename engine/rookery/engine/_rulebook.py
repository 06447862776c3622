"""The rules of one trick and of one hand's score, as tables and pure functions (RULES.md §5, §7).

These are the one source of each fact: ``Game`` plays by them, and code that simulates play on
its own (the search bots' playouts) imports them rather than writing them again. Cards are card
indices, card sets bit masks, and a trump suit the int ``0..3`` (``Suit`` is an ``int``).

>>> from rookery.engine import Suit, parse_card, parse_cards, format_cards
>>> follow = FOLLOW_MASKS[Suit.GREEN][parse_card("ROOK")]   # the Rook leads trumps
>>> format_cards(playable(parse_cards("G3 B7 ROOK2"), follow, rook_free_play=False))
'G3 ROOK2'
>>> TRICK_KEYS[Suit.GREEN][parse_card("G2")] > TRICK_KEYS[Suit.GREEN][parse_card("B14")]
True
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Final

from ._builders import positional_builder
from ._cards import NUM_CARDS, ROOK_MASK, SUIT_MASKS, Suit
from ._deal import Deal
from ._results import HandResult, HandScore
from ._ruleset import Ruleset

__all__ = [
    "FOLLOW_MASKS",
    "TRICK_KEYS",
    "TRUMP_MASKS",
    "bidding_seats",
    "legal_play_mask",
    "playable",
    "redeal_result",
    "score_hand",
    "trick_winner",
]


# HandScore(...), built faster (by each field's slot, not a frozen dataclass's __setattr__).
_new_hand_score: Final = positional_builder(HandScore)


def _trick_key(card: int, trump: int) -> int:
    if card >= 56:
        return 116 if card == 56 else 115
    rank = card % 14 + 1
    return 100 + rank if card // 14 == trump else rank


TRICK_KEYS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(_trick_key(card, trump) for card in range(NUM_CARDS)) for trump in range(4)
)
"""``TRICK_KEYS[trump][card]``: the card's trick-taking strength (1..116).

A card of the led suit ranks by its rank (1..14); a trump ranks 100 above it (101..114), the
trump 14 below ROOK2 (115) below ROOK (116). A card that neither follows the led suit nor is a
trump cannot win, whatever its key (``trick_winner``)."""

TRUMP_MASKS: Final[tuple[int, ...]] = tuple(SUIT_MASKS[suit] | ROOK_MASK for suit in range(4))
"""``TRUMP_MASKS[trump]``: the trumps, the Rook cards included."""

FOLLOW_MASKS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(
        TRUMP_MASKS[trump] if card >= 56 or card // 14 == trump else SUIT_MASKS[card // 14]
        for card in range(NUM_CARDS)
    )
    for trump in range(4)
)
"""``FOLLOW_MASKS[trump][card]``: the cards that follow suit when ``card`` leads (a Rook card or
a trump leads the trumps)."""


def playable(hand: int, follow: int, rook_free_play: bool) -> int:
    """The cards of ``hand`` that may be played to a trick whose led suit is ``follow`` (its
    ``FOLLOW_MASKS`` entry; 0 to lead, when any card may be played).

    A player holding a card that follows must play one; under ``rook_free_play`` the Rook cards
    may be played anyway.
    """
    legal = hand & follow
    if not legal:
        return hand
    if rook_free_play:
        legal |= hand & ROOK_MASK
    return legal


def legal_play_mask(hand: int, lead_card: int, trump: int, rook_free_play: bool) -> int:
    """The cards of ``hand`` that may be played to a trick led by ``lead_card`` (-1: to lead).

    The Rook cards belong to the trump suit (RULES.md §5): a player holding a card of the led suit
    (for a trump lead, any trump or Rook) must play one; under ``rook_free_play`` the Rook may be
    played anyway.
    """
    if lead_card < 0:
        return hand
    return playable(hand, FOLLOW_MASKS[trump][lead_card], rook_free_play)


def trick_winner(cards: Sequence[int], trump: Suit | int) -> int:
    """The index in ``cards`` (in play order, the first one led) of the card that wins the trick.

    Exactly the rule :class:`Game` plays by (RULES.md §5, the same strength tables): the highest
    trump if any trump was played (``ROOK``, ``ROOK2``, then trump 14 … lowest), otherwise the
    highest card of the led suit; for an open trick, the card winning so far.

    >>> from rookery.engine import Suit, parse_card
    >>> trick_winner([parse_card(c) for c in ("R5", "R14", "G2", "B9")], Suit.GREEN)
    2
    """
    if not cards:
        raise ValueError("a trick has at least one card")
    keys = TRICK_KEYS[trump]
    counted = FOLLOW_MASKS[trump][cards[0]] | TRUMP_MASKS[trump]
    best, best_key = 0, keys[cards[0]]
    for index in range(1, len(cards)):
        card = cards[index]
        if (counted >> card) & 1 and keys[card] > best_key:
            best, best_key = index, keys[card]
    return best


def bidding_seats(rules: Ruleset, bidder: int, partner: int) -> tuple[int, ...]:
    """The seats of the bidding side: the bidder's fixed partners, or (scores per player) the
    bidder and its called partner (``partner`` -1: none, or not a called-partner hand)."""
    if not rules.is_per_player:
        # ``rules.seats_of_side(rules.sides[bidder])``, without two interpreted calls.
        return rules._seats_by_side.get(rules._sides[bidder], ())
    if partner >= 0:
        return (bidder, partner)
    return (bidder,)


def score_hand(
    rules: Ruleset,
    counted: Sequence[int],
    *,
    bidder: int,
    partner: int,
    bid: int,
    buried_points: int,
) -> HandScore:
    """A played hand's score (RULES.md §7).

    ``counted[seat]`` is what ``seat`` captured: the points of the tricks it won and the
    ``last_trick_bonus`` if it won the last one; the bidder counts ``buried_points`` too. The
    bidding side (``bidding_seats``) makes the hand with at least ``bid`` and scores its total,
    else loses ``bid``; every other side scores what it counted.
    """
    sides = rules._sides  # ``rules.sides``, without an interpreted call
    seats = bidding_seats(rules, bidder, partner)
    bidding_total = buried_points
    for seat in seats:
        bidding_total += counted[seat]
    made = bidding_total >= bid
    bidding_result = bidding_total if made else -bid
    points = [0] * rules.num_sides
    for seat in range(rules.players):
        points[sides[seat]] += counted[seat]
    points[sides[bidder]] += buried_points
    bidding_sides = tuple(sorted({sides[seat] for seat in seats}))
    deltas = tuple(
        bidding_result if side in bidding_sides else value for side, value in enumerate(points)
    )
    return _new_hand_score(made, bidding_total, tuple(points), deltas, bidding_sides)


def redeal_result(
    rules: Ruleset,
    *,
    hand_number: int,
    dealer: int,
    scores_after: Collection[int],
    deal: Deal,
) -> HandResult:
    """The result of a void hand that every player passed, redealt under ``AllPass.REDEAL``:
    no bidder, no trump, no points and no score change."""
    sides = rules.num_sides
    return HandResult(
        hand_number=hand_number,
        dealer=dealer,
        bidder=-1,
        bid=0,
        forced=False,
        trump=None,
        made=False,
        bidding_total=0,
        points_per_side=(0,) * sides,
        score_deltas=(0,) * sides,
        scores_after=tuple(scores_after),
        deal=deal,
        buried=0,
        called_card=-1,
        partner=-1,
        redeal=True,
    )
