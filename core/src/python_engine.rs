//! `rookery.engine.Game`'s hot calls on the core: `EngineGame` (subclassed by the engine's
//! `CoreGame`) and `LegalActions`, both handing out the engine's own values.
//!
//! A random playout through the engine's public API is `legal_actions()`, `sample(rng)` and
//! `apply(action)` per action; here each is one call into Rust with no Python frame: actions are
//! the engine's interned objects (`PLAY[card]`, `PASS`, …), legal actions a small object (filled
//! in again for the next call when nobody else holds it), refusals the engine's own exceptions.
//! `rookery.engine` binds its values once (`bind_engine`); everything else of `Game` (events,
//! observations, results) stays in the engine's Python, built from the plain values of
//! the core's helpers in `python.rs`.

use std::sync::Arc;

use pyo3::exceptions::{PyIndexError, PyRuntimeError, PyTypeError, PyValueError};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyDict, PyInt, PyList, PySlice, PyString, PyTuple, PyType};

use crate::batch::{random_action, Rng};
use crate::cards::NUM_CARDS;
use crate::deal::Deal;
use crate::game::{Game, Phase, Refusal};
use crate::observation::{self, IdStep};
use crate::python::{
    deal_tuple, event_tuple, game_result_dict, hand_result_dict, legal_tuple, observation_fields,
    PyRules,
};

/// The engine's values the core hands out, bound once by `rookery.engine` (`bind_engine`).
struct Engine {
    play: Vec<PyObject>,
    trump: Vec<PyObject>,
    pass: PyObject,
    phases: Vec<PyObject>,
    suits: Vec<PyObject>,
    play_card: Py<PyType>,
    bid: Py<PyType>,
    pass_type: Py<PyType>,
    name_trump: Py<PyType>,
    bury: Py<PyType>,
    call_card: Py<PyType>,
    suit: Py<PyType>,
    bid_action: PyObject,
    other_legal: PyObject,
    rebuild_legal: PyObject,
    format_cards: PyObject,
    malformed: Py<PyType>,
    illegal: Py<PyType>,
    game_over: Py<PyType>,
}

static ENGINE: GILOnceCell<Engine> = GILOnceCell::new();

fn engine(py: Python<'_>) -> PyResult<&Engine> {
    ENGINE
        .get(py)
        .ok_or_else(|| PyRuntimeError::new_err("rookery_core: bind_engine was not called"))
}

fn item<'py>(values: &Bound<'py, PyDict>, key: &str) -> PyResult<Bound<'py, PyAny>> {
    values
        .get_item(key)?
        .ok_or_else(|| PyValueError::new_err(format!("bind_engine: no {key}")))
}

fn objects(values: &Bound<'_, PyDict>, key: &str) -> PyResult<Vec<PyObject>> {
    item(values, key)?
        .try_iter()?
        .map(|value| value.map(Bound::unbind))
        .collect()
}

fn class(values: &Bound<'_, PyDict>, key: &str) -> PyResult<Py<PyType>> {
    Ok(item(values, key)?.downcast_into::<PyType>()?.unbind())
}

/// Binds the engine's values (`rookery.engine._core_game` calls it once, at import): the
/// interned actions, the phases and suits, the action and exception classes, and the helpers
/// for the rare legal actions (`other_legal`), pickling (`rebuild_legal`) and `format_cards`.
#[pyfunction]
pub fn bind_engine(values: &Bound<'_, PyDict>) -> PyResult<()> {
    let py = values.py();
    let bound = Engine {
        play: objects(values, "PLAY")?,
        trump: objects(values, "TRUMP")?,
        pass: item(values, "PASS")?.unbind(),
        phases: objects(values, "phases")?,
        suits: objects(values, "suits")?,
        play_card: class(values, "PlayCard")?,
        bid: class(values, "Bid")?,
        pass_type: class(values, "Pass")?,
        name_trump: class(values, "NameTrump")?,
        bury: class(values, "Bury")?,
        call_card: class(values, "CallCard")?,
        suit: class(values, "Suit")?,
        bid_action: item(values, "bid_action")?.unbind(),
        other_legal: item(values, "other_legal")?.unbind(),
        rebuild_legal: item(values, "rebuild_legal")?.unbind(),
        format_cards: item(values, "format_cards")?.unbind(),
        malformed: class(values, "MalformedActionError")?,
        illegal: class(values, "IllegalActionError")?,
        game_over: class(values, "GameOverError")?,
    };
    if bound.play.len() != NUM_CARDS as usize || bound.trump.len() != 4 || bound.phases.len() != 6 {
        return Err(PyValueError::new_err(
            "bind_engine: PLAY, TRUMP or phases of a wrong size",
        ));
    }
    // Bound once per process: a second binding (a reloaded engine) keeps the first.
    let _ = ENGINE.set(py, bound);
    Ok(())
}

/// The engine's exception for a refusal of the core.
fn engine_error(engine: &Engine, py: Python<'_>, refusal: Refusal) -> PyErr {
    match refusal {
        Refusal::Malformed(message) => PyErr::from_type(engine.malformed.bind(py).clone(), message),
        Refusal::Illegal(reason, message) => {
            PyErr::from_type(engine.illegal.bind(py).clone(), (reason, message))
        }
        Refusal::GameOver(message) => PyErr::from_type(engine.game_over.bind(py).clone(), message),
    }
}

fn malformed(engine: &Engine, py: Python<'_>, message: String) -> PyErr {
    PyErr::from_type(engine.malformed.bind(py).clone(), message)
}

/// `value` as an `i64` if it is exactly an `int` (not a `bool`, not a subclass) that fits.
fn exact_int(value: &Bound<'_, PyAny>) -> Option<PyResult<i64>> {
    if !value.is_exact_instance_of::<PyInt>() {
        return None;
    }
    Some(value.extract::<i64>())
}

/// A card index of an action, or the engine's `MalformedActionError` (`what`: play, call).
fn card_of(engine: &Engine, card: &Bound<'_, PyAny>, what: &str) -> PyResult<i64> {
    if let Some(Ok(index)) = exact_int(card) {
        if (0..NUM_CARDS as i64).contains(&index) {
            return Ok(index);
        }
    }
    Err(malformed(
        engine,
        card.py(),
        format!(
            "{what}: not a card index 0..{}: {}",
            NUM_CARDS - 1,
            card.repr()?
        ),
    ))
}

/// `value.name()`, without the bound method `Bound::call_method0` makes under the stable ABI.
fn call_method0<'py>(
    value: &Bound<'py, PyAny>,
    name: &Bound<'py, PyString>,
) -> PyResult<Bound<'py, PyAny>> {
    // SAFETY: both pointers are live references for the call; the argument list ends in NULL.
    unsafe {
        let result = pyo3::ffi::PyObject_CallMethodObjArgs(
            value.as_ptr(),
            name.as_ptr(),
            std::ptr::null_mut::<pyo3::ffi::PyObject>(),
        );
        Bound::from_owned_ptr_or_err(value.py(), result)
    }
}

/// One game on the core with `rookery.engine.Game`'s hot calls (`apply`, `legal_actions`,
/// `is_over`, …); `rookery.engine`'s `CoreGame` subclasses it for the rest of the API.
#[pyclass(name = "EngineGame", module = "rookery_core", subclass)]
pub struct EngineGame {
    pub(crate) game: Game,
    /// Every action applied: the seat, its kind and its value (no Python object per action).
    actions: Vec<Applied>,
    /// The legal actions last handed out, filled in again for the next call when nobody else
    /// holds them (no allocation per action; an object someone keeps is never changed).
    legal: Option<Py<LegalActions>>,
}

/// One applied action: the seat and the action (its kind's value: a card, an amount, a suit,
/// a mask).
#[derive(Clone, Copy)]
struct Applied {
    seat: u8,
    kind: Kind,
    value: i64,
}

#[derive(Clone, Copy)]
enum Kind {
    Play,
    Pass,
    Bid,
    Trump,
    Bury,
    Call,
}

impl EngineGame {
    /// A game starting at `game` (no actions applied yet).
    pub(crate) fn of(game: Game) -> EngineGame {
        EngineGame {
            game,
            actions: Vec::new(),
            legal: None,
        }
    }

    fn record(&mut self, seat: i32, kind: Kind, value: i64) {
        self.actions.push(Applied {
            seat: seat as u8,
            kind,
            value,
        });
    }

    /// Applies the action of `step` for the seat to act and records it.
    pub(crate) fn apply_step(&mut self, step: IdStep) -> Result<(), Refusal> {
        let seat = self.game.current;
        observation::apply(&mut self.game, step)?;
        if let Some((kind, value)) = Kind::of(step) {
            self.record(seat, kind, value);
        }
        Ok(())
    }
}

impl Kind {
    /// The kind and value of the action of `step` (none for a bury in progress).
    fn of(step: IdStep) -> Option<(Kind, i64)> {
        Some(match step {
            IdStep::Pass => (Kind::Pass, 0),
            IdStep::Bid(amount) => (Kind::Bid, amount),
            IdStep::Trump(suit) => (Kind::Trump, suit),
            IdStep::Bury(cards) => (Kind::Bury, cards as i64),
            IdStep::Call(card) => (Kind::Call, card),
            IdStep::Play(card) => (Kind::Play, card),
            IdStep::Pending(_) | IdStep::Illegal => return None,
        })
    }
}

impl Applied {
    /// The engine's action object.
    fn action(&self, py: Python<'_>, engine: &Engine) -> PyResult<PyObject> {
        let value = self.value;
        Ok(match self.kind {
            Kind::Play => engine.play[value as usize].clone_ref(py),
            Kind::Pass => engine.pass.clone_ref(py),
            Kind::Bid => engine.bid_action.call1(py, (value,))?,
            Kind::Trump => engine.trump[value as usize].clone_ref(py),
            Kind::Bury => engine.bury.bind(py).call1((value as u64,))?.unbind(),
            Kind::Call => engine.call_card.bind(py).call1((value,))?.unbind(),
        })
    }
}

#[pymethods]
impl EngineGame {
    /// A new game of `rules` (`source`: an `EngineGame` to start from, actions included: a copy,
    /// or a game from a deal made by `_from_deal`).
    #[new]
    #[pyo3(signature = (rules, seed, events = true, source = None))]
    fn new(
        py: Python<'_>,
        rules: &PyRules,
        seed: u64,
        events: bool,
        source: Option<&Bound<'_, EngineGame>>,
    ) -> PyResult<EngineGame> {
        engine(py)?;
        let Some(source) = source else {
            return Ok(EngineGame::of(Game::new(
                Arc::clone(&rules.rules),
                seed,
                events,
            )));
        };
        let other = source.borrow();
        Ok(EngineGame {
            game: other.game.clone(),
            actions: other.actions.clone(),
            legal: None,
        })
    }

    /// A game whose current hand is the deal `(hands, nest, dead)` (for `CoreGame.from_deal`,
    /// which checks the arguments first).
    #[staticmethod]
    #[pyo3(signature = (rules, hands, nest, dead, *, seed = 0, dealer = None, hand_number = 0, scores = None, events = true))]
    #[allow(clippy::too_many_arguments)]
    fn _from_deal(
        py: Python<'_>,
        rules: &PyRules,
        hands: Vec<u64>,
        nest: u64,
        dead: u64,
        seed: u64,
        dealer: Option<usize>,
        hand_number: i64,
        scores: Option<Vec<i64>>,
        events: bool,
    ) -> PyResult<EngineGame> {
        engine(py)?;
        let rules = Arc::clone(&rules.rules);
        if hands.len() != rules.players {
            return Err(PyValueError::new_err(
                "the deal is not a partition of the deck over the seats",
            ));
        }
        let mut deal = Deal {
            hands: [0; 6],
            nest,
            dead,
        };
        deal.hands[..hands.len()].copy_from_slice(&hands);
        let scores = scores.unwrap_or_else(|| vec![0; rules.num_sides]);
        let dealer = dealer.unwrap_or(rules.first_dealer);
        Game::from_deal(rules, deal, seed, dealer, hand_number, &scores, events)
            .map(EngineGame::of)
            .map_err(PyValueError::new_err)
    }

    /// Plays the game out with random legal actions from a generator seeded `rng_seed` (bids:
    /// pass or the lowest bid, even odds; else uniform), recording them; returns their number.
    fn random_playout(slf: &Bound<'_, Self>, rng_seed: u64) -> PyResult<usize> {
        let mut rng = Rng::new(rng_seed);
        let mut count = 0;
        {
            let mut this = slf.borrow_mut();
            while !this.game.is_over() {
                let seat = this.game.current;
                let Some((kind, value)) = Kind::of(random_action(&mut this.game, &mut rng)) else {
                    break;
                };
                this.record(seat, kind, value);
                count += 1;
            }
        }
        if !slf.is_exact_instance_of::<EngineGame>() {
            slf.setattr(intern!(slf.py(), "is_over"), true)?;
        }
        Ok(count)
    }

    // The engine's values --------------------------------------------------------------------

    /// Whether the game has ended (the subclass's `is_over` attribute, which `apply` sets when
    /// the game ends, reads as a plain attribute).
    fn _has_ended(&self) -> bool {
        self.game.result.is_some()
    }

    /// What the game waits for (a `Phase`).
    #[getter]
    fn phase(&self, py: Python<'_>) -> PyResult<PyObject> {
        Ok(engine(py)?.phases[self.game.phase as usize].clone_ref(py))
    }

    /// The seat to act; `None` once the game is over.
    #[getter]
    fn current_player(&self) -> Option<i32> {
        (self.game.current >= 0).then_some(self.game.current)
    }

    /// The game seed every deal derives from.
    #[getter]
    fn seed(&self) -> u64 {
        self.game.seed
    }

    /// The 0-based number of the current hand; void (all-pass) hands count.
    #[getter]
    fn hand_number(&self) -> i64 {
        self.game.hand_number
    }

    /// The dealer of the current hand.
    #[getter]
    fn dealer(&self) -> usize {
        self.game.dealer
    }

    /// The bidder of the current hand (-1 during the auction).
    #[getter]
    fn bidder(&self) -> i32 {
        self.game.bidder
    }

    /// The trump suit of the current hand (a `Suit`), once named.
    #[getter]
    fn trump(&self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        let trump = self.game.trump;
        Ok((trump >= 0)
            .then(|| engine(py).map(|e| e.suits[trump as usize].clone_ref(py)))
            .transpose()?)
    }

    /// Cumulative scores per side of the hands scored so far.
    #[getter]
    fn scores<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.game.scores[..self.game.rules.num_sides])
    }

    /// Every seat's cards now. Server side only.
    #[getter]
    fn hands<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.game.hands[..self.game.rules.players])
    }

    /// The `seq` of the latest event (0 before the first, and when events are off).
    #[getter]
    fn last_seq(&self) -> usize {
        self.game.events.len()
    }

    /// `(seat, reason)` once a seat forfeited the game, else `None`.
    #[getter]
    fn forfeited(&self) -> Option<(usize, String)> {
        self.game.forfeit.clone()
    }

    /// Whether the game was aborted.
    #[getter]
    fn is_aborted(&self) -> bool {
        self.game.aborted
    }

    /// Every action applied so far as `(seat, action)`.
    #[getter]
    fn actions<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let engine = engine(py)?;
        let items: PyResult<Vec<(u8, PyObject)>> = self
            .actions
            .iter()
            .map(|applied| Ok((applied.seat, applied.action(py, engine)?)))
            .collect();
        PyList::new(py, items?)
    }

    // Legal actions and applying them ---------------------------------------------------------

    /// Every legal action of the player to act (empty once the game is over).
    fn legal_actions(&mut self, py: Python<'_>) -> PyResult<PyObject> {
        let game = &self.game;
        let (phase, mask) = match game.phase {
            Phase::Play => (Phase::Play, game.legal_play_mask()),
            Phase::Bidding => (Phase::Bidding, 0),
            _ => return engine(py)?.other_legal.call1(py, legal_tuple(py, game)?),
        };
        let fill = |legal: &mut LegalActions| {
            legal.phase = phase;
            legal.player = game.current;
            legal.mask = mask;
            legal.bids.clear();
            if phase == Phase::Bidding {
                let rules = &game.rules;
                let mut amount = game.lowest_bid();
                while amount <= rules.effective_max_bid {
                    legal.bids.push(amount);
                    amount += rules.bid_step;
                }
            }
        };
        if let Some(cached) = &self.legal {
            // Held by this game alone: nobody can see it change.
            if cached.get_refcnt(py) == 1 {
                if let Ok(mut legal) = cached.bind(py).try_borrow_mut() {
                    fill(&mut legal);
                    return Ok(cached.clone_ref(py).into_any());
                }
            }
        }
        let mut legal = LegalActions {
            phase,
            player: 0,
            mask: 0,
            bids: Vec::new(),
        };
        fill(&mut legal);
        let made = Py::new(py, legal)?;
        self.legal = Some(made.clone_ref(py));
        Ok(made.into_any())
    }

    /// Apply `action` for the player to act: `MalformedActionError` or `IllegalActionError`
    /// (the pure engine's, with its reason and message) and then nothing changes.
    fn apply(slf: &Bound<'_, Self>, action: &Bound<'_, PyAny>) -> PyResult<()> {
        let py = slf.py();
        let engine = engine(py)?;
        let kind = action.get_type();
        if kind.is(engine.play_card.bind(py)) {
            let card = card_of(engine, &action.getattr(intern!(py, "card"))?, "play")?;
            let mut this = slf.borrow_mut();
            let seat = this.game.current;
            this.game
                .play(card)
                .map_err(|refusal| engine_error(engine, py, refusal))?;
            this.record(seat, Kind::Play, card);
        } else if kind.is(engine.pass_type.bind(py)) {
            let mut this = slf.borrow_mut();
            let seat = this.game.current;
            this.game
                .pass()
                .map_err(|refusal| engine_error(engine, py, refusal))?;
            this.record(seat, Kind::Pass, 0);
        } else if kind.is(engine.bid.bind(py)) {
            let amount = action.getattr(intern!(py, "amount"))?;
            match exact_int(&amount) {
                None => {
                    return Err(malformed(
                        engine,
                        py,
                        format!("a bid amount must be an int, got {}", amount.repr()?),
                    ))
                }
                // Past 64 bits: refused by the engine's own order of checks.
                Some(Err(_)) => {
                    slf.call_method1(intern!(py, "_refuse_bid"), (amount,))?;
                    return Err(PyRuntimeError::new_err("_refuse_bid did not refuse"));
                }
                Some(Ok(value)) => {
                    let mut this = slf.borrow_mut();
                    let seat = this.game.current;
                    this.game
                        .bid(value)
                        .map_err(|refusal| engine_error(engine, py, refusal))?;
                    this.record(seat, Kind::Bid, value);
                }
            }
        } else if kind.is(engine.name_trump.bind(py)) {
            let suit = action.getattr(intern!(py, "suit"))?;
            let index = if suit.get_type().is(engine.suit.bind(py)) {
                Some(suit.extract::<i64>()?)
            } else {
                match exact_int(&suit) {
                    Some(Ok(index)) if (0..4).contains(&index) => Some(index),
                    _ => None,
                }
            };
            let Some(index) = index else {
                return Err(malformed(
                    engine,
                    py,
                    format!("not a suit: {}", suit.repr()?),
                ));
            };
            let mut this = slf.borrow_mut();
            let seat = this.game.current;
            this.game
                .name_trump(index)
                .map_err(|refusal| engine_error(engine, py, refusal))?;
            this.record(seat, Kind::Trump, index);
        } else if kind.is(engine.bury.bind(py)) {
            let cards = action.getattr(intern!(py, "cards"))?;
            let negative = || -> PyResult<bool> { cards.lt(0) };
            if !cards.is_exact_instance_of::<PyInt>() || negative()? {
                return Err(malformed(
                    engine,
                    py,
                    format!(
                        "a bury must be a card mask (non-negative int), got {}",
                        cards.repr()?
                    ),
                ));
            }
            let Ok(mask) = cards.extract::<u64>() else {
                // Past 64 bits: never in a deck (the message names the cards outside it).
                slf.call_method1(intern!(py, "_refuse_bury"), (cards,))?;
                return Err(PyRuntimeError::new_err("_refuse_bury did not refuse"));
            };
            let mut this = slf.borrow_mut();
            let seat = this.game.current;
            this.game
                .bury(mask)
                .map_err(|refusal| engine_error(engine, py, refusal))?;
            this.record(seat, Kind::Bury, mask as i64);
        } else if kind.is(engine.call_card.bind(py)) {
            let card = card_of(engine, &action.getattr(intern!(py, "card"))?, "call")?;
            let mut this = slf.borrow_mut();
            let seat = this.game.current;
            this.game
                .call(card)
                .map_err(|refusal| engine_error(engine, py, refusal))?;
            this.record(seat, Kind::Call, card);
        } else {
            return Err(malformed(
                engine,
                py,
                format!("not an action: {}", action.repr()?),
            ));
        }
        if slf.borrow().game.result.is_some() {
            slf.setattr(intern!(py, "is_over"), true)?;
        }
        Ok(())
    }

    // Plain values for the engine's Python (`CoreGame`) ---------------------------------------

    /// Whether the game records events.
    fn _events_enabled(&self) -> bool {
        self.game.events_on
    }

    /// `forfeit(seat, reason)` on the core (the caller checked the seat and the game's end).
    fn _forfeit(&mut self, py: Python<'_>, seat: usize, reason: &str) -> PyResult<()> {
        let engine = engine(py)?;
        self.game
            .forfeit(seat, reason)
            .map_err(|refusal| engine_error(engine, py, refusal))
    }

    /// `abort()` on the core.
    fn _abort(&mut self, py: Python<'_>) -> PyResult<()> {
        let engine = engine(py)?;
        self.game
            .abort()
            .map_err(|refusal| engine_error(engine, py, refusal))
    }

    /// The game result as a dict of plain values, or `None`.
    fn _result_plain<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        self.game
            .result
            .as_ref()
            .map(|result| game_result_dict(py, result))
            .transpose()
    }

    /// The hand results from index `start` on, as dicts of plain values.
    fn _hand_results_plain<'py>(
        &self,
        py: Python<'py>,
        start: usize,
    ) -> PyResult<Bound<'py, PyList>> {
        let results = &self.game.hand_results;
        let items: PyResult<Vec<_>> = results[start.min(results.len())..]
            .iter()
            .map(|result| hand_result_dict(py, &self.game.rules, result))
            .collect();
        PyList::new(py, items?)
    }

    /// The current hand's deal as `(hands, nest, dead)`.
    fn _deal_plain(&self) -> (Vec<u64>, u64, u64) {
        deal_tuple(&self.game.rules, &self.game.deal)
    }

    /// The events after `seq` as tuples `(kind, hand_number, *fields)`.
    fn _events_plain<'py>(&self, py: Python<'py>, seq: usize) -> PyResult<Bound<'py, PyList>> {
        let events = &self.game.events;
        let items: PyResult<Vec<_>> = events[seq.min(events.len())..]
            .iter()
            .map(|event| event_tuple(py, &self.game.rules, event))
            .collect();
        PyList::new(py, items?)
    }

    /// `observation(seat)`'s values as one tuple in `Observation`'s field order (from `seat`
    /// to `scores`), the phase as its index, the completed tricks only from index `since` on.
    fn _observation_fields<'py>(
        &self,
        py: Python<'py>,
        seat: i64,
        since: usize,
    ) -> PyResult<Bound<'py, PyTuple>> {
        observation_fields(py, &self.game, seat, since)
    }
}

/// The legal actions of the auction or of the play, as `rookery.engine.LegalActions` gives them
/// (registered as one of its virtual subclasses): a lazy, immutable sequence of the engine's
/// interned actions.
#[pyclass(name = "LegalActions", module = "rookery_core", sequence)]
pub struct LegalActions {
    phase: Phase,
    player: i32,
    /// The cards that may be played (PLAY).
    mask: u64,
    /// The amounts that may be bid, ascending (BIDDING; passing is always legal).
    bids: Vec<i64>,
}

/// The index of the `index`-th lowest set bit of `mask`, if there are that many.
fn nth_bit(mut mask: u64, index: usize) -> Option<u32> {
    for _ in 0..index {
        mask &= mask.wrapping_sub(1);
    }
    (mask != 0).then(|| mask.trailing_zeros())
}

impl LegalActions {
    fn size(&self) -> usize {
        match self.phase {
            Phase::Play => self.mask.count_ones() as usize,
            _ => self.bids.len() + 1,
        }
    }

    /// The action at `index` (in `0..size()`).
    fn at(&self, py: Python<'_>, engine: &Engine, index: usize) -> PyResult<PyObject> {
        match self.phase {
            Phase::Play => match nth_bit(self.mask, index) {
                Some(card) => Ok(engine.play[card as usize].clone_ref(py)),
                None => Err(PyIndexError::new_err("legal action index out of range")),
            },
            _ if index == 0 => Ok(engine.pass.clone_ref(py)),
            _ => match self.bids.get(index - 1) {
                Some(&amount) => engine.bid_action.call1(py, (amount,)),
                None => Err(PyIndexError::new_err("legal action index out of range")),
            },
        }
    }

    fn items(&self, py: Python<'_>) -> PyResult<Vec<PyObject>> {
        let engine = engine(py)?;
        (0..self.size())
            .map(|index| self.at(py, engine, index))
            .collect()
    }

    fn key<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let engine = engine(py)?;
        let (mask, count) = match self.phase {
            Phase::Play => (self.mask, 0),
            _ => (0, 1),
        };
        (
            engine.phases[self.phase as usize].clone_ref(py),
            self.player,
            mask,
            PyTuple::new(py, &self.bids)?,
            count,
        )
            .into_pyobject(py)
    }
}

#[pymethods]
impl LegalActions {
    /// The phase these actions belong to.
    #[getter]
    fn phase(&self, py: Python<'_>) -> PyResult<PyObject> {
        Ok(engine(py)?.phases[self.phase as usize].clone_ref(py))
    }

    /// The seat to act.
    #[getter]
    fn player(&self) -> i32 {
        self.player
    }

    /// Whether passing is legal (always, during the auction).
    #[getter]
    fn can_pass(&self) -> bool {
        self.phase == Phase::Bidding
    }

    /// Every legal bid amount, ascending.
    #[getter]
    fn bids<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.bids)
    }

    /// The suits that may be named trump (none here).
    #[getter]
    fn suits<'py>(&self, py: Python<'py>) -> Bound<'py, PyTuple> {
        PyTuple::empty(py)
    }

    /// The mask of the cards that may be buried (none here).
    #[getter]
    fn bury_from(&self) -> u64 {
        0
    }

    /// How many cards must be buried (none here).
    #[getter]
    fn bury_count(&self) -> u64 {
        0
    }

    /// The mask of the cards that may be called (none here).
    #[getter]
    fn call_from(&self) -> u64 {
        0
    }

    /// The mask of the cards that may be played.
    #[getter]
    fn play(&self) -> u64 {
        if self.phase == Phase::Play {
            self.mask
        } else {
            0
        }
    }

    fn __len__(&self) -> usize {
        self.size()
    }

    fn __getitem__(&self, py: Python<'_>, index: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        let size = self.size() as isize;
        if let Ok(slice) = index.downcast::<PySlice>() {
            let indices = slice.indices(size)?;
            let engine = engine(py)?;
            let mut items = Vec::new();
            let mut at = indices.start;
            while (indices.step > 0 && at < indices.stop) || (indices.step < 0 && at > indices.stop)
            {
                items.push(self.at(py, engine, at as usize)?);
                at += indices.step;
            }
            return Ok(PyTuple::new(py, items)?.into_any().unbind());
        }
        let mut at: isize = index.extract().map_err(|_| {
            PyTypeError::new_err(format!(
                "legal action indices must be integers or slices, not {}",
                index
                    .get_type()
                    .name()
                    .map(|n| n.to_string())
                    .unwrap_or_default()
            ))
        })?;
        if at < 0 {
            at += size;
        }
        if !(0..size).contains(&at) {
            return Err(PyIndexError::new_err("legal action index out of range"));
        }
        self.at(py, engine(py)?, at as usize)
    }

    fn __iter__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        Ok(PyTuple::new(py, self.items(py)?)?
            .into_any()
            .try_iter()?
            .into_any())
    }

    fn __contains__(&self, action: &Bound<'_, PyAny>) -> PyResult<bool> {
        let py = action.py();
        let engine = engine(py)?;
        match self.phase {
            Phase::Play => {
                if !action.get_type().is(engine.play_card.bind(py)) {
                    return Ok(false);
                }
                let card = action.getattr(intern!(py, "card"))?;
                Ok(match exact_int(&card) {
                    Some(Ok(card)) if (0..NUM_CARDS as i64).contains(&card) => {
                        self.mask >> card & 1 == 1
                    }
                    _ => false,
                })
            }
            _ => {
                if action.is_instance(engine.pass_type.bind(py))? {
                    return Ok(true);
                }
                if !action.is_instance(engine.bid.bind(py))? {
                    return Ok(false);
                }
                // Python's `in` over the amounts, as the pure engine compares them.
                PyTuple::new(py, &self.bids)?.contains(action.getattr(intern!(py, "amount"))?)
            }
        }
    }

    /// One legal action drawn uniformly with `rng` (one `rng.random()`, the pure engine's draw).
    fn sample(&self, py: Python<'_>, rng: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        let engine = engine(py)?;
        let size = self.size();
        if size == 0 {
            return Err(PyIndexError::new_err("no legal action to sample"));
        }
        let draw: f64 = call_method0(rng, intern!(py, "random"))?.extract()?;
        let index = (draw * size as f64) as usize;
        self.at(py, engine, index)
    }

    /// The index of the first `action` (`Sequence.index`).
    #[pyo3(signature = (action, start = 0, stop = None))]
    fn index(
        &self,
        py: Python<'_>,
        action: &Bound<'_, PyAny>,
        start: isize,
        stop: Option<isize>,
    ) -> PyResult<usize> {
        let size = self.size() as isize;
        let clamp = |at: isize| {
            if at < 0 {
                (at + size).max(0)
            } else {
                at.min(size)
            }
        };
        let (start, stop) = (clamp(start), clamp(stop.unwrap_or(size)));
        let engine = engine(py)?;
        for at in start..stop {
            if self.at(py, engine, at as usize)?.bind(py).eq(action)? {
                return Ok(at as usize);
            }
        }
        Err(PyValueError::new_err("action is not in the legal actions"))
    }

    /// How many times `action` occurs (`Sequence.count`: 0 or 1).
    fn count(&self, py: Python<'_>, action: &Bound<'_, PyAny>) -> PyResult<usize> {
        let mut count = 0;
        for item in self.items(py)? {
            if item.bind(py).eq(action)? {
                count += 1;
            }
        }
        Ok(count)
    }

    fn __reversed__<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let mut items = self.items(py)?;
        items.reverse();
        Ok(PyTuple::new(py, items)?.into_any().try_iter()?.into_any())
    }

    /// `(phase, player, mask, bids, count)`, as `rookery.engine.LegalActions` compares them.
    fn _key<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        self.key(py)
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        if !other.hasattr(intern!(py, "_key"))? || !other.hasattr(intern!(py, "sample"))? {
            return Ok(py.NotImplemented());
        }
        let equal = self.key(py)?.eq(other.call_method0(intern!(py, "_key"))?)?;
        Ok(equal.into_pyobject(py)?.to_owned().into_any().unbind())
    }

    fn __hash__(&self, py: Python<'_>) -> PyResult<isize> {
        self.key(py)?.hash()
    }

    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(PyObject, Bound<'py, PyTuple>)> {
        Ok((engine(py)?.rebuild_legal.clone_ref(py), self.key(py)?))
    }

    fn __repr__(&self, py: Python<'_>) -> PyResult<String> {
        let engine = engine(py)?;
        let name = self.phase.name();
        Ok(match self.phase {
            Phase::Play => format!(
                "LegalActions({name}, player={}, play={})",
                self.player,
                engine
                    .format_cards
                    .call1(py, (self.mask,))?
                    .bind(py)
                    .repr()?
            ),
            _ => format!(
                "LegalActions({name}, player={}, can_pass=True, bids={})",
                self.player,
                PyTuple::new(py, &self.bids)?.repr()?
            ),
        })
    }
}

/// Registers `EngineGame`, `LegalActions` and `bind_engine` in the module.
pub fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<EngineGame>()?;
    module.add_class::<LegalActions>()?;
    module.add_function(wrap_pyfunction!(bind_engine, module)?)?;
    Ok(())
}
