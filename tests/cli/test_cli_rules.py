"""`rookery rules [PRESET]`: in-process, and once as a real process."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from typing import Any

import pytest
from rookery.engine import PRESETS

Rookery = Callable[..., "subprocess.CompletedProcess[str]"]
Cli = Callable[..., Any]


def test_the_script_lists_every_preset_one_line_each(rookery: Rookery) -> None:
    process = rookery("rules")
    assert process.returncode == 0
    lines = process.stdout.splitlines()
    assert [line.split()[0] for line in lines] == list(PRESETS)
    assert "3 players, cutthroat; 57 cards; 17 each, nest 6" in lines[7]


@pytest.mark.parametrize(
    ("preset", "derived"),
    [
        (
            "standard",
            [
                "deck size         57 cards",
                "hand size         13",
                "nest              5",
                "dead cards        0",
                "deck points       120",
            ],
        ),
        ("nest-4", ["hand size         13", "nest              4", "dead cards        1"]),
        ("traditional", ["deck size         41 cards (5-14", "hand size         9"]),
        ("double-bird", ["deck points       140", "max bid           140", "+ ROOK, ROOK2"]),
        ("six-handed", ["sides             3: {0,3}, {1,4}, {2,5}"]),
        ("five-handed", ["sides             5: every seat its own side"]),
    ],
)
def test_a_preset_shows_its_derived_values(cli: Cli, preset: str, derived: list[str]) -> None:
    process = cli("rules", preset)
    assert process.returncode == 0
    for text in derived:
        assert text in process.stdout


def test_a_preset_shows_every_parameter(cli: Cli) -> None:
    text = cli("rules", "traditional").stdout
    for name, value in PRESETS["traditional"].to_dict().items():
        assert f"  {name:<17} " in text
        if name != "max_bid":
            assert f"  {name:<17} {value}" in text


def test_json_output_has_parameters_and_derived_values(cli: Cli) -> None:
    data = json.loads(cli("rules", "straight", "--json").stdout)
    assert data["parameters"] == PRESETS["straight"].to_dict()
    assert data["derived"]["dead_cards"] == 1
    assert data["derived"]["hand_size"] == 14


def test_an_unknown_preset_exits_2_with_the_valid_names(cli: Cli) -> None:
    process = cli("rules", "whist")
    assert process.returncode == 2
    assert process.stderr.strip() == (
        f"rookery rules: unknown preset 'whist'; valid presets: {', '.join(PRESETS)}"
    )


def test_help_has_examples(cli: Cli) -> None:
    assert "rookery rules traditional" in cli("rules", "--help").stdout
