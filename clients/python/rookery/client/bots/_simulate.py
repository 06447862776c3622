"""A perfect-information hand, played out fast on masks: the search bot's playout model.

``HandSimulation`` holds every seat's cards (a sampled deal) from some point of the play phase
and plays the hand to its end, every seat using the heuristic play on what that seat could know.
The rules are the engine's: its tables (``FOLLOW_MASKS``, ``TRICK_KEYS``, ``TRUMP_MASKS``),
``playable`` for following suit, ``bidding_seats`` and ``score_hand`` for the hand's score. Only
the trick's state is kept inline, per card played (the led suit's mask, the winning seat and
key, the points): the randomised differential test ``tests/bots/test_simulation_rules.py``
checks it against the engine card for card over many random positions of every preset.
"""

from __future__ import annotations

import math

from rookery.engine import (
    CARD_POINTS,
    ROOK_MASK,
    HandScore,
    HeuristicPlayouts,
    Observation,
    Partnership,
    Ruleset,
    bidding_seats,
    mask_points,
    playable,
    score_hand,
)

from ._play import FOLLOW_MASKS, KEYS, TRUMP_MASKS, PlayView, choose_play, infer_voids

__all__ = [
    "HandSimulation",
    "bidding_mask",
    "called_partner",
    "core_playouts",
    "game_utility",
    "hand_utility",
    "side_deltas",
    "win_chance",
]


class HandSimulation:
    """One hand's play phase with every hand known; ``clone`` is cheap."""

    __slots__ = (
        "bid",
        "bidder",
        "bidding_mask",
        "buried_points",
        "called",
        "current",
        "deck_mask",
        "follow",
        "hands",
        "keys",
        "last_trick_bonus",
        "leader",
        "partner",
        "partner_shown",
        "played",
        "players",
        "rook_free_play",
        "rules",
        "seat_friends",
        "trick",
        "trick_points",
        "tricks_left",
        "trump",
        "trump_mask",
        "view",
        "voids",
        "win_key",
        "win_seat",
        "won",
    )

    def __init__(
        self,
        rules: Ruleset,
        hands: list[int],
        *,
        trump: int,
        bidder: int,
        bid: int,
        leader: int,
        buried_points: int,
        called: int = -1,
        partner: int = -1,
        partner_shown: bool = False,
        played: int = 0,
        trick: list[tuple[int, int]] | None = None,
        voids: list[int] | None = None,
        won: list[int] | None = None,
        tricks_left: int | None = None,
    ) -> None:
        self.rules = rules
        self.players = rules.players
        self.deck_mask = rules.deck_mask
        self.rook_free_play = rules.rook_free_play
        self.last_trick_bonus = rules.last_trick_bonus
        self.hands = hands
        self.trump = trump
        self.keys = KEYS[trump]
        self.trump_mask = TRUMP_MASKS[trump]
        self.bidder = bidder
        self.bid = bid
        self.buried_points = buried_points
        self.called = called
        self.partner = partner
        self.partner_shown = partner_shown
        self.played = played
        self.trick = list(trick or [])
        self.leader = leader
        self.current = (leader + len(self.trick)) % self.players
        self.follow = 0
        self.win_seat = -1
        self.win_key = 0
        self.trick_points = 0
        for seat, card in self.trick:
            self._add_to_trick(seat, card)
        self.voids = list(voids) if voids is not None else [0] * self.players
        self.won = list(won) if won is not None else [0] * self.players
        self.tricks_left = rules.hand_size if tricks_left is None else tricks_left
        self.view = self._new_view()
        self.seat_friends = self._friends()
        self.bidding_mask = self.bidding_seats()

    @classmethod
    def from_observation(cls, obs: Observation, hands: list[int]) -> HandSimulation:
        """The hand at ``obs`` (the PLAY phase) with ``hands`` as every seat's current cards."""
        assert obs.trump is not None
        rules = obs.ruleset
        trump = int(obs.trump)
        tricks = [trick.cards for trick in obs.completed_tricks]
        tricks.append(obs.current_trick.cards)
        played = 0
        for cards in tricks:
            for _, card in cards:
                played |= 1 << card
        won = [0] * rules.players
        for trick in obs.completed_tricks:
            won[trick.winner] += trick.points
        partner = called_partner(obs, hands)
        # Known to the bidder only: a caller searching for another seat sets the sampled bury's.
        buried_points = mask_points(obs.buried)
        return cls(
            rules,
            hands,
            trump=trump,
            bidder=obs.bidder,
            bid=obs.bid,
            leader=obs.current_trick.leader,
            buried_points=buried_points,
            called=obs.called_card,
            partner=partner,
            partner_shown=obs.partner >= 0
            and obs.called_card >= 0
            and bool(played >> obs.called_card & 1),
            played=played,
            trick=list(obs.current_trick.cards),
            voids=infer_voids(rules.players, trump, tricks, rules.rook_free_play),
            won=won,
            tricks_left=rules.hand_size - len(obs.completed_tricks),
        )

    def _friends(self) -> list[int]:
        """Per seat, the seats it knows to be on its side (bit masks)."""
        rules = self.rules
        players = self.players
        if rules.partnership is Partnership.FIXED:
            return [
                sum(1 << other for other in rules.seats_of_side(rules.sides[seat]))
                for seat in range(players)
            ]
        friends = [1 << s for s in range(players)]
        if self.partner >= 0:
            pair = (1 << self.bidder) | (1 << self.partner)
            friends[self.partner] = pair
            if self.partner_shown:
                friends[self.bidder] = pair
        return friends

    def bidding_seats(self) -> int:
        """The seats of the bidding side (bit mask)."""
        return bidding_mask(self.rules, self.bidder, self.partner)

    def clone(self) -> HandSimulation:
        """An independent copy (``tests/bots/test_clones.py`` checks that it copies every slot)."""
        other = HandSimulation.__new__(HandSimulation)  # every slot is set below
        other.rules = self.rules
        other.hands = self.hands[:]
        other.trump = self.trump
        other.bidder = self.bidder
        other.bid = self.bid
        other.leader = self.leader
        other.buried_points = self.buried_points
        other.bidding_mask = self.bidding_mask
        other.called = self.called
        other.current = self.current
        other.deck_mask = self.deck_mask
        other.follow = self.follow
        other.keys = self.keys
        other.last_trick_bonus = self.last_trick_bonus
        other.partner = self.partner
        other.partner_shown = self.partner_shown
        other.played = self.played
        other.players = self.players
        other.rook_free_play = self.rook_free_play
        other.seat_friends = self.seat_friends[:]
        other.trick = self.trick[:]
        other.trick_points = self.trick_points
        other.tricks_left = self.tricks_left
        other.trump_mask = self.trump_mask
        other.view = other._new_view()
        other.voids = self.voids[:]
        other.win_key = self.win_key
        other.win_seat = self.win_seat
        other.won = self.won[:]
        return other

    def _new_view(self) -> PlayView:
        """The view the seats to act play from: its fields that stay fixed for the hand set."""
        view = PlayView()
        view.players = self.players
        view.trump = self.trump
        return view

    def legal(self) -> int:
        """The cards the seat to act may play."""
        return playable(
            self.hands[self.current], self.follow if self.trick else 0, self.rook_free_play
        )

    def heuristic_card(self) -> int:
        """The heuristic play of the seat to act, on what that seat could know."""
        # Run for every card of every playout: no view for a forced card.
        seat = self.current
        hand = self.hands[seat]
        trick = self.trick
        legal = playable(hand, self.follow, self.rook_free_play) if trick else hand
        if not legal & (legal - 1):
            return legal.bit_length() - 1
        view = self.view
        view.seat = seat
        view.hand = hand
        view.legal = legal
        view.trick = trick
        view.unseen = self.deck_mask & ~self.played & ~hand
        view.voids = self.voids
        view.friends = self.seat_friends[seat]
        view.bidding_side = bool(self.bidding_mask >> seat & 1)
        view.follow = self.follow
        view.win_seat = self.win_seat
        view.win_key = self.win_key
        view.trick_points = self.trick_points
        return choose_play(view)

    def _add_to_trick(self, seat: int, card: int) -> None:
        keys = self.keys
        if self.win_seat < 0:
            self.follow = FOLLOW_MASKS[self.trump][card]
            self.win_seat, self.win_key = seat, keys[card]
        elif (1 << card) & (self.follow | self.trump_mask) and keys[card] > self.win_key:
            self.win_seat, self.win_key = seat, keys[card]
        self.trick_points += CARD_POINTS[card]

    def play(self, card: int) -> None:
        """Play ``card`` for the seat to act (assumed legal)."""
        # Run for every card of every playout: the trick's state is updated inline.
        seat = self.current
        bit = 1 << card
        self.hands[seat] ^= bit
        self.played |= bit
        trick = self.trick
        if trick:
            follow = self.follow
            if not bit & follow and not (self.rook_free_play and bit & ROOK_MASK):
                self.voids[seat] |= follow
            key = self.keys[card]
            if bit & (follow | self.trump_mask) and key > self.win_key:
                self.win_seat, self.win_key = seat, key
            self.trick_points += CARD_POINTS[card]
        else:
            self.follow = FOLLOW_MASKS[self.trump][card]
            self.win_seat, self.win_key = seat, self.keys[card]
            self.trick_points = CARD_POINTS[card]
        trick.append((seat, card))
        if card == self.called and not self.partner_shown:
            self.partner_shown = True
            self.seat_friends = self._friends()
        if len(trick) < self.players:
            self.current = (seat + 1) % self.players
            return
        win_seat = self.win_seat
        self.won[win_seat] += self.trick_points
        self.tricks_left -= 1
        if self.tricks_left == 0:
            self.won[win_seat] += self.last_trick_bonus
        self.trick = []
        self.follow = 0
        self.win_seat = -1
        self.win_key = 0
        self.trick_points = 0
        self.leader = win_seat
        self.current = win_seat

    @property
    def is_over(self) -> bool:
        """Whether every trick has been played."""
        return self.tricks_left == 0

    def play_out(self) -> None:
        """Play the rest of the hand with the heuristic on every seat."""
        while self.tricks_left:
            self.play(self.heuristic_card())

    def bidding_total(self) -> int:
        """The bidding side's hand total so far (tricks won plus buried points)."""
        return self._score().bidding_total

    def _score(self) -> HandScore:
        return score_hand(
            self.rules,
            self.won,
            bidder=self.bidder,
            partner=self.partner,
            bid=self.bid,
            buried_points=self.buried_points,
        )

    def side_deltas(self) -> list[int]:
        """Each seat's side's score change for the hand, per seat (the engine's ``score_hand``)."""
        return side_deltas(
            self.rules, self.won, self.bidder, self.partner, self.bid, self.buried_points
        )


def side_deltas(
    rules: Ruleset, won: list[int], bidder: int, partner: int, bid: int, buried_points: int
) -> list[int]:
    """Each seat's side's score change for a hand whose seats took ``won`` (``score_hand``)."""
    deltas = score_hand(
        rules, won, bidder=bidder, partner=partner, bid=bid, buried_points=buried_points
    ).score_deltas
    sides = rules.sides
    return [deltas[sides[seat]] for seat in range(rules.players)]


def bidding_mask(rules: Ruleset, bidder: int, partner: int) -> int:
    """The seats of the bidding side (bit mask)."""
    mask = 0
    for seat in bidding_seats(rules, bidder, partner):
        mask |= 1 << seat
    return mask


def core_playouts(obs: Observation) -> HeuristicPlayouts:
    """The position of ``obs`` (the PLAY phase) on the native core's playouts: what
    ``HandSimulation.from_observation`` keeps but the hands (and the partner they imply)."""
    assert obs.trump is not None
    rules = obs.ruleset
    trump = int(obs.trump)
    tricks = [trick.cards for trick in obs.completed_tricks]
    tricks.append(obs.current_trick.cards)
    played = 0
    history: list[tuple[int, int]] = []
    for cards in tricks:
        for seat, card in cards:
            played |= 1 << card
            history.append((seat, card))
    won = [0] * rules.players
    for trick in obs.completed_tricks:
        won[trick.winner] += trick.points
    return HeuristicPlayouts(
        rules,
        trump=trump,
        bidder=obs.bidder,
        called=obs.called_card,
        partner_shown=obs.partner >= 0
        and obs.called_card >= 0
        and bool(played >> obs.called_card & 1),
        played=played,
        trick=list(obs.current_trick.cards),
        voids=infer_voids(rules.players, trump, tricks, rules.rook_free_play),
        won=won,
        leader=obs.current_trick.leader,
        tricks_left=rules.hand_size - len(obs.completed_tricks),
        history=history,
    )


def called_partner(obs: Observation, hands: list[int]) -> int:
    """The bidder's partner in a called-partner hand given ``hands``: the one ``obs`` knows, else
    whoever holds the called card in ``hands`` (-1: no partner, or not a called hand)."""
    if obs.ruleset.partnership is not Partnership.CALLED or obs.called_card < 0:
        return -1
    if obs.partner >= 0:
        return obs.partner
    bit = 1 << obs.called_card
    return next((seat for seat, hand in enumerate(hands) if hand & bit), -1)


def hand_utility(deltas: list[int], seat: int, rules: Ruleset) -> float:
    """The hand's worth to ``seat``: its side's score change minus the others' average."""
    sides = rules.sides
    mine = deltas[seat]
    others: dict[int, int] = {}
    for other, delta in enumerate(deltas):
        if sides[other] != sides[seat]:
            others[sides[other]] = delta
    if not others:
        return float(mine)
    return mine - sum(others.values()) / len(others)


def win_chance(mine: float, theirs: float, target: int, *, per_hand: float, spread: float) -> float:
    """A rough chance that a side at ``mine`` beats one at ``theirs`` in a race to ``target``.

    Over the hands left — about ``(target - leader's score) / per_hand`` — the score difference
    drifts like a sum of hands each spread ``spread``; once a side reaches ``target`` the higher
    score wins.
    """
    if mine >= target or theirs >= target:
        if mine == theirs:
            return 0.5
        return 1.0 if mine > theirs else 0.0
    hands = max(1.0, (target - max(mine, theirs)) / per_hand)
    z = (mine - theirs) / (spread * math.sqrt(hands))
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def game_utility(deltas: list[int], seat: int, rules: Ruleset, scores: tuple[int, ...]) -> float:
    """The hand's worth to ``seat``: its side's chance to win the game afterwards (x 200),
    plus a twentieth of ``hand_utility`` to rank hands that leave the chance the same.

    Only for two sides; other rulesets use ``hand_utility``.
    """
    if rules.num_sides != 2:
        return hand_utility(deltas, seat, rules)
    sides = rules.sides
    mine_side = sides[seat]
    other = next(s for s in range(rules.players) if sides[s] != mine_side)
    mine = scores[mine_side] + deltas[seat]
    theirs = scores[1 - mine_side] + deltas[other]
    scale = rules.deck_points / 120
    chance = win_chance(mine, theirs, rules.target, per_hand=55.0 * scale, spread=70.0 * scale)
    return 200.0 * chance + 0.05 * hand_utility(deltas, seat, rules)
