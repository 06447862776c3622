"""The arena's reports as terminal tables (rich): the standings, the incidents and the
crosstable of a run (:mod:`rookery.arena.records` gives the data and the shared cells)."""

from __future__ import annotations

from rich.table import Table
from rookery.arena.records import (
    LEDGER_COLUMNS,
    STANDING_COUNTS,
    RunData,
    Summary,
    ledger_cells,
    points_text,
    standing_cells,
)

__all__ = ["crosstable_table", "incidents_table", "standings_table"]


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
        *((column, "right") for column in (LEDGER_COLUMNS if with_ledger else ())),
    ):
        table.add_column(column, justify=justify)  # type: ignore[arg-type]
    for rank, s in enumerate(summary.standings, 1):
        cells = standing_cells(s)
        table.add_row(
            str(rank),
            s.name,
            cells["elo"],
            cells["elo_error"],
            cells["los"],
            *(cells[column] for column in STANDING_COUNTS),
            *(ledger_cells(s) if with_ledger else ()),
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
                "—" if a == b else "" if entry is None else points_text(entry.points, entry.games)
            )
        table.add_row(a, *cells)
    return table
