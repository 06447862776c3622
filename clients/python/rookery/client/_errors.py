"""The SDK's exceptions: one class per kind of failure, each message precise enough to act on."""

from __future__ import annotations

__all__ = [
    "BotLoadError",
    "ClientError",
    "NoAnswer",
    "ServerUnreachableError",
    "SessionRefusedError",
    "TokenRejectedError",
    "WrongServerError",
]


class ClientError(Exception):
    """Base class of every error the SDK raises."""


class NoAnswer(Exception):
    """Raised by a hook to send no answer at all: the runner sends neither the hook's action nor
    a fallback, and the table's late policy applies when the deadline passes (a text seat whose
    agent failed its retries, or whose provider failed, must not get a move invented for it)."""


class TokenRejectedError(ClientError):
    """The server answered UNAUTHENTICATED: the token is missing, wrong or revoked."""

    def __init__(self, bot_name: str, detail: str = "") -> None:
        self.bot_name = bot_name
        self.detail = detail
        message = f"token rejected for bot {bot_name}"
        if detail:
            message += f" ({detail})"
        super().__init__(message)


class ServerUnreachableError(ClientError):
    """No connection to the server could be made (wrong address, server down, TLS mismatch)."""

    def __init__(self, address: str, detail: str = "", waited_s: float = 0.0) -> None:
        self.address = address
        self.detail = detail
        message = f"cannot reach the Rookery server at {address}"
        if waited_s:
            message += f" (tried for {waited_s:.1f} s)"
        if detail:
            message += f": {detail}"
        super().__init__(message)


class WrongServerError(ServerUnreachableError):
    """The server at the address is not the one the bot expects (``Welcome.server_name``):
    another server holds the address, so the expected one is not reachable there."""

    def __init__(self, address: str, expected: str, named: str) -> None:
        self.expected = expected
        self.named = named
        found = f"is named {named!r}" if named else "has no name"
        detail = (
            f"the server there {found}, not {expected!r} (--expect-server): another server "
            "holds that address; connect to the right one with --server HOST:PORT"
        )
        super().__init__(address, detail)


class SessionRefusedError(ClientError):
    """The server refused the session for a reason retrying cannot fix (bad Hello, limits)."""

    def __init__(self, bot_name: str, code: str, detail: str) -> None:
        self.bot_name = bot_name
        self.code = code
        self.detail = detail
        super().__init__(f"the server refused the session of bot {bot_name}: {code}: {detail}")


class BotLoadError(ClientError):
    """A ``module:Class`` or ``path/to/file.py:Class`` bot reference could not be loaded."""
