//! The search bots' playout model: a perfect-information hand of the play phase played to its
//! end with every seat playing the bots' heuristic on what that seat could know.
//!
//! A card-for-card port of `rookery.client.bots._simulate.HandSimulation` (`play`,
//! `heuristic_card`, `play_out`) and `_play.choose_play` (`_lead`, `_follow`, `_threat`,
//! `_loser`, `_weakest`): the Python model stays the readable reference, and
//! `tests/bots/playout_golden.json` and a differential test over random positions hold the two
//! equal. Each shortcut picks the card the Python picks (the first, in card order, of equal keys).

use std::sync::OnceLock;

use crate::cards::{
    card_points, follow_mask, playable, suit_mask, trick_key, trump_mask, ROOK_MASK,
};

const ROOK: u32 = 56;
const ROOK2: u32 = 57;

const fn points_masks() -> (u64, u64, u64) {
    let mut fives = 0u64;
    let mut tens = 0u64;
    let mut card = 0u32;
    while card < 56 {
        match card % 14 + 1 {
            5 => fives |= 1 << card,
            10 | 14 => tens |= 1 << card,
            _ => {}
        }
        card += 1;
    }
    (fives, tens, fives | tens | ROOK_MASK)
}

const FIVES: u64 = points_masks().0;
const TENS: u64 = points_masks().1;
const POINT_CARDS: u64 = points_masks().2;
const ALL_CARDS: u64 = (1 << 58) - 1;
const NO_POINTS: u64 = ALL_CARDS & !POINT_CARDS;
const TOP_KEY: usize = 116;

/// `above(trump)[key]`: the cards whose trick-taking key exceeds `key`.
fn above(trump: u32) -> &'static [u64; TOP_KEY + 1] {
    static TABLES: OnceLock<[[u64; TOP_KEY + 1]; 4]> = OnceLock::new();
    &TABLES.get_or_init(|| {
        let mut tables = [[0u64; TOP_KEY + 1]; 4];
        for (trump, table) in tables.iter_mut().enumerate() {
            for (key, mask) in table.iter_mut().enumerate() {
                for card in 0..58u32 {
                    if trick_key(trump as u32, card) as usize > key {
                        *mask |= 1 << card;
                    }
                }
            }
        }
        tables
    })[trump as usize]
}

#[inline]
fn lowest(mask: u64) -> u32 {
    mask.trailing_zeros()
}

#[inline]
fn highest(mask: u64) -> u32 {
    63 - mask.leading_zeros()
}

#[inline]
fn bit_length(mask: u64) -> u32 {
    64 - mask.leading_zeros()
}

/// The highest key among the cards of `mask`, all of one follow group (0: none).
#[inline]
fn top_key(mask: u64, trump: u32) -> u32 {
    if mask & ROOK_MASK != 0 {
        return trick_key(trump, if mask >> ROOK & 1 == 1 { ROOK } else { ROOK2 });
    }
    if mask == 0 {
        0
    } else {
        trick_key(trump, highest(mask))
    }
}

/// The weakest card of `mask` (one side suit and trumps): the lowest side card, else trump.
#[inline]
fn weakest(mask: u64, trumps: u64) -> u32 {
    let plain = mask & !trumps;
    if plain != 0 {
        return lowest(plain);
    }
    let suit = mask & !ROOK_MASK;
    if suit != 0 {
        return lowest(suit);
    }
    if mask >> ROOK2 & 1 == 1 {
        ROOK2
    } else {
        ROOK
    }
}

/// The strongest of `trumps`: ROOK, then ROOK2, then the highest.
#[inline]
fn strongest_trump(trumps: u64) -> u32 {
    if trumps >> ROOK & 1 == 1 {
        ROOK
    } else if trumps >> ROOK2 & 1 == 1 {
        ROOK2
    } else {
        highest(trumps)
    }
}

#[inline]
fn is_master(card: u32, unseen: u64, trump: u32) -> bool {
    top_key(follow_mask(trump, card) & unseen, trump) < trick_key(trump, card)
}

/// What the seat to play knows (`_play.PlayView`).
struct View<'a> {
    seat: usize,
    players: usize,
    hand: u64,
    legal: u64,
    trump: u32,
    trick_len: usize,
    follow: u64,
    win_seat: usize,
    win_key: u32,
    trick_points: i64,
    unseen: u64,
    voids: &'a [u64; 6],
    friends: u64,
    bidding_side: bool,
}

fn threat(view: &View) -> u32 {
    let trump = view.trump;
    let follow = view.follow;
    let unseen = view.unseen;
    let trumps = unseen & trump_mask(trump) & !follow;
    let mut may_follow = false;
    let mut may_ruff = false;
    for offset in 1..view.players.saturating_sub(view.trick_len) {
        let other = (view.seat + offset) % view.players;
        if view.friends >> other & 1 == 1 {
            continue;
        }
        let void = view.voids[other];
        if void & follow == 0 {
            may_follow = true;
        } else if void & trumps != trumps {
            may_ruff = true;
        }
    }
    let mut threat = if may_follow {
        top_key(unseen & follow, trump)
    } else {
        0
    };
    if may_ruff {
        let ruff = top_key(trumps, trump);
        if ruff > threat {
            threat = ruff;
        }
    }
    threat
}

fn loser(view: &View, mask: u64) -> u32 {
    let cards = if mask & NO_POINTS != 0 {
        mask & NO_POINTS
    } else if mask & FIVES != 0 {
        mask & FIVES
    } else if mask & TENS != 0 {
        mask & TENS
    } else {
        mask
    };
    let trumps = trump_mask(view.trump);
    let plain = cards & !trumps;
    if plain == 0 {
        return weakest(cards, trumps);
    }
    let (mut best, mut best_length, mut best_rank) = (0u32, 99u32, 99u32);
    for suit in 0..4u32 {
        let held = plain & suit_mask(suit);
        if held != 0 {
            let card = lowest(held);
            let length = (view.hand & suit_mask(suit)).count_ones();
            let rank = card - 14 * suit;
            if length < best_length || (length == best_length && rank < best_rank) {
                best = card;
                best_length = length;
                best_rank = rank;
            }
        }
    }
    best
}

fn lead(view: &View) -> u32 {
    let trump = view.trump;
    let trumps_of = trump_mask(trump);
    let hand = view.legal;
    let unseen = view.unseen;
    let trumps = hand & trumps_of;
    let outstanding = unseen & trumps_of;
    // The voids of the opponents who may still hold a trump.
    let mut ruffers = [0u64; 6];
    let mut ruffer_count = 0;
    if outstanding != 0 {
        for seat in 0..view.players {
            if view.friends >> seat & 1 == 0 && view.voids[seat] & outstanding != outstanding {
                ruffers[ruffer_count] = view.voids[seat];
                ruffer_count += 1;
            }
        }
    }
    let ruffers = &ruffers[..ruffer_count];
    if view.bidding_side && trumps != 0 && !ruffers.is_empty() {
        let count = trumps.count_ones();
        if count >= 3 || count >= outstanding.count_ones() {
            let top = strongest_trump(trumps);
            if top_key(outstanding, trump) < trick_key(trump, top) {
                return top;
            }
            let low = trumps & !POINT_CARDS & !ROOK_MASK;
            return weakest(if low != 0 { low } else { trumps }, trumps_of);
        }
    }
    let (mut best, mut best_score) = (-1i64, -1i64);
    for suit in 0..4u32 {
        let suit_cards = suit_mask(suit);
        let held = hand & suit_cards;
        if held == 0 || suit == trump {
            continue;
        }
        let cut = bit_length(unseen & suit_cards);
        let masters = held & !((1u64 << cut) - 1);
        if masters == 0 || ruffers.iter().any(|&void| void & suit_cards == suit_cards) {
            continue;
        }
        let pick = if masters & TENS != 0 {
            masters & TENS
        } else if masters & FIVES != 0 {
            masters & FIVES
        } else {
            masters
        };
        let card = highest(pick);
        let score = 100 * card_points(card) + trick_key(trump, card) as i64;
        if score > best_score {
            best = card as i64;
            best_score = score;
        }
    }
    if best >= 0 {
        return best as u32;
    }
    for friend in 0..view.players {
        if view.friends >> friend & 1 == 0 || friend == view.seat {
            continue;
        }
        let void = view.voids[friend];
        if void & outstanding == outstanding {
            continue;
        }
        for suit in 0..4u32 {
            if suit == trump {
                continue;
            }
            let cards = hand & suit_mask(suit) & !POINT_CARDS;
            if cards != 0 && void & suit_mask(suit) == suit_mask(suit) {
                return lowest(cards);
            }
        }
    }
    let side = hand & !trumps_of;
    if side != 0 {
        let plain = side & !POINT_CARDS;
        if plain != 0 {
            return loser(view, plain);
        }
    }
    loser(view, hand)
}

fn follow(view: &View) -> u32 {
    let trump = view.trump;
    let trumps_of = trump_mask(trump);
    let above = above(trump);
    let legal = view.legal;
    let win_key = view.win_key;
    let threat = threat(view);
    let winning = legal & (view.follow | trumps_of) & above[win_key as usize];
    let safe = if threat <= win_key {
        winning
    } else {
        winning & above[threat as usize - 1]
    };
    if view.friends >> view.win_seat & 1 == 1 {
        if threat <= win_key {
            // Feed points to the friend who holds the trick; never the Rook.
            let feed = legal & POINT_CARDS & !ROOK_MASK;
            if feed != 0 {
                let plain_feed = feed & !trumps_of;
                let mut cards = if plain_feed != 0 { plain_feed } else { feed };
                // max by (points, not a master, -key): the first (lowest card) of the best.
                let mut best = 0u32;
                let mut best_rank = (i64::MIN, false, i64::MIN);
                while cards != 0 {
                    let card = lowest(cards);
                    cards &= cards - 1;
                    let rank = (
                        card_points(card),
                        !is_master(card, view.unseen, trump),
                        -(trick_key(trump, card) as i64),
                    );
                    if rank > best_rank {
                        best = card;
                        best_rank = rank;
                    }
                }
                return best;
            }
            return loser(view, legal);
        }
        if safe != 0 && view.trick_points != 0 {
            return weakest(safe, trumps_of);
        }
        return loser(view, legal);
    }
    if winning != 0 {
        if safe != 0 {
            let cheapest = weakest(safe, trumps_of);
            if (1u64 << cheapest) & trumps_of == 0
                || view.trick_points != 0
                || card_points(cheapest) != 0
            {
                return cheapest;
            }
        } else if view.trick_points >= 10 {
            let trump_winners = winning & trumps_of;
            if trump_winners != 0 {
                return strongest_trump(trump_winners);
            }
        }
    }
    loser(view, legal)
}

fn choose_play(view: &View) -> u32 {
    let legal = view.legal;
    if legal & (legal.wrapping_sub(1)) == 0 {
        return highest(legal);
    }
    if view.trick_len == 0 {
        lead(view)
    } else {
        follow(view)
    }
}

/// The fixed facts of a hand's play: the rules' and the contract's.
#[derive(Clone, Debug)]
pub struct Table {
    pub players: usize,
    pub deck_mask: u64,
    pub rook_free_play: bool,
    pub last_trick_bonus: i64,
    /// Per seat, its friends under fixed partnerships (`None`: no fixed sides).
    pub fixed_friends: Option<[u64; 6]>,
    pub trump: u32,
    pub bidder: usize,
    pub called: i64,
}

/// One hand's play phase with every hand known (`HandSimulation`); `Clone` is cheap.
#[derive(Clone, Debug)]
pub struct Simulation {
    pub hands: [u64; 6],
    pub partner: i64,
    pub partner_shown: bool,
    pub played: u64,
    pub trick: [(usize, u32); 6],
    pub trick_len: usize,
    pub leader: usize,
    pub current: usize,
    pub follow: u64,
    pub win_seat: i64,
    pub win_key: u32,
    pub trick_points: i64,
    pub voids: [u64; 6],
    pub won: [i64; 6],
    pub tricks_left: u32,
    pub seat_friends: [u64; 6],
    pub bidding_mask: u64,
}

impl Simulation {
    /// The hand at a point of its play (`HandSimulation.__init__`).
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        table: &Table,
        hands: &[u64],
        partner: i64,
        partner_shown: bool,
        played: u64,
        trick: &[(usize, u32)],
        voids: &[u64],
        won: &[i64],
        leader: usize,
        tricks_left: u32,
        bidding_mask: u64,
    ) -> Simulation {
        let mut sim = Simulation {
            hands: [0; 6],
            partner,
            partner_shown,
            played,
            trick: [(0, 0); 6],
            trick_len: 0,
            leader,
            current: (leader + trick.len()) % table.players,
            follow: 0,
            win_seat: -1,
            win_key: 0,
            trick_points: 0,
            voids: [0; 6],
            won: [0; 6],
            tricks_left,
            seat_friends: [0; 6],
            bidding_mask,
        };
        sim.hands[..hands.len()].copy_from_slice(hands);
        sim.voids[..voids.len()].copy_from_slice(voids);
        sim.won[..won.len()].copy_from_slice(won);
        for &(seat, card) in trick {
            sim.add_to_trick(table, seat, card);
        }
        sim.seat_friends = sim.friends(table);
        sim
    }

    fn add_to_trick(&mut self, table: &Table, seat: usize, card: u32) {
        let key = trick_key(table.trump, card);
        if self.win_seat < 0 {
            self.follow = follow_mask(table.trump, card);
            self.win_seat = seat as i64;
            self.win_key = key;
        } else if (1u64 << card) & (self.follow | trump_mask(table.trump)) != 0
            && key > self.win_key
        {
            self.win_seat = seat as i64;
            self.win_key = key;
        }
        self.trick_points += card_points(card);
        self.trick[self.trick_len] = (seat, card);
        self.trick_len += 1;
    }

    fn friends(&self, table: &Table) -> [u64; 6] {
        if let Some(fixed) = table.fixed_friends {
            return fixed;
        }
        let mut friends = [0u64; 6];
        for (seat, mask) in friends.iter_mut().enumerate() {
            *mask = 1 << seat;
        }
        if self.partner >= 0 {
            let pair = (1u64 << table.bidder) | (1u64 << self.partner);
            friends[self.partner as usize] = pair;
            if self.partner_shown {
                friends[table.bidder] = pair;
            }
        }
        friends
    }

    /// The cards the seat to act may play.
    pub fn legal(&self, table: &Table) -> u64 {
        let follow = if self.trick_len > 0 { self.follow } else { 0 };
        playable(self.hands[self.current], follow, table.rook_free_play)
    }

    /// The heuristic play of the seat to act, on what that seat could know.
    pub fn heuristic_card(&self, table: &Table) -> u32 {
        let seat = self.current;
        let hand = self.hands[seat];
        let legal = if self.trick_len > 0 {
            playable(hand, self.follow, table.rook_free_play)
        } else {
            hand
        };
        if legal & legal.wrapping_sub(1) == 0 {
            return highest(legal);
        }
        let view = View {
            seat,
            players: table.players,
            hand,
            legal,
            trump: table.trump,
            trick_len: self.trick_len,
            follow: self.follow,
            win_seat: self.win_seat.max(0) as usize,
            win_key: self.win_key,
            trick_points: self.trick_points,
            unseen: table.deck_mask & !self.played & !hand,
            voids: &self.voids,
            friends: self.seat_friends[seat],
            bidding_side: self.bidding_mask >> seat & 1 == 1,
        };
        choose_play(&view)
    }

    /// Plays `card` for the seat to act (assumed legal).
    pub fn play(&mut self, table: &Table, card: u32) {
        let seat = self.current;
        let bit = 1u64 << card;
        self.hands[seat] ^= bit;
        self.played |= bit;
        let key = trick_key(table.trump, card);
        if self.trick_len > 0 {
            let follow = self.follow;
            if bit & follow == 0 && !(table.rook_free_play && bit & ROOK_MASK != 0) {
                self.voids[seat] |= follow;
            }
            if bit & (follow | trump_mask(table.trump)) != 0 && key > self.win_key {
                self.win_seat = seat as i64;
                self.win_key = key;
            }
            self.trick_points += card_points(card);
        } else {
            self.follow = follow_mask(table.trump, card);
            self.win_seat = seat as i64;
            self.win_key = key;
            self.trick_points = card_points(card);
        }
        self.trick[self.trick_len] = (seat, card);
        self.trick_len += 1;
        if card as i64 == table.called && !self.partner_shown {
            self.partner_shown = true;
            self.seat_friends = self.friends(table);
        }
        if self.trick_len < table.players {
            self.current = (seat + 1) % table.players;
            return;
        }
        let win_seat = self.win_seat as usize;
        self.won[win_seat] += self.trick_points;
        self.tricks_left -= 1;
        if self.tricks_left == 0 {
            self.won[win_seat] += table.last_trick_bonus;
        }
        self.trick_len = 0;
        self.follow = 0;
        self.win_seat = -1;
        self.win_key = 0;
        self.trick_points = 0;
        self.leader = win_seat;
        self.current = win_seat;
    }

    /// Plays the rest of the hand with the heuristic on every seat.
    pub fn play_out(&mut self, table: &Table) {
        while self.tricks_left > 0 {
            let card = self.heuristic_card(table);
            self.play(table, card);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_point_masks_are_the_rules() {
        assert_eq!(FIVES.count_ones(), 4);
        assert_eq!(TENS.count_ones(), 8);
        assert_eq!(POINT_CARDS.count_ones(), 14);
        assert_eq!(above(0)[0].count_ones(), 58);
        assert_eq!(above(0)[116], 0);
    }
}
