//! `RequestWriter`: the server's `ActionRequest` bytes written by the core from an `EngineGame`
//! (`requests`), one call a request. `rookery.wire.fastpath.RequestEncoder` makes one per table
//! with what `convert` encodes once, and uses it for a game on the core. `RequestReader`: a bot's
//! reading of them (`request_reading`), for the SDK's `rookery.wire.fastpath` reader.

use std::collections::HashMap;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyBytes, PyDict, PyList, PyTuple};

use crate::python_engine::EngineGame;
use crate::request_reading::{self, read_request, split_response, CardTable, PlainTrick};
use crate::requests::{Envelope, RequestTemplate};

/// One table's `ActionRequest` writer: `RequestWriter(ruleset, cards, phases, suits)` with the
/// `Observation.ruleset` field encoded, each card's `Card` message by index, the `Phase` number of
/// each of the core's phases (`Phase`'s order) and the `Suit` number of each suit then of none.
#[pyclass(name = "RequestWriter", module = "rookery_core", frozen)]
pub struct RequestWriter {
    template: RequestTemplate,
}

#[pymethods]
impl RequestWriter {
    #[new]
    fn new(
        ruleset: Vec<u8>,
        cards: Vec<Vec<u8>>,
        phases: Vec<i64>,
        suits: Vec<i64>,
    ) -> PyResult<RequestWriter> {
        let (Ok(phases), Ok(suits)) = (<[i64; 6]>::try_from(phases), <[i64; 5]>::try_from(suits))
        else {
            return Err(PyValueError::new_err(
                "6 phase numbers and 5 suit numbers are needed",
            ));
        };
        if cards.len() != crate::cards::NUM_CARDS as usize {
            return Err(PyValueError::new_err(
                "a Card message for each of the 58 cards is needed",
            ));
        }
        Ok(RequestWriter {
            template: RequestTemplate {
                ruleset,
                cards,
                phases,
                suits,
            },
        })
    }

    /// A `ConnectResponse` carrying the `ActionRequest` of `seat` (its observation now, the
    /// legal actions of the seat to act), as bytes; `table_id` is the encoded
    /// `ActionRequest.table_id` field; with `masks`, the card sets as `card_masks` too.
    #[allow(clippy::too_many_arguments)]
    #[pyo3(signature = (game, table_id, request_id, seat, deadline_ms, bank_ms, last_seq, masks))]
    fn write<'py>(
        &self,
        py: Python<'py>,
        game: PyRef<'py, EngineGame>,
        table_id: &[u8],
        request_id: u64,
        seat: i64,
        deadline_ms: i64,
        bank_ms: i64,
        last_seq: u64,
        masks: bool,
    ) -> PyResult<Bound<'py, PyBytes>> {
        let game = &game.game;
        if !(-1..game.rules.players as i64).contains(&seat) {
            return Err(PyValueError::new_err(format!("not a seat: {seat}")));
        }
        let envelope = Envelope {
            table_id,
            request_id,
            seat,
            deadline_ms,
            bank_ms,
            last_seq,
            masks,
        };
        Ok(PyBytes::new(
            py,
            &self.template.action_request(game, &envelope),
        ))
    }
}

/// Registers `RequestWriter` and `RequestReader` in the module.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<RequestWriter>()?;
    module.add_class::<RequestReader>()
}

/// A bot's reader of the server's messages (`request_reading`): `RequestReader(cards, phases,
/// suits)` with each card's `Card` message by index and the engine's `Phase` and `Suit` by their
/// enum numbers. `rookery.wire.fastpath` makes one and builds the engine's values of its reading.
#[pyclass(name = "RequestReader", module = "rookery_core", frozen)]
pub struct RequestReader {
    cards: CardTable,
    phases: HashMap<i64, PyObject>,
    suits: HashMap<i64, PyObject>,
}

fn by_number(values: &Bound<'_, PyDict>) -> PyResult<HashMap<i64, PyObject>> {
    values
        .iter()
        .map(|(number, value)| Ok((number.extract::<i64>()?, value.unbind())))
        .collect()
}

#[pymethods]
impl RequestReader {
    #[new]
    fn new(
        cards: Vec<Vec<u8>>,
        phases: &Bound<'_, PyDict>,
        suits: &Bound<'_, PyDict>,
    ) -> PyResult<RequestReader> {
        if cards.len() != crate::cards::NUM_CARDS as usize {
            return Err(PyValueError::new_err(
                "a Card message for each of the 58 cards is needed",
            ));
        }
        Ok(RequestReader {
            cards: CardTable::new(&cards),
            phases: by_number(phases)?,
            suits: by_number(suits)?,
        })
    }

    /// A `ConnectResponse`'s messages: `(batched, [(oneof field number, message bytes), …])`,
    /// or `None` for anything but one message or a batch of them.
    #[staticmethod]
    fn split<'py>(py: Python<'py>, data: &[u8]) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let Some((batched, messages)) = split_response(data) else {
            return Ok(None);
        };
        let items = messages
            .into_iter()
            .map(|(number, message)| (number, PyBytes::new(py, message)));
        let items = PyList::new(py, items)?;
        Some((batched, items).into_pyobject(py)).transpose()
    }

    /// An `ActionRequest`'s plain values (see `rookery.wire.fastpath`'s reader for their
    /// order), or `None` outside the regular case. `known` holds each table's `(hand number,
    /// completed tricks)` read before: only the tricks past those of the same hand are read
    /// (from index `since`).
    #[pyo3(signature = (message, known=None))]
    fn read<'py>(
        &self,
        py: Python<'py>,
        message: &[u8],
        known: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Option<Bound<'py, PyTuple>>> {
        let Some(read) = read_request(&self.cards, message) else {
            return Ok(None);
        };
        let (Some(phase), Some(legal_phase)) = (
            self.phases.get(&read.phase),
            self.phases.get(&read.legal_phase),
        ) else {
            return Ok(None);
        };
        let trump = match read.trump {
            0 => py.None(),
            number => match self.suits.get(&number) {
                Some(suit) => suit.clone_ref(py),
                None => return Ok(None),
            },
        };
        if read.suits.iter().any(|suit| !self.suits.contains_key(suit)) {
            return Ok(None);
        }
        let mut since = 0;
        if let Some(known) = known {
            if let Some(entry) = known.get_item(read.table_id)? {
                let (hand, tricks): (i64, Bound<'py, PyTuple>) = entry.extract()?;
                if hand == read.hand_number && tricks.len() <= read.completed.len() {
                    since = tricks.len();
                }
            }
        }
        let mut new_tricks = Vec::with_capacity(read.completed.len() - since);
        for message in &read.completed[since..] {
            match request_reading::trick(&self.cards, message) {
                Some(trick) => new_tricks.push(plain_trick(py, trick)?),
                None => return Ok(None),
            }
        }
        let current = match read.current {
            Some(trick) => plain_trick(py, trick)?.into_any(),
            None => py.None().into_bound(py),
        };
        let [hand, nest, buried, bury_from, call_from, play] = read.masks;
        let items: Vec<PyObject> = vec![
            read.table_id.into_pyobject(py)?.into_any().unbind(),
            read.request_id.into_pyobject(py)?.into_any().unbind(),
            read.deadline_ms.into_pyobject(py)?.into_any().unbind(),
            PyBytes::new(py, read.ruleset).into_any().unbind(),
            read.seat.into_pyobject(py)?.into_any().unbind(),
            read.hand_number.into_pyobject(py)?.into_any().unbind(),
            read.dealer.into_pyobject(py)?.into_any().unbind(),
            phase.clone_ref(py),
            read.current_player.into_pyobject(py)?.into_any().unbind(),
            hand.into_pyobject(py)?.into_any().unbind(),
            nest.into_pyobject(py)?.into_any().unbind(),
            PyTuple::new(py, read.auction)?.into_any().unbind(),
            read.high_bid.into_pyobject(py)?.into_any().unbind(),
            read.high_bidder.into_pyobject(py)?.into_any().unbind(),
            read.bidder.into_pyobject(py)?.into_any().unbind(),
            read.bid.into_pyobject(py)?.into_any().unbind(),
            trump,
            buried.into_pyobject(py)?.into_any().unbind(),
            read.buried_count.into_pyobject(py)?.into_any().unbind(),
            read.called.into_pyobject(py)?.into_any().unbind(),
            read.partner.into_pyobject(py)?.into_any().unbind(),
            current.unbind(),
            since.into_pyobject(py)?.into_any().unbind(),
            PyTuple::new(py, new_tricks)?.into_any().unbind(),
            PyTuple::new(py, read.points_captured)?.into_any().unbind(),
            PyTuple::new(py, read.scores)?.into_any().unbind(),
            PyTuple::new(py, read.sides)?.into_any().unbind(),
            legal_phase.clone_ref(py),
            read.legal_seat.into_pyobject(py)?.into_any().unbind(),
            PyBool::new(py, read.can_pass)
                .to_owned()
                .into_any()
                .unbind(),
            PyTuple::new(py, read.bids)?.into_any().unbind(),
            read.bury_count.into_pyobject(py)?.into_any().unbind(),
            bury_from.into_pyobject(py)?.into_any().unbind(),
            call_from.into_pyobject(py)?.into_any().unbind(),
            play.into_pyobject(py)?.into_any().unbind(),
        ];
        Ok(Some(PyTuple::new(py, items)?))
    }
}

/// A trick's plain values as a tuple `(leader, ((seat, card), …), winner, points)`.
fn plain_trick(py: Python<'_>, trick: PlainTrick) -> PyResult<Bound<'_, PyTuple>> {
    let (leader, cards, winner, points) = trick;
    let cards = PyTuple::new(py, cards)?;
    (leader, cards, winner, points).into_pyobject(py)
}
