"""Helpers of the native core's tests: the pure engine's state in the core's plain forms, the
core's game (``rookery_core.EngineGame``, as the engine's ``CoreGame`` subclasses it) read
through its plain values, and one action applied to both builds with their refusals compared."""

from __future__ import annotations

import dataclasses
import importlib.util
import random
import shutil
from typing import Any

__all__ = [
    "OBSERVATION_FIELDS",
    "PHASES",
    "apply_both",
    "core",
    "core_game",
    "core_observation",
    "core_rules",
    "hostile_action",
    "plain_deal",
    "plain_event",
    "plain_game_result",
    "plain_hand_result",
    "plain_legal",
    "plain_observation",
    "random_action",
    "refusal_of",
]

import pytest
from rookery.engine import (
    Action,
    Bid,
    Bury,
    CallCard,
    EngineError,
    Event,
    Game,
    GameOverError,
    GameResult,
    HandResult,
    IllegalActionError,
    LegalActions,
    MalformedActionError,
    NameTrump,
    Observation,
    Pass,
    Phase,
    PlayCard,
    Ruleset,
    Trick,
)

# `make setup` builds the core wherever cargo is found: there, a missing core is a failure.
if shutil.which("cargo") is None and importlib.util.find_spec("rookery_core") is None:
    pytest.skip("no Rust toolchain here: the native core is not built", allow_module_level=True)
import rookery_core as core
from rookery.engine._core_game import CoreGame

PHASES = (Phase.BIDDING, Phase.NAME_TRUMP, Phase.BURY, Phase.CALL, Phase.PLAY, Phase.GAME_OVER)


def core_rules(ruleset: Ruleset) -> Any:
    """The core's rules of ``ruleset``."""
    return core.Rules.from_dict(ruleset.to_dict())


def core_game(ruleset: Ruleset, seed: int, *, events: bool = True) -> CoreGame:
    """A game of ``ruleset`` dealt from ``seed`` on the core (whichever build ``Game`` is)."""
    return CoreGame(ruleset, seed, events=events)


def plain_deal(deal: Any) -> tuple[list[int], int, int]:
    """A ``Deal`` as the core gives it: ``(hands, nest, dead)``."""
    return (list(deal.hands), deal.nest, deal.dead)


def plain_hand_result(result: HandResult) -> dict[str, Any]:
    """A ``HandResult`` as the core gives it."""
    out = {f.name: getattr(result, f.name) for f in dataclasses.fields(result)}
    out["trump"] = None if result.trump is None else int(result.trump)
    out["deal"] = plain_deal(result.deal)
    return out


def plain_game_result(result: GameResult) -> dict[str, Any]:
    """A ``GameResult`` as the core gives it."""
    return {
        "winners": result.winners,
        "scores": result.scores,
        "hands_played": result.hands_played,
        "reason": result.reason.name,
    }


def plain_event(event: Event) -> tuple[Any, ...]:
    """An event as the core gives it: ``(kind, hand_number, *fields)``."""
    fields = [f.name for f in dataclasses.fields(event) if f.name not in ("seq", "hand_number")]
    values: list[Any] = []
    for name in fields:
        value = getattr(event, name)
        if isinstance(value, HandResult):
            value = plain_hand_result(value)
        elif isinstance(value, GameResult):
            value = plain_game_result(value)
        elif name == "suit":
            value = int(value)
        values.append(value)
    return (type(event).__name__, event.hand_number, *values)


def plain_trick(trick: Trick) -> tuple[Any, ...]:
    return (trick.leader, tuple(trick.cards), trick.winner, trick.points)


def plain_observation(obs: Observation) -> dict[str, Any]:
    """An ``Observation`` as the core gives it (no ruleset or sides; the phase as its index)."""
    out = {
        f.name: getattr(obs, f.name)
        for f in dataclasses.fields(obs)
        if f.name not in ("ruleset", "sides")
    }
    out["phase"] = PHASES.index(obs.phase)
    out["trump"] = None if obs.trump is None else int(obs.trump)
    out["current_trick"] = plain_trick(obs.current_trick)
    out["completed_tricks"] = tuple(plain_trick(trick) for trick in obs.completed_tricks)
    return out


#: The fields of an observation as the core gives them, in order (no ruleset or sides).
OBSERVATION_FIELDS = tuple(
    f.name for f in dataclasses.fields(Observation) if f.name not in ("ruleset", "sides")
)


def core_observation(game: core.EngineGame, seat: int) -> dict[str, Any]:
    """The core's observation of ``seat`` (its plain values) as ``plain_observation`` gives the
    pure one's."""
    fields = game._observation_fields(seat, 0)
    assert len(fields) == len(OBSERVATION_FIELDS)
    out = dict(zip(OBSERVATION_FIELDS, fields, strict=True))
    leader, cards, winner, points = out["current_trick"]
    out["current_trick"] = (leader, tuple(cards), winner, points)
    out["completed_tricks"] = tuple(
        (leader, tuple(cards), winner, points)
        for leader, cards, winner, points in out["completed_tricks"]
    )
    return out


def plain_legal(legal: LegalActions) -> tuple[int, int, Any]:
    """Legal actions as the core gives them: ``(phase, player, data)``."""
    phase = PHASES.index(legal.phase)
    if legal.phase is Phase.BIDDING:
        assert legal.can_pass
        return (phase, legal.player, list(legal.bids))
    if legal.phase is Phase.BURY:
        return (phase, legal.player, (legal.bury_from, legal.bury_count))
    if legal.phase is Phase.CALL:
        return (phase, legal.player, legal.call_from)
    if legal.phase is Phase.PLAY:
        return (phase, legal.player, legal.play)
    return (phase, legal.player, None)


def refusal_of(error: EngineError) -> tuple[str, str, str]:
    """An engine refusal as ``(kind, reason, message)``."""
    if isinstance(error, GameOverError):
        return ("game_over", "game_over", str(error))
    if isinstance(error, IllegalActionError):
        return ("illegal", error.reason, str(error))
    assert isinstance(error, MalformedActionError), repr(error)
    return ("malformed", "", str(error))


def apply_both(pure: Game, native: core.EngineGame, action: Action) -> tuple[str, str, str] | None:
    """Apply ``action`` to both builds: ``None`` when both took it, else the refusal (which
    must be the same exception, reason and message in both)."""
    try:
        pure.apply(action)
    except EngineError as error:
        expected = refusal_of(error)
        with pytest.raises(EngineError) as refused:
            native.apply(action)
        assert type(refused.value) is type(error), f"{action!r}"
        assert refusal_of(refused.value) == expected, f"{action!r}"
        return expected
    native.apply(action)
    return None


def random_action(game: Game, rng: random.Random) -> Action:
    """A random legal action: in the auction pass, the lowest bid or any bid; else uniform."""
    legal = game.legal_actions()
    if legal.phase is Phase.BIDDING and legal.bids:
        draw = rng.random()
        if draw < 0.5:
            return Pass()
        if draw < 0.85:
            return Bid(legal.bids[0])
        return Bid(rng.choice(legal.bids))
    return legal.sample(rng)


def hostile_action(game: Game, rng: random.Random) -> Action:
    """A random action that is often malformed, illegal or out of phase."""
    rules = game.ruleset
    kind = rng.randrange(7)
    if kind == 0:
        return Bid(
            rng.choice(
                [
                    0,
                    -5,
                    3,
                    rules.min_bid - rules.bid_step,
                    rules.min_bid + 1,
                    rules.effective_max_bid + rules.bid_step,
                    rules.min_bid,
                    rng.randrange(-200, 400),
                ]
            )
        )
    if kind == 1:
        return Pass()
    if kind == 2:
        return NameTrump(rng.randrange(-2, 6))  # type: ignore[arg-type]
    hand = game.hands[game.current_player] if game.current_player is not None else 0
    held = [card for card in range(58) if hand >> card & 1] or [0]
    if kind == 3:  # often a card of the bidder's own hand or bury
        return CallCard(rng.choice([rng.randrange(-3, 62), rng.choice(held)]))
    if kind == 4:  # often a held card that does not follow suit
        return PlayCard(rng.choice([rng.randrange(-3, 62), rng.choice(held)]))
    cards = [card for card in range(58) if hand >> card & 1]
    size = rules.nest_size + rng.choice([0, 0, 0, -1, 1])
    picks = rng.sample(cards, max(0, min(size, len(cards))))
    mask = sum(1 << card for card in picks)
    extra = rng.randrange(4)
    if extra == 1:
        mask |= 1 << rng.randrange(58)
    elif extra == 2:
        mask |= 1 << rng.randrange(58, 64)
    return Bury(mask)
