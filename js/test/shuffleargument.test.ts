/**
 * `tarneeb-blind-v3`'s shuffle argument (shuffleargument.ts): one honest 5-card argument
 * made by the reference prover accepted, and refused with a byte changed, on another deck,
 * key or context; a pass's proof dispatched by its length; and the log reader's blind record
 * with v3's bins (45 elements, 8 scalars a pass) read, its passes' versions never mixed.
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
  "e8819b99be0d116d4f864c962e0137c6b186bcbafb8a39e8ce57f48298e34d1b68a14ffd6e750373cf4953d43e8e4f67315b5f3142fbd1f756c87ac764a25e2e",
  "a08e8976dc403a8b8cc889ea2e6e946793b8b7aef03437abd2cbd4c701076b32841e04532dd2a6f8266dfcb6d2ef585b4228a564b02baaa9c4d95dca80bbe604",
  "90b27aa4c09eb6562a0d99f08ac43f292ab6e81ed60ff6c11b8d2015a35f8a1696253f4c2f547a4c71494c91cb7976791e779cc1dfa909e546877164cbb78a3a",
  "1e039dcecc3629be5b0ff0d065c0960051958c983d4446af1d2a8bdbd313421aa69db1023260d3c245baff3451da18716dcd8bce0b4248ef540a292218be1c20",
  "74104f5b25d03a88a1caa66f285c3e3ce31e3fc07a9b8670ae6bef104ac2135db269d09a084ebbe46889f8913e814e2b084eda40ae97bf37812483c80326bc58",
  "5a452adca8f2dd75444b5377537df48e4a1f7af00967bd47ec45ceee2c6b3d07147d5cccf6ac86cd839bc0ed5c97b194b93ab3cdfa51c9df0f62dceda627a601",
  "84d6e0d14ae03cd87bca4981f0e75e8983710bc2de924955cef28efad00c6511e2ce07fc460f834b8daf3be00ffa3d7d6c48272324e96f546e16339db15ad80a",
  "e8ee7dbc49e6630f3377c2741e48bf5afb0f1985f9fa454cd0d5ce97aa46b8793222d44cd3e967c5e3eec1c8d838f4ed332e6a5748ac0d1f062b061dbfe86f6a",
  "86ad4c1febd8c72ea7173220cc8b4735d88fb0fda302a0362997afb7baf0235e343b8d70e34ec85a96c11ae3371019ae66a37e26ec07d55fa27a9c8bda5bdf28",
  "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
  "000000000000000000000000000000000000000000000000000000000000000094061091e78d568b36484b32c8615252cfad9b912200a04d9d35c2daf409df17",
  "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
  "00000000000000000000000000000000000000000000000000000000000000000afdab0acbbecbe8ed068251c599f09319fd63d6c50c6bb3aeeafa600b8c7e01",
  "00000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000",
  "00000000000000000000000000000000000000000000000000000000000000006427033785c1622d40affda226a2dc00fa7299deffe0560124e73f740fa36742",
  "d8317fd69832f6f912dfae2d505f3b7eb4a0e71c67ddda46052adeab732b136d8a4e538bd32a4bdc792a3171451e48d4dfd78a4d512d12f632663b3ce20bba70",
  "582528963eff72315ec90beb376ed9cf17d7d1e11b730d26e17f580fd295ea0cacf5246e1c4c9d143e0d8832b30299b8a6e323222028796ee27cba61afba7141",
  "72ff6db794b9e9d592bccfe7298765d35d1f8f456552f398deca9aabebb882645c80a3bdf04f5ddca44118f4e5f874e8f0a42db09ee504664760daf1cc38eb3f",
  "a4559af540a4226fdc52af9e63d49d426e8962d3df17ef0954225663e2d7ed76e6ac010bfde30edc8dec0379f6b902e3234eb21c8bcdbe18768094980b5ea577",
  "0cddbbdc27f9322062e6fb20219be905cb7c45acd4d91bbaf916ecf89edc3b4fe89cf2603600eab7fb61724c7f5ac5e6a8e4328db797a690e4165b22a1cda611",
  "169464cf1eed4e6146dad4adbe22255fbc3b43352e5bebc78864bba9aa11ad126e7f0b8293ef12005595696dc48a5da3109506eaa15353294b67b29134ea9805",
  "9cd625d76233702d4d8429aac8b08076911d823fd1ee04919c4a504eb13a360215cb6a740b7c09d467dc95cdcd6388300a4ca36639fd89ff72242bad54c7a30d",
  "f72376a9114674956c8742a43428e1048ab6dc65fb66489dd5c73afdd1b6210e2591c1a49d0b091b69915d2bd4bc15915390d3e0253f5f88a696a80df011f303",
  "3dabbf02ee69833b135ea5da8f80bd1ac7b207063c8afa4b8bc0c508ea71c10085b526711c2bd486b66ee076896629d3d7ad3f6076b7f31bb1089a1a75dc6f0d",
  "40a3e71f63c2e80627bcaeff3867127946804d9db3152441ce2d7d26335e0700",
].join("");

const pt = (h: string) => decode(fromHex(h))!;
const flip = (b: Uint8Array, i: number) => { const c = b.slice(); c[i]! ^= 1; return c; };
const ctx = new TextEncoder().encode("five cards");
const y = pt(Y), deck = cardPoints().slice(0, 5), out = OUT.map(pt), proof = fromHex(PROOF);

test("a 5-card v3 argument verifies; a byte changed, another deck, key or context does not", () => {
  assert.equal(proof.length, SHUFFLE_ARGUMENT_LEN);
  assert.ok(verifyShuffleArgument(y, deck, out, proof, ctx));
  for (const i of [0, 31, 700, 1439, 1440, 1500, 1695]) assert.ok(!verifyShuffleArgument(y, deck, out, flip(proof, i), ctx), `byte ${i}`);
  assert.ok(!verifyShuffleArgument(y, deck, [out[1]!, out[0]!, ...out.slice(2)], proof, ctx), "two outputs swapped");
  assert.ok(!verifyShuffleArgument(y, deck, [...out.slice(0, 4), out[0]!.add(BASE)], proof, ctx), "an output replaced");
  assert.ok(!verifyShuffleArgument(BASE, deck, out, proof, ctx), "another key");
  assert.ok(!verifyShuffleArgument(y, deck, out, proof, flip(ctx, 0)), "another context");
  assert.ok(!verifyShuffleArgument(y, deck, out, proof.subarray(0, SHUFFLE_ARGUMENT_LEN - 32), ctx), "a proof of another length");
});

test("a v3 argument refuses a scalar not reduced, the identity in the statement, a deck of one", () => {
  // the first scalar t̂ + L: the same value mod L, not its canonical encoding
  const t = proof.slice(), at = 1440;
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
  const els = proof.subarray(0, 1440), scs = proof.subarray(1440);
  assert.ok(verifyPass(y, deck, out, els, scs, ctx));
  assert.ok(!verifyPass(y, deck, out, proof.subarray(0, 1408), proof.subarray(1408), ctx), "split elsewhere");
  assert.ok(!verifyPass(y, deck, out, els, proof.subarray(1440, 1664), ctx), "a scalar short");
  assert.ok(!verifyPass(y, deck, out, new Uint8Array(3328), new Uint8Array(3488), ctx), "v2's sizes, no v2 proof");
});

const bin = (n: number) => new Uint8Array(n);
const V2 = [3328, 3488], V3 = [1440, 256];
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
  assert.equal(blindFromList(record([V3, V2, V3, V3])), "v3 shuffle proofs' elements must be 4 byte strings of 1440 bytes");
  assert.equal(blindFromList(record([V2, V2, V2, V3])), "v2 shuffle proofs' elements must be 4 byte strings of 3328 bytes");
  assert.equal(blindFromList(record([V3, V3, [1440, 3488], V3])), "v3 shuffle proofs' scalars must be 4 byte strings of 256 bytes");
  assert.equal(blindFromList(record([[3328, 256], V2])), "v2 shuffle proofs' scalars must be 2 byte strings of 3488 bytes");
  assert.equal(blindFromList(record([V3, [3328, 3488]])), "v3 shuffle proofs' elements must be 2 byte strings of 1440 bytes");
  // as the log reader refuses it: one line naming the record
  const at: BlindPlace = { hand: { plays: [] }, afterDeal: true, afterMoves: false, ended: false, keys: [] };
  assert.equal(readBlindRecord(record([V3, V3, V3, V2]), 0, at), "blind record: v3 shuffle proofs' elements must be 4 byte strings of 1440 bytes");
  assert.equal(readBlindRecord(record([V3, V3, V3, V3]), 0, at), null);
  assert.deepEqual(at.hand!.blind!.shuffleProofs!.map(([e]) => e.length), [1440, 1440, 1440, 1440]);
});
