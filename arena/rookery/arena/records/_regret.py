"""Per bot, where it lost points in a run: the double-dummy regret of its play.

Each finished hand of the run's replays is analysed by ``rookery.wire.analysis`` in its last
``REGRET_TRICKS`` tricks (the same share of every hand, whatever the solver's speed): a card's
regret is what it cost its side against perfect play from there on, every hand known.
``rookery arena report --regret`` prints the table and writes it to ``regret.json``; with
``--par`` it adds the auction's and the nest and bury's regret against each hand's par, which
the caller works out (``rookery.client.par``) and hands to :func:`write_regret` per bot.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from pathlib import Path

from rookery.arena.errors import StorageError
from rookery.arena.records._report import RunData
from rookery.arena.records._storage import write_bytes_atomically
from rookery.v1 import replay_pb2
from rookery.wire.analysis import REGRET_TRICKS, BotRegret, regret_by_bot
from rookery.wire.documents import JsonValue
from rookery.wire.errors import WireError
from rookery.wire.replay import read_replay

__all__ = ["REGRET_FILE", "regret_json", "run_regret", "run_replays", "write_regret"]

#: The file ``write_regret`` writes into the run directory.
REGRET_FILE = "regret.json"


def run_replays(data: RunData) -> Iterator[replay_pb2.Replay]:
    """The replay of every game of the run that has one, in the run's order
    (``StorageError`` naming a replay that cannot be read)."""
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
        return regret_by_bot(run_replays(data), last_tricks=last_tricks)
    except WireError as error:  # AnalysisError: no native core, or a replay that does not verify
        raise StorageError(f"{data.run_dir}: {error}") from error


def regret_json(
    regrets: dict[str, BotRegret],
    last_tricks: int = REGRET_TRICKS,
    par: Mapping[str, JsonValue] | None = None,
    games: int | None = None,
) -> dict[str, JsonValue]:
    """The regret table as JSON-able values, per bot; with ``par`` (per bot, its regret
    against par as JSON), each bot's entry holds it too, under ``"par"``; with ``games``, the
    number of the run's replays it was summed over, under ``"games"``."""
    bots: dict[str, JsonValue] = {}
    for name in sorted(set(regrets) | set(par or {})):
        regret = regrets.get(name, BotRegret(name, 0, 0, 0))
        entry: dict[str, JsonValue] = {
            "hands": regret.hands,
            "cards": regret.cards,
            "play": regret.play,
            "play_per_hand": regret.play_per_hand,
        }
        if par is not None and name in par:
            entry["par"] = par[name]
        bots[name] = entry
    phases: list[JsonValue] = ["play"] if par is None else ["play", "auction", "nest and bury"]
    document: dict[str, JsonValue] = {"last_tricks": last_tricks, "phases_measured": phases}
    if games is not None:
        document["games"] = games
    document["bots"] = bots
    return document


def write_regret(
    run_dir: str | Path,
    regrets: dict[str, BotRegret],
    last_tricks: int = REGRET_TRICKS,
    par: Mapping[str, JsonValue] | None = None,
    games: int | None = None,
) -> Path:
    """Write ``regret.json`` into the run directory (atomically); its path."""
    path = Path(run_dir) / REGRET_FILE
    text = json.dumps(regret_json(regrets, last_tricks, par, games), indent=2) + "\n"
    write_bytes_atomically(path, text.encode())
    return path
