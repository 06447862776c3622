"""Warm sandboxed bot processes, reused across games that may not deal them the same cards.

A bot that keeps what it saw in one game knows the hidden cards of any later game dealt from the
same seed: the twin of a duplicate pair, or another pairing of the same round (every pairing of
a round plays the round's deals). Starting every process afresh for every game defends against
that, at the price of a start-up (an interpreter, the bot's imports, the sandbox) per game and
bot. A **lane** keeps the defence and most of the speed: a set of warm processes, one
:class:`~rookery.arena.launch._launcher.BotLauncher` per bot, each under a launch key of its
own, that plays only the games of its lane. Each table's seats are bound to the lane's keys, so
a lane's processes only ever meet each other; and a lane plays each seed at most once. So no
process, and no two processes that can talk (sandboxes have no channel between them but the
tables they share), ever sees two games of one seed.

- The arena's lanes are the positions of a game within its round (a lineup and a rotation): each
  round has its own seed, so a lane gets a new seed with every game.
- The league's are the two games of a duplicate pair: every pair has a fresh random seed.
- Whatever the caller's lanes, :class:`WarmLanes` checks the rule itself: a lane asked to play a
  seed it has played already is stopped, every process of it, and started afresh (nothing
  carried over) before that game.

A lane's processes are started on its first game and kept; past ``max_processes`` over all lanes
the idle ones used longest ago are stopped (started again when their lane plays next).
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import structlog
from rookery.arena.launch._launcher import BotLauncher

__all__ = ["LaneStartError", "WarmLanes"]

log = structlog.get_logger("rookery.arena")


class LaneStartError(Exception):
    """A bot's warm processes did not open their sessions (the message says why)."""


#: Counts a launch key's open sessions: ``(bot, key) -> sessions``.
SessionCounter = Callable[[str, str], int]
#: Makes one bot's launcher for a lane: ``(bot, lane) -> (launcher, its launch key)``.
LauncherFactory = Callable[[str, int], tuple[BotLauncher, str]]


@dataclass
class _Warm:
    """One bot's warm processes in one lane."""

    launcher: BotLauncher
    key: str
    in_play: int = 0
    last_used: float = field(default_factory=time.monotonic)


@dataclass
class _Lane:
    number: int
    bots: dict[str, _Warm] = field(default_factory=dict)
    seeds: set[int] = field(default_factory=set)
    in_play: int = 0
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    idle: asyncio.Event = field(default_factory=asyncio.Event)
    #: Processes started afresh because a seed came back (the guard; never with the arena's lanes).
    renewals: int = 0


class WarmLanes:
    """The warm processes of every lane: started on demand, reused, renewed, stopped."""

    def __init__(
        self,
        make: LauncherFactory,
        sessions: SessionCounter,
        *,
        max_processes: int = 64,
        connect_timeout_s: float = 60.0,
        on_stop: Callable[[BotLauncher, str], None] | None = None,
        starts_at_once: int = 0,
    ) -> None:
        self._make = make
        #: Launchers starting at once (0: this machine's cores): lanes started ahead all at once
        #: on a loaded machine starved the server, whose Welcomes came after the bots gave up.
        self._starting = asyncio.Semaphore(starts_at_once or os.cpu_count() or 1)
        self._sessions = sessions
        self.max_processes = max(1, max_processes)
        self.connect_timeout_s = connect_timeout_s
        #: Called after a launcher stopped (to revoke its launch key).
        self._on_stop = on_stop
        self._lanes: dict[int, _Lane] = {}
        self._stopping = False
        #: Processes started over the run (a fresh game's launch counts its processes too).
        self.starts = 0

    def _lane(self, number: int) -> _Lane:
        lane = self._lanes.get(number)
        if lane is None:
            lane = self._lanes[number] = _Lane(number)
            lane.idle.set()
        return lane

    @property
    def processes(self) -> int:
        """Warm processes now (as planned: one launcher's processes count whole)."""
        return sum(
            w.launcher.plan.processes for lane in self._lanes.values() for w in lane.bots.values()
        )

    def seeds_played(self, number: int) -> frozenset[int]:
        """The seeds lane ``number``'s processes have been dealt (since they started)."""
        lane = self._lanes.get(number)
        return frozenset(lane.seeds) if lane is not None else frozenset()

    async def enter(self, number: int, seed: int, seats: Mapping[str, int]) -> dict[str, str]:
        """Warm processes of lane ``number`` for a game of ``seed`` seating ``seats`` (bot ->
        its seats there): the launch key each bot's seats are bound to. Call :meth:`leave` once
        the game has ended, whatever happened."""
        lane = self._lane(number)
        async with lane.lock:
            if seed in lane.seeds:
                # Its processes saw this seed's deals: they may not see them again.
                while lane.in_play:
                    lane.idle.clear()
                    await lane.idle.wait()
                await self._renew(lane)
            lane.seeds.add(seed)
            lane.in_play += 1
            lane.idle.clear()
            try:
                keys = {}
                for bot, count in seats.items():
                    warm = lane.bots.get(bot)
                    if warm is None:
                        warm = await self._start(lane, bot, count)
                    warm.in_play += 1
                    warm.last_used = time.monotonic()
                    keys[bot] = warm.key
            except BaseException:
                self._left(lane, [b for b in seats if b in lane.bots])
                raise
        await self._evict()
        return keys

    async def warm(self, number: int, seats: Mapping[str, int]) -> None:
        """Start lane ``number``'s processes for ``seats`` ahead of its first game (those
        missing, within ``max_processes``), and wait until they are connected."""
        lane = self._lane(number)
        async with lane.lock:
            for bot, count in seats.items():
                if bot in lane.bots:
                    continue
                if self.processes >= self.max_processes:
                    return
                await self._start(lane, bot, count)

    async def warm_all(self, lanes: Mapping[int, Mapping[str, int]]) -> None:
        """:meth:`warm` every lane of ``lanes`` at once (lane -> its seats)."""
        await asyncio.gather(*(self.warm(number, seats) for number, seats in lanes.items()))

    def leave(self, number: int, bots: list[str]) -> None:
        """The game of lane ``number`` seating ``bots`` has ended."""
        lane = self._lanes.get(number)
        if lane is not None:
            self._left(lane, bots)

    def _left(self, lane: _Lane, bots: list[str]) -> None:
        for bot in dict.fromkeys(bots):
            warm = lane.bots.get(bot)
            if warm is not None and warm.in_play:
                warm.in_play -= 1
                warm.last_used = time.monotonic()
        lane.in_play = max(0, lane.in_play - 1)
        if not lane.in_play:
            lane.idle.set()

    async def _start(self, lane: _Lane, bot: str, seats: int) -> _Warm:
        launcher, key = self._make(bot, lane.number)
        warm = _Warm(launcher, key)
        lane.bots[bot] = warm
        try:
            async with self._starting:
                await launcher.start()
                self.starts += launcher.plan.processes
                await self._connected(warm, bot, seats)
        except BaseException:
            lane.bots.pop(bot, None)
            await self._stop_one(warm)
            raise
        log.debug("lane warm", lane=lane.number, bot=bot, processes=launcher.plan.processes)
        return warm

    async def _connected(self, warm: _Warm, bot: str, seats: int) -> None:
        launcher = warm.launcher
        deadline = time.monotonic() + self.connect_timeout_s
        while self._sessions(bot, warm.key) < seats:
            if launcher.not_found:
                why = "could not start its program"
            elif launcher.crashes > launcher.plan.processes:  # each restarted once, in vain
                why = "kept exiting before it connected"
            elif time.monotonic() > deadline:
                why = f"did not connect within {self.connect_timeout_s:g} s"
            else:
                await asyncio.sleep(0.02)
                continue
            raise LaneStartError(
                f"bot {bot!r} did not open {seats} session(s): it {why} (command: "
                f"{launcher.bot.command!r}); the end of {launcher.log_path}:\n"
                f"{launcher.log_tail()}"
            )
        launcher.in_play = True  # from now on an exit is a crash of a playing bot

    async def _renew(self, lane: _Lane) -> None:
        warm = list(lane.bots.values())
        lane.bots.clear()
        lane.seeds.clear()
        lane.renewals += 1
        await asyncio.gather(*(self._stop_one(w) for w in warm))
        log.info("lane renewed: a seed came back", lane=lane.number)

    async def _stop_one(self, warm: _Warm) -> None:
        await warm.launcher.stop(grace_s=1.0)
        if self._on_stop is not None:
            self._on_stop(warm.launcher, warm.key)

    async def _evict(self) -> None:
        """Stop the idle warm processes used longest ago while there are more than allowed."""
        over = self.processes - self.max_processes
        if over <= 0:
            return
        idle = sorted(
            (
                (warm.last_used, lane, bot)
                for lane in self._lanes.values()
                for bot, warm in lane.bots.items()
                if not warm.in_play
            ),
            key=lambda entry: entry[0],
        )
        stopping = []
        for _, lane, bot in idle:
            if over <= 0:
                break
            warm = lane.bots.pop(bot)
            over -= warm.launcher.plan.processes
            stopping.append(self._stop_one(warm))
        await asyncio.gather(*stopping)

    async def retire(self, number: int) -> None:
        """Lane ``number`` plays no more games: stop its processes once its games in play have
        ended (it keeps the seeds it has dealt, should it be asked to play again)."""
        lane = self._lanes.get(number)
        if lane is None:
            return
        while lane.in_play:
            await lane.idle.wait()
        async with lane.lock:
            if lane.in_play:  # a game entered meanwhile: it retires the lane after itself
                return
            warm = list(lane.bots.values())
            lane.bots.clear()
        await asyncio.gather(*(self._stop_one(w) for w in warm))

    async def drop(self, bot: str) -> None:
        """Stop ``bot``'s warm processes in every lane (a version retired)."""
        stopping = []
        for lane in self._lanes.values():
            warm = lane.bots.pop(bot, None)
            if warm is not None:
                stopping.append(self._stop_one(warm))
        await asyncio.gather(*stopping)

    async def stop(self) -> None:
        """Stop every warm process."""
        self._stopping = True
        warm = [w for lane in self._lanes.values() for w in lane.bots.values()]
        for lane in self._lanes.values():
            lane.bots.clear()
        await asyncio.gather(*(self._stop_one(w) for w in warm), return_exceptions=True)
