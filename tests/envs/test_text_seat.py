"""The text seat: prompts, parsing, bounded retries, never an invented move; the HTTP adapter
against a scripted OpenAI-compatible server on loopback."""

from __future__ import annotations

import random

import pytest
from chat_server import chat_server
from rookery.engine import Bid, Game, Observation, Phase, PlayCard, Ruleset
from rookery.envs.chat import ChatEndpoint
from rookery.envs.text import (
    ProviderError,
    ReplyError,
    TextSeat,
    decision_prompt,
    parse_reply,
    rules_summary,
    scripted_agent,
)


def _observation_in(phase: Phase, seed: int = 4) -> Observation:
    game = Game(Ruleset.preset("standard"), seed, events=False)
    rng = random.Random(seed)
    while game.phase is not phase:
        game.apply(game.legal_actions().sample(rng))
    seat = game.current_player
    assert seat is not None
    return game.observation_for(seat)


def test_the_prompt_gives_the_rules_once_then_the_view_and_the_legal_moves() -> None:
    obs = _observation_in(Phase.PLAY)
    summary = rules_summary(obs.ruleset)
    assert "a multiple of 5, at least 70 and above the high bid, at most 120" in summary
    prompt = decision_prompt(obs, obs.legal_actions())
    assert "Your hand: " in prompt and "Your legal moves: play " in prompt
    assert "a multiple of" not in prompt  # the rules are in the system message only
    others = [s for s in range(4) if s != obs.seat]
    assert all(f"seat {s} holds" not in prompt for s in others)


def test_a_reply_may_reason_before_its_last_line_move() -> None:
    obs = _observation_in(Phase.BIDDING)
    legal = obs.legal_actions()
    reply = "Bidding 120 would be reckless, so I will pass.\nMOVE: pass"
    assert str(parse_reply(reply, legal)) == "pass"
    assert parse_reply("move: BID 70", legal) == Bid(70)


def test_an_illegal_or_ambiguous_or_empty_reply_gets_a_precise_message() -> None:
    obs = _observation_in(Phase.PLAY)
    legal = obs.legal_actions()
    illegal = next(c for c in range(56) if PlayCard(c) not in legal)
    with pytest.raises(ReplyError, match=r"'play \w+' is not legal now\. Legal moves: play "):
        parse_reply(f"MOVE: {PlayCard(illegal)}", legal)
    with pytest.raises(ReplyError, match="is not one move written as listed"):
        parse_reply("MOVE: play R14 or play B5", legal)
    with pytest.raises(ReplyError, match="does not end with a line 'MOVE: <move>'"):
        parse_reply("hmm", legal)
    with pytest.raises(ReplyError, match="is not one move written as listed"):
        parse_reply("MOVE: bury ROOK ROOK", legal)


async def test_a_legal_answer_over_http_is_played_at_the_first_attempt() -> None:
    obs = _observation_in(Phase.PLAY)
    with chat_server("legal") as (url, script):
        seat = TextSeat(ChatEndpoint(url, "scripted-1", api_key="sk-test-secret"), retries=2)
        decision = await seat.decide(obs)
    assert decision.outcome == "answered" and decision.attempts == 1
    assert decision.action == obs.legal_actions()[0]
    request = script.requests[0]
    assert request["path"] == "/v1/chat/completions"
    assert request["body"]["model"] == "scripted-1"
    assert request["auth"] == "Bearer sk-test-secret"
    assert request["body"]["messages"][0]["role"] == "system"


async def test_an_illegal_then_legal_answer_is_retried_with_the_reason() -> None:
    obs = _observation_in(Phase.BIDDING)
    with chat_server("illegal_then_legal") as (url, script):
        decision = await TextSeat(ChatEndpoint(url, "m"), retries=2).decide(obs)
    assert decision.outcome == "answered" and decision.attempts == 2
    assert decision.action in obs.legal_actions()
    assert "'bid 3' is not legal now" in decision.errors[0]
    retry = script.requests[1]["body"]["messages"]
    assert retry[-2] == {"role": "assistant", "content": "Easy.\nMOVE: bid 3"}
    assert retry[-1]["content"].startswith("'bid 3' is not legal now")


async def test_garbage_until_the_retries_run_out_gives_no_move() -> None:
    obs = _observation_in(Phase.PLAY)
    with chat_server("garbage") as (url, script):
        decision = await TextSeat(ChatEndpoint(url, "m"), retries=2).decide(obs)
    assert decision.outcome == "gave_up" and decision.action is None
    assert decision.attempts == 3 and len(script.requests) == 3
    assert all("does not end with a line 'MOVE: <move>'" in e for e in decision.errors)


async def test_a_provider_error_is_retried_then_no_move_is_given() -> None:
    obs = _observation_in(Phase.PLAY)
    with chat_server("error") as (url, script):
        endpoint = ChatEndpoint(url, "m", api_key="sk-hidden")
        decision = await TextSeat(endpoint, retries=2, backoff_s=0.01).decide(obs)
    assert decision.outcome == "provider_error" and decision.action is None
    assert decision.attempts == decision.provider_errors == 3 == len(script.requests)
    assert decision.errors[0].startswith("http_500: ")
    assert all("sk-hidden" not in e for e in decision.errors)


async def test_a_provider_timeout_is_a_provider_error() -> None:
    obs = _observation_in(Phase.PLAY)
    with chat_server("slow") as (url, _):
        endpoint = ChatEndpoint(url, "m", timeout_s=0.3)
        with pytest.raises(ProviderError) as caught:
            await endpoint([{"role": "user", "content": "x"}])
    assert caught.value.kind == "timeout"
    assert obs.phase is Phase.PLAY


async def test_an_unreachable_provider_is_a_provider_error() -> None:
    endpoint = ChatEndpoint("http://127.0.0.1:9/v1", "m", timeout_s=1.0)
    with pytest.raises(ProviderError) as caught:
        await endpoint([{"role": "user", "content": "x"}])
    assert caught.value.kind == "unreachable"


async def test_a_scripted_agent_plays_a_bury_by_text() -> None:
    obs = _observation_in(Phase.BURY)
    legal = obs.legal_actions()
    example = decision_prompt(obs, legal).split("(for example: ")[1].split(")")[0]
    decision = await TextSeat(scripted_agent([f"MOVE: {example}"])).decide(obs)
    assert decision.outcome == "answered" and decision.action in legal


def test_the_endpoint_refuses_a_bad_configuration_and_hides_the_key() -> None:
    with pytest.raises(ValueError, match="must start with http"):
        ChatEndpoint("ftp://x", "m")
    with pytest.raises(ValueError, match="model must be named"):
        ChatEndpoint("http://x", "")
    assert "sk-1" not in repr(ChatEndpoint("http://x", "m", api_key="sk-1"))


def test_the_text_seat_bot_names_the_missing_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    from rookery.envs.seat import TextSeatBot

    monkeypatch.delenv("ROOKERY_CHAT_URL", raising=False)
    monkeypatch.setenv("ROOKERY_CHAT_MODEL", "m")
    with pytest.raises(ValueError, match="needs ROOKERY_CHAT_URL \\(an OpenAI"):
        TextSeatBot()


async def test_the_bot_ends_a_slow_agent_before_the_deadline_as_a_provider_timeout() -> None:
    import asyncio
    import time

    from rookery.client import NoAnswer
    from rookery.envs.seat import TextSeatBot

    async def slow(messages: list[dict[str, str]]) -> str:
        await asyncio.sleep(5)
        return "move: pass"

    bot = TextSeatBot(slow, retries=2)
    bot.deadline = time.monotonic() + 1.0
    obs = _observation_in(Phase.BIDDING)
    started = time.monotonic()
    with pytest.raises(NoAnswer, match="provider failed 1 time\\(s\\); last: timeout"):
        await bot.act(obs)
    assert time.monotonic() - started < 0.85
    assert bot.seat.decisions[-1].outcome == "provider_error"
