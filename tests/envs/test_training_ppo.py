"""sb3-contrib's MaskablePPO learns to bid on the default (zero-sum) reward, through Gymnasium and
through OpenSpiel's ``rl_environment``: after a bounded run it bids in most auctions and gains on
score difference over always passing, on fixed deals played from both sides.

The learner decides its seat's auction; the heuristic plays its trump, bury and cards (the
``autoplay`` option) and every other seat. Learning the whole hand from scratch needs far more
than this test's budget: on all phases MaskablePPO still passed every auction after 125k steps.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
import pyspiel  # type: ignore[import-not-found]
import pytest
import torch
from gymnasium import spaces
from open_spiel.python import rl_environment  # type: ignore[import-untyped]
from rookery.client.bots import HeuristicPolicy
from rookery.engine import Phase, Ruleset, cards_of, deal_for_hand
from rookery.envs.gym import RookGymEnv
from rookery.envs.spiel import GAME_NAME, RookSpielState, engine_chooser
from sb3_contrib import MaskablePPO

RULES = Ruleset.preset("standard")
HELPED = dict.fromkeys(("name_trump", "bury", "call", "play"), "heuristic")
"""The learner's own seat: the heuristic decides every phase but the auction."""
STEPS = 20_480
"""Twenty rollouts of 1,024 auction decisions (about 25 CPU seconds on the development machine)."""
EVALUATION = range(50_000, 50_100)
"""Fixed deals (the engine's game seeds), each played once with the learner on each side."""

Chooser = Callable[[npt.NDArray[np.float32], npt.NDArray[np.bool_]], int]


def _always_pass(obs: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_]) -> int:
    return 0 if mask[0] else int(np.flatnonzero(mask)[0])


def _ppo(model: Any) -> Chooser:
    def choose(obs: npt.NDArray[np.float32], mask: npt.NDArray[np.bool_]) -> int:
        return int(model.predict(obs, action_masks=mask, deterministic=True)[0])

    return choose


def _train(env: gymnasium.Env[Any, Any]) -> Any:
    torch.manual_seed(0)
    model = MaskablePPO(
        "MlpPolicy", env, seed=0, gamma=1.0, n_steps=1024, batch_size=128, n_epochs=5, device="cpu"
    )
    model.learn(total_timesteps=STEPS)
    return model


def _evaluate(make: Callable[[int], Any], choose: Chooser) -> tuple[float, float]:
    """The mean reward a hand (zero-sum: score difference over the deck's points) and the share
    of the auctions the learner could pass in which it bid, over the fixed deals from seats 0
    and 1 (one seat of each side)."""
    total, auctions, bids = 0.0, 0, 0
    for seat in (0, 1):
        env = make(seat)
        for seed in EVALUATION:
            obs, _ = env.reset(options={"game_seed": seed})
            done, could_pass, bid = False, False, False
            while not done:
                mask = env.action_masks()
                action = choose(obs, mask)
                could_pass |= bool(mask[0])
                bid |= 1 <= action < env.codec.trump0
                obs, reward, done, _, _ = env.step(action)
                total += reward
            auctions += could_pass
            bids += bid and could_pass
    return total / (2 * len(EVALUATION)), bids / auctions


@pytest.fixture(autouse=True)
def _one_thread_and_logs_in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    torch.set_num_threads(1)
    # stable-baselines3 makes a log folder in the system's temp directory for every learn()
    # unless told where: in the test's own.
    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path / "sb3"))


@pytest.mark.timeout(900)
def test_maskable_ppo_on_the_gymnasium_env_learns_to_bid_and_beats_always_passing() -> None:
    def make(seat: int) -> RookGymEnv:
        return RookGymEnv("standard", seat=seat, opponents="heuristic", autoplay=HELPED)

    model = _train(make(0))
    passing, pass_bids = _evaluate(make, _always_pass)
    learned, bid_share = _evaluate(make, _ppo(model))
    print(
        f"gymnasium: always-pass {passing:+.3f}, MaskablePPO {learned:+.3f}, bids {bid_share:.0%}"
    )
    assert pass_bids == 0.0
    assert bid_share >= 0.25, bid_share
    assert learned >= passing + 0.05, (learned, passing)


class _Deals:
    """OpenSpiel's chance sampler for ``rl_environment``: the engine's deal of a chosen game
    seed, card by card, else uniform draws from a seeded generator."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.queued: list[int] = []

    def deal(self, game_seed: int) -> None:
        deal = deal_for_hand(RULES, game_seed, 0)
        self.queued = [c for mask in (*deal.hands, deal.nest, deal.dead) for c in cards_of(mask)]

    def __call__(self, state: RookSpielState) -> int:
        if self.queued:
            return self.queued.pop(0)
        return int(self.rng.choice([card for card, _ in state.chance_outcomes()]))


class SpielAuctionEnv(gymnasium.Env[npt.NDArray[np.float32], int]):
    """OpenSpiel's ``rl_environment.Environment`` on ``python_rook`` as a Gymnasium env for one
    seat's auction: the learner's observations (its information-state tensor), legal actions and
    rewards are the environment's time steps, its actions go through ``step``; the heuristic's
    moves are applied to the environment's state (a time step costs every seat's tensors)."""

    def __init__(self, seat: int) -> None:
        self.seat = seat
        self.game = pyspiel.load_game(GAME_NAME, {"preset": "standard"})
        self.deals = _Deals(seat)
        self.env = rl_environment.Environment(self.game, chance_event_sampler=self.deals)
        size = self.env.observation_spec()["info_state"][0]
        self.codec = self.game.codec
        self.observation_space = spaces.Box(-1.0, 1.0, (size,), dtype=np.float32)
        self.action_space = spaces.Discrete(self.env.action_spec()["num_actions"])  # type: ignore[assignment]
        self.helpers = [engine_chooser(HeuristicPolicy(), seed) for seed in range(4)]
        self.step_ = self.env.reset()

    def _advance(self) -> None:
        """The heuristic's moves, applied to the environment's state, until the learner's auction
        decision or the end; then the environment's time step for the learner."""
        state = self.env.get_state
        while not state.is_terminal():
            player = state.current_player()
            if player == self.seat and state.table.game.phase is Phase.BIDDING:
                break
            state.apply_action(self.helpers[player](state))
        self.step_ = self.env.get_time_step()

    def _observe(self) -> npt.NDArray[np.float32]:
        return np.asarray(self.step_.observations["info_state"][self.seat], dtype=np.float32)

    def action_masks(self) -> npt.NDArray[np.bool_]:
        mask = np.zeros(self.codec.size, dtype=bool)
        if not self.step_.last():
            mask[self.step_.observations["legal_actions"][self.seat]] = True
        return mask

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[npt.NDArray[np.float32], dict[str, Any]]:
        super().reset(seed=seed)
        if seed is not None:
            self.deals.rng.seed(seed)
        if options and "game_seed" in options:
            self.deals.deal(int(options["game_seed"]))
        self.step_ = self.env.reset()
        self._advance()
        return self._observe(), {}

    def step(
        self, action: int
    ) -> tuple[npt.NDArray[np.float32], float, bool, bool, dict[str, Any]]:
        self.env.step([int(action)])
        self._advance()
        # A hand's reward comes at its end (OpenSpiel's terminal reward model).
        reward = float(self.step_.rewards[self.seat]) if self.step_.last() else 0.0
        return self._observe(), reward, self.step_.last(), False, {}


@pytest.mark.timeout(900)
def test_maskable_ppo_through_openspiels_rl_environment_learns_to_bid_too() -> None:
    model = _train(SpielAuctionEnv(0))
    passing, _ = _evaluate(SpielAuctionEnv, _always_pass)
    learned, bid_share = _evaluate(SpielAuctionEnv, _ppo(model))
    print(
        f"rl_environment: always-pass {passing:+.3f}, MaskablePPO {learned:+.3f}",
        f"({bid_share:.0%} bids)",
    )
    assert bid_share >= 0.25, bid_share
    assert learned >= passing + 0.05, (learned, passing)


def test_the_rl_environment_deals_the_engines_game_for_a_seed() -> None:
    env = SpielAuctionEnv(1)
    env.reset(options={"game_seed": 50_007})
    state = env.env.get_state
    assert state.table.game.deal == deal_for_hand(RULES, 50_007, 0)
