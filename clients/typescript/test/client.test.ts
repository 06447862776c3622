import { test } from "node:test";
import assert from "node:assert/strict";
import { Server, ServerCredentials, ServerDuplexStream, status } from "@grpc/grpc-js";
import {
  BotServiceService,
  ConnectRequest,
  ConnectResponse,
  Hello,
} from "../src/gen/rookery/v1/bot_service";
import { Event } from "../src/gen/rookery/v1/events";
import { TerminationReason } from "../src/gen/rookery/v1/results";
import { Phase } from "../src/gen/rookery/v1/actions";
import { Bot, RookeryClient, RookeryError, pack } from "../src/client";
import { firstLegal } from "../src/actions";
import { parseCards } from "../src/cards";

type Call = ServerDuplexStream<ConnectRequest, ConnectResponse>;

/** Reads a call's messages one at a time. */
function reader(call: Call): () => Promise<ConnectRequest> {
  const queue: ConnectRequest[] = [];
  const waiters: ((m: ConnectRequest) => void)[] = [];
  call.on("data", (m: ConnectRequest) => {
    const w = waiters.shift();
    if (w) w(m);
    else queue.push(m);
  });
  return () => {
    const m = queue.shift();
    return m ? Promise.resolve(m) : new Promise((resolve) => waiters.push(resolve));
  };
}

async function nextOf(read: () => Promise<ConnectRequest>, kind: string): Promise<ConnectRequest> {
  for (;;) {
    const m = await read();
    if (m.message?.$case === kind) return m;
  }
}

async function startServer(scripts: ((call: Call) => Promise<void>)[]): Promise<{ addr: string; server: Server }> {
  let calls = 0;
  const server = new Server();
  server.addService(BotServiceService, {
    connect: (call: Call) => {
      const script = scripts[calls++];
      if (script === undefined) {
        call.emit("error", { code: status.UNAVAILABLE, details: "no more scripts" });
        return;
      }
      script(call).catch((e) => call.emit("error", { code: status.INTERNAL, details: String(e) }));
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync("127.0.0.1:0", ServerCredentials.createInsecure(), (err, p) => (err ? reject(err) : resolve(p))),
  );
  return { addr: `127.0.0.1:${port}`, server };
}


function biddingRequest(id: number, tableId = "t1"): ConnectResponse {
  return ConnectResponse.fromPartial({
    message: {
      $case: "actionRequest",
      value: {
        tableId,
        requestId: id,
        seat: 1,
        deadlineMs: 2000,
        observation: { seat: 1, hand: parseCards("B1 B2 B3") },
        legalActions: { phase: Phase.PHASE_BIDDING, canPass: true, bids: [70, 75] },
      },
    },
  });
}

function event(seq: number): ConnectResponse {
  return ConnectResponse.fromPartial({
    message: { $case: "event", value: { tableId: "t1", event: { seq, kind: { $case: "passed", value: { seat: 0 } } } } },
  });
}

test("answers requests, then resumes with its cursors after a drop", async () => {
  const hellos: Hello[] = [];
  const replies: number[] = [];
  const { addr, server } = await startServer([
    async (call) => {
      const read = reader(call);
      hellos.push((await nextOf(read, "hello")).message!.value as Hello);
      call.write(ConnectResponse.fromPartial({ message: { $case: "welcome", value: { sessionId: "s1", resumeSecret: "x", graceMs: 5000 } } }));
      call.write(ConnectResponse.fromPartial({ message: { $case: "tableJoined", value: { tableId: "t1", seat: 1 } } }));
      call.write(event(1));
      call.write(event(2));
      call.write(biddingRequest(7));
      const r = await nextOf(read, "actionReply");
      if (r.message?.$case === "actionReply") replies.push(r.message.value.requestId);
      call.emit("error", { code: status.UNAVAILABLE, details: "network trouble" });
    },
    async (call) => {
      const read = reader(call);
      hellos.push((await nextOf(read, "hello")).message!.value as Hello);
      call.write(ConnectResponse.fromPartial({ message: { $case: "welcome", value: { sessionId: "s1", resumeSecret: "x", resumed: true } } }));
      call.write(
        ConnectResponse.fromPartial({
          message: {
            $case: "tableSnapshot",
            value: { table: { tableId: "t1", seat: 1 }, missedEvents: [{ tableId: "t1", event: (event(3).message!.value as { event: Event }).event }] },
          },
        }),
      );
      call.write(biddingRequest(8));
      const r = await nextOf(read, "actionReply");
      if (r.message?.$case === "actionReply") replies.push(r.message.value.requestId);
      call.write(
        ConnectResponse.fromPartial({
          message: {
            $case: "tableFinished",
            value: { tableId: "t1", seat: 1, result: { reason: TerminationReason.TERMINATION_REASON_TARGET_REACHED } },
          },
        }),
      );
      call.on("end", () => call.end());
    },
  ]);
  try {
    const seqs: number[] = [];
    const bot: Bot = {
      act: (req) => firstLegal(req.legalActions!),
      onEvent: (e) => seqs.push(e.seq),
    };
    const client = new RookeryClient(() => bot, {
      server: addr,
      name: "kit",
      maxTables: 2,
      maxGames: 1,
      backoffInitialMs: 10,
      log: () => {},
    });
    const stats = await client.run();
    assert.equal(hellos[0].name, "kit");
    assert.equal(hellos[0].maxTables, 2);
    assert.equal(hellos[0].resume, undefined);
    assert.deepEqual(hellos[1].resume, { sessionId: "s1", resumeSecret: "x", cursors: [{ tableId: "t1", lastSeq: 2 }] });
    assert.deepEqual(replies, [7, 8]);
    assert.deepEqual(seqs, [1, 2, 3]);
    assert.equal(stats.tablesFinished, 1);
    assert.equal(stats.actionsSent, 2);
    assert.equal(stats.reconnects, 1);
    assert.equal(stats.fallbacks, 0);
  } finally {
    server.forceShutdown();
  }
});

test("stops with a clear error when the server refuses the session", async () => {
  const { addr, server } = await startServer([
    async (call) => {
      await nextOf(reader(call), "hello");
      call.emit("error", { code: status.UNAUTHENTICATED, details: "bad token for bot kit" });
    },
  ]);
  try {
    const client = new RookeryClient(() => ({ act: (req) => firstLegal(req.legalActions!) }), {
      server: addr,
      name: "kit",
      log: () => {},
    });
    await assert.rejects(client.run(), (e: unknown) => {
      assert.ok(e instanceof RookeryError);
      assert.equal(e.message, "the server refused the session: UNAUTHENTICATED: bad token for bot kit");
      return true;
    });
  } finally {
    server.forceShutdown();
  }
});

test("handles a batch in order and answers its requests together in one ReplyBatch", async () => {
  const hellos: Hello[] = [];
  const received: ConnectRequest[] = [];
  const { addr, server } = await startServer([
    async (call) => {
      const read = reader(call);
      hellos.push((await nextOf(read, "hello")).message!.value as Hello);
      call.write(ConnectResponse.fromPartial({ message: { $case: "welcome", value: { sessionId: "s1", batching: true } } }));
      const joined = (tableId: string) =>
        ConnectResponse.fromPartial({ message: { $case: "tableJoined", value: { tableId, seat: 1 } } });
      const messages = [joined("t1"), joined("t2"), event(1), event(2), biddingRequest(7), biddingRequest(9, "t2")];
      call.write(ConnectResponse.fromPartial({ message: { $case: "batch", value: { messages } } }));
      received.push(await nextOf(read, "batch"));
      for (const tableId of ["t1", "t2"]) {
        call.write(ConnectResponse.fromPartial({ message: { $case: "tableFinished", value: { tableId, seat: 1 } } }));
      }
      call.on("end", () => call.end());
    },
  ]);
  try {
    // Each table's bot sees its own messages in order (tables run side by side).
    const seen: Record<string, string[]> = { t1: [], t2: [] };
    const client = new RookeryClient(
      (table) => ({
        act: (req) => {
          seen[table.tableId].push(`act ${req.requestId}`);
          return firstLegal(req.legalActions!);
        },
        onEvent: (e) => seen[table.tableId].push(`event ${e.seq}`),
      }),
      { server: addr, name: "kit", maxTables: 2, maxGames: 2, log: () => {} },
    );
    const stats = await client.run();
    assert.equal(hellos[0].batching, true);
    assert.deepEqual(seen, { t1: ["event 1", "event 2", "act 7"], t2: ["act 9"] });
    const batch = received[0].message;
    assert.equal(batch?.$case, "batch");
    if (batch?.$case === "batch") {
      assert.deepEqual(
        batch.value.replies.map((r) => `${r.tableId} ${r.requestId}`).sort(),
        ["t1 7", "t2 9"],
      );
    }
    assert.equal(stats.batchesReceived, 1);
    assert.equal(stats.batchesSent, 1);
    assert.equal(stats.tablesFinished, 2);
  } finally {
    server.forceShutdown();
  }
});

test("pack puts consecutive replies in one ReplyBatch, and only with batching", () => {
  const reply = (requestId: number): ConnectRequest => ({
    message: { $case: "actionReply", value: { tableId: "t1", requestId, action: undefined, note: undefined, fallback: undefined } },
  });
  const ping: ConnectRequest = { message: { $case: "ping", value: { nonce: 1 } } };
  const pending = [reply(1), reply(2), ping, reply(3)];

  const packed = pack(pending, true);

  assert.equal(packed.length, 3);
  assert.equal(packed[0].message?.$case, "batch");
  if (packed[0].message?.$case === "batch") {
    assert.deepEqual(packed[0].message.value.replies.map((r) => r.requestId), [1, 2]);
  }
  assert.deepEqual(packed.slice(1), [ping, reply(3)]);
  assert.deepEqual(pack(pending, false), pending);
});

test("batching: false leaves Hello.batching unset", async () => {
  const hellos: Hello[] = [];
  const { addr, server } = await startServer([
    async (call) => {
      hellos.push((await nextOf(reader(call), "hello")).message!.value as Hello);
      call.emit("error", { code: status.UNAUTHENTICATED, details: "done" });
    },
  ]);
  try {
    const client = new RookeryClient(() => ({ act: (req) => firstLegal(req.legalActions!) }), {
      server: addr,
      name: "kit",
      batching: false,
      log: () => {},
    });
    await assert.rejects(client.run());
    assert.equal(hellos[0].batching, false);
  } finally {
    server.forceShutdown();
  }
});
