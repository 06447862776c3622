"""``Game`` on the native core (``rookery_core``, built from ``core/`` by ``make setup``): the
same public API and the same values as the pure ``Game``, with the state and the rules in Rust.

The pure ``Game`` (``_game.py``) is the readable reference; this class only converts: actions
to the core's calls (wrong types are refused here, with the pure engine's messages), and the
core's plain values back to the engine's events, observations, legal actions and results.
``tests/engine/test_core_game.py`` holds the two equal.
"""

from __future__ import annotations

from typing import Any, Final, TypedDict

import rookery_core

from ._actions import (
    PASS,
    PLAY,
    TRUMP,
    Action,
    Bid,
    Bury,
    CallCard,
    NameTrump,
    Pass,
    Phase,
    PlayCard,
    bid_action,
)
from ._cards import Suit, format_cards
from ._core import core_rules
from ._deal import Deal
from ._errors import GameOverError, IllegalActionError, MalformedActionError
from ._events import (
    AuctionWon,
    BidMade,
    CardCalled,
    CardPlayed,
    CardsBuried,
    Event,
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
from ._game import _check_from_deal
from ._game_auction import check_bid
from ._legal import LegalActions, _rebuild
from ._observation import NO_TRICK, Observation, Trick, new_observation, new_trick
from ._observation_replay import replay_observation
from ._results import GameResult, HandResult, Termination
from ._ruleset import Ruleset

__all__ = ["CoreGame"]

_PHASES: Final = (
    Phase.BIDDING,
    Phase.NAME_TRUMP,
    Phase.BURY,
    Phase.CALL,
    Phase.PLAY,
    Phase.GAME_OVER,
)
_SUITS: Final = tuple(Suit)
_GAME_OVER_INDEX: Final = 5
_PLAY_INDEX: Final = 4
_SEED_LIMIT: Final = 1 << 64
_EVENTS: Final[dict[str, type[Event]]] = {
    kind.__name__: kind
    for kind in (
        HandDealt,
        BidMade,
        Passed,
        AuctionWon,
        HandRedealt,
        NestTaken,
        TrumpNamed,
        CardsBuried,
        CardCalled,
        PartnerRevealed,
        CardPlayed,
        TrickWon,
        HandScored,
        GameOver,
    )
}


def _deal(plain: tuple[list[int], int, int]) -> Deal:
    hands, nest, dead = plain
    return Deal(tuple(hands), nest, dead)


def _hand_result(plain: dict[str, Any]) -> HandResult:
    values = dict(plain)
    values["trump"] = None if plain["trump"] is None else _SUITS[plain["trump"]]
    values["deal"] = _deal(plain["deal"])
    return HandResult(**values)


def _game_result(plain: dict[str, Any]) -> GameResult:
    return GameResult(
        winners=plain["winners"],
        scores=plain["scores"],
        hands_played=plain["hands_played"],
        reason=Termination[plain["reason"]],
    )


def _event(seq: int, plain: tuple[Any, ...]) -> Event:
    kind, hand_number, *fields = plain
    if kind == "TrumpNamed":
        fields[1] = _SUITS[fields[1]]
    elif kind == "HandScored":
        fields[0] = _hand_result(fields[0])
    elif kind == "GameOver":
        fields[0] = _game_result(fields[0])
    return _EVENTS[kind](seq, hand_number, *fields)


_PlainTrick = tuple[int, list[tuple[int, int]], int, int]
"""A trick as the core gives it: leader, ``(seat, card)`` in play order, winner, points."""


class _Origin(TypedDict):
    """``from_deal``'s arguments, kept for pickling a game made from a deal."""

    deal: Deal
    dealer: int | None
    hand_number: int
    scores: tuple[int, ...] | None


def _trick(plain: _PlainTrick) -> Trick:
    leader, cards, winner, points = plain
    return new_trick(leader, tuple(cards), winner, points)


class CoreGame(rookery_core.EngineGame):
    """One game of Rook on the native core: ``Game``'s API and values (see ``_game.Game``).

    The hot calls (``apply``, ``legal_actions``, ``phase``, ``current_player``, ``actions`` and
    the plain ints of the state) are the core's own methods, handing out the engine's interned
    values; the rest converts the core's plain values here. ``is_over`` is a plain attribute,
    as the pure ``Game``'s, which the core's ``apply`` sets when the game ends.
    """

    __slots__ = ("_events", "_hand_results", "_origin", "_result", "_rules", "_tricks", "is_over")

    # Set by ``__new__`` (no ``__init__``: the arguments are written once).
    _rules: Ruleset
    is_over: bool
    """Whether the game has ended (read it; the game sets it)."""
    _events: list[Event]
    _hand_results: list[HandResult]
    _result: GameResult | None
    _origin: _Origin | None  # from_deal's arguments, for pickling
    # The current hand's completed tricks as observations show them: (hand number, tricks).
    _tricks: tuple[int, tuple[Trick, ...]]

    def __new__(
        cls,
        ruleset: Ruleset,
        seed: int,
        *,
        events: bool = True,
        _source: rookery_core.EngineGame | None = None,
    ) -> CoreGame:
        if not isinstance(ruleset, Ruleset):
            raise TypeError(f"ruleset must be a Ruleset, got {type(ruleset).__name__}")
        if type(seed) is not int or not 0 <= seed < _SEED_LIMIT:
            raise ValueError(f"seed must be an int in 0..2**64-1, got {seed!r}")
        game: CoreGame = super().__new__(cls, core_rules(ruleset), seed, events, _source)
        game._rules = ruleset
        game.is_over = game._has_ended()
        game._events = []
        game._hand_results = []
        game._result = None
        game._origin = None
        game._tricks = (-1, ())
        return game

    # Public state (the rest is the core's: seed, phase, current_player, hand_number, dealer,
    # scores, hands, bidder, trump, actions, last_seq, forfeited, is_aborted) -----------------

    @property
    def ruleset(self) -> Ruleset:
        """The game's rules."""
        return self._rules

    @property
    def result(self) -> GameResult | None:
        """The result once the game is over."""
        if self._result is None and self.is_over:
            plain = self._result_plain()
            self._result = None if plain is None else _game_result(plain)
        return self._result

    @property
    def hand_results(self) -> list[HandResult]:
        """One result per hand dealt and finished so far (redeals included), in order."""
        known = self._hand_results
        known.extend(_hand_result(result) for result in self._hand_results_plain(len(known)))
        return list(known)

    @property
    def deal(self) -> Deal:
        """The current hand's deal as dealt. Server side only: it shows every hidden card."""
        return _deal(self._deal_plain())

    @property
    def events(self) -> list[Event]:
        """Every event so far, in order (``seq`` = index + 1); empty when events are off."""
        self._materialize()
        return list(self._events)

    def events_since(self, seq: int) -> list[Event]:
        """The events whose ``seq`` is greater than ``seq``."""
        self._materialize()
        return self._events[max(seq, 0) :]

    def _materialize(self) -> None:
        events = self._events
        start = len(events)
        for offset, plain in enumerate(self._events_plain(start)):
            events.append(_event(start + offset + 1, plain))

    # Other constructors ---------------------------------------------------------------------

    @classmethod
    def from_deal(
        cls,
        ruleset: Ruleset,
        deal: Deal,
        *,
        seed: int = 0,
        dealer: int | None = None,
        hand_number: int = 0,
        scores: tuple[int, ...] | None = None,
        events: bool = True,
    ) -> CoreGame:
        """A game whose current hand is ``deal`` (``Game.from_deal``)."""
        _check_from_deal(ruleset, deal, dealer, scores)
        start = rookery_core.EngineGame._from_deal(
            core_rules(ruleset),
            list(deal.hands),
            deal.nest,
            deal.dead,
            seed=seed,
            dealer=dealer,
            hand_number=hand_number,
            scores=None if scores is None else list(scores),
            events=events,
        )
        game = cls(ruleset, seed, events=events, _source=start)
        game._origin = {
            "deal": deal,
            "dealer": dealer,
            "hand_number": hand_number,
            "scores": scores,
        }
        return game

    @classmethod
    def from_observation(cls, observation: Observation, deal: Deal, *, seed: int = 0) -> CoreGame:
        """A perfect-information game at ``observation``'s point (``Game.from_observation``)."""
        return replay_observation(cls.from_deal, observation, deal, seed=seed)

    def clone(self) -> CoreGame:
        """An independent copy (a search game stays a search game: events stay off)."""
        other = type(self)(self._rules, self.seed, _source=self)
        other._events = self._events[:]
        other._hand_results = self._hand_results[:]
        other._result = self._result
        other._origin = self._origin
        other._tricks = self._tricks
        return other

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        # Rebuilt by replaying its actions from its start (the seed, or from_deal's arguments).
        return (
            _restore,
            (
                self._rules,
                self.seed,
                self._events_enabled(),
                self._origin,
                self.actions,
                self.forfeited,
                self.is_aborted,
            ),
        )

    # Legal actions and refusals -------------------------------------------------------------

    def is_legal(self, action: object) -> bool:
        """Whether ``action`` is a legal action of the player to act."""
        return action in self.legal_actions()

    def _refuse_bid(self, amount: int) -> None:
        """The refusal of a bid amount past 64 bits, in ``Game``'s order of checks."""
        phase = self.phase
        if phase is not Phase.BIDDING:
            if self.is_over:
                raise GameOverError("the game is over: cannot bid")
            raise IllegalActionError(
                "wrong_phase", f"cannot bid during {phase.name}; expected BIDDING"
            )
        # Past 64 bits the amount is below the minimum or above any high bid and the maximum.
        check_bid(self._rules, amount, self._rules.min_bid)
        raise AssertionError(f"bid {amount} past 64 bits passed the checks")

    def _refuse_bury(self, cards: int) -> None:
        """The refusal of a bury mask past 64 bits: never in a deck."""
        outside = cards & ~self._rules.deck_mask
        raise MalformedActionError(f"bury: not in the {self._rules.name} deck: {hex(outside)}")

    def forfeit(self, seat: int, reason: str = "") -> None:
        """End the game by forfeit of ``seat``: every other side wins jointly."""
        if self.is_over:
            raise GameOverError("the game is over: cannot forfeit")
        if type(seat) is not int or not 0 <= seat < self._rules.players:
            raise ValueError(f"not a seat: {seat!r}")
        self._forfeit(seat, reason)
        self.is_over = True

    def abort(self) -> None:
        """End the game with no winner."""
        if self.is_over:
            raise GameOverError("the game is over: cannot abort")
        self._abort()
        self.is_over = True

    # Observations ---------------------------------------------------------------------------

    def observation_for(self, seat: int) -> Observation:
        """Exactly what ``seat`` may know now (``-1``: the public view of a spectator)."""
        rules = self._rules
        if type(seat) is not int or not -1 <= seat < rules.players:
            raise ValueError(f"not a seat: {seat!r}")
        (
            seat,
            hand_number,
            dealer,
            phase,
            current_player,
            hand,
            nest,
            auction,
            high_bid,
            high_bidder,
            bidder,
            bid,
            trump,
            buried,
            buried_count,
            called_card,
            partner,
            current,
            new_tricks,
            points_captured,
            scores,
        ) = self._observation_fields(seat, len(self._tricks[1]))
        completed = self._completed_tricks(hand_number, new_tricks)
        return new_observation(
            rules,
            seat,
            hand_number,
            dealer,
            _PHASES[phase],
            current_player,
            hand,
            nest,
            auction,
            high_bid,
            high_bidder,
            bidder,
            bid,
            None if trump is None else _SUITS[trump],
            buried,
            buried_count,
            called_card,
            partner,
            NO_TRICK if current[0] < 0 else _trick(current),
            completed,
            points_captured,
            scores,
            rules.sides,
        )

    def _completed_tricks(self, hand_number: int, new: list[_PlainTrick]) -> tuple[Trick, ...]:
        """The hand's completed tricks as Trick values, each built once (``new``: the core's
        tricks past the ones kept for this hand)."""
        kept_hand, kept = self._tricks
        if kept_hand != hand_number:  # another hand: its tricks from the first
            if kept:
                return self._completed_tricks_from_start(hand_number)
            kept = ()
        if new:
            kept = kept + tuple(_trick(trick) for trick in new)
        self._tricks = (hand_number, kept)
        return kept

    def _completed_tricks_from_start(self, hand_number: int) -> tuple[Trick, ...]:
        self._tricks = (hand_number, ())
        fields = self._observation_fields(-1, 0)
        return self._completed_tricks(hand_number, fields[18])

    def public_view(self) -> Observation:
        """What a spectator may know: public information only (``seat = -1``)."""
        return self.observation_for(-1)

    def __repr__(self) -> str:
        current = self.current_player
        return (
            f"<Game {self._rules.name} seed={self.seed} hand={self.hand_number} "
            f"phase={self.phase.name} to_act={-1 if current is None else current} "
            f"scores={self.scores}>"
        )


def _restore(
    ruleset: Ruleset,
    seed: int,
    events: bool,
    origin: _Origin | None,
    actions: list[tuple[int, Action]],
    forfeited: tuple[int, str] | None,
    aborted: bool,
) -> CoreGame:
    """Unpickle a ``CoreGame`` by replaying its actions."""
    if origin is None:
        game = CoreGame(ruleset, seed, events=events)
    else:
        game = CoreGame.from_deal(ruleset, seed=seed, events=events, **origin)
    for _, action in actions:
        game.apply(action)
    if forfeited is not None:
        game.forfeit(*forfeited)
    elif aborted:
        game.abort()
    return game


def _other_legal(phase: int, player: int, data: tuple[int, int] | int | None) -> LegalActions:
    """The legal actions of the rare phases (the core makes those of the auction and play):
    ``data`` is ``(bury_from, bury_count)`` for the bury, the call mask for the call."""
    if phase == 1:
        return LegalActions(Phase.NAME_TRUMP, player)
    if phase == 2:
        assert isinstance(data, tuple)
        return LegalActions(Phase.BURY, player, bury_from=data[0], bury_count=data[1])
    if phase == 3:
        assert isinstance(data, int)
        return LegalActions(Phase.CALL, player, call_from=data)
    return LegalActions(Phase.GAME_OVER, -1)


rookery_core.bind_engine(
    {
        "PLAY": PLAY,
        "TRUMP": TRUMP,
        "PASS": PASS,
        "phases": _PHASES,
        "suits": _SUITS,
        "PlayCard": PlayCard,
        "Bid": Bid,
        "Pass": Pass,
        "NameTrump": NameTrump,
        "Bury": Bury,
        "CallCard": CallCard,
        "Suit": Suit,
        "bid_action": bid_action,
        "other_legal": _other_legal,
        "rebuild_legal": _rebuild,
        "format_cards": format_cards,
        "MalformedActionError": MalformedActionError,
        "IllegalActionError": IllegalActionError,
        "GameOverError": GameOverError,
    }
)
LegalActions.register(rookery_core.LegalActions)
