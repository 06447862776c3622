"""``HandSimulation.clone()`` copies every slot: a slot added without cloning it fails here.

The clone is written out slot by slot (it runs for every candidate card of every sample, and the
compiled build cannot copy slots generically), so this test reads the class's ``__slots__`` and
``clone`` from the source, then clones simulations in mid-hand: every slot is there, equal to the
original's and sharing no mutable part with it, and playing the clone out leaves the original as
it was.
"""

from __future__ import annotations

import ast
import copy
import random
from pathlib import Path

import rookery.client.bots._simulate as simulate
from rookery.client.bots import HeuristicPolicy
from rookery.client.bots._simulate import HandSimulation
from rookery.engine import PRESETS, Game, Phase

SOURCE = Path(simulate.__file__).resolve().with_name("_simulate.py")
#: Slots ``clone`` rebuilds rather than copies: the scratch view the seats play from.
RESET = {"view"}


def _class() -> ast.ClassDef:
    tree = ast.parse(SOURCE.read_text(encoding="utf-8"))
    return next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "HandSimulation")


def _slots() -> list[str]:
    for node in _class().body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__slots__" for t in node.targets
        ):
            value = ast.literal_eval(node.value)
            assert isinstance(value, tuple)
            return [str(name) for name in value]
    raise AssertionError("HandSimulation has no __slots__")


def test_clone_assigns_every_slot() -> None:
    clone = next(n for n in _class().body if isinstance(n, ast.FunctionDef) and n.name == "clone")
    assigned = {
        target.attr
        for node in ast.walk(clone)
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Attribute)
        and isinstance(target.value, ast.Name)
        and target.value.id == "other"
    }
    missing = set(_slots()) - assigned
    assert not missing, f"HandSimulation.clone() does not copy {sorted(missing)}"


def test_a_clone_holds_every_slot_and_playing_it_leaves_the_original_alone() -> None:
    slots = _slots()
    heuristic = HeuristicPolicy()
    for name in ("standard", "called-partner", "cutthroat"):
        rules = PRESETS[name].replace(max_hands=1)
        for seed in range(3):
            rng = random.Random(seed)
            game = Game(rules, 40 + seed, events=False)
            stop = 3 + 7 * seed
            while game.phase is not Phase.PLAY or stop:
                seat = game.current_player
                assert seat is not None
                obs = game.observation_for(seat)
                stop -= obs.phase is Phase.PLAY
                game.apply(heuristic(obs, obs.legal_actions(), rng))
            seat = game.current_player
            assert seat is not None
            sim = HandSimulation.from_observation(game.observation_for(seat), list(game.hands))
            before = {
                slot: copy.deepcopy(getattr(sim, slot)) for slot in slots if slot not in RESET
            }
            other = sim.clone()
            for slot in slots:
                value = getattr(other, slot)  # AttributeError: a slot clone() forgot
                if slot in RESET:
                    continue
                assert value == getattr(sim, slot), slot
                if isinstance(value, list):
                    assert value is not getattr(sim, slot), f"clone() shares {slot}"
            other.play_out()
            for slot, value in before.items():
                assert getattr(sim, slot) == value, f"playing the clone changed {slot}"
