"""RULES.md §9: a game is (ruleset, seed, actions) and its replay reproduces it exactly."""

from __future__ import annotations

import dataclasses
import json
import random

import pytest
from rookery.engine import (
    PASS,
    PRESETS,
    Bid,
    Game,
    GameRecord,
    RecordFormatError,
    ReplayMismatchError,
    format_replay_text,
    random_playout,
)

STANDARD = PRESETS["standard"]


def finished() -> Game:
    return random_playout(PRESETS["straight"], 5, random.Random(5))


def test_random_playout_finishes_the_game() -> None:
    game = finished()
    assert game.is_over and game.result is not None
    assert len(game.hand_results) == game.result.hands_played


def test_a_record_replays_to_the_same_game() -> None:
    game = finished()
    replayed = GameRecord.from_game(game).replay()
    assert replayed.result == game.result
    assert replayed.hand_results == game.hand_results
    assert replayed.events == game.events


def test_records_round_trip_through_json() -> None:
    record = GameRecord.from_game(finished())
    again = GameRecord.from_dict(json.loads(json.dumps(record.to_dict())))
    assert again == record
    assert again.replay().result == record.result


def test_a_recorded_illegal_action_names_its_index() -> None:
    record = GameRecord.from_game(Game(STANDARD, 1))
    bad = dataclasses.replace(record, actions=((1, Bid(70)), (2, Bid(65))))
    with pytest.raises(ReplayMismatchError, match="action 1") as caught:
        bad.replay()
    assert caught.value.index == 1


def test_a_recorded_action_by_the_wrong_seat_is_a_mismatch() -> None:
    record = dataclasses.replace(GameRecord.from_game(Game(STANDARD, 1)), actions=((2, PASS),))
    with pytest.raises(ReplayMismatchError, match="seat 1 is to act"):
        record.replay()


def test_a_recorded_score_that_differs_is_a_mismatch() -> None:
    record = GameRecord.from_game(finished())
    assert record.hand_scores is not None
    scores = list(record.hand_scores)
    scores[0] = tuple(score + 5 for score in scores[0])
    with pytest.raises(ReplayMismatchError, match="hand 0"):
        dataclasses.replace(record, hand_scores=tuple(scores)).replay()


def test_a_recorded_result_that_differs_is_a_mismatch() -> None:
    record = GameRecord.from_game(finished())
    assert record.result is not None
    wrong = dataclasses.replace(record.result, winners=(9,))
    with pytest.raises(ReplayMismatchError, match="result"):
        dataclasses.replace(record, result=wrong).replay()


def test_forfeits_are_recorded_and_replayed() -> None:
    game = Game(STANDARD, 1)
    game.apply(Bid(70))
    game.forfeit(2, "timed out")
    record = GameRecord.from_dict(json.loads(json.dumps(GameRecord.from_game(game).to_dict())))
    assert record.forfeit == (2, "timed out")
    assert record.replay().result == game.result


@pytest.mark.parametrize(
    "mutate",
    [
        lambda d: d.pop("ruleset"),
        lambda d: d.update(format="other"),
        lambda d: d.update(seed="1"),
        lambda d: d.update(actions=[[0, "fly away"]]),
        lambda d: d.update(actions=[["0", "pass"]]),
        lambda d: d.update(ruleset={"players": 9}),
        lambda d: d.update(result={"winners": "x"}),
        lambda d: d.update(hand_scores=[["a"]]),
    ],
)
def test_corrupt_records_are_refused(mutate: object) -> None:
    data = GameRecord.from_game(finished()).to_dict()
    mutate(data)  # type: ignore[operator]
    with pytest.raises(RecordFormatError):
        GameRecord.from_dict(data)


def test_replay_text_shows_every_hand() -> None:
    game = finished()
    text = format_replay_text(GameRecord.from_game(game))
    assert text.startswith("Rookery game: ruleset straight, seed 5")
    assert text.count("\nHand ") == len(game.hand_results)
    assert "Game over (" in text
    assert text.count("trick 14:") == sum(1 for result in game.hand_results if not result.redeal)


def test_replay_text_of_an_unfinished_game() -> None:
    game = Game(STANDARD, 1)
    game.apply(Bid(70))
    assert "Game unfinished" in format_replay_text(GameRecord.from_game(game))


def test_games_rulesets_and_legal_actions_pickle() -> None:
    import pickle

    game = finished()
    again = pickle.loads(pickle.dumps(game))
    assert again.result == game.result and again.events == game.events
    assert pickle.loads(pickle.dumps(PRESETS["five-handed"])) == PRESETS["five-handed"]
    live = Game(STANDARD, 3)
    for _ in range(12):
        legal = live.legal_actions()
        assert pickle.loads(pickle.dumps(legal)) == legal
        live.apply(legal[-1] if legal.bids else legal[0])
