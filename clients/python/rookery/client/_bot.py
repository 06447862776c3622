"""The ``Bot`` base class: one method to write, optional per-phase and lifecycle hooks."""

from __future__ import annotations

import math
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import ClassVar, TypeAlias

from rookery.engine import Action, GameResult, LegalActions, Observation, Phase, Ruleset
from rookery.v1.events_pb2 import Event
from rookery.v1.notes_pb2 import BotNote
from rookery.wire.notes import note_problem

__all__ = ["ActionLike", "Bot", "Seat", "Table"]

ActionLike: TypeAlias = Action | str
"""What a hook may return: an engine action, or its text form (``"play R14"``, ``"bid 80"``)."""

HookResult: TypeAlias = ActionLike | Awaitable[ActionLike]
"""A hook's return value: an action, or (``async def`` hooks) an awaitable of one."""


@dataclass(frozen=True, slots=True)
class Seat:
    """Who sits at one seat of a table."""

    seat: int
    side: int
    bot_name: str
    bot_version: str


@dataclass(frozen=True, slots=True)
class Table:
    """The table a bot instance plays at: fixed for the whole game."""

    table_id: str
    """The server's id of the table."""
    seat: int
    """This bot's seat."""
    ruleset: Ruleset
    """The table's rules."""
    seats: tuple[Seat, ...]
    """Who sits where, indexed by seat."""
    action_ms: int
    """Milliseconds allowed per action."""
    bank_ms: int
    """The time bank per seat, in milliseconds."""
    game_number: int
    """The game's number in its series (a tournament pairing), from 0."""
    bot_seed: int = 0
    """A seed for this seat's own randomness in this game (0 from a server that sends none).

    Seed your generator with it (``random.Random(table.bot_seed)``) and a rerun of the same
    tournament, a resumed one or one on another backend plays the same game. It is derived from
    the game's seed with a secret key, so it tells nothing of the deal."""

    @property
    def side(self) -> int:
        """This bot's side."""
        return self.seats[self.seat].side if self.seat < len(self.seats) else self.seat

    @property
    def partners(self) -> tuple[int, ...]:
        """The other seats of this bot's side (empty in per-player rulesets)."""
        side = self.side
        return tuple(s.seat for s in self.seats if s.side == side and s.seat != self.seat)


PHASE_HOOKS: dict[Phase, str] = {
    Phase.BIDDING: "bid",
    Phase.NAME_TRUMP: "name_trump",
    Phase.BURY: "bury",
    Phase.CALL: "call",
    Phase.PLAY: "play",
}
"""The hook the runner calls for each phase (when the bot overrides it; else ``act``)."""


class Bot:
    """Subclass and implement :meth:`act`; the runner creates one instance per table.

    ``act`` receives the seat's :class:`rookery.engine.Observation` (everything the seat may know)
    and returns an action: an engine action (``PlayCard(card)``, ``Bid(80)``, …) or its text form
    (``"play R14"``). ``observation.legal_actions()`` lists every legal action, and is itself a
    sequence of actions, so ``return observation.legal_actions()[0]`` is a complete bot.

    Any hook may be ``async def``. The per-phase hooks (``bid``, ``name_trump``, ``bury``,
    ``call``, ``play``) default to ``act``; override just the ones you care about. A hook that
    raises, returns something that is not an action or returns an illegal action never ends the
    session: the runner logs it and sends :meth:`fallback` instead.

    While a hook runs, ``self.table`` describes the table and ``self.time_left()`` gives the
    seconds left until the deadline of the current request, and ``self.note(...)`` attaches a
    note to the reply (see :meth:`note`).
    """

    table: Table
    """The table this instance plays at (set before :meth:`on_table_joined`)."""
    deadline: float = 0.0
    """The ``time.monotonic()`` deadline of the current request (0 when none is open)."""
    pending_note: BotNote | None = None
    """The note :meth:`note` set for the current request (the runner sends it and clears it)."""
    uses_bank: ClassVar[bool] = False
    """Whether a hook may think into the seat's time bank (``Table.bank_ms``): the deadline of
    an ``async def`` hook is then the action time plus the bank left, which the runner keeps as
    the server does (an answer past the action time spends the overrun). Off, a hook has the
    action time alone and the bank is never touched."""

    def note(self, text: str = "", /, **values: float) -> None:
        """Attach a note to the reply of the current request: free text and named numbers.

        ``self.note("finesse the 14", samples=400, best=37.5)`` from a hook. The note is stored
        in the replay with the move; nobody but this seat can read it until the hand is scored,
        then everyone can (as the hand's cards). At most 512 bytes of UTF-8 of text and 16
        values, each name 1 to 32 characters of ``[A-Za-z0-9_.-]`` and each value a finite
        number: anything else raises ``ValueError`` here, in the hook, where it can be fixed
        (a hook that raises gets its fallback action, marked as such). A second call replaces
        the first.
        """
        note = BotNote(text=text)
        for name, value in values.items():
            number = float(value)
            if not math.isfinite(number):
                raise ValueError(f"note value {name!r} is {value!r}; values must be finite")
            note.values[name] = number
        problem = note_problem(note)
        if problem is not None:
            raise ValueError(problem)
        self.pending_note = note

    def act(self, observation: Observation) -> HookResult:
        """Choose an action for ``observation``. The default plays the first legal action."""
        return observation.legal_actions()[0]

    def bid(self, observation: Observation) -> HookResult:
        """Bid or pass (phase BIDDING). Defaults to :meth:`act`."""
        return self.act(observation)

    def name_trump(self, observation: Observation) -> HookResult:
        """Name trump (phase NAME_TRUMP, the bidder only). Defaults to :meth:`act`."""
        return self.act(observation)

    def bury(self, observation: Observation) -> HookResult:
        """Bury ``nest_size`` cards (phase BURY; ``observation.hand`` includes the nest)."""
        return self.act(observation)

    def call(self, observation: Observation) -> HookResult:
        """Call a card (phase CALL, called-partner rulesets). Defaults to :meth:`act`."""
        return self.act(observation)

    def play(self, observation: Observation) -> HookResult:
        """Play a card to the current trick (phase PLAY). Defaults to :meth:`act`."""
        return self.act(observation)

    def hook_for(self, phase: Phase) -> Callable[[Observation], HookResult]:
        """The hook the runner calls in ``phase``: the phase's own hook if overridden, else act."""
        name = PHASE_HOOKS.get(phase)
        if name is not None and getattr(type(self), name) is not getattr(Bot, name):
            hook: Callable[[Observation], HookResult] = getattr(self, name)
            return hook
        return self.act

    def choose(self, observation: Observation) -> HookResult:
        """Answer ``observation`` exactly as the runner would (for tests and local games).

        An ``async def`` hook returns an awaitable here, as it does to the runner.
        """
        return self.hook_for(observation.phase)(observation)

    def fallback(self, observation: Observation, legal: LegalActions) -> Action:
        """The action sent when a hook fails or answers illegally: the first legal action."""
        return legal[0]

    def on_table_joined(self, table: Table) -> Awaitable[None] | None:
        """Called once, when this instance is seated, before any event or request."""

    def on_event(self, event: Event) -> Awaitable[None] | None:
        """Called for every event at the table, in order, as this seat may see it.

        ``event`` is the ``rookery.v1.Event`` message as sent: ``event.seq``,
        ``event.hand_number`` and one ``kind`` (``event.WhichOneof("kind")``, e.g.
        ``event.card_played.seat``). The observation handed to the hooks already holds
        everything the events tell, so most bots need not override this.
        """

    def on_table_finished(self, result: GameResult) -> Awaitable[None] | None:
        """Called once when the game ends, with its result."""

    def time_left(self) -> float:
        """Seconds left until the current request's deadline (0 when no request is open)."""
        return max(0.0, self.deadline - time.monotonic()) if self.deadline else 0.0
