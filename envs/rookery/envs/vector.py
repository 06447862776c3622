"""A batch of N Rook tables stepped together, for throughput (self-play: the caller acts for
whichever seat is to act at each table).

>>> import numpy as np
>>> from rookery.envs.vector import RookVectorEnv
>>> batch = RookVectorEnv("standard", 8)
>>> obs, masks, seats = batch.reset(seed=0)
>>> obs.shape, masks.shape
((8, 811), (8, 190))
>>> actions = np.array([np.flatnonzero(m)[0] for m in masks])
>>> obs, masks, seats, rewards, done = batch.step(actions)
>>> rewards.shape
(8, 4)

A finished table is dealt again at once (its ``done`` is true for that step, and ``rewards``
holds its last rewards); every table's game seed comes from the batch's generator.

``backend`` chooses where the tables run. ``"auto"`` (the default) steps them on the native core
(``rookery.engine.TableBatch``) where the engine runs on it (``build_info().kind == "core"``:
``make setup`` built it and ``ROOKERY_PURE_ENGINE`` is not set), else in Python;
``"core"`` or ``"python"`` forces one. ``backend`` then names the one in use. Both deal the same
games from the same seed and give byte-equal observations, masks, seats, rewards and ends: at
each reset one batch seed is drawn from the batch's numpy generator, and every table's game seed
from it by the core's SplitMix64 (``TableSeeds``), all tables in order at reset, then each
finished table in order within a step. On the core there is no Python object per table per step
(``tables`` stays empty).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
from rookery.engine import Ruleset, TableBatch, build_info

from ._core import Reward, RookTable, TableSeeds, episode_rules, reward_kind
from ._encoding import ActionCodec, ObservationEncoder

__all__ = ["RookVectorEnv"]

Batch = tuple[npt.NDArray[np.float32], npt.NDArray[np.int8], npt.NDArray[np.int64]]


class RookVectorEnv:
    """``n`` tables of one ruleset; arrays in, arrays out."""

    def __init__(
        self,
        preset: str | Ruleset = "standard",
        n: int = 16,
        *,
        hands: int | None = 1,
        reward: Reward | str = Reward.ZERO_SUM,
        backend: str = "auto",
    ) -> None:
        if n < 1:
            raise ValueError(f"a batch needs at least one table, got n={n}")
        if backend not in ("auto", "python", "core"):
            raise ValueError(f"backend must be 'auto', 'python' or 'core', got {backend!r}")
        if backend == "core" and not TableBatch.available():
            raise RuntimeError("backend='core' needs the native core, not built here")
        if backend == "auto":
            backend = "core" if build_info().kind == "core" else "python"
        self.backend = backend
        """Where the tables run: ``"core"`` or ``"python"``."""
        self._native: TableBatch | None = None
        base = preset if isinstance(preset, Ruleset) else Ruleset.preset(preset)
        self.ruleset = episode_rules(base, hands)
        self.n = n
        self.reward = reward_kind(reward)
        self.codec = ActionCodec(self.ruleset)
        self.encoder = ObservationEncoder(self.ruleset)
        self._seeds = np.random.default_rng()
        self._deals = TableSeeds(0)
        self.tables: list[RookTable] = []
        self._obs = np.zeros((n, self.encoder.size), dtype=np.float32)
        self._masks = np.zeros((n, self.codec.size), dtype=np.int8)
        self._seats = np.zeros(n, dtype=np.int64)
        self._rewards = np.zeros((n, self.ruleset.players), dtype=np.float32)
        self._done = np.zeros(n, dtype=np.uint8)
        self._episodes = 0

    def _deal(self) -> RookTable:
        return RookTable.new(self.ruleset, self._deals.next_seed(), reward=self.reward)

    def reset(self, seed: int | None = None) -> Batch:
        """Deal every table; the observations, masks and seats to act."""
        if seed is not None:
            self._seeds = np.random.default_rng(seed)
        batch_seed = int(self._seeds.integers(0, 2**63))
        if self.backend == "core":
            self._native = TableBatch(
                self.ruleset, self.n, batch_seed, zero_sum=self.reward is Reward.ZERO_SUM
            )
            self._native.write(self._obs, self._masks, self._seats)
            return self._obs.copy(), self._masks.copy(), self._seats.copy()
        self._deals = TableSeeds(batch_seed)
        self._episodes = 0
        self.tables = [self._deal() for _ in range(self.n)]
        self._write_all()
        return self._obs.copy(), self._masks.copy(), self._seats.copy()

    @property
    def episodes(self) -> int:
        """The games finished since the last reset."""
        return self._native.episodes if self._native is not None else self._episodes

    def _write_all(self) -> None:
        """Every table's observation of the seat to act, its mask and the seat, in one pass."""
        obs = self._obs
        rows: list[int] = []
        cols: list[int] = []
        for index, table in enumerate(self.tables):
            seat = table.current_player
            assert seat is not None
            self._seats[index] = seat
            table.tensor_into(obs[index], seat)
            ids = table.legal_ids()
            rows.extend([index] * len(ids))
            cols.extend(ids)
        self._masks.fill(0)
        self._masks[rows, cols] = 1

    def step(
        self, actions: npt.NDArray[np.integer] | list[int]
    ) -> tuple[
        npt.NDArray[np.float32],
        npt.NDArray[np.int8],
        npt.NDArray[np.int64],
        npt.NDArray[np.float32],
        npt.NDArray[np.bool_],
    ]:
        """Take ``actions[i]`` at table ``i``: observations, masks, seats, every seat's rewards
        (``n`` x players) and which tables finished (and were dealt again)."""
        if len(actions) != self.n:
            raise ValueError(f"give one action per table ({self.n}), got {len(actions)}")
        if self._native is not None:
            ids = np.ascontiguousarray(actions, dtype=np.int64)
            self._native.step(ids, self._obs, self._masks, self._seats, self._rewards, self._done)
            return (
                self._obs.copy(),
                self._masks.copy(),
                self._seats.copy(),
                self._rewards.copy(),
                self._done.astype(bool),
            )
        rewards = np.zeros((self.n, self.ruleset.players), dtype=np.float32)
        done = np.zeros(self.n, dtype=bool)
        for index, action in enumerate(actions):
            table = self.tables[index]
            rewards[index] = table.step(int(action))
            if table.is_over:
                done[index] = True
                self._episodes += 1
                self.tables[index] = self._deal()
        self._write_all()
        return self._obs.copy(), self._masks.copy(), self._seats.copy(), rewards, done
