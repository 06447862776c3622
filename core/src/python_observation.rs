//! `TableView`: one `EngineGame` as the learning environments see it (action ids in, the
//! observation tensor and the legal mask written into caller-owned arrays), on `observation`.
//! `rookery.engine.CoreTable` hands it out; `rookery.envs`' `RookTable` uses it where the core
//! is built, and the pure encoder elsewhere.

use pyo3::buffer::{Element, PyBuffer};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;

use crate::batch::Codec;
use crate::observation::{self, IdStep, Layout};
use crate::python::refused;
use crate::python_engine::EngineGame;

/// `step`'s answer when the id applied an action and no score changed.
const APPLIED: i64 = -1;
/// `step`'s answer when the id applied an action that changed the scores (a hand ended).
const SCORED: i64 = -2;
/// `step`'s answer when the id is not legal now (nothing changed).
const ILLEGAL: i64 = -3;

/// One game seen by action ids: its observation tensors, legal mask and ids, and steps.
#[pyclass(name = "TableView", module = "rookery_core", frozen)]
pub struct TableView {
    game: Py<EngineGame>,
    codec: Codec,
    layout: Layout,
    players: usize,
}

/// The start of a writable C-contiguous buffer of `len` items of `T` (else a clear error).
fn out_start<T: Element>(buffer: &PyBuffer<T>, name: &str, len: usize) -> PyResult<*mut T> {
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
    Ok(buffer.buf_ptr() as *mut T)
}

fn buffer<T: Element>(array: &Bound<'_, PyAny>, name: &str) -> PyResult<PyBuffer<T>> {
    PyBuffer::<T>::get(array).map_err(|error| PyTypeError::new_err(format!("{name}: {error}")))
}

#[pymethods]
impl TableView {
    #[new]
    fn new(game: &Bound<'_, EngineGame>) -> TableView {
        let rules = std::sync::Arc::clone(&game.borrow().game.rules);
        TableView {
            game: game.clone().unbind(),
            codec: Codec::new(&rules),
            layout: Layout::new(rules.players),
            players: rules.players,
        }
    }

    /// The length of an observation tensor.
    #[getter]
    fn observation_size(&self) -> usize {
        self.layout.size
    }

    /// The number of action ids.
    #[getter]
    fn num_actions(&self) -> usize {
        self.codec.size
    }

    /// Writes `seat`'s observation tensor into `obs` (float32) and, when `mask` is given, the
    /// legal mask of the seat to act into it (int8); `pending`: the bury chosen so far.
    #[pyo3(signature = (seat, pending, obs, mask = None))]
    fn write(
        &self,
        py: Python<'_>,
        seat: i64,
        pending: u64,
        obs: &Bound<'_, PyAny>,
        mask: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        if !(0..self.players as i64).contains(&seat) {
            return Err(PyValueError::new_err(format!("not a seat: {seat}")));
        }
        let game = &self.game.bind(py).borrow().game;
        let obs_buffer = buffer::<f32>(obs, "obs")?;
        let (size, actions) = (self.layout.size, self.codec.size);
        // SAFETY: held to the end of the call; the mask's memory is checked apart from it.
        let out =
            unsafe { std::slice::from_raw_parts_mut(out_start(&obs_buffer, "obs", size)?, size) };
        if let Some(mask) = mask {
            let mask_buffer = buffer::<i8>(mask, "mask")?;
            let (start, end) = (obs_buffer.buf_ptr() as usize, obs_buffer.len_bytes());
            let (at, len) = (mask_buffer.buf_ptr() as usize, mask_buffer.len_bytes());
            if start < at + len && at < start + end {
                return Err(PyValueError::new_err("obs and mask must not share memory"));
            }
            let start = out_start(&mask_buffer, "mask", actions)?;
            // SAFETY: held to the end of the call, apart from `out`.
            let row = unsafe { std::slice::from_raw_parts_mut(start, actions) };
            observation::write_mask(game, &self.codec, pending, row);
        }
        observation::write_observation(game, &self.layout, seat as usize, pending, out);
        Ok(())
    }

    /// The length of an information-state tensor.
    #[getter]
    fn info_size(&self, py: Python<'_>) -> usize {
        observation::info_size(&self.layout, &self.game.bind(py).borrow().game.rules)
    }

    /// Writes `seat`'s information-state tensor into `out` (float32): the observation, the
    /// auction and the play in order, `picked_up` (the nest the bidder took, a card mask) and
    /// `bury_order` (the cards it chose to bury, in order).
    fn write_info(
        &self,
        py: Python<'_>,
        seat: i64,
        pending: u64,
        picked_up: u64,
        bury_order: Vec<u32>,
        out: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        if !(0..self.players as i64).contains(&seat) {
            return Err(PyValueError::new_err(format!("not a seat: {seat}")));
        }
        let outside = |card: u32| card >= crate::cards::NUM_CARDS;
        if let Some(card) = bury_order.iter().find(|&&card| outside(card)) {
            return Err(PyValueError::new_err(format!(
                "bury_order: not a card: {card}"
            )));
        }
        if picked_up & !crate::cards::ALL_CARDS_MASK != 0 {
            return Err(PyValueError::new_err(format!(
                "picked_up: not a card mask: {picked_up:#x}"
            )));
        }
        let game = &self.game.bind(py).borrow().game;
        let size = observation::info_size(&self.layout, &game.rules);
        let out_buffer = buffer::<f32>(out, "out")?;
        // SAFETY: held to the end of the call; the only slice of it.
        let out =
            unsafe { std::slice::from_raw_parts_mut(out_start(&out_buffer, "out", size)?, size) };
        observation::write_info_state(
            game,
            &self.layout,
            seat as usize,
            pending,
            picked_up,
            &bury_order,
            out,
        );
        Ok(())
    }

    /// Writes the legal mask of the seat to act into `mask` (int8).
    fn write_mask(&self, py: Python<'_>, pending: u64, mask: &Bound<'_, PyAny>) -> PyResult<()> {
        let game = &self.game.bind(py).borrow().game;
        let mask_buffer = buffer::<i8>(mask, "mask")?;
        let start = out_start(&mask_buffer, "mask", self.codec.size)?;
        // SAFETY: held to the end of the call; the only slice of it.
        let row = unsafe { std::slice::from_raw_parts_mut(start, self.codec.size) };
        observation::write_mask(game, &self.codec, pending, row);
        Ok(())
    }

    /// The legal ids of the seat to act, ascending.
    fn legal_ids(&self, py: Python<'_>, pending: u64) -> Vec<i64> {
        observation::legal_ids(&self.game.bind(py).borrow().game, &self.codec, pending)
    }

    /// Takes action id `id` for the seat to act: the bury chosen so far (> 0) when it was a
    /// bury step that did not complete the bury, -1 when it applied an action, -2 when that
    /// action changed the scores, -3 when `id` is not legal now (and nothing changed).
    fn step(&self, py: Python<'_>, id: i64, pending: u64) -> PyResult<i64> {
        let bound = self.game.bind(py);
        let mut this = bound.borrow_mut();
        let before = this.game.scores;
        let step = observation::decode(&this.game, &self.codec, pending, id);
        match step {
            IdStep::Illegal => return Ok(ILLEGAL),
            IdStep::Pending(cards) => return Ok(cards as i64),
            _ => this.apply_step(step).map_err(refused)?,
        }
        let scored = this.game.scores != before;
        let over = this.game.result.is_some();
        drop(this);
        if over {
            bound.setattr(intern!(py, "is_over"), true)?;
        }
        Ok(if scored { SCORED } else { APPLIED })
    }
}

/// Registers `TableView` in the module.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<TableView>()
}
