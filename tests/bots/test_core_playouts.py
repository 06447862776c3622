"""The native core's heuristic playouts are the Python playout model's, card for card.

The core (``rookery.engine.HeuristicPlayouts``) ports ``HandSimulation.play_out`` and the
heuristic play; the Python model is the reference. Held equal three ways: the recorded goldens
(``playout_golden.json``, the points and score changes of 267 playouts), a differential over
random positions of every preset (every legal card played out on sampled hands), and the reading
of the opponents' play (``play_likelihood``) on the same samples, and the choice of the likeliest
of several draws.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest
from rookery.client.bots import HeuristicPolicy
from rookery.client.bots._play import known_friends
from rookery.client.bots._sampling import play_likelihood, sample_hands
from rookery.client.bots._simulate import (
    HandSimulation,
    bidding_mask,
    called_partner,
    core_playouts,
    side_deltas,
)
from rookery.engine import (
    PRESETS,
    Deal,
    Game,
    HeuristicPlayouts,
    Observation,
    Phase,
    mask_points,
    sample_deals,
)

GOLDEN = Path(__file__).with_name("playout_golden.json")

pytestmark = pytest.mark.skipif(
    not HeuristicPlayouts.available(), reason="the engine runs pure here (no core playouts)"
)


def test_the_core_reproduces_every_recorded_playout() -> None:
    cases = json.loads(GOLDEN.read_text())
    differences = []
    for number, case in enumerate(cases):
        rules = PRESETS[case["preset"]]
        state = case["state"]
        playouts = HeuristicPlayouts(
            rules,
            trump=state["trump"],
            bidder=state["bidder"],
            called=state["called"],
            partner_shown=state["partner_shown"],
            played=state["played"],
            trick=[(seat, card) for seat, card in state["trick"]],
            voids=state["voids"],
            won=state["won"],
            leader=state["leader"],
            tricks_left=state["tricks_left"],
        )
        cards = [outcome["card"] for outcome in case["outcomes"]]
        partner = state["partner"]
        wons = playouts.play_out(
            state["hands"], partner, bidding_mask(rules, state["bidder"], partner), cards
        )
        got = [
            {
                "card": card,
                "won": won,
                "deltas": side_deltas(
                    rules, won, state["bidder"], partner, state["bid"], state["buried_points"]
                ),
            }
            for card, won in zip(cards, wons, strict=True)
        ]
        if got != case["outcomes"]:
            differences.append((number, case["preset"], case["outcomes"], got))
    assert len(cases) == 60
    assert not differences, differences[:2]


def _play_positions(preset: str, count: int, seed: int) -> list[Game]:
    """``count`` positions of ``preset``'s play phase, heuristic games stopped at random cards."""
    rules = PRESETS[preset].replace(max_hands=1)
    rng = random.Random(seed)
    heuristic = HeuristicPolicy()
    found: list[Game] = []
    while len(found) < count:
        game = Game(rules, rng.randrange(1 << 32), events=False)
        stop = rng.randrange(rules.hand_size * rules.players - 1)
        plays = 0
        while not game.is_over:
            seat = game.current_player
            assert seat is not None
            obs = game.observation_for(seat)
            if obs.phase is Phase.PLAY:
                if plays == stop:
                    found.append(game)
                    break
                plays += 1
            game.apply(heuristic(obs, obs.legal_actions(), rng))
    return found


@pytest.mark.parametrize("preset", list(PRESETS))
def test_random_positions_play_out_alike_on_the_core_and_in_python(preset: str) -> None:
    rng = random.Random(preset)
    compared = 0
    for game in _play_positions(preset, 12, rng.randrange(1 << 30)):
        seat = game.current_player
        assert seat is not None
        obs = game.observation_for(seat)
        playouts = core_playouts(obs)
        for _ in range(3):
            hands, buried, _ = sample_hands(obs, rng)
            base = HandSimulation.from_observation(obs, hands)
            base.buried_points = mask_points(buried)
            legal = base.legal()
            cards = [card for card in range(58) if legal >> card & 1]
            python = []
            for card in cards:
                sim = base.clone()
                sim.play(card)
                sim.play_out()
                python.append(sim.won)
            core = playouts.play_out(hands, base.partner, base.bidding_mask, cards)
            assert core == python, (preset, obs.hand, hands, cards)
            compared += len(cards)
    assert compared >= 36


@pytest.mark.parametrize("preset", ["standard", "called-partner", "five-handed", "nest-6"])
def test_the_core_reads_the_opponents_play_as_python_does(preset: str) -> None:
    rng = random.Random(preset)
    read = 0
    for game in _play_positions(preset, 12, rng.randrange(1 << 30)):
        seat = game.current_player
        assert seat is not None
        obs = game.observation_for(seat)
        if not (obs.completed_tricks or obs.current_trick.cards):
            continue
        playouts = core_playouts(obs)
        friends = known_friends(obs)
        history = [pair for trick in obs.completed_tricks for pair in trick.cards]
        history += obs.current_trick.cards
        for _ in range(4):
            hands = sample_hands(obs, rng).hands
            start = list(hands)
            for who, card in history:
                start[who] |= 1 << card
            partner = called_partner(obs, start)
            mask = bidding_mask(obs.ruleset, obs.bidder, partner)
            core = playouts.likelihood(hands, partner, mask, friends, 0.25)
            assert core == play_likelihood(obs, hands, 0.25)
            read += 1
    assert read >= 30


def test_the_core_refuses_hands_that_do_not_fit_the_position() -> None:
    game = _play_positions("standard", 1, 3)[0]
    seat = game.current_player
    assert seat is not None
    obs = game.observation_for(seat)
    playouts = core_playouts(obs)
    hands = sample_hands(obs, random.Random(1)).hands
    legal = obs.legal_actions().play
    card = (legal & -legal).bit_length() - 1
    with pytest.raises(ValueError, match="holds"):
        playouts.play_out([*hands[:-1], 0], -1, 0, [card])
    with pytest.raises(ValueError, match="not a legal card"):
        playouts.play_out(hands, -1, 0, [57 if not legal >> 57 & 1 else 0])


def _now(obs: Observation, deal: Deal) -> list[int]:
    """Every seat's cards now, from a deal "as dealt"."""
    played = 0
    for trick in (*obs.completed_tricks, obs.current_trick):
        for _, card in trick.cards:
            played |= 1 << card
    hands = [hand & ~played for hand in deal.hands]
    hands[obs.seat] = obs.hand
    return hands


@pytest.mark.parametrize("preset", ["standard", "called-partner", "five-handed", "cutthroat"])
def test_the_likeliest_sample_is_the_first_best_read_of_the_same_draws(preset: str) -> None:
    """The core's ``likeliest`` draws the deals ``sample_deals`` draws from the same seed and
    keeps the first whose reading (Python's ``play_likelihood``) is the best, or the first that
    explains every card."""
    rng = random.Random(preset)
    checked = 0
    for game in _play_positions(preset, 10, rng.randrange(1 << 30)):
        seat = game.current_player
        assert seat is not None
        obs = game.observation_for(seat)
        if not (obs.completed_tricks or obs.current_trick.cards):
            continue
        playouts = core_playouts(obs)
        friends = known_friends(obs)
        for tries in (1, 8):
            seed = rng.randrange(1 << 30)
            hands, nest, dead = playouts.likeliest(obs, random.Random(seed), tries, friends, 0.25)
            drawn = sample_deals(obs, random.Random(seed), tries)
            readings = [play_likelihood(obs, _now(obs, deal), 0.25) for deal in drawn]
            first_full = next((i for i, r in enumerate(readings) if r >= 1.0), None)
            pick = first_full if first_full is not None else readings.index(max(readings))
            assert (hands, nest, dead) == (
                _now(obs, drawn[pick]),
                drawn[pick].nest,
                drawn[pick].dead,
            )
            checked += 1
    assert checked >= 12
