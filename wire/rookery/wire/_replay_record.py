"""A replay as the engine's ``GameRecord``: its ruleset, seed and applied actions, its hands'
scores and its result."""

from __future__ import annotations

from collections.abc import Iterator

from rookery.engine import GameRecord
from rookery.v1 import replay_pb2, results_pb2

from .convert import (
    action_from_proto,
    forfeit_from_proto,
    game_result_from_proto,
    ruleset_from_proto,
)

__all__ = ["replay_to_record"]


def _recorded_actions(
    replay: replay_pb2.Replay,
) -> Iterator[tuple[int, int, replay_pb2.ReplayAction]]:
    for hand_index, hand in enumerate(replay.hands):
        for action_index, recorded in enumerate(hand.actions):
            if recorded.outcome != replay_pb2.ACTION_OUTCOME_REJECTED:
                yield hand_index, action_index, recorded


def replay_to_record(replay: replay_pb2.Replay) -> GameRecord:
    """The engine ``GameRecord`` of a replay: its ruleset, seed and applied actions, its hands'
    cumulative scores, and its result (a recorded forfeit or abort included).

    Rejected actions are left out. Raises ``MalformedMessageError`` for a malformed message.
    """
    ruleset = ruleset_from_proto(replay.header.ruleset, "header.ruleset")
    actions = tuple(
        (
            recorded.seat,
            action_from_proto(recorded.action, f"hands[{hand}].actions[{index}].action"),
        )
        for hand, index, recorded in _recorded_actions(replay)
    )
    scores: tuple[int, ...] = (0,) * ruleset.num_sides
    hand_scores = []
    for hand in replay.hands:
        if hand.HasField("result"):
            if not hand.result.redeal:
                scores = tuple(hand.result.scores)
            hand_scores.append(scores)
    result = None
    forfeit = None
    aborted = False
    if replay.HasField("result"):
        result = game_result_from_proto(replay.result)
        recorded_forfeit = forfeit_from_proto(replay.result)
        if recorded_forfeit is not None:
            forfeit = (recorded_forfeit.seat, recorded_forfeit.detail)
        aborted = replay.result.reason == results_pb2.TERMINATION_REASON_ABORTED
    return GameRecord(
        ruleset=ruleset,
        seed=replay.header.seed,
        actions=actions,
        forfeit=forfeit,
        aborted=aborted,
        hand_scores=tuple(hand_scores),
        result=result,
    )
