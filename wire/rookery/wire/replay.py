"""Replays: building one as a table plays, replay files, and re-simulation.

A replay is the proto ``Replay``: a header (ruleset, seed, who sat where, when, which server and
table, the clock), every hand (its full deal, every action with its seat, think time and outcome —
rejected attempts included, for the record — and its result) and the game's result. With the
engine, the header's ruleset and seed and the accepted actions reproduce the whole game.

A replay file holds one ``ReplayRecord`` per line in canonical protobuf JSON: the header line,
one line per hand, the result line; gzip-compressed when the name ends in ``.gz``.

>>> from rookery.engine import PRESETS, parse_action
>>> builder = ReplayBuilder()
>>> builder.start(PRESETS["standard"], seed=7, seats=["a", "b", "c", "d"])
>>> builder.record_action(1, parse_action("bid 70"), think_ms=12)
>>> builder.replay().hands[0].actions[0].think_ms
12
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import tempfile
import zlib
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from enum import Enum
from pathlib import Path

from google.protobuf import json_format
from google.protobuf.message import Message
from rookery.engine import (
    NUM_CARDS,
    Action,
    Deal,
    EngineError,
    Forfeit,
    Game,
    GameRecord,
    HandResult,
    Ruleset,
    SeatAssignment,
    card_name,
    format_cards,
    format_replay_text,
)
from rookery.v1 import actions_pb2, cards_pb2, notes_pb2, replay_pb2, results_pb2, table_pb2

from . import notes
from ._replay_json import fields_json, message_json
from .convert import (
    action_from_proto,
    card_from_proto,
    card_to_proto,
    deal_to_proto,
    forfeit_from_proto,
    game_result_from_proto,
    game_result_to_proto,
    hand_result_to_proto,
    ruleset_from_proto,
    ruleset_to_proto,
    seat_info_to_proto,
    termination_name,
)
from .errors import MalformedMessageError, ReplayFileError
from .fastpath import replay_action_extras, replay_hand_actions
from .memo import BoundedMemo

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


class ActionOutcome(Enum):
    """How an action came to be recorded (the proto ``ActionOutcome``)."""

    ACCEPTED = replay_pb2.ACTION_OUTCOME_ACCEPTED
    """The bot's own action, accepted and applied."""
    AUTO_PLAYED = replay_pb2.ACTION_OUTCOME_AUTO_PLAYED
    """The bot was late; the server played a fallback legal action for it (applied)."""
    REJECTED = replay_pb2.ACTION_OUTCOME_REJECTED
    """The reply was refused (illegal, malformed, stale): kept for the record, never applied."""


# Building -------------------------------------------------------------------------------------


_Recorded = tuple[int, "Action | actions_pb2.Action", int, "ActionOutcome", str, bytes]
"""An action as recorded: (seat, action, think_ms, outcome, rejection reason, and the encoded
``note`` and ``fallback`` fields of the ``ReplayAction``, empty when it has neither)."""


@dataclasses.dataclass(slots=True)
class _Hand:
    """One hand as recorded, in engine values; encoded only when the replay is asked for."""

    hand_number: int
    dealer: int
    deal: Deal
    actions: list[_Recorded] = dataclasses.field(default_factory=list)
    result: HandResult | None = None


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
        self._hands: list[_Hand] = []
        self._hand: _Hand | None = None
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
        self._hand = _Hand(game.hand_number, game.dealer, game.deal)
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

    def _after_apply(self, hand: _Hand) -> None:
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
        lines = [_record_line("header", self._replay.header)]
        lines += ['{"hand":' + _hand_json(hand) + "}\n" for hand in self._hands]
        if result is None and self._replay.HasField("result"):
            result = self._replay.result
        if result is not None:
            lines.append(_record_line("result", result))
        return _file_bytes("".join(lines), compress)


# Files ------------------------------------------------------------------------------------------

_PARTS = ("header", "hand", "result")


def replay_records(replay: replay_pb2.Replay) -> Iterator[replay_pb2.ReplayRecord]:
    """The records of a replay file, in order: the header, one per hand, the result."""
    yield replay_pb2.ReplayRecord(header=replay.header)
    for hand in replay.hands:
        yield replay_pb2.ReplayRecord(hand=hand)
    if replay.HasField("result"):
        yield replay_pb2.ReplayRecord(result=replay.result)


def _record_line(part: str, message: Message) -> str:
    """One record's JSON line: ``MessageToDict`` of the record, compact (``_replay_json`` writes
    it)."""
    return '{"' + part + '":' + message_json(message) + "}\n"


def encode_replay(replay: replay_pb2.Replay, *, compress: bool = True) -> bytes:
    """The bytes of a replay file: JSON lines, gzip-compressed unless ``compress`` is false.

    Each line is ``json_format.MessageToDict`` of one of :func:`replay_records`, written compact
    (``separators=(",", ":")``, UTF-8 as is)."""
    lines = [_record_line("header", replay.header)]
    lines += [_record_line("hand", hand) for hand in replay.hands]
    if replay.HasField("result"):
        lines.append(_record_line("result", replay.result))
    return _file_bytes("".join(lines), compress)


def _file_bytes(text: str, compress: bool) -> bytes:
    """A replay file's bytes from its JSON lines: UTF-8, gzip-compressed if ``compress``."""
    data = text.encode()
    if compress:
        # mtime 0 and no file name: the same replay always compresses to the same bytes. Level 6
        # (gzip's default): a third of level 9's time for files about 8 % larger.
        compressor = zlib.compressobj(6, zlib.DEFLATED, 31)
        data = compressor.compress(data) + compressor.flush()
        data = data[:4] + b"\0\0\0\0" + data[8:]
    return data


# A hand's line from the recorded values (ReplayBuilder.encode) ----------------------------------

_HAND_KEYS = {f.name: '"' + f.json_name + '":' for f in replay_pb2.ReplayHand.DESCRIPTOR.fields}
_DEAL_KEYS = {f.name: '"' + f.json_name + '":' for f in results_pb2.Deal.DESCRIPTOR.fields}
_CARDS_KEY = '"' + results_pb2.CardList.DESCRIPTOR.fields_by_name["cards"].json_name + '":'

_CARD_TEXTS = tuple(message_json(card_to_proto(card)) for card in range(NUM_CARDS))
_CARD_SLICES = tuple(
    tuple(
        ",".join(
            [
                _CARD_TEXTS[card]
                for card in range(start, min(start + 8, NUM_CARDS))
                if subset >> card - start & 1
            ]
        )
        for subset in range(256)
    )
    for start in range(0, NUM_CARDS, 8)
)
"""The JSON texts of a card mask's cards, joined, for each slice of 8 cards and each of its 256
subsets (the way ``rookery.wire.fastpath`` writes their bytes)."""


_ACCEPTED = ActionOutcome.ACCEPTED

_RECORDED_TEXTS: BoundedMemo[tuple[int, Action, int], str] = BoundedMemo(16384)
"""An accepted action's JSON text (one with no note or fallback), by (seat, action, think time):
a fast bot's think time is 0, so the same few hundred come in every game."""


def _hand_json(hand: _Hand) -> str:
    """``message_json`` of the ``ReplayHand`` that ``ReplayBuilder.replay`` makes of ``hand``
    (its fields in field-number order, zero scalars left out as ``MessageToDict`` does)."""
    keys = _HAND_KEYS
    parts = []
    if hand.hand_number:
        parts.append(keys["hand_number"] + str(hand.hand_number))
    if hand.dealer:
        parts.append(keys["dealer"] + str(hand.dealer))
    deal = _deal_json(hand.deal)
    parts.append(keys["deal"] + deal)  # always set, even when empty
    if hand.actions:
        texts = [_recorded_json(item) for item in hand.actions]
        parts.append(keys["actions"] + "[" + ",".join(texts) + "]")
    result = hand.result
    if result is not None:
        if not result.redeal and result.deal != hand.deal:
            deal = _deal_json(result.deal)  # (a result repeats its hand's deal)
        parts.append(keys["result"] + _hand_result_json(result, deal))
    return "{" + ",".join(parts) + "}"


def _hand_result_json(result: HandResult, deal: str) -> str:
    """``message_json(hand_result_to_proto(result))``, given the text of its deal; its buried
    cards written from their mask."""
    message = hand_result_to_proto(result)
    if result.redeal:
        return message_json(message)
    return fields_json(message, {"deal": deal, "buried": _cards_json(result.buried)})


def _cards_json(mask: int) -> str:
    """The JSON array of a card mask's cards, ascending (as ``deal_to_proto`` lists them)."""
    texts = [subsets[mask >> 8 * i & 0xFF] for i, subsets in enumerate(_CARD_SLICES)]
    return "[" + ",".join([text for text in texts if text]) + "]"


def _deal_json(deal: Deal) -> str:
    """``message_json(deal_to_proto(deal))``."""
    keys = _DEAL_KEYS
    parts = []
    if deal.hands:
        rows = ["{" + _CARDS_KEY + _cards_json(hand) + "}" if hand else "{}" for hand in deal.hands]
        parts.append(keys["hands"] + "[" + ",".join(rows) + "]")
    if deal.nest:
        parts.append(keys["nest"] + _cards_json(deal.nest))
    if deal.dead:
        parts.append(keys["dead"] + _cards_json(deal.dead))
    return "{" + ",".join(parts) + "}"


def _recorded_json(recorded: _Recorded) -> str:
    """``message_json`` of one recorded action's ``ReplayAction``."""
    seat, action, think_ms, outcome, reason, extra = recorded
    if outcome is _ACCEPTED and not reason and not extra and not isinstance(action, Message):
        key = (seat, action, think_ms)
        found = _RECORDED_TEXTS.get(key)
        if found is None:
            found = _RECORDED_TEXTS.remember(key, _recorded_reference_json(recorded))
        return found
    return _recorded_reference_json(recorded)  # rejected, auto-played, or with a note


def _recorded_reference_json(recorded: _Recorded) -> str:
    hand = replay_pb2.ReplayHand.FromString(replay_hand_actions([recorded]))
    return message_json(hand.actions[0])


def write_replay(path: str | os.PathLike[str], replay: replay_pb2.Replay) -> None:
    """Write a replay file atomically (a temporary file renamed into place).

    The file is gzip-compressed when its name ends in ``.gz`` (``game-0001.jsonl.gz``) and plain
    JSON lines otherwise.
    """
    target = Path(path)
    data = encode_replay(replay, compress=target.name.endswith(".gz"))
    handle, temporary = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.", suffix=".tmp"
    )
    try:
        with os.fdopen(handle, "wb") as file:
            file.write(data)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def read_replay(path: str | os.PathLike[str]) -> replay_pb2.Replay:
    """Read a replay file: gzip JSON lines, plain JSON lines, or one JSON ``Replay`` document.

    Raises ``ReplayFileError`` naming the file, the line and what is wrong.
    """
    name = os.fspath(path)
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        raise ReplayFileError(name, None, f"cannot read: {error.strerror or error}") from None
    return decode_replay(data, name)


def _gunzip(data: bytes, source: str) -> bytes:
    out: list[bytes] = []
    rest = data
    while True:
        decompressor = zlib.decompressobj(31)
        try:
            out.append(decompressor.decompress(rest))
        except zlib.error as error:
            done = b"".join(out)
            raise ReplayFileError(
                source, done.count(b"\n") + 1, f"corrupt gzip data ({error})"
            ) from None
        if not decompressor.eof:
            done = b"".join(out)
            lines = done.count(b"\n")
            raise ReplayFileError(
                source,
                lines + 1,
                f"truncated gzip file: the compressed stream ends early, after {lines} "
                f"complete line{'s' if lines != 1 else ''}",
            )
        rest = decompressor.unused_data
        if not rest:
            return b"".join(out)
        if rest[:2] != b"\x1f\x8b":
            lines = b"".join(out).count(b"\n")
            raise ReplayFileError(
                source,
                None,
                f"{len(rest)} bytes of garbage after the gzip data (which ends after line {lines})",
            )


_JSON_SPACE = " \t\r\n"
"""Whitespace as JSON knows it (``str.strip()`` would also take control characters such as
0x1c, and call a file of them empty)."""


def decode_replay(data: bytes, source: str = "<replay>") -> replay_pb2.Replay:
    """The replay in the bytes of a replay file (see ``read_replay``); ``source`` names it."""
    if data[:2] == b"\x1f\x8b":
        data = _gunzip(data, source)
    try:
        text = data.decode()
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise ReplayFileError(
            source, line, f"not UTF-8 text (byte {error.start}) and not gzip data either"
        ) from None
    if not text.strip(_JSON_SPACE):
        raise ReplayFileError(source, None, "empty file: no header, hands or result")
    stripped = text.lstrip(_JSON_SPACE)
    first_line = stripped.split("\n", 1)[0].strip(_JSON_SPACE)
    if first_line == "{" or _is_single_document(text):
        return _parse_document(text, source)
    return _parse_lines(text, source)


def _is_single_document(text: str) -> bool:
    try:
        value = json.loads(text)
    except ValueError:
        return False
    if not isinstance(value, dict):
        return False
    # One line holding a whole Replay, not a lone ReplayRecord.
    return "hands" in value or len(value) != 1 or next(iter(value)) not in _PARTS


def _parse_document(text: str, source: str) -> replay_pb2.Replay:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as error:
        raise ReplayFileError(source, error.lineno, f"not valid JSON: {error.msg}") from None
    replay = replay_pb2.Replay()
    try:
        json_format.ParseDict(value, replay)
    except json_format.ParseError as error:
        raise ReplayFileError(source, None, f"not a Replay: {error}") from None
    if not replay.HasField("header"):
        raise ReplayFileError(source, None, "missing header: the Replay has no header")
    if not replay.HasField("result"):
        raise ReplayFileError(source, None, "missing result: the Replay has no result")
    return replay


def _parse_lines(text: str, source: str) -> replay_pb2.Replay:
    replay = replay_pb2.Replay()
    header_line = result_line = 0
    last = 0
    for number, raw in enumerate(text.split("\n"), start=1):
        line = raw.strip(_JSON_SPACE)
        if not line:
            continue
        last = number
        try:
            value = json.loads(line)
        except json.JSONDecodeError as error:
            raise ReplayFileError(
                source, number, f"not valid JSON: {error.msg} (column {error.colno})"
            ) from None
        if not isinstance(value, dict):
            raise ReplayFileError(source, number, f"expected a JSON object, got {line[:40]!r}")
        record = replay_pb2.ReplayRecord()
        try:
            json_format.ParseDict(value, record)
        except json_format.ParseError as error:
            raise ReplayFileError(source, number, f"not a ReplayRecord: {error}") from None
        part = record.WhichOneof("part")
        if part is None:
            raise ReplayFileError(source, number, "empty record: none of header, hand, result")
        if part == "header":
            if header_line:
                raise ReplayFileError(
                    source, number, f"a second header (the header is on line {header_line})"
                )
            header_line = number
            replay.header.CopyFrom(record.header)
            if replay.hands or result_line:
                raise ReplayFileError(source, number, "the header must be the first line")
            continue
        if not header_line:
            raise ReplayFileError(
                source, number, f"missing header: the first record is a {part}, not the header"
            )
        if result_line:
            raise ReplayFileError(
                source, number, f"a {part} after the result (line {result_line}) ends the replay"
            )
        if part == "hand":
            replay.hands.append(record.hand)
        else:
            result_line = number
            replay.result.CopyFrom(record.result)
    if not result_line:
        raise ReplayFileError(
            source, last, f"missing result: the file ends after line {last} without a result line"
        )
    return replay


# Records and verification ---------------------------------------------------------------------


def _recorded_actions(
    replay: replay_pb2.Replay,
) -> Iterator[tuple[int, int, replay_pb2.ReplayAction]]:
    for hand_index, hand in enumerate(replay.hands):
        for action_index, recorded in enumerate(hand.actions):
            if recorded.outcome != replay_pb2.ACTION_OUTCOME_REJECTED:
                yield hand_index, action_index, recorded


def replay_to_record(replay: replay_pb2.Replay) -> GameRecord:
    """The engine ``GameRecord`` of a replay: its ruleset, seed and applied actions, its hands'
    cumulative scores, and its result (a recorded forfeit or abort included).

    Rejected actions are left out. Raises ``MalformedMessageError`` for a malformed message.
    """
    ruleset = ruleset_from_proto(replay.header.ruleset, "header.ruleset")
    actions = tuple(
        (
            recorded.seat,
            action_from_proto(recorded.action, f"hands[{hand}].actions[{index}].action"),
        )
        for hand, index, recorded in _recorded_actions(replay)
    )
    scores: tuple[int, ...] = (0,) * ruleset.num_sides
    hand_scores = []
    for hand in replay.hands:
        if hand.HasField("result"):
            if not hand.result.redeal:
                scores = tuple(hand.result.scores)
            hand_scores.append(scores)
    result = None
    forfeit = None
    aborted = False
    if replay.HasField("result"):
        result = game_result_from_proto(replay.result)
        recorded_forfeit = forfeit_from_proto(replay.result)
        if recorded_forfeit is not None:
            forfeit = (recorded_forfeit.seat, recorded_forfeit.detail)
        aborted = replay.result.reason == results_pb2.TERMINATION_REASON_ABORTED
    return GameRecord(
        ruleset=ruleset,
        seed=replay.header.seed,
        actions=actions,
        forfeit=forfeit,
        aborted=aborted,
        hand_scores=tuple(hand_scores),
        result=result,
    )


def _card_text(message: cards_pb2.Card) -> str:
    try:
        return card_name(card_from_proto(message))
    except MalformedMessageError:
        return f"<suit {message.suit} rank {message.rank} rook {message.rook}>"


def _cards_text(cards: Sequence[cards_pb2.Card]) -> str:
    return " ".join(_card_text(card) for card in cards) or "none"


def _value_text(field: object, value: object) -> str:
    from google.protobuf.descriptor import FieldDescriptor

    assert isinstance(field, FieldDescriptor)
    if field.type == FieldDescriptor.TYPE_ENUM:
        enum = field.enum_type
        if field.is_repeated:
            assert isinstance(value, Sequence)
            return "[" + ", ".join(_enum_name(enum, item) for item in value) + "]"
        assert isinstance(value, int)
        return _enum_name(enum, value)
    if field.is_repeated:
        assert isinstance(value, Sequence)
        return "[" + ", ".join(str(item) for item in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, str) else str(value)


def _enum_name(enum: object, value: int) -> str:
    from google.protobuf.descriptor import EnumDescriptor

    assert isinstance(enum, EnumDescriptor)
    member = enum.values_by_number.get(value)
    return member.name if member is not None else str(value)


def _differences(expected: Message, got: Message, path: str) -> list[str]:
    """One line per field that differs: ``path.field: expected X, got Y``."""
    out: list[str] = []
    for field in expected.DESCRIPTOR.fields:
        want, have = getattr(expected, field.name), getattr(got, field.name)
        if want == have:
            continue
        name = f"{path}.{field.name}" if path else field.name
        message_type = field.message_type
        if message_type is not None and message_type.full_name == "rookery.v1.Card":
            if field.is_repeated:
                out.append(f"{name}: expected {_cards_text(want)}, got {_cards_text(have)}")
                out[-1] += _card_set_difference(want, have)
            else:
                out.append(f"{name}: expected {_card_text(want)}, got {_card_text(have)}")
        elif message_type is not None and field.is_repeated:
            if len(want) != len(have):
                out.append(f"{name}: expected {len(want)} entries, got {len(have)}")
            else:
                for index, (a, b) in enumerate(zip(want, have, strict=True)):
                    out.extend(_differences(a, b, f"{name}[{index}]"))
        elif message_type is not None:
            out.extend(_differences(want, have, name))
        else:
            out.append(
                f"{name}: expected {_value_text(field, want)}, got {_value_text(field, have)}"
            )
    return out


def _card_set_difference(want: Sequence[cards_pb2.Card], have: Sequence[cards_pb2.Card]) -> str:
    try:
        a = sum(1 << card_from_proto(card) for card in want)
        b = sum(1 << card_from_proto(card) for card in have)
    except MalformedMessageError:
        return ""
    parts = []
    if a & ~b:
        parts.append(f"missing {format_cards(a & ~b)}")
    if b & ~a:
        parts.append(f"not dealt there: {format_cards(b & ~a)}")
    return f" ({'; '.join(parts)})" if parts else " (same cards, another order)"


def verify_replay(replay: replay_pb2.Replay) -> list[str]:
    """Re-simulate a replay with the engine and list every way it differs; empty when it verifies.

    The header's seats (one per seat, each on its side) and clock, each hand's deal, the seat of
    every action, every action's legality, each hand's result and the game's result are checked.
    A rejected action is checked but not applied: it must come from the seat to act and be
    malformed or illegal there (the server rejects nothing else). Auto-played ones are applied
    like any other; a recorded forfeit or abort is applied after the last action. Problems read
    ``hand H, action I: ...`` with *expected* what the re-simulation gives and *got* what the
    replay records. Once an action cannot be applied, later hands are not checked.
    """
    problems: list[str] = []
    try:
        ruleset = ruleset_from_proto(replay.header.ruleset, "header.ruleset")
    except MalformedMessageError as error:
        return [f"header: {error}"]
    problems.extend(f"header: {line}" for line in _header_problems(replay.header, ruleset))
    try:
        game = Game(ruleset, replay.header.seed, events=False)
    except (TypeError, ValueError) as error:
        return [*problems, f"header: cannot start the game: {error}"]
    broken = False
    for index, hand in enumerate(replay.hands):
        where = f"hand {index}"
        if game.is_over:
            problems.append(
                f"{where}: expected no more hands, the game was over after hand {index - 1}"
            )
            broken = True
            break
        if hand.hand_number != index:
            problems.append(f"{where}: hand_number: expected {index}, got {hand.hand_number}")
        if hand.dealer != game.dealer:
            problems.append(f"{where}: dealer: expected {game.dealer}, got {hand.dealer}")
        problems.extend(
            f"{where}: {line}" for line in _differences(deal_to_proto(game.deal), hand.deal, "deal")
        )
        broken = _replay_hand_actions(game, index, hand, problems)
        if broken:
            break
        finished = len(game.hand_results) > index
        if finished:
            if not hand.HasField("result"):
                problems.append(f"{where}: result: missing, expected the result of a finished hand")
            else:
                expected = hand_result_to_proto(game.hand_results[index])
                problems.extend(
                    f"{where}: {line}" for line in _differences(expected, hand.result, "result")
                )
        else:
            if hand.HasField("result"):
                problems.append(
                    f"{where}: result recorded, but the hand is not over after its "
                    f"{len(hand.actions)} actions"
                )
            if index + 1 < len(replay.hands):
                problems.append(
                    f"{where}: the hand is not over after its {len(hand.actions)} actions, "
                    f"yet hand {index + 1} follows"
                )
                broken = True
                break
    if broken:
        return problems
    if not replay.HasField("result"):
        problems.append("result: missing")
        return problems
    recorded = replay.result
    try:
        forfeit = forfeit_from_proto(recorded)
    except MalformedMessageError as error:
        return [*problems, str(error)]
    aborted = recorded.reason == results_pb2.TERMINATION_REASON_ABORTED
    if forfeit is not None or aborted:
        if game.is_over:
            problems.append(
                "result: a forfeit or abort is recorded, but the game had already ended "
                f"({game.result.reason.name if game.result else '?'})"
            )
            return problems
        try:
            if forfeit is not None:
                game.forfeit(forfeit.seat, forfeit.detail)
            else:
                game.abort()
        except (EngineError, ValueError) as error:
            return [*problems, f"result: cannot apply the recorded end: {error}"]
    elif not game.is_over:
        problems.append(
            f"result: expected the game to go on (hand {game.hand_number}, "
            f"{game.phase.name}), got a finished game"
        )
        return problems
    assert game.result is not None
    game_result = game_result_to_proto(game.result, forfeit=forfeit, detail=recorded.detail)
    problems.extend(_differences(game_result, recorded, "result"))
    return problems


_APPLIED = (replay_pb2.ACTION_OUTCOME_ACCEPTED, replay_pb2.ACTION_OUTCOME_AUTO_PLAYED)
_LATE_POLICIES = (table_pb2.LATE_POLICY_AUTO_PLAY, table_pb2.LATE_POLICY_FORFEIT)


def _header_problems(header: replay_pb2.ReplayHeader, ruleset: Ruleset) -> list[str]:
    """What the header records that the ruleset contradicts: its seats, its start time, its
    clock (the seed and the ruleset itself are checked by every deal they derive)."""
    problems: list[str] = []
    seats = header.seats
    if seats and len(seats) != ruleset.players:
        problems.append(f"seats: expected {ruleset.players} seats, got {len(seats)}")
    for index, seat in enumerate(seats):
        if seat.seat != index:
            problems.append(f"seats[{index}].seat: expected {index}, got {seat.seat}")
        elif seat.side != ruleset.side_of(index):
            problems.append(
                f"seats[{index}].side: expected side {ruleset.side_of(index)} "
                f"({ruleset.name}: seat {index}), got {seat.side}"
            )
    if header.HasField("start_time"):
        try:
            header.start_time.ToDatetime(tzinfo=UTC)
        except (ValueError, OverflowError, OSError) as error:
            problems.append(f"start_time: not a valid time ({error})")
    if header.HasField("time_control"):
        clock = header.time_control
        for name in ("action_ms", "bank_ms", "strike_limit", "grace_ms"):
            value = getattr(clock, name)
            if value < 0:
                problems.append(f"time_control.{name}: expected 0 or more, got {value}")
        if clock.late_policy not in _LATE_POLICIES:
            name = _enum_name(table_pb2.LatePolicy.DESCRIPTOR, clock.late_policy)
            problems.append(
                "time_control.late_policy: expected LATE_POLICY_AUTO_PLAY or "
                f"LATE_POLICY_FORFEIT, got {name}"
            )
    return problems


def _check_rejected(
    game: Game, index: int, where: str, recorded: replay_pb2.ReplayAction, problems: list[str]
) -> None:
    """A rejected record: the seat to act sent it, and it was malformed or illegal there (or its
    note or fallback mark broke their bounds)."""
    if game.is_over or len(game.hand_results) > index:
        problems.append(f"{where}: a rejected action recorded after the hand was over")
        return
    if recorded.seat != game.current_player:
        problems.append(
            f"{where}: seat: expected seat {game.current_player} to act ({game.phase.name}), "
            f"got a rejected action of seat {recorded.seat}"
        )
        return
    try:
        action = action_from_proto(recorded.action)
    except MalformedMessageError:
        return  # rejected as malformed: right
    if game.is_legal(action) and not notes.is_bounds_rejection(recorded.rejection_reason):
        problems.append(
            f"{where}: seat {recorded.seat} {action}: recorded as rejected, but it is legal "
            f"here ({game.phase.name}): the server would have applied it"
        )


def _check_note(where: str, recorded: replay_pb2.ReplayAction, problems: list[str]) -> None:
    """The bounds of an action's note and fallback mark (the server refuses replies past them)."""
    if recorded.HasField("note"):
        problem = notes.note_problem(recorded.note)
        if problem is not None:
            problems.append(f"{where}: {problem}")
    if recorded.HasField("fallback"):
        problem = notes.fallback_problem(recorded.fallback)
        if problem is not None:
            problems.append(f"{where}: {problem}")
        if recorded.outcome != replay_pb2.ACTION_OUTCOME_ACCEPTED:
            name = _enum_name(replay_pb2.ActionOutcome.DESCRIPTOR, recorded.outcome)
            problems.append(
                f"{where}: fallback: only a bot's accepted reply carries its SDK's fallback "
                f"mark, got one on an action {name}"
            )


def _replay_hand_actions(
    game: Game, index: int, hand: replay_pb2.ReplayHand, problems: list[str]
) -> bool:
    """Apply one hand's actions; record problems; True when the simulation cannot go on."""
    last_applied = -1
    for action_index, recorded in enumerate(hand.actions):
        where = f"hand {index}, action {action_index}"
        outcome = recorded.outcome
        _check_note(where, recorded, problems)
        if outcome == replay_pb2.ACTION_OUTCOME_REJECTED:
            _check_rejected(game, index, where, recorded, problems)
            continue
        if outcome not in _APPLIED:
            name = _enum_name(replay_pb2.ActionOutcome.DESCRIPTOR, outcome)
            problems.append(
                f"{where}: outcome: expected ACCEPTED, AUTO_PLAYED or REJECTED, got {name}"
            )
        if game.is_over or len(game.hand_results) > index:
            problems.append(
                f"{where}: expected no more actions, the hand was over after action {last_applied}"
            )
            return True
        try:
            action = action_from_proto(recorded.action)
        except MalformedMessageError as error:
            problems.append(f"{where}: malformed: {error}")
            return True
        if recorded.seat != game.current_player:
            problems.append(
                f"{where}: seat: expected seat {game.current_player} to act "
                f"({game.phase.name}), got seat {recorded.seat} ({action})"
            )
            return True
        try:
            game.apply(action)
        except EngineError as error:
            problems.append(f"{where}: seat {recorded.seat} {action}: illegal: {error}")
            return True
        last_applied = action_index
    return False


# Text -------------------------------------------------------------------------------------------


def replay_text(replay: replay_pb2.Replay) -> str:
    """A replay as text a person can read: who played where and when, then hand by hand (the
    engine's ``format_replay_text`` of the re-simulated game), then what the server recorded
    beyond the rules: rejected and auto-played actions, the bots' fallbacks and notes, and how
    the game ended.

    Raises ``MalformedMessageError`` or the engine's ``ReplayMismatchError`` for a replay that
    does not verify (check with ``verify_replay`` first).
    """
    header = replay.header
    lines = []
    if header.table_id or header.tournament_id:
        tournament = f", tournament {header.tournament_id}" if header.tournament_id else ""
        lines.append(f"Table {header.table_id or '-'}{tournament}")
    if header.HasField("start_time"):
        lines.append(f"Started {header.start_time.ToDatetime(tzinfo=UTC).isoformat()}")
    if header.server_version:
        lines.append(f"Server {header.server_version}")
    if header.HasField("time_control"):
        clock = header.time_control
        policy = _enum_name(table_pb2.LatePolicy.DESCRIPTOR, clock.late_policy)
        lines.append(
            f"Clock {clock.action_ms} ms per action, bank {clock.bank_ms} ms, "
            f"{policy.removeprefix('LATE_POLICY_')}, strike limit {clock.strike_limit}"
        )
    for seat in header.seats:
        version = f" {seat.bot_version}" if seat.bot_version else ""
        lines.append(f"  seat {seat.seat} (side {seat.side}): {seat.bot_name}{version}")
    body = format_replay_text(replay_to_record(replay)).rstrip()
    lines.extend(["", body] if lines else [body])
    notes = []
    for hand_index, hand in enumerate(replay.hands):
        for index, recorded in enumerate(hand.actions):
            if recorded.outcome == replay_pb2.ACTION_OUTCOME_REJECTED:
                try:
                    shown = str(action_from_proto(recorded.action))
                except MalformedMessageError as error:
                    shown = f"malformed ({error})"
                reason = f": {recorded.rejection_reason}" if recorded.rejection_reason else ""
                notes.append(
                    f"  hand {hand_index}, action {index}: seat {recorded.seat} {shown} "
                    f"rejected{reason}"
                )
            elif recorded.outcome == replay_pb2.ACTION_OUTCOME_AUTO_PLAYED:
                shown = str(action_from_proto(recorded.action))
                notes.append(
                    f"  hand {hand_index}, action {index}: seat {recorded.seat} {shown} "
                    "auto-played (late)"
                )
    if notes:
        lines.extend(["", "Rejected and auto-played actions:", *notes])
    marks = []
    for hand_index, hand in enumerate(replay.hands):
        for index, recorded in enumerate(hand.actions):
            where = f"  hand {hand_index}, action {index}: seat {recorded.seat}"
            if recorded.HasField("fallback"):
                marks.append(f"{where} fallback: {recorded.fallback.reason}")
            if recorded.HasField("note"):
                values = "".join(
                    f" {name}={recorded.note.values[name]:g}"
                    for name in sorted(recorded.note.values)
                )
                marks.append(f"{where} note: {recorded.note.text}{values}")
    if marks:
        lines.extend(["", "Fallbacks and notes (the bots' own words):", *marks])
    result = replay.result
    forfeit = forfeit_from_proto(result)
    if forfeit is not None or result.detail:
        ending = termination_name(result.reason).lower().replace("_", " ")
        if forfeit is not None:
            ending += f" by seat {forfeit.seat}"
        if result.detail:
            ending += f" ({result.detail})"
        lines.extend(["", f"Ended: {ending}"])
    return "\n".join(lines) + "\n"
