"""Tournaments with real bot processes on an embedded server."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rookery.arena.config import BotSpec, Format, TournamentConfig
from rookery.arena.records import RunStore, load_run
from rookery.arena.run import TournamentOptions, TournamentRunner
from rookery.arena.stats import SprtDecision, SprtParams
from rookery.web import write_report
from rookery.wire.replay import read_replay

BotFactory = Callable[..., BotSpec]
ConfigFactory = Callable[..., TournamentConfig]

FAST = TournamentOptions(connect_timeout_s=30.0, join_timeout_s=20.0, game_timeout_s=120.0)


async def test_a_round_robin_of_launched_bots_produces_ratings(
    tmp_path: Path,
    random_and_greedy: tuple[BotSpec, BotSpec],
    make_config: ConfigFactory,
    make_rogue_bot: BotFactory,
) -> None:
    bots = (*random_and_greedy, make_rogue_bot("first", "first"))
    result = await TournamentRunner(make_config(bots), tmp_path, options=FAST).run()
    assert (result.played, result.recorded, result.total) == (6, 6, 6)
    summary = load_run(tmp_path).summary
    assert {s.name for s in summary.standings} == {"random", "greedy", "first"}
    assert all(s.games == 4 for s in summary.standings)
    assert abs(sum(s.elo for s in summary.standings)) < 1e-6
    assert summary.standings[0].elo > summary.standings[-1].elo
    assert all(s.elo_lower <= s.elo <= s.elo_upper for s in summary.standings)


async def test_the_games_of_a_duplicate_pair_have_identical_deals_with_sides_swapped(
    tmp_path: Path,
    random_and_greedy: tuple[BotSpec, BotSpec],
    make_config: ConfigFactory,
) -> None:
    await TournamentRunner(make_config(random_and_greedy), tmp_path, options=FAST).run()
    with RunStore(tmp_path) as store:
        first, second = store.games("test")
    assert first.group == second.group and first.seed == second.seed
    one, two = (read_replay(tmp_path / g.replay_path) for g in (first, second))
    assert one.header.seed == two.header.seed
    seats_one = [s.bot_name for s in one.header.seats]
    seats_two = [s.bot_name for s in two.header.seats]
    assert seats_one == ["random", "greedy", "random", "greedy"]
    assert seats_two == ["greedy", "random", "greedy", "random"]
    hands = min(len(one.hands), len(two.hands))
    assert hands >= 1
    for k in range(hands):
        assert one.hands[k].deal == two.hands[k].deal


async def test_a_report_is_written_with_every_file(
    tmp_path: Path,
    random_and_greedy: tuple[BotSpec, BotSpec],
    make_config: ConfigFactory,
) -> None:
    await TournamentRunner(make_config(random_and_greedy), tmp_path, options=FAST).run()
    paths = write_report(tmp_path)
    assert sorted(p.name for p in paths) == [
        "games.csv",
        "report.html",
        "report.json",
        "standings.csv",
    ]
    page = (tmp_path / "report.html").read_text()
    assert "<svg" in page and "greedy" in page
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in page
    assert len((tmp_path / "games.csv").read_text().splitlines()) == 3


async def test_a_bot_that_crashes_is_restarted_and_the_tournament_finishes(
    tmp_path: Path,
    make_config: ConfigFactory,
    make_sdk_bot: BotFactory,
    make_rogue_bot: BotFactory,
) -> None:
    # Each process exits after its third action, in the first hand of its first game: a seat
    # has at least ten turns left in that hand, more than the three auto-plays (strike limit 3)
    # before it forfeits, so every game ends by the crasher's forfeit whatever the deal. (After
    # its 25th action it crashed near the end of a short game, whose auto-plays then reached
    # the target in 12 of 20 games measured: now and then none of the four forfeited.) The four
    # first processes crash in the first two games; the last two are played by restarted ones.
    bots = (
        make_sdk_bot("random", "RandomBot"),
        make_rogue_bot("crasher", "crash", CRASH_AFTER="3"),
    )
    config = make_config(bots, games=4, process_per_game=False)  # restarts: long-lived only
    result = await TournamentRunner(config, tmp_path, options=FAST).run()
    assert result.recorded == 4
    with RunStore(tmp_path) as store:
        kinds = [kind for bot, kind, _, _ in store.incidents("test") if bot == "crasher"]
        games = store.games("test")
    assert "crash" in kinds and "restart" in kinds
    assert [g.termination for g in games] == ["FORFEIT_DISCONNECT"] * 4
    standing = {s.name: s for s in load_run(tmp_path).summary.standings}["crasher"]
    assert standing.crashes >= 1


async def test_a_bot_that_hangs_forfeits_and_the_tournament_finishes(
    tmp_path: Path,
    make_config: ConfigFactory,
    make_sdk_bot: BotFactory,
    make_rogue_bot: BotFactory,
) -> None:
    bots = (make_sdk_bot("random", "RandomBot"), make_rogue_bot("sleeper", "hang"))
    config = make_config(bots)
    config = config.with_overrides(
        time_control=config.time_control.__class__(action_ms=200, strike_limit=2, grace_ms=500)
    )
    result = await TournamentRunner(config, tmp_path, options=FAST).run()
    assert result.recorded == 2
    with RunStore(tmp_path) as store:
        games = store.games("test")
    assert all(g.termination == "FORFEIT_STRIKES" for g in games)
    assert all(g.bot_stats["sleeper"].timeouts >= 2 for g in games)
    standing = {s.name: s for s in load_run(tmp_path).summary.standings}["sleeper"]
    assert standing.losses == 2 and standing.timeouts >= 4


async def test_a_bot_that_replies_illegally_is_recorded_and_the_tournament_finishes(
    tmp_path: Path,
    make_config: ConfigFactory,
    make_sdk_bot: BotFactory,
    make_rogue_bot: BotFactory,
) -> None:
    bots = (make_sdk_bot("random", "RandomBot"), make_rogue_bot("cheat", "illegal"))
    config = make_config(bots)
    config = config.with_overrides(
        time_control=config.time_control.__class__(action_ms=200, strike_limit=2, grace_ms=500)
    )
    result = await TournamentRunner(config, tmp_path, options=FAST).run()
    assert result.recorded == 2
    standing = {s.name: s for s in load_run(tmp_path).summary.standings}["cheat"]
    assert standing.illegal_replies >= 2
    assert standing.losses == 2


async def test_sprt_on_a_real_pair_of_bots_accepts_the_better_one(
    tmp_path: Path,
    random_and_greedy: tuple[BotSpec, BotSpec],
    make_config: ConfigFactory,
) -> None:
    random_bot, greedy = random_and_greedy
    # The cap is far above where the SPRT decides (a few dozen games): games are counted once
    # their batch is committed, and a loaded disk once held a batch while all of a 200-game cap
    # was played, the decision (LLR 24.7) coming with the last game.
    config = make_config(
        (greedy, random_bot),
        format=Format.SPRT,
        games=2000,
        concurrency=2,
        sprt=SprtParams(elo0=0.0, elo1=100.0, alpha=0.05, beta=0.05),
    )
    result = await TournamentRunner(config, tmp_path, options=FAST).run()
    assert result.sprt_decision is SprtDecision.H1
    assert result.recorded < 2000
    data = load_run(tmp_path)
    assert data.summary.sprt is not None
    assert data.summary.sprt.decision is SprtDecision.H1
    assert data.tournament.sprt_decision == "H1"


async def test_a_finished_tournament_run_again_plays_nothing(
    tmp_path: Path,
    random_and_greedy: tuple[BotSpec, BotSpec],
    make_config: ConfigFactory,
) -> None:
    config = make_config(random_and_greedy)
    await TournamentRunner(config, tmp_path, options=FAST).run()
    again = await TournamentRunner(config, tmp_path, options=FAST).run()
    assert again.resumed and again.played == 0 and again.recorded == 2
