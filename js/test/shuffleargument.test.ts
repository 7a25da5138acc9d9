/**
 * `tarneeb-blind-v3`'s shuffle argument (shuffleargument.ts): one honest 5-card argument
 * made by the reference prover accepted, and refused with a byte changed, on another deck,
 * key or context; a pass's proof dispatched by its length; and the log reader's blind record
 * with v3's bins (46 elements, 8 scalars a pass) read, its passes' versions never mixed.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { fromHex } from "../src/bytes.js";
import { blindFromList, readBlindRecord, type BlindPlace } from "../src/blind.js";
import { SHUFFLE_ARGUMENT_LEN, verifyPass, verifyShuffleArgument } from "../src/shuffleargument.js";
import { BASE, type Point, cardPoints, decode } from "../src/shuffleproof.js";

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
  "9aee62a280940209699e657f4eeb4f74946ee988972bfd07dea5e7f7be665654108f72f8146b66c07b100a670f4e6083e7071a7f68dfd98a784a7f732e428e06",
  "7efd0328191762f78d991b7ea8a9ba47394b9f94f2d7da2d87485e93341d1e41d83f3362afe9d26d47a9abbecc1450a307a050cfc16c8c708a80e2734f6a601f",
  "96c3b510db39a2ebbec31b8b15e810a199923acab759181f0653f424ef8d7b43de92418679bd1992bad2bd54cea054d0bd20698179fc3e2fafb1fdadf3f6b878",
  "06a8d89e9472f81e54dba6ede5ae645ec3a63d5a7bc84e09ca19f2283088ca63b2d33490d76ba0224413867b88bc139e719528ef772c14a4f53624655067bd10",
  "e20118194bdd9ad6b39cdce3bea2aa9d020a1d400b48eaea6d0b936d89df5b724c44bc0e1de3201b73b8b3699daa4a48ca0d3f18469a33c4e149efdc0a6edc6f",
  "a05bc30954556fdd095097ce6bbc624d7f0ff90ec8723332714176bf9761275c705f20cef6b1c7a31ee8cf878e28f65f9f9c1c749744d09f08c108be3a3d3625",
  "5c5bef3c7695ac70638b2f8e551bfe6ad336d855f3e38e8cc95342799085a120e6977aceed9916933d003b22160e4cb0d545110188d4f1e59589888ab34bc90f",
  "ac6db0e133094c68a4dda7fac03cb0f77dd7ae8ee22093a5bf45ba624c156531ba9232c3424e8b612d0e2fc09fb3305b179c329f156e2d479998b566c755bd04",
  "c2043169d3c960a9748d83e3b4bc4883798e13fd57751e9defa3a014db29685bb8652016e70db59a30d528f8fd7282a8586cf01db18edb3d17b62912f193f778",
  "34bcb93b2fbedecd80cad8c6c23169e8733a5bfec43c25dc945748d20db850660000000000000000000000000000000000000000000000000000000000000000",
  "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
  "42ba5705f9691a253bad516178f11859b51b69a99945a40f4dcf3c068727dc6d0000000000000000000000000000000000000000000000000000000000000000",
  "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
  "88de286ba63e57a53220fd06526e8519dd92ac857ea3414066c02df3c877cb020000000000000000000000000000000000000000000000000000000000000000",
  "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
  "0a00a93c2fa3f6395b7c21f708f4bb0b66c7ac15a5c21b668fe6853ee71b9d6d5c6bad8b6c4a87953cf9930553392a301543e5ce32a40132fb4c9201a3a0b05f",
  "b4ddc4f9ae330548200b63af50ced6ef5cc847014cc72342cb84adf68cb06d3f7caa43a391d16e71cfb404d18056205fea421720c31897b270565ee749187f72",
  "d47e74fda976e72667b97c4b8ccd5b2b2e5449df31be232e196be9d4db936c6cf69888da85af6a92307a94f774948f0579c89cddf6a60a25287130149920a069",
  "42fb0fa7d43f767ebb7d4720cd76b9d2404a4bae22671f0f60045b92ae6d3b05aaf7b4270b83be1226f64d0a346d661143f7063a32346f7c31e7310a637db76e",
  "5cec431138f529bdd6afe7eb78f21b308d6fdca6af5cc9b247c21f81938d3b207650b139c160c8a4601f72aa0353dc4f90a94712203b478d6d7bcb8d8c66fa41",
  "b2b9281b00af2d27f2e5acd3f4e89922a4cab97e40db31711557615472fffe6a7c900aa8f0d012a54f72007ecdf20c342aee6cf258e8d52f7e1b49f69e31db37",
  "3b944d94bf7787050c11fd0ccaeecd5b0a2fea3218ce2aa7001afed18f460504d0a71e6620fc771e61cbe0bd08fef0c867f1bab3150b4520f5f1b3e2d37a0b06",
  "9f2a2ed5eae1f439316793494477a0d99bef658f4c9180800ee3f255a072ea0d51616504b0f486b4a9aee666a062d38e9e24e512dd0b674908d8c84ddbf3f806",
  "ffc84cb9f77e5df2cb53837c85562d5818ff2823bed2ff6b3b2ad47ccef4a60faf9105cbbf30d0d0164e5ce0c3c44fde79c01885a84dcd5bb141ef98f4503e02",
  "b6844017ef1b22179d83832dc82af741abdeb6b502157c57ecb65f8386202d060d473f75868aecd84a80d6da760c31cde9993059121c2f1ff43a0d8c5723910e",
].join("");

const pt = (h: string) => decode(fromHex(h))!;
const flip = (b: Uint8Array, i: number) => { const c = b.slice(); c[i]! ^= 1; return c; };
const ctx = new TextEncoder().encode("five cards");
const y = pt(Y), deck = cardPoints().slice(0, 5), out = OUT.map(pt), proof = fromHex(PROOF);

test("a 5-card v3 argument verifies; a byte changed, another deck, key or context does not", () => {
  assert.equal(proof.length, SHUFFLE_ARGUMENT_LEN);
  assert.ok(verifyShuffleArgument(y, deck, out, proof, ctx));
  for (const i of [0, 31, 700, 1471, 1472, 1500, 1727]) assert.ok(!verifyShuffleArgument(y, deck, out, flip(proof, i), ctx), `byte ${i}`);
  assert.ok(!verifyShuffleArgument(y, deck, [out[1]!, out[0]!, ...out.slice(2)], proof, ctx), "two outputs swapped");
  assert.ok(!verifyShuffleArgument(y, deck, [...out.slice(0, 4), out[0]!.add(BASE)], proof, ctx), "an output replaced");
  assert.ok(!verifyShuffleArgument(BASE, deck, out, proof, ctx), "another key");
  assert.ok(!verifyShuffleArgument(y, deck, out, proof, flip(ctx, 0)), "another context");
  assert.ok(!verifyShuffleArgument(y, deck, out, proof.subarray(0, SHUFFLE_ARGUMENT_LEN - 32), ctx), "a proof of another length");
});

test("a v3 argument refuses a scalar not reduced, the identity in the statement, a deck of one", () => {
  // the first scalar t̂ + L: the same value mod L, not its canonical encoding
  const t = proof.slice(), at = 1472;
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
  const els = proof.subarray(0, 1472), scs = proof.subarray(1472);
  assert.ok(verifyPass(y, deck, out, els, scs, ctx));
  assert.ok(!verifyPass(y, deck, out, proof.subarray(0, 1408), proof.subarray(1408), ctx), "split elsewhere");
  assert.ok(!verifyPass(y, deck, out, els, proof.subarray(1472, 1696), ctx), "a scalar short");
  assert.ok(!verifyPass(y, deck, out, new Uint8Array(3328), new Uint8Array(3488), ctx), "v2's sizes, no v2 proof");
});

const bin = (n: number) => new Uint8Array(n);
const V2 = [3328, 3488], V3 = [1472, 256];
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
  assert.equal(blindFromList(record([V3, V2, V3, V3])), "v3 shuffle proofs' elements must be 4 byte strings of 1472 bytes");
  assert.equal(blindFromList(record([V2, V2, V2, V3])), "v2 shuffle proofs' elements must be 4 byte strings of 3328 bytes");
  assert.equal(blindFromList(record([V3, V3, [1472, 3488], V3])), "v3 shuffle proofs' scalars must be 4 byte strings of 256 bytes");
  assert.equal(blindFromList(record([[3328, 256], V2])), "v2 shuffle proofs' scalars must be 2 byte strings of 3488 bytes");
  assert.equal(blindFromList(record([V3, [3328, 3488]])), "v3 shuffle proofs' elements must be 2 byte strings of 1472 bytes");
  // as the log reader refuses it: one line naming the record
  const at: BlindPlace = { hand: { plays: [] }, afterDeal: true, afterMoves: false, ended: false, keys: [] };
  assert.equal(readBlindRecord(record([V3, V3, V3, V2]), 0, at), "blind record: v3 shuffle proofs' elements must be 4 byte strings of 1472 bytes");
  assert.equal(readBlindRecord(record([V3, V3, V3, V3]), 0, at), null);
  assert.deepEqual(at.hand!.blind!.shuffleProofs!.map(([e]) => e.length), [1472, 1472, 1472, 1472]);
});
