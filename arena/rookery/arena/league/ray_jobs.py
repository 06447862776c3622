"""What crosses between the league and its Ray workers: a pair to play, a build to run, and what
each sends back. Plain frozen values, pickled by Ray; nothing here imports Ray."""

from __future__ import annotations

from dataclasses import dataclass

from rookery.arena.launch._sandbox import SandboxLimits
from rookery.engine import GameResult, Ruleset
from rookery.server import SeatStats, TimeControl

from .submissions import BuildResult

__all__: list[str] = []  # the league's names are its package's (rookery.arena.league)

#: A piece of a version's archive: ``(identity, index, bytes)``.
Piece = tuple[str, int, bytes]


@dataclass(frozen=True)
class WorkerSettings:
    """What every pair of a league shares, given to each of its workers once."""

    #: ``"on"``, ``"off"`` or ``"auto"``, on the worker.
    sandbox: str
    limits: SandboxLimits
    time_control: TimeControl
    join_timeout_s: float
    #: Warm processes a worker keeps at most (its lanes' LRU bound).
    warm_processes: int


@dataclass(frozen=True)
class ShippedVersion:
    """A version as a worker needs it: its seat name, command, and its files' identity."""

    version_id: str
    seat: str
    command: str
    #: The cache key of its files ("" for the house bot, which has none).
    identity: str


@dataclass(frozen=True)
class PairJob:
    """One duplicate pair: game 0 seats ``a, b, a, b``, game 1 ``b, a, b, a``, the same seed."""

    pair_tag: str
    seed: int
    a: ShippedVersion
    b: ShippedVersion
    ruleset: Ruleset
    bot_seed_key: bytes


@dataclass(frozen=True)
class ShippedOutcome:
    """A finished game as the league records it (the parts of a ``TableOutcome`` it reads)."""

    result: GameResult
    termination: int
    forfeit_seat: int
    detail: str
    seat_stats: tuple[SeatStats, ...]
    duration_s: float
    replay: bytes

    def replay_bytes(self, *, compress: bool = True) -> bytes:
        """The replay file's bytes (gzip JSON lines, as the worker wrote them)."""
        if not compress:
            raise ValueError("a shipped replay is compressed")
        return self.replay


@dataclass(frozen=True)
class PairResult:
    """What a worker returns for a pair."""

    outcomes: tuple[ShippedOutcome, ...]
    #: (version id, kind, detail) of each crash of a version's process on the worker.
    incidents: tuple[tuple[str, str, str], ...]
    #: Each version's output on the worker since its last pair there (its end), for the league's
    #: runtime log.
    logs: dict[str, bytes]
    node: str
    #: Seconds spent unpacking versions' files (0 when both were cached).
    unpack_s: float
    sandboxed: bool
    #: The identities of the versions whose files this worker lacked (then nothing was played).
    missing: tuple[str, ...] = ()
    #: Processes the worker started for this pair (0 when both versions were warm).
    starts: int = 0


@dataclass(frozen=True)
class BuildJob:
    """A version's build step, run once on a worker in its files' folder."""

    version_id: str
    identity: str
    build: str
    timeout_s: float
    max_bytes: int


@dataclass(frozen=True)
class BuiltVersion:
    """A build's end on a worker: how it went and, when it succeeded, how many pieces its built
    folder's archive has (fetched one by one with the worker's ``piece``)."""

    result: BuildResult
    node: str
    pieces: int = 0
    #: The built archive's bytes.
    size: int = 0
    #: Whether the worker had built it before (its cached result, nothing run now).
    cached: bool = False
    #: The identities of the files this worker lacked (then nothing was built).
    missing: tuple[str, ...] = ()
