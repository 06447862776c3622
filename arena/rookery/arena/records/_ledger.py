"""The ledger of language-model seats, per bot, from the replays their moves are recorded in.

The arena keeps it with each game it records (summed in the standings and reports), and
``rookery llm ledger RUN_DIR`` reads it from a run's replays. Every move a text seat sends carries
its decision's counts in its note (``rookery.envs.seat``: attempts, invalid replies, provider
errors, tokens, cost, latency, and the sums of the decisions it gave no move since its previous
reply); a decision it gave no move is in the replay as the server's ``AUTO_PLAYED`` move.
:func:`ledger_of` adds them up per bot, beside what a standings table shows of strength: tokens,
cost, mean latency, invalid-reply rate and durability (the decisions a seat makes before its
first invalid reply or missed move).

A game carries a ledger only when a seat noted its counts. A seat's last decisions given no move
before its game ended (a forfeit by strikes) have no later reply to carry their counts: they
count as decisions and misses, not as attempts or tokens.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from rookery.v1 import notes_pb2, replay_pb2
from rookery.wire.notes import LEDGER_VALUES
from rookery.wire.replay import read_replay

__all__ = ["BotLedger", "format_ledger", "ledger_of", "run_ledger"]

_COUNTS = LEDGER_VALUES


_FLOATS = frozenset({"cost_usd", "latency_ms_total"})


@dataclass(frozen=True)
class BotLedger:
    """What one bot's language-model seats did and cost over some games."""

    bot: str
    games: int = 0
    decisions: int = 0
    #: Decisions given no move: the table's late policy played them.
    missed: int = 0
    attempts: int = 0
    invalid_replies: int = 0
    provider_errors: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    latency_ms_total: float = 0.0
    #: Per seat and game, the decisions before the first invalid reply or miss (all, if none).
    durability_total: int = 0
    seat_games: int = 0

    @property
    def invalid_reply_rate(self) -> float:
        """Invalid replies per request made."""
        return self.invalid_replies / self.attempts if self.attempts else 0.0

    @property
    def mean_latency_ms(self) -> float:
        """Mean time per answered decision, in milliseconds."""
        answered = self.decisions - self.missed
        return self.latency_ms_total / answered if answered else 0.0

    @property
    def durability(self) -> float:
        """Mean decisions a seat made, in a game, before its first invalid reply or miss."""
        return self.durability_total / self.seat_games if self.seat_games else 0.0

    def to_dict(self) -> dict[str, float]:
        """The counts as stored with a game (the bot's name left out)."""
        return {f.name: getattr(self, f.name) for f in fields(self)[1:]}

    @classmethod
    def from_dict(cls, bot: str, data: Mapping[str, float]) -> BotLedger:
        """The inverse of :meth:`to_dict` (unknown names ignored, missing ones 0)."""
        values: dict[str, Any] = {}
        for f in fields(cls)[1:]:
            value = data.get(f.name, 0)
            values[f.name] = float(value) if f.name in _FLOATS else int(value)
        return cls(bot, **values)

    def __add__(self, other: BotLedger) -> BotLedger:
        if other.bot != self.bot:
            raise ValueError(f"cannot add the ledgers of {self.bot!r} and {other.bot!r}")
        sums = {f.name: getattr(self, f.name) + getattr(other, f.name) for f in fields(self)[1:]}
        return replace(self, **sums)


def _value(note: notes_pb2.BotNote, name: str) -> float:
    value = note.values.get(name, 0.0)
    return value if math.isfinite(value) and value >= 0 else 0.0


def _seat_ledger(bot: str, actions: list[replay_pb2.ReplayAction]) -> BotLedger | None:
    """One seat's ledger in one game; ``None`` when the seat is no language-model seat."""
    accepted = replay_pb2.ACTION_OUTCOME_ACCEPTED
    missed = replay_pb2.ACTION_OUTCOME_AUTO_PLAYED
    if not any(a.outcome == accepted and "attempts" in a.note.values for a in actions):
        return None
    counts = dict.fromkeys(_COUNTS, 0.0)
    latency = 0.0
    durability = -1
    decisions = misses = 0
    for action in actions:
        if action.outcome not in (accepted, missed):
            continue
        if durability < 0 and (
            action.outcome == missed or _value(action.note, "invalid_replies") > 0
        ):
            durability = decisions
        decisions += 1
        if action.outcome == missed:
            misses += 1
            continue
        for name in _COUNTS:
            counts[name] += _value(action.note, name) + _value(action.note, f"unanswered_{name}")
        latency += _value(action.note, "latency_ms")
    return BotLedger(
        bot,
        games=1,
        decisions=decisions,
        missed=misses,
        attempts=round(counts["attempts"]),
        invalid_replies=round(counts["invalid_replies"]),
        provider_errors=round(counts["provider_errors"]),
        prompt_tokens=round(counts["prompt_tokens"]),
        completion_tokens=round(counts["completion_tokens"]),
        cost_usd=counts["cost_usd"],
        latency_ms_total=latency,
        durability_total=decisions if durability < 0 else durability,
        seat_games=1,
    )


def ledger_of(replays: Iterable[replay_pb2.Replay]) -> dict[str, BotLedger]:
    """Per bot, the ledger of its language-model seats over ``replays`` (other bots left out)."""
    ledgers: dict[str, BotLedger] = {}
    for replay in replays:
        in_game: dict[str, BotLedger] = {}
        for seat, info in enumerate(replay.header.seats):
            actions = [a for hand in replay.hands for a in hand.actions if a.seat == seat]
            ledger = _seat_ledger(info.bot_name, actions)
            if ledger is None:
                continue
            if info.bot_name in in_game:  # a bot at two seats plays one game
                ledger = replace(ledger, games=0)
                in_game[info.bot_name] = in_game[info.bot_name] + ledger
            else:
                in_game[info.bot_name] = ledger
        for bot, ledger in in_game.items():
            ledgers[bot] = ledgers[bot] + ledger if bot in ledgers else ledger
    return ledgers


def run_ledger(run_dir: str | Path) -> dict[str, BotLedger]:
    """The ledger of every replay an arena run directory holds (``RUN_DIR/replays``)."""
    folder = Path(run_dir) / "replays"
    if not folder.is_dir():
        raise FileNotFoundError(f"{run_dir} has no replays/ folder: is it an arena run directory?")
    paths = sorted(p for p in folder.iterdir() if p.name.endswith((".jsonl", ".jsonl.gz")))
    return ledger_of(read_replay(path) for path in paths)


def format_ledger(ledgers: Mapping[str, BotLedger]) -> str:
    """The ledger as a text table, one line per bot."""
    header = (
        f"{'bot':<16} {'games':>5} {'decisions':>9} {'missed':>6} {'attempts':>8} "
        f"{'invalid':>7} {'rate':>6} {'provider':>8} {'durability':>10} {'tokens in':>10} "
        f"{'tokens out':>10} {'cost $':>9} {'latency ms':>10}"
    )
    lines = [header]
    for bot in sorted(ledgers):
        led = ledgers[bot]
        lines.append(
            f"{bot[:16]:<16} {led.games:>5} {led.decisions:>9} {led.missed:>6} "
            f"{led.attempts:>8} {led.invalid_replies:>7} {led.invalid_reply_rate:>6.1%} "
            f"{led.provider_errors:>8} {led.durability:>10.1f} {led.prompt_tokens:>10} "
            f"{led.completion_tokens:>10} {led.cost_usd:>9.4f} {led.mean_latency_ms:>10.0f}"
        )
    return "\n".join(lines)
