//! The Python bindings of the search bots' core: `sample_deals` (deal sampling, `sampling`) and
//! `HeuristicPlayouts` (the bots' playout model, `playout`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::playout::{Simulation, Table};
use crate::sampling::{sample, Hidden, Place, PlaceKind, Rng};

type PlaceTuple = (u8, i64, u32, u64);

/// The fixed part and the hidden places of a deal to sample, checked.
#[allow(clippy::too_many_arguments)]
fn hidden_of(
    unknown: u64,
    places: Vec<PlaceTuple>,
    hands: Vec<u64>,
    played: Vec<u64>,
    nest: u64,
    buried: u64,
    bidder: i64,
    nest_size: u32,
    buried_done: bool,
) -> PyResult<Hidden> {
    let players = hands.len();
    if !(1..=6).contains(&players) || played.len() != players {
        return Err(PyValueError::new_err(
            "hands and played: one mask per seat, 1 to 6 seats",
        ));
    }
    if bidder >= players as i64 {
        return Err(PyValueError::new_err(format!("no seat {bidder}")));
    }
    let mut kinds = Vec::with_capacity(places.len());
    for (kind, seat, capacity, forbidden) in places {
        let kind = match kind {
            0 if (0..players as i64).contains(&seat) => PlaceKind::Hand(seat as usize),
            1 => PlaceKind::Nest,
            2 => PlaceKind::Buried,
            3 => PlaceKind::Dead,
            _ => return Err(PyValueError::new_err(format!("bad place ({kind}, {seat})"))),
        };
        kinds.push(Place {
            kind,
            capacity,
            forbidden,
        });
    }
    let total: u32 = kinds.iter().map(|place| place.capacity).sum();
    if total != unknown.count_ones() {
        return Err(PyValueError::new_err(
            "inconsistent observation: hidden cards and hidden places differ in number",
        ));
    }
    Ok(Hidden {
        players,
        unknown,
        places: kinds,
        hands,
        played,
        nest,
        buried,
        bidder,
        nest_size,
        buried_done,
    })
}

/// `n` deals consistent with what one seat knows, drawn from `seed`: `places` are the hidden
/// places as `(kind, seat, capacity, forbidden)` (kind 0 a hand, 1 the nest, 2 the bury, 3 the
/// dead pile); `hands` the known cards now per seat, `played` the cards each seat played; each
/// deal is `(hands as dealt, nest, dead)`.
#[pyfunction]
#[pyo3(signature = (unknown, places, hands, played, nest, buried, bidder, nest_size, buried_done, seed, n))]
#[allow(clippy::too_many_arguments)]
fn sample_deals(
    unknown: u64,
    places: Vec<PlaceTuple>,
    hands: Vec<u64>,
    played: Vec<u64>,
    nest: u64,
    buried: u64,
    bidder: i64,
    nest_size: u32,
    buried_done: bool,
    seed: u64,
    n: usize,
) -> PyResult<Vec<(Vec<u64>, u64, u64)>> {
    let hidden = hidden_of(
        unknown,
        places,
        hands,
        played,
        nest,
        buried,
        bidder,
        nest_size,
        buried_done,
    )?;
    let mut rng = Rng::new(seed);
    let mut deals = Vec::with_capacity(n);
    for _ in 0..n {
        let deal = sample(&hidden, &mut rng).map_err(PyValueError::new_err)?;
        deals.push((deal.hands, deal.nest, deal.dead));
    }
    Ok(deals)
}

fn masks<const N: usize>(values: &[u64], what: &str) -> PyResult<[u64; N]> {
    if values.len() > N {
        return Err(PyValueError::new_err(format!("{what}: at most {N} masks")));
    }
    let mut out = [0u64; N];
    out[..values.len()].copy_from_slice(values);
    Ok(out)
}

/// One position of a hand's play, every hand to be supplied per sample, played out by the bots'
/// heuristic on every seat (`rookery.client.bots._simulate.HandSimulation`); also reads how
/// likely a sample makes the cards played so far (`_sampling.play_likelihood`).
#[pyclass(name = "HeuristicPlayouts", module = "rookery_core")]
pub struct PyHeuristicPlayouts {
    table: Table,
    partner_shown: bool,
    played: u64,
    trick: Vec<(usize, u32)>,
    voids: Vec<u64>,
    won: Vec<i64>,
    leader: usize,
    tricks_left: u32,
    history: Vec<(usize, u32)>,
    hand_size: u32,
}

#[pymethods]
impl PyHeuristicPlayouts {
    #[new]
    #[pyo3(signature = (players, deck_mask, rook_free_play, last_trick_bonus, fixed_friends, trump, bidder, called, partner_shown, played, trick, voids, won, leader, tricks_left, history, hand_size))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        players: usize,
        deck_mask: u64,
        rook_free_play: bool,
        last_trick_bonus: i64,
        fixed_friends: Option<Vec<u64>>,
        trump: u32,
        bidder: usize,
        called: i64,
        partner_shown: bool,
        played: u64,
        trick: Vec<(usize, u32)>,
        voids: Vec<u64>,
        won: Vec<i64>,
        leader: usize,
        tricks_left: u32,
        history: Vec<(usize, u32)>,
        hand_size: u32,
    ) -> PyResult<Self> {
        if !(3..=6).contains(&players) || bidder >= players || leader >= players || trump > 3 {
            return Err(PyValueError::new_err(
                "players 3 to 6; bidder, leader: seats; trump 0 to 3",
            ));
        }
        if trick.len() >= players || voids.len() != players || won.len() != players {
            return Err(PyValueError::new_err(
                "the open trick holds fewer cards than seats; voids and won: one per seat",
            ));
        }
        let cards_ok = |pairs: &[(usize, u32)]| pairs.iter().all(|&(s, c)| s < players && c < 58);
        if !cards_ok(&trick) || !cards_ok(&history) || tricks_left == 0 {
            return Err(PyValueError::new_err(
                "cards 0 to 57 by seats of the table, and a trick left to play",
            ));
        }
        let fixed_friends = match fixed_friends {
            None => None,
            Some(values) => Some(masks::<6>(&values, "fixed_friends")?),
        };
        Ok(PyHeuristicPlayouts {
            table: Table {
                players,
                deck_mask,
                rook_free_play,
                last_trick_bonus,
                fixed_friends,
                trump,
                bidder,
                called,
            },
            partner_shown,
            played,
            trick,
            voids,
            won,
            leader,
            tricks_left,
            history,
            hand_size,
        })
    }

    /// Per candidate card of the seat to play: every seat's points won at the hand's end once
    /// that card is played and the rest played out (`hands`: every seat's cards now).
    fn play_out(
        &self,
        hands: Vec<u64>,
        partner: i64,
        bidding_mask: u64,
        candidates: Vec<u32>,
    ) -> PyResult<Vec<Vec<i64>>> {
        let players = self.table.players;
        if hands.len() != players || partner >= players as i64 {
            return Err(PyValueError::new_err(
                "hands: one per seat; partner: a seat or -1",
            ));
        }
        // Each seat must hold the cards of the tricks left (those in the open trick one fewer).
        let mut in_trick = 0u64;
        for &(seat, _) in &self.trick {
            in_trick |= 1 << seat;
        }
        for (seat, &hand) in hands.iter().enumerate() {
            let need = self.tricks_left - (in_trick >> seat & 1) as u32;
            if hand.count_ones() != need || hand & self.played != 0 {
                return Err(PyValueError::new_err(format!(
                    "seat {seat} holds {} unplayed cards, not the {need} of the tricks left",
                    hand.count_ones()
                )));
            }
        }
        let base = Simulation::new(
            &self.table,
            &hands,
            partner,
            self.partner_shown,
            self.played,
            &self.trick,
            &self.voids,
            &self.won,
            self.leader,
            self.tricks_left,
            bidding_mask,
        );
        let legal = base.legal(&self.table);
        let mut out = Vec::with_capacity(candidates.len());
        for card in candidates {
            if card >= 58 || legal >> card & 1 == 0 {
                return Err(PyValueError::new_err(format!(
                    "card {card} is not a legal card of the seat to play"
                )));
            }
            let mut sim = base.clone();
            sim.play(&self.table, card);
            sim.play_out(&self.table);
            out.push(sim.won[..players].to_vec());
        }
        Ok(out)
    }

    /// How well `hands` (every seat's cards now) explain the cards of `history` played by the
    /// seats outside `friends`, read as heuristic play: `miss` per card the heuristic would not
    /// have chosen where it had a choice (`_sampling.play_likelihood`).
    fn likelihood(
        &self,
        hands: Vec<u64>,
        partner: i64,
        bidding_mask: u64,
        friends: u64,
        miss: f64,
    ) -> PyResult<f64> {
        if hands.len() != self.table.players {
            return Err(PyValueError::new_err("hands: one per seat"));
        }
        self.read(&hands, partner, bidding_mask, friends, miss)
            .map_err(PyValueError::new_err)
    }

    /// The likeliest of `tries` deals drawn from `seed` for the observer `seat` (holding
    /// `hand`; `partner` the partner it knows, -1: none), by `likelihood` (the first that
    /// explains every card): every seat's cards now, the nest (or bury) and the dead pile.
    #[pyo3(signature = (unknown, places, hands, played, nest, buried, bidder, nest_size, buried_done, seed, tries, seat, hand, partner, friends, miss))]
    #[allow(clippy::too_many_arguments)]
    fn likeliest(
        &self,
        unknown: u64,
        places: Vec<PlaceTuple>,
        hands: Vec<u64>,
        played: Vec<u64>,
        nest: u64,
        buried: u64,
        bidder: i64,
        nest_size: u32,
        buried_done: bool,
        seed: u64,
        tries: usize,
        seat: usize,
        hand: u64,
        partner: i64,
        friends: u64,
        miss: f64,
    ) -> PyResult<(Vec<u64>, u64, u64)> {
        let players = self.table.players;
        if hands.len() != players || seat >= players {
            return Err(PyValueError::new_err("hands: one per seat; seat: a seat"));
        }
        let hidden = hidden_of(
            unknown,
            places,
            hands,
            played,
            nest,
            buried,
            bidder,
            nest_size,
            buried_done,
        )?;
        let mut rng = Rng::new(seed);
        let mut best: Option<(Vec<u64>, u64, u64)> = None;
        let mut best_likelihood = -1.0;
        for _ in 0..tries.max(1) {
            let deal = sample(&hidden, &mut rng).map_err(PyValueError::new_err)?;
            let mut now: Vec<u64> = deal.hands.iter().map(|h| h & !self.played).collect();
            now[seat] = hand;
            let holder = if partner >= 0 || self.table.called < 0 {
                partner
            } else {
                let bit = 1u64 << self.table.called;
                deal.hands
                    .iter()
                    .position(|h| h & bit != 0)
                    .map_or(-1, |s| s as i64)
            };
            let mask = match self.table.fixed_friends {
                Some(fixed) => fixed[self.table.bidder],
                None if holder >= 0 => (1u64 << self.table.bidder) | (1u64 << holder),
                None => 1u64 << self.table.bidder,
            };
            let likelihood = self
                .read(&now, holder, mask, friends, miss)
                .map_err(PyValueError::new_err)?;
            if likelihood > best_likelihood {
                best_likelihood = likelihood;
                best = Some((now, deal.nest, deal.dead));
                if likelihood >= 1.0 {
                    break;
                }
            }
        }
        Ok(best.expect("at least one deal is drawn"))
    }
}

impl PyHeuristicPlayouts {
    fn read(
        &self,
        hands: &[u64],
        partner: i64,
        bidding_mask: u64,
        friends: u64,
        miss: f64,
    ) -> Result<f64, String> {
        let players = self.table.players;
        if self.history.is_empty() || miss >= 1.0 {
            return Ok(1.0);
        }
        let mut start = [0u64; 6];
        start[..players].copy_from_slice(hands);
        for &(seat, card) in &self.history {
            start[seat] |= 1 << card;
        }
        let mut sim = Simulation::new(
            &self.table,
            &start[..players],
            partner,
            false,
            0,
            &[],
            &[0; 6][..players],
            &[0; 6][..players],
            self.history[0].0,
            self.hand_size,
            bidding_mask,
        );
        let mut likelihood = 1.0;
        for &(seat, card) in &self.history {
            if sim.current != seat || sim.hands[seat] >> card & 1 == 0 || sim.tricks_left == 0 {
                return Err("the history does not replay from these hands".to_string());
            }
            if friends >> seat & 1 == 0 {
                let legal = sim.legal(&self.table);
                if legal & legal.wrapping_sub(1) != 0 && sim.heuristic_card(&self.table) != card {
                    likelihood *= miss;
                }
            }
            sim.play(&self.table, card);
        }
        Ok(likelihood)
    }
}

/// Adds the search bots' names to the module.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(sample_deals, module)?)?;
    module.add_class::<PyHeuristicPlayouts>()?;
    Ok(())
}
