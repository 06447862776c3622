"""Rook as a Gymnasium single-agent environment: one seat learns, the others are Rookery bots.

>>> from rookery.envs.gym import RookGymEnv
>>> env = RookGymEnv("standard", seat=0, opponents="heuristic")
>>> obs, info = env.reset(seed=3)
>>> int(env.action_masks().sum()) > 0
True

``opponents`` is a reference bot's name (``"random"``, ``"heuristic"``, ``"pimc"``), a
``Policy`` (``policy(observation, legal, rng) -> action``, as ``rookery.client.bots`` defines
it), or one of these per other seat. The reward of a step is the learner's reward over that step
and the opponents' moves after it: zero-sum by default (its side's score change minus the other
sides'), ``reward="general-sum"`` for its side's own change (see ``docs/ai.md``).
``action_masks()`` serves maskable algorithms (sb3-contrib's ``MaskablePPO``) and
``info["action_mask"]`` the same mask. An id outside the mask changes nothing and costs
``illegal_penalty`` (``info["illegal_action"]``), or raises ``ValueError`` with
``illegal="raise"``: the table never plays a move the agent did not choose.

``autoplay`` maps phases of the agent's own seat (``"bidding"``, ``"name_trump"``, ``"bury"``,
``"call"``, ``"play"``) to a bot that decides them for it: ``autoplay={"play": "heuristic", ...}``
leaves the agent the auction alone, a bidding agent over a fixed card player.

Importing this module registers ``Rook-v0`` with Gymnasium (keyword arguments as above):

>>> from typing import Any

import gymnasium
>>> env = gymnasium.make("Rook-v0", preset="cutthroat", opponents="random")
>>> env.unwrapped.ruleset.players
3
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium
import numpy as np
import numpy.typing as npt
from gymnasium import spaces
from rookery.client.bots import POLICIES, Policy
from rookery.engine import Phase, Ruleset

from ._core import Reward, RookTable, episode_rules, game_seed_option, reward_kind
from ._encoding import ActionCodec, ObservationEncoder, Tensor
from .aec import observation_bounds

__all__ = ["ENV_ID", "Opponent", "RookGymEnv", "resolve_policy"]

Info = dict[str, Any]
"""A step's info (Gymnasium's type): the learner's ``action_mask``, and ``illegal_action``
after an illegal id."""

_DECISION_PHASES = (Phase.BIDDING, Phase.NAME_TRUMP, Phase.BURY, Phase.CALL, Phase.PLAY)

ENV_ID = "Rook-v0"
"""The id ``gymnasium.make`` knows the environment by once this module is imported."""

Opponent = str | Policy
"""A reference bot's short name or a policy callable."""


def resolve_policy(opponent: Opponent) -> Policy:
    """The policy of ``opponent`` (a name from ``rookery.client.bots.POLICIES`` or a callable)."""
    if isinstance(opponent, str):
        try:
            return POLICIES[opponent]()
        except KeyError:
            raise ValueError(
                f"unknown bot {opponent!r}; choose one of {sorted(POLICIES)} or pass a policy"
            ) from None
    if not callable(opponent):
        raise TypeError(f"an opponent is a bot name or a policy callable, got {opponent!r}")
    return opponent


class RookGymEnv(gymnasium.Env[Tensor, int]):
    """One Rook table where ``seat`` is the agent and every other seat plays ``opponents``."""

    metadata = {"render_modes": ["human", "ansi"], "render_fps": 1}  # noqa: RUF012 (gymnasium.Env)

    def __init__(
        self,
        preset: str | Ruleset = "standard",
        *,
        seat: int = 0,
        opponents: Opponent | Sequence[Opponent] = "heuristic",
        hands: int | None = 1,
        reward: Reward | str = Reward.ZERO_SUM,
        autoplay: Mapping[str, Opponent] | None = None,
        illegal: str = "penalize",
        illegal_penalty: float = -0.1,
        render_mode: str | None = None,
    ) -> None:
        if illegal not in ("penalize", "raise"):
            raise ValueError(f"illegal must be 'penalize' or 'raise', got {illegal!r}")
        self.illegal = illegal
        self.reward = reward_kind(reward)
        self.illegal_penalty = illegal_penalty
        base = preset if isinstance(preset, Ruleset) else Ruleset.preset(preset)
        self.ruleset = episode_rules(base, hands)
        if not 0 <= seat < self.ruleset.players:
            raise ValueError(f"seat must be 0..{self.ruleset.players - 1}, got {seat}")
        self.seat = seat
        others = [s for s in range(self.ruleset.players) if s != seat]
        if isinstance(opponents, str) or callable(opponents):
            chosen: list[Opponent] = [opponents] * len(others)
        else:
            chosen = list(opponents)
            if len(chosen) != len(others):
                raise ValueError(
                    f"give one opponent per other seat ({len(others)}), got {len(chosen)}"
                )
        self.policies: dict[int, Policy] = {
            s: resolve_policy(o) for s, o in zip(others, chosen, strict=True)
        }
        self.autoplay: dict[Phase, Policy] = {}
        for name, helper in (autoplay or {}).items():
            try:
                phase = Phase[name.upper()]
            except KeyError:
                choices = ", ".join(p.name for p in _DECISION_PHASES)
                raise ValueError(
                    f"unknown phase {name!r} to autoplay; choose from {choices}"
                ) from None
            self.autoplay[phase] = resolve_policy(helper)
        if set(self.autoplay) >= set(_DECISION_PHASES):
            raise ValueError("autoplay leaves the learner no phase to decide")
        self.codec = ActionCodec(self.ruleset)
        self.encoder = ObservationEncoder(self.ruleset)
        low, high = observation_bounds(self.encoder, self.encoder.size)
        self.observation_space = spaces.Box(low, high, dtype=np.float32)
        self.action_space = spaces.Discrete(self.codec.size)  # type: ignore[assignment]
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode must be one of {self.metadata['render_modes']}, got {render_mode!r}"
            )
        self.render_mode = render_mode
        self.table: RookTable | None = None
        self._rng = random.Random(0)

    def reset(
        self, *, seed: int | None = None, options: dict[str, object] | None = None
    ) -> tuple[Tensor, Info]:
        """Deal a new game (``options={"game_seed": n}``: exactly the engine's game ``n``)."""
        super().reset(seed=seed)
        game_seed = game_seed_option(options)
        if game_seed is None:
            game_seed = int(self.np_random.integers(0, 2**63))
        self._rng = random.Random(f"opponents:{game_seed}")
        self.table = RookTable.new(self.ruleset, game_seed, reward=self.reward)
        self._opponents_play()
        if self.render_mode == "human":
            self.render()
        return self._observe(), self._info()

    def step(self, action: int) -> tuple[Tensor, float, bool, bool, Info]:
        table = self._require_table()
        if table.is_over:
            raise RuntimeError("the episode is over: call reset()")
        action = int(action)
        if action not in table.legal_ids():
            if self.illegal == "raise":
                table.step(action)  # raises the precise ValueError
            info = self._info()
            info["illegal_action"] = True
            return self._observe(), self.illegal_penalty, False, False, info
        reward = table.step(action)[self.seat]
        reward += self._opponents_play()
        if self.render_mode == "human":
            self.render()
        return self._observe(), reward, table.is_over, False, self._info()

    def action_masks(self) -> npt.NDArray[np.bool_]:
        """The legal actions of the agent now, as booleans (all false once the episode is over)."""
        return self._require_table().mask().astype(bool)

    def render(self) -> str | None:
        """``ansi``: the view of the seat to act as text; ``human``: that text printed to the
        terminal (after every reset and step too, as Gymnasium's ``human`` mode does)."""
        if self.render_mode is None:
            return None
        from .text import render_table

        text = render_table(self._require_table())
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def _opponents_play(self) -> float:
        """Let the other seats act (and the autoplay helpers, for the agent's seat in their
        phases) until the agent decides or the game ends; the agent's reward."""
        table = self._require_table()
        reward = 0.0
        autoplay = self.autoplay
        while not table.is_over:
            seat = table.current_player
            assert seat is not None
            if seat == self.seat:
                helper = autoplay.get(table.game.phase)
                if helper is None:
                    break
            else:
                helper = self.policies[seat]
            obs = table.observation(seat)
            reward += table.apply(helper(obs, table.legal(), self._rng))[self.seat]
        return reward

    def _observe(self) -> Tensor:
        return self._require_table().tensor(self.seat)

    def _info(self) -> Info:
        return {"action_mask": self._require_table().mask()}

    def _require_table(self) -> RookTable:
        if self.table is None:
            raise RuntimeError("call reset() before using the environment")
        return self.table


gymnasium.register(ENV_ID, entry_point="rookery.envs.gym:RookGymEnv")
