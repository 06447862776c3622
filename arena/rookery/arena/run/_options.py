"""How to run a tournament, beyond the tournament itself: :class:`TournamentOptions`."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["SCALE_INTERVAL_S", "TournamentOptions"]

SCALE_INTERVAL_S = 0.5
"""How often the games at once are reconsidered."""


@dataclass(frozen=True)
class TournamentOptions:
    """How to run, beyond the tournament itself (nothing here changes which games are played)."""

    #: Where the embedded server listens; remote bots need a fixed, reachable address.
    listen: str = "127.0.0.1:0"
    #: ``open`` (any bot name) or ``token`` (bots need registry tokens).
    auth: str = "open"
    #: The token registry (SQLite) in token mode.
    registry: str = ""
    #: Seconds a launched bot has to connect at the start.
    connect_timeout_s: float = 60.0
    #: Seconds to wait for remote bots to connect at the start.
    remote_wait_s: float = 600.0
    #: Seconds a table waits for its bots before it is aborted.
    join_timeout_s: float = 60.0
    #: A game still running after this many seconds is aborted.
    game_timeout_s: float = 3600.0
    #: Cores the launched Python SDK bots may spread over (0: this machine's cores).
    bot_cores: int = 0
    #: Where the games are played: ``local`` (this process's server) or ``ray`` (Ray tasks).
    backend: str = "local"
    #: The Ray cluster to join (``ray://host:10001`` or ``host:6379``); empty: a local Ray.
    ray_address: str = ""
    #: Games per Ray task, rounded up to whole duplicate groups; 0 picks a size.
    ray_games_per_task: int = 0
    #: Times Ray runs a task again after its worker died.
    ray_max_retries: int = 3
    #: A directory Ray ships to every worker (``runtime_env`` ``working_dir``): the tasks run in
    #: it, so bot commands relative to it work there. Empty: nothing shipped.
    ray_working_dir: str = ""
    #: CPUs a Ray task reserves: its server and bots (more for bots that use several cores).
    ray_cpus_per_task: float = 1.0
    #: Seconds to wait for ``ray_address`` to answer before giving up with an error.
    ray_connect_timeout_s: float = 60.0
    #: Up to this many times the config's ``concurrency`` games at once (at most
    #: ``MAX_SCALED_CONCURRENCY``) while the bots answer fast, see ``_scale_concurrency``; 1 keeps
    #: the concurrency fixed. Only where every bot is a launched Python SDK bot that keeps its
    #: processes (their sessions take any number of tables); elsewhere the concurrency is fixed.
    #: 128: a machine of two cores (the default concurrency 2) reaches 256 games at once. A bot
    #: of a round-robin holds a whole side (two seats, two sessions) at half the games, so each
    #: session then holds 128 tables, twice what the server benchmark's sessions hold: twice the
    #: requests to batch per gRPC message, and each gRPC message costs the server far more than
    #: an action in it (at 64 games, 5 actions per message; at 128, 9; at 256, about 18, for
    #: about a tenth less of the arena's CPU per action than at 128).
    concurrency_scale: int = 128
    #: The bots' mean reply time under which more games at once cost them nothing (at most a
    #: fiftieth of the action time is used, whichever is less).
    fast_reply_s: float = 0.05
    #: Seconds between two looks at the bots' reply times (``SCALE_INTERVAL_S``).
    scale_interval_s: float = SCALE_INTERVAL_S
    #: The most warm sandboxed bot processes kept over all lanes
    #: (:mod:`rookery.arena.launch._lanes`): past it the idle ones used longest ago are stopped,
    #: and started again when needed.
    warm_processes: int = 64
