"""How each move of a replay came about, for the viewer: think time, the bot's note, and the
incident (an SDK fallback, an auto-play after a timeout, replies rejected before it).

Each hand's steps that are moves (``bid``, ``pass``, ``trump``, ``buried``, ``called``,
``play``: one per applied action, in order) get a ``move`` object::

    {"index": 3, "think_ms": 12, "note": {"text": "...", "values": {"samples": 400}} | None,
     "incident": {"kind": "fallback", "detail": "act raised ..."} | None,
     "rejected": ["illegal: ...", ...]}

The viewer shows the incident's kind at the move at once and the note and the details only once
the hand is scored (a note may describe the bot's own cards).
"""

from __future__ import annotations

from typing import Any

from rookery.v1 import replay_pb2

__all__ = ["MOVE_STEPS", "annotate_moves"]

JSON = dict[str, Any]

MOVE_STEPS = frozenset({"bid", "pass", "trump", "buried", "called", "play"})
"""The step types that are a seat's move."""


def _move_json(index: int, recorded: replay_pb2.ReplayAction, rejected: list[str]) -> JSON:
    note = None
    if recorded.HasField("note"):
        note = {"text": recorded.note.text, "values": dict(sorted(recorded.note.values.items()))}
    incident = None
    if recorded.outcome == replay_pb2.ACTION_OUTCOME_AUTO_PLAYED:
        incident = {"kind": "auto_played", "detail": "late: the server played for the bot"}
    elif recorded.HasField("fallback"):
        incident = {"kind": "fallback", "detail": recorded.fallback.reason}
    elif rejected:
        incident = {"kind": "rejected", "detail": f"{len(rejected)} reply(ies) rejected first"}
    return {
        "index": index,
        "seat": recorded.seat,
        "think_ms": recorded.think_ms,
        "note": note,
        "incident": incident,
        "rejected": rejected,
    }


def annotate_moves(hands: list[JSON], replay: replay_pb2.Replay) -> None:
    """Give each move step of ``hands`` (from ``hand_views``) its ``move`` from ``replay``.

    A hand whose move steps do not pair one to one with its applied actions is left as it is.
    """
    by_number = {hand.hand_number: hand for hand in replay.hands}
    for view in hands:
        recorded_hand = by_number.get(view["number"])
        if recorded_hand is None:
            continue
        moves: list[JSON] = []
        rejected: list[str] = []
        for recorded in recorded_hand.actions:
            if recorded.outcome == replay_pb2.ACTION_OUTCOME_REJECTED:
                rejected.append(recorded.rejection_reason)
                continue
            moves.append(_move_json(len(moves), recorded, rejected))
            rejected = []
        steps = [step for step in view["steps"] if step.get("type") in MOVE_STEPS]
        if len(steps) != len(moves) or any(
            step.get("seat") != move["seat"] for step, move in zip(steps, moves, strict=True)
        ):
            continue
        for step, move in zip(steps, moves, strict=True):
            step["move"] = {**step.get("move", {}), **move}  # beside the legal actions, if any
