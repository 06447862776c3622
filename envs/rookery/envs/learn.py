"""A small linear policy and a REINFORCE learner over the observation tensor.

Not a research algorithm: a bounded, dependency-light learner that shows the encoding carries
what a policy needs (it beats random within a few thousand steps) and gives the bridge a real
trained policy to run in the arena. Any other learner's policy plugs into the same bridge.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

import numpy as np
import numpy.typing as npt
from rookery.engine import Action, Game, Observation, Ruleset

from ._core import Reward, RookTable, episode_rules
from ._encoding import ActionCodec, ObservationEncoder, Tensor

__all__ = [
    "IdPolicy",
    "LinearPolicy",
    "PolicyFileError",
    "choose_action",
    "evaluate",
    "train_linear",
]


class IdPolicy(Protocol):
    """A policy over the encoding: the observation tensor and the legal mask in, an id out."""

    def __call__(self, tensor: Tensor, mask: npt.NDArray[np.int8]) -> int: ...


class PolicyFileError(ValueError):
    """A policy file that cannot be read, or does not fit the table's rules."""


@dataclass
class LinearPolicy:
    """Logits ``weights @ tensor + bias`` over the legal ids; greedy by default."""

    preset: str
    weights: npt.NDArray[np.float32]
    bias: npt.NDArray[np.float32]

    @classmethod
    def zeros(cls, ruleset: Ruleset) -> LinearPolicy:
        """A policy that is uniform over the legal ids (every logit 0)."""
        codec, encoder = ActionCodec(ruleset), ObservationEncoder(ruleset)
        return cls(
            ruleset.name,
            np.zeros((codec.size, encoder.size), dtype=np.float32),
            np.zeros(codec.size, dtype=np.float32),
        )

    def legal_logits(
        self, tensor: Tensor, mask: npt.NDArray[np.int8]
    ) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp], npt.NDArray[np.float64]]:
        """The legal ids, the tensor's nonzero entries and the logits of the legal ids (the
        tensor is sparse and few ids are legal: only those weights are read)."""
        legal = np.flatnonzero(mask)
        nonzero = np.flatnonzero(tensor)
        logits = self.weights[np.ix_(legal, nonzero)] @ tensor[nonzero] + self.bias[legal]
        return legal, nonzero, logits.astype(np.float64)

    def probabilities(self, tensor: Tensor, mask: npt.NDArray[np.int8]) -> npt.NDArray[np.float64]:
        """The softmax over the legal ids (0 elsewhere)."""
        legal, _, logits = self.legal_logits(tensor, mask)
        out = np.zeros(mask.size, dtype=np.float64)
        p = np.exp(logits - logits.max())
        out[legal] = p / p.sum()
        return out

    def __call__(self, tensor: Tensor, mask: npt.NDArray[np.int8]) -> int:
        legal, _, logits = self.legal_logits(tensor, mask)
        return int(legal[int(np.argmax(logits))])

    def save(self, path: Path) -> None:
        """Write the policy as ``.npz`` (weights, bias and the preset's name)."""
        with path.open("wb") as handle:
            np.savez(handle, weights=self.weights, bias=self.bias, preset=np.array(self.preset))

    @classmethod
    def load(cls, path: Path) -> LinearPolicy:
        """Read a policy written by :meth:`save` (``PolicyFileError`` if it is not one)."""
        try:
            with np.load(path) as data:
                weights, bias, preset = data["weights"], data["bias"], str(data["preset"])
        except (OSError, KeyError, ValueError) as error:
            raise PolicyFileError(f"{path}: not a linear policy file ({error})") from error
        rules = Ruleset.preset(preset)
        shape = (ActionCodec(rules).size, ObservationEncoder(rules).size)
        if weights.shape != shape or bias.shape != (shape[0],):
            raise PolicyFileError(
                f"{path}: weights {weights.shape} do not fit preset {preset!r} (expected {shape})"
            )
        return cls(preset, weights.astype(np.float32), bias.astype(np.float32))


def choose_action(policy: IdPolicy, obs: Observation, encoder: ObservationEncoder) -> Action:
    """The engine action ``policy`` chooses at ``obs`` (a bury: one card a step, as trained)."""
    codec = encoder.codec
    legal = obs.legal_actions()
    pending = 0
    while True:
        tensor = encoder.encode(obs, pending)
        step = codec.step_action(policy(tensor, codec.mask(legal, pending)), legal, pending)
        if not isinstance(step, int):
            return step
        pending = step


def evaluate(
    policy: IdPolicy | None,
    ruleset: Ruleset,
    seeds: range,
    *,
    seats: Sequence[int] | None = None,
    reward: Reward | str = Reward.ZERO_SUM,
) -> float:
    """The mean reward (zero-sum by default) of the policy's seat over the one-hand deals
    ``seeds``, each deal played once with the policy at each of ``seats`` in turn (default: every
    seat, duplicate style), the other seats playing uniformly random legal ids from a generator
    fixed per deal and seat (``policy=None``: the seat plays random too). Every policy meets the
    same cards and the same opponents' draws."""
    rules = episode_rules(ruleset, 1)
    chosen = range(rules.players) if seats is None else seats
    total = 0.0
    for seed in seeds:
        for seat in chosen:
            table = RookTable(rules, Game(rules, seed, events=False), reward=reward)
            rng = random.Random(f"evaluate:{seed}:{seat}")
            mine = random.Random(f"evaluate-seat:{seed}:{seat}")
            while not table.is_over:
                ids = table.legal_ids()
                if table.current_player != seat:
                    action = rng.choice(ids)
                elif policy is None:
                    action = mine.choice(ids)
                else:
                    action = policy(table.tensor(seat), table.mask())
                total += table.step(action)[seat]
    return total / (len(seeds) * len(chosen))


def train_linear(
    ruleset: Ruleset,
    *,
    steps: int,
    seed: int = 0,
    learning_rate: float = 0.05,
    seat: int = 0,
    reward: Reward | str = Reward.ZERO_SUM,
) -> LinearPolicy:
    """REINFORCE with a running baseline for ``steps`` of ``seat``'s decisions, one-hand
    episodes against uniformly random opponents; deals drawn from ``seed``."""
    rules = episode_rules(ruleset, 1)
    policy = LinearPolicy.zeros(rules)
    rng = np.random.default_rng(seed)
    opponents = random.Random(seed)
    baseline = 0.0
    done_steps = 0
    while done_steps < steps:
        game = Game(rules, int(rng.integers(0, 2**63)), events=False)
        table = RookTable(rules, game, reward=reward)
        trajectory: list[tuple[Tensor, npt.NDArray[np.int8], int]] = []
        gained = 0.0
        while not table.is_over:
            if table.current_player == seat:
                tensor, mask = table.tensor(seat), table.mask()
                action = int(rng.choice(mask.size, p=policy.probabilities(tensor, mask)))
                trajectory.append((tensor, mask, action))
                done_steps += 1
            else:
                action = opponents.choice(table.legal_ids())
            gained += table.step(action)[seat]
        advantage = gained - baseline
        baseline += 0.05 * (gained - baseline)
        for tensor, mask, action in trajectory:
            legal, nonzero, logits = policy.legal_logits(tensor, mask)
            p = np.exp(logits - logits.max())
            grad = (-p / p.sum()).astype(np.float32)
            grad[int(np.searchsorted(legal, action))] += 1.0
            scale = learning_rate * advantage
            policy.weights[np.ix_(legal, nonzero)] += scale * np.outer(grad, tensor[nonzero])
            policy.bias[legal] += scale * grad
    return policy
