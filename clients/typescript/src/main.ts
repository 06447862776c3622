#!/usr/bin/env node
// The sample bot's command line: `node dist/src/main.js --name NAME [--server HOST:PORT] …`.

import { basename } from "node:path";
import { parseArgs } from "node:util";
import { status } from "@grpc/grpc-js";
import { BotFactory, ClientStats, DEFAULT_SERVER, RookeryClient, RookeryError } from "./client";
import { SampleBot } from "./sampleBot";

const usage = (program: string): string => `usage: ${program} [options]

Connects to a Rookery server and plays every table it is seated at.

options:
  --server HOST:PORT   the server (env ROOKERY_SERVER, default ${DEFAULT_SERVER})
  --name NAME          the bot's name (env ROOKERY_BOT_NAME)
  --token TOKEN        the bot's token in token mode (env ROOKERY_TOKEN)
  --version V          the bot's version, sent in Hello (env ROOKERY_BOT_VERSION,
                       default the bot's own, or none)
  --max-tables N       tables to play at once per session (env ROOKERY_MAX_TABLES, default 1)
  --sessions N         sessions to open, e.g. 2 to sit at two seats of one table
                       (env ROOKERY_SESSIONS, default 1)
  --games N            exit after N finished tables per session (default 0: run until stopped)
  --connect-timeout S  seconds to wait for the server at start (default 10)
  --tls                connect with TLS
  --quiet              log errors only
  --no-batching        send and receive every message alone (batching is on by default)
  -h, --help           this help

exit codes: 0 done; 1 unexpected error; 2 bad arguments; 3 token rejected;
4 server unreachable; 5 session refused by the server (docs/dev/kit-contract.md)`;

function positiveInt(name: string, text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0) {
    throw new RookeryError(`--${name} must be a non-negative integer (flag or environment), got ${JSON.stringify(text)}`);
  }
  return n;
}

/** What a bot's own `main` gives `runMain` when the command line and the environment do not. */
export interface MainDefaults {
  /** The bot's version, sent in Hello when neither --version nor ROOKERY_BOT_VERSION gives one. */
  version?: string;
  /** The name its messages and usage start with; default: its script's file name (`myBot.js`). */
  program?: string;
}

/** Runs `factory` as a bot with the command-line options; resolves with the exit code. */
export async function runMain(
  factory: BotFactory,
  argv: string[] = process.argv.slice(2),
  defaults: MainDefaults = {},
): Promise<number> {
  const program = defaults.program ?? basename(process.argv[1] ?? "rookery-bot");
  const USAGE = usage(program);
  let values;
  try {
    values = parseArgs({
      args: argv,
      options: {
        server: { type: "string" },
        name: { type: "string" },
        token: { type: "string" },
        version: { type: "string" },
        "max-tables": { type: "string" },
        games: { type: "string" },
        "connect-timeout": { type: "string" },
        sessions: { type: "string" },
        tls: { type: "boolean" },
        quiet: { type: "boolean" },
        "no-batching": { type: "boolean" },
        help: { type: "boolean", short: "h" },
      },
      strict: true,
    }).values;
  } catch (e) {
    process.stderr.write(`${e instanceof Error ? e.message : String(e)}\n${USAGE}\n`);
    return 2;
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  let parsed;
  try {
    parsed = {
      sessions: Math.max(1, positiveInt("sessions", values.sessions ?? process.env.ROOKERY_SESSIONS, 1)),
      maxTables: Math.max(1, positiveInt("max-tables", values["max-tables"] ?? process.env.ROOKERY_MAX_TABLES, 1)),
      games: positiveInt("games", values.games, 0),
      connectTimeoutS: positiveInt("connect-timeout", values["connect-timeout"], 10),
    };
  } catch (e) {
    process.stderr.write(`${program}: ${e instanceof Error ? e.message : String(e)}\n${USAGE}\n`);
    return 2;
  }
  try {
    const quiet = values.quiet ?? false;
    const { sessions, maxTables, games } = parsed;
    const clients: RookeryClient[] = [];
    for (let i = 0; i < sessions; i++) {
      const client = new RookeryClient(factory, {
        server: values.server,
        name: values.name,
        token: values.token,
        version: values.version || process.env.ROOKERY_BOT_VERSION || defaults.version,
        maxTables,
        maxGames: games,
        connectTimeoutMs: Math.max(1, parsed.connectTimeoutS) * 1000,
        tls: values.tls,
        batching: !(values["no-batching"] ?? false),
        log: (line) => {
          if (!quiet || /rejected|failed|illegal|refused|cannot/.test(line)) {
            process.stderr.write(`[${values.name ?? process.env.ROOKERY_BOT_NAME}${sessions > 1 ? `#${i}` : ""}] ${line}\n`);
          }
        },
      });
      clients.push(client);
    }
    const stop = () => clients.forEach((c) => c.close());
    process.once("SIGTERM", stop);
    process.once("SIGINT", stop);
    const all: ClientStats[] = await Promise.all(clients.map((c) => c.run()));
    const sum = (f: (s: ClientStats) => number) => all.reduce((n, s) => n + f(s), 0);
    // The kit contract's summary line (docs/dev/kit-contract.md), the same in every kit.
    process.stderr.write(
      `[rookery] done: games=${sum((s) => s.tablesFinished)} actions=${sum((s) => s.actionsSent)} ` +
        `fallbacks=${sum((s) => s.fallbacks)} rejections=${sum((s) => s.rejections)} ` +
        `reconnects=${sum((s) => s.reconnects)} resumes=${sum((s) => s.resumes)} ` +
        `batches_received=${sum((s) => s.batchesReceived)} batches_sent=${sum((s) => s.batchesSent)}\n`,
    );
    return 0;
  } catch (e) {
    process.stderr.write(`${program}: ${e instanceof Error ? e.message : String(e)}\n`);
    return exitCode(e);
  }
}

/** The kit contract's exit code for an error of a run: 3 token rejected, 4 server unreachable,
 * 5 session refused, 1 anything else. */
export function exitCode(e: unknown): number {
  if (!(e instanceof RookeryError) || e.code === undefined) return 1;
  if (e.code === status.UNAUTHENTICATED) return 3;
  if ([status.INVALID_ARGUMENT, status.RESOURCE_EXHAUSTED, status.PERMISSION_DENIED, status.UNIMPLEMENTED].includes(e.code)) return 5;
  return 4;
}

if (require.main === module) {
  runMain(() => new SampleBot(), process.argv.slice(2), { program: "rookery-sample-bot" }).then((code) =>
    process.exit(code),
  );
}
