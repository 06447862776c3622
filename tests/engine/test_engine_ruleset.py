"""RULES.md: every ruleset parameter, the ten presets, and the validation list."""

from __future__ import annotations

import json
from typing import Any

import pytest
from rookery.engine import (
    PRESETS,
    AllPass,
    BothOver,
    FirstLead,
    Partnership,
    Ruleset,
    RulesetError,
)


def test_the_ten_presets_are_named_as_in_rules() -> None:
    assert list(PRESETS) == [
        "standard",
        "traditional",
        "nest-4",
        "nest-6",
        "straight",
        "double-bird",
        "called-partner",
        "cutthroat",
        "five-handed",
        "six-handed",
    ]
    for name, ruleset in PRESETS.items():
        assert ruleset.name == name
        assert Ruleset.preset(name) is ruleset


@pytest.mark.parametrize(
    ("name", "players", "partnership", "deck", "hand", "nest", "dead"),
    [
        ("standard", 4, Partnership.FIXED, 57, 13, 5, 0),
        ("traditional", 4, Partnership.FIXED, 41, 9, 5, 0),
        ("nest-4", 4, Partnership.FIXED, 57, 13, 4, 1),
        ("nest-6", 4, Partnership.FIXED, 57, 12, 6, 3),
        ("straight", 4, Partnership.FIXED, 57, 14, 0, 1),
        ("double-bird", 4, Partnership.FIXED, 58, 13, 6, 0),
        ("called-partner", 4, Partnership.CALLED, 57, 13, 5, 0),
        ("cutthroat", 3, Partnership.NONE, 57, 17, 6, 0),
        ("five-handed", 5, Partnership.CALLED, 57, 10, 7, 0),
        ("six-handed", 6, Partnership.FIXED, 57, 9, 3, 0),
    ],
)
def test_preset_table(
    name: str, players: int, partnership: Partnership, deck: int, hand: int, nest: int, dead: int
) -> None:
    ruleset = PRESETS[name]
    assert ruleset.players == players
    assert ruleset.partnership is partnership
    assert (ruleset.deck_size, ruleset.hand_size, ruleset.nest_size, ruleset.dead_count) == (
        deck,
        hand,
        nest,
        dead,
    )
    assert ruleset.hand_size * players + nest + dead == deck


def test_standard_parameters() -> None:
    standard = PRESETS["standard"]
    assert (standard.min_bid, standard.bid_step, standard.effective_max_bid) == (70, 5, 120)
    assert standard.first_lead is FirstLead.BIDDER
    assert standard.all_pass is AllPass.REDEAL
    assert standard.trump_first and not standard.rook_free_play
    assert standard.both_over is BothOver.HIGHER_TOTAL
    assert (standard.target, standard.max_hands, standard.last_trick_bonus) == (300, 200, 0)


def test_traditional_parameters() -> None:
    traditional = PRESETS["traditional"]
    assert traditional.rook_free_play
    assert traditional.first_lead is FirstLead.LEFT_OF_BIDDER
    assert not traditional.trump_first
    assert traditional.both_over is BothOver.BIDDER_WINS
    assert traditional.lowest_rank == 5


def test_double_bird_bids_up_to_140() -> None:
    assert PRESETS["double-bird"].effective_max_bid == 140


def test_sides_of_fixed_partnerships_sit_opposite() -> None:
    assert PRESETS["standard"].sides == (0, 1, 0, 1)
    assert PRESETS["standard"].seats_of_side(0) == (0, 2)
    assert PRESETS["six-handed"].sides == (0, 1, 2, 0, 1, 2)
    assert PRESETS["six-handed"].seats_of_side(2) == (2, 5)
    assert PRESETS["six-handed"].num_sides == 3


def test_per_player_rulesets_give_every_seat_its_side() -> None:
    for name in ("cutthroat", "called-partner", "five-handed"):
        ruleset = PRESETS[name]
        assert ruleset.is_per_player
        assert ruleset.sides == tuple(range(ruleset.players))
    assert not PRESETS["standard"].is_per_player


@pytest.mark.parametrize(
    ("changes", "parameter"),
    [
        ({"players": 2}, "players"),
        ({"players": 7}, "players"),
        ({"players": 3}, "partnership"),
        ({"players": 5}, "partnership"),
        ({"players": 3, "partnership": Partnership.NONE, "lowest_rank": 0}, "lowest_rank"),
        ({"lowest_rank": 15}, "lowest_rank"),
        ({"nest_size": -1}, "nest_size"),
        ({"nest_size": 54}, "nest_size"),
        ({"min_bid": 0}, "min_bid"),
        ({"min_bid": 72}, "min_bid"),
        ({"bid_step": 0}, "bid_step"),
        ({"bid_step": -5}, "bid_step"),
        ({"max_bid": 0}, "max_bid"),
        ({"max_bid": 101}, "max_bid"),
        ({"min_bid": 100, "max_bid": 90}, "max_bid"),
        ({"target": 0}, "target"),
        ({"max_hands": 0}, "max_hands"),
        ({"rook_cards": 0}, "rook_cards"),
        ({"rook_cards": 3}, "rook_cards"),
        ({"first_dealer": 4}, "first_dealer"),
        ({"players": "4"}, "players"),
        ({"partnership": "FIXED"}, "partnership"),
        ({"trump_first": 1}, "trump_first"),
    ],
)
def test_validation_refuses_unplayable_parameters(changes: dict[str, Any], parameter: str) -> None:
    with pytest.raises(RulesetError) as caught:
        Ruleset(**changes)
    assert caught.value.parameter == parameter
    assert parameter in str(caught.value)


def test_nest_leaving_one_card_each_is_accepted() -> None:
    assert Ruleset(nest_size=53).hand_size == 1


def test_min_bid_above_the_deck_total_is_refused() -> None:
    with pytest.raises(RulesetError, match="min_bid"):
        Ruleset(min_bid=125)


def test_unknown_preset_lists_the_valid_names() -> None:
    with pytest.raises(RulesetError, match="standard") as caught:
        Ruleset.preset("bridge")
    assert "six-handed" in str(caught.value)


def test_replace_validates_again() -> None:
    assert PRESETS["standard"].replace(target=500).target == 500
    with pytest.raises(RulesetError):
        PRESETS["standard"].replace(target=-1)


@pytest.mark.parametrize("name", list(PRESETS))
def test_to_dict_round_trips_through_json(name: str) -> None:
    ruleset = PRESETS[name]
    assert Ruleset.from_dict(json.loads(json.dumps(ruleset.to_dict()))) == ruleset


def test_from_dict_refuses_unknown_parameters_and_enum_names() -> None:
    with pytest.raises(RulesetError, match="colour"):
        Ruleset.from_dict({"colour": "red"})
    with pytest.raises(RulesetError, match="partnership"):
        Ruleset.from_dict({"partnership": "SOMETIMES"})


def test_rulesets_are_frozen_and_hashable() -> None:
    standard = PRESETS["standard"]
    with pytest.raises(AttributeError):
        standard.players = 5  # type: ignore[misc]
    assert hash(standard) == hash(Ruleset(name="standard"))
