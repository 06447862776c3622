"""Replay files: a replay's JSON lines (gzip-compressed when the name ends in ``.gz``), written
atomically and read back (gzip or plain JSON lines, or one JSON ``Replay`` document) with errors
that name the file, the line and what is wrong.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import zlib
from collections.abc import Iterator
from pathlib import Path

from google.protobuf import json_format
from google.protobuf.message import Message
from rookery.v1 import replay_pb2

from ._replay_json import message_json
from .errors import ReplayFileError

__all__ = [
    "decode_replay",
    "encode_replay",
    "file_bytes",
    "read_replay",
    "record_line",
    "replay_records",
    "write_replay",
]

_PARTS = ("header", "hand", "result")


def replay_records(replay: replay_pb2.Replay) -> Iterator[replay_pb2.ReplayRecord]:
    """The records of a replay file, in order: the header, one per hand, the result."""
    yield replay_pb2.ReplayRecord(header=replay.header)
    for hand in replay.hands:
        yield replay_pb2.ReplayRecord(hand=hand)
    if replay.HasField("result"):
        yield replay_pb2.ReplayRecord(result=replay.result)


def record_line(part: str, message: Message) -> str:
    """One record's JSON line: ``MessageToDict`` of the record, compact (``_replay_json`` writes
    it)."""
    return '{"' + part + '":' + message_json(message) + "}\n"


def encode_replay(replay: replay_pb2.Replay, *, compress: bool = True) -> bytes:
    """The bytes of a replay file: JSON lines, gzip-compressed unless ``compress`` is false.

    Each line is ``json_format.MessageToDict`` of one of :func:`replay_records`, written compact
    (``separators=(",", ":")``, UTF-8 as is)."""
    lines = [record_line("header", replay.header)]
    lines += [record_line("hand", hand) for hand in replay.hands]
    if replay.HasField("result"):
        lines.append(record_line("result", replay.result))
    return file_bytes("".join(lines), compress)


def file_bytes(text: str, compress: bool) -> bytes:
    """A replay file's bytes from its JSON lines: UTF-8, gzip-compressed if ``compress``."""
    data = text.encode()
    if compress:
        # mtime 0 and no file name: the same replay always compresses to the same bytes. Level 6
        # (gzip's default): a third of level 9's time for files about 8 % larger.
        compressor = zlib.compressobj(6, zlib.DEFLATED, 31)
        data = compressor.compress(data) + compressor.flush()
        data = data[:4] + b"\0\0\0\0" + data[8:]
    return data


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
