/**
 * fixtures/vectors/blind.json (PROTOCOL.md §13): the card points, the Chaum–Pedersen proof,
 * the deal's v1 transcript (a proof for every partial decryption, the passes by the revealed
 * keys), and the v2 deal's generators, shuffle proofs and batched proofs checked by the JS
 * verifier's own code — and a changed value in each refused.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { fromHex, toHex, utf8 } from "../src/text/bytes.js";
import {
  type Point, cardPoints, decode, generators, roundPositions, verifyBatch, verifyDleq, verifyShuffle,
} from "../src/protocol/shuffleproof.js";
import { type Deal, halfFaults, verifyV1 } from "../src/protocol/transcript.js";
import { verifyBytes } from "../src/verify/verify.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const v: any = JSON.parse(readFileSync(root + "fixtures/vectors/blind.json", "utf8"));
const pt = (h: string) => decode(fromHex(h))!;
const flip = (b: Uint8Array, i: number) => { const c = b.slice(); c[i]! ^= 1; return c; };

test("blind.json: the 52 card points and the 53 generators", () => {
  assert.deepEqual(cardPoints().map((p) => toHex(p.toBytes())), v.card_points);
  assert.deepEqual(generators().map((p) => toHex(p.toBytes())), v.v2.generators);
});

test("blind.json: the Chaum–Pedersen proof verifies, and not under another context or statement", () => {
  const q = v.dleq;
  const proof = fromHex(q.proof), ctx = fromHex(q.context);
  assert.ok(verifyDleq(pt(q.y), pt(q.h), pt(q.z), proof, ctx));
  assert.ok(!verifyDleq(pt(q.y), pt(q.h), pt(q.z), proof, flip(ctx, ctx.length - 1)));
  assert.ok(!verifyDleq(pt(q.y), pt(q.z), pt(q.h), proof, ctx));
  assert.ok(!verifyDleq(pt(q.y), pt(q.h), pt(q.z), flip(proof, 40), ctx));
});

test("blind.json v1: every partial decryption by its own proof, every pass by its revealed key", () => {
  const d = v.deal;
  const rows = (r: number) => d.partials.map((q: { element: string }[]) => q[r]!.element) as string[];
  const deal = (passes: string[][], rounds: string[][]): Deal => ({
    matchId: utf8(d.match_id), n: d.deal_number, dealer: d.dealer,
    publics: d.seats.map((s: { public: string }) => pt(s.public)), passes: passes.map((p) => p.map(pt)),
    rawPasses: passes.map((p) => fromHex(p.join(""))), rounds: rounds.map((r) => r.map(pt)),
  });
  const proofs = [0, 1, 2].map((r) => fromHex(d.partials.map((q: { proof: string }[]) => q[r]!.proof).join("")));
  const keys = d.seats.map((s: { scalar: string; permutation: number[] }, seat: number) => ({ seat, scalar: fromHex(s.scalar), permutation: Uint8Array.from(s.permutation) }));
  const rounds = [0, 1, 2].map(rows);
  assert.deepEqual(verifyV1(deal(d.passes, rounds), proofs, keys), []);
  // position 5's element after its second decryption changed: that seat's proof fails, no other
  const changed = rounds.map((r) => [...r]);
  changed[1]![5] = rounds[1]![6]!;
  const seat = d.partials[5][1].seat;
  assert.deepEqual(verifyV1(deal(d.passes, changed), proofs, []), [{ seat, what: "a wrong partial decryption (position 5)", kind: "wrong-decryption" }]);
  // seat 1's pass holds an element twice: named without any key; with the keys, its pass too
  const twice = d.passes.map((p: string[]) => [...p]);
  twice[1]![0] = twice[1]![1]!;
  const faults = verifyV1(deal(twice, rounds), proofs, keys).map((f) => [f.seat, f.kind]);
  assert.deepEqual(faults.slice(0, 1), [[1, "wrong-shuffle"]]);
  assert.ok(faults.some(([s, k]) => s === 1 && k === "wrong-shuffle") && faults.length > 1);
  assert.deepEqual(verifyV1(deal(twice, rounds), proofs, [])[0], { seat: 1, what: "its pass holds the same element twice", kind: "wrong-shuffle" });
});

test("blind.json: a key revealed in part has the half revealed checked on its own", () => {
  const d = v.deal;
  const deal = { publics: d.seats.map((s: { public: string }) => pt(s.public)) } as Deal;
  const scalar = (seat: number) => fromHex(d.seats[seat].scalar);
  const perm = (seat: number) => Uint8Array.from(d.seats[seat].permutation as number[]);
  for (let seat = 0; seat < 4; seat++) {
    assert.deepEqual(halfFaults(deal, seat, scalar(seat), null), []);
    assert.deepEqual(halfFaults(deal, seat, null, perm(seat)), []);
  }
  const wrongScalar = [{ seat: 1, what: "its revealed scalar does not match its public key", kind: "wrong-key" }];
  assert.deepEqual(halfFaults(deal, 1, flip(scalar(1), 0), null), wrongScalar);
  assert.deepEqual(halfFaults(deal, 1, new Uint8Array(32).fill(0xff), null), wrongScalar);
  assert.deepEqual(halfFaults(deal, 1, scalar(2), null), wrongScalar);
  assert.deepEqual(halfFaults(deal, 2, null, new Uint8Array(52)),
    [{ seat: 2, what: "its revealed permutation is not a permutation of 52 positions", kind: "wrong-key" }]);
});

test("blind.json v2: the four shuffle proofs, each refused on another deck or a changed proof", () => {
  const ys: Point[] = v.deal.seats.map((s: { public: string }) => pt(s.public));
  let deck = cardPoints();
  for (let s = 0; s < 4; s++) {
    const out: Point[] = v.deal.passes[s].map(pt);
    const proof = fromHex(v.v2.shuffle_proofs[s]), ctx = fromHex(v.v2.shuffle_contexts[s]);
    const els = proof.subarray(0, 3328), scs = proof.subarray(3328);
    assert.ok(verifyShuffle(ys[s]!, deck, out, els, scs, ctx), `pass ${s}`);
    if (s === 0) {
      const swapped = [out[1]!, out[0]!, ...out.slice(2)];
      assert.ok(!verifyShuffle(ys[s]!, deck, swapped, els, scs, ctx), "another order");
      assert.ok(!verifyShuffle(ys[(s + 1) % 4]!, deck, out, els, scs, ctx), "another key");
      assert.ok(!verifyShuffle(ys[s]!, deck, out, els, flip(scs, 100), ctx), "a changed scalar");
      assert.ok(!verifyShuffle(ys[s]!, deck, out, els, scs, flip(ctx, ctx.length - 1)), "another seat's context");
    }
    deck = out;
  }
});

test("blind.json v2: the twelve batched proofs of the partial decryptions", () => {
  const d = v.deal;
  const ys: Point[] = d.seats.map((s: { public: string }) => pt(s.public));
  const round = (r: number, p: number) => pt(d.partials[p][r].element);
  for (let r = 0; r < 3; r++) {
    for (let k = 0; k < 4; k++) {
      const positions = roundPositions(d.dealer, r, k);
      assert.equal(positions.length, 13);
      positions.forEach((p) => assert.equal(d.partials[p][r].seat, k));
      const ins = positions.map((p) => (r === 0 ? pt(d.passes[3][p]) : round(r - 1, p)));
      const outs = positions.map((p) => round(r, p));
      const proof = fromHex(v.v2.batch_proofs[4 * r + k]), ctx = fromHex(v.v2.batch_contexts[4 * r + k]);
      assert.ok(verifyBatch(ys[k]!, positions, ins, outs, proof, ctx), `round ${r}, seat ${k}`);
      const wrong = [outs[1]!, outs[0]!, ...outs.slice(2)];
      assert.ok(!verifyBatch(ys[k]!, positions, ins, wrong, proof, ctx), `round ${r}, seat ${k}: two outputs swapped`);
    }
  }
});

test("the corpus log dealt blind is clean, its altered cheats name the seat", async () => {
  const log = (p: string) => new Uint8Array(readFileSync(root + p));
  const clean = await verifyBytes(log("fixtures/matches/qahwa5-blind.tlog"));
  assert.equal(clean.verdict, "clean");
  assert.equal(clean.dealing, "blind");
  assert.ok(clean.deals_proven);
  const forged = await verifyBytes(log("fixtures/altered/wrong-shuffle-qahwa5-forged-shuffle-proof.tlog"));
  assert.deepEqual(forged.findings.map((f) => [f.kind, f.hand, f.seat]), [["wrong-shuffle", 0, 3]]);
  const batch = await verifyBytes(log("fixtures/altered/wrong-decryption-qahwa5-forged-batch-proof.tlog"));
  assert.deepEqual(batch.findings.map((f) => [f.kind, f.hand, f.seat]), [["wrong-decryption", 0, 3]]);
});
