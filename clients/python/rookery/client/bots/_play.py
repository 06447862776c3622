"""Card play on bit masks: trick strength tables, what a seat can infer, and the heuristic play.

The heuristic play is one function over a ``PlayView`` so that the heuristic bot (from an
``Observation``) and the search bot's playouts (from a simulated hand) share it exactly.
"""

from __future__ import annotations

from rookery.engine import CARD_POINTS, ROOK_MASK, SUIT_MASKS, Observation

__all__ = [
    "FOLLOW_MASKS",
    "KEYS",
    "TRUMP_MASKS",
    "PlayView",
    "choose_play",
    "lowest_card",
    "play_view_from_observation",
]

# KEYS[trump][card]: trick-taking strength. Trumps (the Rook cards included) rank above every
# card of the led suit; ROOK above ROOK2 above the trump 14 (RULES.md §5).
KEYS: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        (100 + card % 14 + 1 if card // 14 == trump else card % 14 + 1)
        if card < 56
        else (116 if card == 56 else 115)
        for card in range(58)
    )
    for trump in range(4)
)
TRUMP_MASKS: tuple[int, ...] = tuple(SUIT_MASKS[suit] | ROOK_MASK for suit in range(4))
# FOLLOW_MASKS[trump][card]: the cards that follow suit when ``card`` leads.
FOLLOW_MASKS: tuple[tuple[int, ...], ...] = tuple(
    tuple(
        TRUMP_MASKS[trump] if card >= 56 or card // 14 == trump else SUIT_MASKS[card // 14]
        for card in range(58)
    )
    for trump in range(4)
)
_POINT_CARDS = sum(1 << card for card in range(58) if CARD_POINTS[card])


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


def _highest(mask: int, keys: tuple[int, ...]) -> int:
    return max(_cards(mask), key=keys.__getitem__)


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
    keys = KEYS[view.trump]
    trump_mask = TRUMP_MASKS[view.trump]
    follow = FOLLOW_MASKS[view.trump][trick[0][1]]
    win_seat, win_key, points = -1, 0, 0
    for seat, card in trick:
        bit = 1 << card
        points += CARD_POINTS[card]
        if bit & (follow | trump_mask) and keys[card] > win_key:
            win_seat, win_key = seat, keys[card]
    view.follow = follow
    view.win_seat = win_seat
    view.win_key = win_key
    view.trick_points = points


def _is_master(card: int, unseen: int, trump: int) -> bool:
    """Whether no unseen card beats ``card`` within its own suit (trumps: among trumps)."""
    keys = KEYS[trump]
    return _top_key(FOLLOW_MASKS[trump][card] & unseen, keys) < keys[card]


def _could_be_beaten(view: PlayView, win_key: int, extra_seats: list[int]) -> bool:
    """Whether a seat of ``extra_seats`` may hold a card beating ``win_key`` on this trick."""
    if not extra_seats:
        return False
    keys = KEYS[view.trump]
    trump_mask = TRUMP_MASKS[view.trump]
    follow = view.follow
    unseen = view.unseen
    follow_beats = _top_key(unseen & follow, keys) > win_key
    trumps = unseen & trump_mask & ~follow
    ruff_beats = _top_key(trumps, keys) > win_key
    for seat in extra_seats:
        void = view.voids[seat]
        if not void & follow:
            if follow_beats:
                return True
            continue
        # A seat void in the led suit may trump.
        if ruff_beats and (void & trumps) != trumps:
            return True
    return False


def _remaining_seats(view: PlayView) -> list[int]:
    """The seats still to play to this trick after the viewer."""
    count = view.players - len(view.trick) - 1
    return [(view.seat + offset) % view.players for offset in range(1, count + 1)]


def _loser(view: PlayView, mask: int) -> int:
    """The card of ``mask`` that costs least: no points, no trumps, from a short suit, low."""
    keys = KEYS[view.trump]
    trump_mask = TRUMP_MASKS[view.trump]
    hand = view.hand

    def cost(card: int) -> tuple[int, int, int, int]:
        bit = 1 << card
        suit_length = (hand & FOLLOW_MASKS[view.trump][card]).bit_count()
        is_trump = 1 if bit & trump_mask else 0
        return (CARD_POINTS[card], is_trump, suit_length, keys[card])

    return min(_cards(mask), key=cost)


def choose_play(view: PlayView) -> int:
    """The heuristic card to play: draw trumps when long, win cheaply, feed a winning partner."""
    legal = view.legal
    if not legal & (legal - 1):
        return legal.bit_length() - 1
    if not view.trick:
        return _lead(view)
    return _follow(view)


def _lead(view: PlayView) -> int:
    keys = KEYS[view.trump]
    trump_mask = TRUMP_MASKS[view.trump]
    hand = view.legal
    unseen = view.unseen
    opponents = [s for s in range(view.players) if not view.friends >> s & 1]
    trumps = hand & trump_mask
    outstanding = unseen & trump_mask
    opponents_may_trump = any(view.voids[s] & outstanding != outstanding for s in opponents)
    is_long = trumps.bit_count() >= 3 or trumps.bit_count() >= outstanding.bit_count()
    if view.bidding_side and trumps and outstanding and opponents_may_trump and is_long:
        # Draw trumps when long: lead the master trump, else a low trump to pull theirs.
        top = _highest(trumps, keys)
        if _is_master(top, unseen, view.trump):
            return top
        low = trumps & ~_POINT_CARDS & ~ROOK_MASK
        return lowest_card(low or trumps, keys)
    # Cash side-suit masters that no opponent can ruff.
    cashable = []
    for card in _cards(hand & ~trump_mask):
        if not _is_master(card, unseen, view.trump):
            continue
        suit = FOLLOW_MASKS[view.trump][card]
        ruffable = outstanding and any(
            view.voids[s] & suit == suit and view.voids[s] & outstanding != outstanding
            for s in opponents
        )
        if not ruffable:
            cashable.append(card)
    if cashable:
        return max(cashable, key=lambda c: (CARD_POINTS[c], keys[c]))
    # Read a partner's discards: lead a suit a friend is void in, so the friend can ruff.
    friends = [s for s in range(view.players) if view.friends >> s & 1 and s != view.seat]
    for friend in friends:
        void = view.voids[friend]
        if void & outstanding == outstanding:
            continue
        for suit in range(4):
            if suit == view.trump:
                continue
            cards = hand & SUIT_MASKS[suit] & ~_POINT_CARDS
            if cards and void & SUIT_MASKS[suit] == SUIT_MASKS[suit]:
                return lowest_card(cards, keys)
    # Otherwise a low card from the shortest side suit, to make a void.
    side = hand & ~trump_mask
    if side:
        plain = side & ~_POINT_CARDS
        if plain:
            return _loser(view, plain)
    return _loser(view, hand)


def _follow(view: PlayView) -> int:
    keys = KEYS[view.trump]
    trump_mask = TRUMP_MASKS[view.trump]
    legal = view.legal
    later = _remaining_seats(view)
    later_opponents = [s for s in later if not view.friends >> s & 1]
    winning_cards = [
        c for c in _cards(legal & (view.follow | trump_mask)) if keys[c] > view.win_key
    ]
    if view.friends >> view.win_seat & 1:
        if not _could_be_beaten(view, view.win_key, later_opponents):
            # Feed points to the friend who holds the trick; never the Rook.
            feed = legal & _POINT_CARDS & ~ROOK_MASK
            if feed:
                plain_feed = feed & ~trump_mask
                choices = plain_feed or feed
                return max(
                    _cards(choices),
                    key=lambda c: (
                        CARD_POINTS[c],
                        not _is_master(c, view.unseen, view.trump),
                        -keys[c],
                    ),
                )
            return _loser(view, legal)
        safe = [c for c in winning_cards if not _could_be_beaten(view, keys[c], later_opponents)]
        if safe and view.trick_points:
            return min(safe, key=keys.__getitem__)
        return _loser(view, legal)
    if winning_cards:
        safe = [c for c in winning_cards if not _could_be_beaten(view, keys[c], later_opponents)]
        if safe:
            cheapest = min(safe, key=lambda c: (1 if (1 << c) & trump_mask else 0, keys[c]))
            is_trump = (1 << cheapest) & trump_mask
            if not is_trump or view.trick_points or CARD_POINTS[cheapest]:
                return cheapest
        elif view.trick_points >= 10:
            trump_winners = [c for c in winning_cards if (1 << c) & trump_mask]
            if trump_winners:
                return max(trump_winners, key=keys.__getitem__)
    return _loser(view, legal)
