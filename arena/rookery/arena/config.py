"""Tournament configuration: a TOML file, validated into frozen values, overridable by flags.

A minimal file::

    name = "nightly"
    preset = "standard"
    format = "round-robin"     # round-robin | gauntlet | sprt
    games = 20                 # per pairing; duplicate pairs count as two games; SPRT: the cap

    [[bots]]
    name = "random"
    command = "rookery bot run rookery.client.bots.random:RandomBot"

    [[bots]]
    name = "contestant"
    remote = true              # an already-connected session of that name

Running submitted bots (see docs/arena.md and docs/security.md)::

    sandbox = "on"             # auto (default) | on | off
    clock = "cpu"              # wall (default) | cpu: a move's time is the CPU its bot used
    process_per_game = true    # fresh processes a game (default with clock cpu; else lanes)
    pin_cpus = false           # each game's bots on one CPU of their own
    sandbox_paths = ["/opt/toolchain"]   # more read-only folders for the bots

    [limits]
    memory_mb = 1024
    processes = 128
    file_size_mb = 64
    scratch_mb = 64
    log_kb = 1024

Every mistake is reported as a :class:`~rookery.arena.errors.ArenaConfigError` naming the file, the
key and what is wrong.
"""

from __future__ import annotations

from rookery.arena._config_model import TournamentConfig, duplicate_hand_seeds
from rookery.arena._config_seats import parse_bot_flag
from rookery.arena._config_toml import config_from_dict, load_config
from rookery.arena._config_values import TOURNAMENT_TIME_CONTROL, BotSpec, ClockKind, Format

__all__ = [
    "TOURNAMENT_TIME_CONTROL",
    "BotSpec",
    "ClockKind",
    "Format",
    "TournamentConfig",
    "config_from_dict",
    "duplicate_hand_seeds",
    "load_config",
    "parse_bot_flag",
]
