"""The hot paths' memos: what a hit saves against computing the value (``rookery.wire.memo``).

Run alone with ``.venv/bin/python bench/memo_bench.py``; prints ``name value unit`` lines: for
each memo, the time of a hit, of the computation it saves, and their ratio (the figures quoted
where each memo is defined). Single-threaded and short (about 5 s): the ratio hardly depends on
what else the machine runs, since both sides are timed alike, alternately, best of 5.
"""

from __future__ import annotations

import timeit
from collections.abc import Callable

from rookery.engine import PRESETS, Bid, Game, PlayCard
from rookery.v1 import field_numbers
from rookery.wire import _convert_play, _convert_ruleset, convert
from rookery.wire.fastpath import _protobuf, _replays, _requests

REPEAT, NUMBER = 5, 20_000


def best(call: Callable[[], object]) -> float:
    """Seconds per call: the best of ``REPEAT`` runs of ``NUMBER`` calls."""
    return min(timeit.repeat(call, repeat=REPEAT, number=NUMBER)) / NUMBER


def compare(name: str, hit: Callable[[], object], miss: Callable[[], object]) -> None:
    hit_s, miss_s = best(hit), best(miss)
    print(f"memo_hit[{name}] {hit_s * 1e9:.0f} ns", flush=True)
    print(f"memo_computed[{name}] {miss_s * 1e9:.0f} ns", flush=True)
    print(f"memo_benefit[{name}] {miss_s / hit_s:.1f} x", flush=True)


def main() -> int:
    ruleset = convert.ruleset_to_proto(PRESETS["standard"])
    compare(
        "ruleset_read",
        lambda: convert.ruleset_from_proto(ruleset),
        lambda: _convert_ruleset._ruleset_from_proto(ruleset, "ruleset"),
    )
    action = convert.action_to_proto(PlayCard(17))
    compare(
        "action_read",
        lambda: convert.action_from_proto(action),
        lambda: _convert_play._action_from_proto(action, "action"),
    )
    game = Game(PRESETS["standard"], 1)
    while not game.observation_for(0).completed_tricks:
        legal = game.legal_actions()
        game.apply(
            legal[0] if legal.phase.name != "BIDDING" or not legal.bids else Bid(legal.bids[0])
        )
    trick = convert.trick_to_proto(game.observation_for(0).completed_tricks[0])
    key = trick.SerializeToString(deterministic=True)

    def decode_trick() -> object:
        _convert_play._TRICKS_READ.pop(key, None)
        return convert.trick_from_proto(trick)

    compare("trick_read", lambda: convert.trick_from_proto(trick), decode_trick)
    scalar = _protobuf.scalar_field(field_numbers.Observation.HIGH_BID)
    encode = scalar._compute  # what a miss computes
    assert encode is not None
    compare("scalar_field", lambda: scalar[120], lambda: encode(120))
    values = (120, 35, 0, 65)
    compare(
        "packed_field",
        lambda: _protobuf.packed_field(field_numbers.Observation.SCORES, values),
        lambda: _protobuf._packed((field_numbers.Observation.SCORES, values)),
    )
    compare(
        "auction_entry",
        lambda: _requests._AUCTION_ENTRIES[2, 120],
        lambda: _requests._auction_entry((2, 120)),
    )
    played = PlayCard(17)
    compare(
        "replay_action",
        lambda: _replays._ACTION_BYTES[played],
        lambda: convert.action_to_proto(played).SerializeToString(),
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
