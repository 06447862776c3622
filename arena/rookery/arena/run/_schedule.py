"""Pairings, generated lazily and deterministically from the tournament seed.

A **lineup** assigns one bot to each side of the ruleset (two sides for the partnership presets,
one per seat for the per-player presets, three for six-handed). A bot on a side fills every seat
of that side, so in a partnership game a bot partners itself; a **team** (an entry of two or more
bots) fills its side's seats with its members in turn. A **group** is one lineup played on
one seed in every rotation of the sides: for two sides that is the duplicate pair (the same deals
twice, sides swapped), for ``k`` sides the ``k`` cyclic rotations. The group is the unit of the
statistics. Without duplicate each group is a single game, and successive rounds rotate the sides.

Round ``r`` uses the seed ``derive_seed(tournament seed, r)`` for every lineup: all pairings of a
round play the same deals. Given deal seeds (the benchmark's fixed deal sets), round ``r`` plays
the ``r``-th of them instead. Game ``index`` is a position in the schedule; ``games(start)`` resumes
from any position and produces exactly the games a fresh run would.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass

from rookery.arena._config_model import TournamentConfig
from rookery.arena._config_values import Format
from rookery.arena.errors import ScheduleError
from rookery.engine import Ruleset

__all__ = [
    "Schedule",
    "ScheduleShare",
    "ScheduledGame",
    "bot_seed_key",
    "derive_seed",
    "lineups_for",
    "seats_per_table",
]


def derive_seed(tournament_seed: int, round_index: int) -> int:
    """The game seed of a round: 63 bits of blake2b, never 0 (0 asks the server for a random one).

    >>> derive_seed(1, 0) == derive_seed(1, 0) != derive_seed(1, 1)
    True
    """
    digest = hashlib.blake2b(
        f"rookery-arena:{tournament_seed}:{round_index}".encode(), digest_size=8
    )
    return (int.from_bytes(digest.digest(), "big") >> 1) or 1


def bot_seed_key(tournament_seed: int) -> bytes:
    """The tournament's secret key of its seats' bot seeds (``TableJoined.bot_seed``).

    A function of the tournament seed alone, so a rerun, a resume and the Ray backend give every
    seat the same bot seed; it is as secret as the seed itself (which already derives the deals).
    """
    return hashlib.blake2b(f"rookery-arena-bot-seeds:{tournament_seed}".encode()).digest()[:32]


@dataclass(frozen=True)
class ScheduledGame:
    """One game to play: where it sits in the schedule, its seed and who sits where."""

    index: int
    group: int
    round: int
    rotation: int
    seed: int
    #: The bot at each seat, in seat order.
    seat_bots: tuple[str, ...]
    #: The bot playing each side, in side order.
    side_bots: tuple[str, ...]

    @property
    def game_id(self) -> str:
        """A stable identifier: the zero-padded schedule index."""
        return f"{self.index:06d}"


def lineups_for(
    bots: Sequence[str], sides: int, tournament_format: Format
) -> list[tuple[str, ...]]:
    """Every lineup (bot per side, before rotation) the format plays.

    Round-robin: every combination of ``sides`` distinct bots; with fewer bots than sides, every
    multiset of bots that uses each bot at least once. Gauntlet: those lineups that include the
    first bot. SPRT: the first two bots.
    """
    if len(bots) < 2:
        raise ScheduleError(f"a schedule needs at least two bots, got {list(bots)}")
    if tournament_format is Format.SPRT:
        if sides != 2:
            # Per-player head-to-head: the two bots share the seats in every multiset.
            return _multisets(bots[:2], sides)
        return [(bots[0], bots[1])]
    if len(bots) >= sides:
        lineups = list(itertools.combinations(bots, sides))
    else:
        lineups = _multisets(bots, sides)
    if tournament_format is Format.GAUNTLET:
        lineups = [lineup for lineup in lineups if bots[0] in lineup]
    return lineups


def _multisets(bots: Sequence[str], sides: int) -> list[tuple[str, ...]]:
    return [
        combo
        for combo in itertools.combinations_with_replacement(bots, sides)
        if set(combo) == set(bots)
    ]


class Schedule:
    """The lazily generated schedule of a tournament."""

    def __init__(
        self,
        bots: Sequence[str],
        ruleset: Ruleset,
        tournament_format: Format,
        games_per_pairing: int,
        *,
        duplicate: bool = True,
        seed: int = 1,
        teams: Mapping[str, Sequence[str]] | None = None,
        deal_seeds: Sequence[int] = (),
    ) -> None:
        self.bots = tuple(bots)
        #: Entries of ``bots`` that are teams: their members share their side's seats in turn.
        self.teams = {name: tuple(members) for name, members in (teams or {}).items()}
        self.ruleset = ruleset
        self.format = tournament_format
        self.sides = ruleset.num_sides
        self.duplicate = duplicate
        self.seed = seed
        self.lineups = lineups_for(self.bots, self.sides, tournament_format)
        self.group_size = self.sides if duplicate else 1
        if games_per_pairing < 1:
            raise ScheduleError(f"games per pairing must be at least 1, got {games_per_pairing}")
        #: Rounds: each lineup plays one group per round.
        self.rounds = math.ceil(games_per_pairing / self.group_size)
        #: The game seed of each round when fixed (else derived from :attr:`seed`).
        self.deal_seeds = tuple(deal_seeds)
        if self.deal_seeds and self.rounds > len(self.deal_seeds):
            raise ScheduleError(
                f"{games_per_pairing} games a pairing need {self.rounds} deal seeds, got "
                f"{len(self.deal_seeds)}"
            )
        self._side_seats = [ruleset.seats_of_side(side) for side in range(self.sides)]

    @classmethod
    def from_config(cls, config: TournamentConfig) -> Schedule:
        """The schedule of ``config``'s tournament (its entries, teams, format, seed)."""
        return cls(
            config.entries,
            config.ruleset,
            config.format,
            config.games,
            duplicate=config.duplicate,
            seed=config.seed,
            teams=config.team_members,
            deal_seeds=config.deal_seeds,
        )

    @property
    def total(self) -> int:
        """Games in the whole schedule (for SPRT: the cap, rounded up to whole pairs)."""
        return self.rounds * len(self.lineups) * self.group_size

    @property
    def groups_per_round(self) -> int:
        """Groups in each round: one per lineup."""
        return len(self.lineups)

    def game(self, index: int) -> ScheduledGame:
        """The game at position ``index`` of the schedule."""
        if not 0 <= index < self.total:
            raise IndexError(f"game index {index} outside the schedule of {self.total} games")
        group, rotation_slot = divmod(index, self.group_size)
        round_index, lineup_index = divmod(group, len(self.lineups))
        lineup = self.lineups[lineup_index]
        rotation = rotation_slot if self.duplicate else round_index % self.sides
        side_bots = tuple(lineup[(side - rotation) % self.sides] for side in range(self.sides))
        seat_bots = [""] * self.ruleset.players
        for side, seats in enumerate(self._side_seats):
            members = self.teams.get(side_bots[side], (side_bots[side],))
            for i, seat in enumerate(seats):
                seat_bots[seat] = members[i % len(members)]
        return ScheduledGame(
            index=index,
            group=group,
            round=round_index,
            rotation=rotation,
            seed=self.round_seed(round_index),
            seat_bots=tuple(seat_bots),
            side_bots=side_bots,
        )

    def round_seed(self, round_index: int) -> int:
        """The game seed of every game of round ``round_index``."""
        if self.deal_seeds:
            return self.deal_seeds[round_index]
        return derive_seed(self.seed, round_index)

    def games(self, start: int = 0) -> Iterator[ScheduledGame]:
        """The games from position ``start`` on, generated one at a time."""
        for index in range(start, self.total):
            yield self.game(index)

    def group_indices(self, group: int) -> range:
        """The schedule positions of the games of ``group``."""
        return range(group * self.group_size, (group + 1) * self.group_size)


def seats_per_table(schedule: Schedule, bot: str) -> int:
    """The most seats ``bot`` holds at one table of the schedule (sessions it needs at once)."""
    most = 0
    seats_per_side = [schedule.ruleset.seats_of_side(s) for s in range(schedule.sides)]
    for lineup in schedule.lineups:
        seats = 0
        for side, entry in enumerate(lineup):
            members = schedule.teams.get(entry, (entry,))
            seats += sum(
                1 for i in range(len(seats_per_side[side])) if members[i % len(members)] == bot
            )
        most = max(most, seats)
    return max(1, most)


@dataclass(frozen=True)
class ScheduleShare:
    """The games of ``schedule`` one run plays: all of them, or (``only``) a Ray task's positions.

    A game's **lane** is its position in its round (a lineup and a rotation): each round has a
    seed of its own, so a lane plays every seed once (the warm lanes of sandboxed bots).
    """

    schedule: Schedule
    only: frozenset[int] | None = None

    @property
    def total(self) -> int:
        """The games of this share."""
        return len(self.only) if self.only is not None else self.schedule.total

    def pending(self, recorded: Collection[int]) -> Iterator[ScheduledGame]:
        """The games of this share not in ``recorded``, in schedule order (generated lazily)."""
        for game in self.schedule.games():
            if game.index in recorded:
                continue
            if self.only is None or game.index in self.only:
                yield game

    @property
    def lane_count(self) -> int:
        """Lanes of the schedule: the games of a round."""
        return self.schedule.groups_per_round * self.schedule.group_size

    def lane_of(self, game: ScheduledGame) -> int:
        """The game's lane (its position in its round)."""
        return game.index % self.lane_count

    def is_last_of_lane(self, game: ScheduledGame) -> bool:
        """Whether ``game`` is the last its lane plays in this share (its processes may stop)."""
        later = range(game.index + self.lane_count, self.schedule.total, self.lane_count)
        if self.only is None:
            return not later
        return not any(index in self.only for index in later)
