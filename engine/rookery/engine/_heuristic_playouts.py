"""The search bots' heuristic playouts on the native core, where the engine runs on it.

The playout model of ``rookery.client.bots`` (``HandSimulation.play_out``: every seat playing the
bots' heuristic on what it could know) ported card for card to the core, for pimc's samples; the
Python model stays the readable reference (``tests/bots/test_core_playouts.py`` holds the two
equal). Only where ``Game`` runs on the core (``HeuristicPlayouts.available()``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from ._core import native, on_core
from ._observation import Observation
from ._ruleset import Partnership, Ruleset
from ._sampling import _reading

__all__ = ["HeuristicPlayouts"]


class HeuristicPlayouts:
    """One position of a hand's play (all but the hidden hands), played out per sample.

    ``played``: every card played so far; ``trick``: the open trick's ``(seat, card)``;
    ``voids``, ``won``: per seat, the cards it has shown it lacks and the points it has taken;
    ``history``: every ``(seat, card)`` of the hand so far, in order (for ``likelihood``).
    """

    __slots__ = ("_playouts",)

    @staticmethod
    def available() -> bool:
        """Whether the playouts are here: the core is built and the engine runs on it."""
        return on_core

    def __init__(
        self,
        rules: Ruleset,
        *,
        trump: int,
        bidder: int,
        called: int,
        partner_shown: bool,
        played: int,
        trick: Sequence[tuple[int, int]],
        voids: Sequence[int],
        won: Sequence[int],
        leader: int,
        tricks_left: int,
        history: Sequence[tuple[int, int]] = (),
    ) -> None:
        if not on_core or native is None:
            raise RuntimeError(
                "HeuristicPlayouts needs the engine on the native core (rookery_core)"
            )
        fixed = None
        if rules.partnership is Partnership.FIXED:
            fixed = [
                sum(1 << other for other in rules.seats_of_side(rules.sides[seat]))
                for seat in range(rules.players)
            ]
        self._playouts = native.HeuristicPlayouts(
            rules.players,
            rules.deck_mask,
            rules.rook_free_play,
            rules.last_trick_bonus,
            fixed,
            trump,
            bidder,
            called,
            partner_shown,
            played,
            list(trick),
            list(voids),
            list(won),
            leader,
            tricks_left,
            list(history),
            rules.hand_size,
        )

    def play_out(
        self, hands: Sequence[int], partner: int, bidding_mask: int, candidates: Sequence[int]
    ) -> list[list[int]]:
        """Per candidate card of the seat to play, each seat's points at the hand's end (the
        last trick's bonus in) once the card is played and the rest played out; ``hands``: every
        seat's cards now, ``partner``: the bidder's called partner (-1: none), ``bidding_mask``:
        the bidding side's seats."""
        result: list[list[int]] = self._playouts.play_out(
            list(hands), partner, bidding_mask, list(candidates)
        )
        return result

    def likelihood(
        self, hands: Sequence[int], partner: int, bidding_mask: int, friends: int, miss: float
    ) -> float:
        """How well ``hands`` (every seat's cards now) explain the cards the seats outside
        ``friends`` played in ``history``, read as heuristic play: ``miss`` per card the
        heuristic would not have chosen where it had a choice."""
        return float(self._playouts.likelihood(list(hands), partner, bidding_mask, friends, miss))

    def likeliest(
        self, observation: Observation, rng: random.Random, tries: int, friends: int, miss: float
    ) -> tuple[list[int], int, int]:
        """The likeliest of ``tries`` deals drawn for ``observation`` (``sample_deals``), by
        ``likelihood`` (the first that explains every card): every seat's cards now, the nest
        (after the bury: the buried cards) and the dead pile. ``observation`` is this position's."""
        hidden = _reading(observation)
        partner = (
            observation.partner if observation.ruleset.partnership is Partnership.CALLED else -1
        )
        hands, nest, dead = self._playouts.likeliest(
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
            tries,
            observation.seat,
            observation.hand,
            partner,
            friends,
            miss,
        )
        return list(hands), int(nest), int(dead)
