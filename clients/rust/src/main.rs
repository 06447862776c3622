//! The sample bot: `rookery-rust-bot --server HOST:PORT --name NAME`. Put your own logic in a
//! `Bot` implementation (see `src/sample.rs`) and hand its factory to `client::run`.
use rookery_kit::client::{self, Bot, ClientError, Config};
use rookery_kit::sample::SampleBot;
use std::process::ExitCode;

#[tokio::main(flavor = "current_thread")]
async fn main() -> ExitCode {
    let config = match Config::from_args(std::env::args().skip(1), "rust-sample") {
        Ok(config) => config,
        Err(ClientError::Usage(m)) if m.is_empty() => {
            println!("usage: rookery-rust-bot [options]\n{}", client::USAGE);
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("rookery-rust-bot: {e}");
            return ExitCode::from(e.exit_code());
        }
    };
    // One bot per table: the factory is called for every table the server seats this bot at.
    match client::run(config, |_table| Box::new(SampleBot::from_env()) as Box<dyn Bot>).await {
        Ok(stats) => {
            eprintln!("[rookery] done: {stats}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("rookery-rust-bot: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}
