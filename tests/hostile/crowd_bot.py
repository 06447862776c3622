"""A sandboxed bot that opens as many sessions as the server lets it, then plays slowly.

At start it opens ``CROWD_OWN`` extra sessions under its own name with its ``ROOKERY_TOKEN``
(its launch key) and ``CROWD_OTHERS`` under names of its own making without one, each on its own
connection to the address it was given, keeps every admitted one open, and writes one line to its
log: ``CROWD own A/N others B/M first refusal: ...``, all before its own sessions connect (which
its extra sessions may have crowded out). It plays a little slowly, so its game lasts while the
others start.
"""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time

from rookery.client import Bot
from rookery.engine import Action, Observation
from rookery.server.testing import RawBot

_held: list[RawBot] = []
_tried = threading.Event()


async def _crowd() -> None:
    target = os.environ["ROOKERY_SERVER"]
    name = os.environ["ROOKERY_BOT_NAME"]
    token = os.environ.get("ROOKERY_TOKEN", "")
    own, others = int(os.environ["CROWD_OWN"]), int(os.environ["CROWD_OTHERS"])
    admitted = {"own": 0, "others": 0}
    refusal = ""
    wanted = [("own", name, token)] * own
    wanted += [("others", f"{name}-crowd{i}", "") for i in range(others)]
    for kind, bot_name, bot_token in wanted:
        bot = RawBot(target, bot_name, token=bot_token, max_tables=64)
        try:
            await bot.connect()
        except Exception as error:  # a refusal ends the stream with its status
            details = getattr(error, "details", None)
            refusal = refusal or str(details() if callable(details) else error)
            await bot.channel.close()
            continue
        admitted[kind] += 1
        _held.append(bot)
    sys.stderr.write(
        f"CROWD own {admitted['own']}/{own} others {admitted['others']}/{others} "
        f"first refusal: {refusal}\n"
    )
    sys.stderr.flush()
    _tried.set()
    await asyncio.sleep(3600)  # holds what it got


# Every attempt is made, and told, before the bot's own sessions connect.
threading.Thread(target=lambda: asyncio.run(_crowd()), daemon=True).start()
_tried.wait(120)


class Crowd(Bot):
    """The first legal action, after a pause."""

    def act(self, observation: Observation) -> Action:
        time.sleep(0.15)
        return next(iter(observation.legal_actions()))
