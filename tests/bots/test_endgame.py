"""The endgame solver agrees with a brute-force minimax over every legal card."""

from __future__ import annotations

import importlib.util
import os
import random
import shutil

import pytest
from rookery.client.bots import HeuristicPolicy, PimcParameters, PimcPolicy
from rookery.client.bots._sampling import sample_hands
from rookery.client.bots._simulate import HandSimulation
from rookery.client.bots._solve import EndgameSolver, solvable
from rookery.engine import CARD_POINTS, PRESETS, DoubleDummy, Game, Observation, Phase

# Where cargo is found the core must be built (``make setup``): its solver is tested, not skipped,
# unless the pure engine is asked for (``ROOKERY_PURE_ENGINE=1``: the core's solver is not used).
PURE = os.environ.get("ROOKERY_PURE_ENGINE", "") not in ("", "0")
NO_CARGO = shutil.which("cargo") is None and importlib.util.find_spec("rookery_core") is None
NO_CORE = PURE or NO_CARGO
NO_CORE_REASON = "the engine runs pure: no Rust toolchain, or ROOKERY_PURE_ENGINE=1"


def _solvers() -> list[bool]:
    """The solvers to test: the Python one, and the core's (it must be here where cargo is)."""
    if NO_CORE:
        return [False]
    assert DoubleDummy.available(), "cargo is here but the engine does not run on the core"
    return [False, True]


def _brute_force(sim: HandSimulation) -> int:
    """The bidding side's points from ``sim`` on, trying every legal card at every turn."""
    if sim.is_over:
        return 0
    before = sim.bidding_total() - sim.buried_points
    maximising = sim.bidding_mask >> sim.current & 1
    values = []
    legal = sim.legal()
    for card in range(58):
        if legal >> card & 1:
            child = sim.clone()
            child.play(card)
            gained = child.bidding_total() - child.buried_points - before
            values.append(gained + _brute_force(child))
    return max(values) if maximising else min(values)


def _positions(preset: str, tricks_left: int, count: int) -> list[Observation]:
    """Observations in the play with ``tricks_left`` tricks to go (some in mid-trick)."""
    rules = PRESETS[preset].replace(max_hands=1)
    heuristic = HeuristicPolicy()
    found = []
    for seed in range(count):
        game = Game(rules, 900 + seed, events=False)
        rng = random.Random(seed)
        stop = rules.hand_size - tricks_left
        mid_trick = seed % 3
        while True:
            seat = game.current_player
            assert seat is not None
            obs = game.observation_for(seat)
            if (
                obs.phase is Phase.PLAY
                and len(obs.completed_tricks) == stop
                and len(obs.current_trick.cards) == mid_trick
            ):
                found.append(obs)
                break
            game.apply(heuristic(obs, obs.legal_actions(), rng))
    return found


@pytest.mark.parametrize("native", _solvers(), ids=lambda native: "core" if native else "python")
@pytest.mark.parametrize("preset", ["standard", "traditional"])
def test_the_solver_agrees_with_brute_force(preset: str, native: bool) -> None:
    rng = random.Random(5)
    for obs in _positions(preset, 3, 12):
        hands = sample_hands(obs, rng).hands
        sim = HandSimulation.from_observation(obs, hands)
        solver = EndgameSolver(sim, native=native)
        assert (solver.native is not None) is native
        assert solver.points(sim) == _brute_force(sim)


def test_the_solver_searches_on_the_core_where_the_engine_runs_on_it() -> None:
    sim = HandSimulation.from_observation(*_sampled(_positions("standard", 2, 1)[0]))
    assert (EndgameSolver(sim).native is not None) is DoubleDummy.available()


def _sampled(obs: Observation) -> tuple[Observation, list[int]]:
    return obs, sample_hands(obs, random.Random(3)).hands


def _played_positions(preset: str, tricks_left: int, count: int) -> list[Observation]:
    """As ``_positions``, over as many seeds as it takes (an all-pass hand ends the game)."""
    rules = PRESETS[preset].replace(max_hands=1)
    heuristic = HeuristicPolicy()
    found: list[Observation] = []
    seed = 0
    while len(found) < count:
        game = Game(rules, 1_700 + seed, events=False)
        rng = random.Random(seed)
        seed += 1
        while not game.is_over:
            seat = game.current_player
            assert seat is not None
            obs = game.observation_for(seat)
            if (
                obs.phase is Phase.PLAY
                and len(obs.completed_tricks) == rules.hand_size - tricks_left
                and len(obs.current_trick.cards) == seed % rules.players
            ):
                found.append(obs)
                break
            game.apply(heuristic(obs, obs.legal_actions(), rng))
    return found


@pytest.mark.skipif(NO_CORE, reason=NO_CORE_REASON)
def test_the_core_and_python_solvers_agree_on_every_solvable_preset() -> None:
    compared = 0
    for preset in PRESETS:
        if not solvable(PRESETS[preset]):
            continue
        rng = random.Random(preset)
        for tricks_left in (4, 5):
            for obs in _played_positions(preset, tricks_left, 4):
                sim = HandSimulation.from_observation(obs, sample_hands(obs, rng).hands)
                python = EndgameSolver(sim, native=False).points(sim)
                assert EndgameSolver(sim, native=True).points(sim) == python, (preset, obs.seat)
                compared += 1
    assert compared >= 40


@pytest.mark.skipif(NO_CORE, reason=NO_CORE_REASON)
def test_pimc_chooses_alike_with_either_solver(monkeypatch: pytest.MonkeyPatch) -> None:
    parameters = PimcParameters(time_budget=None, samples=6, endgame_tricks=5)
    positions = _positions("standard", 5, 8)

    def choices() -> list[object]:
        pimc = PimcPolicy(parameters)
        return [pimc(obs, obs.legal_actions(), random.Random(7)) for obs in positions]

    on_core = choices()
    monkeypatch.setattr(DoubleDummy, "available", staticmethod(lambda: False))
    sim = HandSimulation.from_observation(*_sampled(positions[0]))
    assert EndgameSolver(sim).native is None
    assert choices() == on_core


def test_the_solved_points_are_within_what_is_left() -> None:
    rng = random.Random(6)
    for obs in _positions("standard", 4, 8):
        sim = HandSimulation.from_observation(obs, sample_hands(obs, rng).hands)
        left = sim.trick_points + sum(
            CARD_POINTS[card] for hand in sim.hands for card in range(58) if hand >> card & 1
        )
        solver = EndgameSolver(sim)
        assert 0 <= solver.points(sim) <= left
        # A second position of the same deal reuses the table.
        assert solver.points(sim) == solver.points(sim.clone())


def test_pimc_with_the_endgame_solver_plays_legal_cards() -> None:
    pimc = PimcPolicy(PimcParameters(time_budget=None, samples=4, endgame_tricks=4))
    for obs in _positions("standard", 4, 6):
        legal = obs.legal_actions()
        assert pimc(obs, legal, random.Random(1)) in legal
