"""Game records: (ruleset, seed, actions) plus the results reached, and exact re-simulation."""

from __future__ import annotations

from dataclasses import dataclass

from ._actions import Action, parse_action
from ._choice import Game
from ._errors import EngineError, RecordFormatError, ReplayMismatchError, RulesetError
from ._results import GameResult, Termination
from ._ruleset import Ruleset

__all__ = ["RECORD_FORMAT", "GameRecord"]

RECORD_FORMAT = "rookery.game-record/1"
"""The ``format`` tag of ``GameRecord.to_dict()``."""


@dataclass(frozen=True)
class GameRecord:
    """Everything needed to re-simulate a game, and the results to check it against.

    A game is its ruleset, its seed and its actions; ``forfeit`` (seat, reason) or ``aborted``
    say how a game ended early. ``hand_scores`` (cumulative scores after each hand, redeals
    included) and ``result`` are what the game reached; ``replay()`` checks them when present.
    """

    ruleset: Ruleset
    seed: int
    actions: tuple[tuple[int, Action], ...]
    forfeit: tuple[int, str] | None = None
    aborted: bool = False
    hand_scores: tuple[tuple[int, ...], ...] | None = None
    result: GameResult | None = None

    @classmethod
    def from_game(cls, game: Game) -> GameRecord:
        """The record of ``game`` so far: ruleset, seed, actions, and the results reached.

        >>> from rookery.engine import Game, Ruleset
        >>> GameRecord.from_game(Game(Ruleset.preset("standard"), 7)).actions
        ()
        """
        return cls(
            ruleset=game.ruleset,
            seed=game.seed,
            actions=tuple(game.actions),
            forfeit=game.forfeited,
            aborted=game.is_aborted,
            hand_scores=tuple(result.scores_after for result in game.hand_results),
            result=game.result,
        )

    def replay(self, *, events: bool = True) -> Game:
        """Re-simulate the game; ``ReplayMismatchError`` on an illegal action or wrong result."""
        try:
            game = Game(self.ruleset, self.seed, events=events)
        except (TypeError, ValueError) as error:
            raise ReplayMismatchError(-1, f"cannot start the game: {error}") from None
        for index, (seat, action) in enumerate(self.actions):
            if game.is_over:
                raise ReplayMismatchError(index, f"the game is already over; recorded {action}")
            if game.current_player != seat:
                raise ReplayMismatchError(
                    index,
                    f"recorded seat {seat} to act with {action!s}, "
                    f"but seat {game.current_player} is to act ({game.phase.name})",
                )
            try:
                game.apply(action)
            except EngineError as error:
                raise ReplayMismatchError(index, f"seat {seat} {action!s}: {error}") from None
        try:
            if self.forfeit is not None:
                game.forfeit(*self.forfeit)
            if self.aborted:
                game.abort()
        except (EngineError, ValueError) as error:
            raise ReplayMismatchError(-1, str(error)) from None
        if self.hand_scores is not None:
            replayed = tuple(result.scores_after for result in game.hand_results)
            if replayed != self.hand_scores:
                for hand, (recorded, actual) in enumerate(
                    zip(self.hand_scores, replayed, strict=False)
                ):
                    if recorded != actual:
                        raise ReplayMismatchError(
                            -1, f"hand {hand}: recorded scores {recorded}, replayed {actual}"
                        )
                raise ReplayMismatchError(
                    -1,
                    f"recorded {len(self.hand_scores)} scored hands, replayed {len(replayed)}",
                )
        if self.result is not None and game.result != self.result:
            raise ReplayMismatchError(-1, f"recorded result {self.result}, replayed {game.result}")
        return game

    def to_dict(self) -> dict[str, object]:
        """A JSON-able dict: actions as ``[seat, "text form"]``, enums by name."""
        result = self.result
        return {
            "format": RECORD_FORMAT,
            "ruleset": self.ruleset.to_dict(),
            "seed": self.seed,
            "actions": [[seat, str(action)] for seat, action in self.actions],
            "forfeit": (
                {"seat": self.forfeit[0], "reason": self.forfeit[1]} if self.forfeit else None
            ),
            "aborted": self.aborted,
            "hand_scores": (
                [list(scores) for scores in self.hand_scores]
                if self.hand_scores is not None
                else None
            ),
            "result": (
                {
                    "winners": list(result.winners),
                    "scores": list(result.scores),
                    "hands_played": result.hands_played,
                    "reason": result.reason.name,
                }
                if result is not None
                else None
            ),
        }

    @classmethod
    def from_dict(cls, data: object) -> GameRecord:
        """The record of a dict made by ``to_dict``; ``RecordFormatError`` when it is corrupt."""
        if not isinstance(data, dict):
            raise RecordFormatError(f"a game record must be an object, got {type(data).__name__}")
        if data.get("format") != RECORD_FORMAT:
            raise RecordFormatError(
                f"unknown record format {data.get('format')!r} (expected {RECORD_FORMAT!r})"
            )
        try:
            ruleset = Ruleset.from_dict(data["ruleset"])
        except KeyError:
            raise RecordFormatError("missing key 'ruleset'") from None
        except RulesetError as error:
            raise RecordFormatError(f"bad ruleset: {error}") from None
        seed = data.get("seed")
        if type(seed) is not int:
            raise RecordFormatError(f"seed must be an int, got {seed!r}")
        raw_actions = data.get("actions")
        if not isinstance(raw_actions, list):
            raise RecordFormatError("actions must be a list")
        actions = []
        for index, entry in enumerate(raw_actions):
            if (
                not isinstance(entry, list)
                or len(entry) != 2
                or type(entry[0]) is not int
                or not isinstance(entry[1], str)
            ):
                raise RecordFormatError(f"action {index} must be [seat, text], got {entry!r}")
            try:
                actions.append((entry[0], parse_action(entry[1])))
            except EngineError as error:
                raise RecordFormatError(f"action {index}: {error}") from None
        forfeit = data.get("forfeit")
        if forfeit is not None:
            if (
                not isinstance(forfeit, dict)
                or type(forfeit.get("seat")) is not int
                or not isinstance(forfeit.get("reason", ""), str)
            ):
                raise RecordFormatError(f"forfeit must be {{seat, reason}}, got {forfeit!r}")
            forfeit = (forfeit["seat"], forfeit.get("reason", ""))
        aborted = data.get("aborted", False)
        if type(aborted) is not bool:
            raise RecordFormatError(f"aborted must be a bool, got {aborted!r}")
        hand_scores = data.get("hand_scores")
        if hand_scores is not None:
            if not isinstance(hand_scores, list) or not all(
                isinstance(row, list) and all(type(value) is int for value in row)
                for row in hand_scores
            ):
                raise RecordFormatError("hand_scores must be a list of lists of ints")
            hand_scores = tuple(tuple(row) for row in hand_scores)
        return cls(
            ruleset=ruleset,
            seed=seed,
            actions=tuple(actions),
            forfeit=forfeit,
            aborted=aborted,
            hand_scores=hand_scores,
            result=_result_from_dict(data.get("result")),
        )


def _result_from_dict(data: object) -> GameResult | None:
    if data is None:
        return None
    if not isinstance(data, dict):
        raise RecordFormatError(f"bad result: {data!r}")
    try:
        winners, scores = data["winners"], data["scores"]
        hands_played, reason = data["hands_played"], Termination[data["reason"]]
    except (KeyError, TypeError):
        raise RecordFormatError(f"bad result: {data!r}") from None
    if (
        not isinstance(winners, list)
        or not isinstance(scores, list)
        or not all(type(value) is int for value in winners + scores)
        or type(hands_played) is not int
    ):
        raise RecordFormatError(f"bad result: {data!r}")
    return GameResult(tuple(winners), tuple(scores), hands_played, reason)
