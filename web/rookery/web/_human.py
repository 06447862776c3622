"""Human seats: a person at a new table with bots, over the same protocol and rules as a bot.

Each human seat is a bot session of its own: an SDK session (``rookery.client``) from the web
server to the game server whose bot, :class:`SeatBot`, asks the page for every move. It connects
under the person's name with, as its token, a seat key the server issued for the seat's table (in
token mode, once the person's own token has been checked): the server seats that session at that
table alone and ends it with the game. It seats it like any bot, sends it only what that seat may
see, applies the table's clock to it (the late policy plays or forfeits for a person who walks
away) and records the game in an ordinary replay. The page talks to this web session, never to
the table: a reload finds the session as it was, and the SDK resumes a dropped stream.

The bots at the table are any connected bot (by name) or a reference bot launched for the table
as a process of its own (``rookery bot run``, open mode only: in token mode a launched bot would
need a token of its own).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import structlog
from rookery.client import ClientError, arun_bot
from rookery.engine import PRESETS, Ruleset, RulesetError, parse_action
from rookery.server import RookeryServer, TableSpec, TimeControl
from rookery.wire.convert import termination_name

from ._launched import REFERENCE_BOTS, WarmBots, launch, stop_processes
from ._seat import SeatView
from ._seat_bot import SeatBot

__all__ = ["REFERENCE_BOTS", "HumanSeat", "HumanSeatError", "HumanSeats", "SeatRequest"]

log = structlog.get_logger("rookery.web.human")

JSON = dict[str, Any]

#: The clock a person gets unless the page asks for another: a minute an action, a two-minute
#: bank, the server playing for a late seat, and a forfeit after five such strikes.
DEFAULT_ACTION_S = 60.0
#: Bounds for a server anyone may reach: human seats playing at once, reference bot processes
#: running at once, and finished seats kept (for their page's result after a reload).
MAX_HUMAN_SEATS = 32
MAX_LAUNCHED_BOTS = 24
MAX_COMPARISONS = 3
KEPT_FINISHED_SEATS = 256
#: How long the seat's session may take to be welcomed by the game server.
_WELCOME_TIMEOUT_S = 15.0


class HumanSeatError(Exception):
    """A human seat that cannot be opened: the message says why (shown on the page)."""


@dataclass(frozen=True)
class SeatRequest:
    """What the page asks for: the rules, the person's seat, who sits at the other seats."""

    preset: str
    seat: int
    bots: tuple[str, ...]  # one per seat; the person's own entry is ignored
    name: str = "human"
    token: str = ""
    target: int | None = None
    action_s: float = DEFAULT_ACTION_S
    seed: int | None = None

    @classmethod
    def from_json(cls, data: object) -> SeatRequest:
        """The request in a page's JSON body; ``HumanSeatError`` for anything malformed."""
        if not isinstance(data, dict):
            raise HumanSeatError("expected a JSON object")
        try:
            bots = data.get("bots", [])
            if not isinstance(bots, list) or not all(isinstance(b, str) for b in bots):
                raise HumanSeatError("bots: a list of bot names, one per seat")
            target = data.get("target")
            seed = data.get("seed")
            return cls(
                preset=str(data.get("preset", "standard")),
                seat=int(data.get("seat", 0)),
                bots=tuple(bots),
                name=str(data.get("name") or "human"),
                token=str(data.get("token") or ""),
                target=int(target) if target not in (None, "") else None,
                action_s=float(data.get("action_s") or DEFAULT_ACTION_S),
                seed=int(seed) if seed not in (None, "") else None,
            )
        except (TypeError, ValueError) as error:
            raise HumanSeatError(f"malformed request: {error}") from None

    def ruleset(self) -> Ruleset:
        """The table's rules: the preset, with the target asked for ("standard, target 150")."""
        ruleset = PRESETS.get(self.preset)
        if ruleset is None:
            raise HumanSeatError(f"no preset {self.preset!r}; presets: {', '.join(PRESETS)}")
        if self.target is not None and self.target != ruleset.target:
            try:
                ruleset = ruleset.replace(
                    target=self.target, name=f"{ruleset.name}, target {self.target}"
                )
            except RulesetError as error:
                raise HumanSeatError(str(error)) from None
        return ruleset


@dataclass
class HumanSeat:
    """One person's seat: its web id and secret, its session to the game server, its view."""

    seat_id: str
    secret: str
    name: str
    view: SeatView = field(default_factory=SeatView)
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    bot: SeatBot | None = None
    """The seat's SDK bot (its session's one table)."""
    _task: asyncio.Task[None] | None = None
    _processes: list[asyncio.subprocess.Process] = field(default_factory=list)
    launched: list[str] = field(default_factory=list)
    """The names of the reference bots launched for this seat's tables."""
    request: SeatRequest | None = None
    comparisons: list[JSON] = field(default_factory=list)
    seat_key: str = ""
    """The server's seat key binding the seat's session to its table alone (its token)."""

    def notify(self) -> None:
        """Wake every page waiting for a change (the event is replaced for the next one)."""
        self.changed.set()
        self.changed = asyncio.Event()

    def act(self, request_id: int, text: str) -> None:
        """The person's action for the open request (checked against what is legal now)."""
        request = self.view.request
        if self.bot is None or request is None or request["request_id"] != request_id:
            raise HumanSeatError("no such request is open: the page is behind, reload it")
        try:
            self.bot.answer(request_id, parse_action(text))
        except ValueError as error:
            raise HumanSeatError(str(error)) from None


class HumanSeats:
    """Every human seat of a game server: opening one, finding one, closing them all."""

    def __init__(self, server: RookeryServer, warm_bots: Mapping[str, int] | None = None) -> None:
        self.server = server
        self.seats: dict[str, HumanSeat] = {}
        self.warm = WarmBots(
            lambda: server.target, warm_bots or {}, lambda name: bool(server.sessions.get(name))
        )
        """Reference bots started ahead, by kind (open mode only)."""

    def warm_up(self) -> None:
        """Start the missing warm bots in the background."""
        if not self.is_token_mode:
            self.warm.fill()

    @property
    def is_token_mode(self) -> bool:
        """Whether the server needs a token of every seat (the person's included)."""
        return bool(self.server.config.is_token_mode)

    def choices(self) -> JSON:
        """What the setup page offers: presets, reference bots (open mode), connected bots."""
        people = self._sessions_of_people() | {seat.name for seat in self.seats.values()}
        connected = sorted(
            name for name, sessions in self.server.sessions.items() if sessions and name
            not in people
        )  # fmt: skip
        return {
            "presets": {name: ruleset.players for name, ruleset in PRESETS.items()},
            "reference_bots": [] if self.is_token_mode else sorted(REFERENCE_BOTS),
            "connected_bots": connected,
            "token_mode": self.is_token_mode,
            "action_s": DEFAULT_ACTION_S,
        }

    def state(self, seat: HumanSeat, turn: JSON | None = None) -> JSON:
        """What the seat's page gets: the seat's view, and who is to act."""
        return seat.view.json(turn if turn is not None else self.turn(seat))

    def turn(self, seat: HumanSeat) -> JSON | None:
        """Who is to act and the time they have left (``{seat, ms_left}``): the table's public
        clock, as every spectator of the table sees it, read only once the seat has received
        every event so far (so the page never shows a turn ahead of its cards); None meanwhile."""
        view = seat.view
        if view.status != "playing":
            return None
        if view.request is not None:
            return {"seat": view.seat, "ms_left": None}  # the page runs its own clock
        table = self.server.tables.get(view.table_id)
        if table is None or table.is_finished or table.game_seq != view.last_seq:
            return None
        clock = table.clock_view()
        to_act = clock.get("to_act", -1)
        if not isinstance(to_act, int) or to_act < 0:
            return None
        return {"seat": to_act, "ms_left": clock.get("ms_left")}

    def get(self, seat_id: str, secret: str) -> HumanSeat:
        """The seat, for the holder of its secret only."""
        seat = self.seats.get(seat_id)
        if seat is None or not secrets.compare_digest(seat.secret, secret):
            raise HumanSeatError("no such seat (or not yours)")
        return seat

    async def open(self, request: SeatRequest) -> HumanSeat:
        """Connect the person's session, launch the reference bots, create the table."""
        ruleset = request.ruleset()
        if len(request.bots) != ruleset.players:
            raise HumanSeatError(
                f"{ruleset.name} has {ruleset.players} seats: name a bot for each (got "
                f"{len(request.bots)})"
            )
        if not 0 <= request.seat < ruleset.players:
            raise HumanSeatError(f"seat must be 0 to {ruleset.players - 1}, got {request.seat}")
        if not 1 <= request.action_s <= 3600:
            raise HumanSeatError(f"action_s must be 1 to 3600 seconds, got {request.action_s:g}")
        self._forget_finished()
        playing = [s for s in self.seats.values() if s.view.status not in ("finished", "failed")]
        if len(playing) >= MAX_HUMAN_SEATS:
            raise HumanSeatError("too many human seats at once: try again later")
        launching = sum(1 for i, bot in enumerate(request.bots) if i != request.seat and bot
                        in REFERENCE_BOTS)  # fmt: skip
        running = sum(1 for s in self.seats.values() for p in s._processes if p.returncode is None)
        if launching and running + launching > MAX_LAUNCHED_BOTS:
            raise HumanSeatError(
                f"{running} reference bots are playing already (at most {MAX_LAUNCHED_BOTS}): "
                "try again later, or choose connected bots"
            )
        if request.seed is not None and self.is_token_mode:
            raise HumanSeatError("in token mode the seed is the server's secret: leave it empty")
        name = request.name.strip()
        if not self.is_token_mode:
            name = f"{name or 'human'}-{secrets.token_hex(2)}"  # one session per seat, by name
        if self.is_token_mode and not self.server.bots.check_token(name, request.token):
            # The game server's own refusal of such a Hello, word for word.
            raise HumanSeatError(f"UNAUTHENTICATED: the token is not valid for bot {name!r}")
        seat = HumanSeat(secrets.token_hex(8), secrets.token_urlsafe(24), name)
        table_id = f"play-{seat.seat_id}"
        # The session presents a key that the server seats at this seat's table alone, once,
        # and ends with its game: no other table (a waiting one, or one made through the
        # ArenaService naming the person's public session name) can ever take it.
        seat.seat_key = self.server.issue_seat_key(name, table_id)
        seat.bot = SeatBot(seat.view, seat.notify, self._clock_of, self._ending_of)
        seat._task = asyncio.get_running_loop().create_task(self._session(seat))
        try:
            await self._welcomed(seat, _WELCOME_TIMEOUT_S)
        except HumanSeatError:
            await self._close(seat)
            raise
        seat.request = request
        self.seats[seat.seat_id] = seat
        try:
            seat_bots = await self._seat_bots(seat, request.bots, request.seat, "")
            action_ms = int(request.action_s * 1000)
            await self.server.create_table(
                TableSpec(
                    ruleset=ruleset,
                    seat_bots=seat_bots,
                    seed=request.seed,
                    time_control=TimeControl(
                        action_ms=action_ms, bank_ms=2 * action_ms, strike_limit=5
                    ),
                    table_id=table_id,
                    seat_keys=tuple(
                        seat.seat_key if index == request.seat else ""
                        for index in range(ruleset.players)
                    ),
                )
            )
        except Exception as error:
            await self._close(seat)
            del self.seats[seat.seat_id]
            raise HumanSeatError(str(error)) from None
        log.info("human seat opened", seat_id=seat.seat_id, name=name, ruleset=ruleset.name)
        self.warm_up()  # the warm bots taken are replaced behind this table
        return seat

    def _forget_finished(self) -> None:
        finished = [k for k, s in self.seats.items() if s.view.status in ("finished", "failed")]
        for key in finished[: max(0, len(finished) - KEPT_FINISHED_SEATS)]:
            del self.seats[key]

    async def _seat_bots(
        self, seat: HumanSeat, bots: tuple[str, ...], person: int | None, tag: str
    ) -> tuple[str, ...]:
        """The name at each seat: the person's session at ``person``, a launched reference bot
        (open mode) or a connected bot by name elsewhere."""
        names: list[str] = []
        connected = set(self.server.sessions)
        taken = self._sessions_of_people()
        for index, bot in enumerate(bots):
            if index == person:
                names.append(seat.name)
            elif bot in taken:
                raise HumanSeatError(
                    f"seat {index}: {bot!r} is a person's seat (or the bot launched for one): "
                    "choose a connected bot or a reference bot"
                )
            elif bot in REFERENCE_BOTS and not self.is_token_mode:
                warm = self.warm.take(bot)
                if warm is not None:
                    launched, process = warm
                else:
                    launched = f"{bot}-{seat.seat_id[:6]}-{tag}{index}"
                    process = await launch(self.server.target, bot, launched)
                seat.launched.append(launched)
                seat._processes.append(process)
                names.append(launched)
            elif bot in connected:
                names.append(bot)
            else:
                offered = "a connected bot" + ("" if self.is_token_mode else " or a reference bot")
                raise HumanSeatError(f"seat {index}: {bot!r} is not {offered}")
        return tuple(names)

    def _sessions_of_people(self) -> set[str]:
        """The sessions no other table may name: every open human seat's own, and the bots
        launched for a human seat (each plays that one table)."""
        names = {s.name for s in self.seats.values() if s._task is not None and not s._task.done()}
        for other in self.seats.values():
            names.update(other.launched)
        names.update(self.warm.names())
        return names

    async def compare(self, seat: HumanSeat, bot: str) -> JSON:
        """The same deals again with ``bot`` in the person's seat, after the game (whose seed is
        public then): a new table of the same rules, seed and other seats, for the duplicate
        comparison "you vs pimc on the same deals". Every hand's deal derives from the seed and
        the hand number alone, so hand N is dealt alike at both tables."""
        request = seat.request
        if request is None or seat.view.status != "finished":
            raise HumanSeatError("a comparison comes after the game")
        if len(seat.comparisons) >= MAX_COMPARISONS:
            raise HumanSeatError(f"at most {MAX_COMPARISONS} comparisons a game")
        replay = self.server.replay(seat.view.table_id)
        number = len(seat.comparisons)
        bots = list(request.bots)
        bots[request.seat] = bot
        names = await self._seat_bots(seat, tuple(bots), None, f"c{number}-")
        table_id = f"compare-{seat.seat_id}-{number}"
        await self.server.create_table(
            TableSpec(
                ruleset=request.ruleset(),
                seat_bots=names,
                seed=replay.header.seed,
                time_control=TimeControl(action_ms=10000, strike_limit=5),
                table_id=table_id,
            )
        )
        comparison = {"table_id": table_id, "bot": bot, "url": f"/tables/{table_id}"}
        seat.comparisons.append(comparison)
        log.info("comparison started", seat_id=seat.seat_id, table=table_id, bot=bot)
        return comparison

    async def _session(self, seat: HumanSeat) -> None:
        """The seat's SDK session: one game at one table, then its launched bots are stopped."""
        assert seat.bot is not None
        bot = seat.bot
        try:
            await arun_bot(
                lambda: bot,
                self.server.target,
                token=seat.seat_key,
                name=seat.name,
                max_tables=1,
                sessions=1,
                games=1,
                retry_rejected=False,  # the page's answers are checked before they are sent
                connect_timeout_s=_WELCOME_TIMEOUT_S,
                defer_events=False,  # the person watches the other seats play, move by move
            )
            if seat.view.status != "finished":
                seat.view.failed("the game server closed the seat's session")
            await stop_processes(seat._processes, wait_s=10.0)  # they stop after their one game
        except ClientError as error:
            seat.view.failed(str(error))
        except Exception as error:  # a bug here must not leave the page waiting forever
            log.exception("human seat session failed", seat_id=seat.seat_id)
            seat.view.failed(f"the seat's session failed: {error}")
        finally:
            seat.notify()

    async def _welcomed(self, seat: HumanSeat, timeout_s: float) -> None:
        """Wait until the game server holds the seat's session (its key's one session);
        ``HumanSeatError`` with the server's reason if the session ended first."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout_s
        while not any(
            s.launch_key == seat.seat_key for s in self.server.sessions.get(seat.name, ())
        ):
            task = seat._task
            if task is None or task.done():
                raise HumanSeatError(seat.view.error or "the seat's session ended before its game")
            if loop.time() > deadline:
                raise HumanSeatError("the game server did not answer the seat's Hello")
            await asyncio.sleep(0.01)

    def _clock_of(self, table_id: str) -> JSON:
        """The time control of a table the server holds, as the seat's page shows it."""
        table = self.server.tables.get(table_id)
        clock = table.time_control if table is not None else TimeControl()
        return {
            "action_ms": clock.action_ms,
            "bank_ms": clock.bank_ms,
            "late_policy": clock.late_policy.name,
            "strike_limit": clock.strike_limit,
        }

    def _ending_of(self, table_id: str) -> tuple[str, str] | None:
        """Why a finished table's game ended (``FORFEIT_STRIKES``, ...) and the server's detail."""
        table = self.server.tables.get(table_id)
        outcome = table.outcome if table is not None else None
        if outcome is None:
            return None
        return termination_name(outcome.termination), outcome.detail

    async def _close(self, seat: HumanSeat) -> None:
        if seat.seat_key:
            self.server.revoke_launch_key(seat.seat_key)
        if seat._task is not None:
            seat._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await seat._task
        await stop_processes(seat._processes, wait_s=0.0)

    async def close(self) -> None:
        """End every seat's session and every launched bot (the warm ones too)."""
        await self.warm.close()
        for seat in list(self.seats.values()):
            await self._close(seat)
