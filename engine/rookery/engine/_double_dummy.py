"""The native core's exact double-dummy solver, where the engine runs on the core.

With every hand known and two sides, the rest of a hand is a zero-sum game over the points still
to be won; ``DoubleDummy`` gives its value under perfect play by both sides (the search bots'
endgame). Only where ``Game`` runs on the core (``DoubleDummy.available()``): the search bots keep
a pure Python solver for the rest.
"""

from __future__ import annotations

from collections.abc import Sequence

from ._core import native, on_core

__all__ = ["DoubleDummy"]


class DoubleDummy:
    """One deal's solver: the points the seats of ``side`` (a bit mask of seats) take from a
    position of the play to the end of the hand (the open trick's, the tricks left and the last
    trick's bonus). Its table serves every position of one trump and side, so keep one per deal.
    With ``node_limit`` (0: none), a search past that many nodes raises ``ValueError``."""

    __slots__ = ("_solver",)

    @staticmethod
    def available() -> bool:
        """Whether the solver is here: the core is built and the engine runs on it."""
        return on_core

    def __init__(
        self,
        players: int,
        trump: int,
        side: int,
        *,
        rook_free_play: bool = False,
        last_trick_bonus: int = 0,
        node_limit: int = 0,
    ) -> None:
        if not on_core or native is None:
            raise RuntimeError("DoubleDummy needs the engine on the native core (rookery_core)")
        self._solver = native.DoubleDummy(
            players, trump, side, rook_free_play, last_trick_bonus, node_limit=node_limit
        )

    def solve(
        self,
        hands: Sequence[int],
        leader: int,
        trick: Sequence[int] = (),
        *,
        at_least: int | None = None,
        at_most: int | None = None,
    ) -> int:
        """The side's points from the position: every seat's cards now, the seat that led the
        open trick (or leads next) and the cards of the open trick in the order played.

        ``at_least`` / ``at_most``: a bound on the value that the caller knows holds, such as
        the value after the card the seat to play went on to play (from below for a seat of the
        side, from above for another). The search tests the value next to it first: when the
        bound is the value, one null-window search settles it. A bound that does not hold gives
        a wrong value."""
        return int(
            self._solver.solve(list(hands), leader, list(trick), at_least=at_least, at_most=at_most)
        )

    def bounds(
        self,
        hands: Sequence[int],
        leader: int,
        trick: Sequence[int] = (),
        *,
        at_least: int | None = None,
        at_most: int | None = None,
        test_first: int | None = None,
        only_above: int | None = None,
    ) -> tuple[int, int]:
        """``(lower, upper)``: what the searches prove of the position's value within the node
        limit. The value twice when solved; when the limit stops the search, the bounds the
        finished searches proved (no ``ValueError`` for the limit). With ``test_first``, the
        first search tests whether the value is that much or more (whether a contract makes),
        so a limit that stops a later search still leaves that answer in the bounds. With
        ``only_above``, a value at or below it does not matter (the caller has that much
        elsewhere): the first search tests the value just above it, and the searches stop once
        they prove the value at or below it (``upper <= only_above``)."""
        lower, upper = self._solver.bounds(
            list(hands),
            leader,
            list(trick),
            at_least=at_least,
            at_most=at_most,
            test_first=test_first,
            only_above=only_above,
        )
        return int(lower), int(upper)

    def card_values(
        self, hands: Sequence[int], leader: int, trick: Sequence[int] = ()
    ) -> list[tuple[int, int]]:
        """Each legal card of the seat to play, with the side's points after it."""
        return [
            (int(card), int(value))
            for card, value in self._solver.card_values(list(hands), leader, list(trick))
        ]

    @property
    def nodes(self) -> int:
        """The nodes searched so far."""
        return int(self._solver.nodes)
