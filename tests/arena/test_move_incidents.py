"""A Python bot whose ``act`` raises: its SDK's fallbacks are marked, counted in the standings
and listed move by move; its notes are kept in the replay."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from rookery.arena.config import BotSpec, TournamentConfig
from rookery.arena.report import load_run, write_report
from rookery.arena.runner import RunOptions, TournamentRunner
from rookery.arena.storage import RunStore
from rookery.engine import Ruleset
from rookery.v1 import replay_pb2
from rookery.wire.replay import read_replay, verify_replay

SHORT = Ruleset.preset("standard").replace(target=100)
BotFactory = Callable[..., BotSpec]
ConfigFactory = Callable[..., TournamentConfig]

FAST = RunOptions(connect_timeout_s=30.0, join_timeout_s=20.0, game_timeout_s=120.0)
ROOKERY = [sys.executable, "-m", "rookery.cli.main"]


async def test_a_bot_that_raises_in_act_shows_its_fallbacks_in_standings_and_replay(
    tmp_path: Path, make_config: ConfigFactory, make_sdk_bot: BotFactory
) -> None:
    bots = (make_sdk_bot("flaky", "FlakyNotingBot"), make_sdk_bot("steady", "SeededRandomBot"))
    config = make_config(bots, ruleset=SHORT.replace(max_hands=3))
    await TournamentRunner(config, tmp_path, options=FAST).run()
    data = load_run(tmp_path)
    standings = {s.name: s for s in data.summary.standings}

    # The replay marks each fallback at the move where act raised (the third trick's play).
    expected: list[tuple[str, int, int, int]] = []
    notes = 0
    for game in data.games:
        replay = read_replay(tmp_path / game.replay_path)
        assert verify_replay(replay) == []
        flaky_seats = {s.seat for s in replay.header.seats if s.bot_name == "flaky"}
        for hand in replay.hands:
            move = plays = 0
            for recorded in hand.actions:
                if recorded.outcome == replay_pb2.ACTION_OUTCOME_REJECTED:
                    continue
                if recorded.HasField("fallback"):
                    assert recorded.seat in flaky_seats
                    assert recorded.fallback.reason == (
                        "act raised ValueError: no card for the third trick"
                    )
                    assert 8 <= plays < 12  # a play of the third trick
                    expected.append((game.game_id, hand.hand_number, move, recorded.seat))
                if recorded.HasField("note"):
                    assert recorded.seat in flaky_seats
                    assert recorded.note.text == f"hand {hand.hand_number} seat {recorded.seat}"
                    assert dict(recorded.note.values) == {"moves": 1.0}
                    notes += 1
                move += 1
                plays += recorded.action.HasField("play_card")
    assert expected, "the flaky bot never reached a third trick"
    assert notes > 0
    assert standings["flaky"].fallbacks == len(expected)
    assert standings["steady"].fallbacks == 0

    # The store lists each one with its game and move; the CLI prints them.
    with RunStore(tmp_path) as store:
        listed = store.move_incidents(data.tournament.tournament_id, "flaky", "fallback")
    assert [(i.game_id, i.hand, i.move, i.seat) for i in listed] == expected
    command = [*ROOKERY, "arena", "incidents", str(tmp_path), "--bot", "flaky"]
    command += ["--kind", "fallback", "--json"]
    done = await asyncio.to_thread(
        subprocess.run, command, capture_output=True, text=True, check=True
    )
    out = done.stdout
    printed = [json.loads(line) for line in out.splitlines()]
    assert [(p["game_id"], p["hand"], p["move"], p["seat"]) for p in printed] == expected

    # The reports count them beside timeouts, crashes and illegal replies.
    write_report(tmp_path)
    report = json.loads((tmp_path / "report.json").read_text())
    counted = {s["bot"]: s["fallbacks"] for s in report["standings"]}
    assert counted == {"flaky": len(expected), "steady": 0}
    assert "fallbacks" in (tmp_path / "standings.csv").read_text().splitlines()[0]
