"""``rookery arena report --regret``: each bot's play regret, and with ``--par`` its regret
against par, printed as tables and written to the run directory's ``regret.json``."""

from __future__ import annotations

import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table
    from rookery.arena.records import RunData
    from rookery.client.par import PhaseRegret, Span

__all__ = ["report_regret"]


def report_regret(
    run_dir: str, data: RunData, console: Console, *, quiet: bool, par_nodes: int | None
) -> Path | None:
    """Sum each bot's play regret (and with ``par_nodes``, its regret against par) into
    ``regret.json``; print the tables unless ``quiet``."""
    from rich.table import Table
    from rookery.arena.errors import ArenaError
    from rookery.arena.records import run_regret, run_replays, write_regret
    from rookery.client.par import phase_regret_by_bot
    from rookery.wire.documents import JsonValue
    from rookery.wire.errors import WireError

    try:
        regrets = run_regret(data)
        phases = (
            None
            if par_nodes is None
            else phase_regret_by_bot(run_replays(data), node_limit=par_nodes)
        )
        par: dict[str, JsonValue] | None = (
            None if phases is None else {name: phase.to_json() for name, phase in phases.items()}
        )
        path = write_regret(run_dir, regrets, par=par, games=data.replayed_games)
    except (ArenaError, WireError) as error:
        print(f"rookery arena report: --regret: {error}", file=sys.stderr)
        return None
    if not quiet:
        table = Table(title="Play regret (double-dummy, the last 6 tricks of each hand)")
        for name in ("bot", "hands", "cards", "points lost", "a hand"):
            table.add_column(name, justify="left" if name == "bot" else "right")
        for name, regret in regrets.items():
            table.add_row(
                name,
                str(regret.hands),
                str(regret.cards),
                str(regret.play),
                f"{regret.play_per_hand:.1f}",
            )
        console.print(table)
        if phases is not None:
            console.print(_par_table(phases))
    return path


def _par_table(phases: Mapping[str, PhaseRegret]) -> Table:
    """Per bot, its auctions' and its nests and buries' regret against par."""
    from rich.table import Table

    table = Table(title="Regret against par (double-dummy, every seat and trump solved)")
    for name in ("bot", "hands", "auction (net)", "a hand", "bids", "nest and bury", "a bid"):
        table.add_column(name, justify="left" if name == "bot" else "right")
    for name, phase in phases.items():
        table.add_row(
            name,
            str(phase.hands),
            str(phase.auction),
            _per(phase.auction, phase.hands),
            str(phase.bids),
            str(phase.bury),
            _per(phase.bury, phase.bids),
        )
    return table


def _per(span: Span, count: int) -> str:
    if not count:
        return "-"
    if span.known:
        return f"{span.low / count:.1f}"
    return f"{span.low / count:.1f}..{span.high / count:.1f}"
