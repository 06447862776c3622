//! The Python bindings: `Rules`, `Batch` and `RefusedError`, and the plain values of a game
//! (results, events, observations, legal actions) that `EngineGame` (`python_engine.rs`) hands
//! to the engine.

use std::sync::Arc;

use pyo3::buffer::PyBuffer;
use pyo3::create_exception;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::batch::{Batch, BatchOut};
use crate::deal::{deal_for_hand, Deal};
use crate::game::{Event, Game, GameResult, HandResult, Refusal, Trick};
use crate::python_engine::EngineGame;
use crate::rules::{Partnership, Rules};

create_exception!(
    rookery_core,
    RefusedError,
    PyValueError,
    "A refused action: args are (kind, reason, message); kind is 'malformed', 'illegal' or 'game_over'."
);

pub(crate) fn refused(refusal: Refusal) -> PyErr {
    match refusal {
        Refusal::Malformed(message) => RefusedError::new_err(("malformed", "", message)),
        Refusal::Illegal(reason, message) => RefusedError::new_err(("illegal", reason, message)),
        Refusal::GameOver(message) => RefusedError::new_err(("game_over", "game_over", message)),
    }
}

/// The parameters of a game (`CoreRules.from_dict(ruleset.to_dict())`).
#[pyclass(name = "Rules", module = "rookery_core", frozen)]
pub struct PyRules {
    pub rules: Arc<Rules>,
}

fn field<'py, T: FromPyObject<'py>>(
    data: &Bound<'py, PyDict>,
    key: &str,
    default: T,
) -> PyResult<T> {
    match data.get_item(key)? {
        Some(value) => value.extract::<T>().map_err(|_| {
            PyValueError::new_err(format!(
                "ruleset {key}: {value} is outside what the native core takes (64-bit ints)"
            ))
        }),
        None => Ok(default),
    }
}

#[pymethods]
impl PyRules {
    /// The rules of a dict made by `Ruleset.to_dict()` (enum values by name).
    #[staticmethod]
    fn from_dict(data: &Bound<'_, PyDict>) -> PyResult<PyRules> {
        let base = Rules::standard();
        let partnership = match field::<String>(data, "partnership", "FIXED".into())?.as_str() {
            "FIXED" => Partnership::Fixed,
            "NONE" => Partnership::None,
            "CALLED" => Partnership::Called,
            other => return Err(PyValueError::new_err(format!("partnership: {other}"))),
        };
        let mut rules = Rules {
            name: field(data, "name", "custom".to_string())?,
            players: field(data, "players", base.players)?,
            partnership,
            lowest_rank: field(data, "lowest_rank", base.lowest_rank)?,
            rook_cards: field(data, "rook_cards", base.rook_cards)?,
            nest_size: field(data, "nest_size", base.nest_size)?,
            min_bid: field(data, "min_bid", base.min_bid)?,
            bid_step: field(data, "bid_step", base.bid_step)?,
            max_bid: field(data, "max_bid", None)?,
            first_lead_left: field::<String>(data, "first_lead", "BIDDER".into())?
                == "LEFT_OF_BIDDER",
            dealer_forced: field::<String>(data, "all_pass", "REDEAL".into())? == "DEALER_FORCED",
            trump_first: field(data, "trump_first", true)?,
            rook_free_play: field(data, "rook_free_play", false)?,
            bidder_wins: field::<String>(data, "both_over", "HIGHER_TOTAL".into())?
                == "BIDDER_WINS",
            target: field(data, "target", base.target)?,
            max_hands: field(data, "max_hands", base.max_hands)?,
            last_trick_bonus: field(data, "last_trick_bonus", 0)?,
            first_dealer: field(data, "first_dealer", 0)?,
            played_seeds: field::<String>(data, "hand_seeds", "DEALT".into())? == "PLAYED",
            ..base
        };
        rules.derive().map_err(PyValueError::new_err)?;
        Ok(PyRules {
            rules: Arc::new(rules),
        })
    }

    #[getter]
    fn players(&self) -> usize {
        self.rules.players
    }

    #[getter]
    fn num_sides(&self) -> usize {
        self.rules.num_sides
    }

    #[getter]
    fn deck_mask(&self) -> u64 {
        self.rules.deck_mask
    }

    #[getter]
    fn hand_size(&self) -> u32 {
        self.rules.hand_size
    }

    /// The deal of a hand: `(hands, nest, dead)`, as `rookery.engine.deal_for_hand`.
    #[pyo3(signature = (seed, hand_number, redeals = 0))]
    fn deal(&self, seed: u64, hand_number: i64, redeals: i64) -> (Vec<u64>, u64, u64) {
        deal_tuple(
            &self.rules,
            &deal_for_hand(&self.rules, seed, hand_number, redeals),
        )
    }
}

pub(crate) fn deal_tuple(rules: &Rules, deal: &Deal) -> (Vec<u64>, u64, u64) {
    (deal.hands[..rules.players].to_vec(), deal.nest, deal.dead)
}

pub(crate) fn hand_result_dict<'py>(
    py: Python<'py>,
    rules: &Rules,
    result: &HandResult,
) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("hand_number", result.hand_number)?;
    out.set_item("dealer", result.dealer)?;
    out.set_item("bidder", result.bidder)?;
    out.set_item("bid", result.bid)?;
    out.set_item("forced", result.forced)?;
    out.set_item(
        "trump",
        if result.trump < 0 {
            None
        } else {
            Some(result.trump)
        },
    )?;
    out.set_item("made", result.made)?;
    out.set_item("bidding_total", result.bidding_total)?;
    out.set_item(
        "points_per_side",
        PyTuple::new(py, &result.points_per_side)?,
    )?;
    out.set_item("score_deltas", PyTuple::new(py, &result.score_deltas)?)?;
    out.set_item("scores_after", PyTuple::new(py, &result.scores_after)?)?;
    out.set_item("deal", deal_tuple(rules, &result.deal))?;
    out.set_item("buried", result.buried)?;
    out.set_item("called_card", result.called_card)?;
    out.set_item("partner", result.partner)?;
    out.set_item("redeal", result.redeal)?;
    Ok(out)
}

pub(crate) fn game_result_dict<'py>(
    py: Python<'py>,
    result: &GameResult,
) -> PyResult<Bound<'py, PyDict>> {
    let out = PyDict::new(py);
    out.set_item("winners", PyTuple::new(py, &result.winners)?)?;
    out.set_item("scores", PyTuple::new(py, &result.scores)?)?;
    out.set_item("hands_played", result.hands_played)?;
    out.set_item("reason", result.reason.name())?;
    Ok(out)
}

pub(crate) fn event_tuple<'py>(
    py: Python<'py>,
    rules: &Rules,
    event: &Event,
) -> PyResult<Bound<'py, PyTuple>> {
    let players = rules.players;
    let items: Vec<PyObject> = match event {
        Event::HandDealt {
            hand,
            dealer,
            hands,
        } => vec![
            "HandDealt".into_pyobject(py)?.into_any().unbind(),
            hand.into_pyobject(py)?.into_any().unbind(),
            dealer.into_pyobject(py)?.into_any().unbind(),
            PyTuple::new(py, &hands[..players])?.into_any().unbind(),
        ],
        Event::BidMade { hand, seat, amount } => vec![
            "BidMade".into_pyobject(py)?.into_any().unbind(),
            hand.into_pyobject(py)?.into_any().unbind(),
            seat.into_pyobject(py)?.into_any().unbind(),
            amount.into_pyobject(py)?.into_any().unbind(),
        ],
        Event::Passed { hand, seat } => vec![
            "Passed".into_pyobject(py)?.into_any().unbind(),
            hand.into_pyobject(py)?.into_any().unbind(),
            seat.into_pyobject(py)?.into_any().unbind(),
        ],
        Event::AuctionWon {
            hand,
            seat,
            amount,
            forced,
        } => vec![
            "AuctionWon".into_pyobject(py)?.into_any().unbind(),
            hand.into_pyobject(py)?.into_any().unbind(),
            seat.into_pyobject(py)?.into_any().unbind(),
            amount.into_pyobject(py)?.into_any().unbind(),
            forced.into_pyobject(py)?.to_owned().into_any().unbind(),
        ],
        Event::HandRedealt { hand, dealer } => vec![
            "HandRedealt".into_pyobject(py)?.into_any().unbind(),
            hand.into_pyobject(py)?.into_any().unbind(),
            dealer.into_pyobject(py)?.into_any().unbind(),
        ],
        Event::NestTaken {
            hand,
            seat,
            cards,
            count,
        } => vec![
            "NestTaken".into_pyobject(py)?.into_any().unbind(),
            hand.into_pyobject(py)?.into_any().unbind(),
            seat.into_pyobject(py)?.into_any().unbind(),
            cards.into_pyobject(py)?.into_any().unbind(),
            count.into_pyobject(py)?.into_any().unbind(),
        ],
        Event::TrumpNamed { hand, seat, suit } => vec![
            "TrumpNamed".into_pyobject(py)?.into_any().unbind(),
            hand.into_pyobject(py)?.into_any().unbind(),
            seat.into_pyobject(py)?.into_any().unbind(),
            suit.into_pyobject(py)?.into_any().unbind(),
        ],
        Event::CardsBuried {
            hand,
            seat,
            cards,
            count,
        } => vec![
            "CardsBuried".into_pyobject(py)?.into_any().unbind(),
            hand.into_pyobject(py)?.into_any().unbind(),
            seat.into_pyobject(py)?.into_any().unbind(),
            cards.into_pyobject(py)?.into_any().unbind(),
            count.into_pyobject(py)?.into_any().unbind(),
        ],
        Event::CardCalled { hand, seat, card } => vec![
            "CardCalled".into_pyobject(py)?.into_any().unbind(),
            hand.into_pyobject(py)?.into_any().unbind(),
            seat.into_pyobject(py)?.into_any().unbind(),
            card.into_pyobject(py)?.into_any().unbind(),
        ],
        Event::PartnerRevealed { hand, seat } => vec![
            "PartnerRevealed".into_pyobject(py)?.into_any().unbind(),
            hand.into_pyobject(py)?.into_any().unbind(),
            seat.into_pyobject(py)?.into_any().unbind(),
        ],
        Event::CardPlayed { hand, seat, card } => vec![
            "CardPlayed".into_pyobject(py)?.into_any().unbind(),
            hand.into_pyobject(py)?.into_any().unbind(),
            seat.into_pyobject(py)?.into_any().unbind(),
            card.into_pyobject(py)?.into_any().unbind(),
        ],
        Event::TrickWon {
            hand,
            seat,
            points,
            trick_index,
        } => vec![
            "TrickWon".into_pyobject(py)?.into_any().unbind(),
            hand.into_pyobject(py)?.into_any().unbind(),
            seat.into_pyobject(py)?.into_any().unbind(),
            points.into_pyobject(py)?.into_any().unbind(),
            trick_index.into_pyobject(py)?.into_any().unbind(),
        ],
        Event::HandScored { hand, result } => vec![
            "HandScored".into_pyobject(py)?.into_any().unbind(),
            hand.into_pyobject(py)?.into_any().unbind(),
            hand_result_dict(py, rules, result)?.into_any().unbind(),
        ],
        Event::GameOver { hand, result } => vec![
            "GameOver".into_pyobject(py)?.into_any().unbind(),
            hand.into_pyobject(py)?.into_any().unbind(),
            game_result_dict(py, result)?.into_any().unbind(),
        ],
    };
    PyTuple::new(py, items)
}

/// `observation(seat)`'s values as one tuple in `Observation`'s field order (from `seat` to
/// `scores`), the phase as its index, the completed tricks only from index `since` on.
pub(crate) fn observation_fields<'py>(
    py: Python<'py>,
    game: &Game,
    seat: i64,
    since: usize,
) -> PyResult<Bound<'py, PyTuple>> {
    let players = game.rules.players;
    if !(-1..players as i64).contains(&seat) {
        return Err(PyValueError::new_err(format!("not a seat: {seat}")));
    }
    let seat = seat as i32;
    let is_bidder = seat >= 0 && seat == game.bidder;
    let current: TrickTuple = if game.phase == crate::game::Phase::Play {
        let leader = if game.trick_len > 0 {
            game.lead
        } else {
            game.current as usize
        };
        (
            leader as i64,
            seated(players, leader, &game.trick[..game.trick_len]),
            -1,
            game.trick_points,
        )
    } else {
        (-1, Vec::new(), -1, 0)
    };
    let start = since.min(game.tricks.len());
    let completed: Vec<TrickTuple> = game.tricks[start..]
        .iter()
        .map(|trick| completed_trick(players, trick))
        .collect();
    let trump: PyObject = if game.trump < 0 {
        py.None()
    } else {
        game.trump.into_pyobject(py)?.into_any().unbind()
    };
    let items: Vec<PyObject> = vec![
        seat.into_pyobject(py)?.into_any().unbind(),
        game.hand_number.into_pyobject(py)?.into_any().unbind(),
        game.dealer.into_pyobject(py)?.into_any().unbind(),
        (game.phase as u8).into_pyobject(py)?.into_any().unbind(),
        game.current.into_pyobject(py)?.into_any().unbind(),
        (if seat >= 0 {
            game.hands[seat as usize]
        } else {
            0
        })
        .into_pyobject(py)?
        .into_any()
        .unbind(),
        (if is_bidder { game.nest } else { 0 })
            .into_pyobject(py)?
            .into_any()
            .unbind(),
        PyTuple::new(py, game.auction.iter().copied())?
            .into_any()
            .unbind(),
        game.high_bid.into_pyobject(py)?.into_any().unbind(),
        game.high_bidder.into_pyobject(py)?.into_any().unbind(),
        game.bidder.into_pyobject(py)?.into_any().unbind(),
        game.bid.into_pyobject(py)?.into_any().unbind(),
        trump,
        (if is_bidder { game.buried } else { 0 })
            .into_pyobject(py)?
            .into_any()
            .unbind(),
        game.buried
            .count_ones()
            .into_pyobject(py)?
            .into_any()
            .unbind(),
        game.called.into_pyobject(py)?.into_any().unbind(),
        game.partner_for(seat)
            .into_pyobject(py)?
            .into_any()
            .unbind(),
        current.into_pyobject(py)?.into_any().unbind(),
        completed.into_pyobject(py)?.into_any().unbind(),
        PyTuple::new(py, game.points_captured())?
            .into_any()
            .unbind(),
        PyTuple::new(py, &game.scores[..game.rules.num_sides])?
            .into_any()
            .unbind(),
    ];
    PyTuple::new(py, items)
}

/// The legal actions: `(phase, player, data)`: the bids above the high bid (pass is always
/// legal too), `(bury_from, bury_count)`, the call mask or the play mask; `None` otherwise.
pub(crate) fn legal_tuple<'py>(py: Python<'py>, game: &Game) -> PyResult<(u8, i32, PyObject)> {
    let data: PyObject = match game.phase {
        crate::game::Phase::Bidding => game.legal_bids().into_pyobject(py)?.into_any().unbind(),
        crate::game::Phase::Bury => (game.hands[game.bidder as usize], game.rules.nest_size)
            .into_pyobject(py)?
            .into_any()
            .unbind(),
        crate::game::Phase::Call => game.call_from().into_pyobject(py)?.into_any().unbind(),
        crate::game::Phase::Play => game
            .legal_play_mask()
            .into_pyobject(py)?
            .into_any()
            .unbind(),
        _ => py.None(),
    };
    Ok((game.phase as u8, game.current, data))
}

type TrickTuple = (i64, Vec<(usize, u32)>, i64, i64);

fn seated(players: usize, leader: usize, cards: &[u8]) -> Vec<(usize, u32)> {
    cards
        .iter()
        .enumerate()
        .map(|(index, &card)| ((leader + index) % players, card as u32))
        .collect()
}

fn completed_trick(players: usize, trick: &Trick) -> TrickTuple {
    (
        trick.leader as i64,
        seated(players, trick.leader, &trick.cards[..players]),
        trick.winner as i64,
        trick.points,
    )
}

fn writable<'py, T: pyo3::buffer::Element>(
    array: &Bound<'py, PyAny>,
    name: &str,
    len: usize,
) -> PyResult<PyBuffer<T>> {
    let buffer = PyBuffer::<T>::get(array)
        .map_err(|error| PyTypeError::new_err(format!("{name}: {error}")))?;
    if buffer.readonly() || !buffer.is_c_contiguous() || buffer.item_count() != len {
        return Err(PyValueError::new_err(format!(
            "{name}: a writable C-contiguous array of {len} items is needed, got {} items{}",
            buffer.item_count(),
            if buffer.readonly() {
                " (read-only)"
            } else {
                ""
            }
        )));
    }
    Ok(buffer)
}

/// The bytes a buffer covers, as `(start, end)` addresses.
fn span<T: pyo3::buffer::Element>(buffer: &PyBuffer<T>) -> (usize, usize) {
    let start = buffer.buf_ptr() as usize;
    (start, start + buffer.len_bytes())
}

/// Refuses output arrays that share memory (each is written as a whole).
fn disjoint(spans: &[(usize, usize)]) -> PyResult<()> {
    for (index, a) in spans.iter().enumerate() {
        for b in &spans[index + 1..] {
            if a.0 < b.1 && b.0 < a.1 {
                return Err(PyValueError::new_err(
                    "the output arrays must not share memory",
                ));
            }
        }
    }
    Ok(())
}

/// `n` tables of one ruleset stepped together from an array of action ids.
#[pyclass(name = "Batch", module = "rookery_core")]
pub struct PyBatch {
    batch: Batch,
}

#[pymethods]
impl PyBatch {
    /// `zero_sum`: each seat's reward is its side's score change minus the mean change of the
    /// other sides (else its side's own change), over the deck's points, as `RookTable`'s.
    #[new]
    #[pyo3(signature = (rules, n, seed, zero_sum = true))]
    fn new(rules: &PyRules, n: usize, seed: u64, zero_sum: bool) -> PyResult<PyBatch> {
        if n == 0 {
            return Err(PyValueError::new_err("a batch needs at least one table"));
        }
        Ok(PyBatch {
            batch: Batch::new(Arc::clone(&rules.rules), n, seed, zero_sum),
        })
    }

    #[getter]
    fn n(&self) -> usize {
        self.batch.tables.len()
    }

    /// The number of action ids (`ActionCodec.size`).
    #[getter]
    fn num_actions(&self) -> usize {
        self.batch.codec.size
    }

    /// The length of one table's observation vector.
    #[getter]
    fn observation_size(&self) -> usize {
        self.batch.layout.size
    }

    /// Writes every table's observation, mask and seat to act into the given arrays.
    fn write(
        &mut self,
        py: Python<'_>,
        obs: &Bound<'_, PyAny>,
        masks: &Bound<'_, PyAny>,
        seats: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let n = self.batch.tables.len();
        let obs = writable::<f32>(obs, "obs", n * self.batch.layout.size)?;
        let masks = writable::<i8>(masks, "masks", n * self.batch.codec.size)?;
        let seats = writable::<i64>(seats, "seats", n)?;
        disjoint(&[span(&obs), span(&masks), span(&seats)])?;
        let out = unsafe { out_views(&obs, &masks, &seats, None, None) };
        py.allow_threads(|| self.batch.write_all(out));
        Ok(())
    }

    /// Takes `actions[i]` (int64 ids) at table `i`, then writes observations, masks, seats,
    /// rewards (n x players, float32) and done (bool as uint8) into the given arrays. An id
    /// that is not legal raises `ValueError` naming the table, and no table moves.
    #[allow(clippy::too_many_arguments)]
    fn step(
        &mut self,
        py: Python<'_>,
        actions: &Bound<'_, PyAny>,
        obs: &Bound<'_, PyAny>,
        masks: &Bound<'_, PyAny>,
        seats: &Bound<'_, PyAny>,
        rewards: &Bound<'_, PyAny>,
        done: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let n = self.batch.tables.len();
        let players = self.batch.rules.players;
        let actions = PyBuffer::<i64>::get(actions)
            .map_err(|error| PyTypeError::new_err(format!("actions: {error}")))?;
        if !actions.is_c_contiguous() || actions.item_count() != n {
            return Err(PyValueError::new_err(format!(
                "actions: a C-contiguous int64 array of {n} ids is needed, got {} items",
                actions.item_count()
            )));
        }
        let ids: Vec<i64> = actions.to_vec(py)?;
        if let Some((table, id)) = self.batch.first_illegal(&ids) {
            return Err(PyValueError::new_err(format!(
                "table {table}: action id {id} is not legal"
            )));
        }
        let obs = writable::<f32>(obs, "obs", n * self.batch.layout.size)?;
        let masks = writable::<i8>(masks, "masks", n * self.batch.codec.size)?;
        let seats = writable::<i64>(seats, "seats", n)?;
        let rewards = writable::<f32>(rewards, "rewards", n * players)?;
        let done = writable::<u8>(done, "done", n)?;
        disjoint(&[
            span(&obs),
            span(&masks),
            span(&seats),
            span(&rewards),
            span(&done),
        ])?;
        let out = unsafe { out_views(&obs, &masks, &seats, Some(&rewards), Some(&done)) };
        py.allow_threads(|| self.batch.step(&ids, out));
        Ok(())
    }

    /// Table `index`'s game, copied (for tests and inspection).
    fn table(&self, index: usize) -> PyResult<EngineGame> {
        self.batch
            .tables
            .get(index)
            .map(|game| EngineGame::of(game.clone()))
            .ok_or_else(|| PyValueError::new_err(format!("no table {index}")))
    }

    /// The number of games finished so far.
    #[getter]
    fn episodes(&self) -> u64 {
        self.batch.episodes
    }
}

/// Raw views of the output buffers (valid while the buffers are held).
unsafe fn out_views<'a>(
    obs: &'a PyBuffer<f32>,
    masks: &'a PyBuffer<i8>,
    seats: &'a PyBuffer<i64>,
    rewards: Option<&'a PyBuffer<f32>>,
    done: Option<&'a PyBuffer<u8>>,
) -> BatchOut<'a> {
    BatchOut {
        obs: std::slice::from_raw_parts_mut(obs.buf_ptr() as *mut f32, obs.item_count()),
        masks: std::slice::from_raw_parts_mut(masks.buf_ptr() as *mut i8, masks.item_count()),
        seats: std::slice::from_raw_parts_mut(seats.buf_ptr() as *mut i64, seats.item_count()),
        rewards: rewards
            .map(|b| std::slice::from_raw_parts_mut(b.buf_ptr() as *mut f32, b.item_count())),
        done: done.map(|b| std::slice::from_raw_parts_mut(b.buf_ptr() as *mut u8, b.item_count())),
    }
}

#[pymodule]
fn rookery_core(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<PyRules>()?;
    module.add_class::<PyBatch>()?;
    crate::python_dd::register(module)?;
    crate::python_engine::register(module)?;
    crate::python_observation::register(module)?;
    crate::python_requests::register(module)?;
    crate::python_search::register(module)?;
    module.add("RefusedError", module.py().get_type::<RefusedError>())?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
