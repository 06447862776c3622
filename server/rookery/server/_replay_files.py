"""A server's replay files: one per finished table, written as it ends and read back once the
table is evicted from memory. Out of file descriptors, a replay is kept and retried (never
dropped silently); after ``REPLAY_RETRY_FOR_S`` (or at shutdown) it is reported lost."""

from __future__ import annotations

import asyncio
import errno
import re
import time
from pathlib import Path

from rookery.v1 import replay_pb2
from rookery.wire.replay import read_replay, write_replay
from structlog.typing import FilteringBoundLogger

from ._limits import open_file_limit

__all__ = ["REPLAY_RETRY_FOR_S", "SAFE_ID", "ReplayFiles"]

SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
"""A table id that may name a file (and that a client may give a table)."""
_OUT_OF_FILES = (errno.EMFILE, errno.ENFILE)
_REPLAY_RETRY_S = 0.2
REPLAY_RETRY_FOR_S = 600.0
"""How long a replay file is retried (out of file descriptors) before it is reported lost."""


class ReplayFiles:
    """The replay files under ``directory`` ("": none are written or read)."""

    def __init__(self, directory: str, log: FilteringBoundLogger) -> None:
        self.directory = directory
        self._log = log
        self._unwritten: dict[str, tuple[replay_pb2.Replay, float]] = {}
        """Replays whose file could not be written yet (out of file descriptors): retried."""
        self._retry: asyncio.TimerHandle | None = None

    def write(self, table_id: str, replay: replay_pb2.Replay) -> None:
        """Writes a finished table's replay file; out of file descriptors, it is kept and
        retried (never dropped silently); any other failure is raised to the table's log."""
        try:
            self._write_file(table_id, replay)
        except OSError as error:
            if error.errno not in _OUT_OF_FILES:
                raise
            self._unwritten[table_id] = (replay, time.monotonic())
            self._log.warning(
                "replay not written yet: out of file descriptors, retrying",
                table=table_id,
                error=str(error),
                open_file_limit=open_file_limit(),
            )
            self._schedule_retry()

    def read(self, table_id: str) -> replay_pb2.Replay | None:
        """The replay of ``table_id`` still to be written, or read from its file (None: none)."""
        unwritten = self._unwritten.get(table_id)
        if unwritten is not None:
            return unwritten[0]
        if not self.directory or not SAFE_ID.fullmatch(table_id):
            return None
        path = self._path(table_id)
        return read_replay(path) if path.is_file() else None

    @property
    def unwritten(self) -> list[str]:
        """The tables whose replay file is still to be written (retried)."""
        return list(self._unwritten)

    def retry(self, final: bool = False) -> None:
        """Retries the replays not written yet; gives up loudly after ``REPLAY_RETRY_FOR_S``
        (or at shutdown, ``final``)."""
        self._retry = None
        for table_id, (replay, since) in list(self._unwritten.items()):
            try:
                self._write_file(table_id, replay)
            except OSError as error:
                if final or time.monotonic() - since > REPLAY_RETRY_FOR_S:
                    del self._unwritten[table_id]
                    self._log.error(
                        "replay LOST: its file could not be written",
                        table=table_id,
                        error=str(error),
                        path=str(self._path(table_id)),
                    )
                continue
            del self._unwritten[table_id]
            self._log.info("replay written after a retry", table=table_id)
        if not final:
            self._schedule_retry()

    def _path(self, table_id: str) -> Path:
        return Path(self.directory) / f"{table_id}.jsonl.gz"

    def _write_file(self, table_id: str, replay: replay_pb2.Replay) -> None:
        Path(self.directory).mkdir(parents=True, exist_ok=True)
        write_replay(self._path(table_id), replay)

    def _schedule_retry(self) -> None:
        if self._retry is None and self._unwritten:
            self._retry = asyncio.get_running_loop().call_later(_REPLAY_RETRY_S, self.retry)
