"""The arena's report as one self-contained HTML page (inline CSS and SVG, no external assets),
and :func:`write_report`, which writes it beside the run's data files."""

from __future__ import annotations

import html
import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

from rookery.arena.records import (
    LEDGER_COLUMNS,
    REGRET_FILE,
    STANDING_COUNTS,
    RunData,
    interval_words,
    ledger_cells,
    load_run,
    points_text,
    rating_history,
    sprt_line,
    standing_cells,
    write_report_data,
)

__all__ = ["rating_chart_svg", "render_html", "spread_labels", "write_report"]


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


def _regret_html(data: RunData) -> str:
    """Where each bot loses points, from the run's ``regret.json`` (``rookery arena report
    --regret``): its play's regret, and with ``--par`` its auctions' and buries' regret against
    par. Nothing when the run has no such file; a line naming the problem when it is unreadable."""
    path = data.run_dir / REGRET_FILE
    if not path.is_file():
        return ""
    esc = html.escape
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
        last_tricks = int(document["last_tricks"])
        games = document.get("games")
        rows = [_regret_row(name, entry) for name, entry in document["bots"].items()]
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as error:
        return (
            f'<h2>Regret</h2>\n<p class="meta" id="regret-error">{esc(REGRET_FILE)} cannot be '
            f"read ({esc(type(error).__name__)}: {esc(str(error))}): <code>rookery arena report "
            "--regret</code> writes it again.</p>"
        )
    with_par = any(len(row) > 3 for row in rows)
    head = ["bot", "hands", f"play: points lost a hand (last {last_tricks} tricks)"]
    if with_par:
        head += ["auction: net points a hand", "bids", "nest and bury: points a bid"]
    width = len(head)
    body = "".join(
        "<tr>"
        + "".join(
            f"<td{' class=n' if i else ''}>{esc(cell)}</td>"
            for i, cell in enumerate([*row, *([""] * (width - len(row)))])
        )
        + "</tr>"
        for row in rows
    )
    replays = data.replayed_games
    stale = (
        f" Summed over {games} of the run's {replays} games with a replay: "
        "<code>rookery arena report --regret</code> sums them all again."
        if isinstance(games, int) and games != replays
        else ""
    )
    return (
        '<h2>Regret</h2>\n<p class="meta">Where each bot loses points against double-dummy play '
        "(every hand known), from regret.json: what its cards cost its side in each hand's last "
        "tricks; with <code>--par</code>, its side's auctions against each hand's par (below 0: "
        "a gain) and its nests and buries when it won the auction; a..b: bounds where a search "
        f"stopped at its node limit (docs/benchmark.md).{stale}</p>\n"
        '<div class="scroll"><table id="regret">'
        + "<tr>"
        + "".join(f"<th>{esc(column)}</th>" for column in head)
        + f"</tr>{body}</table></div>"
    )


def _regret_row(name: str, entry: Mapping[str, object]) -> list[str]:
    """One bot's cells of the regret table (``ValueError``, ``KeyError`` or ``TypeError`` for
    an entry that is not ``regret.json``'s)."""
    hands = entry["hands"]
    per_hand = entry["play_per_hand"]
    if not isinstance(hands, int) or not isinstance(per_hand, int | float):
        raise TypeError(f"{name}: hands and play_per_hand are numbers")
    row = [name, str(hands), f"{per_hand:.1f}"]
    par = entry.get("par")
    if par is not None:
        if not isinstance(par, Mapping):
            raise TypeError(f"{name}: par is an object")
        row += [
            _mean_span(par["auction_per_hand"]),
            str(int(par["bids"])),
            _mean_span(par["bury_per_bid"]),
        ]
    return row


def _mean_span(value: object) -> str:
    """A ``[low, high]`` mean as text: one signed figure when the two are equal."""
    if not isinstance(value, list) or len(value) != 2:
        raise TypeError(f"{value!r} is not a [low, high] pair")
    low, high = (float(end) for end in value)
    return f"{low:+.1f}" if low == high else f"{low:+.1f}..{high:+.1f}"


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
        values = standing_cells(s)
        cells = [
            str(rank),
            esc(s.name + (f" {s.version}" if s.version else "")),
            values["elo"],
            f"± {values['elo_error']}",
            values["interval"],
            values["los"],
            *(values[column] for column in STANDING_COUNTS),
            *(ledger_cells(s) if with_ledger else ()),
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
        + "".join(f"<th>{esc(c)}</th>" for c in (LEDGER_COLUMNS if with_ledger else ()))
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
                    f'<td class=n title="{title}">{points_text(entry.points, entry.games)}</td>'
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
{summary.fit.confidence:.0%} {interval_words(summary.fit)}. LOS: likelihood that a bot is
stronger than the next.{_LEDGER_NOTE if with_ledger else ""}</p>
{_incidents_html(data)}
{_regret_html(data)}
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
    paths = write_report_data(data)
    html_path = data.run_dir / "report.html"
    html_path.write_text(render_html(data), encoding="utf-8")
    return [*paths, html_path]
