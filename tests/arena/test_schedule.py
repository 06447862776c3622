"""The schedule: pairings, duplicate rotations, determinism and resumption."""

from __future__ import annotations

import itertools
from collections import Counter

from rookery.arena.config import Format
from rookery.arena.run import Schedule
from rookery.arena.run._schedule import derive_seed, lineups_for
from rookery.engine import Ruleset

STANDARD = Ruleset.preset("standard")
CUTTHROAT = Ruleset.preset("cutthroat")


def test_round_robin_plays_every_pair_of_bots() -> None:
    schedule = Schedule(["a", "b", "c"], STANDARD, Format.ROUND_ROBIN, 4)
    pairs = Counter(frozenset(g.side_bots) for g in schedule.games())
    assert pairs == {frozenset(p): 4 for p in itertools.combinations("abc", 2)}
    assert schedule.total == 12


def test_a_bot_fills_every_seat_of_its_side() -> None:
    game = Schedule(["a", "b"], STANDARD, Format.ROUND_ROBIN, 2).game(0)
    assert game.seat_bots == ("a", "b", "a", "b")


def test_a_duplicate_pair_shares_the_seed_with_sides_swapped() -> None:
    schedule = Schedule(["a", "b"], STANDARD, Format.ROUND_ROBIN, 2)
    first, second = schedule.games()
    assert first.group == second.group
    assert first.seed == second.seed
    assert second.side_bots == tuple(reversed(first.side_bots))


def test_per_player_groups_rotate_the_seats() -> None:
    schedule = Schedule(["a", "b", "c"], CUTTHROAT, Format.ROUND_ROBIN, 3)
    group = list(schedule.games())
    assert len(group) == 3
    assert {g.seed for g in group} == {group[0].seed}
    assert {g.seat_bots for g in group} == {("a", "b", "c"), ("c", "a", "b"), ("b", "c", "a")}


def test_per_player_with_fewer_bots_than_seats_uses_every_mix() -> None:
    assert lineups_for(["a", "b"], 3, Format.ROUND_ROBIN) == [("a", "a", "b"), ("a", "b", "b")]


def test_gauntlet_pairs_the_first_bot_with_each_other() -> None:
    lineups = lineups_for(["new", "x", "y"], 2, Format.GAUNTLET)
    assert lineups == [("new", "x"), ("new", "y")]


def test_sprt_plays_the_two_bots_head_to_head() -> None:
    schedule = Schedule(["new", "old"], STANDARD, Format.SPRT, 100)
    assert {g.side_bots for g in schedule.games()} == {("new", "old"), ("old", "new")}
    assert schedule.total == 100


def test_every_pairing_of_a_round_plays_the_same_deals() -> None:
    schedule = Schedule(["a", "b", "c"], STANDARD, Format.ROUND_ROBIN, 2)
    assert {g.seed for g in schedule.games()} == {derive_seed(1, 0)}


def test_without_duplicate_sides_alternate_between_rounds() -> None:
    schedule = Schedule(["a", "b"], STANDARD, Format.ROUND_ROBIN, 2, duplicate=False)
    first, second = schedule.games()
    assert first.seed != second.seed
    assert first.side_bots == ("a", "b")
    assert second.side_bots == ("b", "a")


def test_the_schedule_is_deterministic_and_resumable_by_index() -> None:
    schedule = Schedule(["a", "b", "c"], STANDARD, Format.ROUND_ROBIN, 6, seed=9)
    again = Schedule(["a", "b", "c"], STANDARD, Format.ROUND_ROBIN, 6, seed=9)
    assert list(schedule.games()) == list(again.games())
    assert list(schedule.games(start=7)) == list(schedule.games())[7:]


def test_another_seed_gives_other_deals() -> None:
    one = Schedule(["a", "b"], STANDARD, Format.ROUND_ROBIN, 2, seed=1).game(0)
    two = Schedule(["a", "b"], STANDARD, Format.ROUND_ROBIN, 2, seed=2).game(0)
    assert one.seed != two.seed
