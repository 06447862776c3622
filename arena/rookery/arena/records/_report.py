"""Reports of a run directory: terminal tables, report.json, standings.csv, games.csv and a
self-contained report.html (inline CSS and SVG, no external assets)."""

from __future__ import annotations

import csv
import html
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import NormalDist
from typing import Any

from rich.table import Table
from rookery.arena.config import Format, TournamentConfig, config_from_dict
from rookery.arena.errors import StorageError
from rookery.arena.records._results import Standing, Summary, los_table, rating_history, summarize
from rookery.arena.records._storage import DATABASE_NAME, GameRow, RunStore, TournamentRecord
from rookery.arena.stats._ratings import BradleyTerryFit
from rookery.arena.stats._sprt import SprtDecision

__all__ = [
    "LEDGER_FIELDS",
    "RunData",
    "crosstable_table",
    "incidents_table",
    "ledger_fields",
    "load_run",
    "render_html",
    "report_dict",
    "sprt_line",
    "standings_table",
    "summary_for",
    "write_report",
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


def _fmt_elo(value: float) -> str:
    return f"{value:+.0f}"


_CAPTION = (
    "Elo: Bradley-Terry, field mean 0, ± 95 % ({interval}); LOS: P(stronger than the next); "
    "G/W/L/D: games; pts: point difference; ms: mean think time; late: timeouts; crash: its "
    "processes' exits in play (a remote bot: its disconnects); fallback: moves "
    "the bot's SDK made for its failed code (rookery arena incidents RUN_DIR lists each)"
)

_LEDGER_CAPTION = (
    "; language models: tokens in/out, cost in US dollars, mean latency, invalid replies "
    "(counted in illegal) per request, durability: decisions a game before the first invalid "
    "reply or miss"
)


def ledger_fields(standing: Standing) -> dict[str, Any]:
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


def _ledger_cells(standing: Standing) -> list[str]:
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


_LEDGER_COLUMNS = ("tokens", "$", "latency ms", "invalid", "invalid rate", "durability")


def standings_table(summary: Summary, title: str = "Standings") -> Table:
    """The standings as a rich table."""
    with_ledger = any(s.ledger is not None for s in summary.standings)
    table = Table(
        title=title,
        title_justify="left",
        caption=_CAPTION.format(interval=summary.fit.interval)
        + (_LEDGER_CAPTION if with_ledger else ""),
        caption_justify="left",
    )
    for column, justify in (
        ("#", "right"),
        ("bot", "left"),
        ("Elo", "right"),
        ("±", "right"),
        ("LOS", "right"),
        ("G", "right"),
        ("W", "right"),
        ("L", "right"),
        ("D", "right"),
        ("pts", "right"),
        ("ms", "right"),
        ("late", "right"),
        ("crash", "right"),
        ("illegal", "right"),
        ("fallback", "right"),
        *((column, "right") for column in (_LEDGER_COLUMNS if with_ledger else ())),
    ):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for rank, s in enumerate(summary.standings, 1):
        table.add_row(
            str(rank),
            s.name,
            _fmt_elo(s.elo),
            f"{s.elo_error:.0f}",
            "" if s.los_next is None else f"{100 * s.los_next:.0f}%",
            str(s.games),
            str(s.wins),
            str(s.losses),
            str(s.draws),
            f"{s.point_difference:+d}",
            f"{s.think_ms_mean:.1f}",
            str(s.timeouts),
            str(s.crashes),
            str(s.illegal_replies),
            str(s.fallbacks),
            *(_ledger_cells(s) if with_ledger else ()),
        )
    return table


def incidents_table(data: RunData) -> Table | None:
    """Each bot's incidents by kind, with an example (None when there were none)."""
    if not data.incidents:
        return None
    table = Table(title="Incidents", title_justify="left")
    for column in ("bot", "kind", "count", "first"):
        table.add_column(column)
    first: dict[tuple[str, str], str] = {}
    for bot, kind, detail in data.incidents:
        first.setdefault((bot, kind), detail)
    for bot, kinds in data.incident_counts().items():
        for kind, count in sorted(kinds.items()):
            table.add_row(bot, kind, str(count), first[(bot, kind)][:70])
    return table


def crosstable_table(summary: Summary) -> Table:
    """Points of the row bot against the column bot, out of their games together."""
    names = [s.name for s in summary.standings]
    table = Table(title="Crosstable: row's points / games", title_justify="left")
    table.add_column("bot")
    for name in names:
        table.add_column(name, justify="right")
    for a in names:
        cells = []
        for b in names:
            entry = summary.crosstable.get(a, {}).get(b)
            cells.append(
                "—" if a == b else "" if entry is None else _points(entry.points, entry.games)
            )
        table.add_row(a, *cells)
    return table


def _points(points: float, games: int) -> str:
    text = f"{points:g}"
    return f"{text}/{games}"


def _interval_words(fit: BradleyTerryFit) -> str:
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


_PALETTE = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"]


def spread_labels(ys: Sequence[float], gap: float, low: float, high: float) -> list[float]:
    """Label heights near ``ys`` (in order) at least ``gap`` apart, inside [low, high]: the
    end labels of a chart's lines, which overlap where the lines end close together."""
    order = sorted(range(len(ys)), key=lambda i: ys[i])
    placed = [0.0] * len(ys)
    previous = low - gap
    for i in order:
        placed[i] = max(ys[i], previous + gap)
        previous = placed[i]
    overflow = previous - high
    if overflow > 0:  # pushed past the bottom: shift the stack up, never past the top
        for i in order:
            placed[i] = max(low, placed[i] - overflow)
    return placed


def _nice_ticks(low: float, high: float, count: int = 5) -> list[float]:
    """Round tick values covering [low, high] (about ``count`` of them)."""
    raw = (high - low) / max(1, count - 1)
    magnitude = 10 ** math.floor(math.log10(raw)) if raw > 0 else 1
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    first = math.ceil(low / step) * step
    return [first + i * step for i in range(int((high - first) // step) + 1)]


def rating_chart_svg(
    history: Sequence[tuple[int, Mapping[str, float]]],
    names: Sequence[str],
    width: int = 720,
    height: int = 300,
) -> str:
    """The leaderboard's Elo of every bot over the games (``rating_history``), as an inline
    SVG line chart that scales to its container."""
    if not history or not names:
        return "<p>No rated games yet.</p>"
    values = [v for _, point in history for v in point.values()]
    low, high = min(values + [0.0]), max(values + [0.0])
    if high - low < 20:
        low, high = low - 10, high + 10
    left, right, top, bottom = 50, 150, 15, 42
    plot_w, plot_h = width - left - right, height - top - bottom
    n = len(history)
    games = [index + 1 for index, _ in history]

    def x(i: int) -> float:
        return left + (plot_w * i / max(1, n - 1))

    def y(v: float) -> float:
        return top + plot_h * (high - v) / (high - low)

    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'style="width:100%;max-width:{width}px;height:auto" role="img" '
        'aria-label="Elo of each bot after each game, as in the standings">',
        f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="#fafafa" '
        'stroke="#ccc"/>',
        f'<line x1="{left}" x2="{left + plot_w}" y1="{y(0):.1f}" y2="{y(0):.1f}" '
        'stroke="#999" stroke-dasharray="4 3"/>',
    ]
    for tick in _nice_ticks(low, high):
        parts.append(
            f'<text x="{left - 6}" y="{y(tick) + 4:.1f}" font-size="11" text-anchor="end">'
            f"{tick:+.0f}</text>"
        )
    for i in sorted({0, n // 2, n - 1}):
        parts.append(
            f'<text x="{x(i):.1f}" y="{top + plot_h + 14}" font-size="11" '
            f'text-anchor="middle">{games[i]}</text>'
        )
    parts.append(
        f'<text x="{left + plot_w / 2:.0f}" y="{height - 6}" font-size="11" '
        'text-anchor="middle">Elo (Bradley–Terry, as in the standings) after each number of '
        "games</text>"
    )
    ends = [y(history[-1][1].get(name, 0.0)) + 4 for name in names]
    labels = spread_labels(ends, 14, top + 8, top + plot_h)
    for k, name in enumerate(names):
        colour = _PALETTE[k % len(_PALETTE)]
        points = " ".join(
            f"{x(i):.1f},{y(point.get(name, 0.0)):.1f}" for i, (_, point) in enumerate(history)
        )
        parts.append(
            f'<polyline fill="none" stroke="{colour}" stroke-width="1.8" points="{points}"/>'
        )
        last = history[-1][1].get(name, 0.0)
        label = name if len(name) <= 18 else name[:17] + "…"
        parts.append(
            f'<text x="{left + plot_w + 6}" y="{labels[k]:.1f}" font-size="12" '
            f'fill="{colour}">{html.escape(label)} {last:+.0f}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


_CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:2rem;color:#222}
h1{margin-bottom:.2rem} .meta{color:#666;margin-top:0}
table{border-collapse:collapse;margin:1rem 0}
th,td{padding:.3rem .6rem;border-bottom:1px solid #ddd}
th{background:#f3f3f3;text-align:left} td.n{text-align:right;font-variant-numeric:tabular-nums}
.sprt{padding:.6rem 1rem;background:#eef6ff;border-left:4px solid #1f77b4}
.scroll{overflow-x:auto;max-width:100%}
@media (max-width:600px){body{margin:.8rem}}
"""


def _incidents_html(data: RunData) -> str:
    if not data.incidents:
        return ""
    esc = html.escape
    first: dict[tuple[str, str], str] = {}
    for bot, kind, detail in data.incidents:
        first.setdefault((bot, kind), detail)
    rows = "".join(
        f"<tr><td>{esc(bot)}</td><td>{esc(kind)}</td><td class=n>{count}</td>"
        f"<td>{esc(first[(bot, kind)])}</td></tr>"
        for bot, kinds in data.incident_counts().items()
        for kind, count in sorted(kinds.items())
    )
    return (
        '<h2>Incidents</h2>\n<p class="meta">Crashes, restarts and the sandbox\'s events (see '
        "docs/security.md), per bot; the first of each kind.</p>\n"
        "<table><tr><th>bot</th><th>kind</th><th>count</th><th>first</th></tr>"
        f"{rows}</table>"
    )


_LEDGER_NOTE = (
    " Language models: tokens in/out, cost in US dollars, mean latency per answered decision,"
    " invalid replies (re-prompted, counted in illegal) and their rate per request, durability:"
    " decisions a game before the first invalid reply or miss."
)


def render_html(data: RunData) -> str:
    """The whole report as one self-contained HTML page."""
    summary = data.summary
    esc = html.escape
    rows = []
    with_ledger = any(s.ledger is not None for s in summary.standings)
    for rank, s in enumerate(summary.standings, 1):
        los = "" if s.los_next is None else f"{100 * s.los_next:.0f}%"
        cells = [
            str(rank),
            esc(s.name + (f" {s.version}" if s.version else "")),
            f"{s.elo:+.0f}",
            f"± {s.elo_error:.0f}",
            f"[{s.elo_lower:+.0f}, {s.elo_upper:+.0f}]",
            los,
            str(s.games),
            str(s.wins),
            str(s.losses),
            str(s.draws),
            f"{s.point_difference:+d}",
            f"{s.think_ms_mean:.1f}",
            str(s.timeouts),
            str(s.crashes),
            str(s.illegal_replies),
            str(s.fallbacks),
            *(_ledger_cells(s) if with_ledger else ()),
        ]
        rows.append(
            "<tr>"
            + "".join(f"<td{' class=n' if i != 1 else ''}>{c}</td>" for i, c in enumerate(cells))
            + "</tr>"
        )
    head = (
        "<tr><th>#</th><th>bot</th><th>Elo</th><th>±</th><th>95 % interval</th><th>LOS</th>"
        "<th>games</th><th>W</th><th>L</th><th>D</th><th>point diff</th><th>think ms</th>"
        "<th>timeouts</th><th>crashes</th><th>illegal</th><th>fallbacks</th>"
        + "".join(f"<th>{esc(c)}</th>" for c in (_LEDGER_COLUMNS if with_ledger else ()))
        + "</tr>"
    )
    names = [s.name for s in summary.standings]
    cross_rows = []
    for a in names:
        cells = []
        for b in names:
            entry = summary.crosstable.get(a, {}).get(b)
            if a == b:
                cells.append("<td class=n>—</td>")
            elif entry is None:
                cells.append("<td></td>")
            else:
                title = f"{entry.wins} W, {entry.losses} L, {entry.draws} D"
                cells.append(
                    f'<td class=n title="{title}">{_points(entry.points, entry.games)}</td>'
                )
        cross_rows.append(f"<tr><th>{esc(a)}</th>{''.join(cells)}</tr>")
    cross_head = "<tr><th></th>" + "".join(f"<th>{esc(n)}</th>" for n in names) + "</tr>"
    sprt = sprt_line(summary, data.config)
    terminations = ", ".join(f"{k.lower()}: {v}" for k, v in sorted(summary.terminations.items()))
    config = data.config
    ruleset = config.ruleset
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{esc(data.tournament.name)} — Rookery arena report</title>
<style>{_CSS}</style></head>
<body>
<h1>{esc(data.tournament.name)}</h1>
<p class="meta">{esc(config.format.value)} · ruleset {esc(ruleset.name)} (target {ruleset.target})
· {summary.games} games ({esc(terminations)}) · duplicate {"on" if config.duplicate else "off"}
· seed {config.seed} · status {esc(data.tournament.status)}</p>
{f'<p class="sprt">{esc(sprt)}</p>' if sprt else ""}
<p>The pages of this run, with every game and its replay: <a id="web-pages"
href="web/index.html">web/index.html</a> (written next to this report by <code>rookery
arena run</code> and <code>rookery arena report</code>).</p>
<h2>Standings</h2>
<div class="scroll"><table>{head}{"".join(rows)}</table></div>
<p class="meta">Elo: maximum-likelihood Bradley–Terry over all games, field mean 0; intervals:
{summary.fit.confidence:.0%} {_interval_words(summary.fit)}. LOS: likelihood that a bot is
stronger than the next.{_LEDGER_NOTE if with_ledger else ""}</p>
{_incidents_html(data)}
<h2>Crosstable</h2>
<p class="meta">Points of the row bot against the column bot, out of the games they met in.</p>
<div class="scroll"><table>{cross_head}{"".join(cross_rows)}</table></div>
<h2>Rating chart</h2>
{rating_chart_svg(rating_history(data.games, config.ruleset, names), names)}
</body></html>
"""


def write_report(run_dir: str | Path, tournament_id: str | None = None) -> list[Path]:
    """Write report.json, standings.csv, games.csv and report.html into the run directory."""
    data = load_run(run_dir, tournament_id)
    json_path = data.run_dir / "report.json"
    json_path.write_text(json.dumps(report_dict(data), indent=2, sort_keys=False) + "\n")
    standings_path, games_path = _write_csvs(data)
    html_path = data.run_dir / "report.html"
    html_path.write_text(render_html(data), encoding="utf-8")
    return [json_path, standings_path, games_path, html_path]
