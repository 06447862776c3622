//! Cards as indices and card sets as `u64` bit masks (RULES.md §2, §5), as in `rookery.engine`.
//!
//! A numbered card of suit `s` (0=B, 1=R, 2=Y, 3=G) and rank `r` is `s * 14 + (r - 1)`; the Rook
//! cards are 56 and 57.

pub const NUM_CARDS: u32 = 58;
pub const ROOK: u32 = 56;
pub const ROOK_MASK: u64 = 3 << 56;
pub const ALL_CARDS_MASK: u64 = (1 << NUM_CARDS) - 1;
const SUIT_BITS: u64 = (1 << 14) - 1;

const fn fives_mask() -> u64 {
    let mut mask = 0;
    let mut suit = 0;
    while suit < 4 {
        mask |= 1 << (suit * 14 + 4);
        suit += 1;
    }
    mask
}

const fn tens_mask() -> u64 {
    let mut mask = 0;
    let mut suit = 0;
    while suit < 4 {
        mask |= 1 << (suit * 14 + 9);
        mask |= 1 << (suit * 14 + 13);
        suit += 1;
    }
    mask
}

const FIVES_MASK: u64 = fives_mask();
const TENS_MASK: u64 = tens_mask();

/// The cards of suit `suit` (Rook cards excluded).
#[inline]
pub const fn suit_mask(suit: u32) -> u64 {
    SUIT_BITS << (14 * suit)
}

/// The trumps of trump suit `trump`, the Rook cards included.
#[inline]
pub const fn trump_mask(trump: u32) -> u64 {
    suit_mask(trump) | ROOK_MASK
}

/// The cards that follow suit when `card` leads (a Rook card or a trump leads the trumps).
#[inline]
pub const fn follow_mask(trump: u32, card: u32) -> u64 {
    if card >= ROOK || card / 14 == trump {
        trump_mask(trump)
    } else {
        suit_mask(card / 14)
    }
}

/// A card's trick-taking strength: led-suit rank 1..14, a trump 101..114, ROOK2 115, ROOK 116.
#[inline]
pub const fn trick_key(trump: u32, card: u32) -> u32 {
    if card >= ROOK {
        if card == ROOK {
            116
        } else {
            115
        }
    } else if card / 14 == trump {
        100 + card % 14 + 1
    } else {
        card % 14 + 1
    }
}

/// The points of a card: 5 for a 5, 10 for a 10 or a 14, 20 for a Rook card, else 0.
#[inline]
pub const fn card_points(card: u32) -> i64 {
    if card >= ROOK {
        return 20;
    }
    match card % 14 + 1 {
        5 => 5,
        10 | 14 => 10,
        _ => 0,
    }
}

/// The points of every card in `mask`.
#[inline]
pub const fn mask_points(mask: u64) -> i64 {
    5 * (mask & FIVES_MASK).count_ones() as i64
        + 10 * (mask & TENS_MASK).count_ones() as i64
        + 20 * (mask & ROOK_MASK).count_ones() as i64
}

/// The cards of `hand` that may be played to a trick led in `follow` (0: to lead).
#[inline]
pub const fn playable(hand: u64, follow: u64, rook_free_play: bool) -> u64 {
    let legal = hand & follow;
    if legal == 0 {
        return hand;
    }
    if rook_free_play {
        legal | (hand & ROOK_MASK)
    } else {
        legal
    }
}

/// The text form of a card: `B1` … `G14`, `ROOK`, `ROOK2`.
pub fn card_name(card: u32) -> String {
    match card {
        56 => "ROOK".to_string(),
        57 => "ROOK2".to_string(),
        _ => format!(
            "{}{}",
            ["B", "R", "Y", "G"][(card / 14) as usize],
            card % 14 + 1
        ),
    }
}

/// The text forms of the cards in `mask`, ascending, separated by spaces.
pub fn format_cards(mask: u64) -> String {
    let mut names = Vec::new();
    let mut rest = mask;
    while rest != 0 {
        names.push(card_name(rest.trailing_zeros()));
        rest &= rest - 1;
    }
    names.join(" ")
}

pub const SUIT_NAMES: [&str; 4] = ["BLACK", "RED", "YELLOW", "GREEN"];
