"""The values a table takes and gives: its spec, status, outcome and seat statistics, and the
move the server plays for a late bot."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

from rookery.engine import (
    Action,
    Bid,
    Bury,
    CallCard,
    GameOverError,
    GameResult,
    LegalActions,
    NameTrump,
    Pass,
    Phase,
    PlayCard,
    Ruleset,
    card_rank,
    cards_of,
)
from rookery.v1 import replay_pb2, results_pb2, table_pb2
from rookery.wire.replay import ReplayBuilder, encode_replay

from ._errors import TableSpecError
from ._time_control import TimeControl

__all__ = ["SeatStats", "TableOutcome", "TableSpec", "TableStatus", "fallback_action"]


class TableStatus(Enum):
    """The lifecycle of a table."""

    WAITING = table_pb2.TABLE_STATUS_WAITING
    """Waiting for a connected session of every seated bot."""
    PLAYING = table_pb2.TABLE_STATUS_PLAYING
    """The game is being played."""
    FINISHED = table_pb2.TABLE_STATUS_FINISHED
    """The game has ended (or was aborted); its replay is available."""


@dataclass(frozen=True, slots=True)
class TableSpec:
    """What a table plays and who sits where.

    ``seed`` None picks a random seed; ``time_control`` None takes the server's default;
    ``table_id`` None generates one; ``join_timeout_s`` is how long the table waits for its bots
    before it is aborted; ``game_number`` is the table's number in a series (sent in TableJoined);
    ``bot_seed_key`` keys every seat's ``TableJoined.bot_seed`` (see ``_bot_seeds``).
    """

    ruleset: Ruleset
    seat_bots: tuple[str, ...]
    seed: int | None = None
    time_control: TimeControl | None = None
    tournament_id: str = ""
    table_id: str | None = None
    join_timeout_s: float = 30.0
    game_number: int = 0
    seat_keys: tuple[str, ...] = ()
    """Per seat, the launch key its session must have presented (``""``: any session of the
    bot); empty: none bound. The arena binds each game's fresh bot processes to their seats."""
    seat_clocks: tuple[Callable[[], float] | None, ...] = ()
    """Per seat, a reading of the CPU seconds its bot's processes used so far (None: wall time).
    A seat with a CPU clock is charged the CPU its bot used since its previous reply (background
    thinking included), and may take at most ``CPU_WALL_FACTOR`` times its budget (at least
    ``CPU_WALL_EXTRA_MS`` more than it) in wall time."""
    #: The key of the seats' bot seeds (a tournament's secret); None takes the server's own.
    bot_seed_key: bytes | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if len(self.seat_bots) != self.ruleset.players:
            raise TableSpecError(
                f"the ruleset has {self.ruleset.players} seats but {len(self.seat_bots)} bots "
                "were named"
            )
        for name in ("seat_keys", "seat_clocks"):
            given = len(getattr(self, name))
            if given and given != self.ruleset.players:
                raise TableSpecError(f"{name} has {given} entries for {self.ruleset.players} seats")
        if self.seed is not None and not 0 <= self.seed < 2**64:
            raise TableSpecError(f"seed must be in 0..2**64-1, got {self.seed}")
        if self.join_timeout_s <= 0:
            raise TableSpecError(f"join_timeout_s must be > 0, got {self.join_timeout_s}")


@dataclass(frozen=True, slots=True)
class SeatStats:
    """How one seat's bot behaved during a game."""

    seat: int
    bot_name: str
    bot_version: str
    actions: int
    think_ms_mean: float
    think_ms_max: int
    timeouts: int
    auto_plays: int
    illegal_replies: int
    malformed_replies: int
    disconnects: int
    cpu_timeouts: int = 0
    """Timeouts of a seat with a CPU clock that came from CPU time used up (not wall time)."""
    fallbacks: int = 0
    """Accepted replies the bot's SDK or kit made itself because the bot's code failed."""


@dataclass(frozen=True, slots=True)
class TableOutcome:
    """How a table's game ended, with its replay and per-seat statistics.

    ``termination`` is a proto ``TerminationReason`` value; ``forfeit_seat`` is -1 unless a seat
    forfeited; ``result_proto`` is the ``GameResult`` message sent to the bots.
    """

    table_id: str
    result: GameResult
    result_proto: results_pb2.GameResult
    termination: int
    forfeit_seat: int
    detail: str
    build_replay: Callable[[], replay_pb2.Replay] = field(repr=False, compare=False)
    """Makes ``replay`` (once, when first asked for: the arena writes its file from
    ``recorded`` and needs no message)."""
    seat_stats: tuple[SeatStats, ...]
    duration_s: float
    recorded: ReplayBuilder | None = field(default=None, repr=False, compare=False)
    """The builder that recorded ``replay`` (None for a table aborted before it started)."""
    _built: list[replay_pb2.Replay] = field(
        default_factory=list, init=False, repr=False, compare=False
    )

    @property
    def replay(self) -> replay_pb2.Replay:
        """The game's ``Replay`` message, made on first use (the same message after)."""
        if not self._built:
            self._built.append(self.build_replay())
        return self._built[0]

    @property
    def has_move_incidents(self) -> bool:
        """Whether a recorded move was rejected, auto-played or marked as its SDK's fallback
        (``rookery.arena.records._move_incidents`` then has something to find in ``replay``)."""
        return self.recorded is None or self.recorded.irregular_actions > 0

    def replay_bytes(self, *, compress: bool = True) -> bytes:
        """``encode_replay(self.replay, compress=compress)``: a replay file's bytes, written
        from the recorded engine values where they are at hand (no pass over the message)."""
        if self.recorded is None:
            return encode_replay(self.replay, compress=compress)
        return self.recorded.encode(self.result_proto, compress=compress)


def _card_order(card: int) -> tuple[int, int]:
    rank = card_rank(card)
    return (rank if rank else 99, card)


def fallback_action(legal: LegalActions) -> Action:
    """The action the server plays for a late bot (AUTO_PLAY): simple and always legal.

    Auction: pass (the lowest bid if passing is not allowed). Trump: the first legal suit (black,
    red, yellow, green). Bury and call: the lowest-ranked cards (the Rook counts as highest). Play:
    the lowest-ranked playable card, the Rook only when nothing else is playable.
    """
    phase = legal.phase
    if phase is Phase.BIDDING:
        return Pass() if legal.can_pass else Bid(legal.bids[0])
    if phase is Phase.NAME_TRUMP:
        return NameTrump(legal.suits[0])
    if phase is Phase.BURY:
        chosen = sorted(cards_of(legal.bury_from), key=_card_order)[: legal.bury_count]
        mask = 0
        for card in chosen:
            mask |= 1 << card
        return Bury(mask)
    if phase is Phase.CALL:
        return CallCard(min(cards_of(legal.call_from), key=_card_order))
    if phase is Phase.PLAY:
        return PlayCard(min(cards_of(legal.play), key=_card_order))
    raise GameOverError("the game is over: nothing to play")
