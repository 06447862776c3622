"""The incidents of a game's moves, read from its replay: how each move that was not simply the
bot's own reply came about.

A *move* is an action the game applied (accepted or auto-played), numbered within its hand
from 0; a rejected reply belongs to the move that followed it. Kinds:

- ``fallback``: the bot's SDK or kit made the reply because the bot's code failed (the reason);
- ``auto_played``: the bot was late and the server played for it;
- ``rejected``: a reply the server refused before the move (the server's message).
"""

from __future__ import annotations

from dataclasses import dataclass

from rookery.v1 import replay_pb2

__all__ = ["AUTO_PLAYED", "FALLBACK", "REJECTED", "MoveIncident", "replay_move_incidents"]

FALLBACK = "fallback"
AUTO_PLAYED = "auto_played"
REJECTED = "rejected"


@dataclass(frozen=True)
class MoveIncident:
    """One incident at one move of one game."""

    game_id: str
    game_index: int
    bot: str
    seat: int
    hand: int
    """The hand number, from 0."""
    move: int
    """The move within the hand, from 0 (applied actions only)."""
    kind: str
    detail: str

    def to_dict(self) -> dict[str, str | int]:
        """A JSON-able dict."""
        return {
            "game_id": self.game_id,
            "game_index": self.game_index,
            "bot": self.bot,
            "seat": self.seat,
            "hand": self.hand,
            "move": self.move,
            "kind": self.kind,
            "detail": self.detail,
        }


def replay_move_incidents(
    replay: replay_pb2.Replay, game_id: str, game_index: int, seat_bots: tuple[str, ...]
) -> list[MoveIncident]:
    """Every incident of ``replay``'s moves, in order; ``seat_bots`` names each seat's bot."""
    incidents: list[MoveIncident] = []
    rejected = replay_pb2.ACTION_OUTCOME_REJECTED
    auto_played = replay_pb2.ACTION_OUTCOME_AUTO_PLAYED
    for hand in replay.hands:
        move = 0
        for recorded in hand.actions:
            outcome = recorded.outcome
            if outcome != rejected and outcome != auto_played and not recorded.HasField("fallback"):
                move += 1  # the bot's own reply, applied: most moves, no incident
                continue
            seat = recorded.seat
            bot = seat_bots[seat] if 0 <= seat < len(seat_bots) else f"seat {seat}"
            found: list[tuple[str, str]] = []
            if outcome == rejected:
                found.append((REJECTED, recorded.rejection_reason))
            else:
                if outcome == auto_played:
                    found.append((AUTO_PLAYED, "late: the server played for the bot"))
                if recorded.HasField("fallback"):
                    found.append((FALLBACK, recorded.fallback.reason))
            incidents.extend(
                MoveIncident(game_id, game_index, bot, seat, hand.hand_number, move, kind, detail)
                for kind, detail in found
            )
            if outcome != rejected:
                move += 1
    return incidents
