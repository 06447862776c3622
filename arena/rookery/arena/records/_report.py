"""Reports of a run directory as data: the run loaded (:class:`RunData`), report.json, standings.csv
and games.csv, and the values both presenters share (the terminal's tables are the CLI's,
``rookery.cli._report_tables``; report.html is the web's, ``rookery.web``)."""

from __future__ import annotations

import csv
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist
from typing import Any

from rookery.arena._config_model import TournamentConfig
from rookery.arena._config_toml import config_from_dict
from rookery.arena._config_values import Format
from rookery.arena.errors import StorageError
from rookery.arena.records._results import Standing, Summary, los_table, summarize
from rookery.arena.records._storage import DATABASE_NAME, GameRow, RunStore, TournamentRecord
from rookery.arena.stats._ratings import BradleyTerryFit
from rookery.arena.stats._sprt import SprtDecision

__all__ = [
    "LEDGER_COLUMNS",
    "LEDGER_FIELDS",
    "STANDING_COUNTS",
    "RunData",
    "interval_words",
    "ledger_cells",
    "ledger_fields",
    "load_run",
    "points_text",
    "report_dict",
    "sprt_line",
    "standing_cells",
    "summary_for",
    "write_report_data",
]


@dataclass(frozen=True)
class RunData:
    """A run directory's tournament, its configuration, games and summary."""

    run_dir: Path
    tournament: TournamentRecord
    config: TournamentConfig
    games: tuple[GameRow, ...]
    summary: Summary
    #: Every incident of the run's bots: (bot, kind, detail), in order (crashes, restarts and
    #: the sandbox's events: out of memory, too many processes, output cut, CPU time …).
    incidents: tuple[tuple[str, str, str], ...] = field(default=())

    @property
    def replayed_games(self) -> int:
        """How many of the run's games have a replay (the ones ``run_replays`` reads)."""
        return sum(1 for game in self.games if game.replay_path)

    def incident_counts(self) -> dict[str, dict[str, int]]:
        """Per bot, how many incidents of each kind."""
        counts: dict[str, dict[str, int]] = {}
        for bot, kind, _ in self.incidents:
            counts.setdefault(bot, {})
            counts[bot][kind] = counts[bot].get(kind, 0) + 1
        return counts


def summary_for(config: TournamentConfig, store: RunStore, tournament_id: str) -> Summary:
    """Summarize a tournament's recorded games with its configuration's settings."""
    rows = store.games(tournament_id)
    sprt = None
    if config.format is Format.SPRT:
        pair = config.ruleset.num_sides if config.duplicate else 1
        sprt = (config.bots[0].name, config.sprt, pair)
    return summarize(
        rows,
        config.ruleset,
        store.bots(tournament_id),
        elo_k=config.elo_k,
        bootstrap=config.bootstrap,
        seed=config.seed,
        sprt=sprt,
    )


def load_run(run_dir: str | Path, tournament_id: str | None = None) -> RunData:
    """Read a run directory (its only tournament, or ``tournament_id``)."""
    run_dir = Path(run_dir)
    if not (run_dir / DATABASE_NAME).exists():
        raise StorageError(f"{run_dir}: no {DATABASE_NAME}; is this a run directory?")
    with RunStore(run_dir) as store:
        records = store.tournaments()
        if not records:
            raise StorageError(f"{run_dir}: the database holds no tournament")
        record = records[-1] if tournament_id is None else store.tournament(tournament_id)
        config = config_from_dict(record.config, f"{run_dir / DATABASE_NAME}")
        summary = summary_for(config, store, record.tournament_id)
        if summary.sprt is not None and record.sprt_decision:
            # The live run's decision is the one that stopped the match: keep it.
            summary.sprt.decision = SprtDecision(record.sprt_decision)
        games = tuple(store.games(record.tournament_id))
        incidents = tuple((b, k, d) for b, k, d, _ in store.incidents(record.tournament_id))
    return RunData(run_dir, record, config, games, summary, incidents)


def ledger_fields(standing: Standing) -> dict[str, float | None]:
    """A standing's language-model ledger, flat (``None`` each for a bot with no ledger)."""
    led = standing.ledger
    if led is None:
        return dict.fromkeys(LEDGER_FIELDS)
    return {
        "decisions": led.decisions,
        "attempts": led.attempts,
        "invalid_replies": led.invalid_replies,
        "invalid_reply_rate": led.invalid_reply_rate,
        "durability": led.durability,
        "provider_errors": led.provider_errors,
        "prompt_tokens": led.prompt_tokens,
        "completion_tokens": led.completion_tokens,
        "cost_usd": led.cost_usd,
        "mean_latency_ms": led.mean_latency_ms,
    }


#: The language-model ledger's fields in report.json's and standings.csv's standings.
LEDGER_FIELDS = (
    "decisions",
    "attempts",
    "invalid_replies",
    "invalid_reply_rate",
    "durability",
    "provider_errors",
    "prompt_tokens",
    "completion_tokens",
    "cost_usd",
    "mean_latency_ms",
)


def ledger_cells(standing: Standing) -> list[str]:
    """The ledger columns of a standings row (blank for a bot with no ledger)."""
    led = standing.ledger
    if led is None:
        return [""] * 6
    return [
        f"{led.prompt_tokens:,}/{led.completion_tokens:,}",
        f"{led.cost_usd:.4f}",
        f"{led.mean_latency_ms:.0f}",
        f"{led.invalid_replies}",
        f"{led.invalid_reply_rate:.1%}",
        f"{led.durability:.1f}",
    ]


#: The headers of a standings row's language-model ledger cells (:func:`ledger_cells`).
LEDGER_COLUMNS = ("tokens", "$", "latency ms", "invalid", "invalid rate", "durability")


def standing_cells(standing: Standing) -> dict[str, str]:
    """A standings row's values as text, by column: the terminal's table and the page's pick
    theirs from these, so a value is formatted in one place."""
    s = standing
    return {
        "elo": f"{s.elo:+.0f}",
        "elo_error": f"{s.elo_error:.0f}",
        "interval": f"[{s.elo_lower:+.0f}, {s.elo_upper:+.0f}]",
        "los": "" if s.los_next is None else f"{100 * s.los_next:.0f}%",
        "games": str(s.games),
        "wins": str(s.wins),
        "losses": str(s.losses),
        "draws": str(s.draws),
        "points": f"{s.point_difference:+d}",
        "think_ms": f"{s.think_ms_mean:.1f}",
        "timeouts": str(s.timeouts),
        "crashes": str(s.crashes),
        "illegal": str(s.illegal_replies),
        "fallbacks": str(s.fallbacks),
    }


#: The columns both standings tables show after the rank, the bot and its rating, in order.
STANDING_COUNTS = (
    "games",
    "wins",
    "losses",
    "draws",
    "points",
    "think_ms",
    "timeouts",
    "crashes",
    "illegal",
    "fallbacks",
)


def points_text(points: float, games: int) -> str:
    """Points out of games, as the crosstables show them (``3.5/6``)."""
    text = f"{points:g}"
    return f"{text}/{games}"


def interval_words(fit: BradleyTerryFit) -> str:
    """Which interval the ± is, in words."""
    if fit.interval == "pair bootstrap":
        return (
            f"pair bootstrap: ± {NormalDist().inv_cdf(0.5 + fit.confidence / 2):.2f} standard "
            f"deviations of {fit.bootstrap} refits on the {fit.groups} duplicate groups resampled "
            "whole"
        )
    return "asymptotic normal interval (too few duplicate groups to resample)"


def sprt_line(summary: Summary, config: TournamentConfig) -> str:
    """One line about the SPRT: decision, LLR and bounds, Elo estimate, pentanomial."""
    test = summary.sprt
    if test is None:
        return ""
    p = test.params
    estimate = test.estimate()
    decision = test.decision.value or "inconclusive so far"
    counts = "pentanomial " if test.uses_pairs else "trinomial "
    counts += str(test.counts)
    return (
        f"SPRT {config.bots[0].name} vs {config.bots[1].name} "
        f"[elo0={p.elo0:g}, elo1={p.elo1:g}, alpha={p.alpha:g}, beta={p.beta:g}, {p.model}]: "
        f"{decision}; LLR {test.llr:.2f} in ({p.lower_bound:.2f}, {p.upper_bound:.2f}); "
        f"Elo {estimate.elo:+.1f} [{estimate.lower:+.1f}, {estimate.upper:+.1f}] "
        f"({estimate.method}); {test.games} games; {counts}"
    )


def report_dict(data: RunData) -> dict[str, Any]:
    """Everything of the report as JSON-able data."""
    summary = data.summary
    standings = {s.name: s for s in summary.standings}
    sprt: dict[str, Any] | None = None
    if summary.sprt is not None:
        estimate = summary.sprt.estimate()
        error = estimate.error
        sprt = {
            "decision": summary.sprt.decision.value,
            "llr": summary.sprt.llr,
            "lower_bound": summary.sprt.params.lower_bound,
            "upper_bound": summary.sprt.params.upper_bound,
            "pentanomial": summary.sprt.pentanomial,
            "trinomial": summary.sprt.trinomial,
            "elo": estimate.elo,
            "elo_error": error if math.isfinite(error) else None,
            "elo_lower": estimate.lower if math.isfinite(estimate.lower) else None,
            "elo_upper": estimate.upper if math.isfinite(estimate.upper) else None,
            "elo_method": estimate.method,
            "overshoot": [summary.sprt.overshoot.lower, summary.sprt.overshoot.upper],
        }
    return {
        "tournament": {
            "id": data.tournament.tournament_id,
            "name": data.tournament.name,
            "status": data.tournament.status,
            "games_total": data.tournament.games_total,
            "created_at": data.tournament.created_at,
            "finished_at": data.tournament.finished_at,
        },
        "config": data.tournament.config,
        "games": summary.games,
        "aborted": summary.aborted,
        "terminations": summary.terminations,
        "ratings": {
            "model": "Bradley-Terry maximum likelihood, Elo scale, field mean 0",
            "bootstrap": summary.fit.bootstrap,
            "groups": summary.fit.groups,
            "confidence": summary.fit.confidence,
            "interval": summary.fit.interval,
        },
        "standings": [
            {
                "rank": rank,
                "bot": s.name,
                "version": s.version,
                "elo": s.elo,
                "elo_lower": s.elo_lower,
                "elo_upper": s.elo_upper,
                "elo_error": s.elo_error,
                "online_elo": s.online_elo,
                "los_next": s.los_next,
                "games": s.games,
                "wins": s.wins,
                "losses": s.losses,
                "draws": s.draws,
                "aborted": s.aborted,
                "point_difference": s.point_difference,
                "think_ms_mean": s.think_ms_mean,
                "think_ms_max": s.think_ms_max,
                "timeouts": s.timeouts,
                "auto_plays": s.auto_plays,
                "crashes": s.crashes,
                "illegal_replies": s.illegal_replies,
                "fallbacks": s.fallbacks,
                "team_mu": s.team_mu,
                "team_sigma": s.team_sigma,
            }
            | {f"llm_{name}": value for name, value in ledger_fields(s).items()}
            for rank, s in enumerate(summary.standings, 1)
        ],
        "incidents": data.incident_counts(),
        "crosstable": {
            a: {
                b: {
                    "points": e.points,
                    "games": e.games,
                    "wins": e.wins,
                    "losses": e.losses,
                    "draws": e.draws,
                }
                for b, e in row.items()
            }
            for a, row in summary.crosstable.items()
        },
        "los": {f"{a}>{b}": v for (a, b), v in los_table(summary.fit, standings).items()},
        "sprt": sprt,
    }


_GAME_COLUMNS = [
    "game_id",
    "index",
    "pair",
    "round",
    "seed",
    "seats",
    "winners",
    "scores",
    "termination",
    "forfeit_seat",
    "detail",
    "hands",
    "duration_s",
    "replay",
    "replay_sha256",
]


def _write_csvs(data: RunData) -> tuple[Path, Path]:
    standings_path = data.run_dir / "standings.csv"
    report = report_dict(data)
    with standings_path.open("w", newline="", encoding="utf-8") as handle:
        fields = list(report["standings"][0]) if report["standings"] else ["rank", "bot"]
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        writer.writerows(report["standings"])
    games_path = data.run_dir / "games.csv"
    with games_path.open("w", newline="", encoding="utf-8") as handle:
        writer2 = csv.writer(handle)
        writer2.writerow(_GAME_COLUMNS)
        for g in data.games:
            writer2.writerow(
                [
                    g.game_id,
                    g.index,
                    g.group,
                    g.round,
                    g.seed,
                    " ".join(g.seat_bots),
                    " ".join(map(str, g.winners)),
                    " ".join(map(str, g.scores)),
                    g.termination,
                    g.forfeit_seat,
                    g.detail,
                    g.hands_played,
                    f"{g.duration_s:.3f}",
                    g.replay_path,
                    g.replay_sha256,
                ]
            )
    return standings_path, games_path


def write_report_data(data: RunData) -> list[Path]:
    """Write report.json, standings.csv and games.csv into the run directory."""
    json_path = data.run_dir / "report.json"
    json_path.write_text(json.dumps(report_dict(data), indent=2, sort_keys=False) + "\n")
    standings_path, games_path = _write_csvs(data)
    return [json_path, standings_path, games_path]
