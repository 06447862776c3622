//! `RequestWriter`: the server's `ActionRequest` bytes written by the core from an `EngineGame`
//! (`requests`), one call a request. `rookery.wire.fastpath.RequestEncoder` makes one per table
//! with what `convert` encodes once, and uses it for a game on the core.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::python_engine::EngineGame;
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

/// Registers `RequestWriter` in the module.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<RequestWriter>()
}
