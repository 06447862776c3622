"""Running a tournament: the runner, its schedule and its backends.

- ``_runner``: :class:`TournamentRunner`, the composition: an embedded server, the bots, the games.
- ``_bots``: a run's bots (its sandbox, launched processes or warm lanes, remote bots).
- ``_local``: the games played here, N at once; ``_ports``: what those parts use of the run.
- ``_recorder``: the one place a game becomes durable and counted; ``_live`` the live state.
- ``_options``: how to run (:class:`TournamentOptions`); ``_resume``: a resumed run's checks.
- ``_schedule``: the lazy pairings and their seeds.
- ``_backend``: what a backend plays (chunks of games), ``_ray_backend`` the Ray one.
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
