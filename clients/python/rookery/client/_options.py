"""The settings a bot runs with (``RunSettings``, as given to ``arun_bot`` and ``run_bot``;
``BotRunOptions``, complete), and what a run did (``RunStats``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypedDict

import grpc
from rookery.wire.version import rookery_version

__all__ = ["BotRunOptions", "RunSettings", "RunStats"]


def _sdk_version() -> str:
    return rookery_version()


class RunSettings(TypedDict, total=False):
    """The keyword settings of :func:`rookery.client.arun_bot` and :func:`rookery.client.run_bot`,
    each optional (what they mean: ``arun_bot``'s docstring)."""

    token: str | None
    name: str | None
    version: str
    max_tables: int | None
    sessions: int | None
    games: int | None
    credentials: grpc.ChannelCredentials | None
    retry_rejected: bool
    connect_timeout_s: float
    reconnect_timeout_s: float
    batching: bool
    defer_events: bool
    expect_server: str | None


@dataclass(frozen=True)
class BotRunOptions:
    """How a bot's runner connects and behaves: its ``RunSettings`` completed from the
    environment and the defaults (see :func:`rookery.client.arun_bot`)."""

    server: str
    name: str
    token: str = ""
    version: str = ""
    max_tables: int = 1
    sessions: int = 1
    games: int | None = None
    credentials: grpc.ChannelCredentials | None = None
    retry_rejected: bool = True
    connect_timeout_s: float = 10.0
    reconnect_timeout_s: float = 60.0
    backoff_initial_s: float = 0.1
    backoff_max_s: float = 5.0
    client: str = field(default_factory=lambda: f"rookery-python/{_sdk_version()}")
    channel_options: tuple[tuple[str, Any], ...] = ()
    batching: bool = True
    """Offer batching (``Hello.batching``): several messages per gRPC message both ways when a
    session has several at once. Off, every message travels alone."""
    defer_events: bool = True
    """Let the server hold a table's events until the seat's next request or the game's end
    (``Hello.defer_events``): the same events in the same order, fewer messages. Off, each event
    comes as it happens."""
    expect_server: str = ""
    """The server's name the bot expects in the Welcome (``Welcome.server_name``); any other
    server ends the run with :class:`WrongServerError`. Empty: any server."""


@dataclass
class RunStats:
    """What a run did, summed over its sessions."""

    games: int = 0
    """Games finished (a game the bot played on several seats counts once)."""
    actions: int = 0
    """Replies sent (fallbacks and retries included)."""
    fallbacks: int = 0
    """Fallback actions sent because a hook failed, was too slow or answered illegally."""
    no_answers: int = 0
    """Requests left unanswered because the hook raised ``NoAnswer`` (the late policy applies)."""
    rejections: int = 0
    """``ActionRejected`` messages received."""
    reconnects: int = 0
    """Streams re-opened after a drop (resumed or not)."""
    resumes: int = 0
    """Reconnections the server accepted as resumes of the earlier session."""
    batches_received: int = 0
    """``ConnectResponse.batch`` messages received (each carrying several messages)."""
    batches_sent: int = 0
    """``ConnectRequest.batch`` messages sent (each carrying several replies)."""
