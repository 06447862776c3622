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
import secrets
import shutil
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import TYPE_CHECKING

import structlog
from google.protobuf import json_format
from rookery.arena.errors import ArenaError
from rookery.arena.launch._sandbox import SandboxRuntime
from rookery.arena.stats._ratings import BradleyTerryFit
from rookery.server import (
    QuotaExceededError,
    RookeryServer,
    SubmissionsClosedError,
)
from rookery.wire import convert

from .desk import HOUSE_RANDOM, Desk
from .matchmaking import Separation, choose_pairing, final_pairing
from .options import LeagueError, LeagueOptions
from .play import Flight, PairPlayer, version_folder
from .ray_jobs import BuildJob
from .standings import Board, Standings, seat_name
from .store import (
    LeagueStore,
    PairRecord,
    SeasonRecord,
    VersionRecord,
    VersionState,
)
from .submissions import (
    BuildResult,
    content_sha256,
    copy_folder,
    identity_sha256,
    run_build,
    staging_folder,
    unpack_archive,
)

if TYPE_CHECKING:
    from rookery.arena.league.ray import RayPairs

__all__: list[str] = []  # the league's names are its package's (rookery.arena.league)

log = structlog.get_logger("rookery.league")


def qualification_problem(pair: PairRecord, version_id: str) -> str:
    """Why a version's qualification pair does not qualify it (empty if it does)."""
    if pair.void:
        return "its qualification game did not finish: " + "; ".join(
            g.detail for g in pair.games if g.detail
        )
    for game in pair.games:
        if game.forfeit == seat_name(version_id):
            return f"it forfeited its qualification game ({game.termination}: {game.detail})"
    return ""


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
        #: The ratings, the boards and the final evaluation's verdicts.
        self.standings = Standings(self.store, self.options.bootstrap)
        self.server = server
        self.sandbox = sandbox
        self._flight = Flight()
        self._wake = asyncio.Event()
        self._loop_task: asyncio.Task[None] | None = None
        self._background: set[asyncio.Task[None]] = set()
        self._stopping = False
        self._challenges_in_flight: list[int] = []
        #: The kind of the last pair dispatched (challenges take every other pair at most).
        self._last_kind = ""
        #: Pairs at once (two games each): qualifications and matchmaking share them.
        self._pair_slots = asyncio.Semaphore(max(1, self.options.concurrency // 2))
        self._qualifications_waiting = 0
        seed_key = bytes.fromhex(self.store.meta("bot_seed_key") or "")
        if not seed_key:
            seed_key = secrets.token_bytes(32)
            self.store.set_meta("bot_seed_key", seed_key.hex())
        #: Who may submit, read and challenge what, and when.
        self.desk = Desk(self.store, server, self.options)
        #: The versions' bots and the pairs they play.
        self.tables = PairPlayer(
            self.store, server, self.options, self._flight, seed_key, sandbox, remote
        )
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
        self.desk.ensure_house()
        for version in self.store.versions(house=True):
            if version.status == VersionState.ACTIVE and not version.house:
                await self.tables.launch(
                    version
                )  # the house bot starts with the first qualification
            elif version.status == VersionState.BUILDING:
                self._spawn(self._build_and_qualify(version))
            elif version.status == VersionState.QUALIFYING:
                self._spawn(self._qualify(version))
        if self.options.autoplay:
            self._loop_task = asyncio.create_task(self._loop())

    async def stop(self) -> None:
        """Stops dispatching, aborts the pairs in flight (played again after a restart), stops
        every bot and closes the file."""
        self._stopping = self.tables.stopping = True
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
        await self.tables.stop()
        self.store.close()

    def _spawn(self, coroutine: Coroutine[object, object, None]) -> None:
        task = asyncio.create_task(coroutine)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    # Seasons ------------------------------------------------------------------------------------

    def create_season(
        self, name: str, deadline: float, confidence: float = 0.95, final_pair_budget: int = 200
    ) -> SeasonRecord:
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

    # Submissions --------------------------------------------------------------------------------

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
        season = self.desk.check_submission(bot, token)
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
                source = self.desk.local_source(local_folder)
                await asyncio.to_thread(copy_folder, source, staging, limit)
            content = await asyncio.to_thread(content_sha256, staging)
            # Checked again with no await before the version is stored: two submissions sent
            # at once cannot both take the last one of the day.
            self.desk.check_quota(bot)
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

    def version_folder(self, version_id: str) -> Path:
        """Where a version's files are."""
        return version_folder(self.folder, version_id)

    async def _build_and_qualify(self, version: VersionRecord) -> None:
        folder = self.version_folder(version.version_id)
        if not folder.is_dir():
            self.store.set_version_status(
                version.version_id, VersionState.BUILD_FAILED, "its files were lost in a restart"
            )
            return
        if version.build and self.remote is not None:  # on a worker: never on this machine
            try:
                result = await self.remote.build(
                    BuildJob(
                        version.version_id,
                        identity_sha256(version.content_sha256, version.command, version.build),
                        version.build,
                        self.options.build_timeout_s,
                        self.options.build_bytes,
                    ),
                    folder,
                )
            except ArenaError as error:
                result = BuildResult(-1, 0.0, f"could not build on Ray: {error}\n")
        elif version.build:
            result = await run_build(
                version.build,
                folder,
                self.folder / "logs" / f"{version.version_id}.build.log",
                runtime=self.sandbox,
                timeout_s=self.options.build_timeout_s,
                server_target=self.server.target,
                max_bytes=self.options.build_bytes,
            )
        if version.build:
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
            await self.tables.launch(version)
            await self.tables.launch(house)
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
            reason = qualification_problem(pair, version.version_id)
        if reason:
            with contextlib.suppress(Exception):
                await self.tables.unlaunch(version.version_id)
        if pair is None and self._stopping:
            return  # played again after the restart
        current = self.store.version(version.version_id).status
        if current in (VersionState.RETIRED, VersionState.DISQUALIFIED):
            return  # taken out of play while it qualified: so it stays
        if reason:
            self.store.set_version_status(
                version.version_id, VersionState.QUALIFICATION_FAILED, reason
            )
            await self.tables.unlaunch(version.version_id)
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

    def retire(self, version_id: str, token: str | None) -> VersionRecord:
        """The author takes a version out of play (its games and ratings are kept)."""
        version = self.store.version(version_id)
        self.desk.check_token(version.bot, token)
        if version.status in (VersionState.RETIRED, VersionState.DISQUALIFIED):
            raise ValueError(f"version {version_id} is {version.status} already")
        self.store.set_version_status(version_id, VersionState.RETIRED, "retired by its author")
        self.tables.abort_games_of(version_id, f"{version_id} was retired by its author")
        self._spawn(self.tables.unlaunch(version_id))
        return self.store.version(version_id)

    def disqualify(self, version_id: str, reason: str) -> VersionRecord:
        """The organiser takes a version out of play and off the boards."""
        version = self.store.version(version_id)
        if version.house:
            raise ValueError("the league's own bot cannot be disqualified")
        detail = f"disqualified by the organiser: {reason or 'no reason given'}"
        self.store.set_version_status(version_id, VersionState.DISQUALIFIED, detail[:512])
        self.tables.abort_games_of(version_id, f"{version_id} was disqualified")
        self._spawn(self.tables.unlaunch(version_id))
        return self.store.version(version_id)

    def challenge(
        self, version_id: str, opponent_id: str, pairs: int, rated: bool, token: str | None
    ) -> int:
        """Queues ``pairs`` duplicate pairs of one of the caller's versions against another."""
        version = self.store.version(version_id)
        self.desk.check_token(version.bot, token)
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
        return self.desk.queued_challenge_pairs(season_id, bot)

    # Bots and pairs (see :mod:`.play`) --------------------------------------------------------

    async def _play_pair(
        self,
        kind: str,
        a: str,
        b: str,
        *,
        rated: bool = False,
        challenge_id: int | None = None,
    ) -> PairRecord:
        """Plays one duplicate pair of ``a`` against ``b``, commits it and refits the ratings."""
        pair = await self.tables.play_pair(kind, a, b, rated=rated, challenge_id=challenge_id)
        self.pairs_played_now += 1
        if pair.rated:
            await self.standings.refit()
        if self.on_pair is not None:
            self.on_pair(pair)
        return pair

    # Standings (see :mod:`.standings`) ----------------------------------------------------------

    async def refit(self) -> None:
        """Refits the ratings and stores them in the history."""
        await self.standings.refit()

    def board(self, all_versions: bool = False) -> Board:
        """The main board (the latest active version of each bot) or every active version;
        once the season is closed, the final standings with their verdicts."""
        return self.standings.board(all_versions)

    def final_state(self, season_id: int) -> tuple[list[str], list[Separation], BradleyTerryFit]:
        """The final evaluation's ranking (best first), its neighbour separations and the fit."""
        return self.standings.final_state(season_id)

    # Matchmaking --------------------------------------------------------------------------------

    def next_pairing(self) -> tuple[str, str, str, bool, int | None] | None:
        """The next pair to play: (kind, a, b, rated, challenge id), or None."""
        season = self.store.season()
        busy = {k: n for k, n in self._flight.busy.items() if n}
        if season.status == "open":
            challenge = self.desk.next_challenge(season.season_id, busy, self._challenges_in_flight)
            if challenge is not None and self._last_kind != "challenge":
                return challenge
            # Every other pair at most is a challenge: a queue of them against one version
            # must not keep it (and the league) from rated play.
            choice = choose_pairing(
                self.standings.placed(season.season_id),
                busy,
                min_pairs=self.options.min_pairs,
                exclude=set(busy),
            )
            return ("rated", *choice, True, None) if choice else challenge
        if season.status == "final":
            return self._final_step(season)
        return None

    def _final_step(self, season: SeasonRecord) -> tuple[str, str, str, bool, int | None] | None:
        played_final = self.store.count_pairs(season.season_id, ("final",))
        in_flight = len(self._flight.tasks)  # until committed, not just until played
        ranked, steps, fit = self.standings.final_state(season.season_id)
        if all(s.separated for s in steps) or played_final + in_flight >= season.final_pair_budget:
            if in_flight == 0:
                self.standings.close_season(season, ranked, steps, fit)
            return None
        played: dict[frozenset[str], int] = {}
        for pair in self.store.pairs(season.season_id, kinds=("final",)):
            key = frozenset((pair.a, pair.b))
            played[key] = played.get(key, 0) + 1
        choice = final_pairing(steps, played, {k: n for k, n in self._flight.busy.items() if n})
        return ("final", *choice, True, None) if choice else None

    async def step(self) -> bool:
        """Starts the next pair if the budget allows: whether one was started."""
        self.desk.check_deadline()
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
