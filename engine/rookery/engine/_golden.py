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

from ._actions import PASS, Action, Bid
from ._choice import Game
from ._legal import LegalActions
from ._record import GameRecord
from ._ruleset import PRESETS, Ruleset
from ._text import format_replay_text

__all__ = ["GOLDEN_SEEDS", "golden_game", "golden_text", "lowest_bid_or_sample", "write_golden"]

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

    Every player is ``lowest_bid_or_sample``.
    """
    rng = random.Random(seed)
    game = Game(ruleset, seed)
    while not game.is_over:
        game.apply(lowest_bid_or_sample(game.legal_actions(), rng))
    return game


def lowest_bid_or_sample(legal: LegalActions, rng: random.Random) -> Action:
    """A random legal action: in the auction, pass or the lowest legal bid with even odds
    (uniform bidding would bid to the maximum and play every game to ``max_hands``); otherwise
    one of ``legal`` drawn uniformly (``legal.sample``).

    The random player of the golden playthroughs, the self-play games and the property tests.
    """
    if legal.bids:
        return PASS if rng.random() < 0.5 else Bid(legal.bids[0])
    return legal.sample(rng)


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
