"""Replays: building one as a table plays, replay files, and re-simulation.

A replay is the proto ``Replay``: a header (ruleset, seed, who sat where, when, which server and
table, the clock), every hand (its full deal, every action with its seat, think time and outcome —
rejected attempts included, for the record — and its result) and the game's result. With the
engine, the header's ruleset and seed and the accepted actions reproduce the whole game.

A replay file holds one ``ReplayRecord`` per line in canonical protobuf JSON: the header line,
one line per hand, the result line; gzip-compressed when the name ends in ``.gz``.

This module is the face of replays and keeps ``ReplayBuilder``; the rest is in one private module
each: what the builder records and its fast JSON line (``_replay_hands``), files
(``_replay_files``), the engine record (``_replay_record``), verification (``_replay_verify``),
text (``_replay_text``).

>>> from rookery.engine import PRESETS, parse_action
>>> builder = ReplayBuilder()
>>> builder.start(PRESETS["standard"], seed=7, seats=["a", "b", "c", "d"])
>>> builder.record_action(1, parse_action("bid 70"), think_ms=12)
>>> builder.replay().hands[0].actions[0].think_ms
12
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime

from rookery.engine import Action, Forfeit, Game, Ruleset, SeatAssignment
from rookery.v1 import actions_pb2, notes_pb2, replay_pb2, results_pb2, table_pb2

from ._replay_files import (
    decode_replay,
    encode_replay,
    file_bytes,
    read_replay,
    record_line,
    replay_records,
    write_replay,
)
from ._replay_hands import ActionOutcome, RecordedHand, hand_json
from ._replay_record import replay_to_record
from ._replay_text import replay_text
from ._replay_verify import verify_replay
from .convert import (
    action_from_proto,
    deal_to_proto,
    game_result_to_proto,
    hand_result_to_proto,
    ruleset_to_proto,
    seat_info_to_proto,
)
from .fastpath import replay_action_extras, replay_hand_actions

__all__ = [
    "ActionOutcome",
    "ReplayBuilder",
    "decode_replay",
    "encode_replay",
    "read_replay",
    "replay_records",
    "replay_text",
    "replay_to_record",
    "verify_replay",
    "write_replay",
]


class ReplayBuilder:
    """Builds the ``Replay`` of one game while a table plays it.

    The builder keeps its own engine game (events off) and applies every accepted or auto-played
    action to it, so it knows by itself when a hand ends, what the next deal is and what each hand
    scored: the table only reports what happened, in engine values::

        builder.start(ruleset, seed, seats=[...], table_id=..., time_control=...)
        builder.record_action(seat, action, think_ms, ActionOutcome.ACCEPTED)   # after each reply
        builder.finish()           # or finish(forfeit=Forfeit(...)), finish(aborted=True)
        write_replay(path, builder.replay())

    Or it follows the caller's game (``start(..., game=game)``): the caller applies each action
    before recording it, and ends the game itself (forfeit, abort) before ``finish``; the builder
    then only records, with no second engine applying every action again.

    What is recorded is kept in engine values and encoded by ``replay()``: recording an action
    costs a list append, not a protobuf message.
    """

    def __init__(self) -> None:
        self._game: Game | None = None
        self._following = False
        self._replay = replay_pb2.Replay()  # the header, and the result once finished
        self._hands: list[RecordedHand] = []
        self._hand: RecordedHand | None = None
        self._irregular = 0
        self._noted = 0

    @property
    def game(self) -> Game:
        """The builder's own game, for reading only (``RuntimeError`` before ``start``)."""
        if self._game is None:
            raise RuntimeError("the replay has not been started")
        return self._game

    @property
    def irregular_actions(self) -> int:
        """How many recorded actions were rejected, auto-played or marked with a fallback (the
        moves a tournament reports as incidents; none in most games)."""
        return self._irregular

    @property
    def noted_actions(self) -> int:
        """How many recorded actions carry their bot's note (a language-model seat's ledger is
        in its notes: a game without any has none to read)."""
        return self._noted

    @property
    def is_finished(self) -> bool:
        """Whether ``finish`` has recorded the game's result."""
        return self._replay.HasField("result")

    def start(
        self,
        ruleset: Ruleset,
        seed: int,
        *,
        seats: Sequence[SeatAssignment | str | tuple[str, str]] = (),
        start_time: datetime | None = None,
        server_version: str = "",
        table_id: str = "",
        tournament_id: str = "",
        time_control: table_pb2.TimeControl | None = None,
        game: Game | None = None,
    ) -> None:
        """Begin the replay of a game of ``ruleset`` dealt from ``seed``.

        ``seats`` names the bot at each seat (a name, ``(name, version)`` or a
        ``SeatAssignment``), all of them or none; ``start_time`` defaults to now (UTC). ``game``:
        follow that game (of this ruleset and seed, no action applied yet) instead of keeping one.
        """
        if self._game is not None:
            raise RuntimeError("the replay has already been started")
        if game is None:
            game = Game(ruleset, seed, events=False)
        else:
            if game.ruleset != ruleset or game.seed != seed or game.hand_results or game.actions:
                raise ValueError("a followed game must be a new game of the same ruleset and seed")
            self._following = True
        header = self._replay.header
        header.ruleset.CopyFrom(ruleset_to_proto(ruleset))
        header.seed = seed
        if seats:
            if any(not isinstance(seat, SeatAssignment) for seat in seats):
                names = [seat for seat in seats if not isinstance(seat, SeatAssignment)]
                if len(names) != len(seats):
                    raise ValueError("seats must be all names or all SeatAssignments")
                assigned = SeatAssignment.for_ruleset(ruleset, names)
            else:
                assigned = tuple(seat for seat in seats if isinstance(seat, SeatAssignment))
            header.seats.extend(seat_info_to_proto(seat) for seat in assigned)
        header.start_time.FromDatetime(start_time or datetime.now(UTC))
        header.server_version = server_version
        header.table_id = table_id
        header.tournament_id = tournament_id
        if time_control is not None:
            header.time_control.CopyFrom(time_control)
        self._game = game
        self._open_hand()

    def _open_hand(self) -> None:
        game = self.game
        self._hand = RecordedHand(game.hand_number, game.dealer, game.deal)
        self._hands.append(self._hand)

    def record_action(
        self,
        seat: int,
        action: Action | actions_pb2.Action,
        think_ms: int = 0,
        outcome: ActionOutcome = ActionOutcome.ACCEPTED,
        rejection_reason: str = "",
        *,
        note: notes_pb2.BotNote | None = None,
        fallback: notes_pb2.Fallback | None = None,
    ) -> None:
        """Record one action of ``seat``, ``think_ms`` after it was asked to act.

        An ``ACCEPTED`` or ``AUTO_PLAYED`` action is applied to the builder's game and must be
        legal (the engine's error propagates and nothing is recorded). A ``REJECTED`` one is only
        kept, with ``rejection_reason``; it may be the proto message the bot sent, malformed or not.
        ``note`` is the bot's note on the reply and ``fallback`` its SDK's mark (the caller has
        checked their bounds); both are copied.
        """
        extra = replay_action_extras(note, fallback)
        game = self.game
        hand = self._hand
        if hand is None or (game.is_over and not self._following):
            raise RuntimeError("the game is over: no more actions can be recorded")
        recorded: Action | actions_pb2.Action
        if outcome is ActionOutcome.REJECTED:
            if isinstance(action, actions_pb2.Action):
                recorded = actions_pb2.Action()
                recorded.CopyFrom(action)  # the caller's message may change later
            else:
                recorded = action
        elif self._following:  # the caller applied it already
            recorded = action
        else:
            recorded = (
                action_from_proto(action) if isinstance(action, actions_pb2.Action) else action
            )
            if game.current_player != seat:
                raise ValueError(
                    f"seat {seat} cannot act: seat {game.current_player} is to act "
                    f"({game.phase.name})"
                )
            game.apply(recorded)
        hand.actions.append(
            (seat, recorded, max(0, min(think_ms, 2**31 - 1)), outcome, rejection_reason, extra)
        )
        if outcome is not ActionOutcome.ACCEPTED or fallback is not None:
            self._irregular += 1
        if note is not None:
            self._noted += 1
        if outcome is not ActionOutcome.REJECTED:
            self._after_apply(hand)

    def _after_apply(self, hand: RecordedHand) -> None:
        game = self.game
        results = game.hand_results
        if len(results) == len(self._hands):  # the action ended the hand
            hand.result = results[-1]
            self._hand = None
            if not game.is_over:
                self._open_hand()

    def finish(
        self, *, forfeit: Forfeit | None = None, aborted: bool = False, detail: str = ""
    ) -> results_pb2.GameResult:
        """Record the game's result and return it.

        A game that ended by its rules needs nothing; one that did not must be ended here by
        ``forfeit`` (which seat, why) or ``aborted=True``. ``detail`` explains it to people.
        """
        game = self.game
        if self.is_finished:
            raise RuntimeError("the replay is already finished")
        if forfeit is not None and aborted:
            raise ValueError("a game ends by forfeit or by abort, not both")
        if self._following:
            if not game.is_over:
                raise ValueError("the followed game is not over: end it before finishing")
        elif game.is_over and (forfeit is not None or aborted):
            raise ValueError("the game is already over: it cannot be forfeited or aborted")
        elif forfeit is not None:
            game.forfeit(forfeit.seat, forfeit.detail or forfeit.kind.value)
        elif aborted:
            game.abort()
        elif not game.is_over:
            raise ValueError("the game is not over: finish it with a forfeit or aborted=True")
        assert game.result is not None
        result = game_result_to_proto(game.result, forfeit=forfeit, detail=detail)
        self._replay.result.CopyFrom(result)
        self._hand = None
        return result

    def replay(self) -> replay_pb2.Replay:
        """A copy of the replay so far (complete once ``finish`` has been called)."""
        copy = replay_pb2.Replay()
        copy.CopyFrom(self._replay)
        for hand in self._hands:
            message = copy.hands.add(
                hand_number=hand.hand_number, dealer=hand.dealer, deal=deal_to_proto(hand.deal)
            )
            message.MergeFromString(replay_hand_actions(hand.actions))  # appends them in order
            if hand.result is not None:
                message.result.CopyFrom(hand_result_to_proto(hand.result))
        return copy

    def encode(
        self, result: results_pb2.GameResult | None = None, *, compress: bool = True
    ) -> bytes:
        """``encode_replay(self.replay(), compress=compress)``, with ``result`` as the replay's
        result when given, written from the recorded engine values: no ``Replay`` message is
        built, and each distinct card and recorded action is turned into JSON text once (the
        same bytes: a test compares them over played games of every preset)."""
        lines = [record_line("header", self._replay.header)]
        lines += ['{"hand":' + hand_json(hand) + "}\n" for hand in self._hands]
        if result is None and self._replay.HasField("result"):
            result = self._replay.result
        if result is not None:
            lines.append(record_line("result", result))
        return file_bytes("".join(lines), compress)
