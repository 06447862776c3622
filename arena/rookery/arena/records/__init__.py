"""A run's records: the run directory's SQLite file, replays, ledgers and reports.

- ``_storage``: :class:`RunStore`, the run's SQLite file and its atomic writes.
- ``_report``: a run loaded as data, report.json and the CSV files, the cells both presenters
  share (the terminal tables are the CLI's, report.html the web's).
- ``_move_incidents``: the incidents of a replay's moves.
- ``_ledger``: the LLM seats' token and cost ledger.
- ``_results``: standings, likelihood of superiority and rating history from the stored games.
- ``_regret``: per bot, the double-dummy regret of its play in the run's replays (and, handed
  in, its regret against par).
"""

from __future__ import annotations

from rookery.arena.records._ledger import format_ledger, ledger_of, run_ledger
from rookery.arena.records._regret import REGRET_FILE, run_regret, run_replays, write_regret
from rookery.arena.records._report import (
    LEDGER_COLUMNS,
    STANDING_COUNTS,
    RunData,
    interval_words,
    ledger_cells,
    load_run,
    points_text,
    report_dict,
    sprt_line,
    standing_cells,
    summary_for,
    write_report_data,
)
from rookery.arena.records._results import Summary, rating_history
from rookery.arena.records._storage import DATABASE_NAME, GameRow, RunStore, write_bytes_atomically

__all__ = [
    "DATABASE_NAME",
    "LEDGER_COLUMNS",
    "REGRET_FILE",
    "STANDING_COUNTS",
    "GameRow",
    "RunData",
    "RunStore",
    "Summary",
    "format_ledger",
    "interval_words",
    "ledger_cells",
    "ledger_of",
    "load_run",
    "points_text",
    "rating_history",
    "report_dict",
    "run_ledger",
    "run_regret",
    "run_replays",
    "sprt_line",
    "standing_cells",
    "summary_for",
    "write_bytes_atomically",
    "write_regret",
    "write_report_data",
]
