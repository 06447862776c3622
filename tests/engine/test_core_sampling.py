"""Deal sampling on the native core draws as the pure engine does.

A draw is random, so the two builds are held equal by what can be proven: every deal either
build samples, over many random positions of every preset and every observer, is consistent
with the observation (the game rebuilt from it shows that seat the same observation); and the
marginals (which hidden place each hidden card goes to) agree by a chi-square test on
positions whose voids and called card constrain the draw.
"""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest
from core_support import core, random_action
from rookery.engine import PRESETS, Deal, Game, Observation, Phase, sample_deals
from rookery.engine import _sampling as sampling


@pytest.fixture(params=["core", "pure"])
def build(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Each test runs on both builds of the draw (the core's, and the pure reference)."""
    assert core is not None
    monkeypatch.setattr(sampling, "on_core", request.param == "core")
    monkeypatch.setattr(sampling, "native", core)
    return str(request.param)


def _random_position(preset: str, seed: int) -> Game:
    """A game of ``preset`` played at random from ``seed`` to a random point of a hand."""
    rng = random.Random(seed)
    game = Game(PRESETS[preset], seed)
    steps = rng.randrange(1, 60)
    for _ in range(steps):
        if game.is_over:
            break
        game.apply(random_action(game, rng))
    return game


def _positions(count: int) -> list[tuple[Game, int]]:
    """``count`` random positions per preset, with an observer each (-1: a spectator)."""
    out = []
    for preset in PRESETS:
        for index in range(count):
            game = _random_position(preset, 1000 * index + len(preset))
            if game.is_over:
                continue
            seat = random.Random(index).randrange(-1, game.ruleset.players)
            out.append((game, seat))
    return out


def _consistent(observation: Observation, deal: Deal) -> bool:
    rules = observation.ruleset
    cards = [*deal.hands, deal.nest, deal.dead]
    union = 0
    for mask in cards:
        if union & mask:
            return False
        union |= mask
    if union != rules.deck_mask:
        return False
    rebuilt = Game.from_observation(observation, deal)
    return rebuilt.observation_for(observation.seat) == observation


def test_every_sampled_deal_is_consistent_with_the_observation(build: str) -> None:
    rng = random.Random(11)
    checked = 0
    for game, seat in _positions(6):
        observation = game.observation_for(seat)
        for deal in sample_deals(observation, rng, 4):
            assert _consistent(observation, deal), (game.ruleset.name, seat, build, deal)
            checked += 1
    assert checked > 150


def _constrained_positions() -> list[Observation]:
    """Play-phase observations, early in the play, where some seat has shown a void (the draw
    is then not uniform): the first such point of a random game, per preset."""
    found = []
    for preset in ("standard", "called-partner", "five-handed"):
        for seed in range(200):
            rng = random.Random(seed)
            game = Game(PRESETS[preset], seed)
            while not game.is_over and game.hand_number == 0:
                game.apply(random_action(game, rng))
                if game.phase is not Phase.PLAY:
                    continue
                observation = game.observation_for(seed % game.ruleset.players)
                hidden = sampling._hidden(observation)
                if any(forbidden & hidden.unknown for _, _, _, forbidden in hidden.places):
                    break
            else:
                continue
            found.append(observation)
            break
    return found


def _place_counts(observation: Observation, deals: list[Deal]) -> Counter[tuple[int, int]]:
    """How often each hidden card lies in each place (a seat's hand, or -1: out of the hands)."""
    unknown = sampling._hidden(observation).unknown
    counts: Counter[tuple[int, int]] = Counter()
    for deal in deals:
        for card in range(58):
            if not unknown >> card & 1:
                continue
            where = next((s for s, hand in enumerate(deal.hands) if hand >> card & 1), -1)
            counts[card, where] += 1
    return counts


def _chi_square_p(statistic: float, freedom: int) -> float:
    """The upper tail of the chi-square distribution (Wilson-Hilferty's normal approximation)."""
    cube = (statistic / freedom) ** (1 / 3)
    z = (cube - (1 - 2 / (9 * freedom))) / math.sqrt(2 / (9 * freedom))
    return 0.5 * math.erfc(z / math.sqrt(2))


def test_the_cores_draw_has_the_pure_draws_marginals(monkeypatch: pytest.MonkeyPatch) -> None:
    assert core is not None
    monkeypatch.setattr(sampling, "native", core)
    positions = _constrained_positions()
    assert len(positions) == 3
    draws = 4000
    for observation in positions:
        monkeypatch.setattr(sampling, "on_core", True)
        on_core = _place_counts(observation, sample_deals(observation, random.Random(1), draws))
        monkeypatch.setattr(sampling, "on_core", False)
        pure = _place_counts(observation, sample_deals(observation, random.Random(2), draws))
        statistic = 0.0
        freedom = 0
        for card in {card for card, _ in on_core | pure}:
            cells = [key for key in on_core | pure if key[0] == card]
            for key in cells:
                total = on_core[key] + pure[key]
                expected = total / 2  # the same number of draws on each side
                statistic += (on_core[key] - expected) ** 2 / expected
                statistic += (pure[key] - expected) ** 2 / expected
            freedom += len(cells) - 1
        assert freedom > 20
        p = _chi_square_p(statistic, freedom)
        assert p > 1e-4, (observation.ruleset.name, statistic, freedom)


def test_the_chi_square_test_tells_a_biased_draw(monkeypatch: pytest.MonkeyPatch) -> None:
    """The marginals test above rejects a draw that is off (the core's deals with the hands
    passed round one seat): it has the power to tell."""
    assert core is not None
    monkeypatch.setattr(sampling, "native", core)
    observation = _constrained_positions()[0]
    monkeypatch.setattr(sampling, "on_core", True)
    drawn = sample_deals(observation, random.Random(1), 4000)
    biased = [Deal((*deal.hands[1:], deal.hands[0]), deal.nest, deal.dead) for deal in drawn]
    real = _place_counts(observation, drawn)
    off = _place_counts(observation, biased)
    statistic = 0.0
    freedom = 0
    for card in {card for card, _ in real | off}:
        cells = [key for key in real | off if key[0] == card]
        for key in cells:
            expected = (real[key] + off[key]) / 2
            statistic += (real[key] - expected) ** 2 / expected
            statistic += (off[key] - expected) ** 2 / expected
        freedom += len(cells) - 1
    assert _chi_square_p(statistic, freedom) < 1e-9


def test_the_core_refuses_places_the_hidden_cards_do_not_fit() -> None:
    with pytest.raises(ValueError, match="inconsistent observation"):
        core.sample_deals(0b111, [(0, 1, 2, 0)], [0, 0], [0, 0], 0, 0, -1, 0, False, 1, 1)
    with pytest.raises(ValueError, match="no deal satisfies the voids"):
        core.sample_deals(
            0b1111, [(0, 1, 3, 0b1111), (0, 2, 1, 0)], [0] * 3, [0] * 3, 0, 0, -1, 0, False, 1, 1
        )
