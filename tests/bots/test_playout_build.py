"""The compiled playout model and the pure one: which runs, and that they play every card alike.

``make setup`` compiles the search bots' playout model (``_play``, ``_simulate``, ``_solve``)
with mypyc where a C compiler exists (``clients/python/compile_playouts.py``);
``ROOKERY_PURE_ENGINE=1`` forces the pure modules of it and of the engine.
"""

from __future__ import annotations

from pathlib import Path

import rookery.client.bots
from rookery.client.bots import playout_build
from rookery.engine.testing import assert_builds_alike, load_build_script

ROOT = Path(__file__).resolve().parents[2]
compile_playouts = load_build_script(ROOT / "clients" / "python" / "compile_playouts.py")
# Whether `make setup` can build the compiled playouts here (a C compiler, headers, mypyc).
BUILDABLE = compile_playouts.why_not() is None

# Heuristic playouts of every legal card, endgame solutions and pimc decisions at fixed positions.
_PLAY = r"""
import json, random
from rookery.client.bots import HeuristicPolicy, PimcParameters, PimcPolicy, playout_build
from rookery.client.bots._sampling import sample_hands
from rookery.client.bots._simulate import HandSimulation
from rookery.client.bots._solve import EndgameSolver, solvable
import rookery.client.bots._simulate as simulate
from rookery.engine import PRESETS, Game, Phase
import rookery.engine._sampling as engine_sampling
engine_sampling.on_core = False  # the same pure draws on both builds: the playouts are compared
print(json.dumps({"kind": playout_build().kind, "module": simulate.__file__}))
heuristic = HeuristicPolicy()
for name in ("standard", "called-partner", "cutthroat"):
    rules = PRESETS[name].replace(max_hands=1)
    for seed in range(2):
        rng = random.Random(seed)
        game = Game(rules, 70 + seed, events=False)
        out = []
        while not game.is_over:
            seat = game.current_player
            obs = game.observation_for(seat)
            legal = obs.legal_actions()
            if obs.phase is Phase.PLAY:
                base = HandSimulation.from_observation(obs, sample_hands(obs, rng).hands)
                for card in range(58):
                    if legal.play >> card & 1:
                        sim = base.clone()
                        sim.play(card)
                        sim.play_out()
                        out.append([card, sim.won, sim.side_deltas()])
                if solvable(rules) and len(obs.completed_tricks) >= rules.hand_size - 3:
                    out.append(["solved", EndgameSolver(base).points(base)])
            if seed % 2 and obs.phase is Phase.PLAY and len(obs.completed_tricks) % 5 == 0:
                pimc = PimcPolicy(PimcParameters(time_budget=None, samples=2))
                action = pimc(obs, legal, random.Random(seed))
            else:
                action = heuristic(obs, legal, rng)
            out.append(str(action))
            game.apply(action)
        print(json.dumps({"game": f"{name}/{seed}", "trace": out}))
"""


def test_the_builds_play_out_and_choose_alike() -> None:
    lines = assert_builds_alike(
        _PLAY, source="_simulate.py", buildable=BUILDABLE, build="the playouts"
    )
    assert lines == 7


def test_playout_build_says_which_build_runs() -> None:
    info = playout_build()
    directory = Path(rookery.client.bots.__file__).resolve().parent
    if info.compiled:
        assert set(info.modules) == set(compile_playouts.COMPILED)
        assert (directory / "_native.json").exists()
        assert str(info) == f"compiled (mypyc, {len(info.modules)} modules)"
    else:
        assert info.reason and str(info).startswith("pure Python (")
