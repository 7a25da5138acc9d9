/**
 * One recorder per log: the Node recorder holds the log's lock — the Python recorder's,
 * flock(2) — from create or resume until sign or close. A second recorder is refused with the
 * Python recorder's words and the file is left as it is; the lock goes when the log is signed
 * or closed, and when the process holding it dies, SIGKILL too; a recorder never keeps its
 * process alive; without flock(1) the recorder goes on without a lock, never a crash.
 * (tests/test_recorder_lock_interop.py: the Node and the Python recorders refuse each other.)
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { appendFileSync, closeSync, existsSync, mkdtempSync, openSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { held, lockWith } from "../src/recorder/filelock.js";
import { MatchRecorder, RecorderError, generateSigningKey } from "../src/server.js";

const dir = mkdtempSync(join(tmpdir(), "tarneeb-lock-"));
let n = 0;
const fresh = () => join(dir, `m${n++}.tlog`);
const FLOCK = "/usr/bin/flock";
const skip = process.platform !== "linux" || !existsSync(FLOCK) ? "no util-linux flock(1) here: the recorder takes no lock" : false;

/** Whether another open of `path` is refused its flock (what a Python recorder would be). */
function locked(path: string): boolean {
  const probe = spawnSync(FLOCK, ["-x", "-n", "-E", "88", path, "true"]);
  assert.ok(probe.status === 0 || probe.status === 88, String(probe.stderr));
  return probe.status === 88;
}

function start(path: string): MatchRecorder {
  const rec = MatchRecorder.create({ path, rules: "eram41", seats: ["A", "B", "C", "D"], matchId: Uint8Array.of(1), firstDealer: 2 });
  rec.deal({ dealer: 2, revealed: "A♠" });
  rec.call({ seat: 3, bid: 5 });
  return rec;
}

const refused = (path: string) => (e: unknown) => e instanceof RecorderError && e.message === held(path);

test("a second recorder is refused a log a recorder holds, and leaves the file as it is", { skip }, async () => {
  const path = fresh();
  const first = start(path);
  appendFileSync(path, Uint8Array.of(0xc1, 0xc1)); // bytes no writer writes: a resume would cut them
  const before = readFileSync(path);
  await assert.rejects(MatchRecorder.resume({ path }), refused(path));
  assert.deepEqual(readFileSync(path), before); // nothing cut, nothing written
  first.close();
  const second = await MatchRecorder.resume({ path }); // the lock went with the close
  assert.match(second.cut ?? "", /cut 2 bytes/);
  const cut = readFileSync(path);
  await assert.rejects(MatchRecorder.resume({ path }), refused(path)); // a resumed recorder holds it too
  assert.deepEqual(readFileSync(path), cut);
  second.call({ seat: 0, bid: 6 });
  second.close();
  (await MatchRecorder.resume({ path })).close();
});

test("the lock is flock's, from create until sign, from resume until close", { skip }, async () => {
  const path = fresh();
  const rec = start(path);
  assert.equal(locked(path), true);
  rec.abandon({ cause: "server-fault", seat: null, reason: "stopped", serverSeed: null });
  assert.equal(locked(path), true);
  await rec.sign((await generateSigningKey()).privateKey);
  assert.equal(locked(path), false); // signed: the log is free while the process goes on
  const other = fresh();
  start(other).close();
  assert.equal(locked(other), false);
  const resumed = await MatchRecorder.resume({ path: other });
  assert.equal(locked(other), true);
  resumed.close();
  assert.equal(locked(other), false);
});

/** A Node process that starts a recorder on `path`, says "ready", then `then` (a statement). */
function holder(path: string, then: string) {
  const server = new URL("../src/server.js", import.meta.url).href;
  const script = `import { MatchRecorder } from ${JSON.stringify(server)};
    const rec = MatchRecorder.create({ path: ${JSON.stringify(path)}, rules: "eram41", seats: ["A", "B", "C", "D"], matchId: Uint8Array.of(1), firstDealer: 2 });
    rec.deal({ dealer: 2, revealed: "A♠" });
    process.stdout.write("ready\\n");
    ${then}`;
  const child = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: ["ignore", "pipe", "inherit"] });
  const exited = once(child, "exit");
  const lines = createInterface({ input: child.stdout! });
  return { child, exited, ready: once(lines, "line") };
}

test("the lock goes when the process holding it is killed with SIGKILL", { skip, timeout: 120_000 }, async () => {
  const path = fresh();
  const { child, exited, ready } = holder(path, "setInterval(() => {}, 60_000);");
  try {
    assert.deepEqual(await ready, ["ready"]);
    assert.equal(locked(path), true);
    await assert.rejects(MatchRecorder.resume({ path }), refused(path));
  } finally { // killed whatever happened: a failure must not leave it running
    child.kill("SIGKILL");
  }
  assert.deepEqual(await exited, [null, "SIGKILL"]);
  const size = readFileSync(path).length;
  assert.equal(locked(path), false); // dropped before the parent saw the process dead
  const rec = await MatchRecorder.resume({ path });
  assert.equal(rec.writer.size, size);
  rec.close();
});

test("a recorder never keeps its process alive, closed or not", { skip, timeout: 120_000 }, async () => {
  const path = fresh();
  const { child, exited, ready } = holder(path, "rec.call({ seat: 3, bid: 5 }); // never closed");
  const stuck = setTimeout(() => child.kill("SIGKILL"), 60_000); // a failure, not a hang
  assert.deepEqual(await ready, ["ready"]);
  assert.deepEqual(await exited, [0, null]); // nothing left to wait for: the process ends
  clearTimeout(stuck);
  assert.equal(locked(path), false);
});

test("without a flock(1) that locks, the recorder goes on without a lock: never a crash, never a refusal", () => {
  const path = fresh();
  const fd = openSync(path, "wx");
  try {
    assert.equal(lockWith(fd, join(dir, "no-such-flock")), "absent");
    assert.equal(lockWith(fd, "false"), "none"); // a command that fails: no lock, not "held"
  } finally {
    closeSync(fd);
  }
});
