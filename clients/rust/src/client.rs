//! The session runner: connect, hello, play many tables at once (one `Bot` per table), answer
//! requests, ping, reconnect with backoff and resume the session after a dropped stream.
use crate::actions::{action_text, first_legal, is_legal};
use crate::pb::bot_service_client::BotServiceClient;
use crate::pb::{
    connect_request, connect_response, Action, ActionReply, ActionRequest, ConnectRequest, Event,
    Hello, Ping, RejectionReason, ReplyBatch, Resume, TableCursor, TableFinished, TableJoined,
};
use std::collections::HashMap;
use std::fmt;
use std::time::{Duration, Instant};
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;
use tonic::transport::Endpoint;
use tonic::Code;

use crate::note::{fallback, Note};

/// A bot: one instance per table, made by the factory handed to [`run`]. Only `act` is required.
pub trait Bot {
    /// The bot was seated at a table (also after a resume, for a table it did not know).
    fn on_joined(&mut self, _table: &TableJoined) {}
    /// An event at the table, in order, without duplicates.
    fn on_event(&mut self, _event: &Event) {}
    /// The bot must act: choose one of `request.legal_actions`. The observation is complete.
    /// A panic here, or an action that is not legal, makes the kit send a legal fallback marked
    /// with `ActionReply.fallback` instead (docs/dev/kit-contract.md).
    fn act(&mut self, request: &ActionRequest) -> Action;
    /// The note on the action `act` just returned, if any: called right after each `act`. A note
    /// outside the bounds of `BotNote` is dropped with a logged error; the action still goes.
    fn note(&mut self) -> Option<Note> {
        None
    }
    /// The table's game ended.
    fn on_finished(&mut self, _finished: &TableFinished) {}
}

/// How to connect and who the bot is.
#[derive(Debug, Clone)]
pub struct Config {
    /// host:port of the server (`--server`, env `ROOKERY_SERVER`).
    pub server: String,
    /// The bot's token in token mode (`--token`, env `ROOKERY_TOKEN`).
    pub token: String,
    /// The bot's registered name (`--name`, env `ROOKERY_BOT_NAME`).
    pub name: String,
    /// The bot's own version (`--version`, env `ROOKERY_BOT_VERSION`; none by default).
    pub version: String,
    /// Tables at once (`--max-tables`, env `ROOKERY_MAX_TABLES`; default 1).
    pub max_tables: i32,
    /// Exit after this many finished games; 0 plays until stopped (`--games`).
    pub games: u32,
    /// Seconds to wait for the server at start (`--connect-timeout`).
    pub connect_timeout: Duration,
    /// Seconds to keep trying to reconnect after a drop.
    pub reconnect_timeout: Duration,
    /// Log each action (`--verbose`).
    pub verbose: bool,
    /// Offer batching (Hello.batching): several messages per gRPC message both ways when the
    /// server agrees (on by default; `--no-batching` turns it off).
    pub batching: bool,
}

pub const USAGE: &str = "\
options (flags override the environment):
  --server HOST:PORT     the server (env ROOKERY_SERVER; default 127.0.0.1:50051)
  --token TOKEN          the bot's token in token mode (env ROOKERY_TOKEN)
  --name NAME            the bot's registered name (env ROOKERY_BOT_NAME)
  --version VERSION      the bot's version (env ROOKERY_BOT_VERSION; default none)
  --max-tables N         tables to play at once (env ROOKERY_MAX_TABLES; default 1)
  --games N              exit after N finished games (default 0: until stopped)
  --connect-timeout S    seconds to wait for the server at start (default 10)
  --verbose              log every action
  --no-batching          send and receive every message alone (batching is on by default)
exit codes: 0 done; 1 unexpected error; 2 bad arguments; 3 token rejected;
4 server unreachable; 5 session refused by the server
(the kit contract: docs/dev/kit-contract.md in the Rookery repository)";

impl Config {
    /// Reads the flags in `args` (without the program name) over the environment.
    pub fn from_args(args: impl IntoIterator<Item = String>, default_name: &str) -> Result<Config, ClientError> {
        let env = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        let mut c = Config {
            server: env("ROOKERY_SERVER").unwrap_or_else(|| "127.0.0.1:50051".into()),
            token: env("ROOKERY_TOKEN").unwrap_or_default(),
            name: env("ROOKERY_BOT_NAME").unwrap_or_else(|| default_name.into()),
            version: env("ROOKERY_BOT_VERSION").unwrap_or_default(),
            max_tables: env("ROOKERY_MAX_TABLES").and_then(|v| v.parse::<i32>().ok()).unwrap_or(1).max(1),
            games: 0,
            connect_timeout: Duration::from_secs(10),
            reconnect_timeout: Duration::from_secs(60),
            verbose: false,
            batching: true,
        };
        let mut args = args.into_iter();
        while let Some(flag) = args.next() {
            let (flag, inline) = match flag.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
                _ => (flag, None),
            };
            if flag == "--help" || flag == "-h" {
                return Err(ClientError::Usage(String::new()));
            }
            if flag == "--verbose" {
                c.verbose = true;
                continue;
            }
            if flag == "--no-batching" {
                c.batching = false;
                continue;
            }
            let value = match inline.or_else(|| args.next()) {
                Some(v) => v,
                None => return Err(ClientError::Usage(format!("{flag} needs a value"))),
            };
            let number = |v: &str| {
                v.parse::<u32>()
                    .map_err(|_| ClientError::Usage(format!("{flag} needs a whole number, got {v:?}")))
            };
            match flag.as_str() {
                "--server" => c.server = value,
                "--token" => c.token = value,
                "--name" => c.name = value,
                "--version" => c.version = value,
                "--max-tables" => c.max_tables = number(&value)?.max(1) as i32,
                "--games" => c.games = number(&value)?,
                "--connect-timeout" => c.connect_timeout = Duration::from_secs(number(&value)?.into()),
                _ => return Err(ClientError::Usage(format!("unknown option {flag}"))),
            }
        }
        if c.name.is_empty() {
            return Err(ClientError::Usage("the bot needs a name (--name or ROOKERY_BOT_NAME)".into()));
        }
        Ok(c)
    }
}

/// Why a run stopped with an error. `exit_code` maps each kind to the process exit code.
#[derive(Debug)]
pub enum ClientError {
    /// Bad command-line arguments (an empty message asks for the usage text only).
    Usage(String),
    /// The server refused the token (UNAUTHENTICATED).
    TokenRejected(String),
    /// The server could not be reached, or not again after a drop, in time.
    Unreachable { server: String, detail: String, waited: Duration },
    /// The server refused the session (INVALID_ARGUMENT, RESOURCE_EXHAUSTED, …).
    Refused { code: String, detail: String },
}

impl ClientError {
    /// The process exit code for this error (as `rookery bot run`'s).
    pub fn exit_code(&self) -> u8 {
        match self {
            ClientError::Usage(_) => 2,
            ClientError::TokenRejected(_) => 3,
            ClientError::Unreachable { .. } => 4,
            ClientError::Refused { .. } => 5,
        }
    }
}

impl fmt::Display for ClientError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClientError::Usage(m) if m.is_empty() => write!(f, "{USAGE}"),
            ClientError::Usage(m) => write!(f, "{m}\n{USAGE}"),
            ClientError::TokenRejected(d) => write!(f, "the server rejected the token: {d} (check --token / ROOKERY_TOKEN and --name)"),
            ClientError::Unreachable { server, detail, waited } => write!(
                f,
                "the server at {server} was unreachable for {:.1}s: {detail} (is `rookery serve` running there?)",
                waited.as_secs_f64()
            ),
            ClientError::Refused { code, detail } => write!(f, "the server refused the session: {code}: {detail}"),
        }
    }
}

impl std::error::Error for ClientError {}

/// Runs a bot as its program's `main`, as the kit contract says a bot ends: the usage text for
/// `--help`, the summary line on exit 0, else one line naming the cause with the exit code (2 bad
/// arguments, 3 token rejected, 4 server unreachable, 5 session refused), never a panic. `config`
/// is what [`Config::from_args`] gave (a bot may set its version on it first); `program` starts
/// the lines it writes.
pub async fn run_main<F>(program: &str, config: Result<Config, ClientError>, factory: F) -> std::process::ExitCode
where
    F: FnMut(&TableJoined) -> Box<dyn Bot>,
{
    use std::process::ExitCode;
    let config = match config {
        Ok(config) => config,
        Err(ClientError::Usage(m)) if m.is_empty() => {
            println!("usage: {program} [options]\n{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("{program}: {e}");
            return ExitCode::from(e.exit_code());
        }
    };
    // SIGINT or SIGTERM stops the bot: exit 0 with the summary line (the kit contract).
    let stop = stop_signal();
    let mut runner = Runner { config, factory, tables: HashMap::new(), session: None, stats: Stats::default(), nonce: 0, batching: false };
    let outcome = tokio::select! {
        outcome = runner.run() => Some(outcome),
        Ok(()) = stop => None,
    };
    match outcome {
        Some(Ok(stats)) => {
            eprintln!("[rookery] done: {stats}");
            ExitCode::SUCCESS
        }
        None => {
            eprintln!("[rookery] done: {}", runner.stats);
            ExitCode::SUCCESS
        }
        Some(Err(e)) => {
            eprintln!("{program}: {e}");
            ExitCode::from(e.exit_code())
        }
    }
}

/// Resolves when the process gets SIGINT or SIGTERM: both are blocked in the calling thread (and
/// so in the threads it starts later) and a thread of its own waits for them.
#[cfg(unix)]
fn stop_signal() -> tokio::sync::oneshot::Receiver<()> {
    let (sender, receiver) = tokio::sync::oneshot::channel();
    // SAFETY: a sigset_t filled by sigemptyset/sigaddset, handed to pthread_sigmask and sigwait.
    let signals = unsafe {
        let mut signals: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut signals);
        libc::sigaddset(&mut signals, libc::SIGINT);
        libc::sigaddset(&mut signals, libc::SIGTERM);
        libc::pthread_sigmask(libc::SIG_BLOCK, &signals, std::ptr::null_mut());
        signals
    };
    std::thread::spawn(move || {
        let mut signal = 0;
        // SAFETY: the set made above; `signal` receives the signal's number.
        // (Should sigwait fail, the sender is dropped: run_main's stop branch is then disabled.)
        if unsafe { libc::sigwait(&signals, &mut signal) } == 0 {
            let _ = sender.send(());
        }
    });
    receiver
}

/// Elsewhere no stop signal is waited for (the sender is dropped, so run_main's stop branch is
/// disabled): the default handling ends the process.
#[cfg(not(unix))]
fn stop_signal() -> tokio::sync::oneshot::Receiver<()> {
    tokio::sync::oneshot::channel().1
}

/// What a run did.
#[derive(Debug, Default, Clone)]
pub struct Stats {
    /// Tables whose game finished.
    pub games: u32,
    /// Replies sent.
    pub actions: u32,
    /// Replies the kit made itself because the bot's code failed (panicked, chose an illegal
    /// action, or was rejected as illegal), each marked with `ActionReply.fallback`.
    pub fallbacks: u32,
    /// ActionRejected messages received.
    pub rejections: u32,
    /// Streams re-opened after a drop.
    pub reconnects: u32,
    /// Reconnections the server accepted as resumes.
    pub resumes: u32,
    /// ConnectResponse.batch messages received.
    pub batches_received: u32,
    /// ConnectRequest.batch messages sent.
    pub batches_sent: u32,
}

impl fmt::Display for Stats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "games={} actions={} fallbacks={} rejections={} reconnects={} resumes={} batches_received={} batches_sent={}",
            self.games,
            self.actions,
            self.fallbacks,
            self.rejections,
            self.reconnects,
            self.resumes,
            self.batches_received,
            self.batches_sent
        )
    }
}

struct TableState {
    bot: Box<dyn Bot>,
    last_seq: u64,
    open: Option<ActionRequest>,
    retried: bool,
}

enum StreamEnd {
    /// `--games` was reached.
    Done,
    /// The stream ended or broke; reconnect.
    Dropped(String),
}

fn log(msg: impl fmt::Display) {
    eprintln!("[rookery] {msg}");
}

/// The session runner.
struct Runner<F> {
    config: Config,
    factory: F,
    tables: HashMap<String, TableState>,
    session: Option<(String, String)>,
    stats: Stats,
    nonce: u64,
    /// The Welcome of the current stream agreed to batching: replies may go as a ReplyBatch.
    batching: bool,
}

/// Plays until `config.games` games are finished (forever when 0). One `Bot` per table from
/// `factory`. Reconnects with exponential backoff and resumes the session after a drop.
pub async fn run<F>(config: Config, factory: F) -> Result<Stats, ClientError>
where
    F: FnMut(&TableJoined) -> Box<dyn Bot>,
{
    let mut runner = Runner { config, factory, tables: HashMap::new(), session: None, stats: Stats::default(), nonce: 0, batching: false };
    runner.run().await
}

impl<F> Runner<F>
where
    F: FnMut(&TableJoined) -> Box<dyn Bot>,
{
    async fn run(&mut self) -> Result<Stats, ClientError> {
        let mut attempt: u32 = 0;
        let mut ever_connected = false;
        let mut down_since = Instant::now();
        loop {
            let mut welcomed = false;
            let detail = match self.serve(&mut welcomed).await {
                Ok(StreamEnd::Done) => return Ok(self.stats.clone()),
                Ok(StreamEnd::Dropped(detail)) => detail,
                Err(status) => self.classify(status)?,
            };
            if welcomed {
                ever_connected = true;
                attempt = 0;
                down_since = Instant::now();
            }
            let waited = down_since.elapsed();
            let limit = if ever_connected { self.config.reconnect_timeout } else { self.config.connect_timeout };
            if waited >= limit {
                return Err(ClientError::Unreachable { server: self.config.server.clone(), detail, waited });
            }
            let delay = Duration::from_millis((100u64 << attempt.min(6)).min(5000));
            attempt += 1;
            if ever_connected {
                self.stats.reconnects += 1;
                log(format_args!("stream lost ({detail}); reconnecting in {}ms", delay.as_millis()));
            }
            tokio::time::sleep(delay).await;
        }
    }

    /// Turns a gRPC status into a retry detail, or a fatal error.
    fn classify(&mut self, status: tonic::Status) -> Result<String, ClientError> {
        let detail = format!("{:?}: {}", status.code(), status.message());
        match status.code() {
            Code::Unauthenticated => Err(ClientError::TokenRejected(status.message().to_string())),
            Code::FailedPrecondition if self.session.is_some() => {
                log(format_args!("resume refused ({detail}); starting a new session"));
                self.forget_session();
                Ok(detail)
            }
            Code::InvalidArgument | Code::ResourceExhausted | Code::PermissionDenied | Code::Unimplemented => {
                Err(ClientError::Refused { code: format!("{:?}", status.code()), detail: status.message().to_string() })
            }
            _ => Ok(detail),
        }
    }

    fn forget_session(&mut self) {
        for table_id in self.tables.keys() {
            log(format_args!("table {table_id} was lost with the session"));
        }
        self.tables.clear();
        self.session = None;
    }

    fn hello(&self) -> ConnectRequest {
        let resume = self.session.as_ref().map(|(id, secret)| Resume {
            session_id: id.clone(),
            resume_secret: secret.clone(),
            cursors: self
                .tables
                .iter()
                .map(|(table_id, t)| TableCursor { table_id: table_id.clone(), last_seq: t.last_seq })
                .collect(),
        });
        ConnectRequest {
            message: Some(connect_request::Message::Hello(Hello {
                name: self.config.name.clone(),
                version: self.config.version.clone(),
                token: self.config.token.clone(),
                max_tables: self.config.max_tables,
                resume,
                client: concat!("rookery-rust/", env!("CARGO_PKG_VERSION")).into(),
                batching: self.config.batching,
                // Fields added to Hello later keep their defaults (e.g. observations_only: the
                // kit follows the event stream, so it wants events).
                ..Default::default()
            })),
        }
    }

    /// One stream, from connecting to its end.
    async fn serve(&mut self, welcomed: &mut bool) -> Result<StreamEnd, tonic::Status> {
        let uri = if self.config.server.contains("://") {
            self.config.server.clone()
        } else {
            format!("http://{}", self.config.server)
        };
        let endpoint = Endpoint::from_shared(uri)
            .map_err(|e| tonic::Status::invalid_argument(format!("bad server address {:?}: {e}", self.config.server)))?
            .connect_timeout(Duration::from_secs(5));
        let channel = match endpoint.connect().await {
            Ok(channel) => channel,
            Err(e) => return Ok(StreamEnd::Dropped(format!("cannot connect: {e}"))),
        };
        let mut client = BotServiceClient::new(channel).max_decoding_message_size(64 << 20);
        let (tx, rx) = mpsc::channel::<ConnectRequest>(256);
        let resuming = self.session.is_some();
        let _ = tx.send(self.hello()).await;
        let mut inbound = client.connect(ReceiverStream::new(rx)).await?.into_inner();

        let first = tokio::time::timeout(Duration::from_secs(10), inbound.message())
            .await
            .map_err(|_| tonic::Status::deadline_exceeded("no Welcome within 10s of the Hello"))??;
        let Some(connect_response::Message::Welcome(welcome)) = first.and_then(|m| m.message) else {
            return Ok(StreamEnd::Dropped("the stream ended before a Welcome".into()));
        };
        if resuming && !welcome.resumed {
            self.forget_session();
        }
        if welcome.resumed {
            self.stats.resumes += 1;
        }
        self.session = Some((welcome.session_id.clone(), welcome.resume_secret.clone()));
        self.batching = welcome.batching;
        *welcomed = true;
        log(format_args!(
            "session {} {} as {:?} at {} (server {}, max_tables {})",
            welcome.session_id,
            if welcome.resumed { "resumed" } else { "started" },
            self.config.name,
            self.config.server,
            welcome.server_version,
            welcome.max_tables
        ));
        let ping_every = if welcome.idle_timeout_ms > 0 {
            Duration::from_millis((welcome.idle_timeout_ms as u64 / 3).max(50))
        } else {
            Duration::from_secs(15)
        };
        let mut ping = tokio::time::interval_at(tokio::time::Instant::now() + ping_every, ping_every);
        loop {
            tokio::select! {
                message = inbound.message() => {
                    let Some(message) = message? else {
                        return Ok(StreamEnd::Dropped("the server closed the stream".into()));
                    };
                    let mut out = Vec::new();
                    let done = self.handle(message, &mut out);
                    for request in pack(out, self.batching) {
                        if matches!(request.message, Some(connect_request::Message::Batch(_))) {
                            self.stats.batches_sent += 1;
                        }
                        if tx.send(request).await.is_err() {
                            return Ok(StreamEnd::Dropped("the stream's sender closed".into()));
                        }
                    }
                    if done {
                        return Ok(StreamEnd::Done);
                    }
                }
                _ = ping.tick() => {
                    self.nonce += 1;
                    let ping = ConnectRequest { message: Some(connect_request::Message::Ping(Ping { nonce: self.nonce })) };
                    if tx.send(ping).await.is_err() {
                        return Ok(StreamEnd::Dropped("the stream's sender closed".into()));
                    }
                }
            }
        }
    }

    fn new_table(&mut self, joined: &TableJoined) {
        let mut bot = (self.factory)(joined);
        bot.on_joined(joined);
        self.tables.insert(joined.table_id.clone(), TableState { bot, last_seq: 0, open: None, retried: false });
    }

    fn on_event(&mut self, table_id: &str, event: Option<&Event>) {
        let (Some(table), Some(event)) = (self.tables.get_mut(table_id), event) else { return };
        if event.seq <= table.last_seq {
            return;
        }
        table.last_seq = event.seq;
        table.bot.on_event(event);
    }

    fn send_reply(&mut self, reply: ActionReply, out: &mut Vec<ConnectRequest>) {
        if self.config.verbose {
            let text = reply.action.as_ref().map(action_text).unwrap_or_default();
            log(format_args!("table {} request {}: {text}", reply.table_id, reply.request_id));
        }
        self.stats.actions += 1;
        out.push(ConnectRequest { message: Some(connect_request::Message::ActionReply(reply)) });
    }

    /// Handles one server message; queues replies in `out`; true when `--games` is reached.
    fn handle(&mut self, message: crate::pb::ConnectResponse, out: &mut Vec<ConnectRequest>) -> bool {
        use connect_response::Message as M;
        match message.message {
            Some(M::TableJoined(joined)) => {
                log(format_args!("joined table {} at seat {}", joined.table_id, joined.seat));
                self.new_table(&joined);
            }
            Some(M::Event(e)) => self.on_event(&e.table_id, e.event.as_ref()),
            // Only for a Hello with group_events, which this kit leaves unset: read alike.
            Some(M::TableEvents(grouped)) => {
                for event in &grouped.events {
                    self.on_event(&grouped.table_id, Some(event));
                }
            }
            Some(M::TableSnapshot(snapshot)) => {
                let Some(joined) = snapshot.table else { return false };
                if !self.tables.contains_key(&joined.table_id) {
                    self.new_table(&joined);
                }
                log(format_args!("table {} resumed with {} missed events", joined.table_id, snapshot.missed_events.len()));
                for missed in &snapshot.missed_events {
                    self.on_event(&joined.table_id, missed.event.as_ref());
                }
            }
            Some(M::ActionRequest(request)) => {
                let table_id = request.table_id.clone();
                if !self.tables.contains_key(&table_id) {
                    // A request for a table we were not told about: play it with a fresh bot.
                    let joined = TableJoined { table_id: table_id.clone(), seat: request.seat, ..Default::default() };
                    self.new_table(&joined);
                }
                let legal = request.legal_actions.clone().unwrap_or_default();
                let table = self.tables.get_mut(&table_id).expect("table exists");
                let bot = &mut table.bot;
                let chosen = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| bot.act(&request)));
                let (action, mark, note) = match chosen {
                    Ok(chosen) if is_legal(&chosen, &legal) => {
                        let note = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| bot.note())).ok().flatten();
                        (chosen, None, note)
                    }
                    Ok(chosen) => {
                        let reason = format!("act returned the illegal action {:?}", action_text(&chosen));
                        log(format_args!("table {table_id}: {reason}; sending the first legal action"));
                        (first_legal(&legal).unwrap_or(chosen), Some(fallback(&reason)), None)
                    }
                    Err(panic) => {
                        let what = panic
                            .downcast_ref::<&str>()
                            .map(|s| s.to_string())
                            .or_else(|| panic.downcast_ref::<String>().cloned())
                            .unwrap_or_else(|| "a panic".into());
                        let reason = format!("act panicked: {what}");
                        log(format_args!("table {table_id}: {reason}; sending the first legal action"));
                        (first_legal(&legal).unwrap_or_else(crate::actions::pass), Some(fallback(&reason)), None)
                    }
                };
                let note = note.and_then(|note| match note.to_proto() {
                    Ok(proto) => Some(proto),
                    Err(e) => {
                        log(format_args!("table {table_id}: the bot's note was not sent: {e}"));
                        None
                    }
                });
                if mark.is_some() {
                    self.stats.fallbacks += 1;
                }
                let request_id = request.request_id;
                table.open = Some(request);
                table.retried = false;
                self.send_reply(ActionReply { table_id: table_id.clone(), request_id, action: Some(action), note, fallback: mark }, out);
            }
            Some(M::ActionRejected(rejected)) => {
                self.stats.rejections += 1;
                log(format_args!(
                    "table {} request {}: action rejected: {:?}: {}",
                    rejected.table_id,
                    rejected.request_id,
                    rejected.reason(),
                    rejected.message
                ));
                let retry = matches!(rejected.reason(), RejectionReason::IllegalAction | RejectionReason::MalformedAction);
                let retry_with = self.tables.get_mut(&rejected.table_id).and_then(|t| {
                    let open = t.open.as_ref().filter(|o| o.request_id == rejected.request_id && retry && !t.retried)?;
                    t.retried = true;
                    first_legal(open.legal_actions.as_ref()?)
                });
                if let Some(action) = retry_with {
                    self.stats.fallbacks += 1;
                    let reason = format!("the server rejected the bot's action: {}", rejected.message);
                    let reply = ActionReply {
                        table_id: rejected.table_id.clone(),
                        request_id: rejected.request_id,
                        action: Some(action),
                        note: None,
                        fallback: Some(fallback(&reason)),
                    };
                    self.send_reply(reply, out);
                }
            }
            Some(M::TableFinished(finished)) => {
                if let Some(mut table) = self.tables.remove(&finished.table_id) {
                    table.bot.on_finished(&finished);
                }
                self.stats.games += 1;
                let result = finished.result.clone().unwrap_or_default();
                log(format_args!(
                    "table {} finished: {:?}, winners {:?}, scores {:?}",
                    finished.table_id,
                    result.reason(),
                    result.winners,
                    result.scores
                ));
                if self.config.games > 0 && self.stats.games >= self.config.games {
                    return true;
                }
            }
            Some(M::Batch(batch)) => {
                // Several messages in one, in order: each handled as if it came alone. Replies
                // to them collect in `out`, so those ready together can go as one ReplyBatch.
                self.stats.batches_received += 1;
                for inner in batch.messages {
                    if self.handle(inner, out) {
                        return true;
                    }
                }
            }
            Some(M::Welcome(_)) | Some(M::Pong(_)) | None => {}
        }
        false
    }
}

/// The messages to send for `requests`: with `batching` (the Welcome agreed to it), each run of
/// two or more consecutive replies packed into one ReplyBatch; otherwise `requests` unchanged.
pub fn pack(requests: Vec<ConnectRequest>, batching: bool) -> Vec<ConnectRequest> {
    if !batching || requests.len() < 2 {
        return requests;
    }
    fn flush(replies: &mut Vec<ActionReply>, packed: &mut Vec<ConnectRequest>) {
        let message = match replies.len() {
            0 => return,
            1 => connect_request::Message::ActionReply(replies.pop().expect("one reply")),
            _ => connect_request::Message::Batch(ReplyBatch { replies: std::mem::take(replies) }),
        };
        packed.push(ConnectRequest { message: Some(message) });
    }
    let mut packed = Vec::new();
    let mut replies = Vec::new();
    for request in requests {
        match request.message {
            Some(connect_request::Message::ActionReply(reply)) => replies.push(reply),
            other => {
                flush(&mut replies, &mut packed);
                packed.push(ConnectRequest { message: other });
            }
        }
    }
    flush(&mut replies, &mut packed);
    packed
}


#[cfg(test)]
mod tests {
    use super::*;
    use crate::pb::{ConnectResponse, LegalActions, Phase, ResponseBatch, TableEvent};
    use std::cell::RefCell;
    use std::rc::Rc;

    /// Passes, and writes down what it sees.
    struct Recorder(Rc<RefCell<Vec<String>>>);

    impl Bot for Recorder {
        fn on_event(&mut self, event: &Event) {
            self.0.borrow_mut().push(format!("event {}", event.seq));
        }
        fn act(&mut self, request: &ActionRequest) -> Action {
            self.0.borrow_mut().push(format!("act {} {}", request.table_id, request.request_id));
            crate::actions::pass()
        }
    }

    fn response(message: connect_response::Message) -> ConnectResponse {
        ConnectResponse { message: Some(message) }
    }

    fn joined(table_id: &str) -> ConnectResponse {
        response(connect_response::Message::TableJoined(TableJoined { table_id: table_id.into(), seat: 1, ..Default::default() }))
    }

    fn event(table_id: &str, seq: u64) -> ConnectResponse {
        let event = Event { seq, ..Default::default() };
        response(connect_response::Message::Event(TableEvent { table_id: table_id.into(), event: Some(event) }))
    }

    fn request(table_id: &str, request_id: u64) -> ConnectResponse {
        let legal = LegalActions { phase: Phase::Bidding as i32, can_pass: true, bids: vec![70], ..Default::default() };
        response(connect_response::Message::ActionRequest(ActionRequest {
            table_id: table_id.into(),
            request_id,
            seat: 1,
            legal_actions: Some(legal),
            ..Default::default()
        }))
    }

    fn action_reply(table_id: &str, request_id: u64) -> ActionReply {
        ActionReply { table_id: table_id.into(), request_id, action: Some(crate::actions::pass()), ..Default::default() }
    }

    fn reply(table_id: &str, request_id: u64) -> ConnectRequest {
        ConnectRequest { message: Some(connect_request::Message::ActionReply(action_reply(table_id, request_id))) }
    }

    fn ping(nonce: u64) -> ConnectRequest {
        ConnectRequest { message: Some(connect_request::Message::Ping(Ping { nonce })) }
    }

    #[test]
    fn a_batch_is_handled_in_order_and_its_replies_collected() {
        let seen = Rc::new(RefCell::new(Vec::new()));
        let config = Config::from_args(Vec::<String>::new(), "kit").unwrap();
        let recorder = seen.clone();
        let factory = move |_: &TableJoined| Box::new(Recorder(recorder.clone())) as Box<dyn Bot>;
        let mut runner =
            Runner { config, factory, tables: HashMap::new(), session: None, stats: Stats::default(), nonce: 0, batching: true };
        let batch = ResponseBatch {
            messages: vec![joined("t1"), event("t1", 1), request("t1", 7), joined("t2"), event("t2", 1), request("t2", 3)],
        };
        let mut out = Vec::new();

        assert!(!runner.handle(response(connect_response::Message::Batch(batch)), &mut out));

        assert_eq!(*seen.borrow(), ["event 1", "act t1 7", "event 1", "act t2 3"]);
        assert_eq!(out, vec![reply("t1", 7), reply("t2", 3)]);
        assert_eq!((runner.stats.batches_received, runner.stats.actions), (1, 2));
        assert_eq!(runner.tables["t2"].last_seq, 1);
    }

    #[test]
    fn replies_ready_together_go_as_one_reply_batch_after_a_welcome_with_batching() {
        let requests = vec![reply("t1", 1), reply("t2", 2), ping(5), reply("t3", 3)];

        let packed = pack(requests.clone(), true);

        let batch = ReplyBatch { replies: vec![action_reply("t1", 1), action_reply("t2", 2)] };
        assert_eq!(packed, vec![ConnectRequest { message: Some(connect_request::Message::Batch(batch)) }, ping(5), reply("t3", 3)]);
        assert_eq!(pack(requests.clone(), false), requests);
    }

    #[test]
    fn hello_offers_batching_unless_turned_off() {
        let offered = |args: &[&str]| {
            let config = Config::from_args(args.iter().map(|a| a.to_string()), "kit").unwrap();
            let runner = Runner {
                config,
                factory: |_: &TableJoined| Box::new(crate::sample::SampleBot::default()) as Box<dyn Bot>,
                tables: HashMap::new(),
                session: None,
                stats: Stats::default(),
                nonce: 0,
                batching: false,
            };
            match runner.hello().message {
                Some(connect_request::Message::Hello(hello)) => hello.batching,
                _ => panic!("not a Hello"),
            }
        };
        assert!(offered(&[]));
        assert!(!offered(&["--no-batching"]));
    }
}
