//! The Python bindings of the search bots' core: `sample_deals` (deal sampling, `sampling`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::sampling::{sample, Hidden, Place, PlaceKind, Rng};

/// `n` deals consistent with what one seat knows, drawn from `seed`: `places` are the hidden
/// places as `(kind, seat, capacity, forbidden)` (kind 0 a hand, 1 the nest, 2 the bury, 3 the
/// dead pile); `hands` the known cards now per seat, `played` the cards each seat played; each
/// deal is `(hands as dealt, nest, dead)`.
#[pyfunction]
#[pyo3(signature = (unknown, places, hands, played, nest, buried, bidder, nest_size, buried_done, seed, n))]
#[allow(clippy::too_many_arguments)]
fn sample_deals(
    unknown: u64,
    places: Vec<(u8, i64, u32, u64)>,
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
    let hidden = Hidden {
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
    };
    let mut rng = Rng::new(seed);
    let mut deals = Vec::with_capacity(n);
    for _ in 0..n {
        let deal = sample(&hidden, &mut rng).map_err(PyValueError::new_err)?;
        deals.push((deal.hands, deal.nest, deal.dead));
    }
    Ok(deals)
}

/// Adds the search bots' names to the module.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_function(wrap_pyfunction!(sample_deals, module)?)?;
    Ok(())
}
