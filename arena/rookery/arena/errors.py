"""The arena's exceptions: one class per kind of failure (a leaf module, imports nothing)."""

from __future__ import annotations

__all__ = [
    "ArenaConfigError",
    "ArenaError",
    "BotLaunchError",
    "SandboxUnavailableError",
    "ScheduleError",
    "StorageError",
]


class ArenaError(Exception):
    """Base class of every error the arena raises on purpose."""


class ArenaConfigError(ArenaError):
    """A tournament configuration is malformed: says which file, which key and what is wrong."""

    def __init__(self, source: str, key: str, reason: str) -> None:
        self.source = source
        self.key = key
        self.reason = reason
        where = f"{source}: {key}" if key else source
        super().__init__(f"{where}: {reason}")


class StorageError(ArenaError):
    """The run directory's database is unusable or belongs to a different tournament."""


class ScheduleError(ArenaError):
    """A schedule cannot be built from the given bots, ruleset and format."""


class BotLaunchError(ArenaError):
    """A launched bot could not be started or never connected to the server."""


class SandboxUnavailableError(ArenaError):
    """``sandbox = "on"`` but this machine cannot make the sandbox: says what is missing."""
