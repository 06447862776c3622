//! The double-dummy solver: with every hand known (and the nest's fate: trump named, the bury
//! made), the exact points one side takes from a position of the play to the end of the hand
//! when both sides play perfectly.
//!
//! Two sides: the seats of `side` maximise the points they capture (the open trick's, the
//! tricks left and the last trick's bonus), every other seat minimises them. With the
//! partnerships of `FIXED` (two sides) and a called partner once revealed, that is the game.
//!
//! The search: alpha-beta inside a trick and a transposition table of bounds at the trick
//! boundaries (kept between searches of one deal), by partition search: each search also
//! says which cards' order its result depends on (per follow group, the cards down to the
//! lowest that won a trick against a card of its group, that a sure-point bound counted, or
//! that shares an alike class with one of those), and the table's entry then holds for every
//! position alike in those top cards (holders and worths, in order) and alike below them only
//! in each seat's count of cards of each worth. An entry also serves, by payoff similarity,
//! the positions of its shape (each seat's count of cards per group) whose top cards have its
//! holders but other worths: their bounds are the entry's widened by the most the worths can
//! change the value (`DdSolver::worth_slack`). Moves are ordered by what the seats still to
//! play to the trick can do (the table's best lead first: the entry's, else one of an entry
//! of the same shape; then sure winners cashed, low leads to a partner's winner, points
//! given to a trick the side holds, the cheapest sure winner, low losers; ties broken by the
//! cutoffs each card made before); cards that play alike are searched once (one seat's cards of one suit and one
//! worth with no card of another seat or of the open trick between them; and once a card's
//! result depends on no rank of its suit down to it, the seat's other cards of that suit and
//! worth below what it depends on, since swapping the two leaves a position alike in what the
//! result depends on); sure points bound
//! the trick boundaries the table does not settle (the trumps of one side above every trump of
//! the other; the leader's top cards of the suits no opponent can trump, with the lowest cards
//! the seats that follow suit must drop on them); and a series of null-window searches on the
//! point total gives the value: the first tests 20 points above a guess (the points of the
//! line where every seat plays the move order's first card), the next ones step from there
//! toward the value while their answers agree, then each tests the middle of the bounds known
//! so far. `exhaustive` is the plain minimax the tests hold it against.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hash, Hasher};

use crate::cards::{card_points, follow_mask, mask_points, playable, trick_key, trump_mask, ROOK};

/// Bounds on a position's value that the caller of `DdSolver::solve_known` knows hold.
#[derive(Clone, Copy, Debug, Default)]
pub struct Known {
    pub at_least: Option<i64>,
    pub at_most: Option<i64>,
}

/// What the searches of `DdSolver::bounds` proved of a position's value: `lower <= value <=
/// upper`, the two equal when it is solved.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    pub lower: i64,
    pub upper: i64,
}

/// The rules of the play that the solver needs.
#[derive(Clone, Copy, Debug)]
pub struct DdRules {
    pub players: usize,
    pub trump: u32,
    pub rook_free_play: bool,
    pub last_trick_bonus: i64,
    /// The seats of the side whose points are counted, as a bit mask.
    pub side: u32,
}

/// A position of the play: the cards in hand and the open trick (its cards from the leader on).
#[derive(Clone, Copy, Debug)]
pub struct DdPosition {
    pub hands: [u64; 6],
    pub leader: usize,
    pub trick: [u8; 6],
    pub trick_len: usize,
}

impl DdPosition {
    /// The seat to play.
    pub fn current(&self, players: usize) -> usize {
        (self.leader + self.trick_len) % players
    }
}

/// Fx-style hashing of the table's keys (the keys are card masks: no need for SipHash).
#[derive(Default)]
pub struct FxHasher {
    hash: u64,
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.write_u64(byte as u64);
        }
    }
    #[inline]
    fn write_u64(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }
    #[inline]
    fn write_u8(&mut self, byte: u8) {
        self.write_u64(byte as u64);
    }
    #[inline]
    fn write_usize(&mut self, word: usize) {
        self.write_u64(word as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        // Fold the high bits in: the table indexes by the low bits.
        let hash = (self.hash ^ self.hash >> 32).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        hash ^ hash >> 29
    }
}

/// A trick boundary's shape: per seat and follow group (a suit; the trump suit with the Rook
/// cards), how many numbered cards and how many Rook cards it holds; and the leader. Every
/// position an entry of its bucket serves shares it.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Key {
    counts: [u64; 6],
    leader: u8,
}

impl Hash for Key {
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        for count in self.counts {
            state.write_u64(count ^ (self.leader as u64) << 58);
        }
    }
}

/// Per seat and follow group, how many cards of each worth (0, 5, 10 points, and the Rook
/// cards) a trick boundary holds, packed as `DdSolver::worth_counts` packs them.
type WorthCounts = [u64; 6];

/// The shape (`Key`) of a trick boundary whose worth counts are `counts`.
#[inline]
fn shape_key(counts: &WorthCounts, leader: usize) -> Key {
    let mut shape = [0u64; 6];
    for (packed, &worths) in shape.iter_mut().zip(counts.iter()) {
        for group in 0..4 {
            let counts = worths >> (10 * group) & 1023;
            let numbered = (counts >> 6 & 15) + (counts >> 4 & 3) + (counts >> 2 & 3);
            *packed |= (numbered << 2 | counts & 3) << (10 * group);
        }
    }
    Key {
        counts: shape,
        leader: leader as u8,
    }
}

/// Per seat and group, how many more numbered cards of each worth (0, 5, 10 points) one
/// position (`theirs`) holds than another (`ours`) below the `tops[group]` first cards of
/// each group, whose holders are the same in both and whose worths are `their_patterns` and
/// `our_patterns`.
fn worth_gaps(
    theirs: &WorthCounts,
    ours: &WorthCounts,
    their_patterns: &[u128; 4],
    our_patterns: &[u128; 4],
    tops: &[u8; 4],
) -> [[[i64; 3]; 4]; 6] {
    let mut gaps = [[[0i64; 3]; 4]; 6];
    for (seat, seat_gaps) in gaps.iter_mut().enumerate() {
        if theirs[seat] == ours[seat] {
            continue;
        }
        for (group, group_gaps) in seat_gaps.iter_mut().enumerate() {
            // `worth_counts` packs group 0 in the highest ten bits.
            let shift = 10 * (3 - group);
            let (a, b) = (theirs[seat] >> shift & 1023, ours[seat] >> shift & 1023);
            *group_gaps = [
                (a >> 6 & 15) as i64 - (b >> 6 & 15) as i64,
                (a >> 4 & 3) as i64 - (b >> 4 & 3) as i64,
                (a >> 2 & 3) as i64 - (b >> 2 & 3) as i64,
            ];
        }
    }
    // The top cards are not below: take them out where their worths differ.
    for group in 0..4 {
        if their_patterns[group] == our_patterns[group] {
            continue;
        }
        for card in 0..tops[group] as u32 {
            let their_code = (their_patterns[group] >> (5 * card)) as usize & 31;
            let our_code = (our_patterns[group] >> (5 * card)) as usize & 31;
            if their_code == our_code {
                continue;
            }
            let holder = &mut gaps[their_code >> 2][group];
            if their_code & 3 < 3 {
                holder[their_code & 3] -= 1;
            }
            if our_code & 3 < 3 {
                holder[our_code & 3] += 1;
            }
        }
    }
    gaps
}

/// The points of each worth code.
const WORTH_POINTS: [i64; 4] = [0, 5, 10, 20];

/// The holder bits of every five-bit card code (see `Codes`).
const HOLDER_BITS: u128 = {
    let mut mask = 0u128;
    let mut card = 0;
    while card < 25 {
        mask |= 0b11100 << (5 * card);
        card += 1;
    }
    mask
};

/// Per follow group (indexed by suit; the trump suit's for the trumps and the Rook cards), the
/// lowest strength (`trick_key`) of the cards a result depends on: it holds for every position
/// alike in the cards at or above it (their holders and worths, in order) and alike below it
/// only in each seat's count of cards of each worth (partition search, on points).
type Relevance = [u8; 4];

/// No card's rank matters.
const IRRELEVANT: Relevance = [u8::MAX; 4];

#[inline]
fn union(a: Relevance, b: Relevance) -> Relevance {
    [
        a[0].min(b[0]),
        a[1].min(b[1]),
        a[2].min(b[2]),
        a[3].min(b[3]),
    ]
}

const fn points_mask(points: i64) -> u64 {
    let mut mask = 0u64;
    let mut card = 0;
    while card < 56 {
        if card_points(card) == points {
            mask |= 1 << card;
        }
        card += 1;
    }
    mask
}

/// The numbered cards worth 0, 5 and 10 points.
const WORTH_MASKS: [u64; 3] = [points_mask(0), points_mask(5), points_mask(10)];

/// The least points that `count` cards of `cards` (numbered cards, at least `count`) hold.
#[inline]
fn lowest_points(cards: u64, count: u32) -> i64 {
    let mut left = count;
    let mut points = 0;
    for (worth, mask) in [0i64, 5, 10].into_iter().zip(WORTH_MASKS) {
        let taken = (cards & mask).count_ones().min(left);
        points += worth * taken as i64;
        left -= taken;
    }
    points
}

/// Per card, its one in the worth counts of its follow group (see `DdSolver::worth_counts`).
fn worth_units(trump: u32) -> [u64; 58] {
    let mut units = [0u64; 58];
    for (card, unit) in units.iter_mut().enumerate() {
        let group = if card as u32 >= ROOK {
            trump as usize
        } else {
            card / 14
        };
        let shift = [6, 4, 2, 0][WORTH[card] as usize];
        *unit = 1 << (10 * (3 - group) + shift);
    }
    units
}

/// Each card's worth as two bits (0, 5, 10, 20 points).
const WORTH: [u64; 58] = {
    let mut worth = [0u64; 58];
    let mut card = 0;
    while card < 58 {
        worth[card] = match card_points(card as u32) {
            0 => 0,
            5 => 1,
            10 => 2,
            _ => 3,
        };
        card += 1;
    }
    worth
};

/// The bounds of every position whose top cards of each group (the `tops[group]` first of
/// its cards in descending strength) are `patterns[group]` (holder and worth per card) and
/// whose worth counts are `counts`.
#[derive(Clone, Copy)]
struct Entry {
    counts: WorthCounts,
    patterns: [u128; 4],
    tops: [u8; 4],
    /// The holders of the first two top cards of each group (`Codes::leaders`), and which of
    /// those bits are the entry's: a quick test that the entry may serve a position.
    leaders: u32,
    leaders_mask: u32,
    lower: i32,
    upper: i32,
    best: u8,
}

/// A trick boundary's cards per group in descending strength: their codes (holder and worth,
/// five bits a card, the strongest first) and strengths.
struct Codes {
    codes: [u128; 4],
    lengths: [u8; 4],
    strengths: [[u8; 16]; 4],
}

impl Codes {
    /// How many of group `group`'s cards are at or above strength `lowest`.
    #[inline]
    fn tops(&self, relevance: &Relevance) -> [u8; 4] {
        let mut tops = [0u8; 4];
        for group in 0..4 {
            let length = self.lengths[group] as usize;
            tops[group] = self.strengths[group][..length]
                .iter()
                .take_while(|&&strength| strength >= relevance[group])
                .count() as u8;
        }
        tops
    }

    #[inline]
    fn pattern(&self, group: usize, top: u8) -> u128 {
        let shift = 5 * (self.lengths[group] - top) as u32;
        if shift >= 128 {
            0
        } else {
            self.codes[group] >> shift
        }
    }

    /// The holders of each group's two strongest cards, three bits each (none: 0), six bits a
    /// group.
    #[inline]
    fn leaders(&self) -> u32 {
        let mut leaders = 0u32;
        for group in 0..4 {
            let length = self.lengths[group] as u32;
            for card in 0..length.min(2) {
                let holder = (self.codes[group] >> (5 * (length - 1 - card) + 2)) as u32 & 7;
                leaders |= holder << (6 * group as u32 + 3 * card);
            }
        }
        leaders
    }

    /// The bits of `leaders` that an entry's tops cover.
    #[inline]
    fn leaders_mask(tops: &[u8; 4]) -> u32 {
        let mut mask = 0u32;
        for (group, &top) in tops.iter().enumerate() {
            for card in 0..top.min(2) as u32 {
                mask |= 7 << (6 * group as u32 + 3 * card);
            }
        }
        mask
    }

    /// The relevance of a table entry's tops, in this position's strengths.
    #[inline]
    fn relevance(&self, tops: &[u8; 4]) -> Relevance {
        let mut relevance = IRRELEVANT;
        for group in 0..4 {
            if tops[group] > 0 {
                relevance[group] = self.strengths[group][tops[group] as usize - 1];
            }
        }
        relevance
    }
}

/// At most this many entries share a bucket (the oldest goes first).
const BUCKET_LIMIT: usize = 128;

const NO_CARD: u8 = 255;

/// The table frees half its entries or more when it reaches this many (about 150 MB), unless
/// the solver is given another limit.
const TABLE_LIMIT: usize = 1 << 20;

/// A trick boundary after its bounds and the table: settled (its value and what it depends
/// on), or open, with what its search needs.
enum Lead {
    Settled(i64, Relevance),
    Open(OpenLead),
}

/// What an open trick boundary's search needs: the position's worth counts, key and cards,
/// the caller's window and the window the table narrowed it to (and what the narrowing
/// depends on), the table's best lead and the points left.
struct OpenLead {
    counts: WorthCounts,
    key: Key,
    codes: Codes,
    window: (i64, i64),
    alpha: i64,
    beta: i64,
    hint: u8,
    narrowed: Relevance,
    points: i64,
}

/// How MTD chooses the value its next search tests.
#[derive(Clone, Copy)]
enum Probe {
    /// The middle of the bounds known so far.
    Halve,
    /// The first search tested the guess (`DdSolver::line_points`), ...
    FromGuess,
    /// ... and the searches since step up from it (each said "at least") ...
    Up,
    /// ... or down (each said "less").
    Down,
}

/// How far above a line's points MTD tests first (the value lies above them on most deals);
/// how far above the bound each "at least" proved it tests while
/// stepping up, and how far below the bound each "less" proved while stepping down.
const GUESS_ABOVE: i64 = 20;
const GUESS_STEP_UP: i64 = 15;
const GUESS_STEP_DOWN: i64 = 5;

/// The state of the open trick while searching.
#[derive(Clone, Copy)]
struct TrickState {
    seat: usize,
    count: usize,
    follow: u64,
    /// The winning card's strength shifted left 3, or'ed with its seat.
    win: u32,
    points: i64,
    cards: u64,
    /// The winning card.
    win_card: u32,
}

impl TrickState {
    /// A trick with no card yet, `seat` to lead.
    fn led_by(seat: usize) -> TrickState {
        TrickState {
            seat,
            count: 0,
            follow: 0,
            win: 0,
            points: 0,
            cards: 0,
            win_card: 0,
        }
    }
}

/// One deal's solver: its table serves every position of the deal (and its samples' positions
/// when the rules and side are the same).
pub struct DdSolver {
    pub rules: DdRules,
    table: HashMap<Key, Vec<Entry>, BuildHasherDefault<FxHasher>>,
    entries: usize,
    pub nodes: u64,
    trump_mask: u64,
    /// Gives up past this many nodes (0: never); `aborted` then says so.
    pub node_limit: u64,
    /// The table frees half its entries or more when it holds this many (`TABLE_LIMIT`).
    pub table_limit: usize,
    stop_at: u64,
    aborted: bool,
    /// Per seat and card, how much the card's cutoffs weighed (more tricks left, more weight):
    /// it breaks ties among the cards the order scores alike.
    history: Box<[[u32; 58]; 6]>,
    /// The worth counts of the position searched (`worth_counts`), kept as cards are played.
    counts: WorthCounts,
    /// Per card, the one its play takes from its holder's worth counts.
    units: [u64; 58],
    /// The shape of the position searched (`shape_key`'s counts), kept as cards are played,
    /// and per card the one its play takes from its holder's.
    shape: [u64; 6],
    shape_units: [u64; 58],
    /// Per card, its strength in a trick (`trick_key`).
    strengths: [u8; 58],
}

impl DdSolver {
    pub fn new(rules: DdRules) -> Result<DdSolver, String> {
        if !(3..=6).contains(&rules.players) {
            return Err(format!("players must be 3 to 6, got {}", rules.players));
        }
        if rules.trump > 3 {
            return Err(format!("trump must be a suit 0..3, got {}", rules.trump));
        }
        if rules.last_trick_bonus < 0 {
            return Err("last_trick_bonus must not be negative".to_string());
        }
        let units = worth_units(rules.trump);
        Ok(DdSolver {
            rules,
            table: HashMap::default(),
            entries: 0,
            nodes: 0,
            trump_mask: trump_mask(rules.trump),
            node_limit: 0,
            table_limit: TABLE_LIMIT,
            stop_at: u64::MAX,
            aborted: false,
            history: Box::new([[0; 58]; 6]),
            counts: [0; 6],
            units,
            shape: [0; 6],
            shape_units: units.map(|unit| shape_key(&[unit, 0, 0, 0, 0, 0], 0).counts[0]),
            strengths: std::array::from_fn(|card| trick_key(rules.trump, card as u32) as u8),
        })
    }

    /// Empties the table (it grows with every position searched).
    pub fn clear(&mut self) {
        self.table.clear();
        self.entries = 0;
    }

    /// Frees half the table or more: the entries nearest the end of the hand go first (they
    /// are the most, and the cheapest to search again), those of earlier tricks stay.
    fn make_room(&mut self) {
        // A trick boundary's tricks left: the leader's cards, numbered and Rook.
        let tricks_left = |key: &Key| -> usize {
            let packed = key.counts[key.leader as usize];
            (0..4)
                .map(|group| {
                    let counts = packed >> (10 * group);
                    (counts >> 2 & 15) + (counts & 3)
                })
                .sum::<u64>() as usize
        };
        let mut by_tricks_left = [0usize; 64];
        for (key, bucket) in &self.table {
            by_tricks_left[tricks_left(key).min(63)] += bucket.len();
        }
        let mut freed = 0;
        let mut kept_from = 0;
        while kept_from < 64 && freed < self.entries / 2 {
            freed += by_tricks_left[kept_from];
            kept_from += 1;
        }
        self.table
            .retain(|key, _| tricks_left(key).min(63) >= kept_from);
        self.entries -= freed;
    }

    /// The bounds held in the table.
    pub fn table_len(&self) -> usize {
        self.entries
    }

    /// Checks that `pos` is a position of the play: disjoint hands, every seat's count right
    /// for the open trick, the trick's cards legal in no hand.
    pub fn check(&self, pos: &DdPosition) -> Result<(), String> {
        let players = self.rules.players;
        if pos.leader >= players {
            return Err(format!("leader must be a seat, got {}", pos.leader));
        }
        if pos.trick_len >= players {
            return Err(format!(
                "the open trick holds at most {} cards, got {}",
                players - 1,
                pos.trick_len
            ));
        }
        let mut union = 0u64;
        for (seat, &hand) in pos.hands.iter().enumerate() {
            if seat >= players && hand != 0 {
                return Err(format!("seat {seat} is not at the table"));
            }
            if hand >> 58 != 0 {
                return Err(format!("seat {seat} holds a bit that is not a card"));
            }
            if union & hand != 0 {
                return Err("a card is in two hands".to_string());
            }
            union |= hand;
        }
        for &card in &pos.trick[..pos.trick_len] {
            if card >= 58 || union >> card & 1 == 1 {
                return Err(format!("trick card {card} is not a card out of every hand"));
            }
            union |= 1 << card;
        }
        // Seats that played to the open trick hold one card fewer than those still to play.
        let played = pos.hands[pos.leader].count_ones();
        for offset in 0..players {
            let seat = (pos.leader + offset) % players;
            let expected = if pos.trick_len > 0 && offset >= pos.trick_len {
                played + 1
            } else {
                played
            };
            if pos.hands[seat].count_ones() != expected {
                return Err(format!(
                    "seat {seat} holds {} cards, expected {expected}",
                    pos.hands[seat].count_ones()
                ));
            }
        }
        Ok(())
    }

    /// The open trick's state after its cards.
    fn trick_state(&self, pos: &DdPosition) -> TrickState {
        let players = self.rules.players;
        let mut state = TrickState::led_by(pos.leader);
        for &card in &pos.trick[..pos.trick_len] {
            state = self.after(state, card as u32);
        }
        state.seat = (pos.leader + pos.trick_len) % players;
        state
    }

    /// The trick's state once the seat to play plays `card` (the seat not advanced).
    #[inline]
    fn after(&self, state: TrickState, card: u32) -> TrickState {
        let bit = 1u64 << card;
        let key = self.strength(card) << 3 | state.seat as u32;
        let mut next = state;
        if state.count == 0 {
            next.follow = follow_mask(self.rules.trump, card);
            next.win = key;
            next.win_card = card;
        } else if bit & (state.follow | self.trump_mask) != 0 && key > state.win {
            next.win = key;
            next.win_card = card;
        }
        next.points += card_points(card);
        next.cards |= bit;
        next.count += 1;
        next.seat = (state.seat + 1) % self.rules.players;
        next
    }

    /// The points the side takes from `pos` to the end of the hand under perfect play.
    pub fn solve(&mut self, pos: &DdPosition) -> Result<i64, String> {
        self.solve_known(pos, Known::default())
    }

    /// `solve`, given a bound on the value that the caller knows holds (the value after the
    /// card the seat to play is known to play, say: a bound from below when the seat is the
    /// side's, from above when not). The search tests the value next to the bound first, so
    /// when the bound is the value, one null-window search settles it. A bound that does not
    /// hold gives a wrong value.
    pub fn solve_known(&mut self, pos: &DdPosition, known: Known) -> Result<i64, String> {
        let proved = self.search(pos, known, None, None)?;
        self.finish(proved.lower)
    }

    /// What the searches prove of the value of `pos` within the node limit: the value itself
    /// (equal bounds), or, when the limit stops them, the bounds the searches that finished
    /// proved (never an error for the limit). With `test_first`, the first search tests
    /// "the value is `test_first` or more" (whether a contract makes, say), so that answer is
    /// the first one settled. With `only_above`, a value at or below it does not matter (the
    /// caller has that much elsewhere): the first search tests the value just above it, and
    /// the searches stop once the upper bound reaches it.
    pub fn bounds(
        &mut self,
        pos: &DdPosition,
        known: Known,
        test_first: Option<i64>,
        only_above: Option<i64>,
    ) -> Result<Bounds, String> {
        let proved = self.search(pos, known, test_first, only_above)?;
        self.aborted = false;
        Ok(proved)
    }

    /// The MTD searches of a checked position within the node limit (`aborted` says whether
    /// the limit stopped them).
    fn search(
        &mut self,
        pos: &DdPosition,
        known: Known,
        test_first: Option<i64>,
        only_above: Option<i64>,
    ) -> Result<Bounds, String> {
        self.check(pos)?;
        let mut hands = pos.hands;
        let state = self.trick_state(pos);
        self.start();
        Ok(self.mtdf(&mut hands, state, None, known, test_first, only_above))
    }

    fn start(&mut self) {
        self.aborted = false;
        self.stop_at = if self.node_limit == 0 {
            u64::MAX
        } else {
            self.nodes + self.node_limit
        };
    }

    fn finish(&mut self, value: i64) -> Result<i64, String> {
        if self.aborted {
            self.aborted = false;
            return Err(format!(
                "the node limit ({}) was reached before the position was solved",
                self.node_limit
            ));
        }
        Ok(value)
    }

    /// The value of every legal card of the seat to play (ascending cards): what the side
    /// takes from `pos` on when that card is played and everything after is perfect.
    pub fn card_values(&mut self, pos: &DdPosition) -> Result<Vec<(u32, i64)>, String> {
        self.check(pos)?;
        let mut hands = pos.hands;
        let state = self.trick_state(pos);
        let seat = state.seat;
        let legal = self.legal(hands[seat], &state);
        let mut values = Vec::new();
        let mut rest = legal;
        while rest != 0 {
            let card = rest.trailing_zeros();
            rest &= rest - 1;
            self.start();
            let proved = self.mtdf(&mut hands, state, Some(card), Known::default(), None, None);
            values.push((card, self.finish(proved.lower)?));
        }
        Ok(values)
    }

    /// MTD(f) on the point total from the trick state (`first`: the card the seat to play
    /// plays; `known`: bounds the caller knows hold; `test_first`: the value tested first):
    /// what the searches that finished proved, the value when none was stopped.
    fn mtdf(
        &mut self,
        hands: &mut [u64; 6],
        state: TrickState,
        first: Option<u32>,
        known: Known,
        test_first: Option<i64>,
        only_above: Option<i64>,
    ) -> Bounds {
        let remaining: i64 = hands[..self.rules.players]
            .iter()
            .map(|&h| mask_points(h))
            .sum::<i64>()
            + state.points
            + self.rules.last_trick_bonus;
        if hands[state.seat] == 0 {
            return Bounds { lower: 0, upper: 0 };
        }
        self.counts = self.worth_counts(hands);
        self.shape = shape_key(&self.counts, 0).counts;
        // Every value is a sum of card points (multiples of 5) and maybe the bonus: test
        // "at least beta" on the middle value of the bounds until they meet.
        let step = if self.rules.last_trick_bonus % 5 == 0 {
            5
        } else {
            1
        };
        let mut lower = 0i64;
        let mut upper = remaining;
        if first.is_none() && state.count == 0 {
            // The sure points of each side narrow the first search.
            let (top_ours, top_points, _) = self.top_trumps(hands);
            let (cash, _) = self.cash_points(hands, state.seat);
            let leader_ours = self.rules.side >> state.seat & 1 == 1;
            let ours = if top_ours { top_points } else { 0 } + if leader_ours { cash } else { 0 };
            let theirs = if top_ours { 0 } else { top_points } + if leader_ours { 0 } else { cash };
            lower = ours;
            upper = remaining - theirs;
        }
        // A known bound: the first search tests the value next to it.
        let mut first_beta = None;
        if let Some(at_least) = known.at_least {
            lower = lower.max(at_least).min(upper);
            first_beta = Some(lower + step);
        }
        if let Some(at_most) = known.at_most {
            upper = upper.min(at_most).max(lower);
            first_beta = Some(upper);
        }
        if let Some(line) = only_above {
            first_beta = Some(line + step);
        }
        if test_first.is_some() {
            first_beta = test_first;
        }
        // With nothing known, the first search tests a guess, and the next ones step from it
        // toward the value while their answers agree.
        let mut probe = Probe::Halve;
        if first_beta.is_none() {
            first_beta = Some(self.line_points(hands, state, first) + GUESS_ABOVE);
            probe = Probe::FromGuess;
        }
        // Stop once the value is proved at or below what the caller has elsewhere.
        while lower < upper && only_above.map_or(true, |line| upper > line) {
            let beta = match first_beta.take() {
                Some(beta) if lower < beta && beta <= upper => beta,
                _ => lower + ((upper - lower) / step + 1) / 2 * step,
            };
            let value = match first {
                None => self.trick_node(hands, state, beta - 1, beta).0,
                Some(card) => self.play_card(hands, state, card, beta - 1, beta).0,
            };
            if self.aborted {
                // The stopped search proved nothing.
                break;
            }
            if value >= beta {
                lower = value;
                if matches!(probe, Probe::FromGuess | Probe::Up) {
                    first_beta = Some(lower + GUESS_STEP_UP);
                    probe = Probe::Up;
                } else {
                    probe = Probe::Halve;
                }
            } else {
                upper = value;
                if matches!(probe, Probe::FromGuess | Probe::Down) {
                    first_beta = Some(upper - GUESS_STEP_DOWN);
                    probe = Probe::Down;
                } else {
                    probe = Probe::Halve;
                }
            }
        }
        Bounds { lower, upper }
    }

    /// The points the side takes from the trick state on (`first`: the card the seat to play
    /// plays) in the line where every seat plays the card the move order puts first: MTD's
    /// guess, at the cost of one node a card.
    fn line_points(&self, hands: &[u64; 6], state: TrickState, first: Option<u32>) -> i64 {
        let players = self.rules.players;
        let mut hands = *hands;
        let mut state = state;
        let mut taken = 0;
        let mut next_card = first;
        while hands[state.seat] != 0 {
            let card = next_card.take().unwrap_or_else(|| {
                let mut moves = [(0i64, 0u8, 0u8); 18];
                self.moves(&hands, state, NO_CARD, &mut moves);
                moves[0].1 as u32
            });
            hands[state.seat] ^= 1 << card;
            let next = self.after(state, card);
            if next.count < players {
                state = next;
                continue;
            }
            let (winner, mine) = self.trick_taken(&next, hands[state.seat] == 0);
            taken += mine;
            state = TrickState::led_by(winner);
        }
        taken
    }

    /// The value (from the open trick on) once the seat to play plays `card`, and what it
    /// depends on.
    #[inline]
    fn play_card(
        &mut self,
        hands: &mut [u64; 6],
        state: TrickState,
        card: u32,
        alpha: i64,
        beta: i64,
    ) -> (i64, Relevance) {
        let seat = state.seat;
        let bit = 1u64 << card;
        hands[seat] ^= bit;
        self.counts[seat] -= self.units[card as usize];
        self.shape[seat] -= self.shape_units[card as usize];
        let next = self.after(state, card);
        let result = if next.count == self.rules.players {
            let last = hands[seat] == 0;
            let (winner, mine) = self.trick_taken(&next, last);
            let won = self.won_by(&next);
            if last {
                (mine, won)
            } else {
                let (value, relevance) = self.lead_node(hands, winner, alpha - mine, beta - mine);
                (mine + value, union(relevance, won))
            }
        } else {
            self.trick_node(hands, next, alpha, beta)
        };
        hands[seat] ^= bit;
        self.counts[seat] += self.units[card as usize];
        self.shape[seat] += self.shape_units[card as usize];
        result
    }

    /// A full trick's winner and the points the side takes from it (`last`: the hand's last
    /// trick, which brings its bonus too).
    #[inline]
    fn trick_taken(&self, trick: &TrickState, last: bool) -> (usize, i64) {
        let winner = (trick.win & 7) as usize;
        let bonus = if last { self.rules.last_trick_bonus } else { 0 };
        let ours = self.rules.side >> winner & 1 == 1;
        (winner, if ours { trick.points + bonus } else { 0 })
    }

    /// What a full trick's winner depends on: the winning card's rank when another card of
    /// its group was played to the trick (else its suit alone won).
    #[inline]
    fn won_by(&self, trick: &TrickState) -> Relevance {
        let card = trick.win_card;
        let group = self.group_of(card);
        let mut relevance = IRRELEVANT;
        if trick.cards & self.group_mask(group) & !(1u64 << card) != 0 {
            relevance[group] = self.strength(card) as u8;
        }
        relevance
    }

    /// A card's strength in a trick (`trick_key`).
    #[inline]
    fn strength(&self, card: u32) -> u32 {
        self.strengths[card as usize] as u32
    }

    /// The follow group of a card (its suit; the trump suit for a Rook card).
    #[inline]
    fn group_of(&self, card: u32) -> usize {
        if card >= ROOK {
            self.rules.trump as usize
        } else {
            (card / 14) as usize
        }
    }

    #[inline]
    fn group_mask(&self, group: usize) -> u64 {
        if group as u32 == self.rules.trump {
            self.trump_mask
        } else {
            crate::cards::suit_mask(group as u32)
        }
    }

    /// A trick boundary: what the bounds and the table settle, else the trick's search (its
    /// result then goes to the table).
    fn lead_node(
        &mut self,
        hands: &mut [u64; 6],
        leader: usize,
        alpha: i64,
        beta: i64,
    ) -> (i64, Relevance) {
        let open = match self.settle_lead(hands, leader, alpha, beta) {
            Lead::Settled(value, relevance) => return (value, relevance),
            Lead::Open(open) => open,
        };
        let OpenLead {
            counts,
            key,
            codes,
            window,
            alpha,
            beta,
            hint,
            narrowed,
            points,
        } = open;
        let inside = |value: i64| window.0 < value && value < window.1;
        let state = TrickState::led_by(leader);
        let (value, best, relevance) = self.search_moves(hands, state, alpha, beta, hint);
        let returned = if inside(value) {
            union(relevance, narrowed)
        } else {
            relevance
        };
        if self.aborted {
            return (value, returned);
        }
        if self.entries >= self.table_limit {
            self.make_room();
        }
        let leader_ours = self.rules.side >> leader & 1 == 1;
        let tops = codes.tops(&relevance);
        let mut patterns = [0u128; 4];
        for (group, pattern) in patterns.iter_mut().enumerate() {
            *pattern = codes.pattern(group, tops[group]);
        }
        let bucket = self.table.entry(key).or_default();
        let index = match bucket.iter().position(|entry| {
            entry.tops == tops && entry.patterns == patterns && entry.counts == counts
        }) {
            Some(index) => index,
            None => {
                if bucket.len() >= BUCKET_LIMIT {
                    bucket.remove(0);
                } else {
                    self.entries += 1;
                }
                let leaders_mask = Codes::leaders_mask(&tops);
                bucket.push(Entry {
                    counts,
                    patterns,
                    tops,
                    leaders: codes.leaders() & leaders_mask,
                    leaders_mask,
                    lower: 0,
                    upper: points as i32,
                    best: NO_CARD,
                });
                bucket.len() - 1
            }
        };
        let entry = &mut bucket[index];
        if value <= alpha {
            entry.upper = entry.upper.min(value as i32);
            if !leader_ours {
                // The card that kept the side below the window: the opponents' best lead.
                entry.best = best;
            }
        } else if value >= beta {
            entry.lower = entry.lower.max(value as i32);
            entry.best = best;
        } else {
            entry.lower = value as i32;
            entry.upper = value as i32;
            entry.best = best;
        }
        (value, returned)
    }

    /// What a trick boundary's bounds (its points left, the sure points) and the table settle
    /// within the window, without a search; else what its search needs.
    fn settle_lead(&mut self, hands: &[u64; 6], leader: usize, alpha: i64, beta: i64) -> Lead {
        let players = self.rules.players;
        // The hands are disjoint: the points of their union are theirs.
        let held = hands[..players].iter().fold(0, |union, &hand| union | hand);
        let points = self.rules.last_trick_bonus + mask_points(held);
        if points <= alpha {
            return Lead::Settled(points, IRRELEVANT);
        }
        if beta <= 0 {
            return Lead::Settled(0, IRRELEVANT);
        }
        if hands[leader].count_ones() == 1 {
            let (value, relevance) = self.last_trick(hands, leader);
            return Lead::Settled(value, relevance);
        }
        let counts = self.counts;
        debug_assert!(counts == self.worth_counts(hands));
        let key = Key {
            counts: self.shape,
            leader: leader as u8,
        };
        debug_assert!(key == shape_key(&counts, leader));
        let codes = self.codes(hands);
        // A bound narrowed by an entry counts toward the result only when the result falls
        // inside the caller's window (the caller then takes it as exact).
        let window = (alpha, beta);
        let inside = |value: i64| window.0 < value && value < window.1;
        let mut alpha = alpha;
        let mut beta = beta;
        let mut narrowed = IRRELEVANT;
        let bucket: &[Entry] = self.table.get(&key).map_or(&[], Vec::as_slice);
        let leaders = codes.leaders();
        for entry in bucket {
            // Widened by the slack, an entry settles or narrows the window only if its own
            // bounds do, or if it is exact: the others are passed over without the slack.
            if entry.lower <= alpha as i32
                && entry.upper >= beta as i32
                && entry.lower != entry.upper
                || leaders & entry.leaders_mask != entry.leaders
            {
                continue;
            }
            let Some((below, above)) = Self::worth_slack(&counts, &codes, entry) else {
                continue;
            };
            let lower = entry.lower as i64 - below;
            let upper = entry.upper as i64 + above;
            let found = if lower == upper || lower >= beta {
                Some(lower)
            } else if upper <= alpha {
                Some(upper)
            } else {
                None
            };
            if let Some(value) = found {
                let mut relevance = codes.relevance(&entry.tops);
                if lower != upper && inside(value) {
                    relevance = union(relevance, narrowed);
                }
                return Lead::Settled(value, relevance);
            }
            if lower > alpha || upper < beta {
                alpha = alpha.max(lower);
                beta = beta.min(upper);
                narrowed = union(narrowed, codes.relevance(&entry.tops));
            }
        }
        // The sure points, where the table does not settle the boundary.
        if let Some((value, relevance)) =
            self.settle_sure(hands, leader, window.0, window.1, points)
        {
            return Lead::Settled(value, relevance);
        }
        let hint = Self::best_lead(hands[leader], &counts, &codes, bucket);
        Lead::Open(OpenLead {
            counts,
            key,
            codes,
            window,
            alpha,
            beta,
            hint,
            narrowed,
            points,
        })
    }

    /// What the sure points (the top trumps' and the leader's cashes) settle of a trick
    /// boundary within the window (`points`: the points left).
    fn settle_sure(
        &self,
        hands: &[u64; 6],
        leader: usize,
        alpha: i64,
        beta: i64,
        points: i64,
    ) -> Option<(i64, Relevance)> {
        // The trumps above every trump of the other side win their tricks: their points are sure.
        // And so are the leader's top cards of a suit that no opponent can trump, cashed now.
        let (top_ours, top_points, top_relevance) = self.top_trumps(hands);
        let leader_ours = self.rules.side >> leader & 1 == 1;
        let (cash, cash_relevance) = self.cash_points(hands, leader);
        let mut ours_sure = if top_ours { top_points } else { 0 };
        let mut theirs_sure = if top_ours { 0 } else { top_points };
        if leader_ours {
            ours_sure += cash;
        } else {
            theirs_sure += cash;
        }
        if ours_sure >= beta || points - theirs_sure <= alpha {
            // The bound depends on the parts of it that were needed.
            let (value, top, cash) = if ours_sure >= beta {
                let top = if top_ours { top_points } else { 0 };
                (ours_sure, top, ours_sure - top)
            } else {
                let top = if top_ours { 0 } else { top_points };
                (points - theirs_sure, top, theirs_sure - top)
            };
            // Either part alone may do; else both are needed.
            let alone = |part: i64| {
                if ours_sure >= beta {
                    part >= beta
                } else {
                    points - part <= alpha
                }
            };
            let (top_needed, cash_needed) = if alone(top) {
                (true, false)
            } else if alone(cash) {
                (false, true)
            } else {
                (top > 0, cash > 0)
            };
            let mut relevance = IRRELEVANT;
            if top_needed {
                relevance = union(relevance, top_relevance);
            }
            if cash_needed {
                relevance = union(relevance, cash_relevance);
            }
            return Some((value, relevance));
        }
        None
    }

    /// The best lead the table knows for an open trick boundary (`hand`: the leader's cards):
    /// the last entry's that holds for the position, else the last entry's that serves it,
    /// else the first entry's of the same shape.
    fn best_lead(hand: u64, counts: &WorthCounts, codes: &Codes, bucket: &[Entry]) -> u8 {
        let mut best = NO_CARD;
        let mut exact = false;
        for entry in bucket {
            if entry.best == NO_CARD || hand >> entry.best & 1 == 0 {
                continue;
            }
            match Self::holds_for(counts, codes, entry) {
                None => {
                    if best == NO_CARD {
                        best = entry.best;
                    }
                }
                Some(holds) => {
                    if !exact || holds {
                        best = entry.best;
                        exact = holds;
                    }
                }
            }
        }
        best
    }

    /// The side (ours or not) holding the highest trumps left, and the points of its trumps
    /// that rank above every trump of the other side: each wins the trick it is played to, or
    /// a partner's higher one does.
    #[inline]
    fn top_trumps(&self, hands: &[u64; 6]) -> (bool, i64, Relevance) {
        let mut ours = 0u64;
        let mut union = 0u64;
        for (seat, &hand) in hands[..self.rules.players].iter().enumerate() {
            union |= hand;
            if self.rules.side >> seat & 1 == 1 {
                ours |= hand;
            }
        }
        let trumps = union & self.trump_mask;
        if trumps == 0 {
            return (false, 0, IRRELEVANT);
        }
        // Descending strength: ROOK, ROOK2, then the suit's ranks from the top.
        let mut sequence = [0u32; 16];
        let mut len = 0;
        for card in [ROOK, ROOK + 1] {
            if trumps >> card & 1 == 1 {
                sequence[len] = card;
                len += 1;
            }
        }
        let mut rest = trumps & !crate::cards::ROOK_MASK;
        while rest != 0 {
            let card = 63 - rest.leading_zeros();
            rest ^= 1 << card;
            sequence[len] = card;
            len += 1;
        }
        let top_ours = ours >> sequence[0] & 1 == 1;
        let mut points = 0;
        let mut relevance = IRRELEVANT;
        let mut last = sequence[0];
        for &card in &sequence[..len] {
            if (ours >> card & 1 == 1) != top_ours {
                // The run's cards are the side's in every position alike in them (a longer
                // run there only adds sure points); with no trump of the other side left,
                // the holders' counts say it all.
                relevance[self.rules.trump as usize] = self.strength(last) as u8;
                break;
            }
            points += card_points(card);
            last = card;
        }
        (top_ours, points, relevance)
    }

    /// The points of the leader's cards of the plain suits that win when led now, one after
    /// another: per suit, its highest cards left while the leader holds them, as many as every
    /// opponent holding a trump has cards of the suit (none if an opponent may play a Rook card
    /// freely), and no more in all than every partner holds plain cards (a partner with none
    /// left must trump the winner and takes the lead). Opponents with trumps follow suit
    /// throughout, so the suits do not interfere.
    #[inline]
    fn cash_points(&self, hands: &[u64; 6], leader: usize) -> (i64, Relevance) {
        let players = self.rules.players;
        let side = self.rules.side;
        let leader_side = side >> leader & 1;
        let mut union = 0u64;
        let mut ruffers = [0u64; 6];
        let mut ruffer_count = 0;
        for (seat, &hand) in hands[..players].iter().enumerate() {
            union |= hand;
            if side >> seat & 1 != leader_side && hand & self.trump_mask != 0 {
                if self.rules.rook_free_play && hand & crate::cards::ROOK_MASK != 0 {
                    return (0, IRRELEVANT);
                }
                ruffers[ruffer_count] = hand;
                ruffer_count += 1;
            }
        }
        // A partner with no plain card left must trump the leader's winner and take the lead:
        // the cashes stop at the fewest plain cards a partner holds.
        let mut cashes_left = u32::MAX;
        for (seat, &hand) in hands[..players].iter().enumerate() {
            if seat != leader && side >> seat & 1 == leader_side {
                cashes_left = cashes_left.min((hand & !self.trump_mask).count_ones());
            }
        }
        let mine = hands[leader];
        let mut points = 0;
        let mut cashed = [0u32; 4];
        let mut relevance = IRRELEVANT;
        for suit in 0..4u32 {
            if suit == self.rules.trump {
                continue;
            }
            let group = crate::cards::suit_mask(suit);
            let mut limit = cashes_left;
            for &hand in &ruffers[..ruffer_count] {
                limit = limit.min((hand & group).count_ones());
            }
            let mut rest = union & group;
            while rest != 0 && limit > 0 && cashes_left > 0 {
                let card = 63 - rest.leading_zeros();
                if mine >> card & 1 == 0 {
                    break;
                }
                // The cashed cards are the leader's in every position alike in them.
                relevance[suit as usize] = self.strength(card) as u8;
                points += card_points(card);
                rest ^= 1 << card;
                limit -= 1;
                cashes_left -= 1;
                cashed[suit as usize] += 1;
            }
        }
        if cashed == [0; 4] {
            return (0, relevance);
        }
        // A seat with as many cards of each cashed suit as it is cashed follows suit to every
        // one of those tricks: its lowest cards of the suit, at least, fall to the leader.
        for (seat, &hand) in hands[..players].iter().enumerate() {
            if seat == leader || self.rules.rook_free_play && hand & crate::cards::ROOK_MASK != 0 {
                continue;
            }
            let mut forced = 0;
            let mut follows = true;
            for suit in 0..4u32 {
                let count = cashed[suit as usize];
                if count == 0 {
                    continue;
                }
                let cards = hand & crate::cards::suit_mask(suit);
                if cards.count_ones() < count {
                    follows = false;
                    break;
                }
                forced += lowest_points(cards, count);
            }
            if follows {
                points += forced;
            }
        }
        (points, relevance)
    }

    /// A trick boundary's worth counts (see `WorthCounts`).
    #[inline]
    fn worth_counts(&self, hands: &[u64; 6]) -> WorthCounts {
        let mut counts = [0u64; 6];
        for (count, &hand) in counts.iter_mut().zip(hands[..self.rules.players].iter()) {
            let mut packed = 0u64;
            for group in 0..4 {
                let cards = hand & self.group_mask(group);
                packed = packed << 10
                    | ((cards & WORTH_MASKS[0]).count_ones() as u64) << 6
                    | ((cards & WORTH_MASKS[1]).count_ones() as u64) << 4
                    | ((cards & WORTH_MASKS[2]).count_ones() as u64) << 2
                    | (cards & crate::cards::ROOK_MASK).count_ones() as u64;
            }
            *count = packed;
        }
        counts
    }

    /// How far the value of the position (its worth counts and cards) can lie below an entry's
    /// lower bound and above its upper bound, or `None` when the entry does not serve it.
    ///
    /// The entry serves every position of its bucket whose top cards have the entry's holders
    /// (payoff similarity): such a position plays as one the entry holds for, a card for a
    /// card, with other worths. Of those, take the one nearest in worths: the same worths as
    /// the entry's top cards, and below them each seat's cards of a group given the entry's
    /// counts of each worth in the order of the position's own worths. In every line of play
    /// the two positions' cards win the same tricks, so their values differ by at most what
    /// the side would gain or lose were all those cards its own: `below` sums the worths the
    /// position lacks (the entry's worth above its own), `above` the worths it has over the
    /// entry's. Zero and zero when the position is one the entry holds for.
    #[inline]
    fn worth_slack(counts: &WorthCounts, codes: &Codes, entry: &Entry) -> Option<(i64, i64)> {
        let mine = Self::top_patterns(codes, entry)?;
        if *counts == entry.counts && mine == entry.patterns {
            return Some((0, 0));
        }
        let (mut below, mut above) = (0i64, 0i64);
        for group in 0..4 {
            if entry.patterns[group] == mine[group] {
                continue;
            }
            for card in 0..entry.tops[group] as u32 {
                let theirs = WORTH_POINTS[(entry.patterns[group] >> (5 * card)) as usize & 3];
                let ours = WORTH_POINTS[(mine[group] >> (5 * card)) as usize & 3];
                below += (theirs - ours).max(0);
                above += (ours - theirs).max(0);
            }
        }
        let gaps = worth_gaps(&entry.counts, counts, &entry.patterns, &mine, &entry.tops);
        for seat_gaps in &gaps {
            for gap in seat_gaps.iter().filter(|gap| **gap != [0; 3]) {
                // Paired in order of worth, the cards differ by this much in all (the gaps
                // between 0 and 5 and between 5 and 10 points, times the cards they part)...
                let apart = 5 * gap[0].abs() + 5 * (gap[0] + gap[1]).abs();
                // ... split into what the entry's cards hold more and what they hold less.
                let surplus = 5 * gap[1] + 10 * gap[2];
                below += (apart + surplus) / 2;
                above += (apart - surplus) / 2;
            }
        }
        Some((below, above))
    }

    /// The position's patterns of the entry's top cards, when their holders are the entry's
    /// (the entry serves the position), else `None`.
    #[inline]
    fn top_patterns(codes: &Codes, entry: &Entry) -> Option<[u128; 4]> {
        let mut mine = [0u128; 4];
        for group in 0..4 {
            mine[group] = codes.pattern(group, entry.tops[group]);
            if mine[group] & HOLDER_BITS != entry.patterns[group] & HOLDER_BITS {
                return None;
            }
        }
        Some(mine)
    }

    /// Whether the entry holds for the position (`Some(true)`), only serves it
    /// (`Some(false)`), or neither (`None`).
    #[inline]
    fn holds_for(counts: &WorthCounts, codes: &Codes, entry: &Entry) -> Option<bool> {
        Self::top_patterns(codes, entry)
            .map(|mine| *counts == entry.counts && mine == entry.patterns)
    }

    /// The cards of a trick boundary per group, strongest first (see `Codes`).
    #[inline]
    fn codes(&self, hands: &[u64; 6]) -> Codes {
        // Each card's code: its holder and its worth.
        let mut card_codes = [0u8; 58];
        let mut union = 0u64;
        for (seat, &hand) in hands[..self.rules.players].iter().enumerate() {
            union |= hand;
            let mut rest = hand;
            while rest != 0 {
                let card = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                card_codes[card] = (seat as u8) << 2 | WORTH[card] as u8;
            }
        }
        let mut codes = Codes {
            codes: [0; 4],
            lengths: [0; 4],
            strengths: [[0; 16]; 4],
        };
        let trump = self.rules.trump;
        for group in 0..4usize {
            let mut code = 0u128;
            let mut length = 0usize;
            let mut push = |card: u32, codes: &mut Codes| {
                code = code << 5 | card_codes[card as usize] as u128;
                codes.strengths[group][length] = self.strengths[card as usize];
                length += 1;
            };
            if group as u32 == trump {
                for card in [ROOK, ROOK + 1] {
                    if union >> card & 1 == 1 {
                        push(card, &mut codes);
                    }
                }
            }
            let mut rest = union & crate::cards::suit_mask(group as u32);
            while rest != 0 {
                let card = 63 - rest.leading_zeros();
                rest ^= 1 << card;
                push(card, &mut codes);
            }
            codes.codes[group] = code;
            codes.lengths[group] = length as u8;
        }
        codes
    }

    /// The last trick: every seat's one card.
    fn last_trick(&self, hands: &[u64; 6], leader: usize) -> (i64, Relevance) {
        let players = self.rules.players;
        let mut state = TrickState::led_by(leader);
        for _ in 0..players {
            let card = hands[state.seat].trailing_zeros();
            state = self.after(state, card);
        }
        (self.trick_taken(&state, true).1, self.won_by(&state))
    }

    fn trick_node(
        &mut self,
        hands: &mut [u64; 6],
        state: TrickState,
        alpha: i64,
        beta: i64,
    ) -> (i64, Relevance) {
        if state.count == 0 {
            return self.lead_node(hands, state.seat, alpha, beta);
        }
        let (value, _, relevance) = self.search_moves(hands, state, alpha, beta, NO_CARD);
        (value, relevance)
    }

    /// Alpha-beta over the seat to play's cards (one of each alike class, best-first): the
    /// value, the best card and what the value depends on.
    fn search_moves(
        &mut self,
        hands: &mut [u64; 6],
        state: TrickState,
        mut alpha: i64,
        mut beta: i64,
        hint: u8,
    ) -> (i64, u8, Relevance) {
        self.nodes += 1;
        if self.nodes > self.stop_at {
            self.aborted = true;
        }
        let seat = state.seat;
        let hand = hands[seat];
        let mut moves = [(0i64, 0u8, 0u8); 18];
        let count = self.moves(hands, state, hint, &mut moves);
        let maximising = self.rules.side >> seat & 1 == 1;
        let mut best = if maximising { i64::MIN } else { i64::MAX };
        let mut best_card = NO_CARD;
        let mut relevance = IRRELEVANT;
        // Per group and worth, the strength below which a card searched already stands for
        // every card of the seat of that worth (0: none yet).
        let mut alike_below = [[0u8; 4]; 4];
        for &(_, card, top) in &moves[..count] {
            let group = self.group_of(card as u32);
            let worth = WORTH[card as usize] as usize;
            let top_strength = self.strength(top as u32) as u8;
            if top_strength < alike_below[group][worth] {
                continue;
            }
            let (value, mut depends) = self.play_card(hands, state, card as u32, alpha, beta);
            // The cards of its class played alike only while the order among them is free.
            if depends[group] <= top_strength {
                depends[group] = depends[group].min(self.strength(card as u32) as u8);
            } else {
                // The result does not depend on the rank of any card of the class: it holds as
                // well for every other card of the seat's of this group and worth below what it
                // depends on (swapping the two leaves the position alike in what it depends on).
                alike_below[group][worth] = alike_below[group][worth].max(depends[group]);
            }
            if maximising {
                if value > best {
                    best = value;
                    best_card = card;
                    if best > alpha {
                        alpha = best;
                    }
                }
            } else if value < best {
                best = value;
                best_card = card;
                if best < beta {
                    beta = best;
                }
            }
            if alpha >= beta {
                // One card refutes the node: its line alone is what the bound depends on.
                let left = hand.count_ones();
                let weight = &mut self.history[seat][card as usize];
                *weight = weight.saturating_add(left * left);
                relevance = depends;
                break;
            }
            relevance = union(relevance, depends);
            if self.aborted {
                break;
            }
        }
        (best, best_card, relevance)
    }

    /// The cards of `hand` that the seat to play may play to the trick.
    #[inline]
    fn legal(&self, hand: u64, state: &TrickState) -> u64 {
        if state.count == 0 {
            hand
        } else {
            playable(hand, state.follow, self.rules.rook_free_play)
        }
    }

    /// One card of each alike class of the seat to play's legal cards, best-first (see
    /// `ordered_moves`): how many there are.
    #[inline]
    fn moves(
        &self,
        hands: &[u64; 6],
        state: TrickState,
        hint: u8,
        moves: &mut [(i64, u8, u8); 18],
    ) -> usize {
        let legal = self.legal(hands[state.seat], &state);
        // The cards of every other seat and of the open trick.
        let mut others = state.cards;
        for (other, &cards) in hands[..self.rules.players].iter().enumerate() {
            if other != state.seat {
                others |= cards;
            }
        }
        self.ordered_moves(hands, legal, others, state, hint, moves)
    }

    /// One card of each alike class of `legal`, best-first (highest score first).
    fn ordered_moves(
        &self,
        hands: &[u64; 6],
        legal: u64,
        others: u64,
        state: TrickState,
        hint: u8,
        moves: &mut [(i64, u8, u8); 18],
    ) -> usize {
        let trump = self.rules.trump;
        let mut count = 0;
        let context = self.order_context(hands, state);
        for suit in 0..4u32 {
            let group = if suit == trump {
                self.trump_mask
            } else {
                crate::cards::suit_mask(suit)
            };
            if legal & group == 0 {
                continue;
            }
            // The seat's cards of the group in ascending strength: ranks, then ROOK2, then
            // ROOK; a card of another seat or of the open trick between two separates them.
            let suit_cards = crate::cards::suit_mask(suit);
            let mut ranks = legal & suit_cards;
            let mut rooks = legal & group & crate::cards::ROOK_MASK;
            let mut class_points = -1i64;
            // The group's cards up to the previous card of the seat's.
            let mut passed = 0u64;
            while ranks | rooks != 0 {
                let (card, weaker) = if ranks != 0 {
                    let card = ranks.trailing_zeros();
                    ranks &= ranks - 1;
                    (card, suit_cards & ((1u64 << card) - 1))
                } else if rooks >> (ROOK + 1) & 1 == 1 {
                    // ROOK2 is weaker than ROOK.
                    rooks ^= 1 << (ROOK + 1);
                    (ROOK + 1, suit_cards)
                } else {
                    rooks ^= 1 << ROOK;
                    (ROOK, suit_cards | 1 << (ROOK + 1))
                };
                let separated = passed == 0 || others & weaker & !passed != 0;
                passed = weaker | 1u64 << card;
                let points = card_points(card);
                if !separated && points == class_points {
                    // Plays as the class's previous card: one card of the class is searched.
                    moves[count - 1].2 = card as u8;
                    continue;
                }
                class_points = points;
                let score = if card as u8 == hint {
                    1 << 60
                } else {
                    // The order's score, its ties broken by the card's history.
                    (self.move_score(card, state, &context) as i64 + 2_048) << 32
                        | self.history[state.seat][card as usize] as i64
                };
                moves[count] = (score, card as u8, card as u8);
                count += 1;
            }
        }
        moves[..count].sort_unstable_by_key(|m| std::cmp::Reverse(m.0));
        count
    }

    /// The strongest card `hand` can play to a trick led in `follow` (0: none that wins).
    #[inline]
    fn reply_strength(&self, hand: u64, follow: u64) -> u32 {
        let fol = hand & follow;
        let candidates = if fol != 0 {
            if self.rules.rook_free_play {
                fol | hand & crate::cards::ROOK_MASK
            } else {
                fol
            }
        } else {
            hand & self.trump_mask
        };
        self.top_strength(candidates)
    }

    /// The trick strength of the strongest card of `cards` (one follow group and trumps).
    #[inline]
    fn top_strength(&self, cards: u64) -> u32 {
        if cards == 0 {
            0
        } else if cards >> ROOK & 1 == 1 {
            116
        } else if cards >> (ROOK + 1) & 1 == 1 {
            115
        } else {
            let trumps = cards & self.trump_mask;
            let strongest = if trumps != 0 { trumps } else { cards };
            self.strength(63 - strongest.leading_zeros())
        }
    }

    /// What the ordering of one node needs: the strongest reply of the opponents and of the
    /// partners still to play (per follow group when leading).
    fn order_context(&self, hands: &[u64; 6], state: TrickState) -> OrderContext {
        let players = self.rules.players;
        let side = self.rules.side;
        let seat = state.seat;
        let mine = side >> seat & 1;
        let mut context = OrderContext {
            opponents: [0; 4],
            partners: [0; 4],
            ours_winning: false,
            win: 0,
        };
        if state.count == 0 {
            for suit in 0..4u32 {
                let follow = if suit == self.rules.trump {
                    self.trump_mask
                } else {
                    crate::cards::suit_mask(suit)
                };
                for offset in 1..players {
                    let other = (seat + offset) % players;
                    let strength = self.reply_strength(hands[other], follow);
                    if side >> other & 1 == mine {
                        context.partners[suit as usize] =
                            context.partners[suit as usize].max(strength);
                    } else {
                        context.opponents[suit as usize] =
                            context.opponents[suit as usize].max(strength);
                    }
                }
            }
        } else {
            for offset in 1..players - state.count {
                let other = (seat + offset) % players;
                let strength = self.reply_strength(hands[other], state.follow);
                if side >> other & 1 == mine {
                    context.partners[0] = context.partners[0].max(strength);
                } else {
                    context.opponents[0] = context.opponents[0].max(strength);
                }
            }
            context.win = state.win >> 3;
            context.ours_winning = side >> (state.win & 7) & 1 == mine;
        }
        context
    }

    #[inline]
    fn move_score(&self, card: u32, state: TrickState, context: &OrderContext) -> i32 {
        let trump = self.rules.trump;
        let key = self.strength(card);
        let rank = (key % 100) as i32;
        let points = card_points(card) as i32;
        if state.count == 0 {
            let group = if card >= ROOK { trump } else { card / 14 } as usize;
            let opponents = context.opponents[group];
            let partners = context.partners[group];
            return if key > opponents {
                // A sure winner: cash it.
                5_000 + points * 4 + rank
            } else if partners > opponents && partners > key {
                // A partner's card wins it: lead low.
                4_000 - points * 8 - rank
            } else {
                1_000 - points * 8 - rank
            };
        }
        let bit = 1u64 << card;
        let strength = if bit & (state.follow | self.trump_mask) != 0 {
            key
        } else {
            0
        };
        let opponents = context.opponents[0];
        let partners = context.partners[0];
        let wins = strength > context.win;
        if context.ours_winning {
            if context.win > opponents || partners > opponents {
                // The trick is the side's: give it points.
                4_000 + points * 8 - rank
            } else if wins && strength > opponents {
                3_500 + points * 8 - rank
            } else {
                1_000 - points * 8 - rank
            }
        } else if wins && strength > opponents {
            3_500 + points * 8 - rank
        } else if partners > opponents && partners > context.win {
            3_000 + points * 8 - rank
        } else if wins {
            2_000 - points * 8 - rank
        } else {
            1_000 - points * 8 - rank
        }
    }
}

/// The strongest replies still to come in a trick, for ordering one node's moves.
struct OrderContext {
    /// Per follow group when leading (the suit's index, the trump suit's for the trumps),
    /// else in `[0]`: the strongest card an opponent still to play can play.
    opponents: [u32; 4],
    partners: [u32; 4],
    ours_winning: bool,
    win: u32,
}

/// The plain minimax: every legal card of every seat, no pruning, no table, no merging. Only
/// for small positions (the tests' reference).
pub fn exhaustive(rules: &DdRules, pos: &DdPosition) -> Result<i64, String> {
    let solver = DdSolver::new(*rules)?;
    solver.check(pos)?;
    let mut hands = pos.hands;
    let state = solver.trick_state(pos);
    Ok(plain(&solver, &mut hands, state))
}

fn plain(solver: &DdSolver, hands: &mut [u64; 6], state: TrickState) -> i64 {
    let rules = &solver.rules;
    let seat = state.seat;
    let hand = hands[seat];
    if hand == 0 {
        return 0;
    }
    let legal = solver.legal(hand, &state);
    let maximising = rules.side >> seat & 1 == 1;
    let mut best = if maximising { i64::MIN } else { i64::MAX };
    let mut rest = legal;
    while rest != 0 {
        let card = rest.trailing_zeros();
        rest &= rest - 1;
        hands[seat] ^= 1 << card;
        let next = solver.after(state, card);
        let value = if next.count == rules.players {
            let winner = (next.win & 7) as usize;
            let mut taken = next.points;
            if hands[winner] == 0 {
                taken += rules.last_trick_bonus;
            }
            let mine = if rules.side >> winner & 1 == 1 {
                taken
            } else {
                0
            };
            let fresh = TrickState::led_by(winner);
            mine + plain(solver, hands, fresh)
        } else {
            plain(solver, hands, next)
        };
        hands[seat] ^= 1 << card;
        best = if maximising {
            best.max(value)
        } else {
            best.min(value)
        };
    }
    best
}
