"""The game state machine: deal, auction, nest, trump, bury, call, play, scoring, game end.

``Game`` is the public API on its state (``_game_state``): its constructors, what it shows, its
legal actions, applying an action (a card's play here, the hot path of every playout) and its
observations. Each other phase's rules are functions of the state, one module each: the auction
(``_game_auction``), the exchange of trump, bury and call (``_game_exchange``), and the end of a
hand and of the game (``_game_end``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ._actions import (
    PLAY,
    Action,
    Bid,
    Bury,
    CallCard,
    NameTrump,
    Pass,
    Phase,
    PlayCard,
)
from ._cards import CARD_POINTS as _CARD_POINTS
from ._cards import NUM_CARDS, ROOK_MASK, Suit, card_name, format_cards
from ._deal import Deal, deal_for_hand
from ._errors import GameOverError, IllegalActionError, MalformedActionError
from ._events import CardPlayed, Event, PartnerRevealed, TrickWon
from ._game_auction import bid, pass_turn
from ._game_end import finish, finish_hand
from ._game_exchange import bury, call_card, name_trump
from ._game_state import (
    _BIDDING,
    _BURY,
    _CALL,
    _GAME_OVER,
    _NAME_TRUMP,
    _PLAY,
    _SUITS,
    GameState,
)
from ._game_state import _FIELDS as _FIELDS  # every slot of a Game, named here too
from ._legal import LegalActions, _BiddingActions, _PlayActions
from ._observation import NO_TRICK, Observation, new_observation, new_trick
from ._observation_replay import replay_observation
from ._results import GameResult, HandResult, Termination
from ._rulebook import FOLLOW_MASKS, playable
from ._ruleset import Ruleset

__all__ = ["Game"]

_SEED_LIMIT: Final = 1 << 64
_FOLLOW_MASKS: Final[tuple[tuple[int, ...], ...]] = FOLLOW_MASKS


def _check_start(ruleset: object, seed: object) -> None:
    """Refuse a ruleset that is not a ``Ruleset`` and a seed outside 0..2**64-1."""
    if not isinstance(ruleset, Ruleset):
        raise TypeError(f"ruleset must be a Ruleset, got {type(ruleset).__name__}")
    if type(seed) is not int or not 0 <= seed < _SEED_LIMIT:
        raise ValueError(f"seed must be an int in 0..2**64-1, got {seed!r}")


def _check_from_deal(
    rules: Ruleset, deal: Deal, dealer: int | None, scores: tuple[int, ...] | None
) -> None:
    """Refuses ``from_deal``'s arguments (on both builds) when they do not fit ``rules``."""
    _check_deal(rules, deal)
    if scores is not None and len(scores) != rules.num_sides:
        raise ValueError(f"scores must have {rules.num_sides} entries, got {len(scores)}")
    if dealer is not None and not 0 <= dealer < rules.players:
        raise ValueError(f"not a seat: {dealer!r}")


def _check_deal(rules: Ruleset, deal: Deal) -> None:
    cards = [*deal.hands, deal.nest, deal.dead]
    union = 0
    for mask in cards:
        if union & mask:
            raise ValueError("a card lies in two places in the deal")
        union |= mask
    if union != rules.deck_mask or len(deal.hands) != rules.players:
        raise ValueError("the deal is not a partition of the deck over the seats")
    if any(hand.bit_count() != rules.hand_size for hand in deal.hands):
        raise ValueError(f"every hand must hold {rules.hand_size} cards")
    if deal.nest.bit_count() != rules.nest_size:
        raise ValueError(f"the nest must hold {rules.nest_size} cards")


class Game(GameState):
    """One game of Rook: a ruleset, a seed and the actions applied so far.

    The deal of every hand comes from the seed (``deal_for_hand``); everything else follows from
    the actions. ``apply`` refuses a malformed action with ``MalformedActionError`` and a
    well-formed one the rules forbid with ``IllegalActionError``, leaving the state unchanged.

    >>> game = Game(Ruleset.preset("standard"), seed=7)
    >>> game.phase, game.current_player, game.hand_number
    (<Phase.BIDDING: 'BIDDING'>, 1, 0)
    >>> game.apply(Bid(70)); game.current_player
    2
    """

    __slots__ = ()

    def __init__(self, ruleset: Ruleset, seed: int, *, events: bool = True) -> None:
        _check_start(ruleset, seed)
        self._setup(ruleset, seed, events)
        self._start_hand(deal_for_hand(ruleset, seed, 0))

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
        return self._phase

    @property
    def current_player(self) -> int | None:
        """The seat to act; ``None`` once the game is over."""
        return None if self._current < 0 else self._current

    @property
    def result(self) -> GameResult | None:
        """The result once the game is over."""
        return self._result

    @property
    def hand_number(self) -> int:
        """The 0-based number of the current hand; void (all-pass) hands count."""
        return self._hand_number

    @property
    def dealer(self) -> int:
        """The dealer of the current hand."""
        return self._dealer

    @property
    def scores(self) -> tuple[int, ...]:
        """Cumulative scores per side of the hands scored so far."""
        return tuple(self._scores)

    @property
    def hand_results(self) -> list[HandResult]:
        """One result per hand dealt and finished so far (redeals included), in order."""
        return list(self._hand_results)

    @property
    def deal(self) -> Deal:
        """The current hand's deal as dealt. Server side only: it shows every hidden card."""
        return self._deal

    @property
    def hands(self) -> tuple[int, ...]:
        """Every seat's cards now. Server side only."""
        return tuple(self._hands)

    @property
    def bidder(self) -> int:
        """The bidder of the current hand (-1 during the auction)."""
        return self._bidder

    @property
    def trump(self) -> Suit | None:
        """The trump suit of the current hand, once named."""
        return None if self._trump < 0 else _SUITS[self._trump]

    @property
    def actions(self) -> list[tuple[int, Action]]:
        """Every action applied so far as ``(seat, action)``."""
        return list(self._actions)

    @property
    def events(self) -> list[Event]:
        """Every event so far, in order (``seq`` = index + 1); empty when events are off."""
        return list(self._events)

    @property
    def last_seq(self) -> int:
        """The ``seq`` of the latest event (0 before the first, and when events are off)."""
        return len(self._events)

    def events_since(self, seq: int) -> list[Event]:
        """The events whose ``seq`` is greater than ``seq``."""
        return self._events[max(seq, 0) :]

    @property
    def forfeited(self) -> tuple[int, str] | None:
        """``(seat, reason)`` once a seat forfeited the game (``forfeit``), else ``None``."""
        return self._forfeit

    @property
    def is_aborted(self) -> bool:
        """Whether the game was aborted (``abort``)."""
        return self._aborted

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
    ) -> Game:
        """A game whose current hand is ``deal`` (for analysis, puzzles, tests and search).

        The hand is number ``hand_number`` dealt by ``dealer`` (default ``first_dealer``) with
        cumulative ``scores`` so far (default zeros); later hands are dealt from ``seed``.
        ``ValueError`` when ``deal`` is not a partition of the deck of the right sizes. Such a
        game has no record that ``GameRecord.replay`` could re-simulate from the seed alone.
        """
        _check_from_deal(ruleset, deal, dealer, scores)
        _check_start(ruleset, seed)
        game = object.__new__(cls)  # set up here, with this deal instead of the seed's first
        game._setup(ruleset, seed, events)
        if scores is not None:
            game._scores = list(scores)
        if dealer is not None:
            game._dealer = dealer
        game._hand_number = hand_number
        game._start_hand(deal)
        return game

    @classmethod
    def from_observation(cls, observation: Observation, deal: Deal, *, seed: int = 0) -> Game:
        """A perfect-information game at ``observation``'s point, for search (events off).

        ``deal`` says where every card lay as dealt (``sample_deals`` draws such deals consistent
        with the observation; after the bury, its ``nest`` stands for the buried cards). The
        observation's public history (auction, trump, bury, call, tricks) is replayed on that deal;
        the scores, dealer and hand number are the observation's. Later hands are dealt from
        ``seed``. ``ValueError`` when the deal does not fit the observation.
        """
        return replay_observation(cls.from_deal, observation, deal, seed=seed)

    def clone(self) -> Game:
        """An independent copy (a search game stays a search game: events stay off)."""
        other = object.__new__(Game)
        other.is_over = self.is_over
        other._aborted = self._aborted
        other._actions = self._actions[:]
        other._auction = self._auction[:]
        other._bid = self._bid
        other._bidder = self._bidder
        other._buried = self._buried
        other._called = self._called
        other._current = self._current
        other._deal = self._deal
        other._dealer = self._dealer
        other._deck_mask = self._deck_mask
        other._events = self._events[:]
        other._events_on = self._events_on
        other._follow = self._follow
        other._forced = self._forced
        other._forfeit = self._forfeit
        other._hand_number = self._hand_number
        other._hand_results = self._hand_results[:]
        other._hand_size = self._hand_size
        other._hands = self._hands[:]
        other._high_bid = self._high_bid
        other._high_bidder = self._high_bidder
        other._keys = self._keys
        other._lead = self._lead
        other._nest = self._nest
        other._partner = self._partner
        other._partner_shown = self._partner_shown
        other._passed = self._passed
        other._phase = self._phase
        other._players = self._players
        other._result = self._result
        other._rook_free = self._rook_free
        other._rules = self._rules
        other._scores = self._scores[:]
        other._seed = self._seed
        other._trick = self._trick[:]
        other._trick_points = self._trick_points
        other._tricks = self._tricks[:]
        other._trump = self._trump
        other._trump_mask = self._trump_mask
        other._win = self._win
        other._won = self._won[:]
        return other

    # Legal actions --------------------------------------------------------------------------

    def legal_actions(self) -> LegalActions:
        """Every legal action of the player to act (empty once the game is over)."""
        phase = self._phase
        if phase is _PLAY:
            seat = self._current
            hand = self._hands[seat]
            if self._trick:
                hand = playable(hand, self._follow, self._rook_free)
            return _PlayActions(seat, hand)
        rules = self._rules
        if phase is _BIDDING:
            # The ruleset's own cache of bids_above (a pure method: a Python call from here).
            bids = rules._bid_cache.get(self._high_bid)
            if bids is None:
                bids = rules.bids_above(self._high_bid)
            return _BiddingActions(self._current, bids)
        if phase is _NAME_TRUMP:
            return LegalActions(phase, self._current)
        if phase is _BURY:
            return LegalActions(
                phase,
                self._current,
                bury_from=self._hands[self._bidder],
                bury_count=rules.nest_size,
            )
        if phase is _CALL:
            call_from = rules.deck_mask & ~self._hands[self._bidder] & ~self._buried
            return LegalActions(phase, self._current, call_from=call_from)
        return LegalActions(_GAME_OVER, -1)

    def is_legal(self, action: object) -> bool:
        """Whether ``action`` is a legal action of the player to act."""
        return action in self.legal_actions()

    # Applying actions -----------------------------------------------------------------------

    def apply(self, action: Action) -> None:
        """Apply ``action`` for the player to act.

        Raises ``MalformedActionError`` (not an action, a card outside the deck, a bury of the
        wrong size) or ``IllegalActionError`` (with a ``reason`` code) and then changes nothing.
        """
        kind = type(action)
        if kind is not PlayCard or self._phase is not _PLAY:
            self._apply_other(kind, action)
            return
        # The hot path of every playout: one card played to the current trick (RULES.md §5).
        card: int = action.card  # type: ignore[union-attr]
        if type(card) is not int or not 0 <= card < NUM_CARDS:
            self._check_card(card, "play")
        bit = 1 << card
        seat = self._current
        hands = self._hands
        hand = hands[seat]
        if not hand & bit:  # (a hand holds only cards of the deck)
            self._check_card(card, "play")
            raise IllegalActionError("not_in_hand", f"seat {seat} does not hold {card_name(card)}")
        trick = self._trick
        if trick:
            # ``_win`` is the winning card's strength shifted left 3, or'ed with its seat.
            follow_mask = self._follow
            if bit & follow_mask:
                win = self._keys[card] | seat
                if win > self._win:
                    self._win = win
            elif hand & follow_mask and not (bit & ROOK_MASK and self._rook_free):
                raise self._revoke(seat, hand, card)
            elif bit & self._trump_mask:
                win = self._keys[card] | seat
                if win > self._win:
                    self._win = win
        else:
            self._lead = seat
            self._follow = _FOLLOW_MASKS[self._trump][card]
            self._win = self._keys[card] | seat
        hands[seat] = hand ^ bit
        trick.append(card)
        self._trick_points += _CARD_POINTS[card]
        self._actions.append((seat, PLAY[card]))
        self._emit(CardPlayed, seat, card)
        if card == self._called:
            self._partner_shown = True
            self._emit(PartnerRevealed, seat)
        seat += 1
        if seat == self._players:
            seat = 0
        if seat != self._lead:
            self._current = seat
            return
        # The trick is complete: its winner takes it and leads the next.
        winner = self._win & 7
        points = self._trick_points
        self._won[winner] += points
        tricks = self._tricks
        tricks.append(new_trick(seat, self._seated(seat, trick), winner, points))
        self._emit(TrickWon, winner, points, len(tricks) - 1)
        trick.clear()
        self._trick_points = 0
        self._current = winner
        if len(tricks) == self._hand_size:
            finish_hand(self)

    def _apply_other(self, kind: type, action: object) -> None:
        if kind is PlayCard:
            self._check_card(action.card, "play")  # type: ignore[attr-defined]
            self._expect(_PLAY, "play a card")
        elif kind is Bid:
            bid(self, action.amount)  # type: ignore[attr-defined]
        elif kind is Pass:
            pass_turn(self)
        elif kind is NameTrump:
            name_trump(self, action.suit)  # type: ignore[attr-defined]
        elif kind is Bury:
            bury(self, action.cards)  # type: ignore[attr-defined]
        elif kind is CallCard:
            call_card(self, action.card)  # type: ignore[attr-defined]
        else:
            raise MalformedActionError(f"not an action: {action!r}")

    def _revoke(self, seat: int, hand: int, card: int) -> IllegalActionError:
        return IllegalActionError(
            "must_follow_suit",
            f"seat {seat} must follow suit, not play {card_name(card)}: holds "
            f"{format_cards(hand & self._follow)}",
        )

    # The end of the game ---------------------------------------------------------------------

    def forfeit(self, seat: int, reason: str = "") -> None:
        """End the game by forfeit of ``seat``: every other side wins jointly."""
        if self._result is not None:
            raise GameOverError("the game is over: cannot forfeit")
        if type(seat) is not int or not 0 <= seat < self._rules.players:
            raise ValueError(f"not a seat: {seat!r}")
        loser = self._rules.side_of(seat)
        self._forfeit = (seat, reason)
        winners = tuple(side for side in range(self._rules.num_sides) if side != loser)
        finish(self, winners, Termination.FORFEIT)

    def abort(self) -> None:
        """End the game with no winner."""
        if self._result is not None:
            raise GameOverError("the game is over: cannot abort")
        self._aborted = True
        finish(self, (), Termination.ABORTED)

    # Observations ---------------------------------------------------------------------------

    def observation_for(self, seat: int) -> Observation:
        """Exactly what ``seat`` may know now (``-1``: the public view of a spectator)."""
        rules = self._rules
        if type(seat) is not int or not -1 <= seat < rules.players:
            raise ValueError(f"not a seat: {seat!r}")
        is_bidder = seat >= 0 and seat == self._bidder
        partner = -1
        if self._partner >= 0 and (self._partner_shown or seat == self._partner):
            partner = self._partner
        sides = rules.sides
        points = [0] * rules.num_sides
        for holder, value in enumerate(self._won):
            if value:
                points[sides[holder]] += value
        if self._phase is _PLAY:
            leader = self._lead if self._trick else self._current
            current = new_trick(leader, self._seated(leader, self._trick), -1, self._trick_points)
        else:
            current = NO_TRICK
        return new_observation(  # Observation(...), built faster
            ruleset=rules,
            seat=seat,
            hand_number=self._hand_number,
            dealer=self._dealer,
            phase=self._phase,
            current_player=self._current,
            hand=self._hands[seat] if seat >= 0 else 0,
            nest=self._nest if is_bidder else 0,
            auction=tuple(self._auction),
            high_bid=self._high_bid,
            high_bidder=self._high_bidder,
            bidder=self._bidder,
            bid=self._bid,
            trump=self.trump,
            buried=self._buried if is_bidder else 0,
            buried_count=self._buried.bit_count(),
            called_card=self._called,
            partner=partner,
            current_trick=current,
            completed_tricks=tuple(self._tricks),
            points_captured=tuple(points),
            scores=tuple(self._scores),
            sides=sides,
        )

    def _seated(self, leader: int, cards: Sequence[int]) -> tuple[tuple[int, int], ...]:
        """``(seat, card)`` pairs of cards played clockwise from ``leader``."""
        players = self._players
        return tuple([((leader + index) % players, card) for index, card in enumerate(cards)])

    def public_view(self) -> Observation:
        """What a spectator may know: public information only (``seat = -1``)."""
        return self.observation_for(-1)

    def __repr__(self) -> str:
        return (
            f"<Game {self._rules.name} seed={self._seed} hand={self._hand_number} "
            f"phase={self._phase.name} to_act={self._current} scores={tuple(self._scores)}>"
        )
