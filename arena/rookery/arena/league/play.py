"""The league's bots and its duplicate pairs: each version's bot launched under a launch key
(warm lanes when sandboxed, nothing here on Ray), the two games of a pair played at once on the
server (or on a Ray worker), their replays written and the pair committed to the store."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hashlib
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import structlog
from rookery.arena._config_values import BotSpec
from rookery.arena.launch._lanes import LaneStartError, WarmLanes
from rookery.arena.launch._launcher import BotLauncher, GameLaunch, plan_launch
from rookery.arena.launch._sandbox import SandboxRuntime
from rookery.arena.records._storage import write_bytes_atomically
from rookery.arena.stats._ratings import ranks_from_result
from rookery.server import RookeryServer, TableOutcome, TableSpec
from rookery.v1 import results_pb2

from .options import LeagueError, LeagueOptions
from .standings import seat_name
from .store import LeagueGame, LeagueStore, PairRecord, VersionRecord
from .submissions import identity_sha256

if TYPE_CHECKING:
    from rookery.arena.league.ray import RayPairs
    from rookery.arena.league.ray_jobs import ShippedOutcome

__all__: list[str] = []  # the league's names are its package's (rookery.arena.league)

log = structlog.get_logger("rookery.league")


def version_folder(folder: Path, version_id: str) -> Path:
    """Where a version's files are, in the league's ``folder``."""
    return folder / "versions" / version_id


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


@dataclass
class _Running:
    """A version's launched bot: persistent processes, or fresh ones per game (sandboxed)."""

    version: VersionRecord
    launcher: BotLauncher
    key: str = ""
    pairs: int = 0


@dataclass
class Flight:
    """What is being played now."""

    tasks: set[asyncio.Task[None]] = field(default_factory=set)
    busy: dict[str, int] = field(default_factory=dict)
    tables: int = 0


class PairPlayer:
    """The league's bots and the pairs they play, for the league stored in ``store``."""

    def __init__(
        self,
        store: LeagueStore,
        server: RookeryServer,
        options: LeagueOptions,
        flight: Flight,
        seed_key: bytes,
        sandbox: SandboxRuntime | None = None,
        remote: RayPairs | None = None,
    ) -> None:
        self.store = store
        self.server = server
        self.options = options
        self.sandbox = sandbox
        self.remote = remote
        self.seed_key = seed_key
        self._flight = flight
        #: Set when the league stops: a pair played to its end is then not committed.
        self.stopping = False
        self._running: dict[str, _Running] = {}
        #: Sandboxed versions play in warm lanes: lane 0 the first games of pairs, lane 1 the
        #: second (each pair has a seed of its own; see :mod:`rookery.arena.launch._lanes`).
        self.lanes: WarmLanes | None = None
        if remote is not None:
            from rookery.arena.league.ray_jobs import WorkerSettings

            settings = WorkerSettings(
                options.sandbox,
                options.limits,
                options.time_control,
                options.join_timeout_s,
                options.warm_processes,
            )
            league = hashlib.sha256(seed_key).hexdigest()[:12]
            remote.start(settings, options.concurrency // 2, self.folder / "builds", league)
        elif sandbox is not None:
            self.lanes = WarmLanes(
                self._lane_launcher,
                self._lane_sessions,
                max_processes=self.options.warm_processes,
                connect_timeout_s=self.options.join_timeout_s,
                on_stop=lambda _launcher, key: server.revoke_launch_key(key),
            )

    @property
    def folder(self) -> Path:
        """Where the league's files are."""
        return self.store.folder

    async def stop(self) -> None:
        """Stops every bot of the league."""
        await asyncio.gather(
            *(r.launcher.stop(grace_s=1.0) for r in self._running.values()),
            return_exceptions=True,
        )
        if self.lanes is not None:
            await self.lanes.stop()
        self._running.clear()

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
        launcher = model.for_lane(key, lane)
        return launcher, key

    def _lane_sessions(self, name: str, key: str) -> int:
        return sum(1 for s in self.server.sessions.get(name, ()) if s.launch_key == key)

    async def launch(self, version: VersionRecord) -> _Running:
        running = self._running.get(version.version_id)
        if running is not None:
            return running
        folder = version_folder(self.folder, version.version_id) if not version.house else None
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

    async def unlaunch(self, version_id: str) -> None:
        running = self._running.pop(version_id, None)
        if running is None:
            return
        while self._flight.busy.get(version_id):  # noqa: ASYNC110 - its last pair ends first
            await asyncio.sleep(0.05)
        await running.launcher.stop(grace_s=1.0)
        if self.lanes is not None:
            await self.lanes.drop(running.launcher.bot.name)
        if self.remote is not None:
            await self.remote.drop(running.launcher.bot.name)
        if running.key:
            self.server.revoke_launch_key(running.key)

    async def play_pair(
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
            runs = [await self.launch(self.store.version(v)) for v in (a, b)]
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
        if self.stopping:
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
        if self.options.log_bytes:
            for version_id in (a, b):
                path = self.folder / "logs" / f"{version_id}.log"
                await asyncio.to_thread(_trim_log, path, self.options.log_bytes)
        return pair

    async def _play_remote(
        self, pair_tag: str, seed: int, a: VersionRecord, b: VersionRecord
    ) -> list[TableOutcome | ShippedOutcome]:
        """Plays a pair on a Ray worker; keeps its incidents and its versions' output here."""
        from rookery.arena.league.ray_jobs import PairJob, ShippedVersion

        assert self.remote is not None
        shipped = [
            ShippedVersion(
                v.version_id,
                seat_name(v.version_id),
                v.command,
                "" if v.house else identity_sha256(v.content_sha256, v.command, v.build),
            )
            for v in (a, b)
        ]
        job = PairJob(pair_tag, seed, shipped[0], shipped[1], self.options.ruleset, self.seed_key)
        folders = tuple(
            None if v.house else version_folder(self.folder, v.version_id) for v in (a, b)
        )
        result = await self.remote.play(job, (folders[0], folders[1]))
        for version_id, kind, detail in result.incidents:
            self.store.record_incident(version_id, kind, f"{detail} (on {result.node})")
        for version_id, data in result.logs.items():
            if data:
                path = self.folder / "logs" / f"{version_id}.log"
                await asyncio.to_thread(_append, path, data)
        log.info(
            "ray pair played",
            pair=pair_tag,
            node=result.node,
            unpack_s=round(result.unpack_s, 3),
            starts=result.starts,
        )
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
                bot_seed_key=self.seed_key,
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

    def abort_games_of(self, version_id: str, why: str) -> None:
        """Aborts the games ``version_id`` is playing now: it plays no more (their pairs are
        void, not rated)."""
        seat = seat_name(version_id)
        for table in list(self.server.tables.values()):
            spec = table.spec
            ours = spec.tournament_id.startswith("league-") and seat in spec.seat_bots
            if ours and table.outcome is None:
                with contextlib.suppress(Exception):
                    self.server.abort_table(table.id, why)
