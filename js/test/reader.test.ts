/** The reader's caps and refusals (FORMAT.md "Limits", "A log cut short"), and weak keys. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { weakKey } from "../src/protocol/crypto.js";
import { LogError, parseLog } from "../src/log/records.js";
import { DEFAULT_LIMITS } from "../src/text/stream.js";
import { verifyBytes } from "../src/verify/verify.js";

const log = new Uint8Array(readFileSync(fileURLToPath(new URL("../../../fixtures/matches/eram41-01.tlog", import.meta.url))));

test("an empty file, bytes that are no log, an older version and a log past a cap are refused whole", () => {
  assert.throws(() => parseLog(new Uint8Array(0)), LogError);
  assert.throws(() => parseLog(new TextEncoder().encode("hello")), LogError);
  // what begins with moves is no log, however long the run (a padded JSON form)
  assert.throws(() => parseLog(new TextEncoder().encode("{" + " ".repeat(70_000))), /not a tarneeb log/);
  const v2 = new Uint8Array(log);
  v2[14] = 2; // the version field
  assert.throws(() => parseLog(v2), /version 2/);
  const hands = parseLog(log).hands.length;
  assert.throws(() => parseLog(log, { ...DEFAULT_LIMITS, maxHands: hands - 1 }), /max_hands/);
  assert.throws(() => parseLog(log, { ...DEFAULT_LIMITS, maxBytes: log.length - 1 }), /max_bytes/);
  assert.throws(() => parseLog(log.subarray(0, 100)), /inside its header/);
});

test("a log cut anywhere after its header reads up to the cut and is never clean", async () => {
  const first = parseLog(log).hands[0]!.offset;
  for (const at of [first, first + 3, first + 7, Math.floor(log.length / 2), log.length - 10, log.length - 1]) {
    const cut = parseLog(log.subarray(0, at));
    assert.ok(cut.cut !== null || cut.end === null || cut.signature === null, `cut at ${at}`);
    const v = await verifyBytes(log.subarray(0, at));
    assert.equal(v.verdict, "findings");
    assert.ok(v.findings.some((f) => f.kind === "cut-short" || f.kind === "broken-signature"), `cut at ${at}`);
  }
});

test("a zero-filled tail is a cut, garbage after the header unreadable from where it starts", () => {
  const first = parseLog(log).hands[3]!.offset;
  const zeros = new Uint8Array(log);
  zeros.fill(0, first + 2);
  const z = parseLog(zeros);
  assert.equal(z.cut!.unreadable, false);
  assert.equal(z.hands.length, 3);
  const garbage = new Uint8Array(log);
  garbage[first] = 0xc1; // never msgpack
  const g = parseLog(garbage);
  assert.equal(g.cut!.unreadable, true);
  assert.equal(g.cut!.offset, first);
});

test("weak keys: the identity, small order, y ≥ p; a sound key passes", () => {
  const identity = new Uint8Array(32);
  identity[0] = 1;
  assert.match(weakKey(identity)!, /identity/);
  assert.match(weakKey(new Uint8Array(32))!, /small order/);
  assert.match(weakKey(new Uint8Array(32).fill(0xff))!, /canonical/);
  assert.equal(weakKey(parseLog(log).header.publicKey!), null);
});

test("a log given as anything but bytes is refused with a TypeError naming the call and what it was", async () => {
  const text = new TextDecoder("latin1").decode(log);
  assert.throws(() => parseLog(text as unknown as Uint8Array), /parseLog: the log must be a Uint8Array .*not a string/);
  await assert.rejects(verifyBytes(log.buffer as unknown as Uint8Array), /verifyBytes: .*not an ArrayBuffer \(wrap it/);
  await assert.rejects(verifyBytes(null as unknown as Uint8Array), /verifyBytes: .*not null/);
  await assert.rejects(verifyBytes([...log] as unknown as Uint8Array), /not an array/);
  assert.equal((await verifyBytes(Buffer.from(log))).verdict, "clean"); // a Buffer is bytes
});
