/**
 * `tarneeb-blind-v3`'s shuffle argument (shuffleargument.ts): one honest 5-card argument
 * made by the reference prover accepted, and refused with a byte changed, on another deck,
 * key or context; a pass's proof dispatched by its length; and the log reader's blind record
 * with v3's bins (22 elements, 44 scalars a pass of 52 cards) read, its passes' versions never mixed.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { fromHex } from "../src/text/bytes.js";
import { blindFromList, readBlindRecord, type BlindPlace } from "../src/log/blindrecords.js";
import { argumentLength, verifyPass, verifyShuffleArgument } from "../src/protocol/shuffleargument.js";
import { BASE, type Point, cardPoints, decode } from "../src/protocol/shuffleproof.js";

// out[j] = x·P[perm[j]] for the first five card points, perm = (3, 0, 4, 1, 2),
// x = SHA-512("five cards") mod L, context "five cards"
const Y = "e45c78c4e78d2f165394f1707e6308196540aca4f91144780bc46d38e163de18";
const OUT = [
  "208674abaf53c881ee5929862193dcbb7c41df643441888382089fd914adf229",
  "5eb24af90292107533b514490a6bd9620ca8ec468ec15da1950e28c9b0ad9070",
  "a834007894fe9b9863bd08c33dbb218c002667a9693128e88ae70d2b669a1e27",
  "faaf45f0a1eed0ac10182259e6dc452d6d5087f8bcc8fd190243577c0b68d81f",
  "b4025bb620442593d8813c999326368328adbeb4c3a8b6e5cd1d5b44658a5b74",
];
const PROOF = [
  "d4cda0bbfe325b27c30aff5380ec16252c4af82f2b7e103e05ccbfb976c22872fea7db3b481bd518b75b69efbdde28dd79d245581dfa5144a2185183db40032e",
  "1ce76949e97a92d3aed12f9d9f9a83a26a00a56f264a109e04d42b6212b93e3fa2efe43870ac8b9e77f6c3fd81b50771d4dc91896ecdaa5886d762fe3a02dc66",
  "6e254f9ffecd174cfc5602b97d20895752048f2975f3f26716bf59e30c418d03108f72f8146b66c07b100a670f4e6083e7071a7f68dfd98a784a7f732e428e06",
  "7efd0328191762f78d991b7ea8a9ba47394b9f94f2d7da2d87485e93341d1e41ba9232c3424e8b612d0e2fc09fb3305b179c329f156e2d479998b566c755bd04",
  "c2b437ae0a15acdb4cc63f64c2030246493c92e00ad302e0f2f3b68075d5d878b8652016e70db59a30d528f8fd7282a8586cf01db18edb3d17b62912f193f778",
  "e9dc017350346e4eb70b59d8f742693cc5dacb6b55768a4f7739da5013d09e04a0317fa07d5a30516bc2e94d8b8253136cc600079af69c05d3d545fcb4378908",
  "667bdce2be8eff562ddeb2a0bec214199adfed9bd5b0ec7d00b0473571699e07aa12c48261222fd1b9160bfe6ec4fcf7adeac70133ea3018564e49e9e70c2003",
  "7957326b5d0deb28ab34b812a3d5eceae6efb122ca70ccd02bc1f21e88d54e0de1dcee1c370e95faf45c7f66dd0511f3314ac7774a8b3a201d4ab76c488abb0e",
  "3aa9fb86bce64ddc4cf4b68afaceab1ff3ca84a8bf0e3db30fe8757175267303bd587728da454e81657d6cf16487929a744834ed2ac31036e80b5afe6caee503",
  "83fffc9a2d47166aa6c21b746d4fb813398b72915c76de7fc1762776b6c5a90a7352390f42dc9fd396d1d48cc6b7c783af3140a7ba91fa647b1a9e754b234503",
  "17d06e9b6d3883a73a7d6582ffbff6b1b32eb9118c785b5bfebc89e67399b6050c97325fe0a3cce2b335b07e148b8ff4b0e5f7134498c63eafb7b9b2f81dcb08",
  "fdfbb154c2cf3e5c5a5f8819b95cd78194a89ee7ab734b52273e03c9fa7ec505ea1f301f6af8b05baf8b373ccad6e908c5a75976d4a4588fcc8d3a3ea19b3207",
  "dc59a88f1daf7f4ccfe27fcadcce6741930f053a4325c3ef241ed5ae4e71680c2a739c76acbb062f742b7b8a4a442578134f191aad66373486d46c1445078d02",
  "19362ee4d1c00049a100a58f6451cb40f4ee67c18c71012fe70fe36b0cb9c907d944a34365bd47926cf0dd6124c5716c447ecbd70da5bcc7fd407f4fd31dc002",
  "e0de9e6392739be83c8bd7b2b7315dc5f5f450c3c35db6d5f574d8e2efdc230135738a31cc5a70d913a45e74ee472239075cd6d01a30223993e69cc807d88c03",
].join("");

const pt = (h: string) => decode(fromHex(h))!;
const flip = (b: Uint8Array, i: number) => { const c = b.slice(); c[i]! ^= 1; return c; };
const ctx = new TextEncoder().encode("five cards");
const y = pt(Y), deck = cardPoints().slice(0, 5), out = OUT.map(pt), proof = fromHex(PROOF);

test("a 5-card v3 argument verifies; a byte changed, another deck, key or context does not", () => {
  assert.equal(proof.length, argumentLength(5));
  assert.equal(proof.length, 32 * (10 + 20)); // no round for 5 cards: 10 elements, 20 scalars
  assert.ok(verifyShuffleArgument(y, deck, out, proof, ctx));
  for (const i of [0, 31, 300, 319, 320, 500, 959]) assert.ok(!verifyShuffleArgument(y, deck, out, flip(proof, i), ctx), `byte ${i}`);
  assert.ok(!verifyShuffleArgument(y, deck, [out[1]!, out[0]!, ...out.slice(2)], proof, ctx), "two outputs swapped");
  assert.ok(!verifyShuffleArgument(y, deck, [...out.slice(0, 4), out[0]!.add(BASE)], proof, ctx), "an output replaced");
  assert.ok(!verifyShuffleArgument(BASE, deck, out, proof, ctx), "another key");
  assert.ok(!verifyShuffleArgument(y, deck, out, proof, flip(ctx, 0)), "another context");
  assert.ok(!verifyShuffleArgument(y, deck, out, proof.subarray(0, proof.length - 32), ctx), "a proof of another length");
});

test("a v3 argument refuses a scalar not reduced, the identity in the statement, a deck of one", () => {
  // the first scalar t̂ + L: the same value mod L, not its canonical encoding
  const t = proof.slice(), at = 320;
  let carry = 0;
  const l = fromHex("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010");
  for (let i = 0; i < 32; i++) { const s = t[at + i]! + l[i]! + carry; t[at + i] = s & 0xff; carry = s >> 8; }
  assert.equal(carry, 0);
  assert.ok(!verifyShuffleArgument(y, deck, out, t, ctx));
  const zero = decode(new Uint8Array(32))!;
  assert.ok(zero.is0());
  assert.ok(!verifyShuffleArgument(zero, deck, out, proof, ctx), "the identity as the key");
  assert.ok(!verifyShuffleArgument(y, [zero, ...deck.slice(1)], out, proof, ctx), "the identity in the deck");
  assert.ok(!verifyShuffleArgument(y, deck.slice(0, 1), out.slice(0, 1), proof, ctx), "one card");
  const bad = proof.slice();
  bad.fill(0xff, 64, 96); // no ristretto255 encoding
  assert.ok(!verifyShuffleArgument(y, deck, out, bad, ctx), "an element that does not decode");
});

test("a pass's proof by its length: v3's argument in its two bins, nothing of another size", () => {
  const els = proof.subarray(0, 320), scs = proof.subarray(320);
  assert.ok(verifyPass(y, deck, out, els, scs, ctx));
  assert.ok(!verifyPass(y, deck, out, proof.subarray(0, 288), proof.subarray(288), ctx), "split elsewhere");
  assert.ok(!verifyPass(y, deck, out, els, proof.subarray(320, 928), ctx), "a scalar short");
  assert.ok(!verifyPass(y, deck, out, new Uint8Array(3328), new Uint8Array(3488), ctx), "v2's sizes, no v2 proof");
});

const bin = (n: number) => new Uint8Array(n);
const V2 = [3328, 3488], V3 = [704, 1408];
/** A blind record of `sizes.length` passes, each pass's proof in bins of its sizes (`[elements, scalars]`). */
function record(sizes: number[][], batch = sizes.length === 4 ? 768 : 0): unknown[] {
  const k = sizes.length, d = batch / 64;
  return [5, bin(128), Array.from({ length: k }, () => bin(1664)), Array.from({ length: Math.ceil(d / 4) }, () => bin(1664)),
    [bin(batch), ...sizes.flatMap(([e, s]) => [bin(e!), bin(s!)])], d === 12 ? bin(64) : null];
}

test("the reader: a v3 record's bins read, complete or stopped; v2's still; mixed versions refused", () => {
  for (const [sizes, batch] of [[[V3, V3, V3, V3], 768], [[V3, V3, V3, V3], 320], [[V3, V3], 0], [[V2, V2, V2, V2], 768], [[V2], 0]] as [number[][], number][]) {
    const t = blindFromList(record(sizes, batch));
    assert.ok(typeof t !== "string", `${sizes.length} passes: ${String(t)}`);
    assert.deepEqual(t.shuffleProofs!.map(([e, s]) => [e.length, s.length]), sizes);
  }
  assert.equal(blindFromList(record([V3, V2, V3, V3])), "v3 shuffle proofs' elements must be 4 byte strings of 704 bytes");
  assert.equal(blindFromList(record([V2, V2, V2, V3])), "v2 shuffle proofs' elements must be 4 byte strings of 3328 bytes");
  assert.equal(blindFromList(record([V3, V3, [704, 3488], V3])), "v3 shuffle proofs' scalars must be 4 byte strings of 1408 bytes");
  assert.equal(blindFromList(record([[3328, 1408], V2])), "v2 shuffle proofs' scalars must be 2 byte strings of 3488 bytes");
  assert.equal(blindFromList(record([V3, [3328, 3488]])), "v3 shuffle proofs' elements must be 2 byte strings of 704 bytes");
  // as the log reader refuses it: one line naming the record
  const at: BlindPlace = { hand: { plays: [] }, afterDeal: true, afterMoves: false, ended: false, keys: [] };
  assert.equal(readBlindRecord(record([V3, V3, V3, V2]), 0, at), "blind record: v3 shuffle proofs' elements must be 4 byte strings of 704 bytes");
  assert.equal(readBlindRecord(record([V3, V3, V3, V3]), 0, at), null);
  assert.deepEqual(at.hand!.blind!.shuffleProofs!.map(([e]) => e.length), [704, 704, 704, 704]);
});
