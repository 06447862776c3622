"""The arena: tournaments of bots on duplicate deals, with ratings, SPRT, replays and reports.

The modules, from the inside out: :mod:`~rookery.arena.ratings` (online Elo, Bradley–Terry with
bootstrap intervals, OpenSkill for teams), :mod:`~rookery.arena.sprt` (the GSPRT on duplicate
pairs), :mod:`~rookery.arena.config` (tournament TOML), :mod:`~rookery.arena.schedule` (lazy
pairings), :mod:`~rookery.arena.storage` (the run directory's SQLite file and replays) and
:mod:`~rookery.arena.runner` (an embedded server, launched and remote bots, N games at once).
Around the runner: :mod:`~rookery.arena.service` (tournaments through the ArenaService of
``rookery serve``) and :mod:`~rookery.arena.ray_backend` (the games as Ray tasks on a cluster).
"""

from __future__ import annotations

from rookery.arena.errors import (
    ArenaError,
    BotLaunchError,
    ConfigError,
    ScheduleError,
    StorageError,
)
from rookery.arena.ratings import (
    BradleyTerryFit,
    GameScore,
    OnlineElo,
    Rating,
    fit_bradley_terry,
    team_ratings,
)
from rookery.arena.sprt import SprtDecision, SprtParams, SprtTest

__all__ = [
    "ArenaError",
    "BotLaunchError",
    "BradleyTerryFit",
    "ConfigError",
    "GameScore",
    "OnlineElo",
    "Rating",
    "ScheduleError",
    "SprtDecision",
    "SprtParams",
    "SprtTest",
    "StorageError",
    "fit_bradley_terry",
    "team_ratings",
]
