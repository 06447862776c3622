"""The text seat's parser commits only to the one answer format the prompt states: a last line
``MOVE: <move>``. Every trap below once was (or could be) read as a move; each must be refused as
an invalid reply, with a message that says what to send."""

from __future__ import annotations

import doctest
import random

import pytest
from rookery.engine import Bid, Game, Observation, Phase, Ruleset
from rookery.envs import text
from rookery.envs.text import (
    ANSWER_FORMAT,
    ReplyError,
    TextSeat,
    decision_prompt,
    parse_reply,
    rules_summary,
    scripted_agent,
    stated_reason,
)


def _observation_in(phase: Phase, seed: int = 4) -> Observation:
    game = Game(Ruleset.preset("standard"), seed, events=False)
    rng = random.Random(seed)
    while game.phase is not phase:
        game.apply(game.legal_actions().sample(rng))
    seat = game.current_player
    assert seat is not None
    return game.observation_for(seat)


def _opening_bid() -> Observation:
    """The first seat to bid: pass and every bid from 70 are legal."""
    return Game(Ruleset.preset("standard"), 1).observation_for(1)


TRAPS = [
    ("I will definitely not pass.", "does not end with a line 'MOVE: <move>'"),
    ("Should I bid 70?", "does not end with a line 'MOVE: <move>'"),
    ("Seat 2 played R14, so I follow low.", "does not end with a line 'MOVE: <move>'"),
    ("pass", "does not end with a line 'MOVE: <move>'"),
    ("move pass", "does not end with a line 'MOVE: <move>'"),
    ("MOVE: bid 70\nOn second thought, maybe not.", "does not end with a line"),
    ("My move: pass", "does not end with a line 'MOVE: <move>'"),
    ("MOVE: I will not pass", "is not one move written as listed"),
    ("MOVE: not pass", "is not one move written as listed"),
    ("MOVE: pass?", "is not one move written as listed"),
    ("MOVE: bid 70?", "is not one move written as listed"),
    ("MOVE: bid 70 or pass", "is not one move written as listed"),
    ("MOVE: bid 70 (maybe 75)", "is not one move written as listed"),
    ("MOVE: bid seventy", "is not one move written as listed"),
    ("MOVE: pass pass", "is not one move written as listed"),
    ("MOVE:", "is not one move written as listed"),
    ("MOVE: bid 70\nMOVE: pass", "2 lines starting with 'MOVE:'"),
    ("MOVE: play R14", "is not legal now"),
    ("MOVE: bid 71", "is not legal now"),
    ("", "does not end with a line 'MOVE: <move>' (its last line: '(empty)')"),
]


@pytest.mark.parametrize(("reply", "why"), TRAPS, ids=[r[:30] or "empty" for r, _ in TRAPS])
def test_a_reply_that_commits_to_nothing_is_invalid(reply: str, why: str) -> None:
    legal = _opening_bid().legal_actions()
    with pytest.raises(ReplyError) as caught:
        parse_reply(reply, legal)
    assert why in str(caught.value)


ANSWERS = [
    ("MOVE: bid 70", "bid 70"),
    ("I hold four 14s, so I open.\nMOVE: bid 70", "bid 70"),
    ("Weak hand; I will not bid.\n\nmove: PASS\n", "pass"),
    ("**MOVE: pass**", "pass"),
    ("Reasoning first.\n`MOVE: bid 75`", "bid 75"),
    ("MOVE: bid 80.", "bid 80"),
]


@pytest.mark.parametrize(("reply", "move"), ANSWERS, ids=[m for _, m in ANSWERS])
def test_the_stated_format_is_played_as_written(reply: str, move: str) -> None:
    legal = _opening_bid().legal_actions()
    assert str(parse_reply(reply, legal)) == move


def test_a_card_named_in_the_reasoning_is_not_the_move() -> None:
    obs = _observation_in(Phase.PLAY)
    legal = obs.legal_actions()
    mine = str(legal[0])
    with pytest.raises(ReplyError, match="does not end with a line"):
        parse_reply(f"Seat 2 led, and I could {mine} here, or not.", legal)
    assert parse_reply(f"Seat 2 led; I follow.\nMOVE: {mine}", legal) == legal[0]


def test_a_bury_may_list_its_cards_with_commas_on_the_move_line() -> None:
    obs = _observation_in(Phase.BURY)
    legal = obs.legal_actions()
    example = decision_prompt(obs, legal).split("(for example: ")[1].split(")")[0]
    cards = example.split()[1:]
    action = parse_reply(f"I bury the losers.\nMOVE: bury {', '.join(cards)}", legal)
    assert action in legal and str(action) == example


def test_the_prompt_states_the_one_format_it_accepts() -> None:
    obs = _opening_bid()
    assert ANSWER_FORMAT == "MOVE: <move>"
    assert decision_prompt(obs, obs.legal_actions()).endswith(
        "End your reply with one line: MOVE: <move>"
    )
    summary = rules_summary(obs.ruleset)
    assert "end your reply with one line 'MOVE: <move>'" in summary
    assert "a reply without it is invalid" in summary


def test_the_reasoning_before_the_move_line_is_the_stated_reason() -> None:
    assert stated_reason("Cheap opening.\nI hold the Rook.\nMOVE: bid 70") == (
        "Cheap opening.\nI hold the Rook."
    )
    assert stated_reason("MOVE: pass") == ""


async def test_each_trap_costs_an_attempt_and_is_answered_with_why() -> None:
    obs = _opening_bid()
    agent = scripted_agent(["I will definitely not pass.", "Should I bid 70?", "MOVE: bid 70"])
    decision = await TextSeat(agent, retries=2).decide(obs)
    assert decision.outcome == "answered" and decision.action == Bid(70)
    assert decision.attempts == 3 and len(decision.errors) == 2
    retry = [m["content"] for m in decision.transcript if m["role"] == "user"][1:]
    assert all("does not end with a line 'MOVE: <move>'" in r for r in retry)


def test_the_module_doctests_pass() -> None:
    assert doctest.testmod(text).failed == 0
