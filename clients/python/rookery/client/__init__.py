"""The Rookery bot SDK: write a ``Bot`` with one ``act`` method, run it with ``run_bot``.

>>> from rookery.client import Bot
>>> class FirstLegal(Bot):
...     def act(self, observation):
...         return observation.legal_actions()[0]

Run it with ``run_bot(FirstLegal, "127.0.0.1:50051")`` or from the shell with
``rookery bot run mybot:FirstLegal --server 127.0.0.1:50051``. See docs/bots/python.md.
"""

from __future__ import annotations

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
from ._options import RunStats
from ._runner import arun_bot, run_bot

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
    "configure_logging",
    "load_bot",
    "run_bot",
]
