"""The JSON views behind the pages: events, hands, replays and live tables, public by construction.

Every card a view names is public when the view is made: events pass through ``event.view(None)``
(the spectator's view), and a hand's hidden cards (the deal, the nest, the buried and dead cards)
appear only in its ``reveal``, which is filled in once the hand is over: scored, or cut short by
the end of a finished game. Conversion from engine values to JSON lives here and nowhere else.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from rookery.engine import (
    AuctionWon,
    BidMade,
    CardCalled,
    CardPlayed,
    CardsBuried,
    Event,
    Game,
    GameOver,
    GameResult,
    HandDealt,
    HandRedealt,
    HandResult,
    HandScored,
    LegalActions,
    NestTaken,
    PartnerRevealed,
    Passed,
    Phase,
    Ruleset,
    TrickWon,
    TrumpNamed,
    card_name,
    cards_of,
    deal_for_hand,
)
from rookery.server import Table
from rookery.v1 import replay_pb2, results_pb2, table_pb2
from rookery.wire.convert import action_from_proto, ruleset_from_proto, termination_name
from rookery.wire.replay import replay_to_record

from ._moves import annotate_moves

__all__ = [
    "cards_json",
    "event_json",
    "game_result_json",
    "hand_result_json",
    "hand_views",
    "legal_json",
    "live_table_json",
    "replay_json",
    "replay_moves",
    "ruleset_json",
    "table_summary_json",
    "termination_name",
]

JSON = dict[str, Any]


def cards_json(mask: int) -> list[str]:
    """A card set as text forms, in card order (``["B5", "R14", "ROOK"]``)."""
    return [card_name(card) for card in cards_of(mask)]


def ruleset_json(ruleset: Ruleset) -> JSON:
    """What the pages need of a ruleset: its name, seats, sides and target, and every parameter."""
    return {
        "name": ruleset.name,
        "players": ruleset.players,
        "num_sides": ruleset.num_sides,
        "sides": [ruleset.side_of(seat) for seat in range(ruleset.players)],
        "target": ruleset.target,
        "hand_size": ruleset.hand_size,
        "nest_size": ruleset.nest_size,
        "parameters": ruleset.to_dict(),
    }


def hand_result_json(result: HandResult) -> JSON:
    """A scored hand, everything revealed (only ever made for a hand that is over)."""
    deal = result.deal
    return {
        "hand": result.hand_number,
        "dealer": result.dealer,
        "bidder": result.bidder,
        "bid": result.bid,
        "forced": result.forced,
        "trump": result.trump.letter if result.trump is not None else None,
        "made": result.made,
        "bidding_total": result.bidding_total,
        "points_per_side": list(result.points_per_side),
        "score_deltas": list(result.score_deltas),
        "scores_after": list(result.scores_after),
        "called_card": card_name(result.called_card) if result.called_card >= 0 else None,
        "partner": result.partner,
        "redeal": result.redeal,
        "reveal": {
            "hands": [cards_json(hand) for hand in deal.hands],
            "nest": cards_json(deal.nest),
            "dead": cards_json(deal.dead),
            "buried": cards_json(result.buried),
        },
    }


def game_result_json(result: GameResult) -> JSON:
    """A finished game's result."""
    return {
        "winners": list(result.winners),
        "scores": list(result.scores),
        "hands_played": result.hands_played,
        "reason": result.reason.value,
    }


def event_json(event: Event) -> JSON:
    """One event as a spectator may see it (the event is passed through ``view(None)`` first)."""
    public = event.view(None)
    out: JSON = {"seq": public.seq, "hand": public.hand_number}
    if isinstance(public, HandDealt):
        out.update(type="dealt", dealer=public.dealer)
    elif isinstance(public, BidMade):
        out.update(type="bid", seat=public.seat, amount=public.amount)
    elif isinstance(public, Passed):
        out.update(type="pass", seat=public.seat)
    elif isinstance(public, AuctionWon):
        out.update(type="auction_won", seat=public.seat, amount=public.amount, forced=public.forced)
    elif isinstance(public, HandRedealt):
        out.update(type="redeal", dealer=public.dealer)
    elif isinstance(public, NestTaken):
        out.update(type="nest_taken", seat=public.seat, count=public.count)
    elif isinstance(public, TrumpNamed):
        out.update(type="trump", seat=public.seat, suit=public.suit.letter)
    elif isinstance(public, CardsBuried):
        out.update(type="buried", seat=public.seat, count=public.count)
    elif isinstance(public, CardCalled):
        out.update(type="called", seat=public.seat, card=card_name(public.card))
    elif isinstance(public, PartnerRevealed):
        out.update(type="partner", seat=public.seat)
    elif isinstance(public, CardPlayed):
        out.update(type="play", seat=public.seat, card=card_name(public.card))
    elif isinstance(public, TrickWon):
        out.update(
            type="trick", seat=public.seat, points=public.points, trick=public.trick_index + 1
        )
    elif isinstance(public, HandScored):
        out.update(type="scored", result=hand_result_json(public.result))
    elif isinstance(public, GameOver):
        out.update(type="game_over", result=game_result_json(public.result))
    else:  # pragma: no cover - a new event kind must be added above
        raise TypeError(f"no JSON form for event {type(public).__name__}")
    return out


def _hand_reveal(ruleset: Ruleset, seed: int, number: int, events: Sequence[Event]) -> JSON:
    """The hidden cards of a hand cut short by the end of the game (no scored result)."""
    deal = deal_for_hand(ruleset, seed, number)
    buried = 0
    for event in events:
        if isinstance(event, CardsBuried):
            buried = event.cards
    return {
        "hands": [cards_json(hand) for hand in deal.hands],
        "nest": cards_json(deal.nest),
        "dead": cards_json(deal.dead),
        "buried": cards_json(buried),
    }


def hand_views(
    events: Iterable[Event],
    num_sides: int,
    *,
    game_over: bool,
    ruleset: Ruleset | None = None,
    seed: int = 0,
) -> list[JSON]:
    """The hands of a game as the viewer steps through them, each with its public steps.

    ``reveal`` holds a hand's hidden cards once it is over: from its scored result, or, when
    ``game_over`` and ``ruleset``/``seed`` are given, for a last hand cut short by a forfeit or an
    abort. A hand still being played has ``reveal`` None.
    """
    hands: list[JSON] = []
    raw: dict[int, list[Event]] = {}
    scores = [0] * num_sides
    for event in events:
        number = event.hand_number
        if not hands or hands[-1]["number"] != number:
            hands.append(
                {
                    "number": number,
                    "dealer": event.dealer if isinstance(event, HandDealt) else -1,
                    "scores_before": list(scores),
                    "steps": [],
                    "result": None,
                    "reveal": None,
                }
            )
            raw[number] = []
        hand = hands[-1]
        raw[number].append(event)
        step = event_json(event)
        hand["steps"].append(step)
        if isinstance(event, HandScored):
            result = step["result"]
            hand["result"] = result
            hand["reveal"] = result["reveal"]
            if not event.result.redeal:
                scores = list(event.result.scores_after)
    if game_over and hands and hands[-1]["reveal"] is None and ruleset is not None:
        last = hands[-1]
        last["reveal"] = _hand_reveal(ruleset, seed, last["number"], raw[last["number"]])
    return hands


def _seat_json(seat: table_pb2.SeatInfo) -> JSON:
    return {
        "seat": seat.seat,
        "side": seat.side,
        "bot": seat.bot_name,
        "version": seat.bot_version,
    }


def _proto_result_json(result: results_pb2.GameResult) -> JSON:
    return {
        "winners": list(result.winners),
        "scores": list(result.scores),
        "hands_played": result.hands_played,
        "reason": termination_name(result.reason),
        "forfeit_seat": result.forfeit_seat,
        "detail": result.detail,
    }


def legal_json(legal: LegalActions) -> JSON:
    """The legal actions of a decision, compactly: the bids (and pass), the suits, the cards
    that may be buried (and how many), called or played."""
    phase = legal.phase
    if phase is Phase.BIDDING:
        return {"phase": "bid", "pass": legal.can_pass, "bids": list(legal.bids)}
    if phase is Phase.NAME_TRUMP:
        return {"phase": "trump", "suits": [suit.letter for suit in legal.suits]}
    if phase is Phase.BURY:
        return {"phase": "bury", "cards": cards_json(legal.bury_from), "count": legal.bury_count}
    if phase is Phase.CALL:
        return {"phase": "call", "cards": cards_json(legal.call_from)}
    return {"phase": "play", "cards": cards_json(legal.play)}


_OUTCOMES = {
    replay_pb2.ACTION_OUTCOME_ACCEPTED: "accepted",
    replay_pb2.ACTION_OUTCOME_AUTO_PLAYED: "auto_played",
}


def replay_moves(replay: replay_pb2.Replay, ruleset: Ruleset) -> dict[int, JSON]:
    """Every decision of a replay by the ``seq`` of the event it made: the seat, the action's
    text, its think time, how it came about (``accepted``: the bot's own reply; ``auto_played``:
    the server's fallback for a late bot), the rejected replies before it, and the legal
    actions the seat had. Call it only for a finished game (the legal actions name cards)."""
    game = Game(ruleset, replay.header.seed, events=True)
    moves: dict[int, JSON] = {}
    rejected: list[str] = []
    for h, hand in enumerate(replay.hands):
        for i, recorded in enumerate(hand.actions):
            if recorded.outcome == replay_pb2.ACTION_OUTCOME_REJECTED:
                rejected.append(recorded.rejection_reason)
                continue
            if game.is_over:
                return moves
            action = action_from_proto(recorded.action, f"hands[{h}].actions[{i}].action")
            legal = legal_json(game.legal_actions())
            before = game.last_seq
            game.apply(action)
            made = game.events_since(before)
            if made:
                moves[made[0].seq] = {
                    "seat": recorded.seat,
                    "action": str(action),
                    "think_ms": recorded.think_ms,
                    "outcome": _OUTCOMES.get(recorded.outcome, "accepted"),
                    "rejected": rejected,
                    "legal": legal,
                }
            rejected = []
    return moves


def replay_json(replay: replay_pb2.Replay, game_id: str = "") -> JSON:
    """A finished game's replay for the viewer: the seats, the result and every hand's steps.

    The game is over, so every hand carries its ``reveal``, and every step made by a decision
    its ``move`` (``replay_moves``); the viewer's spectator mode shows them only at the hand's
    end, its face-up mode at once. ``twin`` (set by the caller) is the game id of the
    duplicate twin whose replay is public, if any.
    """
    header = replay.header
    ruleset = ruleset_from_proto(header.ruleset, "header.ruleset")
    game: Game = replay_to_record(replay).replay(events=True)
    hands = hand_views(
        game.events, ruleset.num_sides, game_over=True, ruleset=ruleset, seed=header.seed
    )
    moves = replay_moves(replay, ruleset)
    for hand in hands:
        for step in hand["steps"]:
            move = moves.get(step["seq"])
            if move is not None:
                step["move"] = move
    annotate_moves(hands, replay)  # and each move's index in its hand, note and incident
    return {
        "kind": "replay",
        "game_id": game_id or header.table_id,
        "table_id": header.table_id,
        "tournament_id": header.tournament_id,
        "seed": str(header.seed),
        "ruleset": ruleset_json(ruleset),
        "seats": [_seat_json(seat) for seat in header.seats],
        "result": _proto_result_json(replay.result),
        "hands": hands,
        "twin": None,
    }


def live_table_json(table: Table) -> JSON:
    """What a spectator may see of a live table now (a ``rookery.server.Table``).

    The current hand's public steps, and the previous hand (scored, so revealed) for the
    "last hand" panel. A finished table points at its replay.
    """
    summary: table_pb2.TableSummary = table.summary()
    game: Game = table.game
    ruleset: Ruleset = table.ruleset
    events = game.events_since(0)
    hands = hand_views(events, ruleset.num_sides, game_over=False)[-2:]
    current = hands[-1] if hands else None
    previous = hands[-2] if len(hands) > 1 else None
    status = table_pb2.TableStatus.Name(summary.status).removeprefix("TABLE_STATUS_")
    return {
        "kind": "table",
        "table_id": summary.table_id,
        "tournament_id": summary.tournament_id,
        "status": status,
        "ruleset": ruleset_json(ruleset),
        "seats": [_seat_json(seat) for seat in summary.seats],
        "hand_number": summary.hand_number,
        "scores": list(summary.scores),
        "last_seq": events[-1].seq if events else 0,
        "current_player": game.current_player if game.current_player is not None else -1,
        "phase": game.phase.name,
        "clock": table.clock_view() if hasattr(table, "clock_view") else None,
        "hand": current,
        "previous_hand": previous,
        "result": _proto_result_json(summary.result) if summary.HasField("result") else None,
        "created_at": summary.created_at.ToMilliseconds() / 1000.0,
    }


def table_summary_json(table: Table) -> JSON:
    """One line of the live tables list."""
    summary: table_pb2.TableSummary = table.summary()
    return {
        "table_id": summary.table_id,
        "tournament_id": summary.tournament_id,
        "status": table_pb2.TableStatus.Name(summary.status).removeprefix("TABLE_STATUS_"),
        "ruleset": summary.ruleset.name,
        "seats": [_seat_json(seat) for seat in summary.seats],
        "hand_number": summary.hand_number,
        "scores": list(summary.scores),
        "result": _proto_result_json(summary.result) if summary.HasField("result") else None,
        "created_at": summary.created_at.ToMilliseconds() / 1000.0,
    }
