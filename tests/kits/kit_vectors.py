"""The kit conformance vectors, generated from the Python engine: what every client computes or
must answer locally, as JSON that any language can read.

- ``cards.json``: every card (the second Rook card of double-bird included) as the proto ``Card``
  (JSON), its text form and its points; and texts that are no card.
- ``requests.json``: ``ActionRequest`` messages (proto JSON) from real positions of seeded random
  games of several presets, every phase, each with its legal actions in text form (or, for a bury,
  their count) and the card text of the seat's hand.

Run ``python tests/kits/kit_vectors.py`` to write them; ``test_kit_vectors.py`` checks that the
files in the tree are byte for byte what this module generates.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

from google.protobuf.json_format import MessageToDict
from rookery.engine import (
    CARD_POINTS,
    Game,
    Phase,
    Ruleset,
    card_name,
    format_cards,
)
from rookery.v1 import bot_service_pb2
from rookery.wire.convert import card_to_proto, legal_actions_to_proto, observation_to_proto

VECTORS = Path(__file__).resolve().parent / "vectors"
#: The presets the requests come from, with the seed of their game.
GAMES = (("standard", 5), ("called-partner", 8), ("cutthroat", 3), ("double-bird", 2))
#: Requests kept per phase and game (a game has far more plays than bids).
PER_PHASE = {Phase.BIDDING: 2, Phase.NAME_TRUMP: 1, Phase.BURY: 1, Phase.CALL: 1, Phase.PLAY: 4}
#: Legal actions listed by text up to this many (a bury has thousands: only their count).
LISTED = 64
#: Texts no client may read as a card.
NOT_CARDS = ("", "X5", "B0", "B15", "ROOK3", "b", "R 5", "B1 ")


def _dict(message: Any) -> dict[str, Any]:
    return MessageToDict(message, preserving_proto_field_name=True)


def cards() -> dict[str, Any]:
    """Every card (both Rook cards included), in proto JSON, text and points; and non-cards."""
    entries = []
    for card in range(len(CARD_POINTS)):
        entries.append(
            {
                "card": _dict(card_to_proto(card)),
                "text": card_name(card),
                "points": CARD_POINTS[card],
            }
        )
    return {"cards": entries, "not_cards": list(NOT_CARDS)}


def _has(game: Game, phase: Phase) -> bool:
    """Whether the game's ruleset has ``phase`` (only a called partnership calls a card)."""
    return phase is not Phase.CALL or game.ruleset.partnership.name == "CALLED"


def requests() -> dict[str, Any]:
    """Requests from seeded random games: the first few of each phase of each game."""
    vectors = []
    for preset, seed in GAMES:
        game = Game(Ruleset.preset(preset), seed)
        rng = random.Random(seed)
        kept: dict[Phase, int] = {}
        request_id = 0
        quota = {phase: n for phase, n in PER_PHASE.items() if _has(game, phase)}
        while not game.is_over and kept != quota:
            seat = game.current_player
            assert seat is not None
            legal = game.legal_actions()
            observation = game.observation_for(seat)
            request_id += 1
            if kept.get(observation.phase, 0) < PER_PHASE.get(observation.phase, 0):
                kept[observation.phase] = kept.get(observation.phase, 0) + 1
                request = bot_service_pb2.ActionRequest(
                    table_id=f"{preset}-{seed}",
                    request_id=request_id,
                    seat=seat,
                    observation=observation_to_proto(observation),
                    legal_actions=legal_actions_to_proto(legal),
                    deadline_ms=5000,
                )
                listed = len(legal) <= LISTED
                vectors.append(
                    {
                        "name": f"{preset} seed {seed} request {request_id}: "
                        f"{observation.phase.name.lower()}",
                        "preset": preset,
                        "hand": format_cards(observation.hand),
                        "legal_count": len(legal),
                        "legal": [str(action) for action in legal] if listed else None,
                        "request": _dict(request),
                    }
                )
            game.apply(legal.sample(rng))
    return {"requests": vectors}


def generate() -> dict[str, str]:
    """Each vector file's name and its exact text."""
    files = {"cards.json": cards(), "requests.json": requests()}
    return {name: json.dumps(data, indent=1, sort_keys=True) + "\n" for name, data in files.items()}


def write(folder: Path = VECTORS) -> list[Path]:
    """Write the vector files into ``folder``; their paths."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in generate().items():
        path = folder / name
        path.write_text(text, encoding="utf-8")
        written.append(path)
    return written


if __name__ == "__main__":
    for path in write(Path(sys.argv[1]) if len(sys.argv) > 1 else VECTORS):
        print(path)
