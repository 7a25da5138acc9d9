/**
 * The proofs of blind dealing (docs/PROTOCOL.md §13.3, §13.6), checked: the Chaum–Pedersen
 * proof, the batched Chaum–Pedersen proof of a seat's round of partial decryptions, and the
 * Terelius–Wikström shuffle proof of a pass. ristretto255 from `@noble/curves` (WebCrypto
 * has none), its sums by multi-scalar multiplication (up to 64 terms interleaved, sharing one
 * chain of doublings; Pippenger's buckets above); SHA-512 from
 * `@noble/hashes`, which `@noble/curves` is built on (synchronous: a deal hashes hundreds
 * of times).
 */
import { ristretto255, ristretto255_hasher } from "@noble/curves/ed25519.js";
import { mulAddUnsafe, pippenger } from "@noble/curves/abstract/curve.js";
import { sha512 } from "@noble/hashes/sha2.js";
import { randomBytes } from "@noble/hashes/utils.js";
import { type Bytes, concat, constantTimeEqual, lp16, u32be, u8, utf8 } from "../text/bytes.js";

const Point = ristretto255.Point;
/** A ristretto255 element. */
export type Point = InstanceType<typeof ristretto255.Point>;

/** The group order. */
export const L = 2n ** 252n + 27742317777372353535851937790883648493n;
export const DECK = 52;
export const ELEMENT = 32;
export const PROOF = 64;

const tag = (version: 1 | 2, purpose: string) => concat(utf8(`tarneeb-blind-v${version}/${purpose}`), u8(0));
const CARD_TAG = tag(1, "card");
const DLEQ_TAG = tag(1, "dleq");
const GENERATOR_TAG = tag(2, "generator");
const SHUFFLE_E_TAG = tag(2, "shuffle-e");
const SHUFFLE_C_TAG = tag(2, "shuffle-c");
const BATCH_TAG = tag(2, "batch");

/** A scalar's 32 little-endian bytes as a number (not reduced). */
export function scalarOf(b: Bytes): bigint {
  let n = 0n;
  for (let i = b.length - 1; i >= 0; i--) n = (n << 8n) | BigInt(b[i]!);
  return n;
}

/** `n mod L` as 32 little-endian bytes. */
export function scalarBytes(n: bigint): Bytes {
  let x = ((n % L) + L) % L;
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++, x >>= 8n) out[i] = Number(x & 0xffn);
  return out;
}

/** `reduce64(h)`: a 64-byte string taken modulo L. */
export const reduce64 = (h: Bytes): bigint => scalarOf(h) % L;

/** `coef(seed, i) = reduce64(SHA-512(seed ‖ u8(i)))` for `i < n`. */
function coefficients(seed: Bytes, n: number): bigint[] {
  return Array.from({ length: n }, (_, i) => reduce64(sha512(concat(seed, u8(i)))));
}

/** Each element's encoding, once made: hashed again and again (a deck into every proof of a deal). */
const encodings = new WeakMap<Point, Bytes>();

/** A 32-byte encoding as an element, or null when it does not decode. */
export function decode(b: Bytes): Point | null {
  if (b.length !== ELEMENT) return null;
  let p: Point;
  try {
    p = Point.fromBytes(b);
  } catch {
    return null;
  }
  encodings.set(p, b.slice()); // only a canonical encoding decodes: it is the element's own
  return p;
}

/** An element's 32-byte encoding (`p.toBytes()`, made once for each element). */
export function encode(p: Point): Bytes {
  let b = encodings.get(p);
  if (b === undefined) {
    b = p.toBytes();
    encodings.set(p, b);
  }
  return b;
}

/** `from_hash(SHA-512(tag ‖ u8(i)))`: RFC 9496's element derivation (libsodium's `from_hash`). */
const fromHash = (t: Bytes, i: number): Point => ristretto255_hasher.deriveToCurve!(sha512(concat(t, u8(i)))) as Point;

let cards: Point[] | null = null;
let gens: Point[] | null = null;
/** `P_c`, the point of card `c`, for the 52 cards. */
export function cardPoints(): Point[] {
  return cards ??= Array.from({ length: DECK }, (_, c) => fromHash(CARD_TAG, c));
}
/** `H_0 … H_52` (§13.6, "Generators"). */
export function generators(): Point[] {
  return gens ??= Array.from({ length: DECK + 1 }, (_, k) => fromHash(GENERATOR_TAG, k));
}

/** A product the specification's verifier refuses: the identity (scalar 0 or the identity element). */
class Identity extends Error {}

function term(s: bigint, p: Point): void {
  if (s % L === 0n || p.is0()) throw new Identity();
}
/** `s·P`, refused when it is the identity. */
function mul(s: bigint, p: Point): Point {
  term(s, p);
  return p.multiplyUnsafe(s % L); // variable time: every value here is public
}
/** `Σ s_i·P_i`, each product refused when it is the identity. */
export function msm(s: bigint[], p: Point[]): Point {
  s.forEach((x, i) => term(x, p[i]!));
  // a few terms: interleaved (one doubling a bit for all); many: Pippenger's buckets
  return (p.length <= 64 ? mulAddUnsafe : pippenger)(Point, p, s.map((x) => x % L));
}
/** The elements given a table of their multiples (by {@link tabled}). */
const tables = new WeakSet<Point>();

/**
 * `p`, given a table of its multiples (built at its first multiplication): a seat's public
 * key, met in every proof of that seat in its deal (a Chaum–Pedersen proof's `y`), is then
 * multiplied in a few additions, as the base point is.
 */
export function tabled(p: Point): Point {
  if (!tables.has(p) && !p.is0()) {
    p.precompute(6, true);
    tables.add(p);
  }
  return p;
}

/** `s·P + t·Q`, each product refused when it is the identity. */
const mul2 = (s: bigint, p: Point, t: bigint, q: Point): Point => msm([s, t], [p, q]);
const sum = (ps: Point[]) => ps.reduce((a, b) => a.add(b));
const bytesOf = (ps: Point[]) => concat(...ps.map(encode));

/**
 * Whether `outs[j] = x·ins[j]` for every `j`, checked at once: `x·Σ r_j·ins_j = Σ r_j·outs_j`
 * for fresh random 128-bit `r_j` (small-exponent batch verification). Where any `j` differs
 * the sums differ but with probability at most 2^-128 (the group's order is prime), whoever
 * chose the elements; the caller looks for the position that differs only when they do.
 */
export function allMultiples(x: bigint, ins: Point[], outs: Point[]): boolean {
  if (ins.length === 0) return true;
  const random = randomBytes(16 * ins.length);
  const r = ins.map((_, j) => scalarOf(random.subarray(16 * j, 16 * j + 16)));
  return mulAddUnsafe(Point, ins, r).multiplyUnsafe(x % L).equals(mulAddUnsafe(Point, outs, r));
}

/** `lp16(match_id) ‖ u32be(deal) ‖ lp16(step) ‖ u8(seat) ‖ u8(position)` (§13.3). */
export function context(matchId: Bytes, deal: number, step: string, seat: number, position: number): Bytes {
  return concat(lp16(matchId), u32be(deal), lp16(utf8(step)), u8(seat), u8(position));
}

/** Whether `proof` (`c ‖ s`) shows `log_B(y) = log_h(z)` under `ctx` (§13.3). */
export function verifyDleq(y: Point, h: Point, z: Point, proof: Bytes, ctx: Bytes): boolean {
  if (proof.length !== PROOF) return false;
  const c = scalarOf(proof.subarray(0, 32));
  const s = scalarOf(proof.subarray(32));
  if (c >= L || s >= L) return false;
  let a: Point, a2: Point;
  try {
    // y with a table: two multiplications by tables; else one walk for both
    a = tables.has(y) ? mul(s, Point.BASE).add(mul(L - c, y)) : mul2(s, Point.BASE, L - c, y);
    a2 = mul2(s, h, L - c, z);
  } catch (e) {
    if (e instanceof Identity) return false;
    throw e;
  }
  const again = reduce64(sha512(concat(DLEQ_TAG, ctx, bytesOf([Point.BASE, y, h, z, a, a2]))));
  return constantTimeEqual(scalarBytes(again), proof.subarray(0, 32));
}

/** The owner of position `p`: `(dealer + 1 + p) mod 4`. */
export const owner = (p: number, dealer: number) => (dealer + 1 + p) & 3;

/** The positions seat `k` decrypts in round `r`: those whose owner is `k − 1 − r (mod 4)`. */
export function roundPositions(dealer: number, r: number, k: number): number[] {
  const o = (k + 3 - r + 4) & 3;
  return Array.from({ length: DECK }, (_, p) => p).filter((p) => owner(p, dealer) === o);
}

/** Whether `proof` shows `ins[i] = log_B(y)·outs[i]` for every `i` (§13.6, batched). */
export function verifyBatch(y: Point, positions: number[], ins: Point[], outs: Point[], proof: Bytes, ctx: Bytes): boolean {
  const body = positions.map((p, i) => concat(u8(p), encode(ins[i]!), encode(outs[i]!)));
  const seed = sha512(concat(BATCH_TAG, ctx, encode(y), ...body));
  const z = coefficients(seed, ins.length);
  let h: Point, zz: Point;
  try {
    h = msm(z, outs);
    zz = msm(z, ins);
  } catch (e) {
    if (e instanceof Identity) return false;
    throw e;
  }
  return verifyDleq(y, h, zz, proof, concat(ctx, seed));
}

/**
 * Whether `proof` (`u ‖ ĉ`, then `c ‖ s_1…s_4 ‖ ŝ ‖ s'`) shows `out` is a permutation of `in`
 * times `log_B(y)` (§13.6, the shuffle proof), under `ctx`.
 */
export function verifyShuffle(y: Point, deckIn: Point[], deckOut: Point[], elements: Bytes, scalars: Bytes, ctx: Bytes): boolean {
  const n = deckIn.length;
  if (n === 0 || n > DECK || deckOut.length !== n || elements.length !== 64 * n || scalars.length !== 32 * (2 * n + 5)) return false;
  const pts: Point[] = [];
  for (let i = 0; i < 2 * n; i++) {
    const p = decode(elements.subarray(32 * i, 32 * i + 32));
    if (p === null) return false;
    pts.push(p);
  }
  const sc = Array.from({ length: 2 * n + 5 }, (_, i) => scalarOf(scalars.subarray(32 * i, 32 * i + 32)));
  if (sc.some((k) => k >= L)) return false;
  const u = pts.slice(0, n), chain = pts.slice(n);
  const [c, s1, s2, s3, s4] = sc as [bigint, bigint, bigint, bigint, bigint];
  const sHat = sc.slice(5, 5 + n), sPrime = sc.slice(5 + n);
  const g = generators();
  const hs = g.slice(0, n), h = g[DECK]!;
  const seedE = sha512(concat(SHUFFLE_E_TAG, ctx, encode(y), bytesOf(deckIn), bytesOf(deckOut), elements.subarray(0, 32 * n)));
  const e = coefficients(seedE, n);
  const prod = e.reduce((a, b) => (a * b) % L, 1n);
  const negC = L - c;
  let t: Point[], tHat: Point[];
  try {
    const B = Point.BASE;
    const a = msm(e, deckIn);
    // each sum in one multi-scalar multiplication, every product refused as before
    t = [
      mul2(s1, B, negC, sum(u).subtract(sum(hs))),
      mul2(s2, B, negC, chain[n - 1]!.subtract(mul(prod, h))),
      msm([s3, ...sPrime, negC], [B, ...hs, msm(e, u)]),
      msm([...sPrime, L - s4], [...deckOut, a]), // −s4·a: s4 ≡ 0 refused as L − s4 ≡ 0
      mul2(s4, B, negC, y),
    ];
    const previous = [h, ...chain.slice(0, -1)];
    tHat = chain.map((ch, j) => msm([sHat[j]!, sPrime[j]!, negC], [B, previous[j]!, ch]));
  } catch (e) {
    if (e instanceof Identity) return false;
    throw e;
  }
  const again = reduce64(sha512(concat(SHUFFLE_C_TAG, seedE, elements.subarray(32 * n), bytesOf(t), bytesOf(tHat))));
  return constantTimeEqual(scalarBytes(again), scalars.subarray(0, 32));
}

export { sha512 };

/** The base point `B`. */
export const BASE: Point = Point.BASE;
