"""The core build plays byte-identical games to the pure engine: the fingerprint of
``test_engine_build.py`` (records, replay texts, events, observations and legal actions as JSON
and text) made with ``CoreGame`` and with ``Game`` is the same, game by game."""

from __future__ import annotations

import dataclasses
import json
import random

import core_support  # noqa: F401  (skips the module where no Rust toolchain is found)
from rookery.engine import PRESETS, GameRecord, format_replay_text
from rookery.engine._core_game import CoreGame
from rookery.engine._game import Game


def fingerprint(maker: type[Game] | type[CoreGame], name: str, seed: int) -> list[str]:
    """What a replay or a client sees of one random game of preset ``name``, as text."""
    ruleset = dataclasses.replace(PRESETS[name], max_hands=6)
    game = maker(ruleset, seed)
    rng = random.Random(seed)
    lines: list[str] = []
    step = 0
    while not game.is_over:
        if step % 7 == 0:
            lines.append(repr(game.legal_actions()))
            lines.extend(
                json.dumps(game.observation_for(seat).to_dict(), sort_keys=True)
                for seat in range(-1, ruleset.players)
            )
        game.apply(game.legal_actions().sample(rng))
        step += 1
    record = GameRecord.from_game(game)  # type: ignore[arg-type]
    lines.append(json.dumps(record.to_dict(), sort_keys=True))
    lines.append(format_replay_text(record))
    lines.extend(repr(event) for event in game.events)
    lines.append(repr(game.result))
    lines.append(repr(game))
    return lines


def test_the_core_and_the_pure_engine_give_byte_identical_games() -> None:
    games = 0
    for name in sorted(PRESETS):
        for seed in (1, 2, 3):
            pure = fingerprint(Game, name, seed)
            core = fingerprint(CoreGame, name, seed)
            for index, (want, got) in enumerate(zip(pure, core, strict=True)):
                assert got == want, f"{name}/{seed} line {index}"
            games += 1
    assert games == 30
