"""The public rule functions (``_rulebook``) are what ``Game`` decides, in every preset.

They are the one source the engine plays by and the search bots' playouts import; here they are
checked from the outside, against whole random games: every legal play, every trick's winner,
every scored hand and every redeal.
"""

from __future__ import annotations

import random

import pytest
from rookery.engine import (
    FOLLOW_MASKS,
    PASS,
    PRESETS,
    ROOK_MASK,
    SUIT_MASKS,
    TRICK_KEYS,
    TRUMP_MASKS,
    AllPass,
    Bid,
    Game,
    Phase,
    PlayCard,
    TrickWon,
    bidding_seats,
    legal_play_mask,
    mask_points,
    parse_card,
    playable,
    redeal_result,
    score_hand,
    trick_winner,
)


def test_the_tables_say_what_rules_md_5_says() -> None:
    for trump in range(4):
        assert TRUMP_MASKS[trump] == SUIT_MASKS[trump] | ROOK_MASK
        keys = TRICK_KEYS[trump]
        trumps = sorted(
            (card for card in range(58) if TRUMP_MASKS[trump] >> card & 1), key=keys.__getitem__
        )
        # ROOK over ROOK2 over the trump 14 … the trump 1; every trump over every plain card.
        assert trumps[-3:] == [14 * trump + 13, 57, 56]
        assert trumps[:-2] == list(range(14 * trump, 14 * trump + 14))
        plain = [card for card in range(56) if card // 14 != trump]
        assert min(keys[card] for card in trumps) > max(keys[card] for card in plain)
        for card in range(58):
            led = (
                TRUMP_MASKS[trump] if card >= 56 or card // 14 == trump else SUIT_MASKS[card // 14]
            )
            assert FOLLOW_MASKS[trump][card] == led
    with_rook = 1 << parse_card("B3") | 1 << parse_card("R7") | ROOK_MASK
    assert playable(with_rook, SUIT_MASKS[0], rook_free_play=True) == with_rook & ~(
        1 << parse_card("R7")
    )
    assert playable(with_rook, SUIT_MASKS[0], rook_free_play=False) == 1 << parse_card("B3")
    assert playable(with_rook, SUIT_MASKS[2], rook_free_play=False) == with_rook
    assert playable(with_rook, 0, rook_free_play=False) == with_rook


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_the_rule_functions_decide_as_the_game_over_random_games(preset: str) -> None:
    rng = random.Random(f"rulebook:{preset}")
    base = PRESETS[preset].replace(max_hands=4)
    scored = redeals = 0
    for index in range(6):
        rules = base.replace(all_pass=AllPass.REDEAL) if index % 3 == 2 else base
        game = Game(rules, rng.randrange(1 << 64))
        while not game.is_over:
            legal = game.legal_actions()
            if legal.phase is Phase.BIDDING:
                action = Bid(legal.bids[0]) if legal.bids and rng.random() < 0.3 else PASS
                before = len(game.hand_results)
                game.apply(action)
                if len(game.hand_results) > before:  # every seat passed: a redeal
                    redeals += 1
                    done = game.hand_results[-1]
                    assert done == redeal_result(
                        rules,
                        hand_number=done.hand_number,
                        dealer=done.dealer,
                        scores_after=done.scores_after,
                        deal=done.deal,
                    )
                continue
            if legal.phase is Phase.PLAY:
                obs = game.observation_for(legal.player)
                assert obs.trump is not None
                cards = [card for _, card in obs.current_trick.cards]
                lead = cards[0] if cards else -1
                assert legal.play == legal_play_mask(
                    obs.hand, lead, obs.trump, rules.rook_free_play
                )
                card = rng.choice([c for c in range(58) if legal.play >> c & 1])
                hand_number = game.hand_number
                game.apply(PlayCard(card))
                if len(cards) + 1 == rules.players and game.hand_number == hand_number:
                    trick = game.observation_for(-1).completed_tricks[-1]
                    played = [c for _, c in trick.cards]
                    assert trick.cards[trick_winner(played, obs.trump)][0] == trick.winner
                if game.hand_results and game.hand_results[-1].hand_number == hand_number:
                    scored += 1
                    _check_score(game)
                continue
            game.apply(legal.sample(rng))
    assert scored


def _check_score(game: Game) -> None:
    """The last hand's result, scored again from the tricks each seat won."""
    rules = game.ruleset
    result = game.hand_results[-1]
    assert not result.redeal
    seats = bidding_seats(rules, result.bidder, result.partner)
    assert result.bidder in seats
    if rules.is_per_player:
        assert seats == (
            (result.bidder, result.partner) if result.partner >= 0 else (result.bidder,)
        )
    else:
        assert seats == rules.seats_of_side(rules.side_of(result.bidder))
    tricks = [
        event
        for event in game.events
        if isinstance(event, TrickWon) and event.hand_number == result.hand_number
    ]
    counted = [0] * rules.players
    for trick in tricks:
        counted[trick.seat] += trick.points
    counted[tricks[-1].seat] += rules.last_trick_bonus
    score = score_hand(
        rules,
        counted,
        bidder=result.bidder,
        partner=result.partner,
        bid=result.bid,
        buried_points=mask_points(result.buried),
    )
    assert (score.made, score.bidding_total) == (result.made, result.bidding_total)
    assert score.points_per_side == result.points_per_side
    assert score.score_deltas == result.score_deltas
