"""Determinization: every seat's current cards, sampled consistently with one observation.

The sample respects the observer's hand, every card seen played, the voids shown by failing to
follow suit, the nest and the bury when the observer is the bidder, and the called card (never
with the bidder; with the observer when the observer is the partner).
"""

from __future__ import annotations

import random

from rookery.engine import Observation, Phase

from ._play import infer_voids

__all__ = ["Sample", "sample_hands"]

Sample = tuple[list[int], int]
"""Every seat's current cards, and the cards out of every hand (unknown nest/bury, dead)."""


def _bits(mask: int) -> list[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def sample_hands(obs: Observation, rng: random.Random) -> Sample:
    """One sample of every seat's current cards and of the hidden cards."""
    rules = obs.ruleset
    players = rules.players
    seat = obs.seat
    played = 0
    tricks = [trick.cards for trick in obs.completed_tricks]
    if obs.phase is Phase.PLAY:
        tricks.append(obs.current_trick.cards)
    counts = [rules.hand_size] * players
    for cards in tricks:
        for who, card in cards:
            played |= 1 << card
            counts[who] -= 1
    known = obs.hand | obs.buried | played
    if obs.nest:
        known |= obs.nest
    pool = rules.deck_mask & ~known
    hidden_count = rules.deck_size - rules.players * rules.hand_size
    if seat == obs.bidder and obs.phase is not Phase.BIDDING:
        # The bidder saw the nest: only the dead pile is hidden.
        hidden_count = rules.dead_count
    counts[seat] = 0
    if obs.bidder >= 0 and obs.phase in (Phase.NAME_TRUMP, Phase.BURY) and seat != obs.bidder:
        # The bidder holds the nest until burying.
        counts[obs.bidder] += rules.nest_size
        hidden_count -= rules.nest_size
    trump = int(obs.trump) if obs.trump is not None else -1
    voids = (
        infer_voids(players, trump, tricks, rules.rook_free_play) if trump >= 0 else [0] * players
    )
    # The called card is never with the bidder; with the observer only if the observer holds it.
    forbid = list(voids)
    if obs.called_card >= 0 and obs.partner < 0 and obs.bidder >= 0:
        forbid[obs.bidder] |= 1 << obs.called_card
    pool_cards = _bits(pool)
    slots = counts + [hidden_count]
    forbid.append(0)
    for _ in range(50):
        result = _assign(pool_cards, slots, forbid, rng)
        if result is not None:
            break
    else:
        result = _assign(pool_cards, slots, [0] * len(slots), rng)
        assert result is not None
    hands = result[:players]
    hands[seat] = obs.hand
    return hands, result[players]


def _assign(
    cards: list[int], slots: list[int], forbid: list[int], rng: random.Random
) -> list[int] | None:
    """Deal ``cards`` into holders of the given sizes, none receiving a forbidden card."""
    holders = len(slots)
    eligible = {
        card: [h for h in range(holders) if slots[h] and not forbid[h] >> card & 1]
        for card in cards
    }
    order = sorted(cards, key=lambda c: (len(eligible[c]), rng.random()))
    room = list(slots)
    masks = [0] * holders
    for card in order:
        options = [h for h in eligible[card] if room[h]]
        if not options:
            return None
        total = sum(room[h] for h in options)
        pick = rng.randrange(total)
        for holder in options:
            pick -= room[holder]
            if pick < 0:
                break
        room[holder] -= 1
        masks[holder] |= 1 << card
    return masks
