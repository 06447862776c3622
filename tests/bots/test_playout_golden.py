"""pimc's heuristic playouts, card for card, against recorded goldens: what a port must match.

``playout_golden.json`` holds positions of the play phase of every preset (a heuristic game
stopped at a seeded card, the hands a sample of the seat to play's observation) as the playout
model's full state, and for every legal card the points each seat has won once that card is played
and the hand played out with the heuristic on every seat, and the score changes per seat. The
model must reproduce them exactly: a change to the heuristic's play changes pimc, and any other
implementation of these playouts (the native core's) is held to the same file.

Regenerate (only for a deliberate change of the heuristic's play, said in the commit):
``.venv/bin/python tests/bots/test_playout_golden.py``.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from rookery.client.bots import HeuristicPolicy
from rookery.client.bots._sampling import sample_hands
from rookery.client.bots._simulate import HandSimulation
from rookery.engine import PRESETS, Game, Phase, mask_points

GOLDEN = Path(__file__).with_name("playout_golden.json")
POSITIONS_PER_PRESET = 6


def _state(sim: HandSimulation) -> dict[str, Any]:
    """Everything ``HandSimulation``'s constructor needs to rebuild ``sim``."""
    return {
        "hands": list(sim.hands),
        "trump": sim.trump,
        "bidder": sim.bidder,
        "bid": sim.bid,
        "leader": sim.leader,
        "buried_points": sim.buried_points,
        "called": sim.called,
        "partner": sim.partner,
        "partner_shown": sim.partner_shown,
        "played": sim.played,
        "trick": [list(pair) for pair in sim.trick],
        "voids": list(sim.voids),
        "won": list(sim.won),
        "tricks_left": sim.tricks_left,
    }


def _rebuild(preset: str, state: dict[str, Any]) -> HandSimulation:
    fields = dict(state)
    fields["trick"] = [(seat, card) for seat, card in state["trick"]]
    hands = fields.pop("hands")
    return HandSimulation(PRESETS[preset], list(hands), **fields)


def _outcomes(sim: HandSimulation) -> list[dict[str, Any]]:
    """Per legal card: the points won per seat and the score change per seat at the hand's end."""
    legal = sim.legal()
    out = []
    for card in range(58):
        if legal >> card & 1:
            played = sim.clone()
            played.play(card)
            played.play_out()
            out.append({"card": card, "won": played.won, "deltas": played.side_deltas()})
    return out


def _positions(preset: str) -> list[HandSimulation]:
    """Seeded positions of ``preset``'s play phase as the playout model starts from them."""
    rules = PRESETS[preset].replace(max_hands=1)
    heuristic = HeuristicPolicy()
    found: list[HandSimulation] = []
    index = 0
    while len(found) < POSITIONS_PER_PRESET:
        rng = random.Random(f"{preset}/{index}")
        index += 1
        game = Game(rules, rng.randrange(1 << 32), events=False)
        stop = rng.randrange(rules.hand_size * rules.players - 2)
        plays = 0
        while not game.is_over:
            seat = game.current_player
            assert seat is not None
            obs = game.observation_for(seat)
            if obs.phase is Phase.PLAY:
                if plays == stop:
                    hands, buried, _ = sample_hands(obs, rng)
                    sim = HandSimulation.from_observation(obs, hands)
                    sim.buried_points = mask_points(buried)
                    found.append(sim)
                    break
                plays += 1
            game.apply(heuristic(obs, obs.legal_actions(), rng))
    return found


def _record() -> list[dict[str, Any]]:
    return [
        {"preset": preset, "state": _state(sim), "outcomes": _outcomes(sim)}
        for preset in PRESETS
        for sim in _positions(preset)
    ]


def test_the_golden_covers_every_preset_and_many_cards() -> None:
    cases = json.loads(GOLDEN.read_text())
    assert {case["preset"] for case in cases} == set(PRESETS)
    assert sum(len(case["outcomes"]) for case in cases) >= 150


def test_every_recorded_playout_is_reproduced_exactly() -> None:
    differences = []
    for number, case in enumerate(json.loads(GOLDEN.read_text())):
        sim = _rebuild(case["preset"], case["state"])
        assert _state(sim) == case["state"], f"case {number}: the state does not rebuild"
        got = _outcomes(sim)
        if got != case["outcomes"]:
            differences.append((number, case["preset"], case["outcomes"], got))
    assert not differences, differences[:2]


if __name__ == "__main__":
    GOLDEN.write_text(json.dumps(_record(), separators=(",", ":")) + "\n")
    print(f"wrote {GOLDEN}")
