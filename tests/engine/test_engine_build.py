"""``Game`` on the native core and the pure engine: which runs, and that they play
byte-identical games.

``make setup`` builds the core where a Rust toolchain is found; ``ROOKERY_PURE_ENGINE=1`` forces
the pure engine (``make test`` runs the engine's suite on both).
"""

from __future__ import annotations

import importlib
import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import rookery.engine
from rookery.engine import Game, build_info
from rookery.engine._build import PURE_ENV
from rookery.engine._core import core_version, on_core

PACKAGE = Path(rookery.engine.__file__).resolve().parent
# Where `make setup` can build the core (cargo), it must be built and chosen.
CORE_EXPECTED = importlib.util.find_spec("rookery_core") is not None

# Plays a fixed set of games and prints, per game, its record, replay text, events and a trace of
# observations and legal actions: everything a replay or a client sees.
_PLAY = r"""
import dataclasses, json, random, sys
from rookery.engine import (
    PRESETS, Game, GameRecord, build_info, format_replay_text, random_playout)
print(json.dumps({"kind": build_info().kind, "game": type(Game(PRESETS["standard"], 1)).__name__}))
for name in sorted(PRESETS):
    ruleset = dataclasses.replace(PRESETS[name], max_hands=6)  # games of at most six hands
    for seed in (1, 2, 3):
        game = random_playout(ruleset, seed, random.Random(seed))
        record = GameRecord.from_game(game)
        trace = []
        replayed = GameRecord.from_dict(json.loads(json.dumps(record.to_dict()))).replay()
        again = Game(ruleset, seed)
        for index, (seat, action) in enumerate(game.actions):
            if index % 7 == 0:
                trace.append(repr(again.legal_actions()))
                trace.extend(json.dumps(again.observation_for(s).to_dict(), sort_keys=True)
                             for s in range(-1, again.ruleset.players))
            again.apply(action)
        out = {
            "game": f"{name}/{seed}",
            "record": json.dumps(record.to_dict(), sort_keys=True),
            "replayed": json.dumps(GameRecord.from_game(replayed).to_dict(), sort_keys=True),
            "text": format_replay_text(record),
            "events": [repr(event) for event in game.events],
            "trace": trace,
        }
        print(json.dumps(out, sort_keys=True))
"""


def _run(script: str, *, pure: bool) -> list[dict[str, Any]]:
    """The JSON lines ``script`` prints in a fresh interpreter, on the pure engine or not."""
    env = {key: value for key, value in os.environ.items() if key != PURE_ENV}
    if pure:
        env[PURE_ENV] = "1"
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=240
    )
    assert done.returncode == 0, done.stderr
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_the_builds_play_byte_identical_games_replays_and_observations() -> None:
    pure, default = _run(_PLAY, pure=True), _run(_PLAY, pure=False)
    assert pure[0] == {"kind": "pure", "game": "Game"}
    if CORE_EXPECTED:
        assert default[0] == {"kind": "core", "game": "CoreGame"}
    assert len(pure) == len(default) == 31
    for ours, theirs in zip(pure[1:], default[1:], strict=True):
        assert ours == theirs, ours["game"]


def test_build_info_says_which_build_runs() -> None:
    info = build_info()
    assert info.kind == ("core" if on_core else "pure")
    assert type(Game(rookery.engine.PRESETS["standard"], 1)).__name__ == (
        "CoreGame" if on_core else "Game"
    )
    if on_core:
        assert info.core == core_version() and str(info) == "Game on the native core"
    else:
        assert info.core == "" and info.reason and str(info) == f"pure Python ({info.reason})"
    assert on_core == (CORE_EXPECTED and os.environ.get(PURE_ENV, "") in ("", "0"))


def test_rookery_version_names_the_engine_build() -> None:
    rookery = Path(sys.executable).with_name("rookery")
    env = dict(os.environ, **{PURE_ENV: "1"})
    done = subprocess.run(
        [str(rookery), "--version"], env=env, capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert f"engine: pure Python ({PURE_ENV}=1)" in done.stdout


@pytest.mark.parametrize("events", [True, False], ids=["events", "no-events"])
def test_games_and_observations_pickle_and_copy_in_either_build(events: bool) -> None:
    import copy
    import pickle
    import random

    from rookery.engine import PRESETS, Game

    game = Game(PRESETS["standard"], 11, events=events)
    rng = random.Random(11)
    for _ in range(40):  # into the play of the first hand
        game.apply(game.legal_actions().sample(rng))
    observations = [game.observation_for(seat) for seat in range(-1, 4)]
    assert [pickle.loads(pickle.dumps(obs)) for obs in observations] == observations
    assert [copy.deepcopy(obs) for obs in observations] == observations
    assert pickle.loads(pickle.dumps(game.deal)) == game.deal
    again = pickle.loads(pickle.dumps(game))
    twin = game.clone()
    for other in (again, twin):
        assert [other.observation_for(seat) for seat in range(-1, 4)] == observations
    for _ in range(200):
        action = game.legal_actions().sample(rng)
        for each in (game, again, twin):
            if not each.is_over:
                each.apply(action)
    assert again.actions == game.actions == twin.actions
    assert again.hand_results == game.hand_results
