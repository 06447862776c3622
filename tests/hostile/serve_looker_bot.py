"""A bot that looks outside its folder from a tournament of `rookery serve`, and plays.

``Looker`` reads ``looks.json`` beside it (the host paths to try, written by the test), tries
each once at its first move, and prints one ``LOOK <what>: <result>`` line per attempt to stderr,
which the arena keeps in the bot's log. ``Plain`` only plays. Both play greedily.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from pathlib import Path

from rookery.client import Bot
from rookery.engine import Action, Bid, Observation, Pass, PlayCard, card_points

_LOOKED = threading.Event()
_LOCK = threading.Lock()


def _report(what: str, result: str) -> None:
    sys.stderr.write(f"LOOK {what}: {result}\n")
    sys.stderr.flush()


def _attempt(what: str, path: str) -> None:
    try:
        target = Path(path)
        if target.is_dir():
            found = sorted(entry.name for entry in target.iterdir())
            _report(what, f"ok {found[:8]!r}")
        else:
            _report(what, f"ok {target.read_bytes()[:40]!r}")
    except OSError as error:
        _report(what, f"refused {type(error).__name__}")


def look() -> None:
    """Every attempt of looks.json, then the line that says the looking is over."""
    own = Path(__file__).parent
    looks = {"own folder": str(own), **json.loads((own / "looks.json").read_text())}
    for what, path in looks.items():
        _attempt(what, path)
    _report("uid", str(os.getuid()))
    _report("done", "ok")


def greedy(observation: Observation) -> Action:
    legal = list(observation.legal_actions())
    bids = [a for a in legal if isinstance(a, Bid)]
    if any(isinstance(a, Pass) for a in legal):
        return bids[0] if bids and not observation.auction else Pass()
    plays = [a for a in legal if isinstance(a, PlayCard)]
    if plays:
        return max(plays, key=lambda p: (card_points(p.card), p.card))
    return legal[0]


class Looker(Bot):
    """Looks once (its first move, whatever the table), then plays."""

    def act(self, observation: Observation) -> Action:
        with _LOCK:
            if not _LOOKED.is_set():
                look()
                _LOOKED.set()
        return greedy(observation)


class Plain(Bot):
    """Only plays."""

    def act(self, observation: Observation) -> Action:
        return greedy(observation)
