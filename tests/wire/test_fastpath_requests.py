"""The action requests and events of ``rookery.wire.fastpath`` are the messages ``convert`` builds,
byte for byte, for every seat of every preset."""

from __future__ import annotations

import random

import pytest
from rookery.engine import PRESETS, Game
from rookery.v1 import bot_service_pb2
from rookery.wire import convert
from rookery.wire.fastpath import RequestEncoder, event_bytes, table_event_prefix

pb = bot_service_pb2


def expected_request(game: Game, seat: int, request_id: int, masks: bool) -> bytes:
    message = pb.ConnectResponse()
    asked = message.action_request
    asked.table_id = "t-enc"
    asked.request_id = request_id
    asked.seat = seat
    asked.observation.CopyFrom(convert.observation_to_proto(game.observation_for(seat)))
    asked.legal_actions.CopyFrom(convert.legal_actions_to_proto(game.legal_actions()))
    asked.deadline_ms = 2000
    asked.bank_ms = 500
    asked.last_seq = 17
    if masks:  # only for a session that asked (Hello.card_masks)
        asked.card_masks.CopyFrom(
            convert.card_masks_to_proto(game.observation_for(seat), game.legal_actions())
        )
    return message.SerializeToString()


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_action_requests_encode_as_convert_builds_them_for_every_seat(preset: str) -> None:
    ruleset = PRESETS[preset]
    game, encoder, rng = Game(ruleset, 11), RequestEncoder(ruleset), random.Random(11)
    for step in range(400):
        if game.is_over:
            break
        for seat in range(ruleset.players):  # every seat's view, the encoder's cache shared
            masks = (step + seat) % 2 == 1  # with and without the card masks
            got = encoder.action_request(
                table_id="t-enc",
                request_id=step + 1,
                seat=seat,
                observation=game.observation_for(seat),
                legal=game.legal_actions(),
                deadline_ms=2000,
                bank_ms=500,
                last_seq=17,
                masks=masks,
            )
            assert got == expected_request(game, seat, step + 1, masks)
        legal = game.legal_actions()
        game.apply(legal[rng.randrange(min(len(legal), 20))])


def test_an_event_encodes_as_a_table_event_message() -> None:
    game = Game(PRESETS["standard"], 3)
    event = convert.event_to_proto(game.events_since(0)[0], game.ruleset, None)
    expected = pb.ConnectResponse(event=pb.TableEvent(table_id="t-enc", event=event))
    assert event_bytes(table_event_prefix("t-enc"), event) == expected.SerializeToString()
