"""An exact solver for the last tricks of a perfect-information hand: the search's endgame.

With every hand known and two sides, the rest of the hand is a zero-sum game over the points
still to be won: the bidding side maximises what it captures, the other side minimises it.
A hand's worth to either side (made or set, and the chance to win the game) only grows with
the bidding side's points, so the minimax of the points gives the minimax of the worth.
Alpha-beta inside a trick, an exact table at the trick boundaries, and cards that play alike
(one seat's cards of one suit and worth, no card of another seat or of the trick between them)
searched once.

Where the engine runs on the native core, the core's double-dummy solver (``DoubleDummy``, the same
exact values) does the search; this one is the readable reference and the fallback.
"""

from __future__ import annotations

from rookery.engine import CARD_POINTS, DoubleDummy, Partnership, Ruleset, playable

from ._play import FOLLOW_MASKS, KEYS, TRUMP_MASKS, alike_classes
from ._simulate import HandSimulation

__all__ = ["EndgameSolver", "solvable"]

_INF = 1 << 30


def solvable(rules: Ruleset) -> bool:
    """Whether the solver applies: two sides whose members every seat knows."""
    return rules.num_sides == 2 and rules.partnership is Partnership.FIXED


class EndgameSolver:
    """The bidding side's points from a position on, under perfect play by both sides.

    One solver serves every position of one deal (its table is keyed by the cards in hand).
    ``native``: search on the core's ``DoubleDummy`` (``None``: where it is available).
    """

    __slots__ = (
        "bidding",
        "bonus",
        "follow_masks",
        "keys",
        "native",
        "nodes",
        "players",
        "rook_free",
        "table",
        "trump_mask",
    )

    def __init__(self, sim: HandSimulation, *, native: bool | None = None) -> None:
        if native is None:
            native = DoubleDummy.available()
        self.native = (
            DoubleDummy(
                sim.players,
                sim.trump,
                sim.bidding_mask,
                rook_free_play=sim.rook_free_play,
                last_trick_bonus=sim.last_trick_bonus,
            )
            if native
            else None
        )
        self.players = sim.players
        self.bidding = sim.bidding_mask
        self.rook_free = sim.rook_free_play
        self.bonus = sim.last_trick_bonus
        self.keys = KEYS[sim.trump]
        self.follow_masks = FOLLOW_MASKS[sim.trump]
        self.trump_mask = TRUMP_MASKS[sim.trump]
        self.table: dict[tuple[int, tuple[int, ...]], int] = {}
        self.nodes = 0

    def points(self, sim: HandSimulation) -> int:
        """What the bidding side wins from ``sim`` on: the current trick's points, the tricks
        left and the last trick's bonus (not the tricks already won)."""
        if sim.tricks_left == 0:
            return 0
        if self.native is not None:
            return self.native.solve(sim.hands, sim.leader, [card for _, card in sim.trick])
        in_trick = 0
        for _, card in sim.trick:
            in_trick |= 1 << card
        return self._node(
            list(sim.hands),
            sim.current,
            len(sim.trick),
            sim.follow,
            sim.win_seat,
            sim.win_key,
            sim.trick_points,
            in_trick,
            -_INF,
            _INF,
        )

    def _from_lead(self, hands: tuple[int, ...], leader: int) -> int:
        """The exact value of the tricks left when ``leader`` is to lead."""
        key = (leader, hands)
        value = self.table.get(key)
        if value is None:
            value = self._node(list(hands), leader, 0, 0, -1, 0, 0, 0, -_INF, _INF)
            self.table[key] = value
        return value

    def _node(
        self,
        hands: list[int],
        seat: int,
        count: int,
        follow: int,
        win_seat: int,
        win_key: int,
        points: int,
        in_trick: int,
        alpha: int,
        beta: int,
    ) -> int:
        self.nodes += 1
        players = self.players
        hand = hands[seat]
        legal = playable(hand, follow, self.rook_free) if count else hand
        others = in_trick
        for other in range(players):
            if other != seat:
                others |= hands[other]
        maximising = self.bidding >> seat & 1
        keys = self.keys
        best = -_INF if maximising else _INF
        last = count + 1 == players
        next_seat = (seat + 1) % players
        for card in alike_classes(legal, others):
            bit = 1 << card
            key = keys[card]
            if count == 0:
                card_follow, seat_won, key_won = self.follow_masks[card], seat, key
            else:
                card_follow, seat_won, key_won = follow, win_seat, win_key
                if bit & (follow | self.trump_mask) and key > win_key:
                    seat_won, key_won = seat, key
            total = points + CARD_POINTS[card]
            hands[seat] = hand ^ bit
            if last:
                rest = tuple(hands)
                if not rest[seat_won]:
                    total += self.bonus  # the last trick
                    value = total if self.bidding >> seat_won & 1 else 0
                else:
                    value = (total if self.bidding >> seat_won & 1 else 0) + self._from_lead(
                        rest, seat_won
                    )
            else:
                value = self._node(
                    hands,
                    next_seat,
                    count + 1,
                    card_follow,
                    seat_won,
                    key_won,
                    total,
                    in_trick | bit,
                    alpha,
                    beta,
                )
            hands[seat] = hand
            if maximising:
                if value > best:
                    best = value
                    if best > alpha:
                        alpha = best
            elif value < best:
                best = value
                if best < beta:
                    beta = best
            if alpha >= beta:
                break
        return best
