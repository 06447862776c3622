"""Every parameter of RULES.md, their validation, and the ten named presets."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from functools import cached_property
from typing import Any, ClassVar, TypeAlias

from ._cards import NUM_CARDS, ROOK, ROOK2, SUIT_MASKS, mask_points
from ._errors import RulesetError

RulesetParameter: TypeAlias = int | bool | str | None
"""A ruleset parameter as :meth:`Ruleset.to_dict` writes it (an enum by its name)."""

__all__ = ["PRESETS", "AllPass", "BothOver", "FirstLead", "HandSeeds", "Partnership", "Ruleset"]


class Partnership(Enum):
    """Who scores together (RULES.md §1, §6)."""

    FIXED = "FIXED"
    """Partners sit opposite: seat ``s`` is on side ``s % (players // 2)``."""
    NONE = "NONE"
    """Cutthroat: every seat is its own side."""
    CALLED = "CALLED"
    """The bidder calls a card; its holder is the secret partner for the hand. Per-player scores."""


class FirstLead(Enum):
    """Who leads the first trick of a hand (RULES.md §5)."""

    BIDDER = "BIDDER"
    """The bidder leads."""
    LEFT_OF_BIDDER = "LEFT_OF_BIDDER"
    """The player left of the bidder leads."""


class AllPass(Enum):
    """What happens when every player passes without a bid (RULES.md §3)."""

    REDEAL = "REDEAL"
    """The same dealer deals a fresh hand; the void hand counts toward ``max_hands``."""
    DEALER_FORCED = "DEALER_FORCED"
    """The dealer becomes the bidder at ``min_bid``."""


class BothOver(Enum):
    """How the game ends when several sides reach the target after the same hand (RULES.md §8)."""

    HIGHER_TOTAL = "HIGHER_TOTAL"
    """The highest total wins; an exact tie at the top plays another hand."""
    BIDDER_WINS = "BIDDER_WINS"
    """The bidding side wins if it is over the target; otherwise as ``HIGHER_TOTAL``."""


class HandSeeds(Enum):
    """Which count a hand's seed is derived from (RULES.md §3, §9; docs/rules.md)."""

    DEALT = "DEALT"
    """Hand *k* of the game, counting every hand dealt (redeals included), is dealt from
    ``f"{seed}:{k}"``. The default, and every game's numbering before this parameter existed."""
    PLAYED = "PLAYED"
    """A hand is dealt from ``f"{seed}:{p}"``, ``p`` the number of hands played out before it;
    the ``r``-th redeal since then from ``f"{seed}:{p}:r{r}"``. The *p*-th hand played out then
    has the same cards and the same dealer in every game of that seed, whatever redeals one of
    them had before: what duplicate pairs need."""


def _rank_mask(lowest_rank: int) -> int:
    per_suit = sum(1 << (rank - 1) for rank in range(lowest_rank, 15))
    return sum(per_suit << (14 * suit) for suit in range(4))


@dataclass(frozen=True)
class Ruleset:
    """The frozen parameters of a game (defaults: the ``standard`` preset).

    >>> Ruleset.preset("standard").hand_size, Ruleset.preset("double-bird").deck_points
    (13, 140)
    >>> Ruleset(players=5)  # doctest: +ELLIPSIS, +IGNORE_EXCEPTION_DETAIL
    Traceback (most recent call last):
    ...
    rookery.engine._errors.RulesetError: invalid ruleset parameter 'partnership': FIXED needs ...
    """

    name: str = "custom"
    players: int = 4
    partnership: Partnership = Partnership.FIXED
    lowest_rank: int = 1
    rook_cards: int = 1
    nest_size: int = 5
    min_bid: int = 70
    bid_step: int = 5
    max_bid: int | None = None
    first_lead: FirstLead = FirstLead.BIDDER
    all_pass: AllPass = AllPass.REDEAL
    trump_first: bool = True
    rook_free_play: bool = False
    both_over: BothOver = BothOver.HIGHER_TOTAL
    target: int = 300
    max_hands: int = 200
    last_trick_bonus: int = 0
    first_dealer: int = 0
    hand_seeds: HandSeeds = HandSeeds.DEALT

    _ENUMS: ClassVar[dict[str, type[Enum]]] = {
        "partnership": Partnership,
        "first_lead": FirstLead,
        "all_pass": AllPass,
        "both_over": BothOver,
        "hand_seeds": HandSeeds,
    }
    _sides: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._validate()
        if self.partnership is Partnership.FIXED:
            sides = tuple(seat % (self.players // 2) for seat in range(self.players))
        else:
            sides = tuple(range(self.players))
        object.__setattr__(self, "_sides", sides)

    def _validate(self) -> None:
        def integer(name: str) -> int:
            value = getattr(self, name)
            if type(value) is not int:
                raise RulesetError(name, f"must be an int, got {value!r}")
            return value

        if not isinstance(self.name, str):
            raise RulesetError("name", f"must be a str, got {self.name!r}")
        for name, enum_type in self._ENUMS.items():
            if not isinstance(getattr(self, name), enum_type):
                raise RulesetError(
                    name, f"must be a {enum_type.__name__}, got {getattr(self, name)!r}"
                )
        for name in ("trump_first", "rook_free_play"):
            if type(getattr(self, name)) is not bool:
                raise RulesetError(name, f"must be a bool, got {getattr(self, name)!r}")
        players = integer("players")
        if not 3 <= players <= 6:
            raise RulesetError("players", f"must be 3 to 6, got {players}")
        if self.partnership is Partnership.FIXED and (players % 2 or players < 4):
            raise RulesetError(
                "partnership",
                f"FIXED needs an even number of players (at least 4), got {players}",
            )
        lowest = integer("lowest_rank")
        if not 1 <= lowest <= 14:
            raise RulesetError("lowest_rank", f"must be 1 to 14, got {lowest}")
        rooks = integer("rook_cards")
        if rooks not in (1, 2):
            raise RulesetError("rook_cards", f"must be 1 or 2, got {rooks}")
        nest = integer("nest_size")
        if nest < 0:
            raise RulesetError("nest_size", f"must not be negative, got {nest}")
        deck_size = 4 * (15 - lowest) + rooks
        if (deck_size - nest) // players < 1:
            raise RulesetError(
                "nest_size",
                f"a nest of {nest} leaves fewer than 1 card per player "
                f"({deck_size} cards, {players} players)",
            )
        step = integer("bid_step")
        if step <= 0:
            raise RulesetError("bid_step", f"must be positive, got {step}")
        min_bid = integer("min_bid")
        if min_bid <= 0 or min_bid % step:
            raise RulesetError(
                "min_bid", f"must be a positive multiple of bid_step {step}, got {min_bid}"
            )
        if self.max_bid is not None:
            max_bid = integer("max_bid")
            if max_bid <= 0 or max_bid % step:
                raise RulesetError(
                    "max_bid", f"must be a positive multiple of bid_step {step}, got {max_bid}"
                )
        else:
            deck_points = mask_points(self._deck_mask_for(lowest, rooks))
            max_bid = deck_points - deck_points % step
        if min_bid > max_bid:
            which = "max_bid" if self.max_bid is not None else "min_bid"
            raise RulesetError(which, f"min_bid {min_bid} is above the maximum bid {max_bid}")
        if integer("target") <= 0:
            raise RulesetError("target", f"must be positive, got {self.target}")
        if integer("max_hands") < 1:
            raise RulesetError("max_hands", f"must be at least 1, got {self.max_hands}")
        if integer("last_trick_bonus") < 0:
            raise RulesetError(
                "last_trick_bonus", f"must not be negative, got {self.last_trick_bonus}"
            )
        if not 0 <= integer("first_dealer") < players:
            raise RulesetError(
                "first_dealer", f"must be a seat 0..{players - 1}, got {self.first_dealer}"
            )

    @staticmethod
    def _deck_mask_for(lowest_rank: int, rook_cards: int) -> int:
        rooks = (1 << ROOK) | ((1 << ROOK2) if rook_cards == 2 else 0)
        return _rank_mask(lowest_rank) | rooks

    # Derived properties -------------------------------------------------------------------

    @cached_property
    def deck_mask(self) -> int:
        """The mask of every card in the deck."""
        return self._deck_mask_for(self.lowest_rank, self.rook_cards)

    @cached_property
    def deck_cards(self) -> tuple[int, ...]:
        """Every card of the deck, ascending."""
        return tuple(card for card in range(NUM_CARDS) if self.deck_mask >> card & 1)

    @cached_property
    def deck_size(self) -> int:
        """The number of cards in the deck (57 for ``standard``)."""
        return self.deck_mask.bit_count()

    @cached_property
    def deck_points(self) -> int:
        """The deck's point total (120 for ``standard``, 140 with two Rook cards)."""
        return mask_points(self.deck_mask)

    @cached_property
    def effective_max_bid(self) -> int:
        """``max_bid``, or when it is ``None`` the deck's total rounded down to ``bid_step``."""
        if self.max_bid is not None:
            return self.max_bid
        return self.deck_points - self.deck_points % self.bid_step

    def bids_above(self, high_bid: int) -> tuple[int, ...]:
        """Every legal bid amount over ``high_bid`` (0: no bid yet), ascending."""
        cache = self._bid_cache
        bids = cache.get(high_bid)
        if bids is None:
            low = self.min_bid if high_bid == 0 else high_bid + self.bid_step
            bids = cache[high_bid] = tuple(range(low, self.effective_max_bid + 1, self.bid_step))
        return bids

    @cached_property
    def _bid_cache(self) -> dict[int, tuple[int, ...]]:
        return {}

    @cached_property
    def hand_size(self) -> int:
        """Cards dealt to each player: ``(deck_size - nest_size) // players``."""
        return (self.deck_size - self.nest_size) // self.players

    @cached_property
    def dead_count(self) -> int:
        """Cards in the dead pile: ``(deck_size - nest_size) % players``."""
        return (self.deck_size - self.nest_size) % self.players

    @cached_property
    def num_sides(self) -> int:
        """The number of sides (one per seat when scores are per player)."""
        return self.players // 2 if self.partnership is Partnership.FIXED else self.players

    @cached_property
    def is_per_player(self) -> bool:
        """Whether every seat is its own side for scoring (``NONE`` or ``CALLED``)."""
        return self.partnership is not Partnership.FIXED

    @property
    def sides(self) -> tuple[int, ...]:
        """The side of each seat."""
        return self._sides

    def side_of(self, seat: int) -> int:
        """The side seat ``seat`` scores for."""
        return self._sides[seat]

    def seats_of_side(self, side: int) -> tuple[int, ...]:
        """The seats that score for ``side``, ascending."""
        return self._seats_by_side.get(side, ())

    @cached_property
    def _seats_by_side(self) -> dict[int, tuple[int, ...]]:
        seats: dict[int, tuple[int, ...]] = {}
        for seat, side in enumerate(self._sides):
            seats[side] = (*seats.get(side, ()), seat)
        return seats

    def suit_mask(self, suit: int) -> int:
        """The cards of ``suit`` in this deck (Rook cards excluded)."""
        return SUIT_MASKS[suit] & self.deck_mask

    # Construction ---------------------------------------------------------------------------

    @classmethod
    def preset(cls, name: str) -> Ruleset:
        """The named preset of RULES.md; ``RulesetError`` listing the valid names otherwise."""
        try:
            return PRESETS[name]
        except KeyError:
            raise RulesetError(
                "name", f"no preset {name!r}; valid presets: {', '.join(PRESETS)}"
            ) from None

    def replace(self, **changes: Any) -> Ruleset:
        """A copy with ``changes`` applied and validated again."""
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, RulesetParameter]:
        """A plain JSON-able dict of every parameter (enums by name)."""
        out: dict[str, RulesetParameter] = {}
        for f in dataclasses.fields(self):
            if not f.init:
                continue
            value = getattr(self, f.name)
            out[f.name] = value.name if isinstance(value, Enum) else value
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> Ruleset:
        """The ruleset of a dict made by ``to_dict`` (missing keys take the defaults)."""
        if not isinstance(data, dict):
            raise RulesetError("ruleset", f"must be a dict, got {type(data).__name__}")
        known = {f.name for f in dataclasses.fields(cls) if f.init}
        kwargs: dict[str, Any] = {}  # each checked by the fields' own validation
        for key, value in data.items():
            if key not in known:
                raise RulesetError(key, "unknown ruleset parameter")
            enum_type = cls._ENUMS.get(key)
            if enum_type is not None:
                try:
                    value = enum_type[value]
                except (KeyError, TypeError):
                    names = ", ".join(member.name for member in enum_type)
                    raise RulesetError(key, f"must be one of {names}, got {value!r}") from None
            kwargs[key] = value
        return cls(**kwargs)


PRESETS: dict[str, Ruleset] = {
    preset.name: preset
    for preset in (
        Ruleset(name="standard"),
        Ruleset(
            name="traditional",
            lowest_rank=5,
            rook_free_play=True,
            first_lead=FirstLead.LEFT_OF_BIDDER,
            trump_first=False,
            both_over=BothOver.BIDDER_WINS,
        ),
        Ruleset(name="nest-4", nest_size=4),
        Ruleset(name="nest-6", nest_size=6),
        Ruleset(name="straight", nest_size=0),
        Ruleset(name="double-bird", rook_cards=2, nest_size=6),
        Ruleset(name="called-partner", partnership=Partnership.CALLED),
        Ruleset(name="cutthroat", players=3, partnership=Partnership.NONE, nest_size=6),
        Ruleset(name="five-handed", players=5, partnership=Partnership.CALLED, nest_size=7),
        Ruleset(name="six-handed", players=6, nest_size=3),
    )
}
"""The ten presets of RULES.md, by name."""
