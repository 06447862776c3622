"""Double-dummy pimc values its samples exactly: with the same samples it chooses as pimc with
the Python endgame solver, and deeper in the hand it solves its samples and plays legal cards."""

from __future__ import annotations

import importlib.util
import random
import shutil

import pytest
from rookery.client.bots import HeuristicPolicy, PimcParameters, PimcPolicy
from rookery.engine import PRESETS, Game, Observation, Phase, PlayCard

# `make setup` builds the core wherever cargo is found: there, a missing core is a failure.
if shutil.which("cargo") is None and importlib.util.find_spec("rookery_core") is None:
    pytest.skip("no Rust toolchain here: the native core is not built", allow_module_level=True)
from rookery.client.bots.ddpimc import DdPimcParameters, DdPimcPolicy


def _positions(tricks_left: int, count: int) -> list[Observation]:
    rules = PRESETS["standard"].replace(max_hands=1)
    heuristic = HeuristicPolicy()
    found: list[Observation] = []
    seed = 0
    while len(found) < count:
        seed += 1
        game = Game(rules, 7700 + seed, events=False)
        rng = random.Random(seed)
        while (seat := game.current_player) is not None:
            obs = game.observation_for(seat)
            if (
                obs.phase is Phase.PLAY
                and len(obs.completed_tricks) == rules.hand_size - tricks_left
                and len(obs.current_trick.cards) == seed % 4
            ):
                found.append(obs)
                break
            game.apply(heuristic(obs, obs.legal_actions(), rng))
    return found


def test_with_the_same_samples_it_chooses_as_pimc_with_the_endgame_solver() -> None:
    common = {"time_budget": None, "samples": 6, "prune_every": 0}
    for obs in _positions(4, 8):
        legal = obs.legal_actions()
        pimc = PimcPolicy(PimcParameters(**common, endgame_tricks=4))  # type: ignore[arg-type]
        dd = DdPimcPolicy(DdPimcParameters(**common, dd_tricks=4))  # type: ignore[arg-type]
        assert dd(obs, legal, random.Random(3)) == pimc(obs, legal, random.Random(3))
        assert dd.unsolved == 0


def test_from_seven_tricks_out_it_solves_its_samples_and_plays_legal_cards() -> None:
    dd = DdPimcPolicy(DdPimcParameters(time_budget=None, samples=4, dd_tricks=7))
    for obs in _positions(7, 4):
        legal = obs.legal_actions()
        action = dd(obs, legal, random.Random(1))
        assert isinstance(action, PlayCard) and action in legal
    assert dd.solved > 0
