"""The Rook AI benchmark: a bot against a frozen pool of reference bots on fixed duplicate deals.

Each deal of a shipped deal set (``benchmark/deals/``) is one hand of ``standard`` played twice:
the bot's pair at seats 0 and 2 against the reference's at 1 and 3, then the other way round,
the same cards in the same seats and the same dealer. A deal's score is the bot's side's hand
score minus the reference side's, averaged over the two games: what the bot gains per deal over
the reference in its seats. Every seat's generator is seeded from the deal, so a run is
reproducible to the point: the same bot on the same deals gives the same numbers.

A bot that runs as a command (any language) is played by the arena instead, against the
reference as a bot process (:data:`REFERENCE_BOTS`), and its games are scored from their
replays by the same :func:`score_deal`.

>>> from rookery.client.benchmark import REFERENCES
>>> sorted(REFERENCES)
['ddpimc-16', 'heuristic', 'pimc-16', 'random']
"""

from __future__ import annotations

import dataclasses
import gzip
import hashlib
import math
import multiprocessing
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Protocol

from rookery.engine import PRESETS, Deal, EngineError, Game, HandResult, Ruleset, deal_for_hand
from rookery.v1 import replay_pb2
from rookery.wire.analysis import DEFAULT_NODE_LIMIT, AnalysisError, analyze_replay
from rookery.wire.replay import ReplayBuilder

from .bots import HeuristicPolicy, PimcParameters, PimcPolicy, Policy, random_policy
from .bots._bot import PolicyBot
from .par import ContractWorth, deal_par_net, hand_par

__all__ = [
    "BENCHMARK_RULESET",
    "REFERENCES",
    "REFERENCE_BOTS",
    "BenchmarkResult",
    "DealScore",
    "DealSet",
    "DealSetError",
    "HandOutcome",
    "PhaseRegrets",
    "benchmark_result",
    "deal_file_lines",
    "deal_file_text",
    "deal_set_digest",
    "game_phase_regret",
    "generate_deal_set",
    "hand_costs",
    "play_deal",
    "read_deal_set",
    "run_benchmark",
    "score_deal",
    "write_deal_set",
]

#: The benchmark's rules: one hand of ``standard``.
BENCHMARK_RULESET: Ruleset = PRESETS["standard"].replace(name="standard", max_hands=1)


def _ddpimc() -> Policy:
    from .bots.ddpimc import DdPimcParameters, DdPimcPolicy  # needs the native core

    return DdPimcPolicy(DdPimcParameters(time_budget=None, samples=16))


#: The frozen reference pool: name -> a fresh policy. The searchers run on a fixed number of
#: samples per decision, not on time, so that their strength does not depend on the machine.
REFERENCES: dict[str, Callable[[], Policy]] = {
    "random": lambda: random_policy,
    "heuristic": HeuristicPolicy,
    "pimc-16": lambda: PimcPolicy(PimcParameters(time_budget=None, samples=16)),
    "ddpimc-16": _ddpimc,
}


class _ReferenceBot(PolicyBot):
    """A reference of the pool as a bot of its own (``rookery bot run``): what the benchmark
    seats against a bot that runs as a command (``rookery benchmark NAME=COMMAND``, which the
    arena plays)."""

    reference = ""

    def __init__(self) -> None:
        super().__init__(REFERENCES[self.reference]())


class RandomReference(_ReferenceBot):
    reference = "random"


class HeuristicReference(_ReferenceBot):
    reference = "heuristic"


class Pimc16Reference(_ReferenceBot):
    reference = "pimc-16"


class DdPimc16Reference(_ReferenceBot):
    reference = "ddpimc-16"


#: The reference pool as ``rookery bot run`` targets: name -> ``module:Class``.
REFERENCE_BOTS: dict[str, str] = {
    bot.reference: f"{__name__}:{bot.__name__}"
    for bot in (RandomReference, HeuristicReference, Pimc16Reference, DdPimc16Reference)
}


class DealSetError(ValueError):
    """A deal set file that cannot be read, or whose deals the engine does not deal."""


@dataclasses.dataclass(frozen=True)
class DealSet:
    """Fixed deals: ``seeds[i]`` is the game seed that deals ``deals[i]`` (hand 0, dealer 0)."""

    seeds: tuple[int, ...]
    deals: tuple[Deal, ...]

    def __len__(self) -> int:
        return len(self.seeds)

    def first(self, count: int) -> DealSet:
        """The first ``count`` deals."""
        return DealSet(self.seeds[:count], self.deals[:count])


def generate_deal_set(count: int, *, first_seed: int = 0) -> DealSet:
    """``count`` deals of the benchmark's rules, from the seeds ``first_seed`` on."""
    seeds = tuple(range(first_seed, first_seed + count))
    return DealSet(seeds, tuple(deal_for_hand(BENCHMARK_RULESET, seed, 0) for seed in seeds))


_HEADER = "# Rookery benchmark deals ({rules}): seed, then seats 0-3 and the nest as card masks\n"


def write_deal_set(path: Path, deals: DealSet) -> None:
    """Write a deal set: text, one deal a line (gzip when the name ends in ``.gz``)."""
    lines = [_HEADER.format(rules=BENCHMARK_RULESET.name)]
    for seed, deal in zip(deals.seeds, deals.deals, strict=True):
        masks = " ".join(f"{mask:x}" for mask in (*deal.hands, deal.nest))
        lines.append(f"{seed} {masks}\n")
    data = "".join(lines).encode()
    if path.name.endswith(".gz"):
        data = gzip.compress(data, mtime=0)
    path.write_bytes(data)


def deal_file_text(path: Path) -> str:
    """The text of a deal set or results file (decompressed when the name ends in ``.gz``);
    ``DealSetError`` when it cannot be read."""
    try:
        data = path.read_bytes()
        if path.name.endswith(".gz"):
            data = gzip.decompress(data)
        return data.decode()
    except (OSError, EOFError, gzip.BadGzipFile, UnicodeDecodeError) as error:
        raise DealSetError(f"{path}: cannot read: {error}") from error


def deal_file_lines(path: Path) -> Iterator[tuple[int, str]]:
    """A deal set or results file's lines that are not comments, with their line numbers."""
    for number, line in enumerate(deal_file_text(path).splitlines(), start=1):
        if line and not line.startswith("#"):
            yield number, line


def read_deal_set(path: Path) -> DealSet:
    """Read a deal set and check that the engine deals each deal from its seed.

    ``DealSetError`` names the line of a malformed deal, or of one the engine deals otherwise.
    """
    seeds: list[int] = []
    deals: list[Deal] = []
    for number, line in deal_file_lines(path):
        parts = line.split()
        try:
            if len(parts) != 6:
                raise ValueError(f"expected a seed and 5 card masks, got {len(parts)} fields")
            seed = int(parts[0])
            hands = tuple(int(mask, 16) for mask in parts[1:5])
            deal = Deal(hands, int(parts[5], 16), 0)
        except ValueError as error:
            raise DealSetError(f"{path}:{number}: {error}") from error
        if deal_for_hand(BENCHMARK_RULESET, seed, 0) != deal:
            raise DealSetError(
                f"{path}:{number}: seed {seed} does not deal these cards with this engine"
            )
        seeds.append(seed)
        deals.append(deal)
    if not seeds:
        raise DealSetError(f"{path}: no deal")
    return DealSet(tuple(seeds), tuple(deals))


def deal_set_digest(path: Path) -> str:
    """The SHA-256 of a deal set's text (decompressed): what the checksum test pins."""
    data = path.read_bytes()
    if path.name.endswith(".gz"):
        data = gzip.decompress(data)
    return hashlib.sha256(data).hexdigest()


@dataclasses.dataclass(frozen=True)
class BenchmarkResult:
    """A bot against one reference over a deal set.

    ``per_deal`` holds each deal's score (the bot's side minus the reference's, the mean of its
    two games). ``bids`` counts the games whose contract the bot's side won and ``made`` those
    it made; ``opponent_bids`` and ``sets`` the same for the reference's contracts (``sets``: the
    bot's side set them). ``passed_out`` counts games every seat passed. With
    ``regret_tricks``, ``play_regret`` holds each deal's (bot's side, reference's side) play
    regret: the double-dummy cost of their cards in the last ``regret_tricks`` tricks, the mean
    of the deal's two games. With the deal set's pars, ``phase_regret`` holds each deal's
    regrets against par (:data:`PhaseRegrets`), the mean of its two games.
    """

    bot: str
    reference: str
    per_deal: tuple[float, ...]
    bids: int
    made: int
    opponent_bids: int
    sets: int
    passed_out: int
    regret_tricks: int = 0
    play_regret: tuple[tuple[float, float], ...] = ()
    phase_regret: tuple[PhaseRegrets, ...] = ()

    @property
    def phase_regrets(self) -> PhaseRegrets | None:
        """The means a deal of :data:`PhaseRegrets` (the bot's side's and the reference's
        auction regret, then their nest and bury regret, each as its bounds); None when not
        measured."""
        return _mean_phases(self.phase_regret) if self.phase_regret else None

    @property
    def play_regrets(self) -> tuple[float, float] | None:
        """The points a deal the bot's side and the reference's lost by their cards in the
        hand's last ``regret_tricks`` tricks (double-dummy costs); None when not measured."""
        if not self.play_regret:
            return None
        n = len(self.play_regret)
        return (
            sum(ours for ours, _ in self.play_regret) / n,
            sum(theirs for _, theirs in self.play_regret) / n,
        )

    @property
    def deals(self) -> int:
        """How many deals were played (two games each)."""
        return len(self.per_deal)

    @property
    def mean(self) -> float:
        """Points per deal."""
        return sum(self.per_deal) / len(self.per_deal)

    @property
    def interval(self) -> float:
        """The half-width of the mean's 95 % interval (normal approximation)."""
        n = len(self.per_deal)
        if n < 2:
            return math.inf
        mean = self.mean
        variance = sum((x - mean) ** 2 for x in self.per_deal) / (n - 1)
        return 1.96 * math.sqrt(variance / n)

    @property
    def made_rate(self) -> float:
        """The share of the bot's side's contracts it made (nan: it never bid)."""
        return self.made / self.bids if self.bids else math.nan

    @property
    def set_rate(self) -> float:
        """The share of the reference's contracts the bot's side set (nan: it never bid)."""
        return self.sets / self.opponent_bids if self.opponent_bids else math.nan


def play_deal(
    deal_seed: int,
    policies: Sequence[Policy],
    builder: ReplayBuilder | None = None,
    *,
    watch: Callable[[Game], None] | None = None,
) -> Game:
    """Play the benchmark's hand of ``deal_seed`` with ``policies`` at seats 0 to 3, every
    seat's generator seeded from the deal (recorded by ``builder`` when given; ``watch`` sees
    the game before each action)."""
    if builder is not None:
        builder.start(BENCHMARK_RULESET, deal_seed)
        game = builder.game
    else:
        game = Game(BENCHMARK_RULESET, deal_seed, events=False)
    rngs = [random.Random(f"benchmark:{deal_seed}:{seat}") for seat in range(4)]
    while not game.is_over:
        if watch is not None:
            watch(game)
        seat = game.current_player
        assert seat is not None
        obs = game.observation_for(seat)
        action = policies[seat](obs, obs.legal_actions(), rngs[seat])
        if builder is not None:
            builder.record_action(seat, action)
        else:
            game.apply(action)
    if builder is not None:
        builder.finish()
    return game


def hand_costs(replay: replay_pb2.Replay, tricks: int) -> tuple[int, int]:
    """The double-dummy cost of side 0's and side 1's cards in hand 0's last ``tricks``."""
    hand = analyze_replay(replay, last_tricks=tricks).hands[0]
    costs = [0, 0]
    for play in hand.plays:
        if play.cost is not None:
            costs[play.seat % 2] += play.cost
    return costs[0], costs[1]


class HandOutcome(Protocol):
    """What the benchmark reads of a hand's result: the engine's ``HandResult``, or the
    ``HandResult`` message of a replay (the same fields)."""

    @property
    def redeal(self) -> bool: ...

    @property
    def bidder(self) -> int: ...

    @property
    def made(self) -> bool: ...

    @property
    def score_deltas(self) -> Sequence[int]: ...


#: A game's (or a deal's mean) regret against par: the bot's side's and the reference's
#: auction regret (net points), then the bot's side's and the reference's nest and bury regret
#: (points), each as its (low, high) bounds (equal when every contract was solved).
PhaseRegrets = tuple[
    tuple[float, float], tuple[float, float], tuple[float, float], tuple[float, float]
]


def game_phase_regret(
    result: HandResult, bot_side: int, contracts: Sequence[ContractWorth], *, node_limit: int
) -> PhaseRegrets:
    """A benchmark game's regrets against its deal's par (``rookery.client.par``), from the
    deal's sixteen contracts solved before (``rookery.client.deal_pars``) and the game's own
    contract, solved within ``node_limit`` nodes (unless the deal's contracts hold it solved:
    its bidder buried as the heuristic does). A hand every seat passed scores 0: each side's
    auction regret is then its par."""
    if result.redeal or result.trump is None:
        par = deal_par_net(BENCHMARK_RULESET, result.deal, result.dealer, contracts)
        first, second = (float(par.low), float(par.high)), (float(-par.high), float(-par.low))
        auction = (first, second) if bot_side == 0 else (second, first)
        return (auction[0], auction[1], (0.0, 0.0), (0.0, 0.0))
    hand = hand_par(BENCHMARK_RULESET, result, node_limit=node_limit, contracts=contracts)
    regret = hand.auction_regret
    bidding = (float(regret.low), float(regret.high))
    defending = (float(-regret.high), float(-regret.low))
    bury = (float(hand.bury_regret.low), float(hand.bury_regret.high))
    if result.bidder % 2 == bot_side:
        return (bidding, defending, bury, (0.0, 0.0))
    return (defending, bidding, (0.0, 0.0), bury)


def _mean_phases(items: Sequence[PhaseRegrets]) -> PhaseRegrets:
    """The mean of some games' (or deals') regrets against par, bound by bound."""
    means = [
        (
            sum(item[phase][0] for item in items) / len(items),
            sum(item[phase][1] for item in items) / len(items),
        )
        for phase in range(4)
    ]
    return (means[0], means[1], means[2], means[3])


@dataclasses.dataclass(frozen=True)
class DealScore:
    """One deal's two games: the score (the bot's side minus the reference's, their mean), the
    contracts, and each side's play regret and regrets against par when measured."""

    score: float
    bids: int = 0
    made: int = 0
    opponent_bids: int = 0
    sets: int = 0
    passed_out: int = 0
    regret: tuple[float, float] = (0.0, 0.0)
    phases: PhaseRegrets | None = None


def score_deal(
    games: Sequence[tuple[HandOutcome, int]],
    costs: Sequence[tuple[int, int]] = (),
    phases: Sequence[PhaseRegrets] = (),
) -> DealScore:
    """A deal's score from its games: each game's hand result and the bot's side in it (0 or
    1); ``costs``, when measured, each game's (side 0, side 1) play regret; ``phases``, when
    measured, each game's regrets against par (:func:`game_phase_regret`)."""
    total = 0.0
    counts = {"bids": 0, "made": 0, "opponent_bids": 0, "sets": 0, "passed_out": 0}
    for result, bot_side in games:
        deltas = result.score_deltas
        total += deltas[bot_side] - deltas[1 - bot_side]
        if result.redeal:
            counts["passed_out"] += 1
        elif result.bidder % 2 == bot_side:
            counts["bids"] += 1
            counts["made"] += result.made
        else:
            counts["opponent_bids"] += 1
            counts["sets"] += not result.made
    regret = [0.0, 0.0]  # the bot's side's, the reference's
    for (_, bot_side), cost in zip(games, costs, strict=False):
        regret[0] += cost[bot_side] / len(games)
        regret[1] += cost[1 - bot_side] / len(games)
    means = _mean_phases(phases) if phases else None
    return DealScore(total / len(games), **counts, regret=(regret[0], regret[1]), phases=means)


@dataclasses.dataclass(frozen=True)
class _Measures:
    """What a run measures besides the score: the play regret's tricks, and the deal set's
    pars (each deal's sixteen contracts, by seed) with the node limit of a game's own."""

    regret_tricks: int = 0
    pars: Mapping[int, Sequence[ContractWorth]] | None = None
    par_node_limit: int = 0


def _score_deal(
    seed: int,
    make_bot: Callable[[], Policy],
    make_reference: Callable[[], Policy],
    measures: _Measures,
) -> DealScore:
    games: list[tuple[HandOutcome, int]] = []
    costs: list[tuple[int, int]] = []
    phases: list[PhaseRegrets] = []
    for bot_side in (0, 1):
        policies = [make_bot() if seat % 2 == bot_side else make_reference() for seat in range(4)]
        builder = ReplayBuilder() if measures.regret_tricks else None
        result = play_deal(seed, policies, builder).hand_results[0]
        games.append((result, bot_side))
        if builder is not None:
            tricks = measures.regret_tricks
            costs.append((0, 0) if result.redeal else hand_costs(builder.replay(), tricks))
        if measures.pars is not None:
            contracts = measures.pars[seed]
            limit = measures.par_node_limit
            phases.append(game_phase_regret(result, bot_side, contracts, node_limit=limit))
    return score_deal(games, costs, phases)


#: A worker process's bots (``jobs`` > 1): set once by ``_start_worker``, inherited by fork.
_worker_bots: tuple[Callable[[], Policy], Callable[[], Policy], _Measures] | None = None


def _start_worker(
    make_bot: Callable[[], Policy], make_reference: Callable[[], Policy], measures: _Measures
) -> None:
    global _worker_bots
    _worker_bots = (make_bot, make_reference, measures)


def _score_in_worker(seed: int) -> DealScore | tuple[str, str]:
    """A deal scored in a worker, or the error that stopped it (its kind and message: not
    every error of a bot or of the engine survives the trip back as itself)."""
    assert _worker_bots is not None
    try:
        return _score_deal(seed, *_worker_bots)
    except EngineError as error:
        return ("engine", str(error))
    except AnalysisError as error:
        return ("analysis", str(error))
    except Exception as error:  # a bot's own crash: named, as the one-process run would
        return ("crash", f"{type(error).__name__}: {error}")


def run_benchmark(
    bot: str,
    make_bot: Callable[[], Policy],
    reference: str,
    deals: DealSet,
    *,
    progress: Callable[[int], None] | None = None,
    regret_tricks: int = 0,
    pars: Mapping[int, Sequence[ContractWorth]] | None = None,
    par_node_limit: int = DEFAULT_NODE_LIMIT,
    jobs: int = 1,
) -> BenchmarkResult:
    """Play ``make_bot``'s policy against the reference ``reference`` on every deal, twice.

    ``regret_tricks``: value every card of each hand's last that many tricks with the
    double-dummy solver (the native core) and report each side's play regret. ``pars``: each
    deal's sixteen contracts by seed (``rookery.client.deal_pars``): report each side's
    auction and nest and bury regret against par, each game's own contract solved within
    ``par_node_limit`` nodes. ``jobs``: play
    that many deals at once in forked worker processes; the result is the same as one
    process's, deal for deal (every seat's generator is seeded from its deal).
    """
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    make_reference = REFERENCES[reference]
    measures = _Measures(regret_tricks, pars, par_node_limit)
    scores: list[DealScore] = []
    if jobs == 1 or len(deals) < 2:
        for seed in deals.seeds:
            try:
                scores.append(_score_deal(seed, make_bot, make_reference, measures))
            except (EngineError, AnalysisError):
                raise
            except Exception as error:  # a bot's own crash, named as the workers name it
                raise RuntimeError(f"deal {seed}: {type(error).__name__}: {error}") from error
            if progress is not None:
                progress(len(scores))
    else:
        context = multiprocessing.get_context("fork")
        with context.Pool(
            min(jobs, len(deals)),
            initializer=_start_worker,
            initargs=(make_bot, make_reference, measures),
        ) as pool:
            for seed, outcome in zip(
                deals.seeds, pool.imap(_score_in_worker, deals.seeds), strict=True
            ):
                if isinstance(outcome, tuple):
                    kind, message = outcome
                    if kind == "engine":
                        raise EngineError(message)
                    if kind == "analysis":
                        raise AnalysisError(message)
                    raise RuntimeError(f"deal {seed}: {message}")
                scores.append(outcome)
                if progress is not None:
                    progress(len(scores))
    return benchmark_result(bot, reference, scores, regret_tricks)


def benchmark_result(
    bot: str, reference: str, scores: Sequence[DealScore], regret_tricks: int = 0
) -> BenchmarkResult:
    """The result of ``bot`` against ``reference`` from every deal's score, in deal order."""
    return BenchmarkResult(
        bot,
        reference,
        tuple(score.score for score in scores),
        sum(score.bids for score in scores),
        sum(score.made for score in scores),
        sum(score.opponent_bids for score in scores),
        sum(score.sets for score in scores),
        sum(score.passed_out for score in scores),
        regret_tricks,
        tuple(score.regret for score in scores) if regret_tricks else (),
        tuple(score.phases for score in scores if score.phases is not None),
    )
