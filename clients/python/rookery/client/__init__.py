"""The Rookery bot SDK: write a ``Bot`` with one ``act`` method, run it with ``run_bot``.

>>> from rookery.client import Bot
>>> class FirstLegal(Bot):
...     def act(self, observation):
...         return observation.legal_actions()[0]

Run it with ``run_bot(FirstLegal, "127.0.0.1:50051")`` or from the shell with
``rookery bot run mybot:FirstLegal --server 127.0.0.1:50051``. See docs/bots/python.md.

The session's hot path (``_session``, ``_encoding``) is compiled by mypyc where ``make setup``
could build it (``clients/python/compile_client.py``), the pure modules otherwise or with
``ROOKERY_PURE_ENGINE=1``: ``client_build()`` says which is in use.
"""

# ruff: noqa: E402 (the build is selected before the modules are imported)

from __future__ import annotations

from pathlib import Path as _Path

from rookery.engine import BuildInfo, choose_build

# Before any module of the hot path is imported: the compiled modules or the pure ones.
_BUILD = choose_build(__name__, _Path(__file__).resolve().parent)

from ._bot import ActionLike, Bot, Seat, Table
from ._errors import (
    BotLoadError,
    ClientError,
    NoAnswer,
    ServerUnreachableError,
    SessionRefusedError,
    TokenRejectedError,
    WrongServerError,
)
from ._loading import load_bot
from ._logging import configure_logging
from ._runner import arun_bot, run_bot
from ._session import RunStats

__all__ = [
    "ActionLike",
    "Bot",
    "BotLoadError",
    "ClientError",
    "NoAnswer",
    "RunStats",
    "Seat",
    "ServerUnreachableError",
    "SessionRefusedError",
    "Table",
    "TokenRejectedError",
    "WrongServerError",
    "arun_bot",
    "client_build",
    "configure_logging",
    "load_bot",
    "run_bot",
]


def client_build() -> BuildInfo:
    """The build of the SDK's session hot path in use: compiled (mypyc) or pure.

    >>> client_build().kind in ("compiled", "pure")
    True
    """
    return _BUILD
