"""What a replay builder records: how each action came to be recorded (``ActionOutcome``), one
hand in engine values (``RecordedHand``), and that hand's JSON line written straight from them
(``hand_json``: the bytes ``encode_replay`` writes for the hand's ``ReplayHand``, with no message
built).
"""

from __future__ import annotations

import dataclasses
from enum import Enum

from google.protobuf.message import Message
from rookery.engine import NUM_CARDS, Action, Deal, HandResult
from rookery.v1 import actions_pb2, replay_pb2, results_pb2

from ._replay_json import fields_json, message_json
from .convert import card_to_proto, hand_result_to_proto
from .fastpath import replay_hand_actions
from .memo import BoundedMemo

__all__ = ["ActionOutcome", "Recorded", "RecordedHand", "hand_json"]


class ActionOutcome(Enum):
    """How an action came to be recorded (the proto ``ActionOutcome``)."""

    ACCEPTED = replay_pb2.ACTION_OUTCOME_ACCEPTED
    """The bot's own action, accepted and applied."""
    AUTO_PLAYED = replay_pb2.ACTION_OUTCOME_AUTO_PLAYED
    """The bot was late; the server played a fallback legal action for it (applied)."""
    REJECTED = replay_pb2.ACTION_OUTCOME_REJECTED
    """The reply was refused (illegal, malformed, stale): kept for the record, never applied."""


Recorded = tuple[int, "Action | actions_pb2.Action", int, "ActionOutcome", str, bytes]
"""An action as recorded: (seat, action, think_ms, outcome, rejection reason, and the encoded
``note`` and ``fallback`` fields of the ``ReplayAction``, empty when it has neither)."""


@dataclasses.dataclass(slots=True)
class RecordedHand:
    """One hand as recorded, in engine values; encoded only when the replay is asked for."""

    hand_number: int
    dealer: int
    deal: Deal
    actions: list[Recorded] = dataclasses.field(default_factory=list)
    result: HandResult | None = None


_HAND_KEYS = {f.name: '"' + f.json_name + '":' for f in replay_pb2.ReplayHand.DESCRIPTOR.fields}
_DEAL_KEYS = {f.name: '"' + f.json_name + '":' for f in results_pb2.Deal.DESCRIPTOR.fields}
_CARDS_KEY = '"' + results_pb2.CardList.DESCRIPTOR.fields_by_name["cards"].json_name + '":'

_CARD_TEXTS = tuple(message_json(card_to_proto(card)) for card in range(NUM_CARDS))
_CARD_SLICES = tuple(
    tuple(
        ",".join(
            [
                _CARD_TEXTS[card]
                for card in range(start, min(start + 8, NUM_CARDS))
                if subset >> card - start & 1
            ]
        )
        for subset in range(256)
    )
    for start in range(0, NUM_CARDS, 8)
)
"""The JSON texts of a card mask's cards, joined, for each slice of 8 cards and each of its 256
subsets (the way ``rookery.wire.fastpath`` writes their bytes)."""


_ACCEPTED = ActionOutcome.ACCEPTED

_RECORDED_TEXTS: BoundedMemo[tuple[int, Action, int], str] = BoundedMemo(16384)
"""An accepted action's JSON text (one with no note or fallback), by (seat, action, think time):
a fast bot's think time is 0, so the same few hundred come in every game."""


def hand_json(hand: RecordedHand) -> str:
    """``message_json`` of the ``ReplayHand`` that ``ReplayBuilder.replay`` makes of ``hand``
    (its fields in field-number order, zero scalars left out as ``MessageToDict`` does)."""
    keys = _HAND_KEYS
    parts = []
    if hand.hand_number:
        parts.append(keys["hand_number"] + str(hand.hand_number))
    if hand.dealer:
        parts.append(keys["dealer"] + str(hand.dealer))
    deal = _deal_json(hand.deal)
    parts.append(keys["deal"] + deal)  # always set, even when empty
    if hand.actions:
        texts = [_recorded_json(item) for item in hand.actions]
        parts.append(keys["actions"] + "[" + ",".join(texts) + "]")
    result = hand.result
    if result is not None:
        if not result.redeal and result.deal != hand.deal:
            deal = _deal_json(result.deal)  # (a result repeats its hand's deal)
        parts.append(keys["result"] + _hand_result_json(result, deal))
    return "{" + ",".join(parts) + "}"


def _hand_result_json(result: HandResult, deal: str) -> str:
    """``message_json(hand_result_to_proto(result))``, given the text of its deal; its buried
    cards written from their mask."""
    message = hand_result_to_proto(result)
    if result.redeal:
        return message_json(message)
    return fields_json(message, {"deal": deal, "buried": _cards_json(result.buried)})


def _cards_json(mask: int) -> str:
    """The JSON array of a card mask's cards, ascending (as ``deal_to_proto`` lists them)."""
    texts = [subsets[mask >> 8 * i & 0xFF] for i, subsets in enumerate(_CARD_SLICES)]
    return "[" + ",".join([text for text in texts if text]) + "]"


def _deal_json(deal: Deal) -> str:
    """``message_json(deal_to_proto(deal))``."""
    keys = _DEAL_KEYS
    parts = []
    if deal.hands:
        rows = ["{" + _CARDS_KEY + _cards_json(hand) + "}" if hand else "{}" for hand in deal.hands]
        parts.append(keys["hands"] + "[" + ",".join(rows) + "]")
    if deal.nest:
        parts.append(keys["nest"] + _cards_json(deal.nest))
    if deal.dead:
        parts.append(keys["dead"] + _cards_json(deal.dead))
    return "{" + ",".join(parts) + "}"


def _recorded_json(recorded: Recorded) -> str:
    """``message_json`` of one recorded action's ``ReplayAction``."""
    seat, action, think_ms, outcome, reason, extra = recorded
    if outcome is _ACCEPTED and not reason and not extra and not isinstance(action, Message):
        key = (seat, action, think_ms)
        found = _RECORDED_TEXTS.get(key)
        if found is None:
            found = _RECORDED_TEXTS.remember(key, _recorded_reference_json(recorded))
        return found
    return _recorded_reference_json(recorded)  # rejected, auto-played, or with a note


def _recorded_reference_json(recorded: Recorded) -> str:
    hand = replay_pb2.ReplayHand.FromString(replay_hand_actions([recorded]))
    return message_json(hand.actions[0])
