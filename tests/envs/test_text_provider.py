"""A provider's failures against the text seat, from a scripted OpenAI-compatible server on
loopback: transient errors retried a bounded number of times with a back-off that never runs
past the seat's time, a client error not retried, a tool call with no text an invalid reply, and
every request's tokens summed in the decision."""

from __future__ import annotations

import time

import pytest
from chat_server import chat_server
from rookery.engine import Game, Observation, Ruleset
from rookery.envs.chat import ChatEndpoint
from rookery.envs.text import ProviderError, TextSeat


def _opening_bid() -> Observation:
    return Game(Ruleset.preset("standard"), 1).observation_for(1)


def _seat(url: str, **options: float) -> TextSeat:
    settings = {"retries": 2, "provider_retries": 2, "backoff_s": 0.01} | options
    return TextSeat(
        ChatEndpoint(url, "m", timeout_s=5.0),
        retries=int(settings["retries"]),
        provider_retries=int(settings["provider_retries"]),
        backoff_s=settings["backoff_s"],
    )


async def test_an_http_500_is_retried_and_the_answer_played() -> None:
    obs = _opening_bid()
    with chat_server("legal", {0: "500"}) as (url, script):
        decision = await _seat(url).decide(obs)
    assert decision.outcome == "answered" and decision.action in obs.legal_actions()
    assert (decision.attempts, decision.provider_errors, decision.invalid_replies) == (2, 1, 0)
    assert len(script.requests) == 2 and decision.errors[0].startswith("http_500: ")


async def test_a_429_is_retried_after_the_providers_retry_after_not_the_back_off() -> None:
    obs = _opening_bid()
    with chat_server("legal", {0: "429", 1: "429"}) as (url, _):
        started = time.monotonic()
        decision = await _seat(url, backoff_s=1.5).decide(obs)
    assert decision.outcome == "answered" and decision.provider_errors == 2
    assert time.monotonic() - started < 1.5  # Retry-After: 0, not 1.5 s then 3 s


async def test_a_provider_that_keeps_failing_gets_no_move_after_the_bounded_retries() -> None:
    obs = _opening_bid()
    with chat_server("500") as (url, script):
        decision = await _seat(url, provider_retries=3).decide(obs)
    assert decision.outcome == "provider_error" and decision.action is None
    assert decision.attempts == decision.provider_errors == 4 == len(script.requests)


async def test_a_client_error_is_not_retried() -> None:
    obs = _opening_bid()
    with chat_server("401") as (url, script):
        decision = await _seat(url).decide(obs)
    assert decision.outcome == "provider_error" and len(script.requests) == 1
    assert decision.errors == (
        f"http_401: the chat endpoint {url}/chat/completions answered HTTP 401",
    )


async def test_a_tool_call_with_no_text_is_an_invalid_reply_re_prompted_with_why() -> None:
    obs = _opening_bid()
    with chat_server("legal", {0: "tool"}) as (url, script):
        decision = await _seat(url).decide(obs)
    assert decision.outcome == "answered"
    assert (decision.attempts, decision.invalid_replies, decision.provider_errors) == (2, 1, 0)
    retry = script.requests[1]["body"]["messages"]
    assert retry[-2] == {"role": "assistant", "content": ""}
    assert retry[-1]["content"].startswith(
        "your reply was a tool call (get_legal_moves), with no text: this seat offers no tools"
    )


async def test_tool_calls_until_the_retries_run_out_give_up() -> None:
    obs = _opening_bid()
    with chat_server("tool") as (url, script):
        decision = await _seat(url, retries=1).decide(obs)
    assert decision.outcome == "gave_up" and decision.action is None
    assert decision.invalid_replies == 2 == len(script.requests)


async def test_the_tokens_of_every_request_are_summed_as_the_provider_counted_them() -> None:
    obs = _opening_bid()
    with chat_server("legal", {0: "garbage", 1: "tool"}) as (url, script):
        decision = await _seat(url).decide(obs)
    assert decision.outcome == "answered" and decision.attempts == 3
    assert decision.prompt_tokens == script.sent["prompt_tokens"] > 0
    assert decision.completion_tokens == script.sent["completion_tokens"] > 0


async def test_the_back_off_never_runs_past_the_time_left() -> None:
    obs = _opening_bid()
    with chat_server("500") as (url, script):
        seat = TextSeat(
            ChatEndpoint(url, "m"), provider_retries=5, backoff_s=1.0, time_left=lambda: 0.5
        )
        started = time.monotonic()
        decision = await seat.decide(obs)
    assert decision.outcome == "provider_error" and len(script.requests) == 1
    assert time.monotonic() - started < 0.5


async def test_a_timeout_and_a_refused_connection_are_transient_a_404_is_not() -> None:
    with chat_server("slow") as (url, _), pytest.raises(ProviderError) as slow:
        await ChatEndpoint(url, "m", timeout_s=0.3)([{"role": "user", "content": "x"}])
    with pytest.raises(ProviderError) as refused:
        await ChatEndpoint("http://127.0.0.1:9/v1", "m", timeout_s=1.0)([])
    with chat_server("legal") as (url, _), pytest.raises(ProviderError) as missing:
        await ChatEndpoint(url.removesuffix("/v1") + "/nowhere", "m")([])
    assert (slow.value.kind, slow.value.transient) == ("timeout", True)
    assert (refused.value.kind, refused.value.transient) == ("unreachable", True)
    assert missing.value.transient is False
