"""The arena: tournaments of bots on duplicate deals, with ratings, SPRT, replays and reports.

Its rooms, each a subpackage whose ``__init__`` is its face, from the inside out:
:mod:`~rookery.arena.stats` (ratings and the SPRT: pure functions), :mod:`~rookery.arena.config`
(tournament TOML), :mod:`~rookery.arena.launch` (bot processes and the sandbox),
:mod:`~rookery.arena.records` (the run directory's SQLite file, replays and reports),
:mod:`~rookery.arena.run` (the runner: an embedded server, launched and remote bots, N games at
once; the Ray backend; tournaments through the ArenaService of ``rookery serve``) and
:mod:`~rookery.arena.league` (a season of submitted versions).

The root itself offers nothing: import from the rooms (and from ``config`` and ``errors``).
"""

from __future__ import annotations

__all__: list[str] = []
