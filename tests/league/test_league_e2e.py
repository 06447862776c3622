"""A whole season, end to end: a league server process, twelve versions by four authors (the
heuristic move with probability p, else random: three known strengths), continuous play, a
SIGKILL of the server in the middle and a restart (nothing lost, ratings continue), and a final
evaluation whose standings are right in all they claim: every block of neighbours they call tied
ranks at least as strong as every block below it, and which neighbours remain tied is stated."""

from __future__ import annotations

import itertools
import sqlite3
import subprocess
import time
from pathlib import Path

import grpc
import pytest
from google.protobuf.timestamp_pb2 import Timestamp
from league_helpers import MIX_COMMAND, ROOKERY, LeagueProcess, mix_folder
from rookery.arena.league.submissions import pack_folder
from rookery.v1 import league_pb2

#: The three strengths (probability of the heuristic move); four versions of each.
TIERS = (1.0, 0.35, 0.0)
AUTHORS = ("alice", "bob", "carol", "dave")
SERVE_ARGS = [
    "--sandbox", "off", "--target", "100", "--max-hands", "4", "--concurrency", "6",
    "--min-pairs", "2", "--bootstrap", "60", "--grace-ms", "1000",
]  # fmt: skip


def _wait(what: str, check: object, timeout_s: float, interval_s: float = 0.25) -> None:
    deadline = time.monotonic() + timeout_s
    while not check():  # type: ignore[operator]
        assert time.monotonic() < deadline, f"timed out after {timeout_s:g} s waiting for {what}"
        time.sleep(interval_s)


def _rated_pairs(db: Path) -> list[tuple[int, str, str, float]]:
    with sqlite3.connect(db) as connection:
        rows = connection.execute(
            "SELECT pair_id, a, b, score_a FROM pairs WHERE rated = 1 ORDER BY pair_id"
        ).fetchall()
    return [(r[0], r[1], r[2], r[3]) for r in rows]


def _history(db: Path) -> list[tuple[int, str, float]]:
    with sqlite3.connect(db) as connection:
        rows = connection.execute(
            "SELECT pairs, version_id, elo FROM ratings ORDER BY pairs, version_id"
        ).fetchall()
    return [(r[0], r[1], r[2]) for r in rows]


def test_a_season_survives_a_restart_and_its_final_evaluation_ranks_by_strength(
    league_process: LeagueProcess, tmp_path: Path
) -> None:
    started = time.monotonic()
    league = league_process
    league.args = SERVE_ARGS
    league.start()
    tokens = {author: league.add_bot(author) for author in AUTHORS}
    deadline = Timestamp()
    deadline.FromSeconds(int(time.time()) + 3600)
    # 64 final pairs: with 40, one run in eight spent them all separating versions of equal
    # strength (the confidence is per pair and per look) and left every true boundary tied.
    league.call(
        "CreateSeason",
        league_pb2.CreateSeasonRequest(
            name="spring", deadline=deadline, confidence=0.95, final_pair_budget=64
        ),
        "admin-secret-for-tests",
    )
    strength: dict[str, float] = {}
    for index in range(12):
        author = AUTHORS[index // 3]
        p = TIERS[index % 3]
        folder = mix_folder(tmp_path / "sources", f"v{index}", p, extra=f"version {index}")
        response = league.call(
            "SubmitVersion",
            league_pb2.SubmitVersionRequest(
                bot_name=author, command=MIX_COMMAND, archive=pack_folder(folder)
            ),
            tokens[author],
        )
        assert isinstance(response, league_pb2.SubmitVersionResponse)
        strength[response.version.version_id] = p
    assert sorted(strength) == sorted(f"{a}@{n}" for a in AUTHORS for n in (1, 2, 3))

    active = league_pb2.VERSION_STATUS_ACTIVE
    _wait(
        "every version to qualify",
        lambda: sum(v.status == active for v in league.versions()) == 12,
        90,
    )
    db = tmp_path / "league" / "league.sqlite"
    # An author asks for two unrated pairs against another author's version; not with bob's token.
    challenge = league_pb2.ChallengeRequest(
        version_id="alice@1", opponent_version_id="bob@1", pairs=2, rated=False
    )
    with pytest.raises(grpc.RpcError) as refused:
        league.call("Challenge", challenge, tokens["bob"])
    assert refused.value.code() == grpc.StatusCode.PERMISSION_DENIED
    league.call("Challenge", challenge, tokens["alice"])
    _wait("16 rated pairs", lambda: len(_rated_pairs(db)) >= 16, 120)

    # A power cut in the middle of play: everything committed is kept, pairs in flight are lost.
    league.kill()
    pairs_before = _rated_pairs(db)
    history_before = _history(db)
    board_before = {v: e for n, v, e in history_before if n == max(h[0] for h in history_before)}
    league.start()
    after_restart = league.board()
    ratings_after = {line.version.version_id: line.version.elo for line in after_restart.standings}
    assert ratings_after == board_before, "the ratings after the restart are the ones stored"
    more = len(pairs_before) + 6
    _wait("more pairs after the restart", lambda: len(_rated_pairs(db)) >= more, 90)
    assert _rated_pairs(db)[: len(pairs_before)] == pairs_before, "a pair was lost or changed"
    assert _history(db)[: len(history_before)] == history_before, "the rating history was reset"

    league.call(
        "StartFinalEvaluation", league_pb2.StartFinalEvaluationRequest(), "admin-secret-for-tests"
    )
    closed = league_pb2.SEASON_STATUS_CLOSED
    _wait("the final evaluation", lambda: league.board().season.status == closed, 180, 0.5)
    final = league.board()
    ranking = [line.version.version_id for line in final.standings]
    assert len(ranking) == 12
    strengths = [strength[v] for v in ranking]
    # The final standings are right in all they claim: split at every separated boundary, each
    # block of neighbours it calls tied is at least as strong as every block below it (within a
    # block the order is not claimed), and at least one boundary between strengths is settled.
    blocks: list[list[float]] = [[strengths[0]]]
    for line, p in zip(final.standings, strengths[1:], strict=False):
        if line.tied_with_next:
            blocks[-1].append(p)
        else:
            blocks.append([p])
    for upper, lower in itertools.pairwise(blocks):
        assert min(upper) >= max(lower), f"final order {ranking} by {strengths}: {final.verdicts}"
    assert any(min(u) > max(lo) for u, lo in itertools.pairwise(blocks)), final.verdicts
    tied = [line.tied_with_next for line in final.standings[:-1]]
    assert [" ~ " in verdict for verdict in final.verdicts] == tied
    exact = strengths == sorted(strengths, reverse=True)
    assert len(final.verdicts) == 11
    assert final.season.final_pairs_played <= 64, "the final evaluation overspent its budget"
    with sqlite3.connect(db) as connection:
        challenged = connection.execute(
            "SELECT a, b, rated FROM pairs WHERE kind = 'challenge'"
        ).fetchall()
    assert challenged == [("alice@1", "bob@1", 0)] * 2
    shown = subprocess.run(
        [str(ROOKERY), "league", "board", "--server", league.target],
        capture_output=True, text=True, timeout=60, check=True,
    ).stdout  # fmt: skip
    assert "closed" in shown and final.verdicts[0] in shown
    games = 2 * final.season.pairs_played
    print(
        f"\nleague: {final.season.pairs_played} pairs ({games} games, "
        f"{final.season.final_pairs_played} pairs in the final) in "
        f"{time.monotonic() - started:.0f} s; order by strength exactly right: {exact}; "
        f"round-robin to the same separations: see test_league_matchmaking.py; verdicts:\n  "
        + "\n  ".join(final.verdicts)
    )
