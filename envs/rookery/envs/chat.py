"""An agent behind an OpenAI-compatible chat endpoint (``POST {url}/chat/completions``).

The URL and the model come from the configuration; an API key, if any, only from the
environment (``ROOKERY_CHAT_KEY``) and never into a log line or an error message. Every failure of
the provider (connection refused, HTTP error, timeout, a response that is not a chat completion)
is a :class:`~rookery.envs.text.ProviderError`, which the text seat records as an incident.
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from dataclasses import dataclass, field

import structlog

from .text import Message, ProviderError

__all__ = ["ChatEndpoint"]

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

    async def __call__(self, messages: list[Message], timeout_s: float | None = None) -> str:
        """The reply's text; ``ProviderError`` on any failure of the provider."""
        timeout = self.timeout_s if timeout_s is None else min(timeout_s, self.timeout_s)
        return await asyncio.to_thread(self._post, messages, max(0.05, timeout))

    def _post(self, messages: list[Message], timeout: float) -> str:
        body = json.dumps(
            {"model": self.model, "messages": messages, "temperature": self.temperature}
        ).encode()
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        request = urllib.request.Request(self.endpoint, data=body, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                payload = response.read()
        except urllib.error.HTTPError as error:
            log.warning(
                "chat provider error", url=self.endpoint, model=self.model, status=error.code
            )
            raise ProviderError(
                f"http_{error.code}",
                f"the chat endpoint {self.endpoint} answered HTTP {error.code}",
            ) from None
        except TimeoutError:
            log.warning(
                "chat provider timeout", url=self.endpoint, model=self.model, timeout_s=timeout
            )
            raise ProviderError(
                "timeout",
                f"the chat endpoint {self.endpoint} did not answer within {timeout:.1f} s",
            ) from None
        except (urllib.error.URLError, OSError) as error:
            reason = getattr(error, "reason", error)
            log.warning("chat provider unreachable", url=self.endpoint, reason=str(reason))
            raise ProviderError(
                "unreachable", f"cannot reach the chat endpoint {self.endpoint}: {reason}"
            ) from None
        try:
            data = json.loads(payload)
            content = data["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise ProviderError(
                "bad_response",
                f"the chat endpoint {self.endpoint} sent no choices[0].message.content",
            ) from None
        if not isinstance(content, str):
            raise ProviderError("bad_response", "the reply's content is not text")
        return content
