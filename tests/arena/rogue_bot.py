"""A raw-protocol bot that misbehaves on purpose, for the arena's robustness tests.

Usage: ``python rogue_bot.py MODE`` with the arena's environment (``ROOKERY_SERVER``,
``ROOKERY_BOT_NAME``, ``ROOKERY_SESSIONS``, ``ROOKERY_MAX_TABLES``). Modes:

- ``illegal``: answers every request with a bid of 1 (never legal);
- ``hang``: never answers;
- ``crash``: plays the first legal action, then exits with code 3 after ``CRASH_AFTER`` actions;
- ``first``: plays the first legal action (well-behaved, no SDK).
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import AsyncIterator

import grpc
from rookery.v1 import actions_pb2, bot_service_pb2, bot_service_pb2_grpc
from rookery.wire.convert import action_to_proto, legal_actions_from_proto

ACTIONS = 0


async def session(mode: str, target: str, name: str, max_tables: int) -> None:
    global ACTIONS
    async with grpc.aio.insecure_channel(target) as channel:
        stub = bot_service_pb2_grpc.BotServiceStub(channel)
        outgoing: asyncio.Queue[bot_service_pb2.ConnectRequest] = asyncio.Queue()
        hello = bot_service_pb2.Hello(
            name=name, version=mode, token=os.environ.get("ROOKERY_TOKEN", ""),
            max_tables=max_tables, client="rogue",
        )  # fmt: skip
        await outgoing.put(bot_service_pb2.ConnectRequest(hello=hello))

        async def requests() -> AsyncIterator[bot_service_pb2.ConnectRequest]:
            while True:
                yield await outgoing.get()

        async for response in stub.Connect(requests()):
            if response.WhichOneof("message") != "action_request":
                continue
            request = response.action_request
            if mode == "hang":
                continue
            if mode == "illegal":
                action = actions_pb2.Action(bid=actions_pb2.Bid(amount=1))
            else:
                legal = legal_actions_from_proto(request.legal_actions)
                action = action_to_proto(legal[0])
            reply = bot_service_pb2.ActionReply(
                table_id=request.table_id, request_id=request.request_id, action=action
            )
            await outgoing.put(bot_service_pb2.ConnectRequest(action_reply=reply))
            ACTIONS += 1
            if mode == "crash" and int(os.environ.get("CRASH_AFTER", "40")) <= ACTIONS:
                await asyncio.sleep(0.05)
                os._exit(3)


async def main(mode: str) -> None:
    target = os.environ["ROOKERY_SERVER"]
    print(f"server at {target}", file=sys.stderr, flush=True)
    name = os.environ["ROOKERY_BOT_NAME"]
    sessions = int(os.environ.get("ROOKERY_SESSIONS", "1"))
    max_tables = int(os.environ.get("ROOKERY_MAX_TABLES", "1"))
    await asyncio.gather(*(session(mode, target, name, max_tables) for _ in range(sessions)))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
