"""The bridge back: a policy trained on the encoding, as a Rookery bot in any arena.

``rookery bot run rookery.envs.bridge:LinearBot`` with ``ROOKERY_POLICY=path/to/policy.npz``
runs a :class:`~rookery.envs.learn.LinearPolicy` (a file of ``LinearPolicy.save``); any
``IdPolicy`` (tensor and mask in, id out) becomes a bot with ``EncodedPolicyBot(policy)``. The
bot sees exactly the observation the server sends, encoded as in training; a bury is chosen card
by card and sent whole.
"""

from __future__ import annotations

import os
import random
from pathlib import Path

from rookery.client import Bot
from rookery.client.bots import Policy
from rookery.engine import Action, LegalActions, Observation, Ruleset

from ._encoding import ObservationEncoder
from .learn import IdPolicy, LinearPolicy, PolicyFileError, choose_action

__all__ = ["POLICY_ENV", "EncodedPolicyBot", "LinearBot", "MctsBot", "as_policy"]

POLICY_ENV = "ROOKERY_POLICY"
"""The environment variable naming the policy file of :class:`LinearBot`."""


class _Encoders:
    def __init__(self) -> None:
        self._by_rules: dict[Ruleset, ObservationEncoder] = {}

    def __call__(self, ruleset: Ruleset) -> ObservationEncoder:
        encoder = self._by_rules.get(ruleset)
        if encoder is None:
            encoder = self._by_rules[ruleset] = ObservationEncoder(ruleset)
        return encoder


def as_policy(policy: IdPolicy) -> Policy:
    """``policy`` as a reference-bot style policy ``(observation, legal, rng) -> action``."""
    encoders = _Encoders()

    def act(obs: Observation, legal: LegalActions, rng: random.Random) -> Action:
        return choose_action(policy, obs, encoders(obs.ruleset))

    return act


class EncodedPolicyBot(Bot):
    """An SDK bot answering every request with an ``IdPolicy`` over the encoding."""

    def __init__(self, policy: IdPolicy) -> None:
        self.policy = policy
        self._encoders = _Encoders()

    def act(self, observation: Observation) -> Action:
        return choose_action(self.policy, observation, self._encoders(observation.ruleset))


class MctsBot(Bot):
    """OpenSpiel's MCTS on worlds drawn by the engine's deal sampler (``spiel.mcts_policy``);
    ``ROOKERY_MCTS_SIMULATIONS`` simulations a decision (default 20)."""

    def __init__(self, simulations: int | None = None, seed: int = 0) -> None:
        from .spiel import mcts_policy

        count = simulations or int(os.environ.get("ROOKERY_MCTS_SIMULATIONS", "20"))
        self.policy = mcts_policy(simulations=count, seed=seed)
        self.rng = random.Random(seed)

    def act(self, observation: Observation) -> Action:
        return self.policy(observation, observation.legal_actions(), self.rng)


class LinearBot(EncodedPolicyBot):
    """A trained :class:`LinearPolicy` read from the file named by ``ROOKERY_POLICY``."""

    def __init__(self, path: str | None = None) -> None:
        name = path or os.environ.get(POLICY_ENV, "")
        if not name:
            raise PolicyFileError(f"set {POLICY_ENV} to the policy file (LinearPolicy.save)")
        super().__init__(LinearPolicy.load(Path(name)))
