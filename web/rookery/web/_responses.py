"""What a dashboard route answers: a body with its content type, or an :class:`HttpError`."""

from __future__ import annotations

import json
from http import HTTPStatus

from rookery.wire.documents import JsonValue

__all__ = ["HttpError", "json_bytes", "json_response"]


class HttpError(Exception):
    """An answer other than 200: its status and a message for the client."""

    def __init__(self, status: HTTPStatus, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def json_bytes(value: JsonValue) -> bytes:
    """``value`` as compact JSON."""
    return json.dumps(value, separators=(",", ":")).encode()


def json_response(value: JsonValue) -> tuple[str, bytes]:
    """A JSON answer: its content type and body."""
    return "application/json", json_bytes(value)
