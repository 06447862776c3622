"""Rook for learning agents: PettingZoo, Gymnasium and OpenSpiel on Rookery's exact engine.

One action encoding (:class:`ActionCodec`) and one observation encoding
(:class:`ObservationEncoder`) serve every integration; ``docs/ai.md`` describes both and gives a
runnable example of each:

- ``rookery.envs.aec``: a PettingZoo AEC environment (``RookAECEnv``), every preset;
- ``rookery.envs.gym``: a Gymnasium single-agent environment (``RookGymEnv``) against any bot;
- ``rookery.envs.spiel``: the OpenSpiel Python game ``python_rook``;
- ``rookery.envs.vector``: a batch of tables stepped together (``RookVectorEnv``);
- ``rookery.envs.bridge``: a trained policy as a Rookery bot (``rookery bot run``);
- ``rookery.envs.text`` and ``rookery.envs.chat``: a text seat for language-model agents.

Install the ``rl`` extra (``pip install 'rookery-arena[rl]'``) for numpy, PettingZoo, Gymnasium and
OpenSpiel; ``rookery.envs.text`` needs none of them.
"""

from __future__ import annotations

__all__: list[str] = []
