"""Bot notes and move incidents in the replay viewer, and the notes' privacy on every live path
(the page, the JSON API, the event stream, the spectator stream, GetReplay).

The web bots' notes all start with ``NOTE_MARK``; the live bots' notes name their own cards.
"""

from __future__ import annotations

import asyncio
import io
import json
import shutil
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import grpc
import pytest
from playwright.sync_api import Page
from rich.console import Console
from rookery.arena.records import RunStore
from rookery.cli._report_tables import standings_table
from rookery.v1 import (
    arena_service_pb2,
    arena_service_pb2_grpc,
    replay_pb2,
    spectator_service_pb2,
    spectator_service_pb2_grpc,
)
from rookery.web import write_report
from rookery.web.testing import LiveGame, Tournament
from rookery.wire.replay import read_replay, verify_replay
from web_bots import NOTE_MARK

pytestmark = pytest.mark.slow
ROOKERY = [sys.executable, "-m", "rookery.cli.main"]


def _get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def _view(tournament: Tournament, game_id: str) -> Any:
    status, body = _get(f"{tournament.web.url}/api/replays/{game_id}")
    assert status == 200
    return json.loads(body)


def _noted_move(tournament: Tournament) -> tuple[str, int, int, str]:
    """(game, hand, move, note text) of the first move with a note in a scored hand."""
    for game in tournament.data.games:
        replay = read_replay(tournament.run_dir / game.replay_path)
        for hand in replay.hands:
            if not hand.HasField("result"):
                continue
            moves = [a for a in hand.actions if a.outcome != replay_pb2.ACTION_OUTCOME_REJECTED]
            for index, recorded in enumerate(moves):
                if recorded.HasField("note"):
                    return game.game_id, hand.hand_number, index, recorded.note.text
    raise AssertionError("no move has a note")


def _scored_step(view: Any, hand: int) -> int:
    steps = next(h for h in view["hands"] if h["number"] == hand)["steps"]
    return next(i for i, step in enumerate(steps) if step["type"] == "scored")


def test_a_note_is_shown_only_once_its_hand_is_scored(page: Page, tournament: Tournament) -> None:
    game_id, hand, move, text = _noted_move(tournament)
    assert text.startswith(NOTE_MARK)
    page.goto(f"{tournament.web.url}/replays/{game_id}#hand={hand}&move={move}")
    page.wait_for_selector("#move-where")
    assert page.inner_text("#move-where").startswith(f"move {move} of hand {hand}")
    assert page.locator("#move-note-hidden").count() == 1
    assert NOTE_MARK not in page.inner_text("body")
    scored = _scored_step(_view(tournament, game_id), hand)
    page.goto(f"{tournament.web.url}/replays/{game_id}#hand={hand}&step={scored}")
    page.wait_for_selector("#hand-notes")
    item = page.locator(f"#hand-notes li[data-move='{move}']")
    assert text in item.inner_text()


def test_a_fallback_is_shown_at_its_move(page: Page, tournament: Tournament) -> None:
    with RunStore(tournament.run_dir) as store:
        incidents = store.move_incidents(tournament.data.tournament.tournament_id, "first")
    fallback = next(i for i in incidents if i.kind == "fallback")
    assert fallback.detail == "act raised ValueError: first bot fails on trick 3"
    url = f"{tournament.web.url}/replays/{fallback.game_id}"
    page.goto(f"{url}#hand={fallback.hand}&move={fallback.move}")
    page.wait_for_selector("#move-incident")
    assert page.get_attribute("#move-incident", "data-kind") == "fallback"
    assert page.inner_text("#move-where").startswith(
        f"move {fallback.move} of hand {fallback.hand}"
    )
    view = _view(tournament, fallback.game_id)
    steps = next(h for h in view["hands"] if h["number"] == fallback.hand)["steps"]
    own = next(e["move"]["index"] for e in steps if "move" in e and e["move"]["incident"] is None)
    page.goto(f"{url}#hand={fallback.hand}&move={own}")  # a move that was the bot's own reply
    page.wait_for_function(
        f"document.querySelector('#move-where').textContent.startsWith('move {own} ')"
    )
    assert page.get_attribute("#move-incident", "data-kind") == ""
    scored = _scored_step(view, fallback.hand)
    page.goto(f"{url}#hand={fallback.hand}&step={scored}")
    page.wait_for_selector("#hand-notes")
    item = page.locator(f"#hand-notes li[data-move='{fallback.move}']")
    assert "first bot fails on trick 3" in item.inner_text()
    standing = next(s for s in tournament.data.summary.standings if s.name == "first")
    assert standing.fallbacks == sum(1 for i in incidents if i.kind == "fallback") > 0


def test_a_bot_that_raises_in_act_has_its_fallbacks_counted_and_listed(
    tournament: Tournament,
) -> None:
    """``first`` raises on every hand's third trick: each fallback is marked at its move in the
    replay, counted in the standings and the reports, and listed by `rookery arena incidents`."""
    expected: list[tuple[str, int, int, int]] = []
    for game in tournament.data.games:
        replay = read_replay(tournament.run_dir / game.replay_path)
        assert verify_replay(replay) == []
        firsts = {s.seat for s in replay.header.seats if s.bot_name == "first"}
        for hand in replay.hands:
            moves = [a for a in hand.actions if a.outcome != replay_pb2.ACTION_OUTCOME_REJECTED]
            plays = 0
            for index, recorded in enumerate(moves):
                if recorded.HasField("fallback"):
                    assert recorded.seat in firsts and 8 <= plays < 12  # a third trick's play
                    assert recorded.fallback.reason == (
                        "act raised ValueError: first bot fails on trick 3"
                    )
                    expected.append((game.game_id, hand.hand_number, index, recorded.seat))
                plays += recorded.action.HasField("play_card")
    standings = {s.name: s.fallbacks for s in tournament.data.summary.standings}
    assert expected and standings == {"first": len(expected), "random": 0, "greedy": 0}
    command = [*ROOKERY, "arena", "incidents", str(tournament.run_dir), "--bot", "first"]
    out = subprocess.run(
        [*command, "--kind", "fallback", "--json"], capture_output=True, text=True, check=True
    ).stdout
    printed = [json.loads(line) for line in out.splitlines()]
    assert [(p["game_id"], p["hand"], p["move"], p["seat"]) for p in printed] == expected
    with tempfile.TemporaryDirectory() as copy:  # the report is written into the run directory
        run_dir = Path(copy) / "run"
        shutil.copytree(tournament.run_dir, run_dir)
        write_report(run_dir)
        report = json.loads((run_dir / "report.json").read_text())
        assert {s["bot"]: s["fallbacks"] for s in report["standings"]} == standings
        assert "fallbacks" in (run_dir / "standings.csv").read_text().splitlines()[0]
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(standings_table(tournament.data.summary))
    table = console.export_text()
    row = next(line for line in table.splitlines() if " first " in line)
    assert row.rstrip(" │|").split()[-1] == str(len(expected))  # the last column: fallbacks


def test_the_leaderboard_links_each_fallback_to_its_move(
    page: Page, tournament: Tournament
) -> None:
    standing = next(s for s in tournament.data.summary.standings if s.name == "first")
    page.goto(f"{tournament.web.url}/tournaments/{tournament.key}")
    row = page.locator("#leaderboard tr[data-bot='first']")
    row.wait_for()
    cell = row.locator("td").last
    assert cell.inner_text() == str(standing.fallbacks)
    cell.locator("a").click()
    listed = page.locator("ul.incidents[data-bot='first'] li[data-kind='fallback']")
    assert listed.count() == standing.fallbacks  # every game is public: the tournament is over
    link = listed.first.locator("a")
    words = link.inner_text().split()  # "game G hand H move M"
    link.click()
    page.wait_for_selector("#move-incident")
    assert page.get_attribute("#move-incident", "data-kind") == "fallback"
    info = page.inner_text("#move-where")
    assert info.startswith(f"move {words[5]} of hand {words[3]}") and "(first)" in info


async def _spectate(target: str, table_id: str, seconds: float) -> list[bytes]:
    """The spectator stream's messages for ``seconds`` (serialized)."""
    got: list[bytes] = []
    async with grpc.aio.insecure_channel(target) as channel:
        stub = spectator_service_pb2_grpc.SpectatorServiceStub(channel)
        call = stub.WatchTable(spectator_service_pb2.WatchTableRequest(table_id=table_id))

        async def read() -> None:
            async for message in call:
                got.append(message.SerializeToString())

        try:
            await asyncio.wait_for(read(), seconds)
        except TimeoutError:
            call.cancel()
    return got


async def _get_replay(target: str, table_id: str) -> grpc.StatusCode:
    async with grpc.aio.insecure_channel(target) as channel:
        stub = arena_service_pb2_grpc.ArenaServiceStub(channel)
        try:
            await stub.GetReplay(arena_service_pb2.GetReplayRequest(table_id=table_id))
        except grpc.aio.AioRpcError as error:
            assert NOTE_MARK not in (error.details() or "")
            return error.code()
    return grpc.StatusCode.OK


def test_no_live_path_reveals_a_note(page: Page, live_game: LiveGame) -> None:
    """Attacks by a spectator while the bots write notes of their own cards: the page, the
    JSON API, the event stream, the spectator stream and GetReplay never show one."""
    assert live_game.loop is not None
    server, table_id = live_game.server, live_game.table.id
    web = live_game.web.url
    page.goto(f"{web}/tables/{table_id}")
    page.wait_for_selector("#step-text")
    streamed = live_game.loop.run(_spectate(server.target, table_id, 2.0), 20.0)
    assert streamed, "the spectator stream sent nothing"
    assert not any(NOTE_MARK.encode() in message for message in streamed)
    for _ in range(5):
        for path in (f"/api/tables/{table_id}", f"/api/replays/{table_id}", "/api/tables"):
            _, body = _get(web + path)
            assert NOTE_MARK.encode() not in body, path
        assert _get(f"{web}/api/replays/{table_id}")[0] == 409
        assert NOTE_MARK not in page.inner_text("body")
        page.wait_for_timeout(200)
    code = live_game.loop.run(_get_replay(server.target, table_id), 20.0)
    assert code == grpc.StatusCode.FAILED_PRECONDITION
    assert not live_game.table.is_finished  # all of it while the game was being played
    with urllib.request.urlopen(f"{web}/api/tables/{table_id}/events", timeout=10) as stream:
        chunk = b""
        for _ in range(20):  # bounded: until the first state event has come
            chunk += stream.read1(65536)
            if b"\n\n" in chunk.split(b"event: state", 1)[-1] and b"event: state" in chunk:
                break
    assert b"event: state" in chunk and NOTE_MARK.encode() not in chunk
    # Not vacuous: the table has recorded the bots' notes all along (the replay being built).
    building = live_game.call(lambda: live_game.table._replay.replay())
    noted = [a.note.text for h in building.hands for a in h.actions if a.HasField("note")]
    assert noted and all(text.startswith(NOTE_MARK) for text in noted)
