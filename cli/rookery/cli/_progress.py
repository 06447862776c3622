"""Progress while a tournament runs: a live rich display on a terminal, plain lines otherwise."""

from __future__ import annotations

import sys
import time
from typing import TextIO

from rich.console import Console, Group
from rich.live import Live
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table
from rookery.arena.run import LiveState

__all__ = ["ProgressDisplay", "format_eta"]


def format_eta(seconds: float | None) -> str:
    """``1h02m``, ``3m05s``, ``12s`` or ``?``."""
    if seconds is None:
        return "?"
    seconds = max(0, int(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    if minutes:
        return f"{minutes}m{secs:02d}s"
    return f"{secs}s"


def _standings_rows(live: LiveState) -> list[tuple[str, float, int, int, int]]:
    names = set(live.elo.ratings) | set(live.wins) | set(live.losses)
    rows = [
        (n, live.elo.rating(n), live.wins.get(n, 0), live.losses.get(n, 0), live.draws.get(n, 0))
        for n in names
    ]
    return sorted(rows, key=lambda r: (-r[1], r[0]))


def _cost_words(live: LiveState) -> str:
    """The language-model seats' spend so far: ``$0.0123 spent by language models``."""
    return f"${live.cost_usd:.4f} spent by language models"


class ProgressDisplay:
    """Receives :class:`LiveState` updates; draws them live on a TTY, as lines otherwise."""

    def __init__(self, stream: TextIO | None = None, interval_s: float = 2.0) -> None:
        self.stream = stream or sys.stdout
        self.is_tty = self.stream.isatty()
        self.interval_s = interval_s
        self._console = Console(file=self.stream)
        self._last_line = 0.0
        self._messages_shown = 0
        self._live: Live | None = None
        self._progress: Progress | None = None
        self._task: TaskID | None = None

    def __enter__(self) -> ProgressDisplay:
        if self.is_tty:
            self._progress = Progress(
                TextColumn("[bold]{task.description}"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("{task.fields[rate]} games/s · ETA {task.fields[eta]}"),
                TimeElapsedColumn(),
                console=self._console,
            )
            self._task = self._progress.add_task("games", total=1, rate="0.00", eta="?")
            self._live = Live(self._render(None), console=self._console, refresh_per_second=4)
            self._live.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._live is not None:
            self._live.__exit__(None, None, None)
            self._live = None

    def _render(self, live: LiveState | None) -> Group:
        assert self._progress is not None
        table = Table(title="current standings (online Elo)", title_justify="left")
        for column in ("bot", "Elo", "W", "L", "D", "incidents"):
            table.add_column(column, justify="left" if column == "bot" else "right")
        parts: list[object] = [self._progress]
        if live is not None:
            for name, elo, wins, losses, draws in _standings_rows(live):
                table.add_row(
                    name, f"{elo:+.0f}", str(wins), str(losses), str(draws),
                    str(live.incidents.get(name, 0)),
                )  # fmt: skip
            parts.append(table)
            if live.sprt is not None:
                test = live.sprt
                parts.append(
                    f"SPRT: LLR {test.llr:.2f} in ({test.params.lower_bound:.2f}, "
                    f"{test.params.upper_bound:.2f}) · {test.decision.value or 'continue'}"
                )
            if live.costed_games:
                parts.append(_cost_words(live))
            parts.extend(live.messages[-3:])
        return Group(*parts)  # type: ignore[arg-type]

    def __call__(self, live: LiveState) -> None:
        """Show the latest state."""
        if self._live is not None and self._progress is not None and self._task is not None:
            self._progress.update(
                self._task,
                total=live.total,
                completed=live.done,
                rate=f"{live.rate:.2f}",
                eta=format_eta(live.eta_s),
                description=live.name,
            )
            self._live.update(self._render(live))
            return
        for message in live.messages[self._messages_shown :]:
            print(message, file=self.stream, flush=True)
        self._messages_shown = len(live.messages)
        now = time.monotonic()
        if now - self._last_line < self.interval_s and live.done < live.total:
            return
        self._last_line = now
        leaders = ", ".join(f"{name} {elo:+.0f}" for name, elo, *_ in _standings_rows(live)[:4])
        sprt = ""
        if live.sprt is not None:
            sprt = f" · SPRT LLR {live.sprt.llr:.2f} {live.sprt.decision.value}"
        cost = f" · {_cost_words(live)}" if live.costed_games else ""
        print(
            f"[{live.name}] {live.done}/{live.total} games · {live.rate:.2f} games/s · "
            f"ETA {format_eta(live.eta_s)} · {leaders}{sprt}{cost}",
            file=self.stream,
            flush=True,
        )
