//! Rookery starter kit for Rust: the generated protocol types (`pb`), card helpers (`cards`),
//! action builders and legality checks (`actions`), the session runner (`client`), bot notes
//! (`note`) and the sample bot's strategy (`sample`).
//!
//! Write a bot by implementing [`client::Bot`] and handing a factory to [`client::run`]; see
//! `src/main.rs` and `README.md`.

/// The protocol types and the BotService client, generated from `proto/` by `build.rs`.
#[allow(clippy::all)]
pub mod pb {
    tonic::include_proto!("rookery.v1");
}

pub mod actions;
pub mod cards;
pub mod client;
pub mod note;
pub mod sample;
