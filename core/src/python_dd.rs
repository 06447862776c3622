//! The Python bindings of the double-dummy solver: `DoubleDummy` and `dd_exhaustive`.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use crate::dd::{exhaustive, DdPosition, DdRules, DdSolver, Known};

fn position(hands: Vec<u64>, leader: usize, trick: Vec<u8>) -> PyResult<DdPosition> {
    if hands.len() > 6 {
        return Err(PyValueError::new_err(format!(
            "at most 6 hands, got {}",
            hands.len()
        )));
    }
    if trick.len() > 5 {
        return Err(PyValueError::new_err(format!(
            "the open trick holds at most 5 cards, got {}",
            trick.len()
        )));
    }
    let mut pos = DdPosition {
        hands: [0; 6],
        leader,
        trick: [0; 6],
        trick_len: trick.len(),
    };
    pos.hands[..hands.len()].copy_from_slice(&hands);
    pos.trick[..trick.len()].copy_from_slice(&trick);
    Ok(pos)
}

fn dd_rules(
    players: usize,
    trump: u32,
    side: u32,
    rook_free_play: bool,
    last_trick_bonus: i64,
) -> DdRules {
    DdRules {
        players,
        trump,
        rook_free_play,
        last_trick_bonus,
        side,
    }
}

/// One deal's double-dummy solver (its table kept between positions of the deal); with a
/// `node_limit`, a search past that many nodes raises `ValueError` (the table stays exact).
#[pyclass(name = "DoubleDummy", module = "rookery_core")]
pub struct PyDoubleDummy {
    solver: DdSolver,
}

#[pymethods]
impl PyDoubleDummy {
    #[new]
    #[pyo3(signature = (players, trump, side, rook_free_play=false, last_trick_bonus=0, node_limit=0, table_limit=1 << 20))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        players: usize,
        trump: u32,
        side: u32,
        rook_free_play: bool,
        last_trick_bonus: i64,
        node_limit: u64,
        table_limit: usize,
    ) -> PyResult<PyDoubleDummy> {
        if table_limit < 2 {
            return Err(PyValueError::new_err(format!(
                "table_limit must be at least 2, got {table_limit}"
            )));
        }
        let rules = dd_rules(players, trump, side, rook_free_play, last_trick_bonus);
        let mut solver = DdSolver::new(rules).map_err(PyValueError::new_err)?;
        solver.node_limit = node_limit;
        solver.table_limit = table_limit;
        Ok(PyDoubleDummy { solver })
    }

    /// The points the side takes from the position to the end of the hand (the open trick's,
    /// the tricks left, the last trick's bonus) under perfect play by both sides.
    ///
    /// `at_least` / `at_most`: a bound on the value the caller knows holds (the value after the
    /// card the seat to play played, say); the search tests the value next to it first. A
    /// bound that does not hold gives a wrong value.
    #[pyo3(signature = (hands, leader, trick=Vec::new(), at_least=None, at_most=None))]
    fn solve(
        &mut self,
        py: Python<'_>,
        hands: Vec<u64>,
        leader: usize,
        trick: Vec<u8>,
        at_least: Option<i64>,
        at_most: Option<i64>,
    ) -> PyResult<i64> {
        let pos = position(hands, leader, trick)?;
        let solver = &mut self.solver;
        let known = Known { at_least, at_most };
        py.allow_threads(|| solver.solve_known(&pos, known))
            .map_err(PyValueError::new_err)
    }

    /// `(lower, upper)`: what the searches prove of the value within the node limit, the
    /// value twice when solved; when the limit stops them, the bounds proved so far (the
    /// limit raises nothing here). `test_first`: the first search tests "the value is that or
    /// more" (whether a contract makes), so that answer comes first. `only_above`: a value at
    /// or below it does not matter; the searches stop once the upper bound reaches it.
    #[pyo3(signature = (hands, leader, trick=Vec::new(), at_least=None, at_most=None, test_first=None, only_above=None))]
    #[allow(clippy::too_many_arguments)]
    fn bounds(
        &mut self,
        py: Python<'_>,
        hands: Vec<u64>,
        leader: usize,
        trick: Vec<u8>,
        at_least: Option<i64>,
        at_most: Option<i64>,
        test_first: Option<i64>,
        only_above: Option<i64>,
    ) -> PyResult<(i64, i64)> {
        let pos = position(hands, leader, trick)?;
        let solver = &mut self.solver;
        let known = Known { at_least, at_most };
        let proved = py
            .allow_threads(|| solver.bounds(&pos, known, test_first, only_above))
            .map_err(PyValueError::new_err)?;
        Ok((proved.lower, proved.upper))
    }

    /// `(card, value)` for every legal card of the seat to play, ascending.
    #[pyo3(signature = (hands, leader, trick=Vec::new()))]
    fn card_values(
        &mut self,
        py: Python<'_>,
        hands: Vec<u64>,
        leader: usize,
        trick: Vec<u8>,
    ) -> PyResult<Vec<(u32, i64)>> {
        let pos = position(hands, leader, trick)?;
        let solver = &mut self.solver;
        py.allow_threads(|| solver.card_values(&pos))
            .map_err(PyValueError::new_err)
    }

    /// Empties the table.
    fn clear(&mut self) {
        self.solver.clear();
    }

    /// The nodes searched so far.
    #[getter]
    fn nodes(&self) -> u64 {
        self.solver.nodes
    }

    /// The entries in the table (each holds for every position alike in the cards its
    /// result depends on).
    #[getter]
    fn table_size(&self) -> usize {
        self.solver.table_len()
    }
}

/// The plain minimax's value (every card of every seat searched): the solver's reference on
/// small positions.
#[pyfunction]
#[pyo3(signature = (players, trump, side, hands, leader, trick=Vec::new(), rook_free_play=false, last_trick_bonus=0))]
#[allow(clippy::too_many_arguments)]
fn dd_exhaustive(
    players: usize,
    trump: u32,
    side: u32,
    hands: Vec<u64>,
    leader: usize,
    trick: Vec<u8>,
    rook_free_play: bool,
    last_trick_bonus: i64,
) -> PyResult<i64> {
    let rules = dd_rules(players, trump, side, rook_free_play, last_trick_bonus);
    let pos = position(hands, leader, trick)?;
    exhaustive(&rules, &pos).map_err(PyValueError::new_err)
}

/// Adds the solver's names to the module.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<PyDoubleDummy>()?;
    module.add_function(wrap_pyfunction!(dd_exhaustive, module)?)?;
    Ok(())
}
