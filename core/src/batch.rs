//! Many tables stepped together by action ids (the ids of `rookery.envs`' `ActionCodec`), with
//! each table's observation (the layout of `ObservationEncoder`), legal mask and rewards
//! written straight into caller-owned arrays: no Python object per table per step.

use std::sync::Arc;

use crate::cards::NUM_CARDS;
use crate::game::{Game, Phase};
use crate::rules::Rules;

const C: usize = NUM_CARDS as usize;

/// A small, fast generator (SplitMix64) for table seeds and random playouts.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..bound` (`bound` > 0).
    pub fn below(&mut self, bound: u64) -> u64 {
        ((self.next_u64() as u128 * bound as u128) >> 64) as u64
    }
}

/// The `index`-th set bit of `mask` (ascending).
fn nth_bit(mut mask: u64, index: u32) -> u32 {
    for _ in 0..index {
        mask &= mask - 1;
    }
    mask.trailing_zeros()
}

fn random_card(mask: u64, rng: &mut Rng) -> u32 {
    nth_bit(mask, rng.below(mask.count_ones() as u64) as u32)
}

/// Applies one random legal action: pass or the lowest bid with even odds; any other action
/// uniformly (a bury: a uniform subset of the hand).
pub fn random_action(game: &mut Game, rng: &mut Rng) {
    let outcome = match game.phase {
        Phase::Bidding => {
            let lowest = game.lowest_bid();
            if lowest <= game.rules.effective_max_bid && rng.below(2) == 1 {
                game.bid(lowest)
            } else {
                game.pass()
            }
        }
        Phase::NameTrump => game.name_trump(rng.below(4) as i64),
        Phase::Bury => {
            let mut hand = game.hands[game.current as usize];
            let mut cards = 0u64;
            for _ in 0..game.rules.nest_size {
                let card = random_card(hand, rng);
                cards |= 1 << card;
                hand &= !(1u64 << card);
            }
            game.bury(cards)
        }
        Phase::Call => game.call(random_card(game.call_from(), rng) as i64),
        Phase::Play => game.play(random_card(game.legal_play_mask(), rng) as i64),
        Phase::GameOver => Ok(()),
    };
    debug_assert!(outcome.is_ok());
}

/// The fixed action ids of one ruleset (as `rookery.envs.ActionCodec`).
#[derive(Clone, Debug)]
pub struct Codec {
    pub bid0: usize,
    pub trump0: usize,
    pub bury0: usize,
    pub call0: usize,
    pub play0: usize,
    pub size: usize,
}

impl Codec {
    pub fn new(rules: &Rules) -> Codec {
        let trump0 = 1 + rules.bid_count() as usize;
        let bury0 = trump0 + 4;
        let call0 = bury0 + C;
        let play0 = call0 + C;
        Codec {
            bid0: 1,
            trump0,
            bury0,
            call0,
            play0,
            size: play0 + C,
        }
    }
}

/// Where each part of an observation starts (`ObservationEncoder.offsets`).
#[derive(Clone, Debug)]
pub struct Layout {
    phase: usize,
    to_act: usize,
    dealer: usize,
    hand: usize,
    nest: usize,
    buried: usize,
    pending: usize,
    last_bid: usize,
    passed: usize,
    high_bid: usize,
    high_bidder: usize,
    bidder: usize,
    bid: usize,
    trump: usize,
    called: usize,
    partner: usize,
    trick_leader: usize,
    trick: usize,
    played: usize,
    same_side: usize,
    points: usize,
    scores: usize,
    buried_count: usize,
    pub size: usize,
}

impl Layout {
    pub fn new(players: usize) -> Layout {
        let p = players;
        let mut at = 0;
        let mut take = |size: usize| {
            let start = at;
            at += size;
            start
        };
        let mut layout = Layout {
            phase: take(6),
            to_act: take(p),
            dealer: take(p),
            hand: take(C),
            nest: take(C),
            buried: take(C),
            pending: take(C),
            last_bid: take(p),
            passed: take(p),
            high_bid: take(1),
            high_bidder: take(p),
            bidder: take(p),
            bid: take(1),
            trump: take(4),
            called: take(C),
            partner: take(p),
            trick_leader: take(p),
            trick: take(p * C),
            played: take(p * C),
            same_side: take(p),
            points: take(p),
            scores: take(p),
            buried_count: take(1),
            size: 0,
        };
        layout.size = at;
        layout
    }
}

/// For a 4-player ruleset; `Layout::new(players).size` in general.
pub const OBSERVATION_SIZE: usize = 811;

/// The output arrays of a batch step (row-major, one row per table).
pub struct BatchOut<'a> {
    pub obs: &'a mut [f32],
    pub masks: &'a mut [i8],
    pub seats: &'a mut [i64],
    pub rewards: Option<&'a mut [f32]>,
    pub done: Option<&'a mut [u8]>,
}

/// `n` tables of one ruleset.
pub struct Batch {
    pub rules: Arc<Rules>,
    pub codec: Codec,
    pub layout: Layout,
    pub tables: Vec<Game>,
    pub pending: Vec<u64>,
    pub seeds: Rng,
    pub episodes: u64,
    /// Rewards: the side's change minus the mean change of the others (else the side's own).
    pub zero_sum: bool,
}

impl Batch {
    pub fn new(rules: Arc<Rules>, n: usize, seed: u64, zero_sum: bool) -> Batch {
        let mut seeds = Rng::new(seed);
        let tables = (0..n)
            .map(|_| Game::new(Arc::clone(&rules), seeds.next_u64() >> 1, false))
            .collect();
        Batch {
            codec: Codec::new(&rules),
            layout: Layout::new(rules.players),
            rules,
            tables,
            pending: vec![0; n],
            seeds,
            episodes: 0,
            zero_sum,
        }
    }

    /// Whether `id` is a legal action id at table `index`.
    pub fn is_legal(&self, index: usize, id: i64) -> bool {
        let game = &self.tables[index];
        let codec = &self.codec;
        if id < 0 || id as usize >= codec.size {
            return false;
        }
        let id = id as usize;
        match game.phase {
            Phase::Bidding => {
                if id == 0 {
                    return true;
                }
                if id >= codec.trump0 {
                    return false;
                }
                let amount = game.rules.min_bid + (id - codec.bid0) as i64 * game.rules.bid_step;
                amount >= game.lowest_bid()
            }
            Phase::NameTrump => (codec.trump0..codec.bury0).contains(&id),
            Phase::Bury => {
                (codec.bury0..codec.call0).contains(&id)
                    && (game.hands[game.current as usize] & !self.pending[index])
                        >> (id - codec.bury0)
                        & 1
                        == 1
            }
            Phase::Call => {
                (codec.call0..codec.play0).contains(&id)
                    && game.call_from() >> (id - codec.call0) & 1 == 1
            }
            Phase::Play => {
                (codec.play0..codec.size).contains(&id)
                    && game.legal_play_mask() >> (id - codec.play0) & 1 == 1
            }
            Phase::GameOver => false,
        }
    }

    /// The first table whose id is not legal, with that id.
    pub fn first_illegal(&self, ids: &[i64]) -> Option<(usize, i64)> {
        (0..self.tables.len())
            .find(|&index| !self.is_legal(index, ids[index]))
            .map(|index| (index, ids[index]))
    }

    /// Takes `ids[i]` at table `i` (each checked legal), deals finished tables again, and writes
    /// every output.
    pub fn step(&mut self, ids: &[i64], mut out: BatchOut<'_>) {
        let players = self.rules.players;
        let points = self.rules.deck_points.max(1) as f64;
        let sides = self.rules.num_sides;
        for index in 0..self.tables.len() {
            let id = ids[index] as usize;
            let codec = &self.codec;
            let game = &mut self.tables[index];
            let before = game.scores;
            let outcome = match game.phase {
                Phase::Bidding if id == 0 => game.pass(),
                Phase::Bidding => {
                    game.bid(game.rules.min_bid + (id - codec.bid0) as i64 * game.rules.bid_step)
                }
                Phase::NameTrump => game.name_trump((id - codec.trump0) as i64),
                Phase::Bury => {
                    let pending = self.pending[index] | 1 << (id - codec.bury0);
                    if pending.count_ones() == game.rules.nest_size {
                        self.pending[index] = 0;
                        game.bury(pending)
                    } else {
                        self.pending[index] = pending;
                        Ok(())
                    }
                }
                Phase::Call => game.call((id - codec.call0) as i64),
                Phase::Play => game.play((id - codec.play0) as i64),
                Phase::GameOver => Ok(()),
            };
            debug_assert!(outcome.is_ok());
            if let Some(rewards) = out.rewards.as_deref_mut() {
                let row = &mut rewards[index * players..(index + 1) * players];
                row.fill(0.0);
                if game.scores != before {
                    let mut changes = [0f64; 6];
                    for side in 0..sides {
                        changes[side] = (game.scores[side] - before[side]) as f64 / points;
                    }
                    // Zero-sum: the side's change minus the mean change of the others.
                    let total: f64 = changes[..sides].iter().sum();
                    let others = (sides - 1) as f64;
                    for seat in 0..players {
                        let change = changes[self.rules.sides[seat]];
                        row[seat] = if self.zero_sum {
                            (change - (total - change) / others) as f32
                        } else {
                            change as f32
                        };
                    }
                }
            }
            let finished = game.is_over();
            if let Some(done) = out.done.as_deref_mut() {
                done[index] = finished as u8;
            }
            if finished {
                self.episodes += 1;
                *game = Game::new(Arc::clone(&self.rules), self.seeds.next_u64() >> 1, false);
                self.pending[index] = 0;
            }
        }
        self.write_all(out);
    }

    /// Every table's observation of the seat to act, its legal mask and that seat.
    pub fn write_all(&self, out: BatchOut<'_>) {
        let size = self.layout.size;
        let actions = self.codec.size;
        for index in 0..self.tables.len() {
            let game = &self.tables[index];
            out.seats[index] = game.current as i64;
            self.write_mask(
                index,
                &mut out.masks[index * actions..(index + 1) * actions],
            );
            self.write_observation(index, &mut out.obs[index * size..(index + 1) * size]);
        }
    }

    fn write_mask(&self, index: usize, row: &mut [i8]) {
        row.fill(0);
        let game = &self.tables[index];
        let codec = &self.codec;
        let mut set_bits = |mut mask: u64, base: usize| {
            while mask != 0 {
                row[base + mask.trailing_zeros() as usize] = 1;
                mask &= mask - 1;
            }
        };
        match game.phase {
            Phase::Bidding => {
                row[0] = 1;
                let rules = &game.rules;
                let mut amount = game.lowest_bid();
                while amount <= rules.effective_max_bid {
                    row[codec.bid0 + ((amount - rules.min_bid) / rules.bid_step) as usize] = 1;
                    amount += rules.bid_step;
                }
            }
            Phase::NameTrump => row[codec.trump0..codec.bury0].fill(1),
            Phase::Bury => set_bits(
                game.hands[game.current as usize] & !self.pending[index],
                codec.bury0,
            ),
            Phase::Call => set_bits(game.call_from(), codec.call0),
            Phase::Play => set_bits(game.legal_play_mask(), codec.play0),
            Phase::GameOver => {}
        }
    }

    /// The observation of the seat to act, as `ObservationEncoder.encode_into` writes it.
    pub fn write_observation(&self, index: usize, out: &mut [f32]) {
        out.fill(0.0);
        let game = &self.tables[index];
        let rules = &*game.rules;
        let o = &self.layout;
        let p = rules.players;
        let me = game.current.max(0) as usize;
        let rel = |seat: usize| (seat + p - me) % p;
        let top = rules.effective_max_bid as f64;
        let bits = |mask: u64, base: usize, out: &mut [f32]| {
            let mut mask = mask;
            while mask != 0 {
                out[base + mask.trailing_zeros() as usize] = 1.0;
                mask &= mask - 1;
            }
        };
        out[o.phase + game.phase as usize] = 1.0;
        if game.current >= 0 {
            out[o.to_act] = 1.0;
        }
        out[o.dealer + rel(game.dealer)] = 1.0;
        let is_bidder = game.bidder >= 0 && game.bidder as usize == me;
        bits(game.hands[me], o.hand, out);
        if is_bidder {
            bits(game.nest, o.nest, out);
            bits(game.buried, o.buried, out);
        }
        if game.phase == Phase::Bury {
            bits(self.pending[index], o.pending, out);
        }
        for &(seat, amount) in &game.auction {
            if amount != 0 {
                out[o.last_bid + rel(seat)] = (amount as f64 / top) as f32;
            } else {
                out[o.passed + rel(seat)] = 1.0;
            }
        }
        out[o.high_bid] = (game.high_bid as f64 / top) as f32;
        if game.high_bidder >= 0 {
            out[o.high_bidder + rel(game.high_bidder as usize)] = 1.0;
        }
        if game.bidder >= 0 {
            out[o.bidder + rel(game.bidder as usize)] = 1.0;
            out[o.bid] = (game.bid as f64 / top) as f32;
        }
        if game.trump >= 0 {
            out[o.trump + game.trump as usize] = 1.0;
        }
        if game.called >= 0 {
            out[o.called + game.called as usize] = 1.0;
        }
        let partner = game.partner_for(me as i32);
        if partner >= 0 {
            out[o.partner + rel(partner as usize)] = 1.0;
        }
        if game.phase == Phase::Play {
            let leader = if game.trick_len > 0 { game.lead } else { me };
            out[o.trick_leader + rel(leader)] = 1.0;
            for (offset, &card) in game.trick[..game.trick_len].iter().enumerate() {
                let at = rel((leader + offset) % p) * C + card as usize;
                out[o.trick + at] = 1.0;
                out[o.played + at] = 1.0;
            }
        }
        for trick in &game.tricks {
            for (offset, &card) in trick.cards[..p].iter().enumerate() {
                out[o.played + rel((trick.leader + offset) % p) * C + card as usize] = 1.0;
            }
        }
        let points = rules.deck_points.max(1) as f64;
        let mut captured = [0i64; 6];
        for seat in 0..p {
            captured[rules.sides[seat]] += game.won[seat];
        }
        let mine = rules.sides[me];
        for r in 0..p {
            let side = rules.sides[(me + r) % p];
            if side == mine {
                out[o.same_side + r] = 1.0;
            }
            out[o.points + r] = (captured[side] as f64 / points) as f32;
            out[o.scores + r] = (game.scores[side] as f64 / rules.target as f64) as f32;
        }
        if rules.nest_size > 0 {
            out[o.buried_count] = (game.buried.count_ones() as f64 / rules.nest_size as f64) as f32;
        }
    }
}
