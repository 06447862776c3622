"""What the board says: the final standings in the order of the ratings they show, each
neighbour's likelihood of superiority at least ½ for the upper version, a version without rated
games shown as such, and ``league serve --help`` giving the defaults the tables get."""

from __future__ import annotations

import asyncio
import random
import subprocess
import time
from pathlib import Path

import pytest
from league_helpers import ROOKERY
from rookery.arena.league import League, LeagueOptions, VersionState, seat_name
from rookery.arena.league.matchmaking import centred_los
from rookery.arena.league.store import LeagueGame, PairRecord
from rookery.cli.league import ACTION_MS, GRACE_MS
from rookery.server import RookeryServer, ServerConfig, TimeControl
from rookery.web._league import league_json


def test_centred_los_is_at_least_half_for_the_higher_rated_and_below_for_the_lower() -> None:
    rng = random.Random(7)
    for _ in range(500):
        point = rng.uniform(-30, 30)
        # Skewed refits, their median away from the fit's difference (the bootstrap's bias).
        bias = rng.uniform(-20, 20)
        differences = [point + bias + rng.expovariate(1 / 25) - 25 for _ in range(60)]
        los = centred_los(point, differences)
        assert (los >= 0.5) if point > 0 else (los <= 0.5), (point, los)
    assert centred_los(0.0, [3.0, 4.0]) == 0.5
    assert centred_los(12.0, []) == 0.5, "no refits: nothing known"


def _game(game_id: str, first: str, second: str, first_wins: bool) -> LeagueGame:
    sides = ((seat_name(first),) * 2, (seat_name(second),) * 2)
    seats = (sides[0][0], sides[1][0], sides[0][0], sides[1][0])
    ranks = (0, 1) if first_wins else (1, 0)
    return LeagueGame(game_id, seats, sides, ranks, (1, 0), "NORMAL", "", 1, 0.1, "", "")


def _season_of_equals(tmp_path: Path, seed: int) -> League:
    """A league of nine near-equal versions and a retired one, 140 rated pairs and one final
    pair played (random results), its final evaluation's budget spent."""
    options = LeagueOptions(autoplay=False, bootstrap=60, open_mode=True)
    league = League(tmp_path / f"s{seed}" / "league.sqlite", RookeryServer(ServerConfig()), options)
    season = league.create_season("spring", time.time() + 3600, 0.95, 1)
    versions = []
    for n in range(10):
        record = league.store.add_version(
            f"bot{n}", season.season_id, f"c{n}", f"i{n}", "true", "", "", VersionState.ACTIVE
        )
        versions.append(record.version_id)
    rng = random.Random(seed)
    strength = {v: rng.gauss(0, 0.15) for v in versions}
    for number in range(141):
        a, b = rng.sample(versions, 2)
        p_a = 1 / (1 + 10 ** (strength[b] - strength[a]))
        games = tuple(
            _game(
                f"p{number}-{i}", *((a, b) if i == 0 else (b, a)), (rng.random() < p_a) == (i == 0)
            )
            for i in range(2)
        )
        kind = "final" if number == 140 else "rated"
        score = sum(1.0 for g in games if g.ranks[0 if g.sides[0][0] == seat_name(a) else 1] == 0)
        league.store.record_pair(
            PairRecord(0, season.season_id, kind, a, b, 0, True, None, score, False, 0.0, games)
        )
        if number == 139:
            league.store.set_season_status(season.season_id, "final")
    league.store.set_version_status(versions[-1], VersionState.RETIRED)  # rated, not ranked
    return league


@pytest.mark.parametrize("seed", range(6))
def test_the_final_standings_are_in_rating_order_with_each_upper_los_at_least_half(
    tmp_path: Path, seed: int
) -> None:
    league = _season_of_equals(tmp_path, seed)
    try:
        asyncio.run(league.refit())  # the board's ratings of every version, as after a pair
        assert league.next_pairing() is None  # the budget is spent: the season closes
        board = league.board(all_versions=True)
        assert board.final and len(board.lines) == 9
        elos = [line.elo for line in board.lines]
        assert elos == sorted(elos, reverse=True), [
            (line.version.version_id, line.elo) for line in board.lines
        ]
        for line, verdict in zip(board.lines, board.verdicts, strict=False):
            assert verdict.startswith(line.version.version_id), verdict
            los = float(verdict.split("LOS ")[1][:5])
            assert los >= 0.5, verdict
        page = league_json(league)["all"]  # the pages show the same ratings in the same order
        assert [(v["version_id"], v["elo"]) for v in page] == [
            (line.version.version_id, round(line.elo, 1)) for line in board.lines
        ]
    finally:
        league.store.close()


def test_a_version_without_rated_games_says_so() -> None:
    from rookery.cli.league import _line
    from rookery.v1 import league_pb2

    fresh = league_pb2.BotVersion(version_id="alpha@2", status=league_pb2.VERSION_STATUS_ACTIVE)
    assert "no rated games" in _line(fresh) and "0.0" not in _line(fresh)
    rated = league_pb2.BotVersion(version_id="alpha@1", elo=12.5, elo_error=30.0, games=8)
    assert "+12.5 ±  30.0     8" in _line(rated)


def test_serve_help_gives_the_time_control_the_tables_get() -> None:
    shown = subprocess.run(
        [str(ROOKERY), "league", "serve", "--help"], capture_output=True, text=True, check=True
    ).stdout
    defaults = TimeControl()
    assert (defaults.action_ms, defaults.grace_ms) == (ACTION_MS, GRACE_MS)
    assert f"a move's time (default {defaults.action_ms})" in shown
    assert f"(default {defaults.grace_ms})" in " ".join(shown.split())
