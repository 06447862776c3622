"""The native core plays every valid ruleset as the pure engine does, not only the presets:
random parameter combinations (3 to 6 players, every partnership, short decks, empty and large
nests, odd bid steps and limits, both orders of trump and bury, both policies), each played on
both builds with every action compared."""

from __future__ import annotations

import random

import pytest
from core_support import core, core_rules
from rookery.engine import (
    AllPass,
    BothOver,
    FirstLead,
    HandSeeds,
    Partnership,
    Ruleset,
    RulesetError,
    TableBatch,
)
from test_core_differential import play_both


def random_ruleset(rng: random.Random, index: int) -> Ruleset | None:
    """A random ruleset, or ``None`` when the draw is not a valid one."""
    players = rng.randrange(3, 7)
    partnership = rng.choice(list(Partnership))
    step = rng.choice([1, 5, 10, 20])
    try:
        return Ruleset(
            name=f"random-{index}",
            players=players,
            partnership=partnership,
            lowest_rank=rng.choice([1, 1, 2, 5, 8, 11, 13]),
            rook_cards=rng.choice([1, 2]),
            nest_size=rng.choice([0, 1, 3, 5, 6, 8, 12]),
            min_bid=step * rng.randrange(1, 8),
            bid_step=step,
            max_bid=rng.choice([None, None, step * rng.randrange(1, 15)]),
            first_lead=rng.choice(list(FirstLead)),
            all_pass=rng.choice(list(AllPass)),
            trump_first=rng.random() < 0.5,
            rook_free_play=rng.random() < 0.5,
            both_over=rng.choice(list(BothOver)),
            target=rng.choice([20, 60, 150, 300]),
            max_hands=rng.randrange(1, 5),
            last_trick_bonus=rng.choice([0, 0, 5, 20]),
            first_dealer=rng.randrange(players),
            hand_seeds=rng.choice(list(HandSeeds)),
        )
    except RulesetError:
        return None


def test_random_rulesets_play_alike_on_both_builds() -> None:
    rng = random.Random(42)
    played = 0
    index = 0
    while played < 40:
        index += 1
        ruleset = random_ruleset(rng, index)
        if ruleset is None:
            continue
        for seed in (index, index + 1000):
            play_both(ruleset, seed, hostile=0.2, checks=5)
        played += 1
    assert index < 2000


def test_the_core_refuses_what_the_ruleset_refuses() -> None:
    good = Ruleset.preset("standard").to_dict()
    for change in ({"players": 7}, {"nest_size": 60}, {"min_bid": 72}, {"max_bid": 10}):
        try:
            Ruleset.from_dict({**good, **change})
        except RulesetError:
            pass
        else:
            raise AssertionError(f"the pure engine took {change}")
        try:
            core.Rules.from_dict({**good, **change})
        except ValueError:
            continue
        raise AssertionError(f"the core took {change}")
    assert core_rules(Ruleset.preset("standard")).hand_size == 13


def test_a_ruleset_past_64_bits_is_refused_by_the_core_with_a_clear_error() -> None:
    huge = Ruleset.preset("standard").replace(target=10**30)  # valid for the pure engine
    with pytest.raises(ValueError, match=r"target: 10{30} is outside what the native core takes"):
        core_rules(huge)
    with pytest.raises(ValueError, match="outside what the native core takes"):
        TableBatch(huge, 2, 1)
