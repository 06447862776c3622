"""A scripted OpenAI-compatible chat server on loopback that plays Rook by reading the prompt."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_EXAMPLE = re.compile(r"\(for example: (bury [^)]*)\)")
_MOVES = re.compile(r"[Ll]egal moves: (.*?)\.(?:\n|$| Try again)")


def first_legal_move(messages: list[dict[str, str]]) -> str:
    """The first legal move listed in the latest prompt that lists them."""
    for message in reversed(messages):
        if message["role"] != "user":
            continue
        example = _EXAMPLE.search(message["content"])
        if example:
            return example.group(1)
        moves = _MOVES.search(message["content"])
        if moves:
            return moves.group(1).split(", ")[0]
    raise AssertionError("no prompt lists the legal moves")


class ScriptedChat:
    """What the server answers (``mode``) and every request it received."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.requests: list[dict[str, Any]] = []
        self.lock = threading.Lock()

    def reply(self, body: dict[str, Any]) -> tuple[int, str]:
        messages = body["messages"]
        answered = sum(1 for m in messages if m["role"] == "assistant")
        if self.mode == "error":
            return 500, "upstream overloaded"
        if self.mode == "slow":
            time.sleep(2.0)
        if self.mode == "garbage":
            return 200, "I would rather talk about the weather."
        if self.mode == "illegal_then_legal" and answered == 0:
            return 200, "Easy.\nMOVE: bid 3"
        move = first_legal_move(messages)
        return 200, f"Looking at my hand, the safest choice is the first one.\nMOVE: {move}"


@contextmanager
def chat_server(mode: str) -> Iterator[tuple[str, ScriptedChat]]:
    """Serve ``ScriptedChat(mode)`` on 127.0.0.1; yields the API's base URL and the script."""
    script = ScriptedChat(mode)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length))
            with script.lock:
                script.requests.append(
                    {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
                )
            status, text = script.reply(body)
            if status != 200:
                payload = json.dumps({"error": {"message": text}}).encode()
            else:
                payload = json.dumps(
                    {"choices": [{"index": 0, "message": {"role": "assistant", "content": text}}]}
                ).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", script
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
