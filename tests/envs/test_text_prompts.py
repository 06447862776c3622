"""The text seat's prompts state the complete rules of each preset (the dead cards of nest-4,
nest-6 and straight among them), and docs/ai-prompts.md shows exactly what a model is sent."""

from __future__ import annotations

from pathlib import Path

import pytest
from rookery.engine import PRESETS, AllPass, BothOver, FirstLead, Partnership, Ruleset
from rookery.envs.text import preset_prompts, rules_summary

PAGE = Path(__file__).resolve().parents[2] / "docs" / "ai-prompts.md"


@pytest.mark.parametrize("name", list(PRESETS))
def test_the_rules_summary_states_every_rule_of_the_preset(name: str) -> None:
    r = Ruleset.preset(name)
    summary = rules_summary(r)
    musts = {
        f"{r.players} players": True,
        f"ranks {r.lowest_rank}-14": True,
        f"every player gets {r.hand_size} cards": True,
        f"{r.hand_size} tricks are played": True,
        f"at least {r.min_bid}": True,
        f"at most {r.effective_max_bid}": True,
        f"a multiple of {r.bid_step}": True,
        f"deck total {r.deck_points}": True,
        f"The game goes to {r.target}": True,
        f"After {r.max_hands} hands": True,
        f"the {r.dead_count} card(s) left over": r.dead_count > 0,
        "are dead: out of play for the whole hand": r.dead_count > 0,
        f"{r.nest_size} go face down to the nest": r.nest_size > 0,
        "(no nest)": r.nest_size == 0,
        "then name trump": r.nest_size > 0 and not r.trump_first,
        "name trump, then bury": r.nest_size > 0 and r.trump_first,
        "ROOK, then ROOK2": r.rook_cards == 2,
        "the bidder calls a card": r.partnership is Partnership.CALLED,
        "fixed teams": r.partnership is Partnership.FIXED,
        "each for themself": r.partnership is Partnership.NONE,
        "even when you could follow suit": r.rook_free_play,
        "The seat left of the bidder leads": r.first_lead is FirstLead.LEFT_OF_BIDDER,
        "the bidding side wins if it is among them": r.both_over is BothOver.BIDDER_WINS,
        "the same dealer deals a new hand": r.all_pass is AllPass.REDEAL,
        "'MOVE: <move>'": True,
    }
    wrong = {text: must for text, must in musts.items() if (text in summary) != must}
    assert not wrong, f"{name}: {wrong}\n{summary}"


def test_the_dead_cards_of_nest_4_nest_6_and_straight_are_stated() -> None:
    assert "the 1 card(s) left over (57 - 4 does not divide by 4) are dead" in rules_summary(
        Ruleset.preset("nest-4")
    )
    assert "the 3 card(s) left over (57 - 6 does not divide by 4) are dead" in rules_summary(
        Ruleset.preset("nest-6")
    )
    straight = rules_summary(Ruleset.preset("straight"))
    assert "14 cards (no nest); the 1 card(s) left over" in straight
    assert "The last bidder left is the bidder and names trump." in straight


def test_rules_no_preset_uses_are_stated_too() -> None:
    custom = Ruleset.preset("called-partner").replace(
        all_pass=AllPass.DEALER_FORCED, last_trick_bonus=20, nest_size=4
    )
    summary = rules_summary(custom)
    assert "If everyone passes, the dealer becomes the bidder at 70." in summary
    assert "The side that wins the last trick scores 20 more." in summary
    assert "if the called card is dead, the bidder plays alone" in summary


def test_the_prompts_page_is_what_the_seat_sends() -> None:
    assert PAGE.read_text(encoding="utf-8") == preset_prompts(), (
        "regenerate: .venv/bin/python -c 'from rookery.envs.text import preset_prompts; "
        'print(preset_prompts(), end="")\' > docs/ai-prompts.md'
    )
