"""Perfect recall: a seat's information state (string and tensor) tells apart exactly the histories
that differ in something the seat saw; an observation string determines its tensor."""

from __future__ import annotations

import random
from collections import defaultdict
from collections.abc import Hashable, Iterator

import numpy as np
import pyspiel  # type: ignore[import-not-found]
import pytest
from envs_positions import ALL_PRESETS
from rookery.engine import Phase
from rookery.envs.spiel import GAME_NAME, RookSpielState

ViewKey = tuple[Hashable, ...]


def _load(name: str) -> pyspiel.Game:
    return pyspiel.load_game(GAME_NAME, {"preset": name})


def _replay(game: pyspiel.Game, actions: list[int]) -> RookSpielState:
    state = game.new_initial_state()
    for action in actions:
        state.apply_action(action)
    return state  # type: ignore[no-any-return]


def _random_actions(game: pyspiel.Game, seed: int, moves: int) -> list[int]:
    """A random deal, then ``moves`` random legal ids (fewer if the hand ends)."""
    state = game.new_initial_state()
    rng = random.Random(seed)
    while state.is_chance_node():
        state.apply_action(rng.choice([a for a, _ in state.chance_outcomes()]))
    for _ in range(moves):
        if state.is_terminal():
            break
        state.apply_action(rng.choice(state.legal_actions()))
    return list(state.history())


def view_key(state: RookSpielState, seat: int) -> ViewKey:
    """Everything ``seat`` saw, from the history alone: its own cards, the nest if it took it,
    every public move in order, its own bury steps in order (another seat sees only that the
    bury was made)."""
    rules, codec = state.ruleset, state.codec
    history = list(state.history())
    dealt = history[: rules.deck_size]
    size = rules.hand_size
    own = frozenset(dealt[seat * size : (seat + 1) * size])
    table = state.table
    if table is None:
        return (own,)
    game = table.game
    took_nest = game.bidder == seat and game.phase is not Phase.BIDDING and rules.nest_size
    at = rules.players * size
    nest = frozenset(dealt[at : at + rules.nest_size]) if took_nest else frozenset()
    moves: list[Hashable] = []
    bury_steps = 0
    for action in history[rules.deck_size :]:
        if codec.bury0 <= action < codec.call0:
            bury_steps += 1
            if game.bidder == seat:
                moves.append(("bury", action))
            elif bury_steps == rules.nest_size:
                moves.append("the bury is made")
        else:
            moves.append(action)
    return (own, nest, tuple(moves))


def _after_the_bury(game: pyspiel.Game, seed: int) -> list[int]:
    """A history that reaches the play with a whole bury made (random moves)."""
    for attempt in range(50):
        actions = _random_actions(game, seed * 100 + attempt, 0)
        state = _replay(game, actions)
        rng = random.Random(seed * 100 + attempt)
        while not state.is_terminal() and state.table.game.phase is not Phase.PLAY:  # type: ignore[union-attr]
            legal = state.legal_actions()
            passing = 0 in legal and rng.random() < 0.6
            state.apply_action(0 if passing else rng.choice([a for a in legal if a] or legal))
        table = state.table
        assert table is not None
        if not state.is_terminal() and table.observation(table.game.bidder).buried_count:
            for _ in range(rng.randrange(0, 8)):
                state.apply_action(rng.choice(state.legal_actions()))
            return list(state.history())
    raise AssertionError("no hand reached the play")


def _nest_swapped(game: pyspiel.Game, actions: list[int]) -> list[int] | None:
    """The same history with a card the bidder kept from its hand and one it kept from the nest
    dealt the other way round (everything else the same), or None if there is no such pair."""
    state = _replay(game, actions)
    rules = state.ruleset
    table = state.table
    assert table is not None
    bidder, size = table.game.bidder, rules.hand_size
    buried = {
        a - state.codec.bury0
        for a in actions[rules.deck_size :]
        if state.codec.bury0 <= a < state.codec.call0
    }
    hand_at = range(bidder * size, (bidder + 1) * size)
    nest_at = range(rules.players * size, rules.players * size + rules.nest_size)
    kept_hand = [i for i in hand_at if actions[i] not in buried]
    kept_nest = [i for i in nest_at if actions[i] not in buried]
    if not kept_hand or not kept_nest:
        return None
    swapped = list(actions)
    i, j = kept_hand[0], kept_nest[0]
    swapped[i], swapped[j] = swapped[j], swapped[i]
    return swapped


def _bury_reordered(game: pyspiel.Game, actions: list[int]) -> list[int]:
    """The same history with the bidder's first two bury steps taken the other way round."""
    state = _replay(game, [])
    codec, deck = state.codec, state.ruleset.deck_size
    steps = [i for i, a in enumerate(actions) if i >= deck and codec.bury0 <= a < codec.call0]
    swapped = list(actions)
    i, j = steps[0], steps[1]
    swapped[i], swapped[j] = swapped[j], swapped[i]
    return swapped


@pytest.mark.parametrize("name", ["standard", "traditional", "five-handed"])
def test_the_bidder_remembers_which_cards_came_from_the_nest_after_the_bury(name: str) -> None:
    game = _load(name)
    checked = 0
    for seed in range(20):
        actions = _after_the_bury(game, seed)
        swapped = _nest_swapped(game, actions)
        if swapped is None:
            continue
        one, other = _replay(game, actions), _replay(game, swapped)
        bidder = one.table.game.bidder  # type: ignore[union-attr]
        assert one.observation_tensor(bidder) == other.observation_tensor(bidder)
        assert one.information_state_string(bidder) != other.information_state_string(bidder)
        assert one.information_state_tensor(bidder) != other.information_state_tensor(bidder)
        checked += 1
    assert checked >= 5


@pytest.mark.parametrize("name", ["standard", "cutthroat"])
def test_the_bidder_remembers_the_order_of_its_bury(name: str) -> None:
    game = _load(name)
    for seed in range(5):
        actions = _after_the_bury(game, seed)
        one, other = _replay(game, actions), _replay(game, _bury_reordered(game, actions))
        bidder = one.table.game.bidder  # type: ignore[union-attr]
        assert one.information_state_string(bidder) != other.information_state_string(bidder)
        assert one.information_state_tensor(bidder) != other.information_state_tensor(bidder)
        seat = (bidder + 1) % one.num_players()  # the others saw only that the bury was made
        assert one.information_state_tensor(seat) == other.information_state_tensor(seat)


def _states(game: pyspiel.Game, seed: int) -> Iterator[RookSpielState]:
    """States at random points (dealing included), each with its variants: the hidden cards
    redrawn for each seat, the nest dealt otherwise and the bury reordered after the bury."""
    rng = random.Random(seed)
    deck = _replay(game, []).ruleset.deck_size
    full = _random_actions(game, seed, 400)
    for cut in sorted(rng.sample(range(deck - 3, len(full) + 1), 6)) + [rng.randrange(1, deck)]:
        state = _replay(game, full[:cut])
        yield state
        if state.table is None or state.is_terminal():
            continue
        for player in range(state.num_players()):
            yield state.resample_from_infostate(player, random.Random(seed + player).random)
    if not _replay(game, []).ruleset.nest_size:
        return
    after = _after_the_bury(game, seed)
    yield _replay(game, after)
    yield _replay(game, _bury_reordered(game, after))
    swapped = _nest_swapped(game, after)
    if swapped is not None:
        yield _replay(game, swapped)


def _one_to_one(pairs: list[tuple[Hashable, Hashable]]) -> None:
    """Each left value meets one right value and each right value one left value."""
    forward: dict[Hashable, set[Hashable]] = defaultdict(set)
    backward: dict[Hashable, set[Hashable]] = defaultdict(set)
    for left, right in pairs:
        forward[left].add(right)
        backward[right].add(left)
    assert all(len(v) == 1 for v in forward.values()), "equal views, different states"
    assert all(len(v) == 1 for v in backward.values()), "different views, one state"


@pytest.mark.parametrize("name", ALL_PRESETS)
def test_information_states_tell_apart_exactly_what_the_seat_saw(name: str) -> None:
    game = _load(name)
    per_seat: dict[int, list[tuple[ViewKey, str, bytes]]] = defaultdict(list)
    for seed in range(6):
        for state in _states(game, seed):
            if state.is_terminal():
                continue
            for seat in range(state.num_players()):
                tensor = np.asarray(state.information_state_tensor(seat), np.float32).tobytes()
                per_seat[seat].append(
                    (view_key(state, seat), state.information_state_string(seat), tensor)
                )
    for rows in per_seat.values():
        keys = {key for key, _, _ in rows}
        assert len(keys) < len(rows), "the check needs some equal views"
        _one_to_one([(key, string) for key, string, _ in rows])
        _one_to_one([(key, tensor) for key, _, tensor in rows])


@pytest.mark.parametrize("name", ALL_PRESETS)
def test_an_observation_string_determines_its_tensor(name: str) -> None:
    game = _load(name)
    tensors: dict[str, set[bytes]] = defaultdict(set)
    for seed in range(4):
        state = game.new_initial_state()
        for action in _random_actions(game, seed, 400):
            state.apply_action(action)
            if state.is_chance_node() or state.is_terminal():
                continue
            for seat in range(state.num_players()):
                tensor = np.asarray(state.observation_tensor(seat), np.float32).tobytes()
                tensors[state.observation_string(seat)].add(tensor)
    assert len(tensors) > 100
    assert all(len(seen) == 1 for seen in tensors.values())
