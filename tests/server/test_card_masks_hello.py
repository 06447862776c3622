"""Hello.card_masks: a session that asks gets each request's card sets as bit masks too; others
get the repeated Card fields only (they pay nothing for a field they do not read)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from rookery.server import RookeryServer
from rookery.server.testing import RawBot, bot_names, seat_raw_bots
from rookery.v1 import bot_service_pb2
from rookery.wire import convert

pb = bot_service_pb2


async def test_only_a_session_that_asks_gets_card_masks_and_they_match_the_card_fields(
    server: RookeryServer, bots: Callable[..., RawBot]
) -> None:
    names = bot_names(4)
    hellos = [
        pb.Hello(name=name, version="1.0", batching=True, card_masks=index == 0)
        for index, name in enumerate(names)
    ]
    _, players = await seat_raw_bots(server, bots, names, seed=8, hellos=hellos)
    await asyncio.wait_for(asyncio.gather(*(bot.play() for bot in players)), 60)
    asking, *others = (bot.requests() for bot in players)
    assert asking and all(others)
    for request in asking:
        masks, observed, legal = request.card_masks, request.observation, request.legal_actions
        assert request.HasField("card_masks")
        assert masks.hand == convert.mask_from_proto(observed.hand)
        assert masks.playable_cards == convert.mask_from_proto(legal.playable_cards)
        assert masks.bury_candidates == convert.mask_from_proto(legal.bury_candidates)
        assert masks.callable_cards == convert.mask_from_proto(legal.callable_cards)
    assert any(request.card_masks.playable_cards for request in asking)
    assert not any(request.HasField("card_masks") for seat in others for request in seat)
