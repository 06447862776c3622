"""Self-play: seeded random legal players, one replay file per game.

Game ``i`` (from 0) of a run seeded ``S`` is dealt from seed ``(S + i) mod 2**64`` and its players
draw from ``random.Random(that seed)``, so a run is reproducible game by game. The players are
uniform over the legal actions, except in the auction: there they pass half the time and
otherwise make the lowest legal bid, so that games end by reaching the target rather than by
``max_hands`` after endless overbidding.
"""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from rookery.engine import Action, LegalActions, Ruleset
from rookery.engine.testing import lowest_bid_or_sample
from rookery.v1 import replay_pb2

from .convert import termination_name
from .replay import ActionOutcome, ReplayBuilder, write_replay
from .version import rookery_version

__all__ = ["SelfplaySummary", "play_random_game", "random_action", "run_selfplay"]

_SEED_LIMIT = 1 << 64


def random_action(legal: LegalActions, rng: random.Random) -> Action:
    """A random legal action; in the auction: pass, or make the lowest bid (even odds).

    The engine's random player, ``rookery.engine.testing.lowest_bid_or_sample``.
    """
    return lowest_bid_or_sample(legal, rng)


def _server_version() -> str:
    return f"rookery {rookery_version()}"


def play_random_game(
    ruleset: Ruleset, seed: int, *, table_id: str = "", start_time: datetime | None = None
) -> replay_pb2.Replay:
    """Play one game of random legal players dealt from ``seed``; its complete replay."""
    rng = random.Random(seed)
    builder = ReplayBuilder()
    builder.start(
        ruleset,
        seed,
        seats=[(f"random-{seat}", "1") for seat in range(ruleset.players)],
        start_time=start_time or datetime.now(UTC),
        server_version=_server_version(),
        table_id=table_id,
    )
    game = builder.game
    while not game.is_over:
        seat = game.current_player
        assert seat is not None
        began = time.perf_counter()
        action = random_action(game.legal_actions(), rng)
        think_ms = int((time.perf_counter() - began) * 1000)
        builder.record_action(seat, action, think_ms, ActionOutcome.ACCEPTED)
    builder.finish()
    return builder.replay()


@dataclass
class SelfplaySummary:
    """What a self-play run produced."""

    preset: str
    games: int = 0
    hands: int = 0
    actions: int = 0
    wins: Counter[int] = field(default_factory=Counter)
    draws: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    files: list[Path] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The summary as text lines for people."""
        per_game = self.hands / self.games if self.games else 0.0
        wins = ", ".join(f"side {side}: {count}" for side, count in sorted(self.wins.items()))
        reasons = ", ".join(f"{name}: {count}" for name, count in sorted(self.reasons.items()))
        rate = self.hands / self.seconds if self.seconds > 0 else 0.0
        return [
            f"{self.games} games of {self.preset}: {self.hands} hands "
            f"({per_game:.1f} per game), {self.actions} actions, "
            f"{self.seconds:.2f} s ({rate:.0f} hands/s)",
            f"wins: {wins or 'none'}; draws: {self.draws}",
            f"ended by: {reasons or 'nothing'}",
            f"replays: {self.files[0].parent if self.files else '-'}"
            + (f" ({self.files[0].name} … {self.files[-1].name})" if self.files else ""),
        ]


def run_selfplay(
    ruleset: Ruleset,
    games: int,
    seed: int,
    out_dir: Path,
    *,
    on_game: Callable[[int, Path], None] | None = None,
) -> SelfplaySummary:
    """Play ``games`` random games and write ``out_dir/game-0001.jsonl.gz`` … (one per game)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    summary = SelfplaySummary(ruleset.name)
    began = time.perf_counter()
    for index in range(games):
        game_seed = (seed + index) % _SEED_LIMIT
        path = out_dir / f"game-{index + 1:04d}.jsonl.gz"
        replay = play_random_game(ruleset, game_seed, table_id=f"selfplay-{index + 1:04d}")
        write_replay(path, replay)
        summary.games += 1
        summary.hands += len(replay.hands)
        summary.actions += sum(len(hand.actions) for hand in replay.hands)
        if replay.result.winners:
            summary.wins.update(replay.result.winners)
        else:
            summary.draws += 1
        reason = termination_name(replay.result.reason).lower()
        summary.reasons[reason] += 1
        summary.files.append(path)
        if on_game is not None:
            on_game(index, path)
    summary.seconds = time.perf_counter() - began
    return summary
