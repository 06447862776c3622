"""The one place a game becomes durable and counted.

A game played here (a table's outcome) or elsewhere (a Ray task's row and replay bytes) is
written (its replay file, its row and move incidents, in :class:`BatchRecorder`'s batches) and
only then counted: the live wins, losses and draws, the online Elo, the language-model cost and
the SPRT. A resumed run counts the games already recorded the same way.
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import time

from rookery.arena._config_model import TournamentConfig
from rookery.arena.errors import StorageError
from rookery.arena.records._ledger import ledger_of
from rookery.arena.records._move_incidents import replay_move_incidents
from rookery.arena.records._results import game_score
from rookery.arena.records._storage import (
    BotGameStats,
    GameRow,
    RunStore,
    write_bytes_atomically,
)
from rookery.arena.run._live import LiveState
from rookery.arena.run._recording import BatchRecorder
from rookery.arena.run._schedule import ScheduledGame
from rookery.arena.stats._ratings import GameScore, ranks_from_result
from rookery.server import TableOutcome
from rookery.wire.convert import termination_name
from rookery.wire.replay import decode_replay

__all__ = ["GameRecorder"]


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
    """Records the games of tournament ``tournament_id`` into ``store`` and counts them in
    ``live`` (``group_size``: the schedule's; pairs of a duplicate group feed the SPRT as pairs)."""

    def __init__(
        self,
        config: TournamentConfig,
        tournament_id: str,
        group_size: int,
        store: RunStore,
        live: LiveState,
    ) -> None:
        self._config = config
        self._tournament_id = tournament_id
        self._group_size = group_size
        self._store = store
        self._live = live
        self._lock = asyncio.Lock()
        self._batches = BatchRecorder(store, self._lock)
        self._bot_versions: dict[str, str] = {}  # what the store holds, written on change only
        self._group_scores: dict[int, dict[int, float]] = {}

    async def record_outcome(
        self, game: ScheduledGame, outcome: TableOutcome, void: str = ""
    ) -> GameRow:
        """Record a game played here from its table's outcome, then count it; the row as
        recorded. ``void``: the incidents its bots reported (then recorded as aborted)."""
        store = self._store
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
        return row

    async def record_played(self, row: GameRow, replay: bytes) -> bool:
        """Record a game played elsewhere (a Ray task): its row and its replay file's bytes,
        then count it.

        A game already recorded (a retried task's duplicate) is skipped: False.
        """
        store = self._store
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
        return True

    def note_bot_version(self, bot: str, version: str) -> None:
        """Store the version a bot announced when it differs from the last one stored."""
        if version and self._bot_versions.get(bot) != version:
            self._store.set_bot_version(self._tournament_id, bot, version)
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
