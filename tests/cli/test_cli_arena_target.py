"""`rookery arena run --target N`: a ruleset no longer the preset does not carry its name."""

from __future__ import annotations

from rookery.cli.arena import _build_config
from rookery.cli.main import build_parser

_BOTS = ["--bot", "a=python a.py", "--bot", "b=python b.py"]


def _ruleset_name(*flags: str) -> str:
    args = build_parser().parse_args(["arena", "run", *_BOTS, *flags])
    return str(_build_config(args).ruleset.name)


def test_a_changed_target_names_the_preset_and_the_target() -> None:
    assert _ruleset_name("--target", "100") == "standard, target 100"
    assert _ruleset_name("--preset", "cutthroat", "--target", "250") == "cutthroat, target 250"


def test_the_presets_own_target_keeps_the_presets_name() -> None:
    assert _ruleset_name("--target", "300") == "standard"
    assert _ruleset_name("--preset", "cutthroat") == "cutthroat"
