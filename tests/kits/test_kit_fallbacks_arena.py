"""A kit bot whose own code fails, in a real tournament: each of the five kits answers with a
fallback it marks, and the arena's standings and the replays show that fallback at its move.

Each kit's sample bot fails on purpose under ``ROOKERY_SAMPLE_FAULT=raise`` (its act hook raises,
throws or panics at every request; docs/dev/kit-contract.md), so every move of a kit seat is a
fallback; the Python SDK's heuristic bot, playing beside them, makes none.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from kit_support import KITS, PYTHON_BOT_COMMAND, build_kit, run_arena
from rookery.v1 import replay_pb2
from rookery.wire.replay import read_replay

#: The longest one build.sh may take (nothing when the kit was built before: it is cached).
BUILD_TIMEOUT_S = 900.0


def test_each_kits_fallbacks_reach_the_standings_and_the_replay_at_their_moves(
    tmp_path: Path,
) -> None:
    for language in KITS:
        build_kit(language, timeout=BUILD_TIMEOUT_S)
    bots = {
        f"{language}-failing": f"env ROOKERY_SAMPLE_FAULT=raise {shlex.quote(str(command))}"
        for language, (_, command) in KITS.items()
    }
    bots["python-heuristic"] = PYTHON_BOT_COMMAND

    # One hand a game or so (target 60), unconfined: `env` is the launched program.
    options = ("--target", "60", "--sandbox", "off")
    arena = run_arena(tmp_path, "kit-faults", bots, seed=5, timeout_s=420, options=options)

    assert arena.returncode == 0, arena.output
    fallbacks = dict.fromkeys(bots, 0)
    moves = dict.fromkeys(bots, 0)
    for game in arena.games():
        replay = read_replay(arena.out / game["replay"])
        names = [seat.bot_name for seat in replay.header.seats]
        for hand in replay.hands:
            for action in hand.actions:
                if action.outcome != replay_pb2.ACTION_OUTCOME_ACCEPTED:
                    continue
                name = names[action.seat]
                moves[name] += 1
                if action.HasField("fallback"):
                    fallbacks[name] += 1
                    assert action.fallback.reason, action
    for name in bots:
        assert moves[name] > 0, (name, moves)
        expected = 0 if name == "python-heuristic" else moves[name]
        assert fallbacks[name] == expected, (name, fallbacks, moves)

    report = json.loads((arena.out / "report.json").read_text())
    counted = {line["bot"]: line["fallbacks"] for line in report["standings"]}
    assert counted == fallbacks, (counted, fallbacks)
    assert "fallback" in arena.standings()
