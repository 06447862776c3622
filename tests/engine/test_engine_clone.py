"""``Game.clone()`` copies every slot: a slot added without cloning it fails here.

``clone`` is written out slot by slot for speed (search bots clone at every node), so nothing but
this test stops a new slot from being forgotten. It checks the source (every attribute a ``Game``
sets is a listed slot, and ``clone`` assigns every one) and the behaviour: at positions of every
phase, with events on and off, the clone holds every slot, equal to the original's and sharing
no mutable part with it; playing the clone to its end leaves the original exactly as it was.
"""

from __future__ import annotations

import ast
import copy
import random
from pathlib import Path
from typing import Any

import pytest
import rookery.engine
from rookery.engine import PASS, PRESETS, Bid, Phase
from rookery.engine._game import _FIELDS, Game

ENGINE = Path(rookery.engine.__file__).resolve().parent
SOURCE = ENGINE / "_game.py"
#: The modules whose functions set a game's slots: the class and its phases (``_game_*.py``).
PHASES = sorted(ENGINE.glob("_game_*.py"))
#: Slots that ``clone`` may reset rather than copy (a cache rebuilt on demand): none today.
RESET: set[str] = set()


def _game_class() -> ast.ClassDef:
    tree = ast.parse(SOURCE.read_text(encoding="utf-8"))
    return next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Game")


def _assigned(node: ast.AST, names: set[str]) -> set[str]:
    """The attributes assigned on any of the variables ``names`` inside ``node``."""
    found = set()
    for child in ast.walk(node):
        targets: list[ast.expr] = []
        if isinstance(child, ast.Assign):
            targets = child.targets
        elif isinstance(child, ast.AnnAssign | ast.AugAssign):
            targets = [child.target]
        for target in targets:
            for part in ast.walk(target):
                if (
                    isinstance(part, ast.Attribute)
                    and isinstance(part.value, ast.Name)
                    and part.value.id in names
                ):
                    found.add(part.attr)
    return found


def test_every_attribute_a_game_sets_is_a_slot_and_clone_assigns_every_slot() -> None:
    game_class = _game_class()
    assert set(_assigned(game_class, {"self", "game", "other"})) <= set(_FIELDS)
    assert PHASES, "the game's phase modules (_game_*.py) were not found"
    for module in PHASES:
        tree = ast.parse(module.read_text(encoding="utf-8"))
        stray = _assigned(tree, {"self", "game", "other"}) - set(_FIELDS)
        assert not stray, f"{module.name} sets {sorted(stray)}, which are not Game slots"
    assert len(set(_FIELDS)) == len(_FIELDS)
    clone = next(n for n in game_class.body if isinstance(n, ast.FunctionDef) and n.name == "clone")
    missing = set(_FIELDS) - _assigned(clone, {"other"})
    assert not missing, f"Game.clone() does not copy {sorted(missing)}"


def _shared_mutables(ours: Any, theirs: Any, path: str) -> list[str]:
    """The paths at which ``ours`` and ``theirs`` hold one and the same mutable object."""
    if isinstance(ours, list | dict | set | bytearray):
        if ours is theirs:
            return [path]
        if isinstance(ours, list) and isinstance(theirs, list):
            return [
                found
                for index, (a, b) in enumerate(zip(ours, theirs, strict=False))
                for found in _shared_mutables(a, b, f"{path}[{index}]")
            ]
        return []
    if isinstance(ours, tuple) and isinstance(theirs, tuple):
        return [
            found
            for index, (a, b) in enumerate(zip(ours, theirs, strict=False))
            for found in _shared_mutables(a, b, f"{path}[{index}]")
        ]
    return []


def _positions(events: bool) -> list[Game]:
    """Games stopped in every phase: the auction, each step of the exchange, mid-trick, a trick's
    end, a later hand, the end (each rebuilt from the first game's actions up to that point)."""
    found = []
    for name in ("standard", "called-partner", "nest-4", "straight"):
        rules = PRESETS[name].replace(max_hands=3)
        rng = random.Random(name)
        game = Game(rules, 5, events=False)
        stops: dict[object, int] = {}
        while not game.is_over:
            key: object = (game.phase, game.hand_number)
            stops.setdefault(key, len(game.actions))
            stops.setdefault((key, len(game.actions) % 4), len(game.actions))
            legal = game.legal_actions()
            if legal.phase is Phase.BIDDING:
                game.apply(Bid(legal.bids[0]) if legal.bids and rng.random() < 0.4 else PASS)
            else:
                game.apply(legal.sample(rng))
        actions = [action for _, action in game.actions]
        for stop in [*sorted(set(stops.values())), len(actions)]:
            position = Game(rules, 5, events=events)
            for action in actions[:stop]:
                position.apply(action)
            found.append(position)
    phases = {game.phase for game in found}
    assert phases == set(Phase), phases
    return found


@pytest.mark.parametrize("events", [True, False])
def test_a_clone_copies_every_slot_and_playing_it_leaves_the_original_alone(events: bool) -> None:
    for game in _positions(events):
        if not events:
            game.observation_for(0)  # an observation changes nothing a clone copies
        before = {name: copy.deepcopy(getattr(game, name)) for name in _FIELDS}
        other = game.clone()
        for name in _FIELDS:
            value = getattr(other, name)  # AttributeError: a slot clone() forgot
            if name not in RESET:
                assert value == getattr(game, name), name
                assert not _shared_mutables(getattr(game, name), value, name)
        rng = random.Random(1)
        while not other.is_over:
            other.apply(other.legal_actions().sample(rng))
        other.observation_for(-1)
        for name in _FIELDS:
            assert getattr(game, name) == before[name], f"playing the clone changed {name}"
        # and the clone of the original still plays the same game as the original
        again = game.clone()
        rng, rng_again = random.Random(2), random.Random(2)
        while not game.is_over:
            game.apply(game.legal_actions().sample(rng))
            again.apply(again.legal_actions().sample(rng_again))
        assert again.actions == game.actions and again.result == game.result
