"""Many tables stepped together on the native core, for learning environments: action ids in
(``rookery.envs``' ``ActionCodec``), observation tensors (``ObservationEncoder``'s layout),
legal masks, seats, rewards and ends written into caller-owned arrays, with no Python object per
table per step. Only where the core is built (``TableBatch.available()``)."""

from __future__ import annotations

from typing import Any

from ._core import core_version, new_batch
from ._ruleset import Ruleset

__all__ = ["TableBatch"]

_SEED_LIMIT = 1 << 64


class TableBatch:
    """``n`` tables of ``ruleset`` on the native core, dealt from seeds drawn from ``seed``.

    Arrays are any writable C-contiguous buffers of the right item type and size (numpy arrays):
    observations ``float32`` (``n`` x ``observation_size``), masks ``int8`` (``n`` x
    ``num_actions``), seats ``int64`` (``n``), rewards ``float32`` (``n`` x players, over the
    deck's points as ``RookTable``'s: with ``zero_sum`` the seat's side's score change minus the
    mean of the other sides', else its own), done ``uint8`` (``n``); actions ``int64``. A bury
    is taken one card a step; a finished table is dealt again at once. An action id that is not
    legal raises ``ValueError`` naming the table, and no table moves.
    """

    __slots__ = ("_batch", "ruleset")

    def __init__(self, ruleset: Ruleset, n: int, seed: int, *, zero_sum: bool = True) -> None:
        if core_version() is None:
            raise RuntimeError("TableBatch needs the native core (rookery_core), not built here")
        if not isinstance(ruleset, Ruleset):
            raise TypeError(f"ruleset must be a Ruleset, got {type(ruleset).__name__}")
        if type(n) is not int or n < 1:
            raise ValueError(f"a batch needs at least one table, got n={n!r}")
        if type(seed) is not int or not 0 <= seed < _SEED_LIMIT:
            raise ValueError(f"seed must be an int in 0..2**64-1, got {seed!r}")
        self.ruleset = ruleset
        self._batch: Any = new_batch(ruleset, n, seed, zero_sum)

    @staticmethod
    def available() -> bool:
        """Whether the native core is built here."""
        return core_version() is not None

    @property
    def n(self) -> int:
        """The number of tables."""
        return int(self._batch.n)

    @property
    def num_actions(self) -> int:
        """The number of action ids (``ActionCodec.size``)."""
        return int(self._batch.num_actions)

    @property
    def observation_size(self) -> int:
        """The length of one table's observation tensor (``ObservationEncoder.size``)."""
        return int(self._batch.observation_size)

    @property
    def episodes(self) -> int:
        """The games finished so far."""
        return int(self._batch.episodes)

    def table_seed(self, index: int) -> int:
        """The game seed of table ``index``'s current game."""
        return int(self._batch.table(index).seed)

    def write(self, obs: Any, masks: Any, seats: Any) -> None:
        """Write every table's observation of the seat to act, its legal mask and that seat."""
        self._batch.write(obs, masks, seats)

    def step(self, actions: Any, obs: Any, masks: Any, seats: Any, rewards: Any, done: Any) -> None:
        """Take ``actions[i]`` at table ``i``, then write every output array."""
        self._batch.step(actions, obs, masks, seats, rewards, done)
