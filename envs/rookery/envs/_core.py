"""One table for learning agents: the engine's game driven by action ids, with the bury taken
one card a step and rewards as score changes."""

from __future__ import annotations

import enum
from collections.abc import Mapping

import numpy as np
import numpy.typing as npt
from rookery.engine import (
    Action,
    Bury,
    Game,
    LegalActions,
    Observation,
    Phase,
    Ruleset,
    TableView,
    cards_of,
    table_view,
)

from ._encoding import ActionCodec, ObservationEncoder, Tensor

Mask = npt.NDArray[np.int8]
"""A legal-action mask: 1 at every legal id, else 0."""

__all__ = [
    "Reward",
    "RookTable",
    "TableSeeds",
    "encodings",
    "episode_rules",
    "game_seed_option",
    "reward_kind",
]


class Reward(enum.Enum):
    """What a seat's reward measures (every env's ``reward=`` option); both are over the deck's
    points, so a hand is worth about ±1."""

    ZERO_SUM = "zero-sum"
    """The default: the change of the seat's side's score minus the mean change of the other
    sides' (with two sides, own minus other). It is what wins a game to the target, and the
    rewards of all seats sum to zero. A side that is set pays for it against defenders' points."""
    GENERAL_SUM = "general-sum"
    """The change of the seat's side's own score alone. Defending never scores below zero while
    bidding risks the bid, so a learner on this reward learns never to bid; for analyses of a
    side's own points, not for learning to win."""


def reward_kind(reward: Reward | str) -> Reward:
    """``reward`` as a :class:`Reward` (``"zero-sum"`` or ``"general-sum"`` accepted)."""
    if isinstance(reward, Reward):
        return reward
    try:
        return Reward(reward)
    except ValueError:
        choices = ", ".join(repr(kind.value) for kind in Reward)
        raise ValueError(f"unknown reward {reward!r}; choose one of {choices}") from None


def game_seed_option(options: Mapping[str, object] | None) -> int | None:
    """The ``game_seed`` of a reset's ``options`` (an int, numpy's too), or ``None``."""
    seed = (options or {}).get("game_seed")
    if seed is None:
        return None
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise TypeError(f"options['game_seed'] must be an int, got {seed!r}")
    return int(seed)


def episode_rules(ruleset: Ruleset, hands: int | None) -> Ruleset:
    """The rules of one episode: ``hands`` hands at most (``None``: the whole game to target)."""
    if hands is None:
        return ruleset
    if hands < 1:
        raise ValueError(f"hands must be at least 1 (or None for whole games), got {hands}")
    return ruleset.replace(max_hands=min(hands, ruleset.max_hands))


_U64 = (1 << 64) - 1


class TableSeeds:
    """The game seeds of a batch's tables, drawn as the native core draws them (SplitMix64, as
    ``core/src/batch.rs``' ``Rng``): each ``next_seed()`` is ``next_u64() >> 1``. So one batch
    seed deals the same games on the Python tables and on ``TableBatch``."""

    def __init__(self, seed: int) -> None:
        self.state = seed & _U64

    def next_u64(self) -> int:
        """The generator's next 64-bit value."""
        self.state = (self.state + 0x9E3779B97F4A7C15) & _U64
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _U64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _U64
        return z ^ (z >> 31)

    def next_seed(self) -> int:
        """The next table's game seed (below ``2**63``)."""
        return self.next_u64() >> 1


_ENCODINGS: dict[int, tuple[Ruleset, ActionCodec, ObservationEncoder]] = {}


def encodings(ruleset: Ruleset) -> tuple[ActionCodec, ObservationEncoder]:
    """The action codec and observation encoder of ``ruleset``, made once per ruleset object (a
    table is dealt at every reset; hashing a ruleset would cost as much as making them)."""
    cached = _ENCODINGS.get(id(ruleset))
    if cached is not None and cached[0] is ruleset:
        return cached[1], cached[2]
    if len(_ENCODINGS) >= 64:
        _ENCODINGS.clear()
    made = ActionCodec(ruleset), ObservationEncoder(ruleset)
    _ENCODINGS[id(ruleset)] = (ruleset, *made)
    return made


class RookTable:
    """An engine game played by action ids (``ActionCodec``), the state every env shares.

    ``step(action_id)`` returns the reward of every seat for that step (``reward``: zero-sum by
    default, see :class:`Reward`), over the deck's points (so a hand is worth about ±1). The
    engine refuses nothing here that the mask allows; an id outside the mask raises
    ``ValueError``. Where the game runs on the native core, tensors, masks and steps are the
    core's (``rookery.engine.table_view``: one call each); else the encoder here builds them
    from the engine's observation (the reference, held equal by ``test_envs_core_view.py``).
    """

    def __init__(
        self, ruleset: Ruleset, game: Game, *, reward: Reward | str = Reward.ZERO_SUM
    ) -> None:
        self.ruleset = ruleset
        self.codec, self.encoder = encodings(ruleset)
        self.game = game
        self.pending = 0
        self.bury_order: list[int] = []
        """The cards the bidder chose to bury this hand, in the order chosen (a bury applied
        whole counts as chosen in ascending order)."""
        self._bury_hand = -1
        self._legal: LegalActions | None = None
        self._ids: list[int] | None = None
        self._points = float(ruleset.deck_points)
        self._sides = ruleset.sides
        self.reward = reward_kind(reward)
        self._view: TableView | None = table_view(game)
        self._scores = game.scores
        self._zeros = [0.0] * ruleset.players
        self._bury_ids = range(self.codec.bury0, self.codec.call0)

    @classmethod
    def new(
        cls, ruleset: Ruleset, seed: int, *, reward: Reward | str = Reward.ZERO_SUM
    ) -> RookTable:
        """A fresh game dealt from ``seed`` (as the arena deals: equal seeds, equal cards)."""
        return cls(ruleset, Game(ruleset, seed, events=False), reward=reward)

    @property
    def current_player(self) -> int | None:
        """The seat to act, ``None`` once the game is over."""
        return self.game.current_player

    @property
    def is_over(self) -> bool:
        """Whether the game is over."""
        return self.game.is_over

    def legal(self) -> LegalActions:
        """The engine's legal actions now (cached until the next step)."""
        if self._legal is None:
            self._legal = self.game.legal_actions()
        return self._legal

    def legal_ids(self) -> list[int]:
        """The legal action ids of the seat to act (cached until the next step)."""
        if self._ids is None:
            if self._view is not None:
                self._ids = self._view.legal_ids(self.pending)
            else:
                self._ids = self.codec.legal_ids(self.legal(), self.pending)
        return self._ids

    def mask(self) -> Mask:
        """The legal action mask of the seat to act (all zeros once the game is over)."""
        if self._view is not None:
            mask = np.empty(self.codec.size, dtype=np.int8)
            self._view.write_mask(self.pending, mask)
            return mask
        mask = np.zeros(self.codec.size, dtype=np.int8)
        if not self.game.is_over:
            mask[self.legal_ids()] = 1
        return mask

    def observation(self, seat: int) -> Observation:
        """The engine's observation of ``seat``."""
        return self.game.observation_for(seat)

    def pending_for(self, seat: int) -> int:
        """The bury chosen so far, as ``seat`` may know it (only the bidder chooses it)."""
        game = self.game
        return self.pending if game.phase is Phase.BURY and game.current_player == seat else 0

    def picked_up(self, seat: int) -> int:
        """The nest as ``seat`` took it (a card mask), if it is this hand's bidder; else 0."""
        game = self.game
        if seat != game.bidder or game.phase in (Phase.BIDDING, Phase.GAME_OVER):
            return 0
        return game.deal.nest

    def bury_order_for(self, seat: int) -> list[int]:
        """The bury's cards in the order ``seat`` chose them, if it is this hand's bidder."""
        game = self.game
        if seat != game.bidder or self._bury_hand != game.hand_number:
            return []
        return self.bury_order

    def tensor(self, seat: int) -> Tensor:
        """The observation tensor of ``seat``."""
        if self._view is not None:
            out = np.empty(self.encoder.size, dtype=np.float32)
            self._view.write(seat, self.pending, out)
            return out
        return self.encoder.encode(self.observation(seat), self.pending_for(seat))

    def tensor_into(self, out: Tensor, seat: int) -> None:
        """Write the observation tensor of ``seat`` into ``out`` (of the encoder's size)."""
        if self._view is not None:
            self._view.write(seat, self.pending, out)
            return
        out.fill(0.0)
        self.encoder.encode_into(out, self.observation(seat), self.pending_for(seat))

    def observe(self, seat: int) -> tuple[Tensor, Mask]:
        """The observation tensor of ``seat`` and its legal mask (all zeros unless it is to
        act), in one call on the core."""
        view = self._view
        if view is None:
            to_act = self.game.current_player == seat
            mask = self.mask() if to_act else np.zeros(self.codec.size, dtype=np.int8)
            return self.tensor(seat), mask
        out = np.empty(self.encoder.size, dtype=np.float32)
        if self.game.current_player == seat:
            mask = np.empty(self.codec.size, dtype=np.int8)
            view.write(seat, self.pending, out, mask)
        else:
            mask = np.zeros(self.codec.size, dtype=np.int8)
            view.write(seat, self.pending, out)
        return out, mask

    def info_tensor(self, seat: int) -> Tensor:
        """The information-state tensor of ``seat``."""
        if self._view is not None:
            out = np.empty(self.encoder.info_size, dtype=np.float32)
            self._view.write_info(
                seat, self.pending, self.picked_up(seat), self.bury_order_for(seat), out
            )
            return out
        return self.encoder.encode_info_state(
            self.observation(seat),
            self.pending_for(seat),
            picked_up=self.picked_up(seat),
            bury_order=self.bury_order_for(seat),
        )

    def set_pending(self, pending: int) -> None:
        """Set the bury chosen so far (a card mask) for a search that steps the bury itself."""
        self._record_bury(pending)
        self.pending = pending
        self._ids = None

    def _record_bury(self, cards: int) -> None:
        """Extend the bury order with ``cards`` not yet in it (ascending when several)."""
        hand = self.game.hand_number
        if self._bury_hand != hand:
            self.bury_order, self._bury_hand = [], hand
        chosen = sum(1 << card for card in self.bury_order)
        self.bury_order.extend(cards_of(cards & ~chosen))

    def step(self, action_id: int) -> list[float]:
        """Take ``action_id`` for the seat to act; the reward of every seat."""
        view = self._view
        if view is not None:
            if self.pending:  # a bury in progress
                return self._step_on_core(view, action_id)
            outcome = view.step(action_id, 0)
            if outcome != TableView.APPLIED or action_id in self._bury_ids:
                return self._stepped_on_core(outcome, action_id, 0)
            self._legal = None
            self._ids = None
            return self._zeros[:]
        if action_id not in self.legal_ids():
            self.codec.step_action(action_id, self.legal(), self.pending)  # raises, precisely
        step = self.codec.step_action(action_id, self.legal(), self.pending, checked=True)
        if isinstance(step, int):
            self.set_pending(step)
            return [0.0] * self.ruleset.players
        return self.apply(step)

    def _step_on_core(self, view: TableView, action_id: int) -> list[float]:
        """``step`` on the core: one call takes the id (a bury step, or a whole action)."""
        pending = self.pending
        return self._stepped_on_core(view.step(action_id, pending), action_id, pending)

    def _stepped_on_core(self, outcome: int, action_id: int, pending: int) -> list[float]:
        """What follows the core's ``outcome`` of taking ``action_id`` (``pending`` before)."""
        if outcome > 0:
            self.set_pending(outcome)
            return self._zeros[:]
        if outcome == TableView.ILLEGAL:
            self.codec.step_action(action_id, self.legal(), pending)  # raises, precisely
            raise ValueError(f"action id {action_id} is not legal now")
        if action_id in self._bury_ids:
            self._record_bury(pending | 1 << (action_id - self.codec.bury0))
        self.pending = 0
        self._legal = None
        self._ids = None
        if outcome == TableView.APPLIED:
            return self._zeros[:]
        return self._rewards()

    def apply(self, action: Action) -> list[float]:
        """Apply a whole engine action (a bury at once); the reward of every seat."""
        game = self.game
        if isinstance(action, Bury):
            self._record_bury(action.cards)
        game.apply(action)
        self.pending = 0
        self._legal = None
        self._ids = None
        return self._rewards()

    def _rewards(self) -> list[float]:
        """Every seat's reward for the score change since the last one."""
        before, after = self._scores, self.game.scores
        if after == before:
            return self._zeros[:]
        self._scores = after
        points = self._points
        changes = [(a - b) / points for a, b in zip(after, before, strict=True)]
        if self.reward is Reward.ZERO_SUM:
            total, others = sum(changes), len(changes) - 1
            changes = [change - (total - change) / others for change in changes]
        return [changes[side] for side in self._sides]

    def clone(self) -> RookTable:
        """An independent copy."""
        other = RookTable(self.ruleset, self.game.clone(), reward=self.reward)
        other.pending = self.pending
        other.bury_order = self.bury_order[:]
        other._bury_hand = self._bury_hand
        other._scores = self._scores
        return other


def _deepcopy_table(self: RookTable, memo: dict[int, object]) -> RookTable:
    return self.clone()


RookTable.__deepcopy__ = _deepcopy_table  # type: ignore[attr-defined]
