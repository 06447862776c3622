"""The heuristic play's mask shortcuts pick exactly the card the plain definitions pick."""

from __future__ import annotations

import random

from rookery.client.bots._play import (
    FOLLOW_MASKS,
    KEYS,
    TRUMP_MASKS,
    PlayView,
    _cards,
    _loser,
    _strongest_trump,
    _threat,
    _top_key,
    _weakest,
    set_trick_state,
)
from rookery.engine import CARD_POINTS, SUIT_MASKS


def _random_subset(rng: random.Random, mask: int, chance: float) -> int:
    return sum(1 << card for card in _cards(mask) if rng.random() < chance)


def test_weakest_and_strongest_trump_agree_with_min_and_max_over_the_keys() -> None:
    rng = random.Random(1)
    for _ in range(4000):
        trump = rng.randrange(4)
        keys = KEYS[trump]
        side = rng.choice([s for s in range(4) if s != trump])
        trumps = _random_subset(rng, TRUMP_MASKS[trump], rng.random())
        mask = trumps | _random_subset(rng, SUIT_MASKS[side], rng.random() / 2)
        if mask:
            assert _weakest(mask, TRUMP_MASKS[trump]) == min(_cards(mask), key=keys.__getitem__)
        if trumps:
            assert _strongest_trump(trumps) == max(_cards(trumps), key=keys.__getitem__)


def _plain_loser(view: PlayView, mask: int) -> int:
    """The least (points, is a trump, suit length in hand, key) card of ``mask``, by ``min``."""
    keys = KEYS[view.trump]

    def cost(card: int) -> tuple[int, bool, int, int]:
        length = (view.hand & FOLLOW_MASKS[view.trump][card]).bit_count()
        is_trump = (1 << card) & TRUMP_MASKS[view.trump] != 0
        return (CARD_POINTS[card], is_trump, length, keys[card])

    return min(_cards(mask), key=cost)


def test_loser_is_the_least_costly_card_ties_to_the_lowest() -> None:
    rng = random.Random(2)
    for _ in range(4000):
        view = PlayView()
        view.trump = rng.randrange(4)
        view.hand = _random_subset(rng, (1 << 58) - 1, rng.random() / 2)
        mask = _random_subset(rng, view.hand, rng.random())
        if not mask:
            continue
        assert _loser(view, mask) == _plain_loser(view, mask)


def test_threat_says_exactly_which_keys_a_later_opponent_may_beat() -> None:
    rng = random.Random(3)
    for _ in range(3000):
        view = PlayView()
        view.players = players = rng.choice([3, 4, 5, 6])
        view.trump = trump = rng.randrange(4)
        view.seat = rng.randrange(players)
        deck = list(range(58))
        rng.shuffle(deck)
        count = rng.randrange(1, players)
        view.trick = [((view.seat - count + k) % players, deck[k]) for k in range(count)]
        set_trick_state(view)
        view.unseen = _random_subset(rng, sum(1 << c for c in deck[count:]), rng.random())
        view.friends = _random_subset(rng, (1 << players) - 1, 0.4) | 1 << view.seat
        view.voids = [
            sum(
                TRUMP_MASKS[trump] if suit == trump else SUIT_MASKS[suit]
                for suit in range(4)
                if rng.random() < 0.3
            )
            for _ in range(players)
        ]
        keys = KEYS[trump]
        follow, unseen = view.follow, view.unseen
        ruffs = unseen & TRUMP_MASKS[trump] & ~follow
        later = [(view.seat + k) % players for k in range(1, players - count)]
        opponents = [seat for seat in later if not view.friends >> seat & 1]
        threat = _threat(view)
        for key in range(117):
            beaten = False
            for seat in opponents:
                void = view.voids[seat]
                if not void & follow:
                    beaten |= _top_key(unseen & follow, keys) > key
                elif void & ruffs != ruffs:
                    beaten |= _top_key(ruffs, keys) > key
            assert (threat > key) == beaten
