"""A pure game's state: its fields (the slots that pickling saves and ``Game.clone`` copies), set
up for a new game and reset for each hand, and what every action does first (its phase and card
checked, its event recorded). ``Game`` is this state with its public API; each phase's rules are a
module of functions of it (``_game_auction``, ``_game_exchange``, ``_game_end``).
"""

from __future__ import annotations

from typing import Any, Final

from ._actions import Action, Phase
from ._cards import NUM_CARDS, Suit, card_name
from ._deal import Deal
from ._errors import GameOverError, IllegalActionError, MalformedActionError
from ._events import Event, HandDealt
from ._observation import Trick
from ._results import GameResult, HandResult
from ._rulebook import TRICK_KEYS
from ._ruleset import Ruleset

__all__ = ["GameState"]

_SUITS: Final = tuple(Suit)


# _KEYS[trump][card]: the trick-taking strength (``TRICK_KEYS``) shifted left 3 bits so that a
# seat fits below it.
_KEYS: Final[tuple[tuple[int, ...], ...]] = tuple(
    tuple(key << 3 for key in keys) for keys in TRICK_KEYS
)
# Enum member access costs a descriptor call on Python 3.11; the hot paths use these constants.
_BIDDING: Final = Phase.BIDDING
_NAME_TRUMP: Final = Phase.NAME_TRUMP
_BURY: Final = Phase.BURY
_CALL: Final = Phase.CALL
_PLAY: Final = Phase.PLAY
_GAME_OVER: Final = Phase.GAME_OVER


_FIELDS: Final = (
    "_aborted",
    "_actions",
    "_auction",
    "_bid",
    "_bidder",
    "_buried",
    "_called",
    "_current",
    "_deal",
    "_dealer",
    "_deck_mask",
    "_events",
    "_events_on",
    "_follow",
    "_forced",
    "_forfeit",
    "_hand_number",
    "_hand_results",
    "_hand_size",
    "_hands",
    "_high_bid",
    "_high_bidder",
    "_keys",
    "_lead",
    "_nest",
    "_partner",
    "_partner_shown",
    "_passed",
    "_phase",
    "_players",
    "_result",
    "_rook_free",
    "_rules",
    "_scores",
    "_seed",
    "_trick",
    "_trick_points",
    "_tricks",
    "_trump",
    "_trump_mask",
    "_win",
    "_won",
    "is_over",
)
"""Every attribute of a ``Game`` (its slots; what pickling saves and restores)."""


class GameState:
    """The state of a pure ``Game`` (its slots), and what every action does first."""

    __slots__ = _FIELDS

    def _setup(self, ruleset: Ruleset, seed: int, events: bool) -> None:
        self._rules = ruleset
        self._players = ruleset.players
        self._hand_size = ruleset.hand_size
        self._deck_mask = ruleset.deck_mask
        self._rook_free = ruleset.rook_free_play
        self._seed = seed
        self._events_on = events
        self._events: list[Event] = []
        self._actions: list[tuple[int, Action]] = []
        self._scores = [0] * ruleset.num_sides
        self._hand_results: list[HandResult] = []
        self._result: GameResult | None = None
        self.is_over: bool = False
        """Whether the game has ended (read it; the game sets it)."""
        self._forfeit: tuple[int, str] | None = None
        self._aborted = False
        self._dealer = ruleset.first_dealer
        self._hand_number = 0

    def _emit(self, kind: type[Event], *fields: Any) -> None:
        """Record an event of the current hand (when events are on); ``seq`` is its place."""
        if self._events_on:
            events = self._events
            events.append(kind(len(events) + 1, self._hand_number, *fields))

    def _start_hand(self, deal: Deal) -> None:
        rules = self._rules
        self._deal = deal
        self._hands = list(deal.hands)
        self._phase = _BIDDING
        self._current = (self._dealer + 1) % rules.players
        self._auction: list[tuple[int, int]] = []
        self._passed = 0
        self._high_bid = 0
        self._high_bidder = -1
        self._bidder = -1
        self._bid = 0
        self._forced = False
        self._trump = -1
        self._trump_mask = 0
        self._keys = _KEYS[0]
        self._nest = 0
        self._buried = 0
        self._called = -1
        self._partner = -1
        self._partner_shown = False
        self._trick: list[int] = []  # the cards played to the trick, from its leader on
        self._trick_points = 0
        self._lead = -1
        self._follow = 0
        self._win = 0
        self._tricks: list[Trick] = []  # the hand's completed tricks, as observations show them
        self._won = [0] * rules.players
        self._emit(HandDealt, self._dealer, deal.hands)

    def _expect(self, phase: Phase, what: str) -> int:
        if self._phase is not phase:
            if self._result is not None:
                raise GameOverError(f"the game is over: cannot {what}")
            raise IllegalActionError(
                "wrong_phase", f"cannot {what} during {self._phase.name}; expected {phase.name}"
            )
        return self._current

    def _check_card(self, card: object, what: str) -> int:
        if type(card) is not int or not 0 <= card < NUM_CARDS:
            raise MalformedActionError(f"{what}: not a card index 0..{NUM_CARDS - 1}: {card!r}")
        if not self._rules.deck_mask >> card & 1:
            raise MalformedActionError(
                f"{what}: {card_name(card)} is not in the {self._rules.name} deck"
            )
        return card
