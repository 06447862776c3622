"""The one place a game becomes durable and counted.

:class:`GameRecorder` owns the run's store and its live state. A game played here (a table's
outcome) or elsewhere (a Ray task's row and replay bytes) is written (its replay file, its row
and move incidents, in :class:`BatchRecorder`'s batches) and only then counted: the live wins,
losses and draws, the online Elo, the language-model cost and the SPRT. A resumed run counts
the games already recorded the same way. From these counts it says whether one more game may
start (the SPRT undecided, the language-model budget not spent); it also records the bots'
incidents and the run's messages.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import time
from collections.abc import Callable
from pathlib import Path

import structlog
from rookery.arena._config_model import TournamentConfig, changed_fields
from rookery.arena.errors import StorageError
from rookery.arena.launch._sandbox import IncidentKind
from rookery.arena.records._ledger import ledger_of
from rookery.arena.records._move_incidents import replay_move_incidents
from rookery.arena.records._results import game_score
from rookery.arena.records._storage import (
    BotGameStats,
    GameRow,
    RunStore,
    TournamentMismatchError,
    write_bytes_atomically,
)
from rookery.arena.run._live import LiveState
from rookery.arena.run._recording import BatchRecorder
from rookery.arena.run._resume import check_commands
from rookery.arena.run._schedule import ScheduledGame
from rookery.arena.stats._ratings import GameScore, OnlineElo, ranks_from_result
from rookery.arena.stats._sprt import SprtDecision, SprtTest
from rookery.server import TableOutcome
from rookery.wire.convert import termination_name
from rookery.wire.replay import decode_replay

__all__ = ["GameRecorder"]

log = structlog.get_logger("rookery.arena")

_COUNTED_INCIDENTS = frozenset({"crash", *(kind.value for kind in IncidentKind)})
"""Incidents counted in the live state (the progress display's column)."""


def _bot_stats(outcome: TableOutcome) -> dict[str, BotGameStats]:
    stats: dict[str, BotGameStats] = {}
    for seat in outcome.seat_stats:
        game = BotGameStats(
            actions=seat.actions,
            think_ms_total=seat.think_ms_mean * seat.actions,
            think_ms_max=float(seat.think_ms_max),
            timeouts=seat.timeouts,
            auto_plays=seat.auto_plays,
            illegal_replies=seat.illegal_replies,
            malformed_replies=seat.malformed_replies,
            disconnects=seat.disconnects,
            fallbacks=seat.fallbacks,
        )
        stats[seat.bot_name] = stats.get(seat.bot_name, BotGameStats()) + game
    if outcome.recorded is not None and outcome.recorded.noted_actions:
        # Only a game with notes has a language-model seat's ledger to read from its replay.
        for bot, ledger in ledger_of([outcome.replay]).items():
            stats[bot] = dataclasses.replace(stats[bot], ledger=ledger.to_dict())
    return stats


class GameRecorder:
    """Records the games of tournament ``tournament_id`` into the run directory ``run_dir`` and
    counts them in ``live`` (``group_size``: the schedule's; pairs of a duplicate group feed the
    SPRT as pairs; ``counts_sprt``: this run keeps the SPRT, not a Ray task's share of it)."""

    def __init__(
        self,
        config: TournamentConfig,
        tournament_id: str,
        run_dir: Path,
        live: LiveState,
        *,
        group_size: int,
        counts_sprt: bool,
        on_progress: Callable[[LiveState], None] | None = None,
    ) -> None:
        self._config = config
        self._tournament_id = tournament_id
        self._run_dir = run_dir
        self._live = live
        self._group_size = group_size
        self._counts_sprt = counts_sprt
        self._on_progress = on_progress
        self._store: RunStore | None = None
        self._lock = asyncio.Lock()
        self._bot_versions: dict[str, str] = {}  # what the store holds, written on change only
        self._group_scores: dict[int, dict[int, float]] = {}
        #: Whether a game was not started because of ``[llm] budget_usd``.
        self.budget_reached = False

    @property
    def _opened(self) -> RunStore:
        assert self._store is not None, "the run's store is open only within the run"
        return self._store

    # ------------------------------------------------------------------- the run's store

    def open(self, schedule_total: int) -> bool:
        """Open (or resume) the run's store and count what it holds; True if resumed.

        Call :meth:`close` afterwards, whatever happens.
        """
        store = self._store = RunStore(self._run_dir)
        self._batches = BatchRecorder(store, self._lock)
        config, tournament_id = self._config, self._tournament_id
        try:
            resumed = store.open_tournament(
                tournament_id, config.name, config.to_dict(), config.fingerprint(), schedule_total
            )
        except TournamentMismatchError as error:
            changes = "; ".join(changed_fields(error.stored, config.to_dict()))
            raise StorageError(
                f"{self._run_dir} holds tournament {tournament_id!r} with another "
                f"configuration: {changes or 'its schedule changed'}; run it as it was, or "
                "use another --out directory for the new one"
            ) from None
        if resumed:
            check_commands(store, config, tournament_id, self._run_dir)
        for bot in config.bots:
            store.add_bot(tournament_id, bot.name, bot.command, bot.remote)
        self._restore(store)
        return resumed

    def _restore(self, store: RunStore) -> None:
        """Rebuild the live state from the games already recorded (resume)."""
        self._live.elo = OnlineElo(k=self._config.elo_k)
        if self._counts_sprt:
            self._live.sprt = SprtTest(self._config.sprt)
        for row in store.iter_games(self._tournament_id):
            self.account(row)
        self._live.played_now = 0
        self._live.started_at = time.monotonic()

    def recorded_indices(self) -> set[int]:
        """The schedule positions of the games recorded so far."""
        return self._opened.recorded_indices(self._tournament_id)

    def mark_finished(self) -> None:
        """The run had nothing left to play: its tournament is finished as it stands."""
        self._opened.finish(self._tournament_id)

    def finish(self, *, cancelled: bool) -> None:
        """Store the SPRT's state and the run's end: finished, or cancelled."""
        store = self._opened
        if self._live.sprt is not None:
            store.set_sprt(self._tournament_id, self._live.sprt.decision.value, self._live.sprt.llr)
        store.finish(self._tournament_id, "cancelled" if cancelled else "finished")

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None

    # ------------------------------------------------------------- what the run may do

    def is_finished(self) -> bool:
        """Whether the run is over: the SPRT decided, or every game of its share recorded."""
        sprt = self._live.sprt
        if sprt is not None and sprt.decision is not SprtDecision.CONTINUE:
            return True
        return self._live.done >= self._live.total

    def may_start(self, in_play: int) -> bool:
        """Whether one more game may start, ``in_play`` games being played: the SPRT (if any)
        undecided, and the budget not spent."""
        sprt = self._live.sprt
        if sprt is not None and sprt.decision is not SprtDecision.CONTINUE:
            return False
        return self._within_budget(in_play)

    def awaits_a_cost(self, in_play: int) -> bool:
        """With a budget and no game's cost known yet, one game at a time: the first cost
        recorded is what the budget's estimate starts from."""
        return (
            self._config.llm_budget_usd is not None and self._live.costed_games == 0 and in_play > 0
        )

    def _within_budget(self, in_play: int) -> bool:
        """Whether one more game keeps the language-model seats' cost within the budget: what
        was spent, plus a game's mean cost so far for it and for each game in play."""
        budget = self._config.llm_budget_usd
        if budget is None or self.budget_reached:
            return not self.budget_reached
        live = self._live
        per_game = live.cost_usd / live.costed_games if live.costed_games else 0.0
        expected = live.cost_usd + per_game * (in_play + 1)
        if expected <= budget:
            return True
        self.budget_reached = True
        self.message(
            f"budget reached: ${live.cost_usd:.4f} spent of ${budget:g} (about ${per_game:.4f} "
            "a game); no more games are started. Raise [llm] budget_usd and run again with "
            "--resume to continue"
        )
        log.info("budget reached", cost_usd=live.cost_usd, budget_usd=budget)
        return False

    # ----------------------------------------------------------- messages and incidents

    def message(self, text: str) -> None:
        """A line for the run's display and log."""
        self._live.messages.append(text)
        log.info(text)
        self._notify()

    def incident(self, bot: str, kind: str, detail: str) -> None:
        """Record a bot's incident (a crash, a restart, a sandbox limit) and show it."""
        if self._store is not None:
            self._store.record_incident(self._tournament_id, bot, kind, detail)
        if kind in _COUNTED_INCIDENTS:
            self._live.incidents[bot] = self._live.incidents.get(bot, 0) + 1
        self.message(f"{bot}: {kind}: {detail}")

    def _notify(self) -> None:
        if self._on_progress is not None:
            self._on_progress(self._live)

    # -------------------------------------------------------------------------- games

    async def record_outcome(
        self, game: ScheduledGame, outcome: TableOutcome, void: str = ""
    ) -> GameRow:
        """Record a game played here from its table's outcome, then count it; the row as
        recorded. ``void``: the incidents its bots reported (then recorded as aborted)."""
        store = self._opened
        path = store.replay_path(game.game_id)
        result = outcome.result
        scores = tuple(int(s) for s in result.scores)
        winners = tuple(int(w) for w in result.winners)
        termination = "ABORTED" if void else termination_name(outcome.termination)
        for seat in outcome.seat_stats:
            self.note_bot_version(seat.bot_name, seat.bot_version)
        data = outcome.replay_bytes(compress=path.name.endswith(".gz"))
        incidents = (
            replay_move_incidents(outcome.replay, game.game_id, game.index, game.seat_bots)
            if outcome.has_move_incidents
            else []
        )
        live_sprt = self._live.sprt
        sprt = None if live_sprt is None else (live_sprt.decision.value, live_sprt.llr)
        row = GameRow(
            tournament_id=self._tournament_id,
            index=game.index,
            game_id=game.game_id,
            group=game.group,
            round=game.round,
            seed=game.seed,
            seat_bots=game.seat_bots,
            side_bots=game.side_bots,
            winners=winners,
            scores=scores,
            ranks=ranks_from_result(winners, scores, self._config.ruleset.num_sides),
            termination=termination,
            forfeit_seat=outcome.forfeit_seat,
            detail=f"void (reported incidents): {void}" if void else outcome.detail,
            hands_played=int(result.hands_played),
            duration_s=outcome.duration_s,
            replay_path=str(path.relative_to(store.run_dir)),
            replay_sha256="",  # the digest of ``data``, set as the file is written
            bot_stats=_bot_stats(outcome),
            finished_at=time.time(),
        )
        row = await self._batches.record(path, data, row, incidents, sprt)
        self.account(row)
        self._live.played_now += 1
        self._notify()
        return row

    async def record_played(self, row: GameRow, replay: bytes) -> bool:
        """Record a game played elsewhere (a Ray task): its row and its replay file's bytes,
        then count it.

        A game already recorded (a retried task's duplicate) is skipped: False.
        """
        store = self._opened
        async with self._lock:
            if row.index in store.recorded_indices(self._tournament_id):
                return False
            if hashlib.sha256(replay).hexdigest() != row.replay_sha256:
                raise StorageError(
                    f"game {row.index}: the replay received does not match its SHA-256"
                )
            await asyncio.to_thread(write_bytes_atomically, store.run_dir / row.replay_path, replay)
            row = dataclasses.replace(row, tournament_id=self._tournament_id)
            incidents = replay_move_incidents(
                decode_replay(replay, row.replay_path), row.game_id, row.index, row.seat_bots
            )
            await asyncio.to_thread(store.record_game, row, incidents)
            self.account(row)
            if self._live.sprt is not None:
                store.set_sprt(
                    self._tournament_id, self._live.sprt.decision.value, self._live.sprt.llr
                )
        self._live.played_now += 1
        self._notify()
        return True

    def note_bot_version(self, bot: str, version: str) -> None:
        """Store the version a bot announced when it differs from the last one stored."""
        if version and self._bot_versions.get(bot) != version:
            self._opened.set_bot_version(self._tournament_id, bot, version)
            self._bot_versions[bot] = version

    def account(self, row: GameRow) -> None:
        """Update the live counts, online Elo and SPRT with one recorded game."""
        live = self._live
        live.done += 1
        live.last_game = row
        costs = [stats.ledger.get("cost_usd", 0.0) for stats in row.bot_stats.values()]
        if any(stats.ledger for stats in row.bot_stats.values()):
            live.cost_usd += sum(costs)
            live.costed_games += 1
        score = game_score(row, self._config.ruleset)
        if score is None:
            return
        live.elo.update(score)
        self._count(score)
        if live.sprt is not None:
            self._sprt_add(row, score)

    def _count(self, score: GameScore) -> None:
        live = self._live
        for i, side in enumerate(score.sides):
            for bot in set(side):
                others = [j for j, s in enumerate(score.sides) if j != i and bot not in s]
                if not others:
                    continue
                value = sum(score.side_score(i, j) for j in others) / len(others)
                table = live.wins if value > 0.5 else live.losses if value < 0.5 else live.draws
                table[bot] = table.get(bot, 0) + 1

    def _sprt_add(self, row: GameRow, score: GameScore) -> None:
        sprt = self._live.sprt
        assert sprt is not None
        new_bot = self._config.bots[0].name
        value = 0.5
        for i, side in enumerate(score.sides):
            if new_bot in side:
                others = [j for j, s in enumerate(score.sides) if new_bot not in s]
                if others:
                    value = sum(score.side_score(i, j) for j in others) / len(others)
                break
        value = round(value * 2) / 2
        if self._group_size != 2:
            sprt.add_game(value)
            return
        members = self._group_scores.setdefault(row.group, {})
        members[row.index] = value
        if len(members) == 2:
            first, second = (members[k] for k in sorted(members))
            sprt.add_pair(first, second)
            del self._group_scores[row.group]
