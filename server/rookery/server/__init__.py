"""Rookery's authoritative game server: tables, bot sessions, spectators, the arena API (gRPC).

>>> from rookery.server import RookeryServer, ServerConfig
>>> server = RookeryServer(ServerConfig(address="127.0.0.1:0"))

``await server.start()``, ``await server.create_table(TableSpec(...))``, ``await server.stop()``;
see docs/dev/server-api.md and docs/server.md.

The hot path (the table, the session and their encodings) is compiled by mypyc where ``make
setup`` could build it (``server/compile_server.py``), the pure modules otherwise or with
``ROOKERY_PURE_ENGINE=1``: ``server_build()`` says which is in use.
"""

# ruff: noqa: E402 (the build is selected before the modules are imported)

from pathlib import Path as _Path

from rookery.engine import BuildInfo, choose_build

# Before any module of the hot path is imported: the compiled modules or the pure ones.
_BUILD = choose_build(__name__, _Path(__file__).resolve().parent)

from ._config import AuthMode, ServerConfig
from ._errors import (
    AddressUnavailableError,
    BotRegistryError,
    ConfigError,
    InvalidBotNameError,
    ServerError,
    ServerStoppingError,
    TableNotFinishedError,
    TableSpecError,
    UnknownBotError,
    UnknownTableError,
    UnknownTournamentError,
)
from ._gc import tune_gc
from ._league import LeagueBackend, QuotaExceededError, SubmissionsClosedError
from ._logging import configure_logging
from ._ports import SeatChannel, SeatedTable
from ._registry import BotRecord, BotRegistry, validate_bot_name
from ._server import SERVER_VERSION, RookeryServer
from ._session import Session
from ._table import SeatStats, Table, TableOutcome, TableSpec, TableStatus, fallback_action
from ._time_control import LatePolicy, TimeControl
from ._tournament import TournamentBackend

__all__ = [
    "SERVER_VERSION",
    "AddressUnavailableError",
    "AuthMode",
    "BotRecord",
    "BotRegistry",
    "BotRegistryError",
    "ConfigError",
    "InvalidBotNameError",
    "LatePolicy",
    "LeagueBackend",
    "QuotaExceededError",
    "RookeryServer",
    "SeatChannel",
    "SeatStats",
    "SeatedTable",
    "ServerConfig",
    "ServerError",
    "ServerStoppingError",
    "Session",
    "SubmissionsClosedError",
    "Table",
    "TableNotFinishedError",
    "TableOutcome",
    "TableSpec",
    "TableSpecError",
    "TableStatus",
    "TimeControl",
    "TournamentBackend",
    "UnknownBotError",
    "UnknownTableError",
    "UnknownTournamentError",
    "configure_logging",
    "fallback_action",
    "server_build",
    "tune_gc",
    "validate_bot_name",
]


def server_build() -> BuildInfo:
    """The build of the server's hot path in use: compiled (mypyc) or pure.

    >>> server_build().kind in ("compiled", "pure")
    True
    """
    return _BUILD
