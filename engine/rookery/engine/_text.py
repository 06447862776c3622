"""A game record as text a person can read, hand by hand."""

from __future__ import annotations

from ._cards import card_name, format_cards
from ._events import (
    AuctionWon,
    BidMade,
    CardCalled,
    CardPlayed,
    CardsBuried,
    GameOver,
    HandDealt,
    HandRedealt,
    HandScored,
    NestTaken,
    PartnerRevealed,
    Passed,
    TrickWon,
    TrumpNamed,
)
from ._record import GameRecord
from ._results import GameResult

__all__ = ["format_replay_text"]


def format_replay_text(record: GameRecord) -> str:
    """The game of ``record`` (re-simulated) as plain text: every hand's deal, auction, exchange,
    tricks and score, then the result. Everything is shown: this is a replay, not a table view.
    """
    game = record.replay()
    rules = game.ruleset
    lines = [
        f"Rookery game: ruleset {rules.name}, seed {record.seed}, {rules.players} players, "
        f"{rules.num_sides} sides",
    ]
    auction: list[str] = []
    trick: list[str] = []
    for event in game.events:
        if isinstance(event, HandDealt):
            lines.append("")
            lines.append(f"Hand {event.hand_number} (dealer {event.dealer})")
            for seat, hand in enumerate(event.hands):
                lines.append(f"  seat {seat}: {format_cards(hand)}")
            auction = []
        elif isinstance(event, BidMade):
            auction.append(f"{event.seat}:{event.amount}")
        elif isinstance(event, Passed):
            auction.append(f"{event.seat}:pass")
        elif isinstance(event, AuctionWon):
            forced = " (dealer forced)" if event.forced else ""
            lines.append(f"  auction: {' '.join(auction)}")
            lines.append(f"  bidder: seat {event.seat} at {event.amount}{forced}")
        elif isinstance(event, HandRedealt):
            lines.append(f"  auction: {' '.join(auction)}")
            lines.append(f"  all passed: dealer {event.dealer} deals again")
        elif isinstance(event, NestTaken):
            lines.append(f"  nest: {format_cards(event.cards)}")
        elif isinstance(event, TrumpNamed):
            lines.append(f"  trump: {event.suit.letter}")
        elif isinstance(event, CardsBuried):
            lines.append(f"  buried: {format_cards(event.cards)}")
        elif isinstance(event, CardCalled):
            lines.append(f"  called: {card_name(event.card)}")
        elif isinstance(event, CardPlayed):
            trick.append(f"{event.seat}:{card_name(event.card)}")
        elif isinstance(event, PartnerRevealed):
            trick[-1] += "*"
        elif isinstance(event, TrickWon):
            lines.append(
                f"  trick {event.trick_index + 1:>2}: {' '.join(trick)} -> {event.seat} "
                f"(+{event.points})"
            )
            trick = []
        elif isinstance(event, HandScored):
            result = event.result
            if result.deal.dead:
                lines.append(f"  dead: {format_cards(result.deal.dead)}")
            if result.called_card >= 0:
                partner = f"seat {result.partner}" if result.partner >= 0 else "none (alone)"
                lines.append(f"  partner: {partner}")
            verdict = "made" if result.made else "set"
            lines.append(
                f"  {verdict}: bidding side took {result.bidding_total} on a bid of {result.bid}; "
                f"points {list(result.points_per_side)} deltas {list(result.score_deltas)} "
                f"scores {list(result.scores_after)}"
            )
        elif isinstance(event, GameOver):
            lines.append("")
            lines.append(_describe_result(event.result))
    if trick:
        lines.append(f"  unfinished trick: {' '.join(trick)}")
    if not game.is_over:
        lines.append("")
        lines.append(f"Game unfinished: scores {list(game.scores)}")
    return "\n".join(lines) + "\n"


def _describe_result(result: GameResult) -> str:
    if result.winners:
        sides = ", ".join(str(side) for side in result.winners)
        outcome = f"side{'s' if len(result.winners) > 1 else ''} {sides} won"
    else:
        outcome = "no winner"
    return (
        f"Game over ({result.reason.name}): {outcome}; scores {list(result.scores)} "
        f"after {result.hands_played} hands"
    )
