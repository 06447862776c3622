"""The reference bots' ladder (``make ladder``): duplicate matches random vs heuristic vs pimc.

Every match plays seeded deals twice with the sides swapped (a duplicate pair), in-process on the
engine (no network). A game scores 1 for a win, 0.5 for a draw; Elo comes from the score
fraction, with a 95 % interval by bootstrap over the duplicate pairs. The overall ratings are a
Bradley–Terry fit over every game (random anchored at 0), bootstrapped the same way.

    .venv/bin/python bench/ladder.py                 # the default sizes: about 25 minutes

pimc searches its default number of samples per decision without a time budget, so that the
figures do not depend on the machine's load and a run is reproducible.
    .venv/bin/python bench/ladder.py --scale 2 --jobs 2
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

from rookery.client.bots import POLICIES, PimcParameters, PimcPolicy, Policy, play_game
from rookery.engine import PRESETS, Ruleset

# Duplicate pairs per match at --scale 1: about 25 minutes on one core with pimc at its default
# (128 samples, reading the play); --jobs 2 halves it.
DEFAULT_PAIRS = {("random", "heuristic"): 100, ("heuristic", "pimc"): 24, ("random", "pimc"): 8}
SEED_BASE = 1_000_000


@dataclass(frozen=True)
class PairResult:
    """One duplicate pair: the first bot's score in the two games (sides swapped)."""

    seed: int
    scores: tuple[float, float]
    hands: int


def _policy(name: str, pimc: PimcParameters) -> Policy:
    if name == "pimc":
        return PimcPolicy(pimc)
    return POLICIES[name]()


def play_pair(args: tuple[Ruleset, str, str, int, PimcParameters]) -> PairResult:
    """Play seed ``seed`` twice: ``first`` on side 0, then on side 1."""
    ruleset, first, second, seed, pimc = args
    scores = []
    hands = 0
    for first_side in (0, 1):
        a, b = _policy(first, pimc), _policy(second, pimc)
        seats = [a if ruleset.side_of(seat) == first_side else b for seat in range(4)]
        result = play_game(ruleset, seed, seats, rng_seed=seed)
        hands += result.hands_played
        if not result.winners:
            scores.append(0.5)
        else:
            scores.append(1.0 if result.winners == (first_side,) else 0.0)
    return PairResult(seed, (scores[0], scores[1]), hands)


def elo_of(fraction: float, games: int) -> float:
    """The Elo difference of a score fraction (clamped half a game away from 0 and 1)."""
    margin = 0.5 / max(games, 1)
    fraction = min(max(fraction, margin), 1 - margin)
    return -400 * math.log10(1 / fraction - 1)


def bootstrap_elo(
    pairs: Sequence[PairResult], rng: random.Random, rounds: int = 2000
) -> tuple[float, float, float]:
    """Elo of the first bot over the pairs, and the 95 % bootstrap interval (over pairs)."""
    values = [sum(pair.scores) / 2 for pair in pairs]
    games = 2 * len(values)
    point = elo_of(statistics.fmean(values), games)
    samples = sorted(
        elo_of(statistics.fmean(rng.choices(values, k=len(values))), games) for _ in range(rounds)
    )
    return point, samples[int(0.025 * rounds)], samples[int(0.975 * rounds) - 1]


def bradley_terry(
    names: Sequence[str], games: Sequence[tuple[str, str, float]], anchor: str
) -> dict[str, float]:
    """Elo ratings by the Bradley–Terry MM algorithm over (a, b, score of a) games."""
    played: dict[tuple[str, str], int] = {}
    wins = dict.fromkeys(names, 0.0)
    # One virtual draw between every two bots keeps an unbeaten bot's rating finite.
    prior = [(a, b, 0.5) for i, a in enumerate(names) for b in names[i + 1 :]]
    for a, b, score in [*games, *prior]:
        key = (a, b) if a < b else (b, a)
        played[key] = played.get(key, 0) + 1
        wins[a] += score
        wins[b] += 1 - score
    strength = dict.fromkeys(names, 1.0)
    for _ in range(300):
        updated = {}
        for name in names:
            denominator = sum(
                count / (strength[a] + strength[b])
                for (a, b), count in played.items()
                if name in (a, b)
            )
            updated[name] = wins[name] / denominator
        strength = updated
    base = strength[anchor]
    return {name: 400 * math.log10(strength[name] / base) for name in names}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--preset", default="standard", help="the ruleset (default standard)")
    parser.add_argument("--target", type=int, default=None, help="override the game target")
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the pair counts")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument(
        "--pimc-budget",
        type=float,
        default=0.0,
        help="pimc's seconds per decision (default 0: none, samples only, reproducible)",
    )
    parser.add_argument(
        "--pimc-samples", type=int, default=128, help="pimc's samples a card (default 128)"
    )
    parser.add_argument("--seed", type=int, default=SEED_BASE, help="the first deal seed")
    parser.add_argument(
        "--pair",
        default=None,
        help="play only this pairing, e.g. pimc,heuristic (default: every pairing)",
    )
    parser.add_argument(
        "--pimc-infer-tries",
        type=int,
        default=PimcParameters.infer_tries,
        help="pimc's draws per sample weighted by the auction (0: uniform samples)",
    )
    parser.add_argument(
        "--pimc-infer-spread",
        type=float,
        default=PimcParameters.infer_spread,
        help="how soft pimc's reading of the auction is (model spreads)",
    )
    parser.add_argument(
        "--pimc-read-play-tries",
        type=int,
        default=PimcParameters.read_play_tries,
        help="pimc's draws per sample in the play, the likeliest kept given the opponents' "
        "cards so far (0: one draw)",
    )
    args = parser.parse_args(argv)
    matches = dict(DEFAULT_PAIRS)
    if args.pair is not None:
        wanted = tuple(name.strip() for name in args.pair.split(","))
        found = [key for key in DEFAULT_PAIRS if set(key) == set(wanted)]
        if len(wanted) != 2 or not found:
            parser.error(f"--pair: one of {', '.join(','.join(k[::-1]) for k in DEFAULT_PAIRS)}")
        matches = {found[0]: DEFAULT_PAIRS[found[0]]}

    ruleset = PRESETS[args.preset]
    if args.target is not None:
        ruleset = ruleset.replace(target=args.target)
    if ruleset.players != 4 or ruleset.num_sides != 2:
        parser.error("the ladder needs a two-side, four-player preset")
    budget = args.pimc_budget if args.pimc_budget > 0 else None
    pimc = PimcParameters(
        time_budget=budget,
        samples=args.pimc_samples,
        infer_tries=args.pimc_infer_tries,
        infer_spread=args.pimc_infer_spread,
        read_play_tries=args.pimc_read_play_tries,
    )
    rng = random.Random(args.seed)
    print(
        f"ladder: {ruleset.name} (target {ruleset.target}), duplicate pairs, "
        f"pimc {pimc.samples} samples"
        + (f" or {budget} s" if budget else "")
        + f" per decision, {args.jobs} job(s)"
    )
    started = time.perf_counter()
    games: list[tuple[str, str, float]] = []
    rows = []
    total_games = 0
    pool = multiprocessing.Pool(args.jobs) if args.jobs > 1 else None
    try:
        for (first, second), count in matches.items():
            count = max(1, round(count * args.scale))
            match_start = time.perf_counter()
            jobs = [(ruleset, second, first, args.seed + i, pimc) for i in range(count)]
            pairs = pool.map(play_pair, jobs) if pool else [play_pair(job) for job in jobs]
            elapsed = time.perf_counter() - match_start
            point, low, high = bootstrap_elo(pairs, rng)
            score = statistics.fmean(sum(pair.scores) / 2 for pair in pairs)
            hands = sum(pair.hands for pair in pairs)
            total_games += 2 * count
            for pair in pairs:
                for value in pair.scores:
                    games.append((second, first, value))
            rows.append((second, first, point, low, high, score, 2 * count, hands, elapsed))
            print(
                f"  {second:>9} vs {first:<9} {point:+7.0f} Elo  [{low:+.0f}, {high:+.0f}]  "
                f"score {score:.3f}  games {2 * count}  hands {hands}  {elapsed:.0f}s",
                flush=True,
            )
    finally:
        if pool:
            pool.close()
    names = ["random", "heuristic", "pimc"]
    ratings = bradley_terry(names, games, "random")
    boot: dict[str, list[float]] = {name: [] for name in names}
    for _ in range(200):
        resample = rng.choices(games, k=len(games))
        for name, value in bradley_terry(names, resample, "random").items():
            boot[name].append(value)
    print("overall (Bradley–Terry, random = 0):")
    for name in names:
        values = sorted(boot[name])
        low, high = values[int(0.025 * len(values))], values[int(0.975 * len(values)) - 1]
        print(f"  {name:>9} {ratings[name]:+7.0f} Elo  [{low:+.0f}, {high:+.0f}]")
    print(f"{total_games} games in {time.perf_counter() - started:.0f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
