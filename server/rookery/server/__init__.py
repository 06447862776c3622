"""Rookery's authoritative game server: tables, bot sessions, spectators, the arena API (gRPC).

>>> from rookery.server import RookeryServer, ServerConfig
>>> server = RookeryServer(ServerConfig(address="127.0.0.1:0"))

``await server.start()``, ``await server.create_table(TableSpec(...))``, ``await server.stop()``;
see docs/dev/server-api.md and docs/server.md.
"""

from ._config import AuthMode, ServerConfig
from ._errors import (
    AddressUnavailableError,
    BotRegistryError,
    InvalidBotNameError,
    ServerConfigError,
    ServerError,
    ServerStoppingError,
    TableNotFinishedError,
    TableSpecError,
    TournamentNotFoundError,
    UnknownBotError,
    UnknownTableError,
)
from ._gc import tune_gc
from ._league import LeagueBackend, QuotaExceededError, SubmissionsClosedError
from ._logging import configure_logging
from ._ports import SeatChannel, SeatedTable
from ._registry import BotRegistry, RegisteredBot, validate_bot_name
from ._replies import BotReply, Rejection, RejectionReason, bot_reply_from_proto
from ._server import SERVER_VERSION, RookeryServer
from ._session import Session
from ._table import SeatStats, Table, TableOutcome, TableSpec, TableStatus, fallback_action
from ._time_control import LatePolicy, TimeControl
from ._tournament import TournamentBackend

__all__ = [
    "SERVER_VERSION",
    "AddressUnavailableError",
    "AuthMode",
    "BotRegistry",
    "BotRegistryError",
    "BotReply",
    "InvalidBotNameError",
    "LatePolicy",
    "LeagueBackend",
    "QuotaExceededError",
    "RegisteredBot",
    "Rejection",
    "RejectionReason",
    "RookeryServer",
    "SeatChannel",
    "SeatStats",
    "SeatedTable",
    "ServerConfig",
    "ServerConfigError",
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
    "TournamentNotFoundError",
    "UnknownBotError",
    "UnknownTableError",
    "bot_reply_from_proto",
    "configure_logging",
    "fallback_action",
    "tune_gc",
    "validate_bot_name",
]
