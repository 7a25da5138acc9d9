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
  "96c3b510db39a2ebbec31b8b15e810a199923acab759181f0653f424ef8d7b43eeb37b0c8a91a6af82373b516a667379209ff1a2d9b75d03d012a4ba83550929",
  "ba5ff2f46d941e8eae77ad5a7fe1c1d0f07068a6a9eb4fafd3fff0e52b94131558f0ae250eeff130c24a82de1692dc994b0660efbceae60de96ec8f67f5d4a72",
  "4684dfc38c3a8fd7d73451d2c18e3a507dcbf2b3fe6f93b2a9ceef40e2c0ca61ac875b05c7a3be5023c8ab1a514f390e1d89b2f9e539fa1427a56164a3bf6773",
  "ca8faa3eb86505e0feca1495bdcfe79307236821791eba8257d51494d3742500dca5753435d3e672cecd7ed1d8e80ad2217f8383a5dd1e6a4a82113a22672872",
  "e42d7e1386f34c34876c852a45d3e199fbdc3cffe358846053e70f4c0606ed315e78a39f74755426f8d1abf12a494ed01bf38a46b4da5778355991bd017b4d3a",
  "0e2dbda9c42b77e8d9b21d6823178ea160c3dc16adb43c8d854eb153e6821f2fba9232c3424e8b612d0e2fc09fb3305b179c329f156e2d479998b566c755bd04",
  "9420015600d9dfb452e67afe2c1085d4dd7b3ba4c81367e6b892a1d0e9b96543b8652016e70db59a30d528f8fd7282a8586cf01db18edb3d17b62912f193f778",
  "9cc6a1e3a43e5d9b9c03e5977a74cc8040e41fc2a233e2f2384997094aa9383c0000000000000000000000000000000000000000000000000000000000000000",
  "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
  "6cefe68c6b7db3cb9a8342649cb89a75f8c651789952f1080d679875910c09110000000000000000000000000000000000000000000000000000000000000000",
  "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
  "5cf1f312246c4db2d1a2c313549a93b1f9096812068e73bd3b5b2b253075067c0000000000000000000000000000000000000000000000000000000000000000",
  "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
  "1e4470a6a30b78065cbb4cda35bc6328493fbbc6a5740e69d6b20fb1d7f72e3dc4974097ed03b5375c33c06f7b540fe830142921c41f58396b8851e6ad48d850",
  "0c1ca31bd5248d7349f2c68b5e51a581fe9640699c7742cf828f746937fdb4289ca2997ca8dcb244a1c97842f2496e867335b784c462c34b2fc41a6d151c147d",
  "2a11fccd8e2918ee5d15b053057d492330208ec57b20a57afc33ebc17e601b37d8a73136f060ef9418616b8d5de9c044998a0ee83617275b4acfd41a3cf62c12",
  "5ec2dd0ad91106e06f81c191c46199506f02dafa891453c8b4c2edd532c83d261c500f86d7913d19d087a746d6dbd9924e54977e1bb66680ceced9bbf5cfc41d",
  "cede7b9a5fd250875d5b11bb27385329315437c02f17a41ba36e5ddf7b406e2ab02a4033843d20ee80e57981d2b3e95b6cd18963a6279989537e23d2b28de74c",
  "343bc18dfd50712bc2bdd2cbeee87ee79c001e83bd54866738f053ab1c2f9f39943c47911672574c72f8fb4e29953001b23dbd759d7e55d17e127517bd5a8336",
  "3b944d94bf7787050c11fd0ccaeecd5b0a2fea3218ce2aa7001afed18f460504d0a71e6620fc771e61cbe0bd08fef0c867f1bab3150b4520f5f1b3e2d37a0b06",
  "9f2a2ed5eae1f439316793494477a0d99bef658f4c9180800ee3f255a072ea0d4b102113aa5804e24c5609900abc4a2c6379882574c6658168dcb5f5f93fb502",
  "27fc01dd53f5ce3caee1af1aa9c51d0f93798b41161e8ab0e1c30525fbe68b0dea466342475992f7dd000b37a08fe79f7a61d7a7c736060a06acd87f60e54604",
  "e7eb92e33748d3ac7f0e0b89c42ce056bd6cbda796f2303351b9bb679bafeb04ea3c2c9ecc078a5262fc4f7d6f757fcb5faecf0da85f4c408c6e8c61b87c180a",
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
