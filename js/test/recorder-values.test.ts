/**
 * The recorder refuses, with RecorderError and writing nothing, every value a log's reader
 * would refuse or read as other bytes, as plain JavaScript may pass them (no types checked):
 * a value written unreadable would make the log unreadable from there, every move
 * acknowledged after it with it, and once signed the log could not be taken up again.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  MatchRecorder, type MatchRecorderOptions, MatchSeeds, RecorderError, generateSigningKey, rawPublicKey,
} from "../src/server.js";
import { verifyBytes } from "../src/verify/verify.js";

const dir = mkdtempSync(join(tmpdir(), "tarneeb-values-"));
let n = 0;
const fresh = () => join(dir, `m${n++}.tlog`);
const serverSeed = Uint8Array.from({ length: 32 }, (_, i) => i);
const matchId = new TextEncoder().encode("m-1");
const clientSeeds = [0, 1, 2, 3].map((s) => new Uint8Array(16).fill(s));
const keys = await generateSigningKey();
const publicKey = await rawPublicKey(keys.publicKey);
const seeds = await MatchSeeds.create({ serverSeed, matchId, clientSeeds });
const clientCommitments = await Promise.all(clientSeeds.map((s, seat) => MatchSeeds.clientCommitment(seeds.binding, matchId, seat, s)));
const firstDealer = await seeds.firstDealer();
const revealed = (await seeds.deal(0, firstDealer)).thirteenth;

/** A header on the seed protocol, with `changes` as plain JavaScript may give them. */
const header = (changes: Record<string, unknown> = {}): MatchRecorderOptions => ({
  path: fresh(), rules: "eram41", seats: ["Ann", "Ben", "Cat", "Dan"], matchId, firstDealer, publicKey,
  serverCommitment: seeds.serverCommitment, clientCommitments, clientSeeds, ...changes,
} as MatchRecorderOptions);

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

test("a header the reader refuses, or would read as other bytes, is not written", () => {
  const cases: Record<string, unknown>[] = [
    { publicKey: hex(publicKey) }, { publicKey: new Uint8Array(5) }, { publicKey: [...publicKey] },
    { serverCommitment: hex(seeds.serverCommitment) }, { clientCommitments: clientCommitments.slice(0, 3) },
    { clientSeeds: clientSeeds.map(hex) }, { matchId: "m-1" }, { matchId: [1, 300] }, { matchId: new Uint8Array(65) },
    { matchId: null }, { seats: "ABCD" }, { seats: [null, "Ben", "Cat", "Dan"] }, { seats: [{ name: 5 }, "Ben", "Cat", "Dan"] },
    { seats: [{ name: "Ann", computer: "no" }, "Ben", "Cat", "Dan"] }, { seats: ["x".repeat(5000), "Ben", "Cat", "Dan"] },
    { season: { index: "0", size: 1, path: [], root: new Uint8Array(32), headSignature: new Uint8Array(64) } },
    { durability: { mode: "often" } }, { durability: { mode: "group", intervalMs: "5" } },
  ];
  for (const changes of cases) {
    const options = header(changes);
    assert.throws(() => MatchRecorder.create(options), RecorderError, JSON.stringify(changes));
    assert.equal(existsSync(options.path), false, JSON.stringify(changes));
  }
  assert.throws(() => MatchRecorder.create(header({ publicKey: new Uint8Array(5) })), /public_key must be 32 bytes/);
  assert.throws(() => MatchRecorder.create(header({ matchId: "m-1" })), /matchId must be bytes/);
});

/** A recorder of a match on the seed protocol, in its first hand. */
function dealt(): { rec: MatchRecorder; path: string } {
  const options = header();
  const rec = MatchRecorder.create(options);
  rec.deal({ dealer: firstDealer, revealed });
  return { rec, path: options.path };
}

test("a claim without totals, or with figures that are not a list, is refused and the hand stays open", () => {
  const { rec, path } = dealt();
  const size = statSync(path).size;
  const claim = (o: Record<string, unknown>) => () => rec.claim(o as never);
  assert.throws(claim({}), /totals must be four whole numbers/);
  assert.throws(claim({ totals: "1234" }), /totals must be four whole numbers/);
  assert.throws(claim({ totals: [0, 0, 0, 0], tricks: "3334", scores: [0, 0, 0, 0] }), /tricks must be four/);
  assert.throws(claim({ totals: [0, 0, 0, 0], trump: null, tricks: [1, 1, 1, 1], scores: [0, 0, 0, 0n] }), /scores must be four/);
  assert.equal(statSync(path).size, size);
  rec.claim({ totals: [0, 0, 0, 0] }); // the hand is still open: a claim that reads closes it
  rec.close();
});

test("an end record the reader refuses is not written, and the match can still end", async () => {
  const { rec, path } = dealt();
  const size = statSync(path).size;
  for (const seed of [hex(serverSeed), serverSeed.subarray(0, 5), 5, [...serverSeed]]) {
    assert.throws(() => rec.abandon({ cause: "server-fault", seat: null, reason: "restarted", serverSeed: seed as never }), /server_?[sS]eed/);
  }
  assert.throws(() => rec.abandon({ cause: "server-fault", seat: null, reason: 42 as never, serverSeed }), /reason must be text/);
  assert.equal(statSync(path).size, size);
  rec.abandon({ cause: "server-fault", seat: null, reason: "restarted", serverSeed }); // not ended: it can end now
  await rec.sign(keys.privateKey);
  const verdict = await verifyBytes(readFileSync(path), path, { publicKey });
  assert.equal(verdict.error, null);
  assert.equal(verdict.verdict, "clean", JSON.stringify(verdict.findings));
  assert.match(verdict.ending ?? "", /restarted/);
});

test("a finished match's seed is taken as 32 bytes only", () => {
  const { rec, path } = dealt();
  rec.claim({ totals: [0, 0, 0, 0] });
  const size = statSync(path).size;
  assert.throws(() => rec.finish({ winner: 0, serverSeed: hex(serverSeed) as never }), /serverSeed must be bytes/);
  assert.throws(() => rec.finish({ winner: 0, serverSeed: new Uint8Array(31) }), /server_seed must be 32 bytes/);
  assert.equal(statSync(path).size, size);
  rec.finish({ winner: 0, serverSeed });
  rec.close();
});

test("cards, suits, hands and proofs of another type are refused with RecorderError", () => {
  const { rec, path } = dealt();
  const size = statSync(path).size;
  for (const card of [null, undefined, 5n, { card: 5 }]) assert.throws(() => rec.play({ card: card as never }), RecorderError);
  assert.throws(() => rec.claim({ totals: [0, 0, 0, 0], trump: [1] as never }), RecorderError);
  assert.equal(statSync(path).size, size);
  rec.close();
  const recorded = MatchRecorder.create(header({ serverCommitment: null, clientCommitments: null, clientSeeds: null }));
  assert.throws(() => recorded.deal({ dealer: 0, hands: [1, 2, 4, 8] as never }), /four lists of cards/);
  recorded.close();
});

test("resume takes the server seed as 32 bytes, and cuts nothing when refused", async () => {
  const { rec, path } = dealt();
  rec.close();
  const before = readFileSync(path);
  for (const seed of [hex(serverSeed), [...serverSeed], serverSeed.subarray(0, 5)]) {
    await assert.rejects(MatchRecorder.resume({ path, serverSeed: seed as never }), /serverSeed must be/);
  }
  assert.deepEqual(readFileSync(path), before);
  (await MatchRecorder.resume({ path, serverSeed })).close();
});
