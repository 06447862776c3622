//! Dealing, exactly as `rookery.engine.deal_for_hand`: SHAKE-256 of the hand seed gives one
//! little-endian 64-bit key per deck card; the deck sorted by (key, card) is the shuffle.

use sha3::digest::{ExtendableOutput, Update, XofReader};
use sha3::Shake256;

use crate::rules::Rules;

/// Where every card of a hand lies as dealt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Deal {
    pub hands: [u64; 6],
    pub nest: u64,
    pub dead: u64,
}

/// The deal of hand `hand_number` of a game seeded `game_seed` (`redeals` > 0: the `r`-th redeal
/// under `HandSeeds.PLAYED`, seed `"{seed}:{hand}:r{redeals}"`).
pub fn deal_for_hand(rules: &Rules, game_seed: u64, hand_number: i64, redeals: i64) -> Deal {
    let seed = if redeals > 0 {
        format!("{game_seed}:{hand_number}:r{redeals}")
    } else {
        format!("{game_seed}:{hand_number}")
    };
    let count = rules.deck_size as usize;
    let mut hasher = Shake256::default();
    hasher.update(seed.as_bytes());
    let mut reader = hasher.finalize_xof();
    let mut digest = [0u8; 8 * 58];
    reader.read(&mut digest[..8 * count]);
    let mut cards = [0u8; 58];
    let mut next = 0;
    for card in 0..58u8 {
        if rules.deck_mask >> card & 1 == 1 {
            cards[next] = card;
            next += 1;
        }
    }
    // (key, position): the position breaks ties exactly as Python's sort of (key, card) does.
    let mut order: Vec<(u64, usize)> = (0..count)
        .map(|i| {
            let mut word = [0u8; 8];
            word.copy_from_slice(&digest[8 * i..8 * i + 8]);
            (u64::from_le_bytes(word), i)
        })
        .collect();
    order.sort_unstable();
    let mut deal = Deal::default();
    let mut position = 0;
    let size = rules.hand_size as usize;
    for seat in 0..rules.players {
        for _ in 0..size {
            deal.hands[seat] |= 1 << cards[order[position].1];
            position += 1;
        }
    }
    for _ in 0..rules.nest_size {
        deal.nest |= 1 << cards[order[position].1];
        position += 1;
    }
    while position < count {
        deal.dead |= 1 << cards[order[position].1];
        position += 1;
    }
    deal
}
