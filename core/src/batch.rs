//! Many tables stepped together by action ids (the ids of `rookery.envs`' `ActionCodec`), with
//! each table's observation (the layout of `ObservationEncoder`), legal mask and rewards
//! written straight into caller-owned arrays: no Python object per table per step.

use std::sync::Arc;

use crate::cards::NUM_CARDS;
use crate::game::{Game, Phase};
use crate::observation::{self, IdStep, Layout};
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
/// uniformly (a bury: a uniform subset of the hand). Returns the action applied.
pub fn random_action(game: &mut Game, rng: &mut Rng) -> IdStep {
    let step = match game.phase {
        Phase::Bidding => {
            let lowest = game.lowest_bid();
            if lowest <= game.rules.effective_max_bid && rng.below(2) == 1 {
                IdStep::Bid(lowest)
            } else {
                IdStep::Pass
            }
        }
        Phase::NameTrump => IdStep::Trump(rng.below(4) as i64),
        Phase::Bury => {
            let mut hand = game.hands[game.current as usize];
            let mut cards = 0u64;
            for _ in 0..game.rules.nest_size {
                let card = random_card(hand, rng);
                cards |= 1 << card;
                hand &= !(1u64 << card);
            }
            IdStep::Bury(cards)
        }
        Phase::Call => IdStep::Call(random_card(game.call_from(), rng) as i64),
        Phase::Play => IdStep::Play(random_card(game.legal_play_mask(), rng) as i64),
        Phase::GameOver => return IdStep::Illegal,
    };
    let outcome = observation::apply(game, step);
    debug_assert!(outcome.is_ok());
    step
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
        observation::is_legal(&self.tables[index], &self.codec, self.pending[index], id)
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
        observation::write_mask(&self.tables[index], &self.codec, self.pending[index], row);
    }

    /// The observation of the seat to act, as `ObservationEncoder.encode_into` writes it.
    pub fn write_observation(&self, index: usize, out: &mut [f32]) {
        let game = &self.tables[index];
        let seat = game.current.max(0) as usize;
        observation::write_observation(game, &self.layout, seat, self.pending[index], out);
    }
}
