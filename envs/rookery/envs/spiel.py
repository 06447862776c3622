"""Rook as an OpenSpiel Python game, registered as ``python_rook`` (one hand a game).

>>> import pyspiel
>>> import rookery.envs.spiel
>>> game = pyspiel.load_game("python_rook", {"preset": "five-handed"})
>>> game.num_players()
5

The deal is explicit chance: one chance step per card of the deck, dealt in the engine's order
(seat 0's hand, seat 1's, …, then the nest, then the dead cards), each uniform over the cards not
yet dealt. Then the hand is the engine's, played by the action ids of :class:`ActionCodec`; the
returns are zero-sum by default (each seat's side's score change minus the other sides', over the
deck's points; parameter ``reward="general-sum"`` for the side's own change).
``resample_from_infostate`` draws the hidden cards with the engine's deal sampler
(``rookery.engine.sample_deal``).
"""

from __future__ import annotations

import dataclasses
import json
import random
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pyspiel  # type: ignore[import-not-found]
from rookery.engine import (
    NUM_CARDS,
    Action,
    Deal,
    Game,
    LegalActions,
    Observation,
    Ruleset,
    card_name,
    cards_of,
    deal_for_hand,
    format_cards,
    sample_deal,
)

from ._core import Reward, RookTable, episode_rules, reward_kind
from ._encoding import ActionCodec, ObservationEncoder
from .text import render_view

__all__ = [
    "GAME_NAME",
    "Policy",
    "RookSpielGame",
    "RookSpielState",
    "deal_state",
    "engine_chooser",
    "ismcts_chooser",
    "mcts_chooser",
    "mcts_policy",
    "play_hand",
    "resampled",
]

Policy = Callable[[Observation, LegalActions, random.Random], Action]
"""A Rookery policy, as ``rookery.client.bots`` defines it (the engine's types only)."""

GAME_NAME = "python_rook"

_MAX_PLAYERS = 6


def _game_type(utility: Any) -> Any:
    return pyspiel.GameType(
        short_name=GAME_NAME,
        long_name="Rook (Rookery's engine)",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=utility,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=_MAX_PLAYERS,
        min_num_players=3,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        provides_factored_observation_string=False,
        parameter_specification={"preset": "standard", "reward": Reward.ZERO_SUM.value},
    )


_GAME_TYPE = _game_type(pyspiel.GameType.Utility.ZERO_SUM)
_GENERAL_SUM_TYPE = _game_type(pyspiel.GameType.Utility.GENERAL_SUM)


def _utility_bounds(ruleset: Ruleset, reward: Reward) -> tuple[float, float]:
    """A hand's return lies within these bounds: a side's score change over the deck's points,
    and for the zero-sum return, that minus another side's."""
    points = float(ruleset.deck_points)
    top = max(ruleset.effective_max_bid, ruleset.deck_points + ruleset.last_trick_bonus)
    if reward is Reward.ZERO_SUM:
        top *= 2
    return -top / points, top / points


class RookSpielGame(pyspiel.Game):  # type: ignore[misc]
    """The game: ``preset`` names the ruleset, ``reward`` the returns (``"zero-sum"``, the
    default, or ``"general-sum"``: see ``rookery.envs._core.Reward``); every game is one hand."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        preset = str(params.get("preset", "standard"))
        self.reward = reward_kind(str(params.get("reward", Reward.ZERO_SUM.value)))
        self.ruleset = episode_rules(Ruleset.preset(preset), 1)
        self.codec = ActionCodec(self.ruleset)
        self.encoder = ObservationEncoder(self.ruleset)
        rules = self.ruleset
        low, high = _utility_bounds(rules, self.reward)
        zero_sum = self.reward is Reward.ZERO_SUM
        auction = (len(self.codec.bids) + 1) * rules.players
        info = pyspiel.GameInfo(
            num_distinct_actions=self.codec.size,
            max_chance_outcomes=NUM_CARDS,
            num_players=rules.players,
            min_utility=low,
            max_utility=high,
            utility_sum=0.0 if zero_sum else None,
            max_game_length=rules.deck_size + auction + 2 + rules.nest_size + rules.deck_size,
        )
        game_type = _GAME_TYPE if zero_sum else _GENERAL_SUM_TYPE
        super().__init__(game_type, info, {"preset": preset, "reward": self.reward.value})

    def new_initial_state(self) -> RookSpielState:
        return RookSpielState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> RookObserver:
        if params:
            raise ValueError(f"observation parameters are not supported; got {params}")
        return RookObserver(self, iig_obs_type or pyspiel.IIGObservationType(perfect_recall=False))


class _Shared:
    """The rules of a state, shared by its clones (never copied)."""

    def __init__(self, ruleset: Ruleset, codec: ActionCodec, reward: Reward) -> None:
        self.ruleset = ruleset
        self.codec = codec
        self.reward = reward

    def __deepcopy__(self, memo: dict[int, Any]) -> _Shared:
        return self


class RookSpielState(pyspiel.State):  # type: ignore[misc]
    """A node: dealing (chance) until every card lies somewhere, then the engine's hand."""

    def __init__(self, game: RookSpielGame) -> None:
        super().__init__(game)
        self.shared = _Shared(game.ruleset, game.codec, game.reward)
        self.dealt: list[int] = []
        self.undealt = game.ruleset.deck_mask
        """The cards not dealt yet, a card mask (the chance outcomes)."""
        self.table: RookTable | None = None
        self.totals = [0.0] * self.ruleset.players

    # OpenSpiel's clone deep-copies each attribute: the table copies itself with the engine's
    # fast ``clone``, the rules are shared (``_Shared``).

    @property
    def ruleset(self) -> Ruleset:
        return self.shared.ruleset

    @property
    def codec(self) -> ActionCodec:
        return self.shared.codec

    def current_player(self) -> int:
        table = self.table
        if table is None:
            return int(pyspiel.PlayerId.CHANCE)
        if table.is_over:
            return int(pyspiel.PlayerId.TERMINAL)
        seat = table.current_player
        assert seat is not None
        return seat

    def _legal_actions(self, player: int) -> list[int]:
        assert self.table is not None
        return self.table.legal_ids()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = cards_of(self.undealt)
        p = 1.0 / len(left)
        return [(card, p) for card in left]

    def _apply_action(self, action: int) -> None:
        if self.table is None:
            self.dealt.append(action)
            self.undealt &= ~(1 << action)
            if len(self.dealt) == self.ruleset.deck_size:
                deal = deal_from_order(self.ruleset, self.dealt)
                game = Game.from_deal(
                    self.ruleset, deal, dealer=self.ruleset.first_dealer, events=False
                )
                self.table = RookTable(self.ruleset, game, reward=self.shared.reward)
            return
        rewards = self.table.step(action)
        if any(rewards):
            self.totals = [t + r for t, r in zip(self.totals, rewards, strict=True)]

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {card_name(action)}"
        return self.codec.describe(action)

    def is_terminal(self) -> bool:
        return self.table is not None and self.table.is_over

    def returns(self) -> list[float]:
        return list(self.totals)

    def __str__(self) -> str:
        if self.table is None:
            return f"dealing: {len(self.dealt)} of {self.ruleset.deck_size} cards dealt"
        game = self.table.game
        hands = " | ".join(f"{s}: {format_cards(h)}" for s, h in enumerate(game.hands))
        return (
            f"{game.phase.name} to act {game.current_player}; hands {hands}; scores {game.scores}"
        )

    def observation_of(self, player: int) -> Observation:
        """The engine's observation of ``player`` (after the deal)."""
        assert self.table is not None
        return self.table.observation(player)

    def resample_from_infostate(
        self, player_id: int, probability_sampler: Callable[[], float]
    ) -> RookSpielState:
        """A state with the same information state for ``player_id`` and the hidden cards drawn
        by the engine's deal sampler (seeded from ``probability_sampler``)."""
        rng = random.Random(int(probability_sampler() * 2**53))
        return resampled(self, player_id, rng)


def deal_from_order(ruleset: Ruleset, order: list[int]) -> Deal:
    """The deal of cards dealt in ``order``: hands seat by seat, then the nest, then the dead."""
    size = ruleset.hand_size
    hands = tuple(
        sum(1 << c for c in order[s * size : (s + 1) * size]) for s in range(ruleset.players)
    )
    at = ruleset.players * size
    nest = sum(1 << c for c in order[at : at + ruleset.nest_size])
    dead = sum(1 << c for c in order[at + ruleset.nest_size :])
    return Deal(hands, nest, dead)


def _order_of(ruleset: Ruleset, deal: Deal) -> list[int]:
    order: list[int] = []
    for hand in deal.hands:
        order.extend(cards_of(hand))
    order.extend(cards_of(deal.nest))
    order.extend(cards_of(deal.dead))
    return order


def resampled(state: RookSpielState, player: int, rng: random.Random) -> RookSpielState:
    """``state`` with the cards ``player`` cannot see redrawn (the deal sampler's draw), its
    history replayed; a bury in progress that ``player`` cannot see is redrawn too."""
    game = state.get_game()
    new = game.new_initial_state()
    rules = state.ruleset
    if state.table is None:
        mine = range(player * rules.hand_size, (player + 1) * rules.hand_size)
        own = {c for i, c in enumerate(state.dealt) if i in mine}
        hidden = [c for c in rules.deck_cards if c not in own]
        rng.shuffle(hidden)
        for index, card in enumerate(state.dealt):
            new.apply_action(card if index in mine else hidden.pop())
        return new  # type: ignore[no-any-return]
    obs = state.observation_of(player)
    deal = sample_deal(obs, rng)
    picked_up = state.table.picked_up(player)
    if picked_up:
        # The bidder remembers which of its cards came from the nest: the sample keeps them
        # there (the sample's bidder's hand and nest hold the same cards, split otherwise).
        dealt = state.table.game.deal.hands[player]
        hands = list(deal.hands)
        assert hands[player] | deal.nest == dealt | picked_up
        hands[player] = dealt
        deal = Deal(tuple(hands), picked_up, deal.dead)
    for card in _order_of(rules, deal):
        new.apply_action(card)
    codec = state.codec
    # After the bury the sample's nest stands for the buried cards: a bury ``player`` did not
    # see is replayed as the sample's nest; a bury still in progress, as random cards.
    hidden_bury = obs.bidder != player
    buried = [codec.bury0 + card for card in cards_of(deal.nest)] if obs.buried_count else []
    for history in state.full_history()[rules.deck_size :]:
        action = history.action
        if hidden_bury and codec.bury0 <= action < codec.call0:
            action = buried.pop(0) if buried else rng.choice(new.legal_actions())
        new.apply_action(action)
    return new  # type: ignore[no-any-return]


class RookObserver:
    """OpenSpiel's observer: the observation tensor, or (perfect recall) the information-state
    tensor; with ``private_info`` NONE only the public part (no hand, nest, bury)."""

    def __init__(self, game: RookSpielGame, iig_obs_type: Any) -> None:
        self.game = game
        self.perfect_recall = bool(iig_obs_type.perfect_recall)
        self.private = iig_obs_type.private_info == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.public = bool(iig_obs_type.public_info)
        encoder = game.encoder
        size = encoder.info_size if self.perfect_recall else encoder.size
        self.tensor = np.zeros(size, np.float32)
        self.dict = {"observation": self.tensor}

    def _view(self, state: RookSpielState, player: int) -> tuple[Observation, int]:
        assert state.table is not None
        table = state.table
        if self.private:
            return table.observation(player), table.pending_for(player)
        public = table.game.public_view()
        return dataclasses.replace(public, seat=player), 0

    def _recall(self, state: RookSpielState, player: int) -> tuple[int, list[int]]:
        """What the bidder remembers beyond its observation: the nest it took, its bury order."""
        assert state.table is not None
        if not self.private:
            return 0, []
        return state.table.picked_up(player), state.table.bury_order_for(player)

    def set_from(self, state: RookSpielState, player: int) -> None:
        self.tensor.fill(0.0)
        if state.table is None:
            if self.private:
                size = state.ruleset.hand_size
                at = self.game.encoder.offsets["hand"][0]
                for card in state.dealt[player * size : (player + 1) * size]:
                    self.tensor[at + card] = 1.0
            return
        if self.private:  # the core writes it, where it runs
            if self.perfect_recall:
                self.tensor[:] = state.table.info_tensor(player)
            else:
                state.table.tensor_into(self.tensor, player)
            return
        obs, pending = self._view(state, player)
        encoder = self.game.encoder
        if self.perfect_recall:
            picked_up, bury_order = self._recall(state, player)
            self.tensor[:] = encoder.encode_info_state(
                obs, pending, picked_up=picked_up, bury_order=bury_order
            )
        else:
            encoder.encode_into(self.tensor, obs, pending)

    def string_from(self, state: RookSpielState, player: int) -> str:
        if state.table is None:
            size = state.ruleset.hand_size
            mine = state.dealt[player * size : (player + 1) * size] if self.private else []
            return f"dealing; your cards so far: {' '.join(card_name(c) for c in sorted(mine))}"
        obs, pending = self._view(state, player)
        if self.perfect_recall:
            picked_up, bury_order = self._recall(state, player)
            data = obs.to_dict()
            del data["ruleset"]
            data["pending_bury"] = [card_name(c) for c in cards_of(pending)]
            data["picked_up"] = [card_name(c) for c in cards_of(picked_up)]
            data["bury_order"] = [card_name(c) for c in bury_order]
            return json.dumps(data, sort_keys=True)
        return observation_header(obs) + "\n" + render_view(obs, pending)


def observation_header(obs: Observation) -> str:
    """The state an observation tensor holds that the text view leaves out: the phase, the seat
    to act, the high bid, how much of the bury is done and the points taken."""
    rules = obs.ruleset
    points = ", ".join(str(p) for p in obs.points_captured)
    return (
        f"Phase {obs.phase.name}; to act: seat {obs.current_player}; high bid {obs.high_bid} "
        f"(seat {obs.high_bidder}); buried {obs.buried_count} of {rules.nest_size}; "
        f"points taken by side: {points}."
    )


pyspiel.register_game(_GAME_TYPE, RookSpielGame)


def _refuse_python_rook(state: object) -> None:
    if isinstance(state, RookSpielState):
        raise TypeError(
            "OpenSpiel's C++ ISMCTSBot cannot search a Python game (on python_rook it crashes "
            "the process); use rookery.envs.spiel.ismcts_chooser (OpenSpiel's Python IS-MCTS)"
        )


class GuardedCppISMCTSBot(pyspiel.ISMCTSBot):  # type: ignore[misc]
    """OpenSpiel's C++ ``ISMCTSBot``, refusing ``python_rook`` states with a ``TypeError``
    instead of crashing the process; every other game's states pass through unchanged."""

    def step(self, state: Any) -> int:
        _refuse_python_rook(state)
        return int(super().step(state))

    def step_with_policy(self, state: Any) -> Any:
        _refuse_python_rook(state)
        return super().step_with_policy(state)


# Importing this module guards ``pyspiel.ISMCTSBot`` (a name bound before the import is not).
pyspiel.ISMCTSBot = GuardedCppISMCTSBot


def play_hand(
    state: RookSpielState,
    choosers: Sequence[Callable[[RookSpielState], int]],
) -> list[float]:
    """Play ``state`` (dealt) to its end, seat ``s`` choosing ids with ``choosers[s]``."""
    while not state.is_terminal():
        player = state.current_player()
        action = choosers[player](state)
        if action not in state.legal_actions():
            raise ValueError(f"seat {player} chose the illegal id {action}")
        state.apply_action(action)
    return state.returns()


def deal_state(game: RookSpielGame, seed: int) -> RookSpielState:
    """A new state dealt as the engine deals game ``seed``'s first hand (duplicate deals)."""
    state = game.new_initial_state()
    for card in _order_of(game.ruleset, deal_for_hand(game.ruleset, seed, 0)):
        state.apply_action(card)
    return state


def mcts_chooser(
    game: RookSpielGame, *, simulations: int = 40, seed: int = 0
) -> Callable[[RookSpielState], int]:
    """OpenSpiel's MCTS (UCT, random rollouts) on a determinization of the information state:
    at each decision the hidden cards are resampled (``resample_from_infostate``) and MCTS
    searches that world; its choice is legal in the real one (it depends only on the seat's own
    information)."""
    from open_spiel.python.algorithms import mcts  # type: ignore[import-untyped]

    rng = np.random.RandomState(seed)
    draws = random.Random(seed)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bot = mcts.MCTSBot(game, 2.0, simulations, evaluator, random_state=rng, solve=False)

    def choose(state: RookSpielState) -> int:
        world = state.resample_from_infostate(state.current_player(), draws.random)
        return int(bot.step(world))

    return choose


def ismcts_chooser(
    game: RookSpielGame, *, simulations: int = 40, seed: int = 0
) -> Callable[[RookSpielState], int]:
    """OpenSpiel's Python IS-MCTS (``open_spiel.python.algorithms.ismcts``): one search tree over
    information states, each simulation on a world drawn by the engine's deal sampler
    (:func:`resampled`). Reproducible: equal seeds, equal choices (the bot's own resampler
    draws from an unseeded generator, so it is replaced by one seeded from ``seed``)."""
    from open_spiel.python.algorithms import ismcts, mcts

    rng = np.random.RandomState(seed)
    draws = random.Random(seed)
    evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
    bot = ismcts.ISMCTSBot(game, evaluator, 2.0, simulations, random_state=rng)
    bot.set_resampler(lambda state, player: resampled(state, player, draws))

    def choose(state: RookSpielState) -> int:
        return int(bot.step(state))

    return choose


def engine_chooser(policy: Policy, seed: int = 0) -> Callable[[RookSpielState], int]:
    """A Rookery policy (``rookery.client.bots`` style) choosing ids: a bury it returns whole is
    taken one card a step."""
    rng = random.Random(seed)
    queued: list[int] = []

    def choose(state: RookSpielState) -> int:
        if queued:
            return queued.pop(0)
        assert state.table is not None
        seat = state.current_player()
        obs = state.table.observation(seat)
        ids = state.codec.to_ids(policy(obs, state.table.legal(), rng))
        queued.extend(ids[1:])
        return ids[0]

    return choose


def mcts_policy(*, simulations: int = 20, seed: int = 0) -> Policy:
    """OpenSpiel's MCTS as a Rookery policy ``(observation, legal, rng) -> action``, for whole
    games (in-process or as a bot): each decision searches the current hand of a world drawn by
    the engine's deal sampler; a bury is searched card by card and returned whole. The table's
    ruleset must have its preset's action ids (the same bids)."""
    from open_spiel.python.algorithms import mcts

    rng = np.random.RandomState(seed)
    draws = random.Random(seed)
    games: dict[str, RookSpielGame] = {}
    bots: dict[str, Any] = {}

    def act(obs: Observation, legal: LegalActions, _: random.Random) -> Action:
        name = obs.ruleset.name
        if name not in games:
            games[name] = pyspiel.load_game(GAME_NAME, {"preset": name})
            if ActionCodec(obs.ruleset).bids != games[name].codec.bids:
                raise ValueError(f"the table's bids differ from preset {name!r}'s action ids")
            evaluator = mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rng)
            bots[name] = mcts.MCTSBot(games[name], 2.0, simulations, evaluator, random_state=rng)
        game, bot = games[name], bots[name]
        # The world ends with this hand: its returns are this hand's score changes.
        rules = obs.ruleset.replace(max_hands=obs.hand_number + 1)
        world_obs = dataclasses.replace(obs, ruleset=rules)
        deal = sample_deal(world_obs, draws)
        state = game.new_initial_state()
        state.dealt = _order_of(rules, deal)
        state.undealt = 0
        world = Game.from_observation(world_obs, deal)
        state.table = RookTable(rules, world, reward=game.reward)
        while True:
            step = state.codec.step_action(
                int(bot.step(state)), state.table.legal(), state.table.pending
            )
            if not isinstance(step, int):
                return step
            state.table.set_pending(step)

    return act
