"""The kit conformance vectors in the tree are exactly what the engine generates today
(``kit_vectors.py``), and they say what the engine says."""

from __future__ import annotations

import json

from google.protobuf.json_format import ParseDict
from kit_vectors import VECTORS, generate
from rookery.engine import CARD_POINTS, parse_action, parse_card
from rookery.v1 import bot_service_pb2, cards_pb2
from rookery.wire.convert import card_from_proto, legal_actions_from_proto


def test_regenerating_the_vectors_gives_the_same_bytes() -> None:
    for name, text in generate().items():
        assert (VECTORS / name).read_text(encoding="utf-8") == text, (
            f"{name} is out of date: run python tests/kits/kit_vectors.py"
        )


def test_each_card_vector_reads_back_as_its_card_and_points() -> None:
    data = json.loads((VECTORS / "cards.json").read_text(encoding="utf-8"))

    cards = [card_from_proto(ParseDict(entry["card"], cards_pb2.Card())) for entry in data["cards"]]

    assert cards == list(range(len(CARD_POINTS)))
    assert [parse_card(entry["text"]) for entry in data["cards"]] == cards
    assert sum(entry["points"] for entry in data["cards"]) == sum(CARD_POINTS)
    assert len(data["not_cards"]) > 0


def test_each_request_vector_lists_the_legal_actions_of_its_request() -> None:
    data = json.loads((VECTORS / "requests.json").read_text(encoding="utf-8"))
    phases = set()

    for vector in data["requests"]:
        request = ParseDict(vector["request"], bot_service_pb2.ActionRequest())
        legal = legal_actions_from_proto(request.legal_actions)
        assert len(legal) == vector["legal_count"], vector["name"]
        if vector["legal"] is not None:
            assert [parse_action(text) for text in vector["legal"]] == list(legal)
        phases.add(request.legal_actions.phase)

    assert len(phases) == 5  # bidding, trump, bury, call, play
