"""The search bot's candidate cards: one per class of cards that play alike."""

from __future__ import annotations

import dataclasses
import random

from rookery.client.bots import HeuristicPolicy, PimcParameters, PimcPolicy
from rookery.client.bots.pimc import distinct_cards
from rookery.engine import PRESETS, Game, Observation, Phase, Trick, cards_of, parse_cards


def _play_observation() -> Observation:
    """An observation at the first lead of a standard hand, whose hand holds no Black card."""
    game = Game(PRESETS["standard"], 1, events=False)
    heuristic = HeuristicPolicy()
    rng = random.Random(1)
    while game.phase is not Phase.PLAY:
        seat = game.current_player
        assert seat is not None
        obs = game.observation_for(seat)
        game.apply(heuristic(obs, obs.legal_actions(), rng))
    seat = game.current_player
    assert seat is not None
    return game.observation_for(seat)


def _candidates(black: str) -> list[str]:
    obs = _play_observation()
    cards = parse_cards(black)
    hand = (obs.hand & ~parse_cards(" ".join(f"B{rank}" for rank in range(1, 15)))) | cards
    return [
        f"B{card % 14 + 1}" for card in distinct_cards(dataclasses.replace(obs, hand=hand), cards)
    ]


def test_a_run_no_other_seat_can_split_is_one_candidate() -> None:
    assert _candidates("B2 B3 B4") == ["B2"]


def test_a_card_another_seat_may_hold_between_keeps_both() -> None:
    assert _candidates("B2 B4") == ["B2", "B4"]


def test_cards_worth_different_points_are_distinct_candidates() -> None:
    assert _candidates("B4 B5 B6") == ["B4", "B5", "B6"]


def test_every_legal_card_is_a_candidate_or_equivalent_to_one() -> None:
    obs = _play_observation()
    kept = distinct_cards(obs, obs.hand)
    assert set(kept) <= set(cards_of(obs.hand))
    assert len(kept) >= len({card // 14 for card in cards_of(obs.hand)})


def test_a_card_of_the_trick_under_way_splits_a_class() -> None:
    obs = _play_observation()
    cards = parse_cards("B6 B8")
    hand = (obs.hand & ~parse_cards(" ".join(f"B{rank}" for rank in range(1, 15)))) | cards
    leader = (obs.seat + 3) % 4
    trick = Trick(leader, ((leader, parse_cards("B7").bit_length() - 1),), -1, 0)
    following = dataclasses.replace(obs, hand=hand, current_trick=trick)
    assert [f"B{card % 14 + 1}" for card in distinct_cards(following, cards)] == ["B6", "B8"]


def test_a_card_search_counts_one_playout_per_candidate_on_each_sample() -> None:
    obs = _play_observation()
    cards = distinct_cards(obs, obs.legal_actions().play)
    assert len(cards) > 1
    pimc = PimcPolicy(PimcParameters(time_budget=None, samples=6, prune_every=0))
    pimc.play(obs, obs.legal_actions().play, random.Random(2))
    assert pimc.last_search.samples == 6
    assert pimc.last_search.playouts == 6 * len(cards)
