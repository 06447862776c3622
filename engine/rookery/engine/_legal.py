"""``LegalActions``: a compact, immutable description of what the player to act may do."""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence
from math import comb
from typing import Any, Final, overload

from ._actions import (
    _BIDS,
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
from ._builders import positional_builder
from ._cards import Suit, cards_of, format_cards
from ._rulebook import legal_play_mask

__all__ = ["LegalActions", "legal_play_mask"]

_SUITS: Final = tuple(Suit)
# Enum member access costs a descriptor call on Python 3.11; the hot paths use these constants.
_BIDDING: Final = Phase.BIDDING
_NAME_TRUMP: Final = Phase.NAME_TRUMP
_BURY: Final = Phase.BURY
_CALL: Final = Phase.CALL
_PLAY: Final = Phase.PLAY
# Bury(...), built faster (by its slot, not a frozen dataclass's __setattr__).
_new_bury: Final = positional_builder(Bury)


def _bid(amount: int) -> Bid:
    """``bid_action(amount)``: the shared instance, looked up here (compiled, a dict lookup in
    place of an interpreted call)."""
    action = _BIDS.get(amount)
    return action if action is not None else bid_action(amount)


def _nth_bit(mask: int, index: int) -> int:
    """The card index of the ``index``-th lowest set bit of ``mask``."""
    for _ in range(index):
        mask &= mask - 1
    return (mask & -mask).bit_length() - 1


class LegalActions(Sequence[Action]):
    """Every legal action of the player to act, described compactly and enumerated lazily.

    It is a ``Sequence[Action]`` in a fixed order: indexing, ``len``, iteration and ``in`` work
    without materialising the list (a bury of 5 cards out of 18 has 8,568 actions, produced by
    unranking combinations on demand). ``sample(rng)`` draws one uniformly.

    >>> legal = LegalActions(Phase.BIDDING, 1, can_pass=True, bids=(70, 75))
    >>> [str(action) for action in legal]
    ['pass', 'bid 70', 'bid 75']
    """

    __slots__ = ("_bids", "_count", "_mask", "_phase", "_player")

    _phase: Phase
    _player: int
    _mask: int
    _bids: tuple[int, ...]
    _count: int

    def __init__(
        self,
        phase: Phase,
        player: int,
        *,
        can_pass: bool = False,
        bids: tuple[int, ...] = (),
        bury_from: int = 0,
        bury_count: int = 0,
        call_from: int = 0,
        play: int = 0,
    ) -> None:
        self._phase = phase
        self._player = player
        self._bids = bids if phase is _BIDDING else ()
        self._count = 0
        self._mask = 0
        if phase is _BIDDING:
            self._count = 1 if can_pass else 0
        elif phase is _NAME_TRUMP:
            self._mask = 0b1111
        elif phase is _BURY:
            self._mask = bury_from
            self._count = bury_count
        elif phase is _CALL:
            self._mask = call_from
        elif phase is _PLAY:
            self._mask = play

    # The described fields -------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        """The phase these actions belong to."""
        return self._phase

    @property
    def player(self) -> int:
        """The seat to act (-1 when nobody acts)."""
        return self._player

    @property
    def can_pass(self) -> bool:
        """Whether passing is legal (always, during the auction)."""
        return self._phase is _BIDDING and self._count == 1

    @property
    def bids(self) -> tuple[int, ...]:
        """Every legal bid amount, ascending."""
        return self._bids

    @property
    def suits(self) -> tuple[Suit, ...]:
        """The suits that may be named trump."""
        return _SUITS if self._phase is _NAME_TRUMP else ()

    @property
    def bury_from(self) -> int:
        """The mask of the cards that may be buried."""
        return self._mask if self._phase is _BURY else 0

    @property
    def bury_count(self) -> int:
        """How many cards must be buried."""
        return self._count if self._phase is _BURY else 0

    @property
    def call_from(self) -> int:
        """The mask of the cards that may be called."""
        return self._mask if self._phase is _CALL else 0

    @property
    def play(self) -> int:
        """The mask of the cards that may be played."""
        return self._mask if self._phase is _PLAY else 0

    # Sequence protocol ----------------------------------------------------------------------

    def __len__(self) -> int:
        phase = self._phase
        if phase is _PLAY or phase is _CALL or phase is _NAME_TRUMP:
            return self._mask.bit_count()
        if phase is _BIDDING:
            return self._count + len(self._bids)
        if phase is _BURY:
            return comb(self._mask.bit_count(), self._count)
        return 0

    @overload
    def __getitem__(self, index: int) -> Action: ...

    @overload
    def __getitem__(self, index: slice) -> Sequence[Action]: ...

    def __getitem__(self, index: int | slice) -> Action | Sequence[Action]:
        if isinstance(index, slice):
            return tuple(self[i] for i in range(*index.indices(len(self))))
        phase = self._phase
        if phase is _PLAY and index >= 0:
            mask = self._mask
            for _ in range(index):
                mask &= mask - 1
            if not mask:
                raise IndexError("legal action index out of range")
            return PLAY[(mask & -mask).bit_length() - 1]
        size = len(self)
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("legal action index out of range")
        if phase is _PLAY:
            return PLAY[_nth_bit(self._mask, index)]
        if phase is _BIDDING:
            if self._count:
                if index == 0:
                    return PASS
                index -= 1
            return bid_action(self._bids[index])
        if phase is _NAME_TRUMP:
            return TRUMP[index]
        if phase is _CALL:
            return CallCard(_nth_bit(self._mask, index))
        return Bury(self._unrank_bury(index))

    def _unrank_bury(self, index: int) -> int:
        """The ``index``-th combination (colexicographic order) of ``bury_count`` cards."""
        cards = cards_of(self._mask)
        mask = 0
        position = len(cards)
        for k in range(self._count, 0, -1):
            position -= 1
            while comb(position, k) > index:
                position -= 1
            index -= comb(position, k)
            mask |= 1 << cards[position]
        return mask

    def __iter__(self) -> Iterator[Action]:
        if self._phase is _PLAY:
            return iter([PLAY[card] for card in cards_of(self._mask)])
        return self._each()

    def _each(self) -> Iterator[Action]:
        """Every action in order, one at a time (a bury's thousands are never listed)."""
        for index in range(len(self)):
            yield self[index]

    def __contains__(self, action: object) -> bool:
        phase = self._phase
        if phase is _PLAY:
            return (
                type(action) is PlayCard
                and _is_card(action.card)
                and bool(self._mask >> action.card & 1)
            )
        if phase is _BIDDING:
            if isinstance(action, Pass):
                return self._count == 1
            return isinstance(action, Bid) and action.amount in self._bids
        if phase is _NAME_TRUMP:
            return isinstance(action, NameTrump) and action.suit in _SUITS
        if phase is _CALL:
            return (
                isinstance(action, CallCard)
                and _is_card(action.card)
                and bool(self._mask >> action.card & 1)
            )
        if phase is _BURY:
            return (
                isinstance(action, Bury)
                and type(action.cards) is int
                and action.cards >= 0
                and action.cards & self._mask == action.cards
                and action.cards.bit_count() == self._count
            )
        return False

    def sample(self, rng: random.Random) -> Action:
        """One legal action drawn uniformly with ``rng``; ``IndexError`` when there is none.

        One index ``int(rng.random() * len(self))``; a bury draws its cards one at a time
        without replacement instead (uniform over the combinations too, without counting them).
        """
        phase = self._phase
        if phase is _NAME_TRUMP:
            return TRUMP[int(rng.random() * 4)]
        if phase is _BURY and self._count <= self._mask.bit_count():
            cards = cards_of(self._mask)
            buried = 0
            for _ in range(self._count):
                buried |= 1 << cards.pop(int(rng.random() * len(cards)))
            return _new_bury(buried)
        size = len(self)
        if not size:
            raise IndexError("no legal action to sample")
        return self[int(rng.random() * size)]

    # Values ---------------------------------------------------------------------------------

    def _key(self) -> tuple[Phase, int, int, tuple[int, ...], int]:
        return (self._phase, self._player, self._mask, self._bids, self._count)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LegalActions):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return (_rebuild, self._key())

    def __repr__(self) -> str:
        phase = self._phase
        if phase is _BIDDING:
            detail = f"can_pass={self.can_pass}, bids={self._bids}"
        elif phase is _BURY:
            detail = f"bury_count={self._count}, bury_from={format_cards(self._mask)!r}"
        elif phase is _CALL:
            detail = f"call_from={format_cards(self._mask)!r}"
        elif phase is _PLAY:
            detail = f"play={format_cards(self._mask)!r}"
        elif phase is _NAME_TRUMP:
            detail = "suits=B R Y G"
        else:
            detail = "none"
        return f"LegalActions({phase.name}, player={self._player}, {detail})"


def _rebuild(
    phase: Phase, player: int, mask: int, bids: tuple[int, ...], count: int
) -> LegalActions:
    """Unpickle ``LegalActions`` (as the general class: it compares equal)."""
    legal = LegalActions(Phase.GAME_OVER, -1)
    legal._phase, legal._player, legal._mask, legal._bids, legal._count = (
        phase,
        player,
        mask,
        bids,
        count,
    )
    return legal


def _is_card(card: object) -> bool:
    return type(card) is int and 0 <= card < 58


class _PlayActions(LegalActions):
    """``LegalActions`` of the PLAY phase, specialised for the hot path of random playouts."""

    __slots__ = ()

    def __init__(self, player: int, play: int) -> None:
        self._phase = _PLAY
        self._player = player
        self._mask = play
        self._bids = ()
        self._count = 0

    def __len__(self) -> int:
        return self._mask.bit_count()

    def __getitem__(self, index: int | slice) -> Any:
        if type(index) is int and index >= 0:
            mask = self._mask
            for _ in range(index):
                mask &= mask - 1
            if mask:
                return PLAY[(mask & -mask).bit_length() - 1]
        return LegalActions.__getitem__(self, index)

    def __iter__(self) -> Iterator[Action]:
        return iter([PLAY[card] for card in cards_of(self._mask)])

    def sample(self, rng: random.Random) -> Action:
        mask = self._mask
        if not mask:
            raise IndexError("no legal action to sample")
        skip = int(rng.random() * mask.bit_count())
        while skip:
            mask &= mask - 1
            skip -= 1
        return PLAY[(mask & -mask).bit_length() - 1]

    def __contains__(self, action: object) -> bool:
        return (
            type(action) is PlayCard
            and type(action.card) is int
            and 0 <= action.card < 58
            and bool(self._mask >> action.card & 1)
        )


class _BiddingActions(LegalActions):
    """``LegalActions`` of the auction: pass, then every bid amount ascending."""

    __slots__ = ()

    def __init__(self, player: int, bids: tuple[int, ...]) -> None:
        self._phase = _BIDDING
        self._player = player
        self._mask = 0
        self._bids = bids
        self._count = 1

    def __len__(self) -> int:
        return len(self._bids) + 1

    def __getitem__(self, index: int | slice) -> Any:
        if type(index) is int and 0 <= index <= len(self._bids):
            return _bid(self._bids[index - 1]) if index else PASS
        return LegalActions.__getitem__(self, index)

    def sample(self, rng: random.Random) -> Action:
        index = int(rng.random() * (len(self._bids) + 1))
        return _bid(self._bids[index - 1]) if index else PASS
