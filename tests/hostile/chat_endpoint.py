"""An entrant's own OpenAI-compatible chat endpoint on loopback, answering as a test scripts it."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

#: The chat messages of one request in, the HTTP status and the reply's text (or error) out.
Answer = Callable[[list[dict[str, str]]], tuple[int, str]]


@contextmanager
def chat_endpoint(answer: Answer) -> Iterator[str]:
    """Serve ``POST …/chat/completions`` with ``answer``; yield the API's base URL."""

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            status, text = answer(body["messages"])
            reply: dict[str, Any] = (
                {"choices": [{"message": {"role": "assistant", "content": text}}]}
                if status == 200
                else {"error": {"message": text}}
            )
            payload = json.dumps(reply).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
