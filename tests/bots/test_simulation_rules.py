"""The search's fast playout model follows the engine's rules: a randomised differential test.

``HandSimulation`` (and the solver and heuristic built on it) takes its rules from the engine
(``TRICK_KEYS``, ``FOLLOW_MASKS``, ``TRUMP_MASKS``, ``playable``, ``bidding_seats``,
``score_hand``) but keeps the trick under way inline, per card. Here it is started at many random
positions of every preset (and of each preset with ``rook_free_play`` flipped), from a random
seat's observation with the real hands, and played out with random legal cards beside the engine:
at every card the seat to act, the legal cards, the led suit, the trick's winner and points and
each seat's shown voids must be the engine's; at every trick's end the winner; at the hand's end
the bidding side, its total and every score change.
"""

from __future__ import annotations

import random

import pytest
from rookery.client.bots._play import (
    _ABOVE,
    FOLLOW_MASKS,
    KEYS,
    TRUMP_MASKS,
    infer_voids,
    play_view_from_observation,
)
from rookery.client.bots._simulate import HandSimulation
from rookery.engine import (
    CARD_POINTS,
    PASS,
    PRESETS,
    TRICK_KEYS,
    Bid,
    Game,
    Phase,
    PlayCard,
    Ruleset,
    mask_points,
    trick_winner,
)
from rookery.engine import FOLLOW_MASKS as ENGINE_FOLLOW_MASKS
from rookery.engine import TRUMP_MASKS as ENGINE_TRUMP_MASKS

POSITIONS = 40
"""Random positions per ruleset (each played out to the hand's end)."""


def test_the_playout_tables_are_the_engines_and_derived_from_them() -> None:
    assert KEYS is TRICK_KEYS
    assert FOLLOW_MASKS is ENGINE_FOLLOW_MASKS
    assert TRUMP_MASKS is ENGINE_TRUMP_MASKS
    for trump, keys in enumerate(KEYS):
        for key, above in enumerate(_ABOVE[trump]):
            assert above == sum(1 << card for card in range(58) if keys[card] > key)
        assert _ABOVE[trump][-1] == 0  # no card is keyed above the top key


def _cards(mask: int) -> list[int]:
    return [card for card in range(58) if mask >> card & 1]


def _random_position(rules: Ruleset, rng: random.Random) -> Game:
    """A game of ``rules`` in the play phase, some random cards into the hand."""
    while True:
        game = Game(rules, rng.randrange(1 << 64), events=False)
        while game.phase is not Phase.PLAY and not game.is_over and game.hand_number == 0:
            legal = game.legal_actions()
            if legal.phase is Phase.BIDDING:
                bid = legal.bids and rng.random() < 0.6
                game.apply(Bid(legal.bids[0]) if bid else PASS)
            else:
                game.apply(legal.sample(rng))
        if game.phase is Phase.PLAY and game.hand_number == 0:
            break
    for _ in range(rng.randrange(rules.hand_size * rules.players)):
        game.apply(PlayCard(rng.choice(_cards(game.legal_actions().play))))
    return game


def _check_trick(sim: HandSimulation, game: Game) -> None:
    """The simulation's trick under way is the engine's, seen from the seat to act."""
    seat = game.current_player
    assert seat is not None
    obs = game.observation_for(seat)
    assert obs.trump is not None
    trump = int(obs.trump)
    cards = obs.current_trick.cards
    assert sim.current == seat
    assert sim.trick == list(cards)
    assert sim.legal() == game.legal_actions().play
    tricks = [trick.cards for trick in obs.completed_tricks] + [cards]
    assert sim.voids == infer_voids(sim.players, trump, tricks, sim.rook_free_play)
    if not cards:
        assert (sim.win_seat, sim.trick_points) == (-1, 0)
        return
    win_seat, win_card = cards[trick_winner([card for _, card in cards], trump)]
    assert sim.follow == FOLLOW_MASKS[trump][cards[0][1]]
    assert (sim.win_seat, sim.win_key) == (win_seat, TRICK_KEYS[trump][win_card])
    assert sim.trick_points == sum(CARD_POINTS[card] for _, card in cards)
    view = play_view_from_observation(obs, sim.legal())
    assert (view.follow, view.win_seat, view.win_key, view.trick_points) == (
        sim.follow,
        sim.win_seat,
        sim.win_key,
        sim.trick_points,
    )


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_playout_model_plays_and_scores_as_the_engine(preset: str) -> None:
    rng = random.Random(f"simulation-rules:{preset}")
    for index in range(POSITIONS):
        rules = PRESETS[preset].replace(max_hands=1)
        if index % 2:
            rules = rules.replace(rook_free_play=not rules.rook_free_play)
        game = _random_position(rules, rng)
        observer = rng.randrange(rules.players)
        obs = game.observation_for(observer)
        sim = HandSimulation.from_observation(obs, list(game.hands))
        # Only the bidder sees the bury: a search for another seat sets it from its sample.
        sim.buried_points = mask_points(game.observation_for(game.bidder).buried)
        completed = len(obs.completed_tricks)
        while not game.is_over:
            _check_trick(sim, game)
            card = rng.choice(_cards(sim.legal()))
            sim.play(card)
            game.apply(PlayCard(card))
            if not game.is_over:
                tricks = game.observation_for(observer).completed_tricks
                if len(tricks) > completed:
                    completed = len(tricks)
                    assert sim.leader == sim.current == tricks[-1].winner
                    assert not sim.trick
        result = game.hand_results[-1]
        assert sim.is_over
        bidding = {result.bidder} | ({result.partner} if result.partner >= 0 else set())
        if not rules.is_per_player:
            bidding = set(rules.seats_of_side(rules.side_of(result.bidder)))
        assert sim.bidding_mask == sum(1 << seat for seat in bidding)
        assert sim.bidding_total() == result.bidding_total
        assert sim.side_deltas() == [
            result.score_deltas[rules.side_of(seat)] for seat in range(rules.players)
        ]
