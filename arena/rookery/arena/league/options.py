"""The league's options, and its error."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from rookery.arena.errors import ArenaError
from rookery.arena.launch._sandbox import SandboxLimits
from rookery.engine import Ruleset
from rookery.server import TimeControl

from .submissions import MAX_UNPACKED_BYTES

__all__: list[str] = []  # the league's names are its package's (rookery.arena.league)


class LeagueError(ArenaError):
    """The league cannot start (its file, its ruleset, its sandbox)."""


@dataclass(frozen=True)
class LeagueOptions:
    """How the league plays (the defaults suit a contest; tests shrink them)."""

    #: The rules of every game (two sides: a partnership preset).
    ruleset: Ruleset = field(default_factory=lambda: Ruleset.preset("standard"))
    #: Games in flight at once (a pair is two).
    concurrency: int = 2
    #: Rated pairs a version plays before the overlap decides its games.
    min_pairs: int = 3
    #: Bootstrap refits behind each rating's interval.
    bootstrap: int = 100
    #: The clock of every game.
    time_control: TimeControl = field(default_factory=TimeControl)
    #: ``"on"``, ``"off"`` or ``"auto"`` (the sandbox where this machine can make it).
    sandbox: str = "auto"
    #: The sandbox's limits per bot process (and for builds).
    limits: SandboxLimits = field(default_factory=SandboxLimits)
    #: A build step's time limit.
    build_timeout_s: float = 300.0
    #: Local folders may be submitted only from inside this folder (None: refused).
    local_root: Path | None = None
    #: Whether the league plays on its own (False: only when :meth:`League.step` is called).
    autoplay: bool = True
    #: How long a seat waits for its bot before the table is aborted.
    join_timeout_s: float = 30.0
    #: Refuse bot tokens: anyone may submit for any bot (a league on one's own machine).
    open_mode: bool = False
    #: Versions one bot may submit in any 24 hours (0: no limit).
    submissions_per_day: int = 5
    #: Challenge pairs one bot's versions may have queued at once (0: no limit).
    challenge_pairs: int = 16
    #: The most bytes a submitted folder may hold.
    version_bytes: int = MAX_UNPACKED_BYTES
    #: The most bytes a version's folder may hold while its build step runs and after.
    build_bytes: int = 512 * 1024 * 1024
    #: The most bytes of a version's runtime log kept on disk (its newest output; 0: no limit).
    log_bytes: int = 16 * 1024 * 1024
    #: The most warm sandboxed processes kept (two lanes a version; idle ones past it stop).
    warm_processes: int = 64
