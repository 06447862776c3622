"""Double-dummy analysis of a replay: what each card of the play cost its side.

Every position of a hand's play is valued by the native core's double-dummy solver
(``rookery.engine.DoubleDummy``): with every hand known, the bidding side's total for the hand
under perfect play from there on by both sides (the points it has taken, the buried cards, and
the solver's value of the rest). A card's *cost* is what that total moved against the card's
side: a bidding seat's card can only lower it, a defender's only raise it. So along a hand::

    sum(bidding side's costs) - sum(defenders' costs) == dd_value - taken

where ``dd_value`` is the total at the first card (the contract is *makeable* when it reaches
the bid) and ``taken`` the bidding side's actual total. Seats outside the bidding side are one
side to the solver, also in the rulesets that score each player apart.

Positions are solved from the last card back, so each search finds the table filled by the
later ones; a search past ``node_limit`` nodes (0: no limit) stops the hand's analysis there:
that card and every earlier one stay unvalued (``None``). Only finished hands are analysed: a
replay is history, and what it withholds while a game runs is the server's business, not this
module's.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping, Sequence

from rookery.engine import (
    DoubleDummy,
    Game,
    HandResult,
    Phase,
    PlayCard,
    Ruleset,
    Suit,
    bidding_seats,
    card_name,
    mask_points,
)
from rookery.v1 import replay_pb2

from .convert import action_from_proto, ruleset_from_proto
from .documents import JsonValue
from .errors import MalformedMessageError, WireError
from .replay import verify_replay

__all__ = [
    "DEFAULT_NODE_LIMIT",
    "REGRET_TRICKS",
    "AnalysisError",
    "BotRegret",
    "GameAnalysis",
    "HandAnalysis",
    "PlayAnalysis",
    "analysis_to_json",
    "analyze_replay",
    "format_analysis",
    "hand_to_json",
    "regret_by_bot",
]

#: The most nodes one position's search may take before the analysis of its hand stops there.
DEFAULT_NODE_LIMIT = 2_000_000

_APPLIED = (replay_pb2.ACTION_OUTCOME_ACCEPTED, replay_pb2.ACTION_OUTCOME_AUTO_PLAYED)


class AnalysisError(WireError):
    """A replay that cannot be analysed: it does not re-simulate, or the solver is missing."""


@dataclasses.dataclass(frozen=True, slots=True)
class PlayAnalysis:
    """One card of the play and what it cost.

    ``before`` and ``after`` are the bidding side's double-dummy total for the hand before and
    after the card; ``cost`` the points the card lost its own side (0 for a best card);
    ``best`` a card that would have lost nothing (-1 when the card was best). All of them are
    ``None`` / -1 where the position was not valued (past the node limit, or before the
    tricks analysed).
    """

    trick: int
    seat: int
    card: int
    is_bidding_side: bool
    before: int | None
    after: int | None
    best: int = -1

    @property
    def cost(self) -> int | None:
        """The points this card lost its side under perfect play afterwards (``None``: unsolved)."""
        if self.before is None or self.after is None:
            return None
        change = self.after - self.before
        return -change if self.is_bidding_side else change

    def describe(self) -> str:
        """A line for people: ``-20: seat 2 G14 gave the opponents 20 points (G5 lost none)``."""
        cost = self.cost
        card = f"seat {self.seat} {card_name(self.card)}"
        if cost is None:
            return f"?: {card} (not valued)"
        if cost == 0:
            return f"0: {card}"
        better = f" ({card_name(self.best)} lost none)" if self.best >= 0 else ""
        return f"-{cost}: {card} gave the opponents {cost} points{better}"


@dataclasses.dataclass(frozen=True, slots=True)
class HandAnalysis:
    """One finished hand: its contract, its double-dummy value and every card's cost.

    ``dd_value`` is the bidding side's total under perfect play from the first card (buried
    cards included; ``None`` when that position was not solved); ``taken`` what it actually
    took. ``skipped`` says why a hand has no plays analysed (a redeal, a hand not finished).
    """

    hand_number: int
    bidder: int
    bid: int
    trump: Suit | None
    bidding_seats: tuple[int, ...]
    taken: int
    dd_value: int | None
    plays: tuple[PlayAnalysis, ...]
    skipped: str = ""

    @property
    def makeable(self) -> bool | None:
        """Whether the contract makes under perfect play by both sides (``None``: unsolved)."""
        return None if self.dd_value is None else self.dd_value >= self.bid

    @property
    def made(self) -> bool:
        """Whether the bidding side made its bid."""
        return self.taken >= self.bid

    @property
    def solved_plays(self) -> int:
        """How many cards have a cost (the last ones of the hand)."""
        return sum(1 for play in self.plays if play.cost is not None)

    def side_costs(self) -> tuple[int, int]:
        """The bidding side's and the defenders' summed costs over the solved cards."""
        bidding = defending = 0
        for play in self.plays:
            cost = play.cost
            if cost is not None:
                if play.is_bidding_side:
                    bidding += cost
                else:
                    defending += cost
        return bidding, defending


@dataclasses.dataclass(frozen=True, slots=True)
class GameAnalysis:
    """Every hand of a replay, analysed (``node_limit`` as used; 0: none); ``results`` holds
    the engine's result of every finished hand, by hand number."""

    ruleset: Ruleset
    hands: tuple[HandAnalysis, ...]
    node_limit: int
    results: tuple[HandResult, ...] = ()


@dataclasses.dataclass(slots=True)
class _Position:
    """A position of the play just before ``seat`` played ``card``."""

    trick: int
    seat: int
    card: int
    hands: tuple[int, ...]
    leader: int
    open_trick: list[int]
    won: list[tuple[int, int]]  # (winner, points) of the completed tricks


def analyze_replay(
    replay: replay_pb2.Replay,
    *,
    node_limit: int = DEFAULT_NODE_LIMIT,
    hands: Sequence[int] | None = None,
    last_tricks: int | None = None,
) -> GameAnalysis:
    """Analyse the finished hands of ``replay`` (only those numbered in ``hands`` when given;
    with ``last_tricks``, only the cards of each hand's last that many tricks are valued, the
    same share of every hand whatever the solver's speed).

    Raises ``AnalysisError`` for a replay that does not re-simulate (its first problems named)
    or when the native core is not built.
    """
    problems = verify_replay(replay)
    if problems:
        shown = "; ".join(problems[:3])
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        raise AnalysisError(f"the replay does not re-simulate: {shown}{more}")
    if not DoubleDummy.available():
        raise AnalysisError(
            "the double-dummy solver needs the engine on the native core (rookery_core), which "
            "'make setup' builds where cargo is found (and ROOKERY_PURE_ENGINE unset)"
        )
    try:
        ruleset = ruleset_from_proto(replay.header.ruleset, "header.ruleset")
    except MalformedMessageError as error:  # pragma: no cover - verify_replay caught it
        raise AnalysisError(str(error)) from error
    game = Game(ruleset, replay.header.seed, events=False)
    wanted = None if hands is None else set(hands)
    analysed: list[HandAnalysis] = []
    for index, hand in enumerate(replay.hands):
        positions: list[_Position] = []
        for recorded in hand.actions:
            if recorded.outcome not in _APPLIED:
                continue
            action = action_from_proto(recorded.action)
            if game.phase is Phase.PLAY and isinstance(action, PlayCard):
                positions.append(_position(game, recorded.seat, action.card))
            game.apply(action)
        if wanted is not None and index not in wanted:
            continue
        if len(game.hand_results) <= index:
            analysed.append(_unfinished(index))
            continue
        result = game.hand_results[index]
        if last_tricks is not None:
            first = ruleset.hand_size - last_tricks
            # The positions of earlier tricks are kept (unvalued), so the plays stay complete.
            solvable = sum(1 for position in positions if position.trick >= first)
        else:
            solvable = len(positions)
        analysed.append(_analyse_hand(ruleset, result, positions, node_limit, solvable))
    return GameAnalysis(ruleset, tuple(analysed), node_limit, tuple(game.hand_results))


def _position(game: Game, seat: int, card: int) -> _Position:
    view = game.public_view()
    trick = view.current_trick
    return _Position(
        trick=len(view.completed_tricks),
        seat=seat,
        card=card,
        hands=game.hands,
        leader=trick.leader,
        open_trick=[played for _, played in trick.cards],
        won=[(done.winner, done.points) for done in view.completed_tricks],
    )


def _unfinished(index: int) -> HandAnalysis:
    return HandAnalysis(index, -1, 0, None, (), 0, None, (), skipped="the hand is not finished")


def _analyse_hand(
    ruleset: Ruleset,
    result: HandResult,
    positions: list[_Position],
    node_limit: int,
    solvable: int,
) -> HandAnalysis:
    if result.redeal or result.trump is None or not positions:
        return HandAnalysis(
            result.hand_number,
            result.bidder,
            result.bid,
            result.trump,
            (),
            result.bidding_total,
            None,
            (),
            skipped="every player passed: the hand was redealt" if result.redeal else "no play",
        )
    seats = bidding_seats(ruleset, result.bidder, result.partner)
    side = sum(1 << seat for seat in seats)
    buried = mask_points(result.buried)
    solver = DoubleDummy(
        ruleset.players,
        int(result.trump),
        side,
        rook_free_play=ruleset.rook_free_play,
        last_trick_bonus=ruleset.last_trick_bonus,
        node_limit=node_limit,
    )
    # totals[i]: the bidding side's total before card i; the last one is what it took.
    totals: list[int | None] = [None] * len(positions) + [result.bidding_total]
    for i in range(len(positions) - 1, len(positions) - 1 - solvable, -1):
        position = positions[i]
        taken = sum(points for winner, points in position.won if side >> winner & 1)
        # The total after the card bounds the total before it: the card's seat could play it,
        # so a bidding seat's position is worth that much or more, a defender's that or less.
        after = totals[i + 1]
        known = None if after is None else after - buried - taken
        bidding = bool(side >> position.seat & 1)
        try:
            rest = solver.solve(
                list(position.hands),
                position.leader,
                position.open_trick,
                at_least=known if bidding else None,
                at_most=None if bidding else known,
            )
        except ValueError:
            break
        totals[i] = buried + taken + rest
    plays = []
    for i, position in enumerate(positions):
        is_bidding = bool(side >> position.seat & 1)
        play = PlayAnalysis(
            position.trick, position.seat, position.card, is_bidding, totals[i], totals[i + 1]
        )
        if play.cost:
            play = dataclasses.replace(play, best=_best_card(solver, position, is_bidding))
        plays.append(play)
    return HandAnalysis(
        result.hand_number,
        result.bidder,
        result.bid,
        result.trump,
        seats,
        result.bidding_total,
        totals[0],
        tuple(plays),
    )


def _best_card(solver: DoubleDummy, position: _Position, is_bidding: bool) -> int:
    """A card of the seat that keeps the position's value (the lowest, for a stable answer)."""
    try:
        values = solver.card_values(list(position.hands), position.leader, position.open_trick)
    except ValueError:
        return -1
    best = max if is_bidding else min
    target = best(value for _, value in values)
    return min(card for card, value in values if value == target)


def format_analysis(
    analysis: GameAnalysis,
    *,
    min_cost: int = 0,
    hand_notes: Mapping[int, Sequence[str]] | None = None,
) -> str:
    """The analysis as text: per hand its contract and double-dummy outcome, then every card
    with its cost (with ``min_cost``, only the valued cards that cost at least that much).
    ``hand_notes`` holds more lines for a hand, by hand number, printed before its cards."""
    lines: list[str] = []
    for hand in analysis.hands:
        if hand.skipped:
            lines.append(f"hand {hand.hand_number}: {hand.skipped}")
            continue
        trump = hand.trump.name.lower() if hand.trump is not None else "-"
        side = " and ".join(str(seat) for seat in hand.bidding_seats)
        lines.append(
            f"hand {hand.hand_number}: seat {hand.bidder} bid {hand.bid}, trump {trump}; "
            f"bidding side: seat{'s' if len(hand.bidding_seats) > 1 else ''} {side}"
        )
        if hand.dd_value is None:
            lines.append(
                f"  double-dummy: not solved under {analysis.node_limit:,} nodes a position "
                f"({hand.solved_plays} of {len(hand.plays)} cards valued, the last ones)"
            )
        else:
            outcome = "makeable" if hand.makeable else "not makeable"
            lines.append(f"  double-dummy: {hand.dd_value} ({outcome} against {hand.bid})")
        made = "made" if hand.made else "set"
        bidding, defending = hand.side_costs()
        lines.append(
            f"  taken: {hand.taken} ({made}); cards' cost: bidding side {bidding}, "
            f"defenders {defending}"
        )
        lines.extend((hand_notes or {}).get(hand.hand_number, ()))
        for play in hand.plays:
            cost = play.cost
            if min_cost <= 0 or (cost is not None and cost >= min_cost):
                lines.append(f"  trick {play.trick + 1}: {play.describe()}")
    return "\n".join(lines) + "\n"


def analysis_to_json(analysis: GameAnalysis) -> dict[str, JsonValue]:
    """The analysis as JSON-able values (cards and suits as text forms)."""
    return {
        "ruleset": analysis.ruleset.name,
        "node_limit": analysis.node_limit,
        "hands": [hand_to_json(hand) for hand in analysis.hands],
    }


def hand_to_json(hand: HandAnalysis) -> dict[str, JsonValue]:
    """One hand's analysis as JSON-able values (an entry of ``analysis_to_json``'s hands)."""
    bidding, defending = hand.side_costs()
    return {
        "hand": hand.hand_number,
        "skipped": hand.skipped,
        "bidder": hand.bidder,
        "bid": hand.bid,
        "trump": hand.trump.name.lower() if hand.trump is not None else None,
        "bidding_seats": list(hand.bidding_seats),
        "dd_value": hand.dd_value,
        "makeable": hand.makeable,
        "taken": hand.taken,
        "made": None if hand.skipped else hand.made,
        "bidding_side_cost": bidding,
        "defenders_cost": defending,
        "plays": [
            {
                "trick": play.trick,
                "seat": play.seat,
                "card": card_name(play.card),
                "bidding_side": play.is_bidding_side,
                "before": play.before,
                "after": play.after,
                "cost": play.cost,
                "best": card_name(play.best) if play.best >= 0 else None,
            }
            for play in hand.plays
        ],
    }


#: The tricks at the end of each hand whose cards ``regret_by_bot`` values.
REGRET_TRICKS = 6


@dataclasses.dataclass(frozen=True, slots=True)
class BotRegret:
    """What one bot's cards cost its sides over some games: ``play`` points over ``cards``
    cards valued, in ``hands`` hands (the last ``REGRET_TRICKS`` tricks of each)."""

    bot: str
    hands: int
    cards: int
    play: int

    @property
    def play_per_hand(self) -> float:
        """The points a hand its cards cost."""
        return self.play / self.hands if self.hands else 0.0


def regret_by_bot(
    replays: Iterable[replay_pb2.Replay], *, last_tricks: int = REGRET_TRICKS
) -> dict[str, BotRegret]:
    """Per bot (the header's seat names), the double-dummy cost of its cards in the last
    ``last_tricks`` tricks of every finished hand of ``replays``, summed; a replay that does
    not re-simulate raises ``AnalysisError``."""
    totals: dict[str, list[int]] = {}
    for replay in replays:
        names = [seat.bot_name for seat in replay.header.seats]
        analysis = analyze_replay(replay, last_tricks=last_tricks)
        for hand in analysis.hands:
            if hand.skipped:
                continue
            seen: set[str] = set()
            for play in hand.plays:
                cost = play.cost
                if cost is None or play.seat >= len(names):
                    continue
                name = names[play.seat]
                entry = totals.setdefault(name, [0, 0, 0])
                entry[1] += 1
                entry[2] += cost
                if name not in seen:
                    seen.add(name)
                    entry[0] += 1
    return {
        name: BotRegret(name, hands, cards, play)
        for name, (hands, cards, play) in sorted(totals.items())
    }
