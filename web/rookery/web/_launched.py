"""Reference bots launched for the human seats, and the ones started ahead ("warm").

A reference bot is a ``rookery bot run`` process of its own that plays one game: starting one
takes a Python interpreter loading the engine, which is most of the wait before a person's first
move. :class:`WarmBots` keeps a few of each kind connected ahead, so that a table takes them at
once and new ones start behind it.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import sys
from collections.abc import Callable, Iterable, Mapping

__all__ = ["REFERENCE_BOTS", "WarmBots", "launch", "stop_processes"]

#: The reference bots a table may launch: name -> ``module:Class``.
REFERENCE_BOTS = {
    "random": "rookery.client.bots:RandomBot",
    "heuristic": "rookery.client.bots:HeuristicBot",
    "pimc": "rookery.client.bots:PimcBot",
}

Process = asyncio.subprocess.Process


async def launch(target: str, kind: str, name: str) -> Process:
    """A reference bot of ``kind`` playing one game on the server at ``target`` as ``name``."""
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "rookery.cli.main", "bot", "run", REFERENCE_BOTS[kind],
        "--server", target, "--name", name, "--games", "1", "--log-level", "warning",
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip


async def stop_processes(processes: Iterable[Process], wait_s: float) -> None:
    """Given ``wait_s`` to exit by themselves, then terminated, then killed."""
    for process in processes:
        if process.returncode is None and wait_s > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), wait_s)
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.terminate()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(process.wait(), 5.0)
        if process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            await process.wait()


class WarmBots:
    """Reference bots of each kind started ahead: ``wanted`` of each kind (``{"pimc": 3}``), on
    the server at ``target()``, ``is_connected(name)`` telling which have their session up."""

    def __init__(
        self,
        target: Callable[[], str],
        wanted: Mapping[str, int],
        is_connected: Callable[[str], bool],
    ) -> None:
        for kind in wanted:
            if kind not in REFERENCE_BOTS:
                raise ValueError(f"no reference bot {kind!r}: choose from {sorted(REFERENCE_BOTS)}")
        self.target = target
        self.wanted = dict(wanted)
        self.is_connected = is_connected
        self._ready: dict[str, list[tuple[str, Process]]] = {kind: [] for kind in self.wanted}
        self._filling: asyncio.Task[None] | None = None
        self._closing = False

    def fill(self) -> None:
        """Start the missing bots in the background (one start at a time)."""
        if not self.wanted or self._closing:
            return
        if self._filling is None or self._filling.done():
            self._filling = asyncio.get_running_loop().create_task(self._fill())

    async def _fill(self) -> None:
        for kind, wanted in self.wanted.items():
            ready = self._ready[kind]
            ready[:] = [(name, p) for name, p in ready if p.returncode is None]
            while len(ready) < wanted and not self._closing:
                name = f"{kind}-w{secrets.token_hex(3)}"
                ready.append((name, await launch(self.target(), kind, name)))

    def take(self, kind: str) -> tuple[str, Process] | None:
        """A bot of ``kind`` whose session is up, out of the pool; None if none is."""
        ready = self._ready.get(kind, [])
        for index, (name, process) in enumerate(ready):
            if process.returncode is None and self.is_connected(name):
                del ready[index]
                return name, process
        return None

    def names(self) -> set[str]:
        """The names of the bots in the pool (no table but the one that takes them names them)."""
        return {name for ready in self._ready.values() for name, _ in ready}

    async def close(self) -> None:
        """Stop every bot of the pool; none is started after this."""
        self._closing = True
        if self._filling is not None:  # it ends after the start under way (never orphaned)
            with contextlib.suppress(Exception):
                await self._filling
        processes = [process for ready in self._ready.values() for _, process in ready]
        for ready in self._ready.values():
            ready.clear()
        await stop_processes(processes, wait_s=0.0)
