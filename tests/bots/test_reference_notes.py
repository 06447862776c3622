"""The reference bots' notes: pimc its samples and the best and second-best expected worth,
heuristic its reason; and the SDK's ``Bot.note`` bounds."""

from __future__ import annotations

import random

import pytest
from rookery.client import Bot
from rookery.client.bots import HeuristicBot, HeuristicPolicy, PimcBot, PimcParameters
from rookery.engine import PRESETS, Game, Observation, Phase


def _observation(phase: Phase) -> Observation:
    """The first observation of ``phase`` in a standard game the heuristic plays."""
    game = Game(PRESETS["standard"], 3, events=False)
    heuristic = HeuristicPolicy()
    rng = random.Random(3)
    while game.phase is not phase:
        seat = game.current_player
        assert seat is not None
        obs = game.observation_for(seat)
        game.apply(heuristic(obs, obs.legal_actions(), rng))
    seat = game.current_player
    assert seat is not None
    return game.observation_for(seat)


def test_pimc_notes_its_samples_and_the_two_best_expected_worths() -> None:
    bot = PimcBot(PimcParameters(samples=24, time_budget=None))
    obs = _observation(Phase.PLAY)
    action = bot.act(obs)
    assert action in obs.legal_actions()
    note = bot.pending_note
    assert note is not None
    values = dict(note.values)
    assert values["samples"] == 24
    assert values["best"] >= values["second"]
    assert note.text == (f"24 samples: best {values['best']:.3f}, second {values['second']:.3f}")


def test_heuristic_notes_its_reason() -> None:
    bot = HeuristicBot()
    obs = _observation(Phase.BIDDING)
    action = bot.act(obs)
    note = bot.pending_note
    assert note is not None
    assert note.text.startswith("pass" if str(action) == "pass" else "bid")
    assert note.values["limit"] == HeuristicPolicy().bid_limit(obs)


@pytest.mark.parametrize(
    ("text", "values", "message"),
    [
        ("x" * 513, {}, "note.text is 513 bytes of UTF-8; at most 512 are allowed"),
        ("", {f"v{i}": 1.0 for i in range(17)}, "note.values has 17 entries"),
        ("", {"ok": float("inf")}, "note value 'ok' is inf; values must be finite"),
        ("", {"x" * 33: 1.0}, "is not 1 to 32 characters of [A-Za-z0-9_.-]"),
    ],
)
def test_a_note_past_its_bounds_raises_in_the_hook(
    text: str, values: dict[str, float], message: str
) -> None:
    bot = Bot()
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace(".", r"\.")):
        bot.note(text, **values)
    assert bot.pending_note is None
