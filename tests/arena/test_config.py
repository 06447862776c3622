"""Tournament TOML: what is accepted, and precise errors for what is not."""

from __future__ import annotations

from pathlib import Path

import pytest
from rookery.arena.config import (
    BotSpec,
    Format,
    config_from_dict,
    load_config,
    parse_bot_flag,
)
from rookery.arena.errors import ArenaConfigError
from rookery.engine import HandSeeds
from rookery.server import LatePolicy

GOOD = """
name = "nightly"
format = "round-robin"
games = 8
seed = 42
concurrency = 3

[ruleset]
preset = "standard"
target = 100

[time_control]
action_ms = 500
late_policy = "forfeit"

[[bots]]
name = "alpha"
command = "python -m alpha --fast"

[[bots]]
name = "beta"
command = ["python", "beta.py"]

[[bots]]
name = "guest"
remote = true
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "t.toml"
    path.write_text(text)
    return path


def test_a_complete_config_is_read(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, GOOD))
    assert config.name == "nightly"
    assert config.format is Format.ROUND_ROBIN
    assert (config.games, config.seed, config.concurrency) == (8, 42, 3)
    assert config.ruleset.target == 100
    assert config.ruleset.players == 4
    assert config.time_control.action_ms == 500
    assert config.time_control.late_policy is LatePolicy.FORFEIT
    assert config.bots[0].argv == ["python", "-m", "alpha", "--fast"]
    assert config.bots[1].argv == ["python", "beta.py"]
    assert config.bots[2].remote
    assert config.duplicate


def test_a_preset_by_name_at_the_top(tmp_path: Path) -> None:
    text = (
        'preset = "cutthroat"\n[[bots]]\nname="a"\nremote=true\n[[bots]]\nname="b"\nremote=true\n'
    )
    assert load_config(write(tmp_path, text)).ruleset.players == 3


@pytest.mark.parametrize(
    ("text", "key", "fragment"),
    [
        ('games = "ten"', "games", "must be an integer"),
        ('format = "swiss"', "format", "round-robin, gauntlet, sprt"),
        ('preset = "bridge"', "preset", "valid presets"),
        ("[ruleset]\ntarget = -5", "ruleset.target", "target"),
        ("colour = 1", "colour", "unknown key"),
        ("[time_control]\nlate_policy = 'never'", "time_control.late_policy", "auto-play"),
        ("[sprt]\nelo0 = 5\nelo1 = 0", "sprt", "elo0"),
    ],
)
def test_a_bad_value_names_the_file_and_key(
    tmp_path: Path, text: str, key: str, fragment: str
) -> None:
    path = write(
        tmp_path, text + '\n[[bots]]\nname="a"\nremote=true\n[[bots]]\nname="b"\nremote=true\n'
    )
    with pytest.raises(ArenaConfigError) as caught:
        load_config(path)
    assert caught.value.key == key
    assert str(path) in str(caught.value)
    assert fragment in str(caught.value)


def test_invalid_toml_is_reported_with_the_parser_position(tmp_path: Path) -> None:
    with pytest.raises(ArenaConfigError, match=r"not valid TOML.*line 1"):
        load_config(write(tmp_path, "name = = 1"))


def test_a_missing_file_is_reported(tmp_path: Path) -> None:
    with pytest.raises(ArenaConfigError, match="cannot read"):
        load_config(tmp_path / "absent.toml")


def test_a_bot_needs_a_command_or_remote(tmp_path: Path) -> None:
    with pytest.raises(ArenaConfigError, match=r"bots\[1\].*needs a command"):
        load_config(write(tmp_path, '[[bots]]\nname="a"\nremote=true\n[[bots]]\nname="b"\n'))


def test_bot_names_must_be_unique(tmp_path: Path) -> None:
    text = '[[bots]]\nname="a"\nremote=true\n[[bots]]\nname="a"\nremote=true\n'
    with pytest.raises(ArenaConfigError, match="unique"):
        load_config(write(tmp_path, text))


def test_sprt_needs_exactly_two_bots(tmp_path: Path) -> None:
    text = 'format="sprt"\n' + "".join(f'[[bots]]\nname="{n}"\nremote=true\n' for n in "abc")
    with pytest.raises(ArenaConfigError, match="exactly two"):
        load_config(write(tmp_path, text))


def test_flags_override_the_file(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, GOOD)).with_overrides(games=2, seed=None)
    assert config.games == 2
    assert config.seed == 42


def test_a_bot_flag_is_name_equals_command() -> None:
    assert parse_bot_flag("r=python bot.py") == BotSpec("r", "python bot.py")
    assert parse_bot_flag("guest=remote") == BotSpec("guest", remote=True)
    with pytest.raises(ArenaConfigError, match="NAME=COMMAND"):
        parse_bot_flag("nocommand")


def test_the_fingerprint_ignores_concurrency_but_not_the_seed(tmp_path: Path) -> None:
    config = load_config(write(tmp_path, GOOD))
    assert config.fingerprint() == config.with_overrides(concurrency=9).fingerprint()
    assert config.fingerprint() != config.with_overrides(seed=7).fingerprint()


TWO_BOTS = '[[bots]]\nname="a"\nremote=true\n[[bots]]\nname="b"\nremote=true\n'


@pytest.mark.parametrize(
    ("text", "hand_seeds"),
    [
        ('preset = "cutthroat"\n', HandSeeds.PLAYED),  # duplicate by default: PLAYED
        ('[ruleset]\npreset = "standard"\ntarget = 100\n', HandSeeds.PLAYED),
        ("duplicate = false\n", HandSeeds.DEALT),
        ('[ruleset]\nhand_seeds = "DEALT"\n', HandSeeds.DEALT),  # the config says otherwise
        ('duplicate = false\n[ruleset]\nhand_seeds = "PLAYED"\n', HandSeeds.PLAYED),
    ],
)
def test_duplicate_games_number_hand_seeds_by_hands_played_unless_the_config_says(
    tmp_path: Path, text: str, hand_seeds: HandSeeds
) -> None:
    config = load_config(write(tmp_path, text + TWO_BOTS))
    assert config.ruleset.hand_seeds is hand_seeds
    assert config_from_dict(config.to_dict()).ruleset == config.ruleset  # stored and read back


def test_a_bad_hand_seeds_names_the_key(tmp_path: Path) -> None:
    with pytest.raises(ArenaConfigError) as raised:
        load_config(write(tmp_path, '[ruleset]\nhand_seeds = "shuffled"\n' + TWO_BOTS))
    assert "ruleset.hand_seeds" in str(raised.value) and "DEALT, PLAYED" in str(raised.value)


def test_the_fingerprint_tells_the_hand_seeds_apart(tmp_path: Path) -> None:
    played = load_config(write(tmp_path, TWO_BOTS))
    dealt = played.with_overrides(ruleset=played.ruleset.replace(hand_seeds=HandSeeds.DEALT))
    assert played.fingerprint() != dealt.fingerprint()
