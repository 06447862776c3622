"""Every exception the server raises on purpose: a leaf module importing nothing from the server."""

from __future__ import annotations

__all__ = [
    "AddressUnavailableError",
    "BotRegistryError",
    "InvalidBotNameError",
    "ServerConfigError",
    "ServerError",
    "ServerStoppingError",
    "TableNotFinishedError",
    "TableSpecError",
    "TournamentNotFoundError",
    "UnknownBotError",
    "UnknownTableError",
]


class ServerError(Exception):
    """Base class of every error the server raises on purpose."""


class ServerConfigError(ServerError, ValueError):
    """A configuration value that cannot be used: ``option`` names it, the message says why."""

    def __init__(self, option: str, reason: str) -> None:
        super().__init__(f"invalid server option {option!r}: {reason}")
        self.option = option
        self.reason = reason


class AddressUnavailableError(ServerError, OSError):
    """The server cannot listen on ``address`` (its port in use, say): ``reason`` says why."""

    def __init__(self, address: str, reason: str) -> None:
        super().__init__(f"cannot listen on {address}: {reason}")
        self.address = address
        self.reason = reason


class TableSpecError(ServerError, ValueError):
    """A table that cannot be created: wrong number of seats, unknown bot, bad time control, …"""


class UnknownTableError(ServerError, LookupError):
    """No table with that id is known to the server (never created, or forgotten)."""


class TableNotFinishedError(ServerError):
    """The table's game is still being played: its replay would leak the deal."""


class TournamentNotFoundError(ServerError, LookupError):
    """No tournament with that id (raised by a :class:`TournamentBackend`)."""


class BotRegistryError(ServerError):
    """Base class of the bot registry's errors."""


class InvalidBotNameError(BotRegistryError, ValueError):
    """A bot name that is not 1–64 characters of letters, digits, ``-``, ``_`` and ``.``."""


class UnknownBotError(BotRegistryError, LookupError):
    """No registered (active) bot with that name."""


class ServerStoppingError(ServerError):
    """The server is shutting down and accepts no new tables or sessions."""
