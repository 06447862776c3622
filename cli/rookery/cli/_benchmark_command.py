"""`rookery benchmark NAME=COMMAND`: a bot in any language, in a gauntlet on the deal set.

``rookery benchmark NAME=COMMAND`` plays a bot the arena launches (sandboxed by default, as any
contestant) against a reference of the frozen pool, itself a bot process
(:data:`~rookery.client.benchmark.REFERENCE_BOTS`), on the deal set's deals: each deal is one
round of a duplicate gauntlet whose game seed is the deal's seed (``deal_seeds``), so that the
bot's pair holds seats 0 and 2 in one game and 1 and 3 in the other, the same cards in the same
seats. The deal's score is read from the two replays, as an in-process benchmark scores its own
games (:func:`~rookery.client.benchmark.score_deal`); every replay's deal is checked against the
set's.

A game that does not end as a hand ends (a forfeit: the bot crashed, hung, or was stopped by the
sandbox) has no score: the benchmark names the deal and what the arena recorded, and the run
directory keeps every game for ``rookery arena report``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from rookery.arena.config import BotSpec, Format, TournamentConfig
from rookery.arena.errors import ArenaConfigError
from rookery.arena.launch import SandboxMode
from rookery.arena.records import RunStore
from rookery.arena.run import LiveState, TournamentOptions, TournamentRunner
from rookery.client.benchmark import (
    BENCHMARK_RULESET,
    REFERENCE_BOTS,
    BenchmarkResult,
    DealScore,
    DealSet,
    HandOutcome,
    PhaseRegrets,
    benchmark_result,
    game_phase_regret,
    hand_costs,
    score_deal,
)
from rookery.client.deal_pars import DEFAULT_NODE_LIMIT
from rookery.client.par import ContractWorth
from rookery.wire.analysis import analyze_replay
from rookery.wire.convert import deal_from_proto
from rookery.wire.replay import read_replay

__all__ = ["BenchmarkRunError", "benchmark_config", "run_command_benchmark"]

#: Every game's normal end: the one hand played out.
_PLAYED_OUT = {"MAX_HANDS", "TARGET_REACHED"}


class BenchmarkRunError(RuntimeError):
    """A deal without a score (a forfeit), or a replay that is not the deal set's deal."""


def benchmark_config(
    bot: BotSpec,
    reference: str,
    deals: DealSet,
    *,
    sandbox: SandboxMode = SandboxMode.AUTO,
    concurrency: int | None = None,
) -> TournamentConfig:
    """The gauntlet of ``bot`` against ``reference`` on ``deals``, one deal a round."""
    if bot.remote:
        raise ArenaConfigError(
            "BOT", bot.name, "the benchmark launches its bots: give a command (NAME=COMMAND)"
        )
    if reference not in REFERENCE_BOTS:
        raise ArenaConfigError("--against", reference, f"no reference bot {reference!r}")
    config = TournamentConfig(
        name=f"benchmark {bot.name} vs {reference}",
        ruleset=BENCHMARK_RULESET,
        bots=(bot, BotSpec(reference, f"rookery bot run {REFERENCE_BOTS[reference]}")),
        format=Format.GAUNTLET,
        games=2 * len(deals),
        duplicate=True,
        # The bots' seeds derive from it (the deals from deal_seeds): a rerun plays the same.
        seed=1,
        deal_seeds=deals.seeds,
        sandbox=sandbox,
        source="rookery benchmark",
    )
    return config.with_overrides(concurrency=concurrency)


def run_command_benchmark(
    bot: BotSpec,
    reference: str,
    deals: DealSet,
    run_dir: Path,
    *,
    sandbox: SandboxMode = SandboxMode.AUTO,
    concurrency: int | None = None,
    regret_tricks: int = 0,
    pars: Mapping[int, Sequence[ContractWorth]] | None = None,
    on_progress: Callable[[LiveState], None] | None = None,
) -> BenchmarkResult:
    """Play ``bot`` against ``reference`` on every deal, twice, as the arena plays its games
    (into ``run_dir``), and score it as the in-process benchmark scores its games (with
    ``pars``, each deal's sixteen contracts by seed, the regrets against par too)."""
    config = benchmark_config(
        bot, reference, deals, sandbox=sandbox, concurrency=concurrency
    ).with_overrides(out=run_dir)

    async def play() -> None:
        runner = TournamentRunner(
            config, run_dir, options=TournamentOptions(), on_progress=on_progress
        )
        result = await runner.run()
        if result.cancelled:
            raise KeyboardInterrupt

    asyncio.run(play())
    with RunStore(run_dir) as store:
        games = store.games(config.tournament_id)
    by_round: dict[int, list[tuple[HandOutcome, int, tuple[int, int], PhaseRegrets | None]]] = {}
    for game in sorted(games, key=lambda g: g.index):
        seed = deals.seeds[game.round]
        if game.termination not in _PLAYED_OUT:
            raise BenchmarkRunError(
                f"deal {seed}: {game.termination.lower()}: {game.detail or 'no detail'} "
                f"(the games are in {run_dir})"
            )
        replay = read_replay(run_dir / game.replay_path)
        hand = replay.hands[0]
        if deal_from_proto(hand.deal) != deals.deals[game.round]:
            raise BenchmarkRunError(f"deal {seed}: the game was dealt other cards than the set's")
        costs = (0, 0)
        if regret_tricks and not hand.result.redeal:
            costs = hand_costs(replay, regret_tricks)
        side = game.side_bots.index(bot.name)
        phases = None
        if pars is not None:
            # The engine's result of the hand (its deal, dealer and bury), replayed.
            result = analyze_replay(replay, last_tricks=0).results[0]
            contracts = pars[seed]
            phases = game_phase_regret(result, side, contracts, node_limit=DEFAULT_NODE_LIMIT)
        by_round.setdefault(game.round, []).append((hand.result, side, costs, phases))
    scores: list[DealScore] = []
    for round_index in range(len(deals)):
        played = by_round.get(round_index, [])
        if len(played) != 2:
            raise BenchmarkRunError(
                f"deal {deals.seeds[round_index]}: {len(played)} of its 2 games recorded"
            )
        scores.append(
            score_deal(
                [(result, side) for result, side, _, _ in played],
                [costs for _, _, costs, _ in played] if regret_tricks else (),
                [phases for _, _, _, phases in played if phases is not None],
            )
        )
    return benchmark_result(bot.name, reference, scores, regret_tricks)
