/** The writer for Node servers: the recorder's bytes, its refusals, durability and signing. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { toHex } from "../src/text/bytes.js";
import { Match, Phase } from "../src/rules/engine.js";
import { legalActions } from "../src/engine-server.js";
import { PRESETS } from "../src/rules/rules.js";
import {
  MatchRecorder, MatchSeeds, RecorderError, generateSigningKey, newClientSeed, newMatchId, newServerSeed,
  parseCard, parseDurability, privateKeyFromPem, privateKeyPem, publicKeyOf, rawPublicKey,
} from "../src/server.js";
import { verifyBytes } from "../src/verify/verify.js";

const dir = mkdtempSync(join(tmpdir(), "tarneeb-rec-"));
let n = 0;
const fresh = () => join(dir, `m${n++}.tlog`);

test("each move is one byte, written at once (the Python recorder's doctest)", () => {
  const path = fresh();
  const rec = MatchRecorder.create({ path, rules: "qahwa41", seats: ["Ann", "Ben", "Cat", "Dan"],
    matchId: new TextEncoder().encode("m-1"), firstDealer: 0 });
  const start = rec.deal({ dealer: 0 });
  assert.equal(rec.call({ seat: 1, bid: 6 }) - start, 6);
  assert.equal(rec.call({ seat: 2, bid: "pass" }) - start, 7);
  const data = readFileSync(path);
  assert.equal(toHex(data.subarray(start + 6)), "566f"); // on disk before the call returned
  assert.equal(rec.call({ seat: 3, bid: 4, timer: true }) - start, 8);
  assert.equal(toHex(readFileSync(path).subarray(start + 8)), "ccf4"); // a timer move: two bytes
  rec.close();
});

test("calls out of order or out of range are refused and write nothing", () => {
  const path = fresh();
  const rec = MatchRecorder.create({ path, rules: "eram41", seats: ["A", "B", "C", "D"], matchId: Uint8Array.of(1), firstDealer: 2 });
  const size = statSync(path).size;
  assert.throws(() => rec.play({ card: "10♥" }), /before the hand's deal/);
  assert.throws(() => rec.claim({ totals: [0, 0, 0, 0] }), RecorderError);
  rec.deal({ dealer: 2, revealed: "A♠" });
  const dealt = statSync(path).size;
  assert.ok(dealt > size);
  assert.throws(() => rec.call({ seat: 4, bid: 5 }), /seat must be 0-3/);
  assert.throws(() => rec.call({ seat: 1, bid: 14 }), /a bid is 0-13/);
  assert.throws(() => rec.play({ card: "11♥" }), /not a card/);
  assert.throws(() => rec.nameTrump({ suit: "♥" }), /not named by a player/);
  assert.throws(() => rec.claim({ totals: [0, 0, 0], tricks: null, scores: null }), /four whole numbers/);
  assert.throws(() => rec.claim({ totals: [0, 0, 0, 0], tricks: [3, 3, 3, 4] }), /go together/);
  assert.throws(() => rec.deal({ dealer: 3 }), /hand 1 is open/);
  assert.throws(() => rec.finish({ winner: 0, serverSeed: null }), /hand 1 is open/);
  assert.equal(statSync(path).size, dealt);
  assert.throws(() => MatchRecorder.create({ path, rules: "eram41", seats: ["A", "B", "C", "D"], matchId: Uint8Array.of(1), firstDealer: 0 }),
    /exists: a recorder never writes over a log \(resume/); // a log is never overwritten
  assert.throws(() => MatchRecorder.create({ path: fresh(), rules: "eram42", seats: ["A", "B", "C", "D"], matchId: Uint8Array.of(1), firstDealer: 0 }),
    /no preset named/);
  assert.throws(() => MatchRecorder.create({ path: fresh(), rules: "eram41", seats: ["A\u202e", "B", "C", "D"], matchId: Uint8Array.of(1), firstDealer: 0 }),
    /U\+202E/);
  assert.throws(() => MatchRecorder.create({ path: fresh(), rules: { ...PRESETS.eram41!, target: 61 }, seats: ["A", "B", "C", "D"], matchId: Uint8Array.of(1), firstDealer: 0 }),
    /depart from that preset/);
  rec.close();
});

test("cards and durabilities by name", () => {
  assert.equal(parseCard("10♥"), 34);
  assert.equal(parseCard("as"), 51);
  assert.equal(parseCard(0), 0);
  assert.deepEqual(parseDurability("group:5"), { mode: "group", intervalMs: 5 });
  assert.throws(() => parseDurability("group:0"), /above 0 ms and at most 60,000 ms/);
  assert.throws(() => parseDurability("group:inf"), /above 0 ms and at most 60,000 ms, not inf/); // (a timer that never fires)
  assert.throws(() => parseDurability("often"), /flush, fsync or group:MS/);
});

test("group commit: waitDurable resolves only once an fsync covers every byte", async () => {
  const path = fresh();
  const rec = MatchRecorder.create({ path, rules: "qahwa41", seats: ["A", "B", "C", "D"], matchId: Uint8Array.of(7), firstDealer: 0, durability: "group:20" });
  rec.deal({ dealer: 0 });
  rec.call({ seat: 1, bid: 3 });
  const size = rec.writer.size;
  assert.ok(rec.writer.durableSize < size, "not durable at once: the fsync comes within 20 ms");
  assert.equal(await rec.waitDurable(), true);
  assert.ok(rec.writer.durableSize >= size);
  rec.call({ seat: 2, bid: 3 });
  assert.equal(await rec.waitDurable(0), rec.writer.durableSize >= rec.writer.size);
  assert.equal(await rec.waitDurable(1000), true);
  rec.close();
});

test("fsync: each value is durable when the call returns; flush: waitDurable answers at once", async () => {
  const rec = MatchRecorder.create({ path: fresh(), rules: "classic", seats: ["A", "B", "C", "D"], matchId: Uint8Array.of(7), firstDealer: 0, durability: "fsync" });
  rec.deal({ dealer: 0 });
  assert.equal(rec.writer.durableSize, rec.writer.size);
  rec.close();
  const flushed = MatchRecorder.create({ path: fresh(), rules: "classic", seats: ["A", "B", "C", "D"], matchId: Uint8Array.of(7), firstDealer: 0 });
  flushed.deal({ dealer: 0 });
  assert.equal(await flushed.waitDurable(), false);
  flushed.writer.sync();
  assert.equal(await flushed.waitDurable(), true);
  flushed.close();
});

test("a whole match on fresh seeds, signed with WebCrypto, verifies clean with the key pinned", async () => {
  for (const name of ["sahrat400", "classic"]) {
    const keys = await generateSigningKey();
    const again = await privateKeyFromPem(await privateKeyPem(keys.privateKey), true);
    const publicKey = await rawPublicKey(keys.publicKey);
    assert.deepEqual(await publicKeyOf(again), publicKey);
    const serverSeed = newServerSeed();
    const matchId = newMatchId();
    const clientSeeds = [0, 1, 2, 3].map(() => newClientSeed());
    const seeds = await MatchSeeds.create({ serverSeed, matchId, clientSeeds });
    const commitments = await Promise.all(clientSeeds.map((s, seat) => MatchSeeds.clientCommitment(seeds.binding, matchId, seat, s)));
    assert.equal(await MatchSeeds.checkClientSeed(seeds.binding, matchId, 1, clientSeeds[1]!, commitments[1]!), true);
    assert.equal(await MatchSeeds.checkClientSeed(seeds.binding, matchId, 1, clientSeeds[2]!, commitments[1]!), false);
    const rules = PRESETS[name]!;
    const firstDealer = await seeds.firstDealer();
    const path = fresh();
    const rec = MatchRecorder.create({ path, rules: name, seats: ["Ann", { name: "Bot", computer: true }, "Cat", "Dan"], matchId,
      firstDealer, publicKey, serverCommitment: seeds.serverCommitment, clientCommitments: commitments, clientSeeds, durability: "group:5" });
    const engine = new Match(rules, firstDealer);
    while (!engine.isOver && engine.history.length < 8) {
      const deal = await seeds.deal(engine.dealNumber, engine.dealer);
      engine.deal(deal.hands, deal.thirteenth);
      rec.deal({ dealer: engine.dealer, revealed: rules.trump === "revealed_mate" ? deal.thirteenth : null });
      while (engine.phase !== Phase.DEAL && engine.phase !== Phase.OVER) {
        const seat = engine.current!;
        const actions = legalActions(engine);
        const a = engine.phase === Phase.BID ? actions.find((x) => x === 55 || x === 59) ?? actions[0]! : actions[0]!;
        engine.applyUnchecked(a);
        if (a === 66) rec.call({ seat, bid: "pass" });
        else if (a >= 67) rec.nameTrump({ suit: a - 67 });
        else if (a >= 52) rec.call({ seat, bid: a - 52 });
        else rec.play({ card: a });
      }
      const hand = engine.history[engine.history.length - 1]!;
      if (hand.cancelled) rec.claim({ totals: hand.totals! });
      else rec.claim({ tricks: hand.tricks, scores: hand.scores, totals: hand.totals!, trump: rules.trump === "fixed" ? rules.fixed_trump : null });
    }
    // another seed than the committed one, and a signature under another key: refused,
    // nothing written (signed, the log would hold a finding for ever)
    const size = statSync(path).size;
    assert.throws(() => rec.finish({ winner: 0, serverSeed: newServerSeed() }), /not the one the log's header commits to/);
    assert.equal(statSync(path).size, size);
    if (engine.isOver) rec.finish({ winner: engine.winner as 0 | 1, serverSeed });
    else rec.abandon({ cause: "disconnect", seat: 3, reason: "the connection dropped", serverSeed });
    const other = await generateSigningKey();
    await assert.rejects(rec.sign(other.privateKey), /does not verify under the key the log's header names/);
    const signature = await rec.sign(keys.privateKey);
    assert.equal(signature.length, 64);
    await assert.rejects(rec.sign(keys.privateKey), /signed already/);
    const verdict = await verifyBytes(readFileSync(path), path, { publicKey });
    assert.equal(verdict.verdict, "clean", JSON.stringify(verdict.findings));
  }
});

test("a log cut mid-match verifies up to its last whole value", async () => {
  const path = fresh();
  const serverSeed = newServerSeed();
  const matchId = newMatchId();
  const clientSeeds = [0, 1, 2, 3].map(() => newClientSeed());
  const seeds = await MatchSeeds.create({ serverSeed, matchId, clientSeeds });
  const firstDealer = await seeds.firstDealer();
  const clientCommitments = await Promise.all(clientSeeds.map((s, seat) => MatchSeeds.clientCommitment(seeds.binding, matchId, seat, s)));
  const rec = MatchRecorder.create({ path, rules: "qahwa41", seats: ["A", "B", "C", "D"], matchId, firstDealer,
    serverCommitment: seeds.serverCommitment, clientCommitments, clientSeeds, durability: "fsync" });
  const engine = new Match(PRESETS.qahwa41!, firstDealer);
  const deal = await seeds.deal(0, firstDealer);
  engine.deal(deal.hands, deal.thirteenth);
  rec.deal({ dealer: firstDealer });
  for (let k = 0; k < 10; k++) {
    const seat = engine.current!;
    const a = engine.phase === Phase.BID ? 55 : legalActions(engine)[0]!;
    engine.applyUnchecked(a);
    if (a >= 52) rec.call({ seat, bid: a - 52 });
    else rec.play({ card: a });
  }
  rec.close(); // the server stops here: no claims, no end, no signature
  const verdict = await verifyBytes(readFileSync(path), path, { serverSeed });
  assert.equal(verdict.verdict, "findings");
  assert.deepEqual(verdict.findings.map((f) => f.kind), ["cut-short"]);
});
