"""The league: one SQLite file, submitted versions, continuous matchmaking, the final evaluation.

:class:`League` runs on a :class:`~rookery.server.RookeryServer` (the one ``rookery league serve``
starts). Every active version's bot is launched by the league, bound to its seats by a launch key;
the league keeps ``concurrency`` games in flight, two per duplicate pair (the same seed with the
sides swapped, played at once), commits each finished pair in one transaction and refits the
ratings after it. A restart loses at most the pairs in flight, which are simply played again.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hmac
import itertools
import secrets
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import structlog
from google.protobuf import json_format
from rookery.arena._config_values import BotSpec
from rookery.arena.errors import ArenaError
from rookery.arena.launch._lanes import LaneStartError, WarmLanes
from rookery.arena.launch._launcher import BotLauncher, GameLaunch, plan_launch
from rookery.arena.launch._sandbox import SandboxLimits, SandboxRuntime
from rookery.arena.records._storage import write_bytes_atomically
from rookery.arena.stats._ratings import GameScore, fit_bradley_terry, ranks_from_result
from rookery.engine import Ruleset
from rookery.server import (
    QuotaExceededError,
    RookeryServer,
    SubmissionsClosedError,
    TableOutcome,
    TableSpec,
    TimeControl,
)
from rookery.v1 import results_pb2
from rookery.wire import convert

from .matchmaking import Placed, centred_los, choose_pairing, final_pairing, separations
from .store import (
    LeagueGame,
    LeagueStore,
    PairRecord,
    RatingPoint,
    SeasonRecord,
    VersionRecord,
    VersionState,
)
from .submissions import (
    MAX_UNPACKED_BYTES,
    content_sha256,
    copy_folder,
    identity_sha256,
    run_build,
    staging_folder,
    unpack_archive,
)

if TYPE_CHECKING:
    from rookery.arena.league.ray import PairResult, RayPairs, ShippedOutcome

__all__: list[str] = []  # the league's names are its package's (rookery.arena.league)

log = structlog.get_logger("rookery.league")

#: The house bot every new version qualifies against.
HOUSE_RANDOM = "rookery-random"
_RANDOM_COMMAND = "rookery bot run rookery.client.bots.random_bot:RandomBot"


#: The most bytes of a runtime log one GetVersion returns (within the 1 MiB message limit).
RUNTIME_LOG_BYTES = 256 * 1024
#: The window of the submissions quota.
_DAY_S = 86_400.0


class LeagueError(ArenaError):
    """The league cannot start (its file, its ruleset, its sandbox)."""


def seat_name(version_id: str) -> str:
    """The name a version's bot plays under at the tables: ``alpha@3`` → ``alpha.v3``."""
    bot, _, number = version_id.rpartition("@")
    return f"{bot}.v{number}"


def _trim_log(path: Path, max_bytes: int) -> bool:
    """Keeps only the last ``max_bytes`` of the log at ``path`` (in place: a process appending
    to it goes on writing at its new end), from a line's start: whether it was cut."""
    try:
        with path.open("r+b") as handle:
            size = handle.seek(0, 2)
            if size <= max_bytes:
                return False
            handle.seek(size - max_bytes)
            tail = handle.read()
            start = tail.find(b"\n") + 1
            marker = f"--- {size - max_bytes + start} earlier bytes cut (log_bytes)\n".encode()
            kept = marker + tail[start:]
            handle.seek(0)
            handle.write(kept)
            handle.truncate(len(kept))
    except FileNotFoundError:
        return False
    return True


def _append(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("ab") as handle:
        handle.write(data)


def neighbour_los(fit: Any, ranked: list[str]) -> dict[tuple[str, str], float]:
    """Each neighbour pair of ``ranked`` (best first) and its likelihood of superiority, from
    the fit's refits centred on its own ratings (:func:`~.matchmaking.centred_los`): at least ½
    for the upper one of every pair ranked by rating."""
    index = {name: i for i, name in enumerate(fit.names)}
    elo = {r.name: r.elo for r in fit.ratings}
    result = {}
    for upper, lower in itertools.pairwise(ranked):
        i, j = index[upper], index[lower]
        differences = [sample[i] - sample[j] for sample in fit.samples]
        result[(upper, lower)] = centred_los(elo[upper] - elo[lower], differences)
    return result


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


@dataclass(frozen=True)
class BoardLine:
    """One line of a board."""

    rank: int
    version: VersionRecord
    elo: float
    lower: float
    upper: float
    games: int
    tied_with_next: bool

    @property
    def error(self) -> float:
        """Half the interval's width."""
        return (self.upper - self.lower) / 2


@dataclass(frozen=True)
class Board:
    """A board, best first; the final evaluation's verdicts once the season is closed."""

    lines: tuple[BoardLine, ...]
    verdicts: tuple[str, ...] = ()
    final: bool = False


@dataclass
class _Running:
    """A version's launched bot: persistent processes, or fresh ones per game (sandboxed)."""

    version: VersionRecord
    launcher: BotLauncher
    key: str = ""
    pairs: int = 0


@dataclass
class _Flight:
    """What is being played now."""

    tasks: set[asyncio.Task[None]] = field(default_factory=set)
    busy: dict[str, int] = field(default_factory=dict)
    tables: int = 0


class League:
    """A league on ``server``, stored in ``path`` (``league.sqlite``; versions and replays next
    to it). ``await league.start()``, then it plays until ``await league.stop()``."""

    def __init__(
        self,
        path: str | Path,
        server: RookeryServer,
        options: LeagueOptions | None = None,
        *,
        sandbox: SandboxRuntime | None = None,
        remote: RayPairs | None = None,
    ) -> None:
        self.options = options or LeagueOptions()
        #: Where pairs are played when not here: Ray tasks (``--backend ray``).
        self.remote = remote
        if self.options.ruleset.num_sides != 2:
            raise LeagueError(
                f"a league plays two sides (a partnership preset); {self.options.ruleset.name} "
                f"has {self.options.ruleset.num_sides}"
            )
        self.store = LeagueStore(path)
        self.server = server
        self.sandbox = sandbox
        self._running: dict[str, _Running] = {}
        #: Sandboxed versions play in warm lanes: lane 0 the first games of pairs, lane 1 the
        #: second (each pair has a seed of its own; see :mod:`rookery.arena.launch._lanes`).
        self.lanes: WarmLanes | None = None
        if sandbox is not None and remote is None:
            self.lanes = WarmLanes(
                self._lane_launcher,
                self._lane_sessions,
                max_processes=self.options.warm_processes,
                connect_timeout_s=self.options.join_timeout_s,
                on_stop=lambda _launcher, key: server.revoke_launch_key(key),
            )
        self._flight = _Flight()
        self._wake = asyncio.Event()
        self._loop_task: asyncio.Task[None] | None = None
        self._background: set[asyncio.Task[None]] = set()
        self._stopping = False
        self._fit_lock = asyncio.Lock()
        self._challenges_in_flight: list[int] = []
        #: The kind of the last pair dispatched (challenges take every other pair at most).
        self._last_kind = ""
        #: Pairs at once (two games each): qualifications and matchmaking share them.
        self._pair_slots = asyncio.Semaphore(max(1, self.options.concurrency // 2))
        self._qualifications_waiting = 0
        self._seed_key = bytes.fromhex(self.store.meta("bot_seed_key") or "") or None
        if self._seed_key is None:
            self._seed_key = secrets.token_bytes(32)
            self.store.set_meta("bot_seed_key", self._seed_key.hex())
        stored = self.store.meta("ruleset")
        mine = json_format.MessageToJson(
            convert.ruleset_to_proto(self.options.ruleset), sort_keys=True, indent=None
        )
        if stored and stored != mine:
            raise LeagueError(
                f"{path} was started with another ruleset: a league keeps its rules for good "
                "(start another league file for other rules)"
            )
        self.store.set_meta("ruleset", mine)
        #: Pairs played by this process (tests compare them with the stored ones).
        self.pairs_played_now = 0
        self.on_pair: Callable[[PairRecord], None] | None = None

    # Life cycle ---------------------------------------------------------------------------------

    @property
    def folder(self) -> Path:
        """Where the league's files are."""
        return self.store.folder

    async def start(self) -> None:
        """Launches every active version, resumes unfinished builds and qualifications, plays."""
        self._ensure_house()
        for version in self.store.versions(house=True):
            if version.status == VersionState.ACTIVE and not version.house:
                await self._launch(version)  # the house bot starts with the first qualification
            elif version.status == VersionState.BUILDING:
                self._spawn(self._build_and_qualify(version))
            elif version.status == VersionState.QUALIFYING:
                self._spawn(self._qualify(version))
        if self.options.autoplay:
            self._loop_task = asyncio.create_task(self._loop())

    async def stop(self) -> None:
        """Stops dispatching, aborts the pairs in flight (played again after a restart), stops
        every bot and closes the file."""
        self._stopping = True
        self._wake.set()
        if self._loop_task is not None:
            self._loop_task.cancel()
            await asyncio.gather(self._loop_task, return_exceptions=True)
        for table in list(self.server.tables.values()):
            if table.outcome is None and table.spec.tournament_id.startswith("league-"):
                with contextlib.suppress(Exception):
                    self.server.abort_table(table.id, "the league was stopped")
        if self.remote is not None:  # pairs on Ray: their tasks are cancelled, not awaited
            for task in self._flight.tasks:
                task.cancel()
        pending = [*self._flight.tasks, *self._background]
        for task in self._background:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        await asyncio.gather(
            *(r.launcher.stop(grace_s=1.0) for r in self._running.values()),
            return_exceptions=True,
        )
        if self.lanes is not None:
            await self.lanes.stop()
        self._running.clear()
        self.store.close()

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.create_task(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    def _ensure_house(self) -> None:
        if any(v.bot == HOUSE_RANDOM for v in self.store.versions(HOUSE_RANDOM, house=True)):
            return
        self.store.add_version(
            HOUSE_RANDOM,
            0,
            "",
            identity_sha256("house", _RANDOM_COMMAND, ""),
            _RANDOM_COMMAND,
            "",
            "the random reference bot (qualification)",
            VersionState.ACTIVE,
            house=True,
        )

    # Seasons ------------------------------------------------------------------------------------

    def create_season(
        self, name: str, deadline: float, confidence: float = 0.95, final_pair_budget: int = 200
    ) -> Any:
        """A new open season; the current one must have ended (or there is none)."""
        with contextlib.suppress(LookupError):
            current = self.store.season()
            if current.status != "closed":
                raise ValueError(
                    f"season {current.name!r} is still {current.status}: a league has one season "
                    "at a time"
                )
        if not 0.5 < confidence < 1.0:
            raise ValueError(f"confidence: must be between 0.5 and 1, got {confidence:g}")
        if final_pair_budget < 1:
            raise ValueError("final_pair_budget: must be at least 1")
        season = self.store.add_season(name or "season", deadline, confidence, final_pair_budget)
        self._wake.set()
        return season

    def start_final_evaluation(self) -> None:
        """Closes submissions now and starts the final evaluation."""
        season = self.store.season()
        if season.status != "open":
            raise SubmissionsClosedError(f"season {season.name!r} is {season.status} already")
        self.store.set_season_status(season.season_id, "final")
        self._wake.set()

    def _check_deadline(self) -> None:
        with contextlib.suppress(LookupError):
            season = self.store.season()
            if season.status == "open" and time.time() >= season.deadline:
                self.store.set_season_status(season.season_id, "final")
                log.info(
                    "deadline reached: submissions closed, final evaluation", season=season.name
                )

    # Submissions --------------------------------------------------------------------------------

    def check_token(self, bot: str, token: str | None) -> None:
        """``PermissionError`` unless ``token`` is ``bot``'s (an author's own bots only)."""
        if self.options.open_mode:
            return
        if not token or not self.server.bots.check_token(bot, token):
            raise PermissionError(
                f"only bot {bot!r}'s own token may submit, retire or challenge with its versions "
                "(metadata 'authorization: Bearer <its token>')"
            )

    def may_read_private(self, bot: str, token: str | None) -> bool:
        """Whether ``token`` may read ``bot``'s private parts (its versions' commands, build
        logs and runtime logs): the bot's own token, or the organiser's (any, in open mode)."""
        if self.options.open_mode:
            return True
        if not token:
            return False
        admin = self.server.config.admin_token
        if admin and hmac.compare_digest(token.encode(), admin.encode()):
            return True
        return self.server.bots.check_token(bot, token)

    async def submit(
        self,
        bot: str,
        token: str | None,
        command: str,
        *,
        archive: bytes | None = None,
        local_folder: str = "",
        build: str = "",
        note: str = "",
    ) -> VersionRecord:
        """Stores a new immutable version of ``bot`` and starts its build and qualification."""
        season = self.check_submission(bot, token)
        if not command.strip():
            raise ValueError("command: give the command line that runs the bot in its folder")
        if len(command) > 4096 or len(build) > 4096 or len(note) > 1024:
            raise ValueError("command and build: at most 4096 characters; note: 1024")
        if (archive is None) == (not local_folder):
            raise ValueError("give the bot's folder: an archive or a local folder (one of them)")
        versions_dir = self.folder / "versions"
        staging = staging_folder(versions_dir)
        limit = self.options.version_bytes
        try:
            if archive is not None:
                await asyncio.to_thread(unpack_archive, archive, staging, limit)
            else:
                source = self._local_source(local_folder)
                await asyncio.to_thread(copy_folder, source, staging, limit)
            content = await asyncio.to_thread(content_sha256, staging)
            # Checked again with no await before the version is stored: two submissions sent
            # at once cannot both take the last one of the day.
            self._check_submission_quota(bot)
            version = self.store.add_version(
                bot,
                season.season_id,
                content,
                identity_sha256(content, command, build),
                command.strip(),
                build.strip(),
                note,
                VersionState.BUILDING,
            )
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        staging.rename(self.version_folder(version.version_id))
        log.info("version submitted", version=version.version_id, sha256=content[:12])
        self._spawn(self._build_and_qualify(version))
        return version

    def check_submission(self, bot: str, token: str | None) -> SeasonRecord:
        """The open season if ``token`` may submit a version of ``bot`` now (its token, before
        the deadline, within the day's quota); else the error that says why not."""
        if bot == HOUSE_RANDOM:
            raise PermissionError(f"{HOUSE_RANDOM!r} is the league's own bot")
        self.check_token(bot, token)
        self._check_deadline()
        season = self.store.season()
        if season.status != "open":
            raise SubmissionsClosedError(
                f"season {season.name!r} closed its submissions at its deadline "
                f"({time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime(season.deadline))})"
            )
        self._check_submission_quota(bot)
        return season

    def _check_submission_quota(self, bot: str) -> None:
        """:class:`QuotaExceededError` once ``bot`` has submitted its versions of the last 24
        hours (``submissions_per_day``), saying when the next one is accepted."""
        limit = self.options.submissions_per_day
        if limit <= 0:
            return
        recent = self.store.submission_times(bot, time.time() - _DAY_S)
        if len(recent) >= limit:
            again = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(recent[-limit] + _DAY_S))
            raise QuotaExceededError(
                f"bot {bot!r} has submitted {len(recent)} versions in the last 24 hours, the "
                f"league's limit (submissions_per_day {limit}): the next is accepted from {again}"
            )

    def _local_source(self, local_folder: str) -> Path:
        root = self.options.local_root
        if root is None:
            raise PermissionError(
                "this league takes no local folders (start it with --local-root DIR); send an "
                "archive of the folder instead"
            )
        source = Path(local_folder).resolve()
        if not source.is_relative_to(root.resolve()):
            raise PermissionError(f"local_folder: {local_folder} is not inside {root}")
        return source

    def runtime_log(self, version_id: str, max_bytes: int) -> str:
        """The end of a version's runtime log (every process's output, ``logs/<id>.log``): its
        last ``max_bytes`` bytes, at most :data:`RUNTIME_LOG_BYTES`; ``ValueError`` beyond."""
        if not 0 < max_bytes <= RUNTIME_LOG_BYTES:
            raise ValueError(f"runtime_log_bytes: 1 to {RUNTIME_LOG_BYTES}, got {max_bytes}")
        self.store.version(version_id)  # LookupError for an unknown one, before any path
        path = self.folder / "logs" / f"{version_id}.log"
        try:
            with path.open("rb") as handle:
                size = handle.seek(0, 2)
                handle.seek(max(0, size - max_bytes))
                data = handle.read(max_bytes)
        except FileNotFoundError:
            return ""
        return data.decode("utf-8", "replace")

    def version_folder(self, version_id: str) -> Path:
        """Where a version's files are."""
        return self.folder / "versions" / version_id

    async def _build_and_qualify(self, version: VersionRecord) -> None:
        folder = self.version_folder(version.version_id)
        if not folder.is_dir():
            self.store.set_version_status(
                version.version_id, VersionState.BUILD_FAILED, "its files were lost in a restart"
            )
            return
        if version.build:
            result = await run_build(
                version.build,
                folder,
                self.folder / "logs" / f"{version.version_id}.build.log",
                runtime=self.sandbox,
                timeout_s=self.options.build_timeout_s,
                server_target=self.server.target,
                max_bytes=self.options.build_bytes,
            )
            self.store.record_build(
                version.version_id, result.exit_code, result.seconds, result.log
            )
            if result.over_quota:  # its files go: the disk they took is the organiser's
                await asyncio.to_thread(shutil.rmtree, folder, True)
            if not result.ok:
                why = result.over_quota or (
                    f"build timed out after {self.options.build_timeout_s:g} s"
                    if result.timed_out
                    else f"build exited with code {result.exit_code}"
                )
                self.store.set_version_status(version.version_id, VersionState.BUILD_FAILED, why)
                log.info("build failed", version=version.version_id, why=why)
                return
        self.store.set_version_status(version.version_id, VersionState.QUALIFYING)
        await self._qualify(self.store.version(version.version_id))

    async def _qualify(self, version: VersionRecord) -> None:
        house = self.store.versions(HOUSE_RANDOM, house=True)[0]
        pair: PairRecord | None
        try:
            await self._launch(version)
            await self._launch(house)
            self._qualifications_waiting += 1
            try:
                await self._pair_slots.acquire()
            finally:
                self._qualifications_waiting -= 1
            try:
                pair = await self._play_pair("qualification", version.version_id, house.version_id)
            finally:
                self._pair_slots.release()
                self._wake.set()
        except Exception as error:
            pair = None
            reason = f"could not play its qualification game: {error}"
        else:
            reason = self._qualification_problem(pair, version.version_id)
        if reason:
            with contextlib.suppress(Exception):
                await self._unlaunch(version.version_id)
        if pair is None and self._stopping:
            return  # played again after the restart
        current = self.store.version(version.version_id).status
        if current in (VersionState.RETIRED, VersionState.DISQUALIFIED):
            return  # taken out of play while it qualified: so it stays
        if reason:
            self.store.set_version_status(
                version.version_id, VersionState.QUALIFICATION_FAILED, reason
            )
            await self._unlaunch(version.version_id)
            log.info("qualification failed", version=version.version_id, why=reason)
            return
        if pair is None:
            return
        self.store.set_version_status(
            version.version_id,
            VersionState.ACTIVE,
            f"qualified: {pair.score_a:g} of 2 against the random bot",
        )
        self._wake.set()

    def _qualification_problem(self, pair: PairRecord, version_id: str) -> str:
        if pair.void:
            return "its qualification game did not finish: " + "; ".join(
                g.detail for g in pair.games if g.detail
            )
        for game in pair.games:
            if game.forfeit == seat_name(version_id):
                return f"it forfeited its qualification game ({game.termination}: {game.detail})"
        return ""

    def retire(self, version_id: str, token: str | None) -> VersionRecord:
        """The author takes a version out of play (its games and ratings are kept)."""
        version = self.store.version(version_id)
        self.check_token(version.bot, token)
        if version.status in (VersionState.RETIRED, VersionState.DISQUALIFIED):
            raise ValueError(f"version {version_id} is {version.status} already")
        self.store.set_version_status(version_id, VersionState.RETIRED, "retired by its author")
        self._abort_games_of(version_id, f"{version_id} was retired by its author")
        self._spawn(self._unlaunch(version_id))
        return self.store.version(version_id)

    def disqualify(self, version_id: str, reason: str) -> VersionRecord:
        """The organiser takes a version out of play and off the boards."""
        version = self.store.version(version_id)
        if version.house:
            raise ValueError("the league's own bot cannot be disqualified")
        detail = f"disqualified by the organiser: {reason or 'no reason given'}"
        self.store.set_version_status(version_id, VersionState.DISQUALIFIED, detail[:512])
        self._abort_games_of(version_id, f"{version_id} was disqualified")
        self._spawn(self._unlaunch(version_id))
        return self.store.version(version_id)

    def _abort_games_of(self, version_id: str, why: str) -> None:
        """Aborts the games ``version_id`` is playing now: it plays no more (their pairs are
        void, not rated)."""
        seat = seat_name(version_id)
        for table in list(self.server.tables.values()):
            spec = table.spec
            ours = spec.tournament_id.startswith("league-") and seat in spec.seat_bots
            if ours and table.outcome is None:
                with contextlib.suppress(Exception):
                    self.server.abort_table(table.id, why)

    def challenge(
        self, version_id: str, opponent_id: str, pairs: int, rated: bool, token: str | None
    ) -> int:
        """Queues ``pairs`` duplicate pairs of one of the caller's versions against another."""
        version = self.store.version(version_id)
        self.check_token(version.bot, token)
        opponent = self.store.version(opponent_id)
        if not 1 <= pairs <= 64:
            raise ValueError(f"pairs: 1 to 64, got {pairs}")
        for v in (version, opponent):
            if v.status != VersionState.ACTIVE or v.house:
                raise ValueError(f"version {v.version_id} is not active ({v.status})")
        if version_id == opponent_id:
            raise ValueError("a version cannot challenge itself")
        season = self.store.season()
        if season.status != "open":
            raise SubmissionsClosedError(f"season {season.name!r} takes no challenges now")
        limit = self.options.challenge_pairs
        if limit > 0:
            queued = self.queued_challenge_pairs(season.season_id, version.bot)
            if queued + pairs > limit:
                raise QuotaExceededError(
                    f"bot {version.bot!r} has {queued} challenge pair(s) queued, and the league "
                    f"takes at most {limit} at once (challenge_pairs): ask for "
                    f"{max(0, limit - queued)} or fewer now, or once they are played"
                )
        challenge_id = self.store.add_challenge(
            season.season_id, version_id, opponent_id, pairs, rated
        )
        self._wake.set()
        return challenge_id

    def queued_challenge_pairs(self, season_id: int, bot: str) -> int:
        """The challenge pairs of ``bot``'s versions still to be played (those of a retired or
        disqualified version, or against one, are dropped)."""
        active = self._active_ids()
        return sum(
            left
            for _id, a, b, left, _rated in self.store.open_challenges(season_id)
            if self.store.version(a).bot == bot and a in active and b in active
        )

    def _active_ids(self) -> set[str]:
        return {v.version_id for v in self.store.versions() if v.status == VersionState.ACTIVE}

    # Bots ---------------------------------------------------------------------------------------

    @property
    def process_per_game(self) -> bool:
        """No processes of the league's own for the whole season: sandboxed versions play in
        warm lanes (``lanes``), on Ray none is launched here."""
        return self.sandbox is not None or self.remote is not None

    def _lane_launcher(self, name: str, lane: int) -> tuple[BotLauncher, str]:
        """A launcher of a version's warm processes in ``lane`` (its seat name ``name``),
        under a launch key of its own."""
        model = next(r.launcher for r in self._running.values() if r.launcher.bot.name == name)
        key = self.server.issue_launch_key(name, 2 * model.plan.processes * model.plan.sessions)
        launcher = BotLauncher(
            model.bot,
            model.plan,
            model.server_target,
            key,
            model.log_path,
            model._on_incident,
            runtime=model.runtime,
            folder=model.folder,
            label=f"lane {lane}",
        )
        return launcher, key

    def _lane_sessions(self, name: str, key: str) -> int:
        return sum(1 for s in self.server.sessions.get(name, ()) if s.launch_key == key)

    async def _launch(self, version: VersionRecord) -> _Running:
        running = self._running.get(version.version_id)
        if running is not None:
            return running
        folder = self.version_folder(version.version_id) if not version.house else None
        name = seat_name(version.version_id)
        spec = BotSpec(name, version.command, folder=str(folder or ""), workdir=str(folder or ""))
        tables = self.options.concurrency if version.house else 2
        plan = plan_launch(spec, tables, 2, 1)
        key = "" if self.process_per_game else self.server.issue_launch_key(name)
        launcher = BotLauncher(
            spec,
            plan,
            self.server.target,
            key,
            self.folder / "logs" / f"{version.version_id}.log",
            lambda _bot, kind, detail: self.store.record_incident(version.version_id, kind, detail),
            runtime=self.sandbox,
            folder=folder,
        )
        running = _Running(version, launcher, key)
        self._running[version.version_id] = running
        if not self.process_per_game:
            launcher.check_command()
            await launcher.start()
        return running

    async def _unlaunch(self, version_id: str) -> None:
        running = self._running.pop(version_id, None)
        if running is None:
            return
        while self._flight.busy.get(version_id):  # noqa: ASYNC110 - its last pair ends first
            await asyncio.sleep(0.05)
        await running.launcher.stop(grace_s=1.0)
        if self.lanes is not None:
            await self.lanes.drop(running.launcher.bot.name)
        if running.key:
            self.server.revoke_launch_key(running.key)

    # Playing ------------------------------------------------------------------------------------

    async def _play_pair(
        self,
        kind: str,
        a: str,
        b: str,
        *,
        rated: bool = False,
        challenge_id: int | None = None,
    ) -> PairRecord:
        """Plays one duplicate pair of ``a`` against ``b`` (both games at once) and commits it."""
        season = self.store.season()
        for v in (a, b):
            self._flight.busy[v] = self._flight.busy.get(v, 0) + 1
        self._flight.tables += 2
        try:
            runs = [await self._launch(self.store.version(v)) for v in (a, b)]
            seed = secrets.randbits(63)
            pair_tag = f"league-{season.season_id}-{secrets.token_hex(6)}"
            # Its games' replays stay withheld until the pair is committed (a pair never
            # committed is never shown): the first game to end must not show its twin's deal.
            outcomes: list[TableOutcome | ShippedOutcome]
            if self.remote is not None:
                outcomes = await self._play_remote(pair_tag, seed, runs[0].version, runs[1].version)
            else:
                self.server.withhold_replays(pair_tag)
                seats = [
                    (runs[0], runs[1], runs[0], runs[1]),
                    (runs[1], runs[0], runs[1], runs[0]),
                ]
                outcomes = list(
                    await asyncio.gather(
                        *(self._play_game(pair_tag, i, seed, seats[i]) for i in range(2))
                    )
                )
        finally:
            for v in (a, b):
                self._flight.busy[v] -= 1
            self._flight.tables -= 2
        if self._stopping:
            raise asyncio.CancelledError
        games = [
            await self._record_game(pair_tag, i, outcome) for i, outcome in enumerate(outcomes)
        ]
        void = any(g.termination == "ABORTED" for g in games)
        score_a = 0.0
        name_a = seat_name(a)
        for game in games:
            side_a = 0 if game.seats[0] == name_a else 1
            rank_a, rank_b = game.ranks[side_a], game.ranks[1 - side_a]
            score_a += 1.0 if rank_a < rank_b else 0.5 if rank_a == rank_b else 0.0
        pair = PairRecord(
            0,
            season.season_id,
            kind,
            a,
            b,
            seed,
            rated and not void,
            challenge_id,
            score_a,
            void,
            time.time(),
            tuple(games),
        )
        pair_id = await asyncio.to_thread(self.store.record_pair, pair)
        self.server.release_replays(pair_tag)
        pair = dataclasses.replace(pair, pair_id=pair_id)
        self.pairs_played_now += 1
        if self.options.log_bytes:
            for version_id in (a, b):
                path = self.folder / "logs" / f"{version_id}.log"
                await asyncio.to_thread(_trim_log, path, self.options.log_bytes)
        if pair.rated:
            await self.refit()
        if self.on_pair is not None:
            self.on_pair(pair)
        return pair

    async def _play_remote(
        self, pair_tag: str, seed: int, a: VersionRecord, b: VersionRecord
    ) -> list[TableOutcome | ShippedOutcome]:
        """Plays a pair as a Ray task; keeps its incidents and its versions' output here."""
        from rookery.arena.league.ray import PairJob, ShippedVersion

        assert self.remote is not None
        assert self._seed_key is not None
        shipped = [
            ShippedVersion(
                v.version_id,
                seat_name(v.version_id),
                v.command,
                "" if v.house else identity_sha256(v.content_sha256, v.command, v.build),
            )
            for v in (a, b)
        ]
        job = PairJob(
            pair_tag,
            seed,
            shipped[0],
            shipped[1],
            self.options.ruleset,
            self.options.time_control,
            self.options.join_timeout_s,
            self._seed_key,
            self.options.sandbox,
            self.options.limits,
        )
        folders = tuple(None if v.house else self.version_folder(v.version_id) for v in (a, b))
        result: PairResult = await self.remote.play(job, (folders[0], folders[1]))
        for version_id, kind, detail in result.incidents:
            self.store.record_incident(version_id, kind, f"{detail} (on {result.node})")
        for version_id, data in result.logs.items():
            path = self.folder / "logs" / f"{version_id}.log"
            await asyncio.to_thread(_append, path, data)
        log.info("ray pair played", pair=pair_tag, node=result.node, unpack_s=result.unpack_s)
        return list(result.outcomes)

    async def _play_game(
        self, pair_tag: str, index: int, seed: int, seats: tuple[_Running, ...]
    ) -> TableOutcome:
        launches: dict[str, GameLaunch] = {}
        keys: list[str] = []
        names = [r.launcher.bot.name for r in seats]
        lane_keys: dict[str, str] = {}
        try:
            if self.lanes is not None:
                counts = {name: names.count(name) for name in names}
                try:
                    lane_keys = await self.lanes.enter(index, seed, counts)
                except LaneStartError as error:
                    raise LeagueError(str(error)) from None
                keys = [lane_keys[name] for name in names]
            elif self.process_per_game:
                for run in {r.launcher.bot.name: r for r in seats}.values():
                    name = run.launcher.bot.name
                    key = self.server.issue_launch_key(name)
                    plan = plan_launch(run.launcher.bot, 1, 2, 1)
                    launches[name] = await run.launcher.start_game(
                        f"{pair_tag} game {index}", plan, key
                    )
                keys = [launches[r.launcher.bot.name].key for r in seats]
            else:
                keys = [r.key for r in seats]
            spec = TableSpec(
                ruleset=self.options.ruleset,
                seat_bots=tuple(r.launcher.bot.name for r in seats),
                seed=seed,
                time_control=self.options.time_control,
                tournament_id=pair_tag,
                table_id=f"{pair_tag}-{index}",
                join_timeout_s=self.options.join_timeout_s,
                game_number=index,
                seat_keys=tuple(keys),
                bot_seed_key=self._seed_key,
            )
            table = await self.server.create_table(spec)
            return await table.wait_finished()
        finally:
            if lane_keys:
                assert self.lanes is not None
                self.lanes.leave(index, list(lane_keys))
            for name, launch in launches.items():
                running = next(r for r in seats if r.launcher.bot.name == name)
                await running.launcher.finish_game(launch)
                self.server.revoke_launch_key(launch.key)

    async def _record_game(
        self, pair_tag: str, index: int, outcome: TableOutcome | ShippedOutcome
    ) -> LeagueGame:
        game_id = f"{pair_tag}-{index}"
        path = self.folder / "replays" / f"{game_id}.jsonl.gz"
        data = outcome.replay_bytes(compress=True)
        digest = await asyncio.to_thread(write_bytes_atomically, path, data)
        result = outcome.result
        seats = tuple(s.bot_name for s in sorted(outcome.seat_stats, key=lambda s: s.seat))
        ruleset = self.options.ruleset
        sides = tuple(
            tuple(seats[s] for s in ruleset.seats_of_side(side))
            for side in range(ruleset.num_sides)
        )
        winners = tuple(int(w) for w in result.winners)
        scores = tuple(int(s) for s in result.scores)
        reason = results_pb2.TerminationReason.ValueType(outcome.termination)
        termination = results_pb2.TerminationReason.Name(reason).removeprefix("TERMINATION_REASON_")
        forfeit = seats[outcome.forfeit_seat] if 0 <= outcome.forfeit_seat < len(seats) else ""
        return LeagueGame(
            game_id,
            seats,
            sides,
            ranks_from_result(winners, scores, ruleset.num_sides),
            scores,
            termination,
            outcome.detail,
            int(result.hands_played),
            outcome.duration_s,
            str(path.relative_to(self.folder)),
            digest,
            forfeit,
        )

    # Ratings ------------------------------------------------------------------------------------

    def rated_games(self, season_id: int, kinds: tuple[str, ...] = ()) -> list[GameScore]:
        """The season's rated games as the ratings see them, by version id (a pair a group)."""
        disqualified = {
            v.version_id for v in self.store.versions() if v.status == VersionState.DISQUALIFIED
        }
        by_seat = {seat_name(v.version_id): v.version_id for v in self.store.versions()}
        games = []
        for pair in self.store.pairs(season_id, kinds=kinds):
            if not pair.rated or pair.void or {pair.a, pair.b} & disqualified:
                continue
            for game in pair.games:
                sides = tuple(tuple(by_seat.get(s, s) for s in side) for side in game.sides)
                games.append(GameScore(sides, game.ranks, pair.pair_id))
        return games

    def fit(self, season_id: int, names: list[str] | None = None) -> Any:
        """The Bradley–Terry fit of the season's rated games (at its confidence)."""
        season = self.store.season(season_id)
        games = self.rated_games(season_id)
        if names is not None:
            wanted = set(names)
            games = [g for g in games if {b for side in g.sides for b in side} <= wanted]
        return fit_bradley_terry(
            games,
            names,
            bootstrap=self.options.bootstrap,
            seed=len(games),
            confidence=season.confidence,
        )

    async def refit(self) -> None:
        """Refits the ratings and stores them in the history."""
        async with self._fit_lock:
            season = self.store.season()
            fit = await asyncio.to_thread(self.fit, season.season_id)
            count = self.store.count_pairs(season.season_id)
            now = time.time()
            points = [
                RatingPoint(count, now, r.name, r.elo, r.lower, r.upper, r.games)
                for r in fit.ratings
            ]
            await asyncio.to_thread(self.store.record_ratings, season.season_id, count, points)

    # Boards -------------------------------------------------------------------------------------

    def board(self, all_versions: bool = False) -> Board:
        """The main board (the latest active version of each bot) or every active version;
        once the season is closed, the final standings with their verdicts."""
        season = self.store.season()
        ratings = self.store.latest_ratings(season.season_id)
        versions = {v.version_id: v for v in self.store.versions()}
        if season.status == "closed" and season.final:
            ranked = [versions[v] for v in season.final["ranking"] if v in versions]
            tied = {tuple(pair) for pair in season.final.get("tied", [])}
            verdicts = tuple(season.final.get("verdicts", ()))
            final_ratings = season.final.get("ratings")
            if final_ratings is not None:  # (a season closed before they were stored has none)
                ratings = {
                    v: RatingPoint(0, 0.0, v, elo, lower, upper, games)
                    for v, (elo, lower, upper, games) in final_ratings.items()
                }
        else:
            field = [v for v in versions.values() if v.status == VersionState.ACTIVE]
            ranked = sorted(
                field,
                key=lambda v: -ratings[v.version_id].elo if v.version_id in ratings else 1e9,
            )
            tied = set()
            verdicts = ()
        if not all_versions:
            latest: dict[str, VersionRecord] = {}
            for v in ranked:
                if v.bot not in latest or v.number > latest[v.bot].number:
                    latest[v.bot] = v
            ranked = [v for v in ranked if latest[v.bot] is v]
        lines = []
        for i, v in enumerate(ranked):
            r = ratings.get(v.version_id)
            nxt = ranked[i + 1] if i + 1 < len(ranked) else None
            if season.status == "closed" and season.final:
                tied_next = nxt is not None and (v.version_id, nxt.version_id) in tied
            else:
                rn = ratings.get(nxt.version_id) if nxt is not None else None
                tied_next = r is not None and rn is not None and rn.upper >= r.lower
            lines.append(
                BoardLine(
                    i + 1,
                    v,
                    r.elo if r else 0.0,
                    r.lower if r else 0.0,
                    r.upper if r else 0.0,
                    r.games if r else 0,
                    tied_next,
                )
            )
        return Board(tuple(lines), verdicts, season.status == "closed")

    # Matchmaking --------------------------------------------------------------------------------

    def playing_field(self) -> list[VersionRecord]:
        """The versions that play and are ranked: active, not the house bot."""
        return [v for v in self.store.versions() if v.status == VersionState.ACTIVE]

    def _placed(self, season_id: int) -> list[Placed]:
        ratings = self.store.latest_ratings(season_id)
        counts: dict[str, int] = {}
        for pair in self.store.pairs(season_id, kinds=("rated", "final")):
            for side in (pair.a, pair.b):
                counts[side] = counts.get(side, 0) + 1
        placed = []
        for v in self.playing_field():
            r = ratings.get(v.version_id)
            if r is None:
                placed.append(Placed(v.version_id, 0.0, -1e4, 1e4, 0, v.submitted_at))
            else:
                pairs = counts.get(v.version_id, 0)
                placed.append(Placed(v.version_id, r.elo, r.lower, r.upper, pairs, v.submitted_at))
        return placed

    def next_pairing(self) -> tuple[str, str, str, bool, int | None] | None:
        """The next pair to play: (kind, a, b, rated, challenge id), or None."""
        season = self.store.season()
        busy = {k: n for k, n in self._flight.busy.items() if n}
        if season.status == "open":
            challenge = self._next_challenge(season.season_id, busy)
            if challenge is not None and self._last_kind != "challenge":
                return challenge
            # Every other pair at most is a challenge: a queue of them against one version
            # must not keep it (and the league) from rated play.
            choice = choose_pairing(
                self._placed(season.season_id),
                busy,
                min_pairs=self.options.min_pairs,
                exclude=set(busy),
            )
            return ("rated", *choice, True, None) if choice else challenge
        if season.status == "final":
            return self._final_step(season)
        return None

    def _next_challenge(
        self, season_id: int, busy: dict[str, int]
    ) -> tuple[str, str, str, bool, int | None] | None:
        active = self._active_ids()  # a retired version plays none of its queued challenges
        for challenge_id, a, b, left, rated in self.store.open_challenges(season_id):
            in_flight = sum(1 for t in self._challenges_in_flight if t == challenge_id)
            if a not in active or b not in active:
                continue
            if left - in_flight > 0 and not busy.get(a) and not busy.get(b):
                return ("challenge", a, b, rated, challenge_id)
        return None

    def final_state(self, season_id: int) -> tuple[list[str], list[Any], Any]:
        """The final evaluation's ranking (best first), its neighbour separations and the fit."""
        season = self.store.season(season_id)
        names = [v.version_id for v in self.playing_field()]
        fit = self.fit(season_id, names)
        ranked = [r.name for r in fit.ratings]
        return ranked, separations(ranked, neighbour_los(fit, ranked), season.confidence), fit

    def _final_step(self, season: Any) -> tuple[str, str, str, bool, int | None] | None:
        played_final = self.store.count_pairs(season.season_id, ("final",))
        in_flight = len(self._flight.tasks)  # until committed, not just until played
        ranked, steps, fit = self.final_state(season.season_id)
        if all(s.separated for s in steps) or played_final + in_flight >= season.final_pair_budget:
            if in_flight == 0:
                self._close_season(season, ranked, steps, fit)
            return None
        played: dict[frozenset[str], int] = {}
        for pair in self.store.pairs(season.season_id, kinds=("final",)):
            key = frozenset((pair.a, pair.b))
            played[key] = played.get(key, 0) + 1
        choice = final_pairing(steps, played, {k: n for k, n in self._flight.busy.items() if n})
        return ("final", *choice, True, None) if choice else None

    def _close_season(self, season: Any, ranked: list[str], steps: list[Any], fit: Any) -> None:
        verdicts = []
        for s in steps:
            if s.separated:
                verdicts.append(f"{s.upper} > {s.lower} (LOS {s.los:.3f})")
            else:
                verdicts.append(
                    f"{s.upper} ~ {s.lower}: statistically tied (LOS {s.los:.3f} < "
                    f"{season.confidence:g} when the budget was spent)"
                )
        final: dict[str, Any] = {
            "ranking": ranked,
            # The ranking's own fit: the standings show the ratings they are ordered by.
            "ratings": {r.name: [r.elo, r.lower, r.upper, r.games] for r in fit.ratings},
            "verdicts": verdicts,
            "tied": [[s.upper, s.lower] for s in steps if not s.separated],
            "final_pairs": self.store.count_pairs(season.season_id, ("final",)),
            "pairs": self.store.count_pairs(season.season_id),
            "closed_at": time.time(),
        }
        self.store.set_season_status(season.season_id, "closed", final)
        log.info("final evaluation done", season=season.name, tied=len(final["tied"]))

    async def step(self) -> bool:
        """Starts the next pair if the budget allows: whether one was started."""
        self._check_deadline()
        try:
            self.store.season()
        except LookupError:
            return False
        if self._pair_slots.locked() or self._qualifications_waiting:
            return False  # the budget is spent, or new versions wait to qualify first
        choice = await asyncio.to_thread(self.next_pairing)
        if choice is None or self._pair_slots.locked():
            return False
        await self._pair_slots.acquire()
        kind, a, b, rated, challenge_id = choice
        self._last_kind = kind
        if challenge_id is not None:
            self._challenges_in_flight.append(challenge_id)
        # Claim both sides now: the next choice must not pick them again.
        task = asyncio.create_task(self._dispatched(kind, a, b, rated, challenge_id))
        self._flight.tasks.add(task)
        task.add_done_callback(self._flight.tasks.discard)
        await asyncio.sleep(0)
        return True

    async def _dispatched(
        self, kind: str, a: str, b: str, rated: bool, challenge_id: int | None
    ) -> None:
        try:
            await self._play_pair(kind, a, b, rated=rated, challenge_id=challenge_id)
        except asyncio.CancelledError:
            pass
        except Exception as error:
            log.warning("pair failed", a=a, b=b, error=repr(error))
            for v in (a, b):
                with contextlib.suppress(Exception):
                    self.store.record_incident(v, "pair_failed", repr(error)[:300])
            await asyncio.sleep(1.0)
        finally:
            self._pair_slots.release()
            if challenge_id is not None:
                self._challenges_in_flight.remove(challenge_id)
            self._wake.set()

    async def _loop(self) -> None:
        while not self._stopping:
            started = True
            while started and not self._stopping:
                started = await self.step()
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), 1.0)
