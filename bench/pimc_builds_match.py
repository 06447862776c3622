"""pimc on the native core against another pimc, at the same time budget: the pure engine's,
or today's from another tree (``--baseline TREE``).

The question of issue 42: does pimc, at its default budget (0.2 s a card), play better when its
samples are drawn and played out on the native core (``rookery.engine.sample_deal`` and
``HeuristicPlayouts``)? By default the other side is the same pimc on the pure engine and the
Python playout model (``ROOKERY_PURE_ENGINE=1``). With ``--baseline TREE`` it is the pimc of
another source tree built as it was (issue 42's base commit with its mypyc-compiled engine, say):
its workers run with that tree's packages first on ``PYTHONPATH``. Each side runs in processes
of its own that receive plain data only (the deal's seed and the actions so far, as text),
rebuild the game with their own engine and answer with their own pimc; the games are played
here, on this tree's engine, and the two engines deal the same cards from a seed (a worker
whose engine disagrees about an action's legality stops the run).

A match is duplicate pairs of single ``standard`` hands: each deal is played twice, the core
pimc holding one side and then the other, so that the cards cancel out. A pair's figure is the
core side's hand score minus the other side's, the mean of its two hands; the match reports
the mean over pairs with a 95 % bootstrap interval (over pairs), the pairs won, lost and even,
and the share of the hands' points the core side won. Every pair is appended to ``--out`` (JSON
lines, with each side's build and its card searches' samples and playouts) as it ends, and a
run given the same file goes on from where it stopped.

    .venv/bin/python bench/pimc_builds_match.py --pairs 600 --jobs 2 --out runs/pimc-builds.jsonl
    .venv/bin/python bench/baseline_tree.py d917ed0    # today's build, once
    .venv/bin/python bench/pimc_builds_match.py --pairs 600 --jobs 2 \\
        --baseline build/baseline-d917ed0 --out runs/pimc-baseline.jsonl

With ``--policy ddpimc`` the core side is double-dummy pimc instead (issue 44: pimc whose samples
are solved exactly in the hand's last tricks, ``rookery.client.bots.ddpimc``) at the same budget,
against the same opponents; its rows say so, and a file holds one policy's pairs only.

    .venv/bin/python bench/pimc_builds_match.py --pairs 600 --jobs 3 --policy ddpimc \\
        --baseline build/baseline-d917ed0 --out runs/ddpimc-baseline.jsonl

``--jobs`` games are played at once (each one thinking seat at a time); on a 2-core machine, 2
gives each thinking seat about a core.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from build_runs import tree_environment

PURE_ENV = "ROOKERY_PURE_ENGINE"
SEED_BASE = 3_000_000
#: What each side's workers must run: (the engine's build, where the playouts run).
EXPECTED = {"core": ("core", "core"), "pure": ("pure", "pure"), "base": ("compiled", "compiled")}


def _module_kind(name: str) -> str:
    """``compiled`` if module ``name`` is an extension module (mypyc), else ``pure``."""
    import importlib

    try:
        module = importlib.import_module(name)
    except ImportError:
        return "absent"
    return "compiled" if str(module.__file__).endswith(".so") else "pure"


def _build_kind() -> tuple[str, str, str]:
    """This process's engine build, where its playouts run, and where its pimc comes from."""
    from rookery.client.bots import pimc
    from rookery.engine import build_info

    engine = build_info().kind
    if engine not in ("core", "pure"):
        engine = _module_kind("rookery.engine._game")
    try:
        from rookery.engine import HeuristicPlayouts  # type: ignore[attr-defined,unused-ignore]

        core_playouts = bool(HeuristicPlayouts.available())
    except ImportError:
        core_playouts = False
    # Without the core, pimc's samples are played out by the bots' own model (``_play``,
    # ``_simulate``): today's build compiled it with mypyc, and a tree without it is not today's.
    models = {_module_kind(f"rookery.client.bots.{name}") for name in ("_play", "_simulate")}
    playouts = "core" if core_playouts else ("compiled" if models == {"compiled"} else "pure")
    tree = Path(pimc.__file__).resolve().parents[5]  # <tree>/clients/python/rookery/client/bots
    return engine, playouts, str(tree)


def _policy(name: str, budget: float) -> Any:
    """The card searcher a worker runs: this tree's pimc, or (``ddpimc``) double-dummy pimc."""
    if name == "ddpimc":
        from rookery.client.bots.ddpimc import DdPimcParameters, DdPimcPolicy

        return DdPimcPolicy(DdPimcParameters(time_budget=budget))
    from rookery.client.bots import PimcParameters, PimcPolicy

    return PimcPolicy(PimcParameters(time_budget=budget))


def worker(budget: float, policy_name: str) -> None:
    """A worker of one build, on stdin and stdout (JSON lines): first says its build, then
    answers ``{"game", "seat", "seed", "actions"}`` with ``{"action", "samples", "playouts"}``:
    one game per key, brought up to date with the actions it has not seen, and one pimc and one
    generator per seat of it. Its own prints go to stderr."""
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    from rookery.engine import Game, Phase, Ruleset
    from rookery.engine._actions import parse_action

    ruleset = Ruleset.preset("standard").replace(max_hands=1)
    games: dict[str, tuple[Any, list[str]]] = {}
    players: dict[str, tuple[Any, random.Random]] = {}

    def send(value: object) -> None:
        out.write(json.dumps(value) + "\n")
        out.flush()

    send(_build_kind())
    for line in sys.stdin:
        message = json.loads(line)
        name, seat, actions = message["game"], message["seat"], message["actions"]
        if name not in games:
            games[name] = (Game(ruleset, message["seed"], events=False), [])
        game, seen = games[name]
        for text in actions[len(seen) :]:
            game.apply(parse_action(text))
            seen.append(text)
        assert game.current_player == seat, (name, game.current_player, seat)
        key = f"{name}:{seat}"
        if key not in players:
            policy = _policy(policy_name, budget)
            players[key] = (policy, random.Random(key))
        policy, rng = players[key]
        observation = game.observation_for(seat)
        action = policy(observation, observation.legal_actions(), rng)
        search = policy.last_search
        play = observation.phase is Phase.PLAY
        send({
            "action": str(action),
            "samples": search.samples if play else None,
            "playouts": getattr(search, "playouts", None) if play else None,
        })  # fmt: skip
        if play and observation.hand.bit_count() == 1:
            games.pop(name, None)  # its last card: the hand is over for this seat
            players.pop(key, None)


@dataclass(frozen=True)
class PairResult:
    """One deal played twice: the core side's score minus the other side's in each hand, and
    each side's points (for the share of points)."""

    seed: int
    margins: tuple[int, int]
    points: tuple[tuple[int, int], tuple[int, int]]
    #: Per side: card decisions searched, their samples and their playouts (``None``: not counted).
    searches: dict[str, list[int | None]] = field(default_factory=dict)

    @property
    def margin(self) -> float:
        return sum(self.margins) / 2


def side_environment(side: str, tree: Path | None) -> dict[str, str]:
    """The environment of ``side``'s workers."""
    environment = dict(os.environ)
    environment.pop(PURE_ENV, None)
    if side == "pure":
        environment[PURE_ENV] = "1"
    if side == "base":
        assert tree is not None
        environment.update(tree_environment(tree))
    return environment


class Side:
    """One worker process of one side."""

    def __init__(self, side: str, budget: float, tree: Path | None, policy: str = "pimc") -> None:
        command = [sys.executable, str(Path(__file__).resolve()), "--worker"]
        command += ["--budget", str(budget), "--policy", policy]
        self.process = subprocess.Popen(
            command, env=side_environment(side, tree), stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True,
        )  # fmt: skip
        engine, playouts, source = self.receive()
        if (engine, playouts) != EXPECTED[side]:
            self.close()
            raise SystemExit(
                f"the {side} side runs the {engine} engine and {playouts} playouts "
                "(run `make setup` first, or give a built tree)"
            )
        if side == "base" and tree is not None and Path(source) != tree.resolve():
            self.close()
            raise SystemExit(f"the base side's pimc comes from {source}, not {tree}")
        self.kind = {"engine": engine, "playouts": playouts, "source": source, "policy": policy}
        print(f"{side} side: engine {engine}, playouts {playouts}", file=sys.stderr)

    def receive(self) -> Any:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit(f"a worker stopped (exit code {self.process.wait()})")
        return json.loads(line)

    def ask(self, message: dict[str, object]) -> dict[str, Any]:
        stdin: IO[str] | None = self.process.stdin
        assert stdin is not None
        stdin.write(json.dumps(message) + "\n")
        stdin.flush()
        answer: dict[str, Any] = self.receive()
        return answer

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()


def play_pair(sides: dict[str, Side], opponent: str, seed: int) -> PairResult:
    """Deal ``seed`` twice: the core pimc on side 0, then on side 1."""
    from rookery.engine import Game, Ruleset
    from rookery.engine._actions import parse_action

    ruleset = Ruleset.preset("standard").replace(max_hands=1)
    margins: list[int] = []
    points: list[tuple[int, int]] = []
    searches: dict[str, list[int | None]] = {"core": [0, 0, 0], opponent: [0, 0, 0]}
    for core_side in (0, 1):
        game = Game(ruleset, seed, events=False)
        actions: list[str] = []
        while not game.is_over:
            seat = game.current_player
            assert seat is not None
            side = "core" if ruleset.side_of(seat) == core_side else opponent
            name = f"{seed}:{core_side}"
            answer = sides[side].ask({"game": name, "seat": seat, "seed": seed,
                                      "actions": actions})  # fmt: skip
            game.apply(parse_action(answer["action"]))
            actions.append(answer["action"])
            if answer["samples"] is not None:
                tally = searches[side]
                tally[0] = (tally[0] or 0) + 1
                tally[1] = (tally[1] or 0) + answer["samples"]
                playouts = answer["playouts"]
                tally[2] = None if playouts is None or tally[2] is None else tally[2] + playouts
        (hand,) = game.hand_results
        ours, theirs = hand.score_deltas[core_side], hand.score_deltas[1 - core_side]
        margins.append(ours - theirs)
        points.append((hand.points_per_side[core_side], hand.points_per_side[1 - core_side]))
    return PairResult(seed, (margins[0], margins[1]), (points[0], points[1]), searches)


def _play_seeds(args: tuple[Sequence[int], float, str, str | None, str]) -> None:
    seeds, budget, out, tree, policy = args
    base = Path(tree) if tree else None
    opponent = "base" if base else "pure"
    sides = {"core": Side("core", budget, base, policy), opponent: Side(opponent, budget, base)}
    builds = {side: sides[side].kind for side in sides}
    try:
        for seed in seeds:
            pair = play_pair(sides, opponent, seed)
            row = {"seed": pair.seed, "margins": pair.margins, "points": pair.points,
                   "opponent": opponent, "policy": policy, "searches": pair.searches,
                   "builds": builds,
                   "load": os.getloadavg()[0]}  # fmt: skip
            with open(out, "a", encoding="utf-8") as file:
                file.write(json.dumps(row) + "\n")
    finally:
        for side in sides.values():
            side.close()


def load(out: Path, policy: str = "pimc", against: str = "pure") -> list[PairResult]:
    """The pairs recorded in ``out`` (a torn last line, from a run killed mid-write, is left);
    a pair of another policy than ``policy`` on the core side, or against another opponent than
    ``against`` (``pure``, or a baseline tree's resolved path), stops the reading: pairs played
    against two builds are no one match."""
    pairs = []
    if out.exists():
        for line in out.read_text(encoding="utf-8").splitlines():
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            if row.get("policy", "pimc") != policy:
                raise SystemExit(f"{out} holds pairs of {row.get('policy')}, not {policy}")
            opponent = _opponent(row)
            if opponent is not None and opponent != against:
                raise SystemExit(
                    f"{out} holds pairs against {opponent}, not {against}: "
                    "give this match a file of its own (--out)"
                )
            points = tuple(tuple(side) for side in row["points"])
            pairs.append(
                PairResult(row["seed"], tuple(row["margins"]), points, row.get("searches", {}))  # type: ignore[arg-type]
            )
    return pairs


def _opponent(row: dict[str, Any]) -> str | None:
    """Whom a recorded pair was played against: ``pure``, or the baseline tree's path (``None``:
    a row from before the builds were recorded)."""
    if row.get("opponent") == "pure":
        return "pure"
    base = row.get("builds", {}).get("base")
    return str(base["source"]) if base else None


def summary(
    pairs: Sequence[PairResult], opponent: str = "pure", rounds: int = 4000, policy: str = "pimc"
) -> str:
    """The mean margin a hand, its 95 % bootstrap interval, the pairs won, lost and even, the
    core side's share of the points, and each side's samples and playouts a card search."""
    margins = [pair.margin for pair in pairs]
    rng = random.Random(0)
    means = sorted(statistics.fmean(rng.choices(margins, k=len(margins))) for _ in range(rounds))
    low, high = means[int(0.025 * rounds)], means[int(0.975 * rounds) - 1]
    ours = sum(p[0] for pair in pairs for p in pair.points)
    total = ours + sum(p[1] for pair in pairs for p in pair.points)
    won = sum(1 for m in margins if m > 0)
    lost = sum(1 for m in margins if m < 0)
    text = (
        f"{policy} core vs {opponent}: {len(pairs)} pairs ({2 * len(pairs)} hands): "
        f"{statistics.fmean(margins):+.1f} points a hand, 95 % interval [{low:+.1f}, {high:+.1f}]; "
        f"pairs won {won}, lost {lost}, even {len(margins) - won - lost}; "
        f"share of the points {ours / max(total, 1):.3f}"
    )
    for side in ("core", opponent):
        tallies = [pair.searches[side] for pair in pairs if side in pair.searches]
        decisions = sum(t[0] or 0 for t in tallies)
        if decisions:
            samples = sum(t[1] or 0 for t in tallies) / decisions
            text += f"\n  {side}: {samples:.0f} samples a card search"
            if all(t[2] is not None for t in tallies):
                text += f", {sum(t[2] or 0 for t in tallies) / decisions:.0f} playouts"
            text += f" ({decisions} searches)"
    return text


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--pairs", type=int, default=200, help="duplicate pairs in all")
    parser.add_argument("--jobs", type=int, default=2, help="games at once (default 2)")
    parser.add_argument("--budget", type=float, default=0.2, help="seconds a card (default 0.2)")
    parser.add_argument("--seed", type=int, default=SEED_BASE, help="the first deal seed")
    parser.add_argument("--out", type=Path, default=Path("runs/pimc-builds.jsonl"))
    parser.add_argument(
        "--baseline", type=Path, default=None, metavar="TREE",
        help="play against the pimc of this built source tree instead of the pure engine's",
    )  # fmt: skip
    parser.add_argument(
        "--policy", choices=("pimc", "ddpimc"), default="pimc",
        help="the core side's searcher: pimc (default) or double-dummy pimc",
    )  # fmt: skip
    parser.add_argument("--summary", action="store_true", help="print the file's figures only")
    parser.add_argument(
        "--first", type=int, default=None, metavar="N",
        help="the figures of the deals --seed .. --seed+N-1 only (a size set before the run)",
    )  # fmt: skip
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.budget, args.policy)
        return 0
    if args.baseline is not None and not (args.baseline / "engine").is_dir():
        parser.error(f"--baseline {args.baseline}: not a source tree (no engine/ folder)")
    opponent = "base" if args.baseline is not None else "pure"
    args.out.parent.mkdir(parents=True, exist_ok=True)
    against = str(args.baseline.resolve()) if args.baseline is not None else "pure"
    done = {pair.seed for pair in load(args.out, args.policy, against)}
    if not args.summary:
        seeds = [s for s in range(args.seed, args.seed + args.pairs) if s not in done]
        began = time.monotonic()
        chunks = [seeds[i :: args.jobs] for i in range(args.jobs)]
        tree = None if against == "pure" else against
        # Processes of their own, not a pool's (a pool's workers may not start the deciders).
        context = multiprocessing.get_context("spawn")
        players = [
            context.Process(
                target=_play_seeds, args=((chunk, args.budget, str(args.out), tree, args.policy),)
            )
            for chunk in chunks
        ]
        for player in players:
            player.start()
        for player in players:
            player.join()
        if any(player.exitcode for player in players):
            print("a player stopped: the file keeps the pairs it finished", file=sys.stderr)
            return 1
        print(f"played {len(seeds)} pairs in {time.monotonic() - began:.0f} s", file=sys.stderr)
    pairs = load(args.out, args.policy, against)
    if args.first is not None:
        pairs = [pair for pair in pairs if args.seed <= pair.seed < args.seed + args.first]
    if not pairs:
        print("no pairs played")
        return 1
    print(summary(pairs, opponent, policy=args.policy))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
