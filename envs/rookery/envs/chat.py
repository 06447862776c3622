"""An agent behind an OpenAI-compatible chat endpoint (``POST {url}/chat/completions``).

The URL and the model come from the configuration; an API key, if any, only from the
environment (``ROOKERY_CHAT_KEY``) and never into a log line or an error message. A failure of the
provider is a :class:`~rookery.envs.text.ProviderError`: transient (HTTP 408, 409, 425, 429 and
5xx, a timeout, a refused or reset connection, a response that is not a chat completion) or not
(any other HTTP error). A completion with no text (a tool call, a refusal) is returned as such:
the text seat counts it as the model's invalid reply.
"""

from __future__ import annotations

import asyncio
import json
import math
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import structlog

from .text import Completion, ProviderError, ToolCall

__all__ = ["TRANSIENT_STATUSES", "ChatEndpoint"]

TRANSIENT_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
"""HTTP statuses worth retrying: the provider is busy or broken now, not the request wrong."""

_RETRY_AFTER_MAX_S = 60.0


def _retry_after(value: str | None) -> float | None:
    """The seconds of a ``Retry-After`` header (a number; a date counts as none), at most 60."""
    try:
        seconds = float(value or "")
    except ValueError:
        return None
    return min(max(seconds, 0.0), _RETRY_AFTER_MAX_S) if math.isfinite(seconds) else None


log = structlog.get_logger("rookery.envs.chat")


@dataclass(frozen=True)
class ChatEndpoint:
    """An OpenAI-compatible chat endpoint as an agent: ``await endpoint(messages) -> reply``."""

    url: str
    """The API's base URL, e.g. ``http://127.0.0.1:8000/v1`` (``/chat/completions`` is added)."""
    model: str
    timeout_s: float = 30.0
    temperature: float = 0.0
    api_key: str = field(default="", repr=False)

    def __post_init__(self) -> None:
        if not self.url.startswith(("http://", "https://")):
            raise ValueError(f"the chat URL must start with http:// or https://, got {self.url!r}")
        if not self.model:
            raise ValueError("the chat model must be named")

    @property
    def endpoint(self) -> str:
        """The completions URL."""
        return self.url.rstrip("/") + "/chat/completions"

    async def __call__(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]] = (),
        *,
        timeout_s: float | None = None,
    ) -> Completion:
        """The reply, its token counts and the tools it called (``tools``: OpenAI-style
        function tools offered to the model); ``ProviderError`` on any failure of the provider."""
        timeout = self.timeout_s if timeout_s is None else min(timeout_s, self.timeout_s)
        return await asyncio.to_thread(self._post, messages, tools, max(0.05, timeout))

    def _post(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Mapping[str, Any]],
        timeout: float,
    ) -> Completion:
        asked: dict[str, Any] = {
            "model": self.model,
            "messages": list(messages),
            "temperature": self.temperature,
        }
        if tools:
            asked["tools"] = list(tools)
        body = json.dumps(asked).encode()
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(self.endpoint, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                payload = response.read()
        except urllib.error.HTTPError as error:
            transient = error.code in TRANSIENT_STATUSES or error.code >= 500
            log.warning(
                "chat provider error",
                url=self.endpoint,
                model=self.model,
                status=error.code,
                transient=transient,
            )
            raise ProviderError(
                f"http_{error.code}",
                f"the chat endpoint {self.endpoint} answered HTTP {error.code}",
                transient=transient,
                retry_after_s=_retry_after(error.headers.get("Retry-After")),
            ) from None
        except TimeoutError:
            log.warning(
                "chat provider timeout", url=self.endpoint, model=self.model, timeout_s=timeout
            )
            raise ProviderError(
                "timeout",
                f"the chat endpoint {self.endpoint} did not answer within {timeout:.1f} s",
                transient=True,
            ) from None
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            log.warning("chat provider unreachable", url=self.endpoint, reason=str(reason))
            raise ProviderError(
                "unreachable",
                f"cannot reach the chat endpoint {self.endpoint}: {reason}",
                transient=True,
            ) from None
        return self._completion(payload)

    def _completion(self, payload: bytes) -> Completion:
        try:
            data = json.loads(payload)
            message = data["choices"][0]["message"]
            content = message.get("content")
        except (ValueError, KeyError, IndexError, TypeError, AttributeError):
            raise ProviderError(
                "bad_response",
                f"the chat endpoint {self.endpoint} sent no choices[0].message",
                transient=True,
            ) from None
        if content is not None and not isinstance(content, str):
            raise ProviderError("bad_response", "the reply's content is not text", transient=True)
        calls = message.get("tool_calls") or []
        tool_calls = tuple(_tool_call(call) for call in (calls if isinstance(calls, list) else []))
        usage = data.get("usage") if isinstance(data, dict) else None
        usage = usage if isinstance(usage, dict) else {}
        return Completion(
            content or "",
            _count(usage.get("prompt_tokens")),
            _count(usage.get("completion_tokens")),
            tool_calls=tool_calls,
        )


def _tool_call(call: object) -> ToolCall:
    """A ``tool_calls`` entry as sent (a malformed one keeps what it has, name ``?``)."""
    entry = call if isinstance(call, dict) else {}
    function = entry.get("function")
    function = function if isinstance(function, dict) else {}
    arguments = function.get("arguments", "{}")
    return ToolCall(
        str(entry.get("id", ""))[:128],
        str(function.get("name", "?"))[:64],
        arguments if isinstance(arguments, str) else json.dumps(arguments),
    )


def _count(value: object) -> int:
    """A token count as sent (a non-negative integer), else 0."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0
