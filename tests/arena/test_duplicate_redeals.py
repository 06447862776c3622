"""A duplicate run in which one game of a pair redeals a hand and its twin does not: under the
arena's default ``hand_seeds = PLAYED`` every later hand still has the same deal and dealer."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from rookery.arena.config import config_from_dict
from rookery.arena.records import RunStore
from rookery.arena.run import TournamentOptions, TournamentRunner
from rookery.v1 import replay_pb2, results_pb2, ruleset_pb2
from rookery.wire.replay import read_replay, verify_replay

HERE = Path(__file__).parent
FAST = TournamentOptions(connect_timeout_s=30.0, join_timeout_s=20.0, game_timeout_s=120.0)
Slot = tuple[int, int]  # (hands played out before, redeals since)


def bot(name: str, cls: str) -> dict[str, str]:
    path = shlex.quote(str(HERE / "redeal_bots.py"))
    command = f"{shlex.quote(sys.executable)} -m rookery.cli.main bot run {path}:{cls}"
    return {"name": name, "command": command}


def deals_by_slot(replay: replay_pb2.Replay) -> dict[Slot, tuple[int, results_pb2.Deal]]:
    slots: dict[Slot, tuple[int, results_pb2.Deal]] = {}
    played = redeals = 0
    for hand in replay.hands:
        slots[played, redeals] = (hand.dealer, hand.deal)
        if hand.HasField("result") and hand.result.redeal:
            redeals += 1
        else:
            played, redeals = played + 1, 0
    return slots


async def test_a_redeal_in_one_game_of_a_pair_moves_no_later_deal_or_dealer(
    tmp_path: Path,
) -> None:
    config = config_from_dict(
        {
            "name": "redeals",
            "ruleset": {"preset": "standard", "target": 1000, "max_hands": 12},
            "games": 4,
            "concurrency": 2,
            "seed": 21,
            "time_control": {"action_ms": 2000, "grace_ms": 1000},
            "ratings": {"bootstrap": 0},
            "bots": [bot("rook", "RookBidder"), bot("passer", "Passer")],
        },
        "test",
    )
    result = await TournamentRunner(config, tmp_path, options=FAST).run()
    assert result.recorded == 4
    with RunStore(tmp_path) as store:
        games = store.games("redeals")
    pairs: dict[int, list[replay_pb2.Replay]] = {}
    for game in games:
        pairs.setdefault(game.group, []).append(read_replay(tmp_path / game.replay_path))
    asymmetric = 0
    for one, two in pairs.values():
        assert one.header.seed == two.header.seed
        a, b = deals_by_slot(one), deals_by_slot(two)
        redealt_a = {slot for slot, _ in a.items() if (slot[0], slot[1] + 1) in a}
        redealt_b = {slot for slot, _ in b.items() if (slot[0], slot[1] + 1) in b}
        asymmetric += len(redealt_a ^ redealt_b)
        for slot in sorted(set(a) & set(b)):
            assert a[slot] == b[slot], f"seed {one.header.seed}, slot {slot}"
    assert asymmetric > 0  # the case did occur: a hand redealt in one game only
    for replay in (r for pair in pairs.values() for r in pair):
        assert verify_replay(replay) == []
        assert replay.header.ruleset.hand_seeds == ruleset_pb2.HAND_SEEDS_PLAYED  # in the header
