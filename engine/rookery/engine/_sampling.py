"""Determinization: full deals consistent with what one seat knows, for search bots."""

from __future__ import annotations

import random
from dataclasses import dataclass
from itertools import combinations

from ._cards import ROOK_MASK, SUIT_MASKS, cards_of
from ._core import native, on_core
from ._deal import Deal
from ._observation import Observation

__all__ = ["sample_deal", "sample_deals"]


def sample_deals(observation: Observation, rng: random.Random, n: int) -> list[Deal]:
    """``n`` deals drawn with ``rng``, each consistent with ``observation`` (``sample_deal``).

    On the native core the ``n`` deals are drawn in one call (seeded from ``rng``); the law of
    the draw is the pure engine's, not its stream of numbers.
    """
    hidden = _reading(observation)
    if on_core and native is not None:
        drawn = native.sample_deals(
            hidden.unknown,
            hidden.places,
            hidden.hands,
            hidden.played,
            hidden.nest,
            hidden.buried,
            hidden.bidder,
            hidden.nest_size,
            hidden.buried_done,
            rng.getrandbits(64),
            n,
        )
        return [Deal(tuple(hands), nest, dead) for hands, nest, dead in drawn]
    return [_draw(hidden, rng) for _ in range(n)]


def sample_deal(observation: Observation, rng: random.Random) -> Deal:
    """One full deal consistent with everything ``observation`` shows.

    Kept fixed: the observer's own cards, every card seen played and by whom, the nest and the
    bury when the observer is the bidder. Respected: the voids a seat showed by not following suit
    (a Rook thrown under ``rook_free_play`` shows nothing), and that the called card is neither in
    the bidder's hand nor buried. Hidden cards are spread over the hidden places (other hands, the
    unseen nest or bury, the dead pile) at random; uniformly when no void constrains them, and
    otherwise one card at a time among the places that can still complete a consistent deal.

    The deal is "as dealt", ready for ``Game.from_observation``: each hand holds the cards its
    seat holds now plus those it played. After the bury, the sample's ``nest`` holds the buried
    cards and the bidder's hand the rest of what they held (an equivalent world from then on).
    Drawn on the native core when it runs (``sample_deals``), else here (``_draw``).
    """
    return sample_deals(observation, rng, 1)[0]


@dataclass(frozen=True)
class _Hidden:
    """What ``observation`` fixes of a deal, and its hidden places to fill.

    ``places`` are ``(kind, seat, capacity, forbidden)``: kind ``_HAND`` (of ``seat``), ``_NEST``,
    ``_BURIED`` or ``_DEAD``; ``capacity`` hidden cards go there, none of ``forbidden``.
    """

    unknown: int
    places: list[tuple[int, int, int, int]]
    hands: list[int]
    played: list[int]
    nest: int
    buried: int
    bidder: int
    nest_size: int
    buried_done: bool


_HAND, _NEST, _BURIED, _DEAD = 0, 1, 2, 3


_last_reading: list[tuple[Observation, _Hidden]] = []


def _reading(observation: Observation) -> _Hidden:
    """``_hidden(observation)``, kept for the last observation read (a search draws thousands
    of deals from one observation)."""
    if _last_reading and _last_reading[0][0] is observation:
        return _last_reading[0][1]
    hidden = _hidden(observation)
    _last_reading[:] = [(observation, hidden)]
    return hidden


def _hidden(observation: Observation) -> _Hidden:
    """The reading of ``observation``: its fixed cards, the hidden cards and hidden places."""
    rules = observation.ruleset
    players = rules.players
    seat = observation.seat
    bidder = observation.bidder
    tricks = (*observation.completed_tricks, observation.current_trick)
    played = [0] * players
    for trick in tricks:
        for who, card in trick.cards:
            played[who] |= 1 << card
    voids = [0] * players
    if observation.trump is not None:
        trump_mask = SUIT_MASKS[observation.trump] | ROOK_MASK
        for trick in tricks:
            if not trick.cards:
                continue
            lead = 1 << trick.cards[0][1]
            follow = trump_mask if lead & trump_mask else SUIT_MASKS[trick.cards[0][1] // 14]
            for who, card in trick.cards[1:]:
                bit = 1 << card
                if bit & follow:
                    continue
                if rules.rook_free_play and bit & ROOK_MASK and follow != trump_mask:
                    continue
                voids[who] |= follow
    buried_done = observation.buried_count > 0
    nest_in_hand = bidder >= 0 and rules.nest_size > 0 and not buried_done
    known = observation.hand | observation.buried
    for mask in played:
        known |= mask
    unknown = rules.deck_mask & ~known

    called = observation.called_card
    called_hidden = called >= 0 and unknown >> called & 1
    called_bit = (1 << called) if called_hidden else 0
    places: list[tuple[int, int, int, int]] = []
    for other in range(players):
        if other == seat:
            continue
        count = rules.hand_size - played[other].bit_count()
        if other == bidder and nest_in_hand:
            count += rules.nest_size
        forbidden = voids[other] | (called_bit if other == bidder else 0)
        places.append((_HAND, other, count, forbidden))
    if bidder < 0 and rules.nest_size:
        places.append((_NEST, -1, rules.nest_size, 0))
    if buried_done and seat != bidder:
        places.append((_BURIED, -1, rules.nest_size, called_bit))
    if rules.dead_count:
        places.append((_DEAD, -1, rules.dead_count, 0))
    if sum(place[2] for place in places) != unknown.bit_count():
        raise ValueError(
            "inconsistent observation: hidden cards and hidden places differ in number"
        )
    hands = [0] * players
    if seat >= 0:
        hands[seat] = observation.hand
    return _Hidden(
        unknown=unknown,
        places=places,
        hands=hands,
        played=played,
        nest=observation.nest if seat == bidder else 0,
        buried=observation.buried,
        bidder=bidder,
        nest_size=rules.nest_size,
        buried_done=buried_done,
    )


def _draw(hidden: _Hidden, rng: random.Random) -> Deal:
    """One deal of ``hidden`` drawn with ``rng`` (the readable reference of the core's draw)."""
    filled = _fill(
        hidden.unknown, [(capacity, forbidden) for _, _, capacity, forbidden in hidden.places], rng
    )
    hands = list(hidden.hands)
    nest = hidden.nest
    buried = hidden.buried
    dead = 0
    for (kind, who, _, _), mask in zip(hidden.places, filled, strict=True):
        if kind == _HAND:
            hands[who] = mask
        elif kind == _NEST:
            nest = mask
        elif kind == _BURIED:
            buried = mask
        else:
            dead = mask
    hands = [hand | played for hand, played in zip(hands, hidden.played, strict=True)]
    if hidden.bidder >= 0 and hidden.nest_size:
        if hidden.buried_done:
            nest = buried
        elif not nest:
            cards = cards_of(hands[hidden.bidder])
            nest = sum(1 << card for card in rng.sample(cards, hidden.nest_size))
        hands[hidden.bidder] &= ~nest
    return Deal(tuple(hands), nest, dead)


def _fill(cards: int, places: list[tuple[int, int]], rng: random.Random) -> list[int]:
    """Spread ``cards`` over ``places`` (capacity, forbidden mask) at random; masks per place."""
    deck = cards_of(cards)
    rng.shuffle(deck)
    filled = [0] * len(places)
    if not any(forbidden & cards for _, forbidden in places):
        start = 0
        for index, (capacity, _) in enumerate(places):
            filled[index] = sum(1 << card for card in deck[start : start + capacity])
            start += capacity
        return filled
    capacities = [capacity for capacity, _ in places]
    allowed_of = {
        card: sum(
            1 << index for index, (_, forbidden) in enumerate(places) if not forbidden >> card & 1
        )
        for card in deck
    }
    # The most constrained cards first: fewer dead ends, fewer feasibility checks.
    deck.sort(key=lambda card: allowed_of[card].bit_count())
    remaining: dict[int, int] = {}
    for card in deck:
        remaining[allowed_of[card]] = remaining.get(allowed_of[card], 0) + 1
    if not _feasible(remaining, capacities):
        raise ValueError("inconsistent observation: no deal satisfies the voids shown")
    for card in deck:
        allowed = allowed_of[card]
        remaining[allowed] -= 1
        options = [i for i in range(len(places)) if allowed >> i & 1 and capacities[i]]
        while True:
            pick = rng.choices(options, weights=[capacities[i] for i in options])[0]
            capacities[pick] -= 1
            if _feasible(remaining, capacities):
                break
            capacities[pick] += 1
            options.remove(pick)
        filled[pick] |= 1 << card
    return filled


def _feasible(remaining: dict[int, int], capacities: list[int]) -> bool:
    """Hall's condition: every set of card groups fits in the places those groups may use."""
    groups = [(allowed, count) for allowed, count in remaining.items() if count]
    for size in range(1, len(groups) + 1):
        for subset in combinations(groups, size):
            union = 0
            need = 0
            for allowed, count in subset:
                union |= allowed
                need += count
            room = sum(capacities[i] for i in range(len(capacities)) if union >> i & 1)
            if need > room:
                return False
    return True
