"""Card play on bit masks: what a seat can infer, and the heuristic play.

The rules' facts (trick strength, trumps, following suit, the trick's winner) are the engine's
(``rookery.engine.TRICK_KEYS``, ``FOLLOW_MASKS``, ``TRUMP_MASKS``, ``trick_winner``); this
module only derives look-up tables from them.

The heuristic play is one function over a ``PlayView`` so that the heuristic bot (from an
``Observation``) and the search bot's playouts (from a simulated hand) share it exactly.
"""

from __future__ import annotations

from rookery.engine import (
    ALL_CARDS_MASK,
    CARD_POINTS,
    FOLLOW_MASKS,
    ROOK,
    ROOK2,
    ROOK_MASK,
    SUIT_MASKS,
    TRICK_KEYS,
    TRUMP_MASKS,
    Observation,
    trick_winner,
)

__all__ = [
    "FOLLOW_MASKS",
    "KEYS",
    "TRUMP_MASKS",
    "PlayView",
    "alike_classes",
    "choose_play",
    "lowest_card",
    "play_view_from_observation",
]

# The rules' own tables (``rookery.engine``): trick strength, trumps, and what follows suit.
KEYS: tuple[tuple[int, ...], ...] = TRICK_KEYS
_POINT_CARDS = sum(1 << card for card in range(58) if CARD_POINTS[card])
_FIVES = sum(1 << card for card in range(58) if CARD_POINTS[card] == 5)
_TENS = sum(1 << card for card in range(58) if CARD_POINTS[card] == 10)
_NO_POINTS = ALL_CARDS_MASK & ~_POINT_CARDS
# Each suit's mask and first card, in card order.
_SUITS: tuple[tuple[int, int], ...] = tuple((SUIT_MASKS[suit], 14 * suit) for suit in range(4))
# _ABOVE[trump][key]: the cards whose trick-taking key exceeds ``key`` (0 up to the top key).
_TOP_KEY = max(max(keys) for keys in KEYS)
_ABOVE: tuple[tuple[int, ...], ...] = tuple(
    tuple(sum(1 << card for card in range(58) if keys[card] > key) for key in range(_TOP_KEY + 1))
    for keys in KEYS
)


# _BYTE_CARDS[chunk][byte]: the cards of bits ``byte`` at bits 8 * chunk ... 8 * chunk + 7.
_BYTE_CARDS: tuple[tuple[tuple[int, ...], ...], ...] = tuple(
    tuple(tuple(8 * chunk + bit for bit in range(8) if byte >> bit & 1) for byte in range(256))
    for chunk in range(8)
)


def _cards(mask: int) -> list[int]:
    """The cards of ``mask``, ascending."""
    out: list[int] = []
    chunk = 0
    while mask:
        byte = mask & 0xFF
        if byte:
            out.extend(_BYTE_CARDS[chunk][byte])
        mask >>= 8
        chunk += 1
    return out


def _top_key(mask: int, keys: tuple[int, ...]) -> int:
    """The highest trick-taking key among the cards of ``mask``, all of one follow group."""
    if mask & ROOK_MASK:
        return keys[56] if mask >> 56 & 1 else keys[57]
    return keys[mask.bit_length() - 1] if mask else 0


def lowest_card(mask: int, keys: tuple[int, ...]) -> int:
    """The weakest card of ``mask`` for trick-taking."""
    return min(_cards(mask), key=keys.__getitem__)


class PlayView:
    """What the seat to play knows, as masks: the input of ``choose_play``.

    ``voids[s]`` holds the cards seat ``s`` has shown it cannot hold (a suit it failed to
    follow); ``friends`` is a bit per seat known to be on the viewer's side (the viewer
    included); ``unseen`` is every card of the deck neither in the viewer's hand nor played.
    """

    __slots__ = (
        "bidding_side",
        "follow",
        "friends",
        "hand",
        "legal",
        "players",
        "seat",
        "trick",
        "trick_points",
        "trump",
        "unseen",
        "voids",
        "win_key",
        "win_seat",
    )

    def __init__(self) -> None:
        self.seat = 0
        self.players = 4
        self.hand = 0
        self.legal = 0
        self.trump = 0
        self.trick: list[tuple[int, int]] = []
        self.follow = 0
        self.win_seat = -1
        self.win_key = 0
        self.trick_points = 0
        self.unseen = 0
        self.voids: list[int] = []
        self.friends = 0
        self.bidding_side = False


def infer_voids(
    players: int, trump: int, tricks: list[tuple[tuple[int, int], ...]], rook_free_play: bool
) -> list[int]:
    """Per seat, the cards it has shown it cannot hold by failing to follow suit."""
    voids = [0] * players
    follow_masks = FOLLOW_MASKS[trump]
    for cards in tricks:
        if not cards:
            continue
        follow = follow_masks[cards[0][1]]
        for seat, card in cards[1:]:
            bit = 1 << card
            if not bit & follow and not (rook_free_play and bit & ROOK_MASK):
                voids[seat] |= follow
    return voids


def known_friends(obs: Observation) -> int:
    """The seats the observer knows to be on its side (as a bit per seat, itself included)."""
    seat = obs.seat
    rules = obs.ruleset
    if not rules.is_per_player:
        side = obs.sides[seat]
        return sum(1 << other for other in range(rules.players) if obs.sides[other] == side)
    friends = 1 << seat
    if obs.partner >= 0 and seat in (obs.bidder, obs.partner):
        friends |= (1 << obs.bidder) | (1 << obs.partner)
    return friends


def play_view_from_observation(obs: Observation, legal: int) -> PlayView:
    """The ``PlayView`` of the observer, who is to play a card."""
    assert obs.trump is not None
    trump = int(obs.trump)
    rules = obs.ruleset
    view = PlayView()
    view.seat = obs.seat
    view.players = rules.players
    view.hand = obs.hand
    view.legal = legal
    view.trump = trump
    tricks = [trick.cards for trick in obs.completed_tricks]
    current = obs.current_trick.cards
    tricks.append(current)
    played = 0
    for cards in tricks:
        for _, card in cards:
            played |= 1 << card
    view.unseen = rules.deck_mask & ~played & ~obs.hand & ~obs.buried
    view.voids = infer_voids(rules.players, trump, tricks, rules.rook_free_play)
    view.friends = known_friends(obs)
    bidding_seats = 1 << obs.bidder
    if not rules.is_per_player:
        bidding_seats = sum(
            1 << s for s in range(rules.players) if obs.sides[s] == obs.sides[obs.bidder]
        )
    elif obs.partner >= 0:
        bidding_seats |= 1 << obs.partner
    view.bidding_side = bool(bidding_seats >> obs.seat & 1)
    view.trick = list(current)
    set_trick_state(view)
    return view


def set_trick_state(view: PlayView) -> None:
    """Fill ``follow``, ``win_seat``, ``win_key`` and ``trick_points`` from ``view.trick``."""
    trick = view.trick
    if not trick:
        view.follow = 0
        view.win_seat = -1
        view.win_key = 0
        view.trick_points = 0
        return
    cards = [card for _, card in trick]
    win_seat, win_card = trick[trick_winner(cards, view.trump)]
    follow = FOLLOW_MASKS[view.trump][cards[0]]
    win_key = KEYS[view.trump][win_card]
    points = sum(CARD_POINTS[card] for card in cards)
    view.follow = follow
    view.win_seat = win_seat
    view.win_key = win_key
    view.trick_points = points


# The play below runs for every card of every playout of the search bot, so it works on masks
# and per-trump tables rather than on lists of cards and ``min``/``max`` with key functions:
# each shortcut picks the card those would (the first, in card order, of equal keys).


def _weakest(mask: int, trump_mask: int) -> int:
    """The weakest card of ``mask`` for trick-taking: ``mask`` holds cards of one side suit
    and trumps (all keys distinct), so the lowest side card, else the lowest trump."""
    plain = mask & ~trump_mask
    if plain:
        return (plain & -plain).bit_length() - 1
    suit = mask & ~ROOK_MASK
    if suit:
        return (suit & -suit).bit_length() - 1
    return ROOK2 if mask >> ROOK2 & 1 else ROOK


def _strongest_trump(trumps: int) -> int:
    """The strongest card of ``trumps`` (trumps only): ROOK, then ROOK2, then the highest."""
    if trumps >> ROOK & 1:
        return ROOK
    if trumps >> ROOK2 & 1:
        return ROOK2
    return trumps.bit_length() - 1


def _is_master(card: int, unseen: int, trump: int) -> bool:
    """Whether no unseen card beats ``card`` within its own suit (trumps: among trumps)."""
    keys = KEYS[trump]
    return _top_key(FOLLOW_MASKS[trump][card] & unseen, keys) < keys[card]


def _threat(view: PlayView) -> int:
    """The highest key an opponent still to play to this trick may hold to beat it with (0: none).

    A seat that may follow suit threatens the led suit's highest unseen card; a seat void in
    it that may still hold a trump, the highest unseen trump. A card keyed ``k`` can then be
    beaten exactly when the threat exceeds ``k``.
    """
    trump = view.trump
    follow = view.follow
    unseen = view.unseen
    trumps = unseen & TRUMP_MASKS[trump] & ~follow
    players = view.players
    seat = view.seat
    friends = view.friends
    voids = view.voids
    may_follow = may_ruff = False
    for offset in range(1, players - len(view.trick)):
        other = (seat + offset) % players
        if friends >> other & 1:
            continue
        void = voids[other]
        if not void & follow:
            may_follow = True
        elif void & trumps != trumps:
            may_ruff = True
    keys = KEYS[trump]
    threat = _top_key(unseen & follow, keys) if may_follow else 0
    if may_ruff:
        ruff = _top_key(trumps, keys)
        if ruff > threat:
            threat = ruff
    return threat


def _loser(view: PlayView, mask: int) -> int:
    """The card of ``mask`` that costs least: no points, no trumps, from a short suit, low.

    That is the least (points, is a trump, its suit's length in hand, key), ties to the lowest
    card, taken level by level: the fewest points, then side cards over trumps, then per side
    suit its lowest card.
    """
    cards = mask & _NO_POINTS or mask & _FIVES or mask & _TENS or mask
    trump_mask = TRUMP_MASKS[view.trump]
    plain = cards & ~trump_mask
    if not plain:
        return _weakest(cards, trump_mask)
    hand = view.hand
    best, best_length, best_rank = -1, 99, 99
    for suit_mask, first in _SUITS:
        held = plain & suit_mask
        if held:
            card = (held & -held).bit_length() - 1
            length = (hand & suit_mask).bit_count()
            if length < best_length or (length == best_length and card - first < best_rank):
                best, best_length, best_rank = card, length, card - first
    return best


def choose_play(view: PlayView) -> int:
    """The heuristic card to play: draw trumps when long, win cheaply, feed a winning partner."""
    legal = view.legal
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    if not view.trick:
        return _lead(view)
    return _follow(view)


def _lead(view: PlayView) -> int:
    trump = view.trump
    keys = KEYS[trump]
    trump_mask = TRUMP_MASKS[trump]
    hand = view.legal
    unseen = view.unseen
    voids = view.voids
    friends = view.friends
    trumps = hand & trump_mask
    outstanding = unseen & trump_mask
    # The voids of the opponents who may still hold a trump.
    ruffers = []
    if outstanding:
        for seat in range(view.players):
            if not friends >> seat & 1 and voids[seat] & outstanding != outstanding:
                ruffers.append(voids[seat])
    if view.bidding_side and trumps and ruffers:
        count = trumps.bit_count()
        if count >= 3 or count >= outstanding.bit_count():
            # Draw trumps when long: lead the master trump, else a low trump to pull theirs.
            top = _strongest_trump(trumps)
            if _top_key(outstanding, keys) < keys[top]:
                return top
            low = trumps & ~_POINT_CARDS & ~ROOK_MASK
            return _weakest(low or trumps, trump_mask)
    # Cash side-suit masters that no opponent can ruff: the most points, then the highest.
    best, best_score = -1, -1
    for suit, suit_mask in enumerate(SUIT_MASKS):
        held = hand & suit_mask
        if not held or suit == trump:
            continue
        # The masters: the cards above the suit's highest unseen card.
        masters = held & -(1 << (unseen & suit_mask).bit_length())
        if not masters or any(void & suit_mask == suit_mask for void in ruffers):
            continue
        card = (masters & _TENS or masters & _FIVES or masters).bit_length() - 1
        score = 100 * CARD_POINTS[card] + keys[card]
        if score > best_score:
            best, best_score = card, score
    if best >= 0:
        return best
    # Read a partner's discards: lead a suit a friend is void in, so the friend can ruff.
    for friend in range(view.players):
        if not friends >> friend & 1 or friend == view.seat:
            continue
        void = voids[friend]
        if void & outstanding == outstanding:
            continue
        for suit, suit_mask in enumerate(SUIT_MASKS):
            if suit == trump:
                continue
            cards = hand & suit_mask & ~_POINT_CARDS
            if cards and void & suit_mask == suit_mask:
                return (cards & -cards).bit_length() - 1
    # Otherwise a low card from the shortest side suit, to make a void.
    side = hand & ~trump_mask
    if side:
        plain = side & ~_POINT_CARDS
        if plain:
            return _loser(view, plain)
    return _loser(view, hand)


def _follow(view: PlayView) -> int:
    trump = view.trump
    keys = KEYS[trump]
    trump_mask = TRUMP_MASKS[trump]
    above = _ABOVE[trump]
    legal = view.legal
    win_key = view.win_key
    threat = _threat(view)
    winning = legal & (view.follow | trump_mask) & above[win_key]
    # The winning cards no later opponent may beat (keyed at least ``threat``).
    safe = winning if threat <= win_key else winning & above[threat - 1]
    if view.friends >> view.win_seat & 1:
        if threat <= win_key:
            # Feed points to the friend who holds the trick; never the Rook.
            feed = legal & _POINT_CARDS & ~ROOK_MASK
            if feed:
                plain_feed = feed & ~trump_mask
                return max(
                    _cards(plain_feed or feed),
                    key=lambda c: (
                        CARD_POINTS[c],
                        not _is_master(c, view.unseen, trump),
                        -keys[c],
                    ),
                )
            return _loser(view, legal)
        if safe and view.trick_points:
            return _weakest(safe, trump_mask)
        return _loser(view, legal)
    if winning:
        if safe:
            cheapest = _weakest(safe, trump_mask)
            if not (1 << cheapest) & trump_mask or view.trick_points or CARD_POINTS[cheapest]:
                return cheapest
        elif view.trick_points >= 10:
            trump_winners = winning & trump_mask
            if trump_winners:
                return _strongest_trump(trump_winners)
    return _loser(view, legal)


def alike_classes(legal: int, others: int) -> list[int]:
    """The cards of ``legal``, one per class of cards that play alike: a run of cards of one suit
    and worth with none of ``others`` (cards elsewhere, or in the trick under way) between them."""
    kept: list[int] = []
    previous = -1
    while legal:
        low = legal & -legal
        card = low.bit_length() - 1
        legal ^= low
        if (
            previous >= 0
            and card < 56
            and card // 14 == previous // 14
            and CARD_POINTS[card] == CARD_POINTS[previous]
            and not others & ((1 << card) - (1 << (previous + 1)))
        ):
            previous = card
            continue
        kept.append(card)
        previous = card
    return kept
