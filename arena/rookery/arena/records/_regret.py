"""Per bot, where it lost points in a run: the double-dummy regret of its play.

Each finished hand of the run's replays is analysed by ``rookery.wire.analysis`` in its last
``REGRET_TRICKS`` tricks (the same share of every hand, whatever the solver's speed): a card's
regret is what it cost its side against perfect play from there on, every hand known. The
bidding's and the nest and bury's regret need whole hands solved for every contract and bury,
which the solver cannot do yet: they are not measured. ``rookery arena report --regret`` prints
the table and writes it to ``regret.json``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

from rookery.arena.errors import StorageError
from rookery.arena.records._report import RunData
from rookery.arena.records._storage import write_bytes_atomically
from rookery.v1 import replay_pb2
from rookery.wire.analysis import REGRET_TRICKS, BotRegret, regret_by_bot
from rookery.wire.documents import JsonValue
from rookery.wire.errors import WireError
from rookery.wire.replay import read_replay

__all__ = ["REGRET_FILE", "regret_json", "run_regret", "write_regret"]

#: The file ``write_regret`` writes into the run directory.
REGRET_FILE = "regret.json"


def _replays(data: RunData) -> Iterator[replay_pb2.Replay]:
    for game in data.games:
        if not game.replay_path:
            continue
        path = data.run_dir / game.replay_path
        try:
            yield read_replay(path)
        except (OSError, WireError) as error:
            raise StorageError(
                f"{path}: cannot read the replay of {game.game_id}: {error}"
            ) from error


def run_regret(data: RunData, *, last_tricks: int = REGRET_TRICKS) -> dict[str, BotRegret]:
    """Per bot of the run, the summed double-dummy cost of its cards in the last
    ``last_tricks`` tricks of every finished hand of the run's games (``StorageError`` when a
    replay cannot be read or analysed)."""
    try:
        return regret_by_bot(_replays(data), last_tricks=last_tricks)
    except WireError as error:  # AnalysisError: no native core, or a replay that does not verify
        raise StorageError(f"{data.run_dir}: {error}") from error


def regret_json(
    regrets: dict[str, BotRegret], last_tricks: int = REGRET_TRICKS
) -> dict[str, JsonValue]:
    """The regret table as JSON-able values, per bot."""
    return {
        "last_tricks": last_tricks,
        "phases_measured": ["play"],
        "bots": {
            name: {
                "hands": regret.hands,
                "cards": regret.cards,
                "play": regret.play,
                "play_per_hand": regret.play_per_hand,
            }
            for name, regret in regrets.items()
        },
    }


def write_regret(
    run_dir: str | Path, regrets: dict[str, BotRegret], last_tricks: int = REGRET_TRICKS
) -> Path:
    """Write ``regret.json`` into the run directory (atomically); its path."""
    path = Path(run_dir) / REGRET_FILE
    text = json.dumps(regret_json(regrets, last_tricks), indent=2) + "\n"
    write_bytes_atomically(path, text.encode())
    return path
