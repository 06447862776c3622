//! The sample bot: `rookery-rust-bot --server HOST:PORT --name NAME`. Put your own logic in a
//! `Bot` implementation (see `src/sample.rs`) and hand its factory to `client::run_main`.
use rookery_kit::client::{self, Bot, Config};
use rookery_kit::sample::SampleBot;
use std::process::ExitCode;

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let config = Config::from_args(std::env::args().skip(1), "rust-sample");
    // One bot per table: the factory is called for every table the server seats this bot at.
    client::run_main("rookery-rust-bot", config, |_table| Box::new(SampleBot::from_env()) as Box<dyn Bot>).await
}
