import { test } from "node:test";
import assert from "node:assert/strict";
import { basename } from "node:path";
import { firstLegal } from "../src/actions";
import { runMain } from "../src/main";

/** runMain's exit code and what it wrote to stderr. */
async function run(argv: string[], program?: string): Promise<{ code: number; stderr: string }> {
  const lines: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  }) as typeof process.stderr.write;
  try {
    const code = await runMain(() => ({ act: (r) => firstLegal(r.legalActions!) }), argv, program ? { program } : {});
    return { code, stderr: lines.join("") };
  } finally {
    process.stderr.write = write;
  }
}

test("a bot's own main names its own script in its messages, not the sample bot", async () => {
  const { code, stderr } = await run(["--sessions", "x"]);
  assert.equal(code, 2);
  const script = basename(process.argv[1]);
  assert.ok(stderr.startsWith(`${script}: --sessions must be`), stderr);
  assert.ok(stderr.includes(`usage: ${script} [options]`), stderr);
  assert.ok(!stderr.includes("rookery-sample-bot"), stderr);
});

test("the program name given to runMain starts its messages", async () => {
  const { stderr } = await run(["--sessions", "x"], "mybot");
  assert.ok(stderr.startsWith("mybot: --sessions must be"), stderr);
});

test("an unreachable server exits 4 under the bot's own name", async () => {
  const { code, stderr } = await run(["--server", "127.0.0.1:1", "--name", "a", "--connect-timeout", "1", "--quiet"], "mybot");
  assert.equal(code, 4, stderr);
  assert.ok(stderr.includes("mybot: the server at 127.0.0.1:1 was unreachable"), stderr);
});
