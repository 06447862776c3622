"""The Bradley–Terry fit's cost at league scale: 32, 128 and 512 bots.

Run: ``.venv/bin/python bench/ratings_bench.py`` (``make bench`` runs it). Each field is a seeded
league in which every bot plays 20 duplicate pairs (40 games) against opponents drawn at random,
with true strengths drawn from N(0, 150) Elo; the fit is ``fit_bradley_terry`` with its default
200 pair-bootstrap refits. Times are CPU seconds of this process (``time.process_time``), so other
load on the machine skews them less; the pure-Python path (no numpy) is timed for 32 bots only,
where it takes seconds (it grows as n³ a refit). Prints one line per field:

    ratings.fit bots=128 games=2560 refits=200 numpy_s=... [python_s=... ratio=...]
"""

from __future__ import annotations

import argparse
import random
import time

from rookery.arena.stats import GameScore, expected_score, fit_bradley_terry, numpy_available


def league(bots: int, pairs_per_bot: int, seed: int) -> list[GameScore]:
    """Duplicate pairs between random opponents, outcomes drawn from the true Elo differences."""
    rng = random.Random(seed)
    names = [f"bot{i:03d}" for i in range(bots)]
    truth = {name: rng.gauss(0.0, 150.0) for name in names}
    games: list[GameScore] = []
    for group in range(pairs_per_bot * bots // 2):
        a, b = rng.sample(names, 2)
        p = expected_score(truth[a] - truth[b])
        for sides in (((a, a), (b, b)), ((b, b), (a, a))):
            a_first = sides[0][0] == a
            ranks = (0, 1) if (rng.random() < p) == a_first else (1, 0)
            games.append(GameScore(sides, ranks, group))
    return games


def timed(games: list[GameScore], backend: str, bootstrap: int) -> float:
    start = time.process_time()
    fit_bradley_terry(games, bootstrap=bootstrap, seed=1, backend=backend)
    return time.process_time() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bots", type=int, nargs="*", default=[32, 128, 512])
    parser.add_argument("--bootstrap", type=int, default=200)
    parser.add_argument(
        "--python-up-to", type=int, default=32, help="largest field timed without numpy"
    )
    args = parser.parse_args(argv)
    if not numpy_available():
        print(
            "ratings.fit numpy is not installed (pip install 'rookery-arena[fast]'): pure path only"
        )
    for bots in args.bots:
        games = league(bots, 20, seed=bots)
        line = f"ratings.fit bots={bots} games={len(games)} refits={args.bootstrap}"
        fast = timed(games, "numpy", args.bootstrap) if numpy_available() else None
        if fast is not None:
            line += f" numpy_s={fast:.2f}"
        if bots <= args.python_up_to or fast is None:
            slow = timed(games, "python", args.bootstrap)
            line += f" python_s={slow:.2f}"
            if fast:
                line += f" ratio={slow / fast:.1f}"
        print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
