// The client library: one BotService.Connect session that plays any number of tables at once,
// one bot object per table, with pings, reconnection with backoff and session resume.

import { ChannelCredentials, ClientDuplexStream, ServiceError, credentials, status } from "@grpc/grpc-js";
import { Action, LegalActions } from "./gen/rookery/v1/actions";
import {
  ActionRejected,
  ActionReply,
  ActionRequest,
  BotServiceClient,
  ConnectRequest,
  ConnectResponse,
  RejectionReason,
  TableJoined,
  TableSnapshot,
  Welcome,
} from "./gen/rookery/v1/bot_service";
import { Event } from "./gen/rookery/v1/events";
import { GameResult, TerminationReason } from "./gen/rookery/v1/results";
import { Ruleset } from "./gen/rookery/v1/ruleset";
import { SeatInfo, TimeControl } from "./gen/rookery/v1/table";
import { actionToString, firstLegal, illegalReason } from "./actions";
import { BotNote, Fallback } from "./gen/rookery/v1/notes";
import { Reply, fallbackMark, isReply, noteError, noteToProto } from "./note";

export const CLIENT_NAME = "rookery-typescript/0.1.0";
export const DEFAULT_SERVER = "127.0.0.1:50051";

/** What a bot knows about one of its tables. */
export interface TableInfo {
  tableId: string;
  seat: number;
  ruleset: Ruleset | undefined;
  seats: SeatInfo[];
  timeControl: TimeControl | undefined;
  gameNumber: number;
  /**
   * A seed for this seat's own randomness in this game (0 from a server that sends none): seed
   * your generator with it and a rerun, a resume or a Ray run of the same tournament plays the
   * same game. It tells nothing of the deal.
   */
  botSeed: number;
}

/**
 * Your bot. One object is made per table (see BotFactory), so it may keep per-table state.
 * Only `act` is required; it must return one of the request's legal actions, or `{ action, note }`
 * to attach a note (see Note). When it throws or returns an illegal action, the kit sends a legal
 * fallback marked with ActionReply.fallback instead (docs/dev/kit-contract.md).
 */
export interface Bot {
  act(request: ActionRequest, table: TableInfo): Action | Reply | Promise<Action | Reply>;
  onJoined?(table: TableInfo): void;
  onEvent?(event: Event, table: TableInfo): void;
  onSnapshot?(snapshot: TableSnapshot, table: TableInfo): void;
  onRejected?(rejection: ActionRejected, table: TableInfo): void;
  onFinished?(result: GameResult | undefined, table: TableInfo): void;
}

export type BotFactory = (table: TableInfo) => Bot;

export interface ClientOptions {
  /** host:port of the server; default ROOKERY_SERVER or 127.0.0.1:50051. */
  server?: string;
  /** The bot's name; default ROOKERY_BOT_NAME. */
  name?: string;
  /** The bot's own version, sent in Hello (recorded in replays); default ROOKERY_BOT_VERSION, else none. */
  version?: string;
  /** The bot's token (token mode); default ROOKERY_TOKEN. */
  token?: string;
  /** How many tables to play at once. */
  maxTables?: number;
  /** Use TLS with the system's roots. */
  tls?: boolean;
  /** Stop after this many finished tables; 0 plays until closed. */
  maxGames?: number;
  /** Reconnection: first delay, largest delay, attempts before giving up (0: forever). */
  backoffInitialMs?: number;
  backoffMaxMs?: number;
  maxAttempts?: number;
  /** Send the bot's action even when it is not legal (default: replace it by a legal fallback). */
  strict?: boolean;
  /** How long to wait for the server at start before giving up (exit 4); default 10000. */
  connectTimeoutMs?: number;
  /**
   * Offer batching (Hello.batching; default true): the server may pack several messages into
   * one, and replies ready together go as one ReplyBatch. False: every message travels alone.
   */
  batching?: boolean;
  /** Where log lines go; default stderr. */
  log?: (line: string) => void;
}

/** A failure that reconnecting cannot fix (bad token, refused hello, too many attempts). */
export class RookeryError extends Error {
  constructor(
    message: string,
    readonly code?: number,
  ) {
    super(message);
    this.name = "RookeryError";
  }
}

export interface ClientStats {
  tablesJoined: number;
  tablesFinished: number;
  actionsSent: number;
  rejections: number;
  fallbacks: number;
  reconnects: number;
  /** Reconnections the server accepted as resumes. */
  resumes: number;
  /** ConnectResponse.batch messages received. */
  batchesReceived: number;
  /** ConnectRequest.batch messages sent. */
  batchesSent: number;
  results: { tableId: string; seat: number; result: GameResult | undefined }[];
}

interface TableState {
  info: TableInfo;
  bot: Bot;
  lastSeq: number;
  chain: Promise<void>;
}

const FATAL_CODES = new Set<number>([
  status.UNAUTHENTICATED,
  status.PERMISSION_DENIED,
  status.INVALID_ARGUMENT,
  status.UNIMPLEMENTED,
  status.RESOURCE_EXHAUSTED,
]);

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function tableInfo(j: TableJoined): TableInfo {
  return {
    tableId: j.tableId,
    seat: j.seat,
    ruleset: j.ruleset,
    seats: j.seats,
    timeControl: j.timeControl,
    gameNumber: j.gameNumber,
    botSeed: j.botSeed,
  };
}

export class RookeryClient {
  readonly server: string;
  readonly name: string;
  readonly stats: ClientStats = {
    tablesJoined: 0,
    tablesFinished: 0,
    actionsSent: 0,
    rejections: 0,
    fallbacks: 0,
    reconnects: 0,
    resumes: 0,
    batchesReceived: 0,
    batchesSent: 0,
    results: [],
  };
  private readonly opts: Required<Omit<ClientOptions, "server" | "name">>;
  private readonly tables = new Map<string, TableState>();
  private welcome: Welcome | undefined;
  private disconnectedAt = 0;
  private stream: ClientDuplexStream<ConnectRequest, ConnectResponse> | undefined;
  private grpc: BotServiceClient | undefined;
  private closed = false;
  private welcomed = false;
  private stopSession: (() => void) | undefined;
  /** The current stream's Welcome agreed to batching. */
  private batching = false;
  /** Messages waiting for the next flush, in order. */
  private outgoing: ConnectRequest[] = [];
  private flushScheduled = false;

  constructor(
    private readonly factory: BotFactory,
    options: ClientOptions = {},
  ) {
    this.server = options.server || process.env.ROOKERY_SERVER || DEFAULT_SERVER;
    const name = options.name || process.env.ROOKERY_BOT_NAME || "";
    if (name === "") throw new RookeryError("no bot name: pass --name or set ROOKERY_BOT_NAME");
    this.name = name;
    this.opts = {
      version: options.version || process.env.ROOKERY_BOT_VERSION || "",
      token: options.token ?? process.env.ROOKERY_TOKEN ?? "",
      maxTables: options.maxTables ?? 1,
      tls: options.tls ?? false,
      maxGames: options.maxGames ?? 0,
      backoffInitialMs: options.backoffInitialMs ?? 200,
      backoffMaxMs: options.backoffMaxMs ?? 5000,
      maxAttempts: options.maxAttempts ?? 30,
      strict: options.strict ?? false,
      connectTimeoutMs: options.connectTimeoutMs ?? 10000,
      batching: options.batching ?? true,
      log: options.log ?? ((line: string) => process.stderr.write(`[${this.name}] ${line}\n`)),
    };
  }

  /** Plays until closed or until maxGames tables have finished. Rejects on a fatal error. */
  async run(): Promise<ClientStats> {
    const creds: ChannelCredentials = this.opts.tls ? credentials.createSsl() : credentials.createInsecure();
    this.grpc = new BotServiceClient(this.server, creds, {
      "grpc.keepalive_time_ms": 20000,
      "grpc.max_receive_message_length": 16 * 1024 * 1024,
    });
    let attempt = 0;
    const started = Date.now();
    let everWelcomed = false;
    try {
      while (!this.closed) {
        this.welcomed = false;
        const err = await this.session();
        if (this.closed) break;
        if (this.welcomed) attempt = 0; // that stream got in: count attempts afresh
        everWelcomed ||= this.welcomed;
        if (err !== undefined && FATAL_CODES.has(err.code)) {
          throw new RookeryError(`the server refused the session: ${status[err.code]}: ${err.details}`, err.code);
        }
        if (err !== undefined && err.code === status.FAILED_PRECONDITION && this.welcome !== undefined) {
          this.opts.log(`resume refused (${err.details}); starting a new session`);
          this.forgetSession();
        }
        attempt++;
        if (!everWelcomed && Date.now() - started >= this.opts.connectTimeoutMs) {
          throw new RookeryError(
            `the server at ${this.server} was unreachable for ${((Date.now() - started) / 1000).toFixed(1)}s: ` +
              `${err ? err.details || err.message : "stream ended"} (is \`rookery serve\` running there?)`,
            status.UNAVAILABLE,
          );
        }
        if (this.opts.maxAttempts > 0 && attempt > this.opts.maxAttempts) {
          throw new RookeryError(
            `cannot reach ${this.server} after ${this.opts.maxAttempts} attempts: ${err ? err.details || err.message : "stream ended"}`,
            status.UNAVAILABLE,
          );
        }
        const delay = Math.min(this.opts.backoffMaxMs, this.opts.backoffInitialMs * 2 ** (attempt - 1));
        this.opts.log(`disconnected (${err ? `${status[err.code]}: ${err.details}` : "stream ended"}); retry ${attempt} in ${delay} ms`);
        await sleep(delay);
        this.stats.reconnects++;
      }
    } finally {
      this.grpc.close();
    }
    return this.stats;
  }

  /** Ends the session; run() resolves. */
  close(): void {
    this.closed = true;
    this.stopSession?.();
  }

  /** Drops the current stream without closing the client, as a network failure would (for tests). */
  dropConnection(): void {
    this.stream?.cancel();
  }

  private forgetSession(): void {
    this.welcome = undefined;
    for (const id of this.tables.keys()) this.opts.log(`table ${id}: lost with the old session`);
    this.tables.clear();
  }

  private canResume(): boolean {
    if (this.welcome === undefined) return false;
    const grace = this.welcome.graceMs;
    return grace <= 0 || Date.now() - this.disconnectedAt < grace;
  }

  /** One stream, from Hello to its end. Resolves with the error that ended it, if any. */
  private session(): Promise<ServiceError | undefined> {
    return new Promise((resolve) => {
      const stream = this.grpc!.connect();
      this.stream = stream;
      this.batching = false;
      this.outgoing = []; // replies meant for an earlier stream: the server asks again
      let done = false;
      let pinger: NodeJS.Timeout | undefined;
      const finish = (err?: ServiceError) => {
        if (done) return;
        done = true;
        if (pinger) clearInterval(pinger);
        this.stopSession = undefined;
        this.stream = undefined;
        this.disconnectedAt = Date.now();
        resolve(this.closed ? undefined : err);
      };
      this.stopSession = () => {
        stream.end();
        stream.cancel();
        finish();
      };
      stream.on("data", (msg: ConnectResponse) => {
        if (msg.message?.$case === "welcome") {
          const w = msg.message.value;
          const pingMs = w.idleTimeoutMs > 0 ? Math.max(500, Math.floor(w.idleTimeoutMs / 3)) : 15000;
          if (pinger) clearInterval(pinger);
          let nonce = 0;
          pinger = setInterval(() => this.send({ message: { $case: "ping", value: { nonce: ++nonce } } }), pingMs);
          pinger.unref();
          this.batching = w.batching;
        }
        if (msg.message?.$case === "batch") {
          // Several messages in one, in order: each is handled as if it came alone.
          this.stats.batchesReceived++;
          for (const inner of msg.message.value.messages) this.dispatch(inner);
          return;
        }
        this.dispatch(msg);
      });
      stream.on("error", (err: ServiceError) => finish(err));
      stream.on("end", () => finish());

      const resume = this.canResume()
        ? {
            sessionId: this.welcome!.sessionId,
            resumeSecret: this.welcome!.resumeSecret,
            cursors: [...this.tables.values()].map((t) => ({ tableId: t.info.tableId, lastSeq: t.lastSeq })),
          }
        : undefined;
      if (resume === undefined && this.welcome !== undefined) this.forgetSession();
      this.send({
        message: {
          $case: "hello",
          value: {
            name: this.name,
            version: this.opts.version,
            token: this.opts.token,
            maxTables: this.opts.maxTables,
            resume,
            client: CLIENT_NAME,
            // The kit follows the event stream (cursors for resume, bot hooks): it wants events.
            observationsOnly: false,
            batching: this.opts.batching,
            // Events as they happen (not held until this seat's next request): a bot's onEvent
            // sees the other seats' moves live.
            deferEvents: false,
            // The kit reads the repeated Card fields, not the bit masks.
            cardMasks: false,
            // Each event as its own TableEvent (the kit reads no TableEvents).
            groupEvents: false,
          },
        },
      });
    });
  }

  /**
   * Queues a message for the stream. The queue is written once the current turn's work is done
   * (bots answer in promise callbacks, which all run first), so the replies to one batch of
   * requests leave together: as one ReplyBatch when the Welcome agreed to batching.
   */
  private send(msg: ConnectRequest): void {
    if (this.stream === undefined) return;
    this.outgoing.push(msg);
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.flushScheduled = false;
    const pending = this.outgoing;
    this.outgoing = [];
    for (const msg of pack(pending, this.batching)) {
      if (this.stream === undefined) return;
      this.stream.write(msg);
      if (msg.message?.$case === "batch") this.stats.batchesSent++;
    }
  }

  /** Runs `fn` after everything queued for the table, so each bot sees its messages in order. */
  private enqueue(t: TableState, fn: () => void | Promise<void>): void {
    t.chain = t.chain.then(fn).catch((e: unknown) => this.opts.log(`table ${t.info.tableId}: ${String(e)}`));
  }

  private join(j: TableJoined): TableState {
    const existing = this.tables.get(j.tableId);
    if (existing !== undefined) {
      existing.info = tableInfo(j);
      return existing;
    }
    const info = tableInfo(j);
    const t: TableState = { info, bot: this.factory(info), lastSeq: 0, chain: Promise.resolve() };
    this.tables.set(j.tableId, t);
    this.stats.tablesJoined++;
    return t;
  }

  private dispatch(msg: ConnectResponse): void {
    const m = msg.message;
    if (m === undefined) return;
    switch (m.$case) {
      case "welcome": {
        const resumed = m.value.resumed;
        this.welcome = m.value;
        this.welcomed = true;
        if (resumed) this.stats.resumes++;
        if (!resumed) this.tables.clear();
        this.opts.log(`${resumed ? "resumed" : "connected"}: session ${m.value.sessionId} on ${this.server}`);
        return;
      }
      case "tableJoined": {
        const t = this.join(m.value);
        this.enqueue(t, () => t.bot.onJoined?.(t.info));
        return;
      }
      case "tableSnapshot": {
        const snap = m.value;
        if (snap.table === undefined) return;
        const t = this.join(snap.table);
        for (const e of snap.missedEvents) {
          if (e.event !== undefined) t.lastSeq = Math.max(t.lastSeq, e.event.seq);
        }
        this.enqueue(t, () => {
          t.bot.onSnapshot?.(snap, t.info);
          for (const e of snap.missedEvents) if (e.event !== undefined) t.bot.onEvent?.(e.event, t.info);
        });
        return;
      }
      case "event": {
        const t = this.tables.get(m.value.tableId);
        const e = m.value.event;
        if (t === undefined || e === undefined) return;
        t.lastSeq = Math.max(t.lastSeq, e.seq);
        this.enqueue(t, () => t.bot.onEvent?.(e, t.info));
        return;
      }
      case "actionRequest": {
        const req = m.value;
        let t = this.tables.get(req.tableId);
        if (t === undefined) {
          // A request for a table we were never told about (should not happen): play it anyway.
          t = this.join({
            tableId: req.tableId,
            seat: req.seat,
            ruleset: req.observation?.ruleset,
            seats: [],
            timeControl: undefined,
            gameNumber: 0,
            botSeed: 0,
          });
        }
        const table = t;
        this.enqueue(table, () => this.answer(table, req));
        return;
      }
      case "actionRejected": {
        const r = m.value;
        this.stats.rejections++;
        this.opts.log(
          `table ${r.tableId}: action rejected (${RejectionReason[r.reason]}): ${r.message} [request ${r.requestId}]`,
        );
        const t = this.tables.get(r.tableId);
        if (t !== undefined) this.enqueue(t, () => t.bot.onRejected?.(r, t.info));
        return;
      }
      case "tableFinished": {
        const f = m.value;
        const t = this.tables.get(f.tableId);
        this.stats.tablesFinished++;
        this.stats.results.push({ tableId: f.tableId, seat: f.seat, result: f.result });
        const reason = f.result ? TerminationReason[f.result.reason] : "?";
        this.opts.log(
          `table ${f.tableId}: finished (${reason}), seat ${f.seat}, scores ${f.result?.scores.join("/") ?? "?"}, winners ${f.result?.winners.join(",") ?? "?"}`,
        );
        const finishTable = () => {
          this.tables.delete(f.tableId);
          if (this.opts.maxGames > 0 && this.stats.tablesFinished >= this.opts.maxGames) this.close();
        };
        if (t !== undefined) {
          this.enqueue(t, () => t.bot.onFinished?.(f.result, t.info));
          this.enqueue(t, finishTable);
        } else {
          finishTable();
        }
        return;
      }
      case "pong":
        return;
    }
  }

  private async answer(t: TableState, req: ActionRequest): Promise<void> {
    const legal: LegalActions | undefined = req.legalActions;
    let action: Action;
    let note: BotNote | undefined;
    let fallback: Fallback | undefined;
    const substitute = (why: string, detail: string) => {
      this.opts.log(`table ${t.info.tableId}: ${detail}; playing a legal fallback`);
      this.stats.fallbacks++;
      fallback = fallbackMark(why);
      return firstLegal(legal!);
    };
    try {
      const answered = await t.bot.act(req, t.info);
      if (isReply(answered)) {
        action = answered.action;
        if (answered.note !== undefined) {
          const error = noteError(answered.note);
          if (error === null) note = noteToProto(answered.note);
          else this.opts.log(`table ${t.info.tableId}: the bot's note was not sent: ${error}`);
        }
      } else {
        action = answered;
      }
    } catch (e) {
      if (legal === undefined) throw e;
      const what = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
      action = substitute(`act threw ${what}`, `the bot failed (${e instanceof Error ? e.stack : String(e)})`);
    }
    if (legal !== undefined && !this.opts.strict && fallback === undefined) {
      const why = illegalReason(action, legal);
      if (why !== null) {
        const what = `act returned the illegal action ${actionToString(action)}: ${why}`;
        action = substitute(what, what);
        note = undefined;
      }
    }
    const reply: ActionReply = { tableId: req.tableId, requestId: req.requestId, action, note, fallback };
    this.send({ message: { $case: "actionReply", value: reply } });
    this.stats.actionsSent++;
  }
}

/**
 * The messages to send for `pending`: with batching, each run of two or more consecutive replies
 * becomes one ReplyBatch; without, `pending` unchanged.
 */
export function pack(pending: ConnectRequest[], batching: boolean): ConnectRequest[] {
  if (!batching || pending.length < 2) return pending;
  const packed: ConnectRequest[] = [];
  let run: ActionReply[] = [];
  const flush = () => {
    if (run.length === 1) packed.push({ message: { $case: "actionReply", value: run[0] } });
    else if (run.length > 1) packed.push({ message: { $case: "batch", value: { replies: run } } });
    run = [];
  };
  for (const msg of pending) {
    if (msg.message?.$case === "actionReply") {
      run.push(msg.message.value);
    } else {
      flush();
      packed.push(msg);
    }
  }
  flush();
  return packed;
}
