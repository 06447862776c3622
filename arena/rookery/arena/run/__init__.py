"""Running a tournament: the runner, its schedule and its backends.

- ``_runner``: :class:`TournamentRunner`, the composition: an embedded server, the bots (their
  supervisor is ``rookery.arena.launch``'s), the games.
- ``_local``: the games played here, N at once (its workers).
- ``_recorder``: the one place a game becomes durable and counted (the run's store, the live
  counts, the SPRT, the budget); ``_live`` the live state.
- ``_options``: how to run (:class:`TournamentOptions`); ``_resume``: a resumed run's checks.
- ``_schedule``: the lazy pairings and their seeds, and the share of them one run plays.
- ``_backend``: what a remote task returns and the runner factory it is handed;
  ``_ray_backend`` the Ray backend and its task's body, ``play_chunk``.
- ``_recording``: finished games written in batches.
- ``_service``: tournaments through the ArenaService of ``rookery serve``.
"""

from __future__ import annotations

from rookery.arena.run._ray_backend import LOOPBACK_ONLY
from rookery.arena.run._runner import LiveState, RunResult, TournamentOptions, TournamentRunner
from rookery.arena.run._schedule import Schedule
from rookery.arena.run._service import create_tournament_backend

__all__ = [
    "LOOPBACK_ONLY",
    "LiveState",
    "RunResult",
    "Schedule",
    "TournamentOptions",
    "TournamentRunner",
    "create_tournament_backend",
]
