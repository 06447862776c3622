"""A tournament's values: its format, clock, bots and time control, and their defaults."""

from __future__ import annotations

import hashlib
import os
import re
import secrets
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum

from rookery.server import LatePolicy, TimeControl

_BOT_NAME = re.compile(r"^[A-Za-z0-9._-]{1,64}$")
#: What a tournament's id may hold (it prefixes table ids, which the server checks).
_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


def tournament_id_for(name: str) -> str:
    """A tournament's id from its display name: the name itself when it is a safe id already.

    Otherwise runs of other characters become ``-`` and a short hash of the name is added, so
    that ``"Spring contest"`` and ``"Spring-contest"`` get different ids (``Spring-contest-…``).
    """
    if _SAFE_ID.fullmatch(name):
        return name
    stem = re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-._")[:48] or "tournament"
    digest = hashlib.sha256(name.encode()).hexdigest()[:8]
    return f"{stem}-{digest}"


class Format(Enum):
    """How the bots are paired."""

    ROUND_ROBIN = "round-robin"
    """Every pair of bots (per-player presets: every combination, seats rotated)."""
    GAUNTLET = "gauntlet"
    """The first bot against each of the others."""
    SPRT = "sprt"
    """The first bot (new) against the second (old) until the SPRT decides or the cap."""


class ClockKind(Enum):
    """What a launched bot's think time is measured in."""

    WALL = "wall"
    """Wall time from the request to the reply (what the bot sees; a loaded machine costs it)."""
    CPU = "cpu"
    """CPU time its processes used since its previous reply (needs ``process_per_game``)."""


TOURNAMENT_TIME_CONTROL = TimeControl(action_ms=2000, grace_ms=5000)
"""The clock of a tournament's tables when its ``[time_control]`` does not say: the server's
:class:`~rookery.server.TimeControl` with 2000 ms per action and 5000 ms to resume. A tournament
or table started over ArenaService starts from the server's configured clock instead (5000 and
10000 ms unless configured)."""

LATE_POLICY_NAMES: dict[str, LatePolicy] = {
    "auto-play": LatePolicy.AUTO_PLAY,
    "forfeit": LatePolicy.FORFEIT,
}
"""``time_control.late_policy`` in a tournament file, by its name there."""


def late_policy_name(policy: LatePolicy) -> str:
    """A late policy by its tournament-file name (``auto-play``, ``forfeit``)."""
    return next(name for name, value in LATE_POLICY_NAMES.items() if value is policy)


@dataclass(frozen=True)
class BotSpec:
    """One bot: launched from ``command`` by the arena, or ``remote`` (already connected)."""

    name: str
    command: str = ""
    remote: bool = False
    #: Sessions per process (launched bots); 0 lets the arena pick enough for the concurrency.
    sessions: int = 0
    #: Processes to start (launched bots); 0 lets the arena pick.
    processes: int = 0
    #: Extra environment variables for a launched bot.
    env: Mapping[str, str] = field(default_factory=dict)
    #: The bot's own folder (read-only in the sandbox, its working directory); empty: the
    #: folder of its program when the command names one.
    folder: str = ""
    #: The folder the command runs in (its relative paths resolve against it): the config
    #: file's folder; empty for ``--bot`` flags (the arena's current folder).
    workdir: str = ""
    #: The house's language-model seat this bot is (a key of :data:`LLM_SEATS`), made only from
    #: ``--bot NAME=llm:MODEL@URL`` or a ``[[bots]]`` entry with ``kind``: Rookery's own code,
    #: launched outside the sandbox (it reaches its model's API) while every other bot stays in
    #: it. Empty: any other bot.
    seat: str = ""

    @property
    def argv(self) -> list[str]:
        """The command split as a shell would (no shell is involved)."""
        return shlex.split(self.command)


def random_seed() -> int:
    """A fresh tournament seed from the system's random source: every deal derives from the
    seed, so a guessable default would let anyone compute them. The run records it."""
    return secrets.randbits(63)


def default_concurrency() -> int:
    """Games at once when unset: the number of cores (at least 1)."""
    return max(1, os.cpu_count() or 1)
