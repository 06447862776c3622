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
    """What the server answers and every request it received.

    ``mode`` is the answer to every request, unless ``plan`` names the answer of request ``i``
    (counted from 0 over the whole server) as ``plan[i]``. Answers: ``legal`` (the first legal
    move), ``garbage``, ``illegal_then_legal``, ``slow`` (2 s, then legal), ``tool`` (a tool call
    with no text), ``error`` or ``500`` (HTTP 500), ``429`` (with ``Retry-After: 0``), ``401``.
    A request that offers ``tools`` is answered as a tool-calling model would (:meth:`tool_step`;
    ``garbage`` is then text with no tool call).
    Every text answer reports its usage: ``prompt_tokens`` the request's characters / 4,
    ``completion_tokens`` the reply's words; ``sent`` tallies what was answered.
    """

    def __init__(self, mode: str, plan: dict[int, str] | None = None) -> None:
        self.mode = mode
        self.plan = dict(plan or {})
        self.requests: list[dict[str, Any]] = []
        self.sent: dict[str, int] = {}
        self.lock = threading.Lock()

    def answer(self, index: int, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        """The status and JSON body of request ``index``."""
        mode = self.plan.get(index, self.mode)
        status, text = self.reply(mode, body)
        with self.lock:
            self.sent[mode] = self.sent.get(mode, 0) + 1
        if status != 200:
            return status, {"error": {"message": text}}
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if body.get("tools") and mode in ("legal", "bad_play", "slow"):
            name, arguments = self.tool_step(mode, body["messages"])
            with self.lock:
                self.sent[f"tool:{name}"] = self.sent.get(f"tool:{name}", 0) + 1
            call = {"name": name, "arguments": json.dumps(arguments)}
            message["content"] = None
            message["tool_calls"] = [{"id": f"call_{index}", "type": "function", "function": call}]
            text = json.dumps(call)
        usage = {
            "prompt_tokens": len(json.dumps(body["messages"])) // 4,
            "completion_tokens": len(text.split()),
        }
        if mode == "tool":
            message = {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_legal_moves", "arguments": "{}"},
                    }
                ],
            }
            usage["completion_tokens"] = 7
        with self.lock:
            self.sent["prompt_tokens"] = self.sent.get("prompt_tokens", 0) + usage["prompt_tokens"]
            self.sent["completion_tokens"] = (
                self.sent.get("completion_tokens", 0) + usage["completion_tokens"]
            )
        return 200, {"choices": [{"index": 0, "message": message}], "usage": usage}

    def tool_step(self, mode: str, messages: list[dict[str, Any]]) -> tuple[str, dict[str, str]]:
        """A tool-calling model's next call: history, then legal_actions, then play the first
        legal move (``bad_play``: play 'bid 3'); after a refused play, legal_actions again."""
        last = messages[-1]
        if mode == "bad_play":
            return "play", {"move": "bid 3", "reason": "a bargain"}
        if last["role"] != "tool":
            return "history", {}
        content = str(last["content"])
        if content.startswith("Your legal moves: "):
            listed = content.removeprefix("Your legal moves: ").rstrip(".")
            example = _EXAMPLE.search(listed)
            move = example.group(1) if example else listed.split(", ")[0]
            return "play", {"move": move, "reason": "the first listed move"}
        return "legal_actions", {}

    def reply(self, mode: str, body: dict[str, Any]) -> tuple[int, str]:
        messages = body["messages"]
        answered = sum(1 for m in messages if m["role"] == "assistant")
        if mode in ("error", "500"):
            return 500, "upstream overloaded"
        if mode in ("429", "401"):
            return int(mode), "slow down" if mode == "429" else "bad key"
        if mode == "tool":
            return 200, ""
        if mode == "slow":
            time.sleep(2.0)
        if mode == "garbage":
            return 200, "I would rather talk about the weather."
        if mode == "illegal_then_legal" and answered == 0:
            return 200, "Easy.\nMOVE: bid 3"
        if body.get("tools") or mode == "bad_play":
            return 200, ""
        move = first_legal_move(messages)
        return 200, f"Looking at my hand, the safest choice is the first one.\nMOVE: {move}"


@contextmanager
def chat_server(
    mode: str, plan: dict[int, str] | None = None, port: int = 0
) -> Iterator[tuple[str, ScriptedChat]]:
    """Serve ``ScriptedChat(mode, plan)`` on 127.0.0.1 (``port``, or a free one); yields the API's
    base URL and the script."""
    script = ScriptedChat(mode, plan)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length", "0"))
            body = json.loads(self.rfile.read(length))
            with script.lock:
                index = len(script.requests)
                script.requests.append(
                    {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
                )
            if self.path == "/v1/chat/completions":
                status, answer = script.answer(index, body)
            else:
                status, answer = 404, {"error": {"message": f"no route {self.path}"}}
            payload = json.dumps(answer).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                if status == 429:
                    self.send_header("Retry-After", "0")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)
            except (BrokenPipeError, ConnectionResetError):
                pass

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", script
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
