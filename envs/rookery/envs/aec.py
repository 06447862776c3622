"""Rook as a PettingZoo AEC environment, for every preset (3 to 6 seats).

>>> from rookery.envs.aec import RookAECEnv
>>> env = RookAECEnv("six-handed")
>>> env.reset(seed=1)
>>> env.agent_selection
'seat_1'

Agents are ``seat_0`` … ``seat_{n-1}``; each observation is a dict of the seat's
``observation`` tensor and its ``action_mask`` (PettingZoo's classic-games convention). An episode
is one hand by default (``hands=None``: the whole game to the target). ``env()`` wraps the
environment in PettingZoo's standard stack (an illegal id ends the episode with
``illegal_reward`` for its seat, out-of-range ids are refused, the call order is enforced);
``state()`` is the whole table for centralised critics. There is no parallel
wrapper: in Rook one seat acts at a time, in an order that depends on the play (the auction skips
passed seats, the trick's winner leads), which PettingZoo's parallel API cannot express.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]
from pettingzoo.utils import wrappers  # type: ignore[import-untyped]
from rookery.engine import NUM_CARDS, Ruleset

from ._core import Reward, RookTable, episode_rules, game_seed_option, reward_kind
from ._encoding import ActionCodec, ObservationEncoder, Tensor, card_bits
from .text import render_table

__all__ = ["RookAECEnv", "env", "observation_bounds", "raw_env"]

_RENDER_MODES = ("human", "ansi")
"""``human`` prints the view of the seat to act; ``ansi`` returns it as text."""

Observed = dict[str, npt.NDArray[np.float32] | npt.NDArray[np.int8]]
"""What a seat observes: its ``observation`` tensor and its ``action_mask``."""


def observation_bounds(encoder: ObservationEncoder, size: int) -> tuple[Tensor, Tensor]:
    """Lower and upper bounds of a tensor of ``size`` (observation or information state): every
    entry lies in [0, 1] except the cumulative scores over the target, which lie within
    ± ``max_hands`` x the most a hand can score, over the target."""
    rules = encoder.ruleset
    low = np.zeros(size, dtype=np.float32)
    high = np.ones(size, dtype=np.float32)
    most = max(rules.effective_max_bid, rules.deck_points + rules.last_trick_bonus)
    bound = rules.max_hands * most / rules.target
    at, count = encoder.offsets["scores"]
    low[at : at + count] = -bound
    high[at : at + count] = bound
    return low, high


class RookAECEnv(AECEnv):  # type: ignore[misc]
    """One Rook table; ``preset`` names a ruleset (or pass a ``Ruleset``); ``reward`` is
    ``"zero-sum"`` (the default) or ``"general-sum"`` (see ``rookery.envs._core.Reward``)."""

    metadata: ClassVar[dict[str, object]] = {
        "name": "rookery_rook_v0",
        "render_modes": list(_RENDER_MODES),
        "is_parallelizable": False,
        "render_fps": 1,
    }

    def __init__(
        self,
        preset: str | Ruleset = "standard",
        *,
        hands: int | None = 1,
        reward: Reward | str = Reward.ZERO_SUM,
        render_mode: str | None = None,
    ) -> None:
        super().__init__()
        self.reward = reward_kind(reward)
        base = preset if isinstance(preset, Ruleset) else Ruleset.preset(preset)
        self.ruleset = episode_rules(base, hands)
        if render_mode is not None and render_mode not in _RENDER_MODES:
            raise ValueError(
                f"render_mode must be one of {list(_RENDER_MODES)}, got {render_mode!r}"
            )
        self.render_mode = render_mode
        self.codec = ActionCodec(self.ruleset)
        self.encoder = ObservationEncoder(self.ruleset)
        self.possible_agents = [f"seat_{seat}" for seat in range(self.ruleset.players)]
        low, high = observation_bounds(self.encoder, self.encoder.size)
        space = spaces.Dict(
            {
                "observation": spaces.Box(low, high, dtype=np.float32),
                "action_mask": spaces.Box(0, 1, (self.codec.size,), dtype=np.int8),
            }
        )
        self.observation_spaces = dict.fromkeys(self.possible_agents, space)
        players = self.ruleset.players
        self.state_space = spaces.Box(
            np.concatenate([*[low] * players, np.zeros(2 * NUM_CARDS, np.float32)]),
            np.concatenate([*[high] * players, np.ones(2 * NUM_CARDS, np.float32)]),
            dtype=np.float32,
        )
        self.action_spaces = {a: spaces.Discrete(self.codec.size) for a in self.possible_agents}
        self._seat_of = {agent: seat for seat, agent in enumerate(self.possible_agents)}
        self._no_rewards = dict.fromkeys(self.possible_agents, 0.0)
        self._seeds = np.random.default_rng()
        self.table: RookTable | None = None

    def observation_space(self, agent: str) -> spaces.Dict:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Discrete:
        return self.action_spaces[agent]

    def _agent(self, seat: int) -> str:
        return self.possible_agents[seat]

    def reset(self, seed: int | None = None, options: dict[str, object] | None = None) -> None:
        """Deal a new game: ``options={"game_seed": n}`` deals exactly the engine's (and the
        arena's) game ``n``; else the game seed is drawn from a generator seeded by ``seed``."""
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
        game_seed = game_seed_option(options)
        if game_seed is None:
            game_seed = int(self._seeds.integers(0, 2**63))
        self.table = RookTable.new(self.ruleset, game_seed, reward=self.reward)
        self.agents = list(self.possible_agents)
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, object]] = {a: {} for a in self.agents}
        seat = self.table.current_player
        assert seat is not None
        self.agent_selection = self._agent(seat)
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> Observed:
        table = self.table
        if table is None:
            raise RuntimeError("call reset() before using the environment")
        tensor, mask = table.observe(self._seat_of[agent])
        return {"observation": tensor, "action_mask": mask}

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        if action is None:
            raise ValueError(f"{agent} is to act and must take an action, not None")
        table = self.table
        if table is None:
            raise RuntimeError("call reset() before using the environment")
        self._cumulative_rewards[agent] = 0.0
        rewards = table.step(int(action))
        agents = self.possible_agents
        if any(rewards):
            self.rewards = dict(zip(agents, rewards, strict=True))
            self._accumulate_rewards()
        else:  # nothing to add to the cumulative rewards
            self.rewards = self._no_rewards.copy()
        seat = table.game.current_player
        if seat is None:
            self.terminations = dict.fromkeys(self.agents, True)
            self.agent_selection = agents[(self._seat_of[agent] + 1) % len(agents)]
        else:
            self.agent_selection = agents[seat]
        if self.render_mode == "human":
            self.render()

    def state(self) -> Tensor:
        """The whole table, for a centralised critic: every seat's observation tensor (each
        relative to its seat, in seat order), then the nest as dealt and the dead cards."""
        table = self._require_table()
        deal = table.game.deal
        parts = [table.tensor(seat) for seat in range(self.ruleset.players)]
        parts += [card_bits(deal.nest).astype(np.float32), card_bits(deal.dead).astype(np.float32)]
        return np.concatenate(parts)

    def render(self) -> str | None:
        """``ansi``: the view of the seat to act as text; ``human``: that text printed to the
        terminal (after every reset and step too, as PettingZoo's classic games do)."""
        if self.render_mode is None:
            return None
        text = render_table(self._require_table())
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def close(self) -> None:
        pass

    def _require_table(self) -> RookTable:
        if self.table is None:
            raise RuntimeError("call reset() before using the environment")
        return self.table


def raw_env(
    preset: str | Ruleset = "standard",
    *,
    hands: int | None = 1,
    reward: Reward | str = Reward.ZERO_SUM,
    render_mode: str | None = None,
) -> RookAECEnv:
    """The environment without wrappers (PettingZoo's conventional name)."""
    return RookAECEnv(preset, hands=hands, reward=reward, render_mode=render_mode)


def env(
    preset: str | Ruleset = "standard",
    *,
    illegal_reward: float = -1.0,
    hands: int | None = 1,
    reward: Reward | str = Reward.ZERO_SUM,
    render_mode: str | None = None,
) -> AECEnv:
    """The environment in PettingZoo's standard wrapper stack, as its classic games build it: an
    id outside the mask ends the episode with ``illegal_reward`` for its seat (0 for the
    others), an id outside the action space is refused, and calls out of order are refused."""
    raw = raw_env(preset, hands=hands, reward=reward, render_mode=render_mode)
    wrapped = wrappers.TerminateIllegalWrapper(raw, illegal_reward)
    wrapped = wrappers.AssertOutOfBoundsWrapper(wrapped)
    return wrappers.OrderEnforcingWrapper(wrapped)
