"""How a hand and a game end (RULES.md §7, §8): the hand scored once its last trick is taken,
the game over when a side wins, at ``max_hands`` or by forfeit or abort, else the next hand dealt.
"""

from __future__ import annotations

from typing import Final

from ._builders import positional_builder
from ._cards import mask_points
from ._deal import deal_for_hand
from ._events import GameOver, HandScored
from ._game_state import _GAME_OVER, _SUITS, GameState
from ._results import GameResult, HandResult, Termination
from ._rulebook import score_hand
from ._ruleset import BothOver, HandSeeds

__all__ = ["adjudicate", "finish", "finish_hand", "next_hand"]

# Enum members read through their class cost a Python-level attribute hook each (Python 3.11).
_BIDDER_WINS: Final = BothOver.BIDDER_WINS
_PLAYED_SEEDS: Final = HandSeeds.PLAYED
# HandResult(...), built faster (by each field's slot, not a frozen dataclass's __setattr__).
_new_hand_result: Final = positional_builder(HandResult)


def finish_hand(game: GameState) -> None:
    """The hand's last trick is taken: the hand is scored, then the game ends or goes on."""
    rules = game._rules
    counted = game._won[:]
    counted[game._tricks[-1].winner] += rules.last_trick_bonus
    score = score_hand(
        rules,
        counted,
        bidder=game._bidder,
        partner=game._partner,
        bid=game._bid,
        buried_points=mask_points(game._buried),
    )
    scores = game._scores
    for side, delta in enumerate(score.score_deltas):
        scores[side] += delta
    result = _new_hand_result(
        hand_number=game._hand_number,
        dealer=game._dealer,
        bidder=game._bidder,
        bid=game._bid,
        forced=game._forced,
        trump=_SUITS[game._trump],
        made=score.made,
        bidding_total=score.bidding_total,
        points_per_side=score.points_per_side,
        score_deltas=score.score_deltas,
        scores_after=tuple(scores),
        deal=game._deal,
        buried=game._buried,
        called_card=game._called,
        partner=game._partner,
        redeal=False,
    )
    game._hand_results.append(result)
    game._emit(HandScored, result)
    _check_game_end(game, score.bidding_sides)


def _check_game_end(game: GameState, bidding_sides: tuple[int, ...]) -> None:
    """RULES.md §8 after a scored hand.

    Under ``BIDDER_WINS`` the candidates are the over-target sides that took part in the bid
    (with per-player sides: the bidder's and the partner's), else every over-target side; the
    highest candidate wins and an exact tie plays another hand. ``max_hands`` adjudicates.
    """
    rules = game._rules
    scores = game._scores
    over = [side for side in range(rules.num_sides) if scores[side] >= rules.target]
    if over:
        candidates = over
        if rules.both_over is _BIDDER_WINS:
            candidates = [side for side in over if side in bidding_sides] or over
        best = max([scores[side] for side in candidates])
        top = [side for side in candidates if scores[side] == best]
        if len(top) == 1:
            finish(game, tuple(top), Termination.TARGET_REACHED)
            return
    if game._hand_number + 1 >= rules.max_hands:
        adjudicate(game)
    else:
        next_hand(game, rotate=True)


def adjudicate(game: GameState) -> None:
    """``max_hands`` reached: the highest score wins; a tie at the top is a draw."""
    best = max(game._scores)
    top = tuple(side for side, score in enumerate(game._scores) if score == best)
    finish(game, top if len(top) == 1 else (), Termination.MAX_HANDS)


def next_hand(game: GameState, *, rotate: bool) -> None:
    """Deals the next hand (the next dealer's when ``rotate``)."""
    if rotate:
        game._dealer = (game._dealer + 1) % game._rules.players
    game._hand_number += 1
    if game._rules.hand_seeds is _PLAYED_SEEDS:
        played = 0
        redeals = 0
        for result in game._hand_results:
            if result.redeal:
                redeals += 1
            else:
                played += 1
                redeals = 0
        game._start_hand(deal_for_hand(game._rules, game._seed, played, redeals=redeals))
    else:
        game._start_hand(deal_for_hand(game._rules, game._seed, game._hand_number))


def finish(game: GameState, winners: tuple[int, ...], reason: Termination) -> None:
    """Ends the game: ``winners`` (sides) and ``reason``."""
    game.is_over = True
    game._result = GameResult(
        winners=winners,
        scores=tuple(game._scores),
        hands_played=game._hand_number + 1,
        reason=reason,
    )
    game._phase = _GAME_OVER
    game._current = -1
    game._emit(GameOver, game._result)
