/**
 * The writer for Node servers on a match dealt blind, and taking a log up again after a crash:
 * the fixture blind log recorded again from what it holds is the same bytes; the blind
 * refusals; resume's cuts, refusals and the recorder it stands up.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type Bytes } from "../src/text/bytes.js";
import { Match, Phase } from "../src/rules/engine.js";
import { legalActions } from "../src/engine-server.js";
import { type ParsedLog, parseLog } from "../src/log/records.js";
import { PRESETS } from "../src/rules/rules.js";
import {
  MatchRecorder, MatchSeeds, RecorderError, generateSigningKey, newClientSeed, newMatchId, newServerSeed, rawPublicKey,
} from "../src/server.js";
import { verifyBytes } from "../src/verify/verify.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const FIXTURE = new Uint8Array(readFileSync(root + "fixtures/matches/qahwa5-blind.tlog"));
const dir = mkdtempSync(join(tmpdir(), "tarneeb-resume-"));
let n = 0;
const fresh = () => join(dir, `m${n++}.tlog`);

/** A new recorder for the header of `log`, writing to `path`. */
function again(log: ParsedLog, path: string): MatchRecorder {
  const h = log.header;
  return MatchRecorder.create({
    path, rules: h.rules, seats: h.seats, matchId: h.matchId, firstDealer: h.firstDealer, publicKey: h.publicKey,
    serverCommitment: h.serverCommitment, clientCommitments: h.clientCommitments, clientSeeds: h.clientSeeds,
    dealing: h.blind ? "blind" : "seeds",
  });
}

/** The recorder calls that write `log` after its header, one value each. */
function calls(log: ParsedLog): ((rec: MatchRecorder) => number)[] {
  const out: ((rec: MatchRecorder) => number)[] = [];
  const named = log.header.rules.trump === "named";
  for (const h of log.hands) {
    const timer = (k: number) => ((h.timer >> BigInt(k)) & 1n) === 1n;
    const before = h.calls.length + (named && h.trump !== null ? 1 : 0);
    out.push((rec) => rec.deal({ dealer: h.dealer, revealed: h.revealed, blind: h.blind }));
    h.calls.forEach(([seat, call], k) => out.push((rec) => rec.call({ seat, bid: call === 15 ? "pass" : call, timer: timer(k) })));
    if (named && h.trump !== null) out.push((rec) => rec.nameTrump({ suit: h.trump!, timer: timer(h.calls.length) }));
    h.plays.forEach((card, k) => out.push((rec) => rec.play({ card, timer: timer(before + k), proof: h.blind?.plays.get(k) ?? null })));
    if (h.closed) out.push((rec) => rec.claim({ totals: h.totals!, tricks: h.tricks, scores: h.scores, trump: named ? null : h.trump }));
  }
  const end = log.end!;
  out.push((rec) => (end.abandoned ? rec.abandon({ ...end.abandoned, cause: end.abandoned.cause as "timeout", serverSeed: end.serverSeed })
    : rec.finish({ winner: end.winner as 0 | 1, serverSeed: end.serverSeed })));
  for (const k of log.keys) out.push((rec) => rec.revealKeys(k));
  return out;
}

test("a blind log recorded again from what it holds is the same bytes, signature and all", async () => {
  const log = parseLog(FIXTURE);
  assert.ok(log.header.blind && log.hands.every((h) => h.blind) && log.keys.length);
  const path = fresh();
  const rec = again(log, path);
  for (const call of calls(log)) call(rec);
  assert.deepEqual(rec.writer.signedBytes, log.signedBytes);
  await rec.sign(() => log.signature!); // the fixture's signature: an HSM that signs these bytes
  assert.deepEqual(new Uint8Array(readFileSync(path)), FIXTURE);
});

test("a match dealt blind: each deal with its transcript, each card with its proof, keys after the end; else refused, nothing written", () => {
  const log = parseLog(FIXTURE);
  const h = log.hands[0]!;
  const rec = again(log, fresh());
  const size = rec.writer.size;
  assert.throws(() => rec.deal({ dealer: h.dealer }), /gives each deal's transcript/);
  assert.throws(() => rec.deal({ dealer: h.dealer, blind: { ...h.blind!, publics: h.blind!.publics.subarray(1) } }), /blind: publics must be 128 bytes/);
  assert.throws(() => rec.deal({ dealer: h.dealer, blind: { ...h.blind!, shuffleProofs: null, v1Proofs: null } }), /blind: .*partial_proofs/);
  assert.equal(rec.writer.size, size);
  rec.deal({ dealer: h.dealer, revealed: h.revealed, blind: h.blind });
  const dealt = rec.writer.size;
  h.calls.forEach(([seat, call]) => rec.call({ seat, bid: call === 15 ? "pass" : call }));
  const called = rec.writer.size;
  assert.throws(() => rec.play({ card: h.plays[0]! }), /every card comes with its proof/);
  assert.throws(() => rec.play({ card: h.plays[0]!, proof: [52, h.blind!.plays.get(0)![1]] }), /\[position 0-51, 64-byte proof\]/);
  assert.throws(() => rec.play({ card: h.plays[0]!, proof: [0, new Uint8Array(63)] }), /64-byte proof/);
  assert.throws(() => rec.revealKeys(log.keys[0]!), /after the end of a match dealt blind/);
  assert.equal(rec.writer.size, called);
  assert.ok(dealt - size > 19_000); // the transcript (19.5 KB under v3) went with the deal record, in the same call
  rec.close();
  const seeds = MatchRecorder.create({ path: fresh(), rules: "qahwa41", seats: ["A", "B", "C", "D"], matchId: Uint8Array.of(1), firstDealer: 0 });
  assert.throws(() => seeds.deal({ dealer: 0, blind: h.blind }), /and only such a match/);
  seeds.deal({ dealer: 0 });
  assert.throws(() => seeds.play({ card: 3, proof: [0, new Uint8Array(64)] }), /and only there/);
  seeds.close();
  assert.throws(() => MatchRecorder.create({ path: fresh(), rules: "qahwa41", seats: ["A", "B", "C", "D"], matchId: Uint8Array.of(1), firstDealer: 0, dealing: "blind" }),
    /commits to seeds too/);
});

test("resume: a card without its proof is cut and written again whole; a deal without its blind record too", async () => {
  const log = parseLog(FIXTURE);
  const h = log.hands[0]!;
  // the header, the deal with its blind record, the calls, four cards with their proofs: then the fifth card
  const cardEnd = log.ends[h.calls.length + 5]! + 1;
  assert.equal(FIXTURE[cardEnd - 1], 1 + h.plays[4]!);
  const path = fresh();
  writeFileSync(path, FIXTURE.subarray(0, cardEnd));
  const rec = await MatchRecorder.resume({ path });
  assert.equal(rec.cut, `cut 1 bytes from byte ${(cardEnd - 1).toLocaleString("en-US")}: unreadable from byte ${cardEnd - 1}: hand 1's last card without its proof record`);
  assert.equal(rec.writer.size, cardEnd - 1);
  assert.equal(rec.moves, h.calls.length + 4);
  rec.play({ card: h.plays[4]!, proof: h.blind!.plays.get(4)! });
  rec.close();
  assert.deepEqual(new Uint8Array(readFileSync(path)), FIXTURE.subarray(0, log.ends[h.calls.length + 6]!));
  writeFileSync(path, FIXTURE.subarray(0, h.offset + 6)); // the deal record, its blind record lost
  const dealt = await MatchRecorder.resume({ path, durability: "fsync" });
  assert.match(dealt.cut!, /hand 1's deal record without its blind record$/);
  assert.equal(statSync(path).size, h.offset);
  dealt.deal({ dealer: h.dealer, revealed: h.revealed, blind: h.blind });
  dealt.close();
  assert.deepEqual(new Uint8Array(readFileSync(path)), FIXTURE.subarray(0, log.ends[1]!));
});

test("resume after the end record: the keys and the signature still to come", async () => {
  const log = parseLog(FIXTURE);
  const path = fresh();
  writeFileSync(path, FIXTURE.subarray(0, log.ends.find((e) => e > log.endOffset!)));
  const rec = await MatchRecorder.resume({ path });
  assert.equal(rec.cut, null);
  assert.throws(() => rec.finish({ winner: 0, serverSeed: null }), /ended already/);
  rec.revealKeys(log.keys[0]!);
  await rec.sign(() => log.signature!);
  assert.deepEqual(new Uint8Array(readFileSync(path)), FIXTURE);
});

test("resume refuses a signed log, a file that is no log, a durability it does not know", async () => {
  const signed = fresh();
  writeFileSync(signed, FIXTURE);
  await assert.rejects(MatchRecorder.resume({ path: signed }), (e: Error) => e instanceof RecorderError && e.message === `${signed}: the log is signed: the match is over`);
  const torn = fresh();
  writeFileSync(torn, FIXTURE.subarray(0, 10));
  await assert.rejects(MatchRecorder.resume({ path: torn }), new RegExp(`^RecorderError: cannot go on with this log: ${torn}: byte 10: log cut short inside its header`));
  await assert.rejects(MatchRecorder.resume({ path: signed, durability: "often" }), /give flush, fsync or group:MS/);
  await assert.rejects(MatchRecorder.resume({ path: join(dir, "none.tlog") }), /cannot go on with .*none\.tlog: No such file or directory/);
  assert.deepEqual(new Uint8Array(readFileSync(signed)), FIXTURE); // untouched
});

/** A match on fresh seeds up to `moves` moves into its first hand, the server stopped there. */
async function stopped(moves: number): Promise<{ path: string; serverSeed: Bytes; engine: Match; keys: CryptoKeyPair; publicKey: Bytes }> {
  const path = fresh();
  const keys = await generateSigningKey();
  const publicKey = await rawPublicKey(keys.publicKey);
  const serverSeed = newServerSeed(), matchId = newMatchId();
  const clientSeeds = [0, 1, 2, 3].map(() => newClientSeed());
  const seeds = await MatchSeeds.create({ serverSeed, matchId, clientSeeds });
  const firstDealer = await seeds.firstDealer();
  const clientCommitments = await Promise.all(clientSeeds.map((s, seat) => MatchSeeds.clientCommitment(seeds.binding, matchId, seat, s)));
  const rec = MatchRecorder.create({ path, rules: "qahwa41", seats: ["A", "B", "C", "D"], matchId, firstDealer, publicKey,
    serverCommitment: seeds.serverCommitment, clientCommitments, clientSeeds, durability: "group:5" });
  const engine = new Match(PRESETS.qahwa41!, firstDealer);
  const deal = await seeds.deal(0, firstDealer);
  engine.deal(deal.hands, deal.thirteenth);
  rec.deal({ dealer: firstDealer });
  for (let k = 0; k < moves; k++) move(rec, engine);
  rec.close();
  return { path, serverSeed, engine, keys, publicKey };
}

function move(rec: MatchRecorder, engine: Match): void {
  const seat = engine.current!;
  const a = engine.phase === Phase.BID ? 55 : legalActions(engine)[0]!;
  engine.applyUnchecked(a);
  if (a >= 52) rec.call({ seat, bid: a - 52 });
  else rec.play({ card: a });
}

test("resume cuts a zero-filled tail, stands in the hand with its moves, and the match goes on to a clean log", async () => {
  const { path, serverSeed, engine, keys, publicKey } = await stopped(9);
  const size = statSync(path).size;
  appendFileSync(path, new Uint8Array(4096)); // a power loss: the file's tail zero-filled
  const rec = await MatchRecorder.resume({ path, durability: "group:5", serverSeed });
  assert.equal(rec.cut, `cut 4,096 bytes from byte ${size.toLocaleString("en-US")}: cut at byte ${size}: the rest of the file (4,096 bytes) is zeros, not records`);
  assert.equal(rec.moves, 9);
  assert.throws(() => rec.deal({ dealer: 0 }), /hand 1 is open/);
  for (let k = 0; k < 3; k++) move(rec, engine);
  rec.abandon({ cause: "server-fault", seat: null, reason: "restarted after a crash", serverSeed });
  await rec.sign(keys.privateKey);
  const verdict = await verifyBytes(readFileSync(path), path, { serverSeed, publicKey });
  assert.equal(verdict.verdict, "clean", JSON.stringify(verdict.findings));
  assert.match(verdict.ending!, /server failed: restarted after a crash/);
});

test("resume with the server seed cuts a move that breaks the rules, as verify judges it", async () => {
  const { path, serverSeed, engine } = await stopped(2);
  assert.equal(engine.phase, Phase.BID);
  const turn = engine.current!, other = (turn + 1) % 4;
  const size = statSync(path).size;
  appendFileSync(path, Uint8Array.of(0x40 | (other << 4) | 5, 0xc1)); // a call out of turn, then bytes no writer writes
  const image = readFileSync(path);
  const rec = await MatchRecorder.resume({ path, serverSeed });
  assert.equal(rec.writer.size, size);
  assert.equal(rec.cut, `cut 2 bytes from byte ${size}: unreadable from byte ${size}: read as play, the value there would make a finding `
    + `(hand 1, seat ${other}: seat ${other} made a call (bid 5) when it was seat ${turn}'s turn); the last values of a log that ends unsigned may be bytes a power loss left, so they are not judged`);
  assert.equal(rec.moves, 2);
  rec.close();
  writeFileSync(path, image);
  const unseeded = await MatchRecorder.resume({ path }); // without the seed no hand is replayed: the call is kept
  assert.equal(unseeded.writer.size, size + 1);
  assert.equal(unseeded.moves, 3);
  unseeded.close();
});
