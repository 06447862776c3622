"""A run's records: the run directory's SQLite file, replays, ledgers and reports.

- ``_storage``: :class:`RunStore`, the run's SQLite file and its atomic writes.
- ``_report``: a run loaded as data and its reports (terminal tables, CSV, HTML).
- ``_move_incidents``: the incidents of a replay's moves.
- ``_ledger``: the LLM seats' token and cost ledger.
- ``_results``: standings, likelihood of superiority and rating history from the stored games.
- ``_regret``: per bot, the double-dummy regret of its play in the run's replays.
"""

from __future__ import annotations

from rookery.arena.records._ledger import format_ledger, ledger_of, run_ledger
from rookery.arena.records._regret import run_regret, write_regret
from rookery.arena.records._report import (
    RunData,
    crosstable_table,
    incidents_table,
    load_run,
    report_dict,
    sprt_line,
    standings_table,
    summary_for,
    write_report,
)
from rookery.arena.records._results import rating_history
from rookery.arena.records._storage import DATABASE_NAME, GameRow, RunStore, write_bytes_atomically

__all__ = [
    "DATABASE_NAME",
    "GameRow",
    "RunData",
    "RunStore",
    "crosstable_table",
    "format_ledger",
    "incidents_table",
    "ledger_of",
    "load_run",
    "rating_history",
    "report_dict",
    "run_ledger",
    "run_regret",
    "sprt_line",
    "standings_table",
    "summary_for",
    "write_bytes_atomically",
    "write_regret",
    "write_report",
]
