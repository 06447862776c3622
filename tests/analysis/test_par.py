"""The par of a hand (``rookery.client.par``): the auction of perfect information on every
seat's best contract, and the hand's regrets against it (``rookery replay analyze --par``)."""

from __future__ import annotations

import importlib.util
import itertools
import json
import random
import shutil
from pathlib import Path

import pytest
from rookery.cli.main import main
from rookery.client.par import ParError, auction_par, hand_par
from rookery.engine import PRESETS, AllPass, DoubleDummy, FirstLead, Ruleset, mask_points
from rookery.wire.analysis import analyze_replay
from rookery.wire.replay import write_replay
from rookery.wire.selfplay import play_random_game

# `make setup` builds the core wherever cargo is found: there, a missing core is a failure.
if shutil.which("cargo") is None and importlib.util.find_spec("rookery_core") is None:
    pytest.skip("no Rust toolchain here: the native core is not built", allow_module_level=True)

_STANDARD = PRESETS["standard"]
#: 8 tricks a seat of a standard deck without its 1 to 5s, a last-trick bonus: whole hands
#: solve in well under a second, so sixteen contracts a hand stay quick.
_SHORT = PRESETS["standard"].replace(lowest_rank=6, last_trick_bonus=20, max_hands=3)


def test_the_side_that_can_make_more_outbids_the_other_just_enough() -> None:
    # Seat 1 can make 90, seat 2 can make 100: seats 1 and 3 would rather play 90 (net +60)
    # than defend 100 (net -80), so seat 2 must bid 95. Seats 0 and 2 net 100 - 20 = +80.
    line = auction_par(_STANDARD, dealer=0, worths=(40, 90, 100, 50), total=120)
    assert (line.net, line.declarer, line.bid) == (80, 2, 95)
    # The better hand of a side declares, whoever of the two acts first.
    line = auction_par(_STANDARD, dealer=3, worths=(75, 50, 100, 50), total=120)
    assert (line.net, line.declarer, line.bid) == (80, 2, 70)


def test_nobody_bids_what_nobody_can_make_unless_the_dealer_is_forced_to() -> None:
    line = auction_par(_STANDARD, dealer=0, worths=(65, 60, 55, 60), total=120)
    assert (line.net, line.declarer, line.bid) == (0, -1, 0)
    forced = _STANDARD.replace(all_pass=AllPass.DEALER_FORCED)
    line = auction_par(forced, dealer=1, worths=(65, 60, 55, 60), total=120)
    # Seats 1 and 3 are set at 70 and give the other side 60: -70 - 60 = -130 for them.
    assert (line.net, line.declarer, line.bid) == (130, 1, 70)


def test_the_side_that_cannot_outbid_lets_the_other_play_above_its_best() -> None:
    # Seats 0 and 2 make 70 at best, seats 1 and 3 make 75 (net +30 for them). To keep the
    # contract seats 0 and 2 would have to bid 80 and go set (-80 - 45): they let seat 1 play,
    # and seat 1 bids 75, over the 70 they can make.
    for dealer in range(4):
        line = auction_par(_STANDARD, dealer, worths=(70, 75, 60, 40), total=120)
        assert (line.net, line.declarer, line.bid) == (-30, 1, 75)


def test_the_par_rises_with_a_sides_worths_and_turns_with_the_table() -> None:
    rng = random.Random(7)
    levels = range(40, 125, 5)
    for _ in range(120):
        worths = [rng.choice(levels) for _ in range(4)]
        dealer = rng.randrange(4)
        par = auction_par(_STANDARD, dealer, worths, 120).net
        # The same deal seen one seat on: every seat's worth moves with it, the sides swap.
        turned = worths[-1:] + worths[:-1]
        assert auction_par(_STANDARD, (dealer + 1) % 4, turned, 120).net == -par
        for seat in range(4):
            raised = list(worths)
            raised[seat] = min(120, raised[seat] + 15)
            moved = auction_par(_STANDARD, dealer, raised, 120).net
            assert moved >= par if seat % 2 == 0 else moved <= par, (worths, dealer, seat)


def test_no_sacrifice_pays_so_par_is_the_best_contract_of_the_side_that_can_bid_higher() -> None:
    # A set costs the bid and the other side's points, which is always worse than defending:
    # so par is the side with the higher makeable bid playing its best contract (a tie goes
    # to the side that bids that level first), or a redeal when neither side's contract beats
    # defending. Checked against the minimax on every worth from 50 to 120 for two seats.
    for worth_a, worth_b in itertools.product(range(50, 125, 5), repeat=2):
        line = auction_par(_STANDARD, 3, (worth_a, worth_b, 40, 40), 120)
        if line.declarer >= 0:
            worth = (worth_a, worth_b)[line.declarer]
            assert worth >= line.bid >= 70
            assert line.net == (1 if line.declarer == 0 else -1) * (2 * worth - 120)
        if min(worth_a, worth_b) >= 70 and worth_a != worth_b:
            assert line.declarer == (0 if worth_a > worth_b else 1), (worth_a, worth_b)


def _solved(rules: Ruleset, hands: list[int], leader: int, trump: int, side: int) -> int:
    solver = DoubleDummy(
        rules.players,
        trump,
        side,
        rook_free_play=rules.rook_free_play,
        last_trick_bonus=rules.last_trick_bonus,
    )
    return solver.solve(hands, leader)


@pytest.mark.parametrize("rules", [_SHORT, PRESETS["traditional"].replace(max_hands=2)])
def test_a_hands_par_holds_its_contracts_and_regrets(rules: Ruleset) -> None:
    checked = 0
    for seed in range(5100, 5106):
        replay = play_random_game(rules, seed)
        analysis = analyze_replay(replay, node_limit=0)
        for hand in analysis.hands:
            if hand.skipped:
                continue
            result = analysis.results[hand.hand_number]
            assert result.hand_number == hand.hand_number
            par = hand_par(rules, result, node_limit=0)
            # The hand's own contract, built from the deal, is the value the analysis found
            # walking the replay to its first card.
            assert par.played.total.known and par.played.total.low == hand.dd_value
            assert (par.played.seat, par.played.trump) == (result.bidder, result.trump)
            assert len(par.contracts) == 16
            for contract in par.contracts:
                hands = list(result.deal.hands)
                hands[contract.seat] = (hands[contract.seat] | result.deal.nest) & ~(
                    contract.buried
                )
                assert contract.buried.bit_count() == rules.nest_size
                assert not contract.buried & ~(result.deal.hands[contract.seat] | result.deal.nest)
                first = rules.first_lead is FirstLead.BIDDER
                leader = contract.seat if first else (contract.seat + 1) % 4
                side = 0b0101 if contract.seat % 2 == 0 else 0b1010
                expected = mask_points(contract.buried) + _solved(
                    rules, hands, leader, int(contract.trump), side
                )
                assert contract.total.low <= expected <= contract.total.high
                # Solved exactly, or only as far as it cannot beat its seat's best.
                best = max(c.total.low for c in par.contracts if c.seat == contract.seat)
                assert contract.total.known or contract.total.high <= best
            for seat, worth in enumerate(par.worths):
                assert worth.known
                own = [c.total.low for c in par.contracts if c.seat == seat]
                if seat == result.bidder:
                    own.append(par.played.total.low)
                assert worth.low == max(own)
            assert par.line is not None
            total = rules.deck_points + rules.last_trick_bonus
            line = auction_par(rules, result.dealer, [w.low for w in par.worths], total)
            assert line.declarer < 0 or par.worths[line.declarer].low >= line.bid
            sign = 1 if result.bidder % 2 == 0 else -1
            assert par.line == line and par.par_net.low == sign * line.net
            best = par.worths[result.bidder].low
            net = (best if best >= result.bid else -result.bid) - (total - best)
            assert par.contract_net.low == net
            assert par.auction_regret.low == par.par_net.low - net
            assert par.bury_regret.low == best - par.played.total.low >= 0
            checked += 1
    assert checked >= 6


def test_a_node_limit_leaves_bounds_that_hold_the_value() -> None:
    replay = play_random_game(_SHORT, 5200)
    analysis = analyze_replay(replay, node_limit=0, hands=[0])
    result = analysis.results[0]
    exact = hand_par(_SHORT, result, node_limit=0)
    bounded = hand_par(_SHORT, result, node_limit=300)
    assert any(not contract.total.known for contract in bounded.contracts)
    for wide, tight in zip(bounded.contracts, exact.contracts, strict=True):
        # Both hold the contract's value (the unlimited one maybe only under its seat's best).
        assert wide.total.low <= tight.total.high and tight.total.low <= wide.total.high
    assert all(worth.known for worth in exact.worths)
    for wide_span, value in (
        (bounded.par_net, exact.par_net.low),
        (bounded.contract_net, exact.contract_net.low),
        (bounded.auction_regret, exact.auction_regret.low),
        (bounded.bury_regret, exact.bury_regret.low),
    ):
        assert wide_span.low <= value <= wide_span.high


def test_par_needs_two_fixed_sides_and_a_contract() -> None:
    called = PRESETS["called-partner"].replace(lowest_rank=6, max_hands=1)
    replay = play_random_game(called, 5300)
    analysis = analyze_replay(replay, node_limit=0)
    with pytest.raises(ParError, match="no two fixed sides"):
        hand_par(called, analysis.results[0], node_limit=0)


def test_the_command_prints_and_writes_each_hands_par(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "game.jsonl.gz"
    write_replay(path, play_random_game(_SHORT, 5101))
    assert main(["replay", "analyze", "--par", "--hand", "0", "--min-cost", "500", str(path)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[3].startswith("  par: seat ") and " bids " in out[3]
    assert out[4].startswith("  best contracts (the heuristic's bury): seat 0 ")
    assert out[5].startswith("  regret against par: the auction ")
    assert main(["replay", "analyze", "--par", "--json", "--hand", "0", str(path)]) == 0
    par = json.loads(capsys.readouterr().out)["hands"][0]["par"]
    assert len(par["contracts"]) == 16 and par["line"]["bid"] >= 70
    low, high = par["bury_regret"]
    assert 0 <= low == high
    called = tmp_path / "called.jsonl.gz"
    write_replay(called, play_random_game(PRESETS["called-partner"].replace(max_hands=1), 5))
    assert main(["replay", "analyze", "--par", str(called)]) == 1
    assert "called-partner has no two fixed sides" in capsys.readouterr().err
