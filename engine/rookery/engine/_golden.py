"""Golden playthroughs: one fixed game per preset, its text stored in ``tests/engine/golden``.

Regenerate after an intended change of behaviour or format::

    PYTHONPATH=engine python -m rookery.engine._golden [DIRECTORY]

(``DIRECTORY`` defaults to ``tests/engine/golden``; the tests also regenerate when
``ROOKERY_REGENERATE_GOLDEN=1``.) Review the diff before committing it.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

from ._actions import PASS, Bid
from ._game import Game
from ._record import GameRecord
from ._ruleset import PRESETS, Ruleset
from ._text import format_replay_text

__all__ = ["GOLDEN_SEEDS", "golden_game", "golden_text", "write_golden"]

GOLDEN_SEEDS: dict[str, int] = {
    "standard": 2,
    "traditional": 3,
    "nest-4": 1,
    "nest-6": 20,
    "straight": 9,
    "double-bird": 4,
    "called-partner": 4,
    "cutthroat": 13,
    "five-handed": 31,
    "six-handed": 65,
}
"""The game seed of each preset's golden playthrough (the players' generator uses it too).

Chosen once for short games that show a redeal, a made bid and a set among them."""


def golden_game(ruleset: Ruleset, seed: int) -> Game:
    """A finished game of random legal players driven by ``random.Random(seed)``.

    In the auction a player passes or makes the lowest legal bid with equal chances (uniform
    bidding would bid to the maximum and play every game to ``max_hands``); every other action is
    uniform among the legal ones.
    """
    rng = random.Random(seed)
    game = Game(ruleset, seed)
    while not game.is_over:
        legal = game.legal_actions()
        if legal.bids:
            action = PASS if rng.random() < 0.5 else Bid(legal.bids[0])
            game.apply(action)
        else:
            game.apply(legal.sample(rng))
    return game


def golden_text(name: str) -> str:
    """The golden transcript of preset ``name``."""
    return format_replay_text(GameRecord.from_game(golden_game(PRESETS[name], GOLDEN_SEEDS[name])))


def write_golden(directory: Path) -> list[Path]:
    """Write every preset's golden transcript to ``directory/<preset>.txt``."""
    directory.mkdir(parents=True, exist_ok=True)
    written = []
    for name in PRESETS:
        path = directory / f"{name}.txt"
        path.write_text(golden_text(name), encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path("tests/engine/golden")
    for path in write_golden(target):
        print(path)
