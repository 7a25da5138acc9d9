/** One value read as the reference reader reads it: exact whole numbers, refusals in byte order. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { encode } from "@msgpack/msgpack";
import { parseLog } from "../src/log/records.js";
import { DEFAULT_LIMITS, scanValue } from "../src/text/stream.js";
import { encodeExact, firstRefusal, isCanonical, readValue } from "../src/text/unpack.js";

const fixture = (name: string) =>
  new Uint8Array(readFileSync(fileURLToPath(new URL(`../../../fixtures/matches/${name}`, import.meta.url))));

test("a recorded deal's 52-bit hands are read as numbers, exactly, and stay canonical", () => {
  const log = parseLog(fixture("eram41-recorded-deals.tlog"));
  const masks = log.hands.flatMap((h) => h.deal?.masks ?? []);
  assert.ok(masks.length >= 16 && masks.some((m) => m > 2 ** 32));
  for (const m of masks) assert.equal(typeof m, "number");
  // the four hands hold every card once
  const deal = log.hands[0]!.deal!.masks;
  assert.equal(deal.reduce((a, m) => a + BigInt(m), 0n), 2n ** 52n - 1n);
});

test("a whole number past 2^53 is a BigInt, never rounded, and its uint64 or int64 is canonical", () => {
  const u64 = Uint8Array.of(0x92, 0xcf, 0x00, 0x20, 0, 0, 0, 0, 0, 0x01, 0xd3, 0x80, 0, 0, 0, 0, 0, 0, 0);
  const v = readValue(u64) as unknown[];
  assert.deepEqual(v, [2n ** 53n + 1n, -(2n ** 63n)]);
  assert.ok(isCanonical(v, u64));
  assert.deepEqual(encodeExact(v), u64);
  // within 2^53 a number, written in its shortest form: a uint64 of 5 is not canonical
  const five = Uint8Array.of(0xcf, 0, 0, 0, 0, 0, 0, 0, 5);
  assert.equal(readValue(five), 5);
  assert.ok(!isCanonical(readValue(five), five));
  const mask = encode(2 ** 52 - 1);
  assert.equal(readValue(mask), 2 ** 52 - 1);
  assert.ok(isCanonical(readValue(mask), mask));
});

test("of a text that is not UTF-8 and a later fault, the text is refused; of an earlier fault, that one", () => {
  const bad = [0xa2, 0xff, 0xfe];
  const lim = DEFAULT_LIMITS;
  assert.equal(firstRefusal(Uint8Array.of(0x92, ...bad, 0xd4, 1, 0), 0, lim), "utf8");  // then an ext
  assert.equal(firstRefusal(Uint8Array.of(0x92, 0xd4, 1, 0, ...bad), 0, lim), null);  // an ext first: the scan's
  assert.equal(firstRefusal(Uint8Array.of(0x93, ...bad), 0, lim), "utf8");  // in a value cut short
  assert.equal(firstRefusal(Uint8Array.of(0x92, 0xa2, 0xff), 0, lim), null);  // its bytes not all there
  // a map key that is not text is refused once its value is read: a bad text there first
  assert.equal(firstRefusal(Uint8Array.of(0x81, 0x07, ...bad), 0, lim), "utf8");
  assert.equal(firstRefusal(Uint8Array.of(0x81, 0x07, 0x01), 0, lim), "int");
  assert.equal(firstRefusal(Uint8Array.of(0x81, 0x90, 0xc0), 0, lim), "list");
  assert.equal(firstRefusal(Uint8Array.of(0x81, 0xa1, 0x61, 0x91, 0x01), 0, lim), null);
  // nesting is walked without recursion, up to msgpack's stack of 1024 open containers:
  // one more is refused there, by the scan
  const nested = (n: number) => {
    const b = new Uint8Array(n + 3).fill(0x91);
    b.set(bad, n);
    return b;
  };
  assert.equal(firstRefusal(nested(1024), 0, lim), "utf8");
  assert.equal(firstRefusal(nested(1025), 0, lim), null);
  assert.equal(scanValue(nested(1025), 0, lim).kind, "error");
  assert.equal(firstRefusal(nested(200_000), 0, lim), null);
});
