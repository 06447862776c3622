"""A replay's double-dummy analysis: what each card cost its side adds up to the hand's
double-dummy value minus the points actually taken, on random games of every kind of sides;
a corrupt replay is refused with its problem named; `rookery replay analyze` prints it."""

from __future__ import annotations

import importlib.util
import json
import random
import shutil
from pathlib import Path

import pytest
from rookery.cli.main import main
from rookery.engine import PRESETS, Forfeit, ForfeitKind, Phase, Ruleset
from rookery.wire.analysis import (
    AnalysisError,
    HandAnalysis,
    analyze_replay,
    format_analysis,
    regret_by_bot,
)
from rookery.wire.replay import ReplayBuilder, write_replay
from rookery.wire.selfplay import play_random_game, random_action

# `make setup` builds the core wherever cargo is found: there, a missing core is a failure.
if shutil.which("cargo") is None and importlib.util.find_spec("rookery_core") is None:
    pytest.skip("no Rust toolchain here: the native core is not built", allow_module_level=True)

#: Short hands (8 or 9 tricks a seat, the first position solved in about 0.1 s today) of every
#: kind of sides: fixed partnerships (rook free play, a last-trick bonus, two rooks), a called
#: partner, five seats with a called partner, and three players each on their own.
_RULESETS: dict[str, Ruleset] = {
    "traditional": PRESETS["traditional"].replace(max_hands=1),
    "short standard, last trick 20": PRESETS["standard"].replace(
        lowest_rank=6, last_trick_bonus=20, max_hands=2
    ),
    "short double-bird": PRESETS["double-bird"].replace(lowest_rank=6, max_hands=2),
    "short called-partner": PRESETS["called-partner"].replace(lowest_rank=6, max_hands=2),
    "short five-handed": PRESETS["five-handed"].replace(lowest_rank=6, max_hands=2),
    "short cutthroat": PRESETS["cutthroat"].replace(lowest_rank=7, max_hands=2),
}

#: 8 tricks a seat of a standard deck without its 1 to 5s: each hand solved in well under 1 s.
_SHORT = _RULESETS["short standard, last trick 20"]


def _check_identity(hand: HandAnalysis) -> None:
    """Every valued card's cost is a loss (never a gain), and from the first valued position to
    the end: bidding side's costs - defenders' costs == that position's value - points taken."""
    valued = [play for play in hand.plays if play.cost is not None]
    assert valued, f"hand {hand.hand_number}: no card valued"
    assert hand.plays[-len(valued) :] == tuple(valued)  # the last cards, without a gap
    assert valued[-1].after == hand.taken
    for play in valued:
        assert play.cost is not None and play.cost >= 0, play
        assert (play.best >= 0) == (play.cost > 0), play
    bidding, defending = hand.side_costs()
    first = valued[0].before
    assert first is not None
    assert bidding - defending == first - hand.taken, (hand.hand_number, bidding, defending)
    if hand.dd_value is not None:
        assert first == hand.dd_value
        assert hand.makeable == (hand.dd_value >= hand.bid)


@pytest.mark.parametrize("name", list(_RULESETS))
def test_the_cards_costs_sum_to_the_double_dummy_value_minus_the_points_taken(name: str) -> None:
    rules = _RULESETS[name]
    hands = whole = 0
    for seed in range(2):
        analysis = analyze_replay(play_random_game(rules, 4400 + seed))
        for hand in analysis.hands:
            if hand.skipped:
                continue
            _check_identity(hand)
            hands += 1
            whole += hand.dd_value is not None
    assert hands >= 2
    assert whole >= 1, "no hand of these short rulesets was solved from its first card"


def test_random_players_lose_points_and_the_lines_name_the_better_card() -> None:
    costly = []
    for seed in range(4410, 4415):  # random cards are not all perfect
        analysis = analyze_replay(play_random_game(_SHORT, seed))
        costly = [play for hand in analysis.hands for play in hand.plays if play.cost]
        if costly:
            break
    assert costly
    text = format_analysis(analysis)
    play = costly[0]
    assert f"-{play.cost}: seat {play.seat} " in text
    assert "gave the opponents" in text and "lost none" in text
    assert "double-dummy: " in text


def test_a_position_past_the_node_limit_leaves_it_and_the_earlier_cards_unvalued() -> None:
    replay = play_random_game(PRESETS["standard"].replace(max_hands=3), 4420)
    analysis = analyze_replay(replay, node_limit=2_000)
    hand = next(hand for hand in analysis.hands if not hand.skipped)
    assert hand.dd_value is None and hand.makeable is None
    assert 0 < hand.solved_plays < len(hand.plays)
    _check_identity(hand)
    assert "not solved under 2,000 nodes" in format_analysis(analysis)


def test_no_node_limit_values_every_card_the_limit_left_unvalued(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    replay = play_random_game(_SHORT, 4420)
    limited = [hand for hand in analyze_replay(replay, node_limit=500).hands if not hand.skipped]
    assert any(hand.dd_value is None for hand in limited)  # the limit stops some hand early
    whole = [hand for hand in analyze_replay(replay, node_limit=0).hands if not hand.skipped]
    assert [hand.hand_number for hand in whole] == [hand.hand_number for hand in limited]
    for hand, stopped in zip(whole, limited, strict=True):
        assert hand.dd_value is not None and hand.solved_plays == len(hand.plays)
        _check_identity(hand)
        # What the limit valued, no limit values alike.
        for play, partial in zip(hand.plays, stopped.plays, strict=True):
            if partial.after is not None and partial.before is not None:
                assert (play.before, play.after) == (partial.before, partial.after)
    path = tmp_path / "game.jsonl.gz"
    write_replay(path, replay)
    assert main(["replay", "analyze", "--node-limit", "0", str(path)]) == 0
    out = capsys.readouterr().out
    assert "not solved" not in out and "(not valued)" not in out
    with pytest.raises(SystemExit):
        main(["replay", "analyze", "--node-limit", "-1", str(path)])
    assert "expected a number of nodes (0 for no limit), got -1" in capsys.readouterr().err


def test_last_tricks_values_the_same_share_of_every_hand() -> None:
    analysis = analyze_replay(play_random_game(_RULESETS["short double-bird"], 4425), last_tricks=3)
    played = [hand for hand in analysis.hands if not hand.skipped]
    assert played
    for hand in played:
        assert hand.solved_plays == 3 * 4  # the last 3 tricks of 4 cards
        assert all(play.trick >= hand.plays[-1].trick - 2 for play in hand.plays[-12:])
        _check_identity(hand)


def test_a_replay_with_a_changed_card_is_refused_naming_the_problem() -> None:
    replay = play_random_game(_SHORT, 4430)
    hand = replay.hands[0]
    plays = [a for a in hand.actions if a.action.HasField("play_card")]
    plays[3].action.play_card.card.CopyFrom(plays[2].action.play_card.card)  # a card played twice
    with pytest.raises(AnalysisError, match=r"does not re-simulate: hand 0, action \d+: seat"):
        analyze_replay(replay)


def test_a_hand_cut_short_by_a_forfeit_is_named_and_not_analysed() -> None:
    rules = _SHORT
    rng = random.Random(4440)
    builder = ReplayBuilder()
    builder.start(rules, 4440, seats=["a", "b", "c", "d"])
    game = builder.game
    while game.hand_number == 0 or game.phase is not Phase.PLAY or len(game.actions) % 4 != 3:
        seat = game.current_player
        assert seat is not None
        builder.record_action(seat, random_action(game.legal_actions(), rng))
    builder.finish(forfeit=Forfeit(0, ForfeitKind.DISCONNECT))
    analysis = analyze_replay(builder.replay())
    assert [hand.skipped for hand in analysis.hands] == ["", "the hand is not finished"]
    _check_identity(analysis.hands[0])
    assert "hand 1: the hand is not finished" in format_analysis(analysis)


def test_the_command_prints_each_hand_and_every_card(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.jsonl.gz"
    write_replay(path, play_random_game(_SHORT, 4450))
    assert main(["replay", "analyze", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("hand 0: seat ")
    cards = sum(1 for line in out.splitlines() if line.startswith("  trick "))
    assert cards % 32 == 0 and cards >= 32  # 8 tricks of 4 cards a hand
    assert main(["replay", "analyze", "--json", "--hand", "0", str(path)]) == 0
    document = json.loads(capsys.readouterr().out)
    assert [hand["hand"] for hand in document["hands"]] == [0]
    plays = document["hands"][0]["plays"]
    assert len(plays) == 32 and {"cost", "best", "before", "after"} <= set(plays[0])


def test_the_command_refuses_a_corrupt_file_clearly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.jsonl"
    path.write_text('{"header": {"seed": 1}}\n{"hand": {"handNumber": "x"}}\n')
    assert main(["replay", "analyze", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"{path}:" in err
    good = tmp_path / "good.jsonl.gz"
    write_replay(good, play_random_game(_SHORT, 4450))
    assert main(["replay", "analyze", "--hand", "7", str(good)]) == 1
    assert "no hand 7 (the game has hands 0 to 1)" in capsys.readouterr().err
    tampered = tmp_path / "tampered.jsonl"
    replay = play_random_game(_SHORT, 4460)
    replay.hands[0].actions[0].seat = (replay.hands[0].actions[0].seat + 1) % 4
    write_replay(tampered, replay)
    assert main(["replay", "analyze", str(tampered)]) == 1
    err = capsys.readouterr().err
    assert "cannot analyse: the replay does not re-simulate: hand 0, action 0: seat" in err
    assert "rookery replay verify" in err


def test_regret_by_bot_sums_each_bots_card_costs_in_the_last_tricks() -> None:
    rules = _RULESETS["short double-bird"]
    replays = [play_random_game(rules, 4470 + seed) for seed in range(2)]
    for replay in replays:  # one bot in seats 0 and 2, one in seat 1, one in seat 3
        for seat, name in zip(replay.header.seats, ["pair", "east", "pair", "west"], strict=True):
            seat.bot_name = name
    regrets = regret_by_bot(replays, last_tricks=4)
    expected = {"pair": [0, 0, 0], "east": [0, 0, 0], "west": [0, 0, 0]}
    names = ["pair", "east", "pair", "west"]
    for replay in replays:
        for hand in analyze_replay(replay, last_tricks=4).hands:
            if hand.skipped:
                continue
            for name in set(names):
                expected[name][0] += 1
            for play in hand.plays:
                if play.cost is not None:
                    expected[names[play.seat]][1] += 1
                    expected[names[play.seat]][2] += play.cost
    assert {name: [r.hands, r.cards, r.play] for name, r in regrets.items()} == expected
    assert regrets["pair"].cards == 2 * regrets["east"].cards == 2 * regrets["west"].cards
    assert regrets["east"].hands == regrets["pair"].hands > 0  # a hand counts once a bot
