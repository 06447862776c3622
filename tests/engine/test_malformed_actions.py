"""Malformed input of every kind gets the same ``MalformedActionError`` from every build.

Wrong types (a text, ``None``, a float, a ``bool`` where an int is due), card indices outside
0..57, masks outside the deck and things that are not actions at all are refused in every phase
with ``MalformedActionError`` and the same message by the pure ``Game`` (``_game.py``), by ``Game``
on the native core where it is built, and by ``rookery.engine.Game`` as this process chose it
(``make test`` runs this folder again with ``ROOKERY_PURE_ENGINE=1``), and nothing changes.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from rookery.engine import (
    PASS,
    Action,
    Bid,
    Bury,
    CallCard,
    Game,
    MalformedActionError,
    NameTrump,
    Pass,
    Phase,
    PlayCard,
    Ruleset,
)
from rookery.engine._core import on_core
from rookery.engine._game import Game as PureGame

BUILDS: list[Any] = [PureGame, Game]
if on_core:
    from rookery.engine._core_game import CoreGame

    BUILDS.append(CoreGame)

MALFORMED: list[Any] = [
    PlayCard("R5"),  # type: ignore[arg-type]
    PlayCard(None),  # type: ignore[arg-type]
    PlayCard(True),
    PlayCard(3.0),  # type: ignore[arg-type]
    PlayCard(-1),
    PlayCard(58),
    PlayCard(2**70),
    PlayCard(-(2**70)),
    CallCard("ROOK"),  # type: ignore[arg-type]
    CallCard(None),  # type: ignore[arg-type]
    CallCard(False),
    CallCard(2**64),
    Bid("70"),  # type: ignore[arg-type]
    Bid(70.0),  # type: ignore[arg-type]
    Bid(None),  # type: ignore[arg-type]
    Bid(True),
    NameTrump("R"),  # type: ignore[arg-type]
    NameTrump(7),  # type: ignore[arg-type]
    NameTrump(1.0),  # type: ignore[arg-type]
    NameTrump(True),  # type: ignore[arg-type]
    NameTrump(None),  # type: ignore[arg-type]
    Bury(-5),
    Bury("B5"),  # type: ignore[arg-type]
    Bury(None),  # type: ignore[arg-type]
    Bury(True),
    Bury(2**70 | 1),  # a mask past the deck's 58 cards
    Bury(1 << 63),
    "play R5",
    None,
    42,
    Pass,  # the class, not an action
    PlayCard,
]


def positions(preset: str) -> dict[Phase, list[Action]]:
    """The actions leading to the first position of each phase of one random game."""
    ruleset = Ruleset.preset(preset)
    game, rng = PureGame(ruleset, 4), random.Random(4)
    found: dict[Phase, list[Action]] = {}
    while not game.is_over:
        if game.phase not in found:
            found[game.phase] = [action for _, action in game.actions]
        legal = game.legal_actions()
        bid = legal.phase is Phase.BIDDING and legal.bids and rng.random() < 0.5
        game.apply(Bid(legal.bids[0]) if bid else legal.sample(rng))
    found.setdefault(game.phase, [action for _, action in game.actions])
    return found


@pytest.mark.parametrize("preset", ["standard", "called-partner"])
def test_malformed_actions_are_refused_alike_by_every_build_in_every_phase(preset: str) -> None:
    ruleset = Ruleset.preset(preset)
    phases = positions(preset)
    assert set(phases) == set(Phase) - ({Phase.CALL} if preset == "standard" else set())
    for phase, script in phases.items():
        for action in MALFORMED:
            messages = set()
            for build in BUILDS:
                game = build(ruleset, 4)
                for step in script:
                    game.apply(step)
                before = (game.actions, game.observation_for(-1), game.legal_actions())
                with pytest.raises(MalformedActionError) as refused:
                    game.apply(action)
                assert (game.actions, game.observation_for(-1), game.legal_actions()) == before
                messages.add(str(refused.value))
            assert len(messages) == 1, (phase, action, messages)


def test_a_malformed_card_is_refused_before_the_phase_is_checked() -> None:
    # During the auction a play of a card outside the deck is malformed, not out of phase.
    for build in BUILDS:
        game = build(Ruleset.preset("standard"), 1)
        game.apply(PASS)
        with pytest.raises(MalformedActionError, match=r"play: not a card index 0\.\.57: 99"):
            game.apply(PlayCard(99))
