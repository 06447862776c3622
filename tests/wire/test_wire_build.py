"""The compiled wire hot modules and the pure ones: which runs, and that they convert alike.

``make setup`` compiles ``rookery.wire.convert`` and ``rookery.wire.protobytes`` with mypyc
where a C compiler exists (``wire/compile_wire.py``); ``ROOKERY_PURE_ENGINE=1`` forces the pure
modules of it and of the engine (``make test`` runs ``tests/wire`` on both builds).
"""

from __future__ import annotations

from pathlib import Path

from rookery.engine.testing import assert_build_info, assert_builds_alike, load_build_script
from rookery.wire import wire_build

ROOT = Path(__file__).resolve().parents[2]
compile_wire = load_build_script(ROOT / "wire" / "compile_wire.py")
# Whether `make setup` can build the compiled wire modules here (a C compiler, headers, mypyc).
BUILDABLE = compile_wire.why_not() is None

# Whole games of every preset through the conversions both ways: every seat's observation and
# the legal actions encoded, decoded (with and without the earlier observation and the card
# masks) and encoded again, every action and event, the result; prints a digest per game.
_PLAY = r"""
import dataclasses, hashlib, json, random
from rookery.engine import PRESETS, Game, random_playout
from rookery.wire import convert, wire_build
print(json.dumps({"kind": wire_build().kind, "module": convert.__file__}))
for name in sorted(PRESETS):
    ruleset = dataclasses.replace(PRESETS[name], max_hands=3)
    for seed in (1, 2):
        played = random_playout(ruleset, seed, random.Random(seed))
        game, digest, earlier = Game(ruleset, seed), hashlib.sha256(), {}
        for seat_to_act, action in played.actions:
            legal = game.legal_actions()
            for seat in range(-1, ruleset.players):
                observation = game.observation_for(seat)
                proto = convert.observation_to_proto(observation)
                digest.update(proto.SerializeToString())
                masks = convert.card_masks_to_proto(observation, legal)
                for known, cards in ((None, None), (earlier.get(seat), masks)):
                    back = convert.observation_from_proto(proto, earlier=known, masks=cards)
                    assert back == observation, (name, seed, seat)
                    digest.update(repr(back).encode())
                earlier[seat] = observation
            legal_proto = convert.legal_actions_to_proto(legal)
            digest.update(legal_proto.SerializeToString())
            digest.update(repr(convert.legal_actions_from_proto(legal_proto)).encode())
            action_proto = convert.action_to_proto(action)
            assert convert.action_from_proto(action_proto) == action
            digest.update(action_proto.SerializeToString())
            game.apply(action)
        for event in game.events:
            for seat in (None, *range(ruleset.players)):
                digest.update(convert.event_to_proto(event, ruleset, seat).SerializeToString())
        result = convert.game_result_to_proto(game.result)
        digest.update(result.SerializeToString())
        digest.update(repr(convert.game_result_from_proto(result)).encode())
        print(json.dumps({"game": f"{name}/{seed}", "digest": digest.hexdigest()}))
"""


def test_the_builds_convert_alike() -> None:
    lines = assert_builds_alike(
        _PLAY, source="convert.py", buildable=BUILDABLE, build="the wire layer's hot modules"
    )
    assert lines > 6


def test_wire_build_says_which_build_runs() -> None:
    assert_build_info(wire_build(), "rookery.wire.convert", compile_wire.COMPILED)
