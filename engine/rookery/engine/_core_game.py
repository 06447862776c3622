"""``Game`` on the native core (``rookery_core``, built from ``core/`` by ``make setup``): the
same public API and the same values as the pure ``Game``, with the state and the rules in Rust.

The pure ``Game`` (``_game.py``) is the readable reference; this class only converts: actions
to the core's calls (wrong types are refused here, with the pure engine's messages), and the
core's plain values back to the engine's events, observations, legal actions and results.
``tests/engine/test_core_game.py`` holds the two equal.
"""

from __future__ import annotations

from typing import Any, Final

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
from ._cards import NUM_CARDS, Suit
from ._deal import Deal
from ._errors import EngineError, GameOverError, IllegalActionError, MalformedActionError
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
from ._game import _check_deal
from ._legal import LegalActions, _BiddingActions, _PlayActions
from ._observation import NO_TRICK, Observation, Trick, new_observation, new_trick
from ._results import GameResult, HandResult, Termination
from ._ruleset import Ruleset

try:  # the native core is optional: without it the pure Game is used
    import rookery_core as _core
except ImportError:  # pragma: no cover - depends on the build
    _core = None  # type: ignore[assignment]

__all__ = ["CoreGame", "core_version"]

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
_INT64: Final = range(-(1 << 63), 1 << 63)
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
_RULES: dict[int, tuple[Ruleset, Any]] = {}


def core_version() -> str | None:
    """The native core's version, or ``None`` when it is not built."""
    return None if _core is None else str(_core.__version__)


def _new_batch(ruleset: Ruleset, n: int, seed: int, zero_sum: bool) -> Any:
    """The core's batch of ``n`` tables of ``ruleset`` (the core must be built)."""
    if _core is None:
        raise RuntimeError("the native core (rookery_core) is not built")
    return _core.Batch(_core_rules(ruleset), n, seed, zero_sum)


def _core_rules(ruleset: Ruleset) -> Any:
    """The core's rules of ``ruleset`` (cached per ruleset object)."""
    cached = _RULES.get(id(ruleset))
    if cached is not None and cached[0] is ruleset:
        return cached[1]
    assert _core is not None, "the native core is not built"
    rules = _core.Rules.from_dict(ruleset.to_dict())
    if len(_RULES) > 256:
        _RULES.clear()
    _RULES[id(ruleset)] = (ruleset, rules)
    return rules


def _refusal(error: Exception) -> EngineError:
    """The engine's exception for the core's ``RefusedError(kind, reason, message)``."""
    kind, reason, message = error.args
    if kind == "malformed":
        return MalformedActionError(message)
    if kind == "game_over":
        return GameOverError(message)
    return IllegalActionError(reason, message)


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


def _trick(plain: tuple[int, list[tuple[int, int]], int, int]) -> Trick:
    leader, cards, winner, points = plain
    return new_trick(leader, tuple(cards), winner, points)


class CoreGame:
    """One game of Rook on the native core: ``Game``'s API and values (see ``_game.Game``)."""

    __slots__ = (
        "_actions",
        "_events",
        "_events_on",
        "_hand_results",
        "_native",
        "_origin",
        "_result",
        "_rules",
        "_seed",
        "_status",
        "_tricks",
        "is_over",
    )

    def __init__(
        self, ruleset: Ruleset, seed: int, *, events: bool = True, _native: Any = None
    ) -> None:
        if not isinstance(ruleset, Ruleset):
            raise TypeError(f"ruleset must be a Ruleset, got {type(ruleset).__name__}")
        if type(seed) is not int or not 0 <= seed < _SEED_LIMIT:
            raise ValueError(f"seed must be an int in 0..2**64-1, got {seed!r}")
        if _core is None:
            raise RuntimeError("the native core (rookery_core) is not built")
        self._rules = ruleset
        self._seed = seed
        self._events_on = events
        self._native: Any = _native or _core.Game(_core_rules(ruleset), seed, events)
        # The phase's index and the seat to act, ``phase << 8 | (seat + 1)``, as every call of
        # the core returns it: read without asking the core again.
        self._status: int = self._native.status
        self.is_over: bool = self._status >> 8 == _GAME_OVER_INDEX
        """Whether the game has ended (read it; the game sets it)."""
        self._actions: list[tuple[int, Action]] = []
        self._events: list[Event] = []
        self._hand_results: list[HandResult] = []
        self._result: GameResult | None = None
        self._origin: dict[str, Any] | None = None  # from_deal's arguments, for pickling
        # The current hand's completed tricks as observations show them: (hand number, tricks).
        self._tricks: tuple[int, tuple[Trick, ...]] = (-1, ())

    # Public state ---------------------------------------------------------------------------

    @property
    def ruleset(self) -> Ruleset:
        """The game's rules."""
        return self._rules

    @property
    def seed(self) -> int:
        """The game seed every deal derives from."""
        return self._seed

    @property
    def phase(self) -> Phase:
        """What the game waits for."""
        return _PHASES[self._status >> 8]

    @property
    def current_player(self) -> int | None:
        """The seat to act; ``None`` once the game is over."""
        seat = (self._status & 255) - 1
        return None if seat < 0 else seat

    def _moved(self, status: int) -> None:
        self._status = status
        if status >> 8 == _GAME_OVER_INDEX:
            self.is_over = True

    @property
    def result(self) -> GameResult | None:
        """The result once the game is over."""
        if self._result is None and self._native.is_over:
            self._result = _game_result(self._native.result)
        return self._result

    @property
    def hand_number(self) -> int:
        """The 0-based number of the current hand; void (all-pass) hands count."""
        return int(self._native.hand_number)

    @property
    def dealer(self) -> int:
        """The dealer of the current hand."""
        return int(self._native.dealer)

    @property
    def scores(self) -> tuple[int, ...]:
        """Cumulative scores per side of the hands scored so far."""
        return tuple(self._native.scores)

    @property
    def hand_results(self) -> list[HandResult]:
        """One result per hand dealt and finished so far (redeals included), in order."""
        plain = self._native.hand_results
        known = self._hand_results
        known.extend(_hand_result(result) for result in plain[len(known) :])
        return list(known)

    @property
    def deal(self) -> Deal:
        """The current hand's deal as dealt. Server side only: it shows every hidden card."""
        return _deal(self._native.deal)

    @property
    def hands(self) -> tuple[int, ...]:
        """Every seat's cards now. Server side only."""
        return tuple(self._native.hands)

    @property
    def bidder(self) -> int:
        """The bidder of the current hand (-1 during the auction)."""
        return int(self._native.bidder)

    @property
    def trump(self) -> Suit | None:
        """The trump suit of the current hand, once named."""
        trump: int = self._native.trump
        return None if trump < 0 else _SUITS[trump]

    @property
    def actions(self) -> list[tuple[int, Action]]:
        """Every action applied so far as ``(seat, action)``."""
        return list(self._actions)

    @property
    def events(self) -> list[Event]:
        """Every event so far, in order (``seq`` = index + 1); empty when events are off."""
        self._materialize()
        return list(self._events)

    @property
    def last_seq(self) -> int:
        """The ``seq`` of the latest event (0 before the first, and when events are off)."""
        return int(self._native.last_seq)

    def events_since(self, seq: int) -> list[Event]:
        """The events whose ``seq`` is greater than ``seq``."""
        self._materialize()
        return self._events[max(seq, 0) :]

    def _materialize(self) -> None:
        events = self._events
        start = len(events)
        for offset, plain in enumerate(self._native.events_since(start)):
            events.append(_event(start + offset + 1, plain))

    @property
    def forfeited(self) -> tuple[int, str] | None:
        """``(seat, reason)`` once a seat forfeited the game (``forfeit``), else ``None``."""
        forfeited: tuple[int, str] | None = self._native.forfeited
        return forfeited

    @property
    def is_aborted(self) -> bool:
        """Whether the game was aborted (``abort``)."""
        return bool(self._native.is_aborted)

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
        _check_deal(ruleset, deal)
        if scores is not None and len(scores) != ruleset.num_sides:
            raise ValueError(f"scores must have {ruleset.num_sides} entries, got {len(scores)}")
        if dealer is not None and not 0 <= dealer < ruleset.players:
            raise ValueError(f"not a seat: {dealer!r}")
        if _core is None:
            raise RuntimeError("the native core (rookery_core) is not built")
        native = _core.Game.from_deal(
            _core_rules(ruleset),
            list(deal.hands),
            deal.nest,
            deal.dead,
            seed=seed,
            dealer=dealer,
            hand_number=hand_number,
            scores=None if scores is None else list(scores),
            events=events,
        )
        game = cls(ruleset, seed, events=events, _native=native)
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
        if observation.phase is Phase.GAME_OVER:
            raise ValueError("the game of this observation is over: nothing to search")
        game = cls.from_deal(
            observation.ruleset,
            deal,
            seed=seed,
            dealer=observation.dealer,
            hand_number=observation.hand_number,
            scores=observation.scores,
            events=False,
        )
        script: list[Action] = [
            bid_action(amount) if amount else PASS for _, amount in observation.auction
        ]
        try:
            for action in script:
                game.apply(action)
            while game.phase in (Phase.NAME_TRUMP, Phase.BURY, Phase.CALL):
                if game.phase is Phase.NAME_TRUMP and observation.trump is not None:
                    game.apply(NameTrump(observation.trump))
                elif game.phase is Phase.BURY and observation.buried_count:
                    game.apply(Bury(deal.nest))
                elif game.phase is Phase.CALL and observation.called_card >= 0:
                    game.apply(CallCard(observation.called_card))
                else:
                    break
            for trick in (*observation.completed_tricks, observation.current_trick):
                for _, card in trick.cards:
                    game.apply(PLAY[card])
        except EngineError as error:
            raise ValueError(f"the deal does not fit the observation: {error}") from None
        native = game._native
        if (
            game.phase is not observation.phase
            or native.current_player != observation.current_player
        ):
            raise ValueError("the deal does not fit the observation: the replay ends elsewhere")
        if observation.seat >= 0 and native.hands[observation.seat] != observation.hand:
            raise ValueError("the deal does not fit the observation: the observer's hand differs")
        return game

    def clone(self) -> CoreGame:
        """An independent copy (a search game stays a search game: events stay off)."""
        other = CoreGame(
            self._rules, self._seed, events=self._events_on, _native=self._native.clone()
        )
        other._actions = self._actions[:]
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
                self._seed,
                self._events_on,
                self._origin,
                self._actions,
                self.forfeited,
                self.is_aborted,
            ),
        )

    # Legal actions --------------------------------------------------------------------------

    def legal_actions(self) -> LegalActions:
        """Every legal action of the player to act (empty once the game is over)."""
        status = self._status
        if status >> 8 == _PLAY_INDEX:
            return _PlayActions((status & 255) - 1, self._native.play_mask())
        phase, player, data = self._native.legal()
        if phase == 0:
            return _BiddingActions(player, tuple(data))
        if phase == 1:
            return LegalActions(Phase.NAME_TRUMP, player)
        if phase == 2:
            return LegalActions(Phase.BURY, player, bury_from=data[0], bury_count=data[1])
        if phase == 3:
            return LegalActions(Phase.CALL, player, call_from=data)
        return LegalActions(Phase.GAME_OVER, -1)

    def is_legal(self, action: object) -> bool:
        """Whether ``action`` is a legal action of the player to act."""
        return action in self.legal_actions()

    # Applying actions -----------------------------------------------------------------------

    def apply(self, action: Action) -> None:
        """Apply ``action`` for the player to act (``Game.apply``: the same refusals)."""
        native = self._native
        seat = (self._status & 255) - 1
        kind = type(action)
        try:
            if kind is PlayCard:
                card = _card(action.card, "play")  # type: ignore[union-attr]
                self._status = status = native.play(card)
                self._actions.append((seat, PLAY[card]))
                if status >> 8 == _GAME_OVER_INDEX:
                    self.is_over = True
            elif kind is Bid:
                amount = action.amount  # type: ignore[union-attr]
                if type(amount) is not int:
                    raise MalformedActionError(f"a bid amount must be an int, got {amount!r}")
                if amount not in _INT64:
                    self._refuse_bid(amount)
                self._moved(native.bid(amount))
                self._actions.append((seat, bid_action(amount)))
            elif kind is Pass:
                self._moved(native.pass_())
                self._actions.append((seat, PASS))
            elif kind is NameTrump:
                suit = action.suit  # type: ignore[union-attr]
                if type(suit) is not Suit and (type(suit) is not int or not 0 <= suit < 4):
                    raise MalformedActionError(f"not a suit: {suit!r}")
                self._moved(native.name_trump(int(suit)))
                self._actions.append((seat, TRUMP[int(suit)]))
            elif kind is Bury:
                cards = action.cards  # type: ignore[union-attr]
                if type(cards) is not int or cards < 0:
                    raise MalformedActionError(
                        f"a bury must be a card mask (non-negative int), got {cards!r}"
                    )
                if cards >= _SEED_LIMIT:  # past the core's 64 bits: never in a deck
                    outside = cards & ~self._rules.deck_mask
                    raise MalformedActionError(
                        f"bury: not in the {self._rules.name} deck: {hex(outside)}"
                    )
                self._moved(native.bury(cards))
                self._actions.append((seat, Bury(cards)))
            elif kind is CallCard:
                card = _card(action.card, "call")  # type: ignore[union-attr]
                self._moved(native.call(card))
                self._actions.append((seat, CallCard(card)))
            else:
                raise MalformedActionError(f"not an action: {action!r}")
        except _core.RefusedError as error:
            raise _refusal(error) from None

    def _refuse_bid(self, amount: int) -> None:
        """The refusal of a bid amount past 64 bits, in ``Game``'s order of checks."""
        phase = self.phase
        if phase is not Phase.BIDDING:
            if self.is_over:
                raise GameOverError("the game is over: cannot bid")
            raise IllegalActionError(
                "wrong_phase", f"cannot bid during {phase.name}; expected BIDDING"
            )
        rules = self._rules
        if amount % rules.bid_step:
            raise IllegalActionError(
                "bid_not_multiple", f"bid {amount} is not a multiple of {rules.bid_step}"
            )
        if amount < rules.min_bid:
            raise IllegalActionError(
                "bid_too_low", f"bid {amount} is below the minimum bid {rules.min_bid}"
            )
        raise IllegalActionError(
            "bid_too_high", f"bid {amount} is above the maximum bid {rules.effective_max_bid}"
        )

    def forfeit(self, seat: int, reason: str = "") -> None:
        """End the game by forfeit of ``seat``: every other side wins jointly."""
        if self.is_over:
            raise GameOverError("the game is over: cannot forfeit")
        if type(seat) is not int or not 0 <= seat < self._rules.players:
            raise ValueError(f"not a seat: {seat!r}")
        self._moved(self._native.forfeit(seat, reason))

    def abort(self) -> None:
        """End the game with no winner."""
        if self.is_over:
            raise GameOverError("the game is over: cannot abort")
        self._moved(self._native.abort())

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
        ) = self._native.observation_fields(seat, len(self._tricks[1]))
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

    def _completed_tricks(self, hand_number: int, new: list[Any]) -> tuple[Trick, ...]:
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
        fields = self._native.observation_fields(-1, 0)
        return self._completed_tricks(hand_number, fields[18])

    def public_view(self) -> Observation:
        """What a spectator may know: public information only (``seat = -1``)."""
        return self.observation_for(-1)

    def __repr__(self) -> str:
        return (
            f"<Game {self._rules.name} seed={self._seed} hand={self.hand_number} "
            f"phase={self.phase.name} to_act={self._native.current_player} scores={self.scores}>"
        )


def _card(card: object, what: str) -> int:
    """``card`` if it is a card index, else ``MalformedActionError`` as ``Game`` raises it."""
    if type(card) is not int or not 0 <= card < NUM_CARDS:
        raise MalformedActionError(f"{what}: not a card index 0..{NUM_CARDS - 1}: {card!r}")
    return card


def _restore(
    ruleset: Ruleset,
    seed: int,
    events: bool,
    origin: dict[str, Any] | None,
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
