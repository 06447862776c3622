//! `rookery_core`: Rookery's native Rook core. The whole game of every preset (`game`), dealt
//! exactly as the pure engine deals (`deal`), with bitboard state and legal-action masks, bound
//! to Python with PyO3 (`python`), plus a batched API stepping many tables at once (`batch`)
//! and the server's action requests written as protobuf bytes (`requests`).
//! `rookery.engine` (pure Python) stays the readable reference; the differential tests in
//! `tests/engine/test_core_*.py` hold the two equal.

pub mod batch;
pub mod cards;
pub mod dd;
pub mod deal;
pub mod field_numbers;
pub mod game;
pub mod observation;
mod python;
mod python_dd;
mod python_engine;
mod python_observation;
mod python_requests;
mod python_search;
pub mod playout;
pub mod protobuf;
pub mod request_reading;
pub mod requests;
pub mod rules;
pub mod sampling;
