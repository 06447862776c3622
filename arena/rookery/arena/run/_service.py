"""Tournaments for ``rookery serve``: the server's ``TournamentBackend``, run by the arena.

ArenaService ``CreateTournament`` becomes a :class:`~rookery.arena.run.TournamentRunner` on the
running server, in the background: remote bots are the sessions connected to that server (by
name), launched bots (a ``command`` in the spec) are started by the arena next to it. Each
tournament gets its own run directory ``<store>/<tournament_id>/`` (SQLite, replays, bot logs),
exactly as ``rookery arena run`` writes it, so ``rookery arena report`` works on it and the
tournaments of earlier runs of the server are still listed.

``rookery serve`` finds this module and calls :func:`create_tournament_backend`; the store is
``$ROOKERY_ARENA_DIR`` or ``runs/serve``.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import os
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import structlog
from google.protobuf import json_format
from rookery.arena._config_model import TournamentConfig, duplicate_hand_seeds
from rookery.arena._config_values import BotSpec, Format, default_concurrency, random_seed
from rookery.arena.errors import ArenaError, StorageError
from rookery.arena.records._report import load_run
from rookery.arena.records._storage import DATABASE_NAME, GameRow, RunStore
from rookery.arena.run._ray_backend import _import_ray
from rookery.arena.run._runner import TournamentOptions, TournamentRunner
from rookery.arena.stats._sprt import SprtDecision, SprtParams
from rookery.engine import Ruleset
from rookery.server import RookeryServer, TournamentBackend, TournamentNotFoundError
from rookery.v1 import arena_service_pb2 as api
from rookery.v1 import results_pb2, ruleset_pb2, table_pb2
from rookery.wire import convert
from rookery.wire.errors import WireError

__all__ = [
    "ARENA_DIR_VARIABLE",
    "ArenaTournaments",
    "config_from_spec",
    "create_tournament_backend",
    "make_backend",
]

log = structlog.get_logger("rookery.arena")

#: The environment variable naming where ``rookery serve`` keeps its tournaments.
ARENA_DIR_VARIABLE = "ROOKERY_ARENA_DIR"
_DEFAULT_STORE = Path("runs") / "serve"
#: ``ray``: the server's tournaments of launched bots play their games as Ray tasks (docs/scale.md).
_BACKEND_VARIABLE = "ROOKERY_ARENA_BACKEND"
#: The Ray cluster those tournaments join (empty: a local Ray, started with the first of them).
_RAY_ADDRESS_VARIABLE = "ROOKERY_ARENA_RAY_ADDRESS"
_SPEC_FILE = "spec.json"
_MAX_NAME = 128
_MAX_BOTS = 64
_MAX_COMMAND = 4096
#: What a public view shows instead of a launched bot's command line (the organiser's own).
WITHHELD_COMMAND = "(withheld)"

_FORMATS = {
    api.TOURNAMENT_FORMAT_UNSPECIFIED: Format.ROUND_ROBIN,
    api.TOURNAMENT_FORMAT_ROUND_ROBIN: Format.ROUND_ROBIN,
    api.TOURNAMENT_FORMAT_GAUNTLET: Format.GAUNTLET,
    api.TOURNAMENT_FORMAT_SPRT: Format.SPRT,
}
_STATUSES = {
    "running": api.TOURNAMENT_STATUS_RUNNING,
    "finished": api.TOURNAMENT_STATUS_FINISHED,
    "cancelled": api.TOURNAMENT_STATUS_CANCELLED,
}


def config_from_spec(
    spec: api.TournamentSpec, server_time_control: table_pb2.TimeControl | None = None
) -> TournamentConfig:
    """The arena's configuration of a wire ``TournamentSpec``; ``ValueError`` if it cannot run.

    Unset fields take the arena's defaults (games 10, concurrency the cores, the standard
    preset); an unset clock field takes the server's. ``duplicate`` is taken as given.
    """
    from rookery.server import TimeControl

    _check_sizes(spec)
    try:
        format_ = _FORMATS[spec.format]
    except KeyError:
        raise ValueError(f"spec.format: unknown tournament format {spec.format}") from None
    bots = tuple(
        BotSpec(bot.name, bot.command) if bot.command.strip() else BotSpec(bot.name, remote=True)
        for bot in spec.bots
    )
    try:
        ruleset = (
            convert.ruleset_from_proto(spec.ruleset, "spec.ruleset")
            if spec.HasField("ruleset")
            else Ruleset.preset("standard")
        )
    except (WireError, ValueError) as error:
        raise ValueError(str(error)) from None
    if spec.ruleset.hand_seeds == ruleset_pb2.HAND_SEEDS_UNSPECIFIED:
        ruleset = duplicate_hand_seeds(ruleset, spec.duplicate)
    base = TimeControl.from_proto(server_time_control or table_pb2.TimeControl())
    clock = base.merged_with(spec.time_control)
    sprt = SprtParams()
    if spec.HasField("sprt"):
        try:
            sprt = SprtParams(
                elo0=spec.sprt.elo0,
                elo1=spec.sprt.elo1 if spec.sprt.elo1 or spec.sprt.elo0 else SprtParams().elo1,
                alpha=spec.sprt.alpha or SprtParams().alpha,
                beta=spec.sprt.beta or SprtParams().beta,
            )
        except ValueError as error:
            raise ValueError(f"spec.sprt: {error}") from None
    if not bots:
        raise ValueError("spec.bots: no bots; give at least two")
    try:
        config = TournamentConfig(
            name=spec.name or "tournament",
            ruleset=ruleset,
            bots=bots,
            format=format_,
            games=spec.games or 10,
            duplicate=spec.duplicate,
            concurrency=spec.concurrency or default_concurrency(),
            seed=spec.seed,
            time_control=clock,
            sprt=sprt,
            source="spec",
        )
        return config.with_overrides()
    except ArenaError as error:
        raise ValueError(str(error)) from None


def _check_sizes(spec: api.TournamentSpec) -> None:
    """``ValueError`` naming the first client-set string or list over its bound."""
    if len(spec.name) > _MAX_NAME:
        raise ValueError(
            f"spec.name is {len(spec.name)} characters long: at most {_MAX_NAME} are accepted"
        )
    if len(spec.bots) > _MAX_BOTS:
        raise ValueError(f"spec.bots has {len(spec.bots)} bots: at most {_MAX_BOTS} are accepted")
    for index, bot in enumerate(spec.bots):
        if len(bot.name) > _MAX_NAME:
            raise ValueError(
                f"spec.bots[{index}].name is {len(bot.name)} characters long: at most "
                f"{_MAX_NAME} are accepted"
            )
        if len(bot.command) > _MAX_COMMAND:
            raise ValueError(
                f"spec.bots[{index}].command is {len(bot.command)} characters long: at most "
                f"{_MAX_COMMAND} are accepted"
            )


def _slug(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_-]+", "-", name).strip("-")[:40] or "tournament"


def _is_loopback(address: str) -> bool:
    host = address.rpartition(":")[0].strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass
class _Running:
    runner: TournamentRunner
    task: asyncio.Task[None]


class ArenaTournaments:
    """The :class:`~rookery.server.TournamentBackend` of a running server.

    Launched bots run commands on the server's machine: they are accepted only when the
    ArenaService is guarded by an admin token or the server listens on loopback.
    """

    def __init__(
        self, server: RookeryServer, store_dir: str | Path, *, remote_wait_s: float = 600.0
    ) -> None:
        self.server = server
        self.store_dir = Path(store_dir)
        self.remote_wait_s = remote_wait_s
        self._running: dict[str, _Running] = {}
        #: The task that resumes interrupted tournaments (see create_tournament_backend).
        self.resumer: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ TournamentBackend

    async def create_tournament(self, spec: api.TournamentSpec) -> api.TournamentInfo:
        """Validate the spec, start the tournament in the background and return it.

        A spec without a seed gets a fresh random one, recorded in the run directory's
        ``spec.json`` (a resume plays the same games) and shown once the tournament is over.
        """
        spec = api.TournamentSpec.FromString(spec.SerializeToString())
        if not spec.seed:
            spec.seed = random_seed() or 1
        config = config_from_spec(spec, self.server.config.time_control.to_proto())
        launched = [bot.name for bot in config.bots if not bot.remote]
        guarded = bool(self.server.config.admin_token)
        if launched and not guarded and not _is_loopback(self.server.config.address):
            raise ValueError(
                f"bots {launched} have commands, which run on the server's machine: "
                "start the server with --admin-token to allow it, or leave the commands "
                "out and connect the bots as remote bots"
            )
        tournament_id = f"{_slug(config.name)}-{uuid.uuid4().hex[:8]}"
        run_dir = self.store_dir / tournament_id
        run_dir.mkdir(parents=True, exist_ok=True)
        (run_dir / _SPEC_FILE).write_text(json_format.MessageToJson(spec))
        self._start(tournament_id, config, run_dir)
        log.info("tournament created", tournament_id=tournament_id, run_dir=str(run_dir))
        remote = [bot.name for bot in config.bots if bot.remote]
        if config.duplicate and remote:
            log.warning(
                "duplicate deals with remote bots: a bot that remembers one game of a pair "
                "knows the hidden cards of the other (see docs/security.md)",
                tournament_id=tournament_id,
                remote_bots=remote,
            )
        return self._info(tournament_id)

    def _start(self, tournament_id: str, config: TournamentConfig, run_dir: Path) -> None:
        # On Ray only when every bot is launched: a remote bot connects to this server.
        on_ray = os.environ.get(_BACKEND_VARIABLE) == "ray" and not any(
            bot.remote for bot in config.bots
        )
        options = TournamentOptions(
            auth=self.server.config.auth,
            remote_wait_s=self.remote_wait_s,
            join_timeout_s=self.server.config.join_timeout_s,
            backend="ray" if on_ray else "local",
            ray_address=os.environ.get(_RAY_ADDRESS_VARIABLE, ""),
        )
        if on_ray:
            _join_ray(options.ray_address)
        runner = TournamentRunner(
            config, run_dir, options=options, tournament_id=tournament_id, server=self.server
        )
        task = asyncio.create_task(self._run(tournament_id, runner))
        self._running[tournament_id] = _Running(runner, task)

    def resume_interrupted(self) -> list[str]:
        """Restarts the tournaments that a crash of the server left running; returns their ids.

        A tournament whose run directory still says "running" was cut short by a crash or a
        SIGKILL (a clean stop records it as cancelled). Its runner resumes exactly as
        ``rookery arena run`` does: recorded games are kept, games in flight are played again.
        Call it once the server is serving, since launched bots are given its port.
        """
        resumed: list[str] = []
        if not self.store_dir.is_dir():
            return resumed
        for run_dir in sorted(self.store_dir.iterdir()):
            tournament_id = run_dir.name
            if tournament_id in self._running or not (run_dir / DATABASE_NAME).exists():
                continue
            try:
                spec = self._spec(tournament_id)
                with RunStore(run_dir) as store:
                    status = store.tournament(tournament_id).status
                if status != "running":
                    continue
                config = config_from_spec(spec, self.server.config.time_control.to_proto())
            except (ArenaError, LookupError, ValueError, OSError) as error:
                log.warning("tournament not resumed", tournament_id=tournament_id, error=str(error))
                continue
            self._start(tournament_id, config, run_dir)
            log.info("tournament resumed", tournament_id=tournament_id, run_dir=str(run_dir))
            resumed.append(tournament_id)
        return resumed

    async def get_tournament(self, tournament_id: str) -> api.TournamentInfo:
        """One tournament's progress."""
        return self._info(tournament_id)

    async def list_tournaments(self) -> Sequence[api.TournamentInfo]:
        """Every tournament of the store, oldest first (earlier runs of the server included)."""
        ids = [p.parent.name for p in self.store_dir.glob(f"*/{DATABASE_NAME}")]
        ids += [tid for tid in self._running if tid not in ids]
        infos = []
        for tournament_id in ids:
            with contextlib.suppress(LookupError, ArenaError):
                infos.append(self._info(tournament_id))
        return sorted(infos, key=lambda info: self._created_at(info.tournament_id))

    async def list_games(self, tournament_id: str, limit: int) -> Sequence[api.GameSummary]:
        """The tournament's finished games, newest first; ``limit`` 0 for all."""
        run_dir = self._run_dir(tournament_id)
        with RunStore(run_dir) as store:
            rows = store.games(tournament_id)
            config = config_from_spec(self._spec(tournament_id))
            versions = {b.name: b.version for b in store.bots(tournament_id)}
        rows.sort(key=lambda row: (row.finished_at, row.index), reverse=True)
        if limit > 0:
            rows = rows[:limit]
        summaries = [_game_summary(row, config.ruleset, versions) for row in rows]
        if self._progress(tournament_id).status != api.TOURNAMENT_STATUS_FINISHED:
            # Seeds are played again later in the tournament (duplicate pairs, every pairing
            # of a round; a cancelled one may be resumed): a seed would reveal a deal to come.
            for summary in summaries:
                summary.seed = 0
        return summaries

    async def get_standings(self, tournament_id: str) -> Sequence[api.Standing]:
        """The standings, best first: Bradley–Terry Elo ± its 95 % half-width, W/L/D."""
        run_dir = self._run_dir(tournament_id)
        try:
            data = await asyncio.to_thread(load_run, run_dir, tournament_id)
        except StorageError:
            return []  # not started yet: no standings
        return [
            api.Standing(
                bot_name=s.name,
                elo=s.elo,
                elo_error=s.elo_error,
                games=s.games,
                wins=s.wins,
                losses=s.losses,
                draws=s.draws,
                point_difference=s.point_difference,
                timeouts=s.timeouts,
                crashes=s.crashes,
                illegal_replies=s.illegal_replies,
                fallbacks=s.fallbacks,
            )
            for s in data.summary.standings
        ]

    # -------------------------------------------------------------------------- running

    async def _run(self, tournament_id: str, runner: TournamentRunner) -> None:
        try:
            result = await runner.run()
            log.info(
                "tournament ended",
                tournament_id=tournament_id,
                recorded=result.recorded,
                total=result.total,
                cancelled=result.cancelled,
            )
        except Exception as error:  # an error is an answer: the server goes on
            log.error("tournament failed", tournament_id=tournament_id, error=str(error))
            with RunStore(runner.run_dir) as store, contextlib.suppress(ArenaError):
                store.finish(tournament_id, "cancelled")

    async def close(self) -> None:
        """Stop every running tournament (games in flight are not recorded)."""
        for running in self._running.values():
            running.runner.request_stop()
        await asyncio.gather(*(r.task for r in self._running.values()), return_exceptions=True)

    # ------------------------------------------------------------------------ reading

    def _run_dir(self, tournament_id: str) -> Path:
        run_dir = self.store_dir / tournament_id
        if (
            "/" in tournament_id
            or tournament_id in ("", ".", "..")
            or not (run_dir / _SPEC_FILE).exists()
        ):
            shown = tournament_id[:_MAX_NAME] + ("…" if len(tournament_id) > _MAX_NAME else "")
            raise TournamentNotFoundError(f"no tournament {shown!r}")
        return run_dir

    def _spec(self, tournament_id: str) -> api.TournamentSpec:
        text = (self._run_dir(tournament_id) / _SPEC_FILE).read_text()
        return json_format.Parse(text, api.TournamentSpec())

    def _created_at(self, tournament_id: str) -> float:
        with contextlib.suppress(OSError):
            return (self.store_dir / tournament_id / _SPEC_FILE).stat().st_mtime
        return 0.0

    def _info(self, tournament_id: str) -> api.TournamentInfo:
        """A tournament's public view: anyone may ask (GetTournament needs no token), so the
        launched bots' command lines are withheld, and the seed while games remain to be played
        (every deal derives from it)."""
        info = self._progress(tournament_id)
        for bot in info.spec.bots:
            if bot.command:
                bot.command = WITHHELD_COMMAND
        if info.status != api.TOURNAMENT_STATUS_FINISHED:
            info.spec.seed = 0  # a cancelled one may be resumed: its games are still to come
        return info

    def _progress(self, tournament_id: str) -> api.TournamentInfo:
        spec = self._spec(tournament_id)
        info = api.TournamentInfo(tournament_id=tournament_id, spec=spec)
        running = self._running.get(tournament_id)
        if running is not None and not running.task.done():
            live = running.runner.live
            info.status = api.TOURNAMENT_STATUS_RUNNING
            info.games_done = live.done
            info.games_total = running.runner.total
            if live.sprt is not None:
                decision = live.sprt.decision
                info.sprt_decision = "" if decision is SprtDecision.CONTINUE else decision.value
                info.sprt_llr = live.sprt.llr
            return info
        run_dir = self.store_dir / tournament_id
        if not (run_dir / DATABASE_NAME).exists():
            info.status = api.TOURNAMENT_STATUS_CANCELLED
            return info
        with RunStore(run_dir) as store:
            try:
                record = store.tournament(tournament_id)
            except ArenaError:
                info.status = api.TOURNAMENT_STATUS_CANCELLED
                return info
            info.games_done = store.count_games(tournament_id)
        info.games_total = record.games_total
        # "running" in the file but no task here: the server stopped during the tournament.
        info.status = _STATUSES.get(record.status, api.TOURNAMENT_STATUS_CANCELLED)
        if record.status == "running":
            info.status = api.TOURNAMENT_STATUS_CANCELLED
        if record.sprt_decision and record.sprt_decision != SprtDecision.CONTINUE.value:
            info.sprt_decision = record.sprt_decision
        info.sprt_llr = record.sprt_llr
        return info


def _game_summary(row: GameRow, ruleset: Ruleset, versions: dict[str, str]) -> api.GameSummary:
    side_of = {
        seat: side for side in range(ruleset.num_sides) for seat in ruleset.seats_of_side(side)
    }
    reason = results_pb2.TerminationReason.Value(f"TERMINATION_REASON_{row.termination}")
    return api.GameSummary(
        game_id=row.game_id,
        seed=row.seed,
        seats=[
            table_pb2.SeatInfo(
                seat=seat, side=side_of[seat], bot_name=bot, bot_version=versions.get(bot, "")
            )
            for seat, bot in enumerate(row.seat_bots)
        ],
        result=results_pb2.GameResult(
            winners=row.winners,
            scores=row.scores,
            hands_played=row.hands_played,
            reason=reason,
            forfeit_seat=row.forfeit_seat,
            detail=row.detail,
        ),
        duration_ms=round(row.duration_s * 1000),
        pair_index=row.group,
    )


def _join_ray(address: str) -> None:
    """Joins (or starts) Ray once for the server's life: its tournaments share the connection,
    which none of them shuts down at its end."""
    ray = _import_ray(address)
    if ray.is_initialized():
        return
    if address:
        ray.init(address=address, log_to_driver=False)
    else:
        ray.init(include_dashboard=False, log_to_driver=False)
    log.info("tournaments on ray", address=address or "local")


def make_backend(server: RookeryServer, store_dir: str | Path) -> TournamentBackend:
    """The arena's tournament backend for ``server``; run directories go in ``store_dir``."""
    return ArenaTournaments(server, store_dir)


def create_tournament_backend(server: RookeryServer) -> TournamentBackend:
    """What ``rookery serve`` calls: the backend, its store at ``$ROOKERY_ARENA_DIR`` or
    ``runs/serve``. Called in a running event loop, it also resumes, once the server is
    serving, the tournaments that a crash of an earlier server left unfinished."""
    backend = ArenaTournaments(server, os.environ.get(ARENA_DIR_VARIABLE) or _DEFAULT_STORE)
    with contextlib.suppress(RuntimeError):  # no running loop: nothing to resume into
        loop = asyncio.get_running_loop()
        backend.resumer = loop.create_task(_resume_when_serving(server, backend))
    return backend


async def _resume_when_serving(server: RookeryServer, backend: ArenaTournaments) -> None:
    """Waits (bounded) until ``server`` has a port, then resumes the interrupted tournaments."""
    for _ in range(600):
        if server.port:
            backend.resume_interrupted()
            return
        await asyncio.sleep(0.05)
    log.warning("interrupted tournaments not resumed: the server did not start within 30 s")
