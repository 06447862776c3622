"""Rook game notation: a replay as text a person reads and the engine re-simulates.

The notation is to Rook what PGN is to chess: tag pairs (``[Seed "5"]``), then one line per hand
(its deal, every move in order, its score), then a blank line; a file may hold several games.
Cards and actions are written in the engine's text forms (``R14``, ``ROOK``, ``bid 75``,
``bury B5 R10 …``), parsed back by the engine's own parsers. The grammar is in
``docs/replays.md``.

>>> from rookery.engine import PRESETS
>>> from rookery.wire.selfplay import play_random_game
>>> replay = play_random_game(PRESETS["standard"].replace(target=100), 3)
>>> text = format_game(replay)
>>> text.splitlines()[0]
'[Ruleset "standard"]'
>>> game = parse_game(text)
>>> game.replay.result == replay.result, game.hand_lines[0]
(True, 23)

What the text does not carry: think times (read back as 0). Everything else of the ``Replay``
is there, bots' notes (``!note "text" samples=400.0``) and fallback marks (``!fallback
"reason"``) included; a hand's trump, buried cards and called card are the ones its moves name.
"""

from __future__ import annotations

from ._notation_game import NotationError, TextGame
from ._notation_read import is_notation, iter_games, parse_game, read_games, read_replays
from ._notation_write import format_game

__all__ = [
    "NotationError",
    "TextGame",
    "format_game",
    "is_notation",
    "iter_games",
    "parse_game",
    "read_games",
    "read_replays",
]
