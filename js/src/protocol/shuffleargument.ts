/**
 * The compact shuffle argument of `tarneeb-blind-v3` (docs/PROTOCOL.md §13), checked: a pass
 * `out[j] = x·in[π(j)]` proven in 22 elements and 44 scalars (2,112 bytes for 52 cards) — a
 * Bayer–Groth permutation argument whose grand product is an inner product proven as a
 * Bulletproofs range proof proves its own, and an exponent argument compressed by folding.
 * Every equation is checked at once, each weighted by a hash of the whole proof, by one
 * multi-scalar multiplication that must give the identity. The dispatch of a pass's proof
 * by its length (v3's argument, or v2's proof of shuffleproof.ts) is here too.
 */
import { ristretto255, ristretto255_hasher } from "@noble/curves/ed25519.js";
import { pippenger } from "@noble/curves/abstract/curve.js";
import { sha512 } from "@noble/hashes/sha2.js";
import { type Bytes, concat, u8, utf8 } from "../text/bytes.js";
import { BASE, ELEMENT, L, type Point, decode, encode, reduce64, scalarOf, verifyShuffle } from "./shuffleproof.js";

/** The longest deck an argument takes (its generators are made for 64). */
export const MAX_CARDS = 64;

/**
 * `[rounds, rest, elements, scalars]` of the argument for `n` cards: the vectors are halved
 * while their length is even, `rounds` times, down to `rest` entries; the proof holds
 * `10 + 6·rounds` elements and `5 + 3·rest` scalars (52 cards: 2, 13, 22, 44).
 */
export function argumentShape(n: number): [number, number, number, number] {
  let rounds = 0, rest = n;
  while (rest % 2 === 0 && rest > 1) { rounds++; rest /= 2; }
  return [rounds, rest, 10 + 6 * rounds, 5 + 3 * rest];
}

/** The argument's bytes for `n` cards. */
export function argumentLength(n: number): number {
  const [, , elements, scalars] = argumentShape(n);
  return 32 * (elements + scalars);
}

/** A 52-card argument's elements (22) and scalars (44). */
export const ARGUMENT_ELEMENTS = argumentShape(52)[2];
export const ARGUMENT_SCALARS = argumentShape(52)[3];
/** 2,112 bytes: the elements, then the scalars. */
export const SHUFFLE_ARGUMENT_LEN = argumentLength(52);
/** v2's shuffle proof of a 52-card pass: 104 elements and 109 scalars (6,816 bytes). */
export const SHUFFLE_PROOF_LEN = 32 * (4 * 52 + 5);

const tag = (purpose: string) => concat(utf8(`tarneeb-blind-v3/${purpose}`), u8(0));
const GENERATOR_TAG = tag("generator");
const STATEMENT_TAG = tag("shuffle-statement");
const ABSORB_TAG = tag("shuffle-transcript");
const CHALLENGE_TAG = tag("shuffle-challenge");

/** The argument's generators: `G_k`, `H_k` (`k < 64`), `Q` and `h`. */
export interface Generators { g: Point[]; h: Point[]; q: Point; hh: Point }

let gens: Generators | null = null;
/** Each `from_hash(SHA-512(GENERATOR_TAG ‖ name))`, names `"G" ‖ u8(k)`, `"H" ‖ u8(k)`, `"Q"`, `"h"`. */
export function argumentGenerators(): Generators {
  const one = (name: Bytes) => ristretto255_hasher.deriveToCurve!(sha512(concat(GENERATOR_TAG, name))) as Point;
  const row = (c: string) => Array.from({ length: MAX_CARDS }, (_, k) => one(concat(utf8(c), u8(k))));
  return gens ??= { g: row("G"), h: row("H"), q: one(utf8("Q")), hh: one(utf8("h")) };
}

const mod = (x: bigint) => ((x % L) + L) % L;

function powMod(b: bigint, e: bigint): bigint {
  let r = 1n;
  for (b = mod(b); e > 0n; e >>= 1n, b = (b * b) % L) if (e & 1n) r = (r * b) % L;
  return r;
}

function powers(base: bigint, n: number): bigint[] {
  const out: bigint[] = [];
  for (let i = 0, acc = 1n; i < n; i++, acc = (acc * base) % L) out.push(acc);
  return out;
}

/** The Fiat–Shamir state: SHA-512 chained over the statement and every message. */
class Transcript {
  private state: Bytes;
  constructor(ctx: Bytes, y: Bytes, deckIn: Bytes[], deckOut: Bytes[]) {
    this.state = sha512(concat(STATEMENT_TAG, ctx, y, u8(deckIn.length), ...deckIn, ...deckOut));
  }
  absorb(...values: Bytes[]): void {
    this.state = sha512(concat(ABSORB_TAG, this.state, ...values));
  }
  challenge(i = 0): bigint {
    return reduce64(sha512(concat(CHALLENGE_TAG, this.state, u8(i))));
  }
  /** A folding round's challenge: 128 bits, the first 16 bytes of `challenge(0)`'s hash. */
  shortChallenge(): bigint {
    return scalarOf(sha512(concat(CHALLENGE_TAG, this.state, u8(0))).subarray(0, 16));
  }
}

/** `t = w^(n−1)·∏(y·i + e^i − z) + w^n`: what `⟨u, v⟩` must be. */
function target(ePow: bigint[], y: bigint, z: bigint, w: bigint, n: number): bigint {
  let delta = 1n;
  for (let i = 0; i < n; i++) delta = (delta * mod(y * BigInt(i) + ePow[i]! - z)) % L;
  return mod(powMod(w, BigInt(n - 1)) * delta + powMod(w, BigInt(n)));
}

/**
 * The coefficient of each of the `n` original generators in its folded one: the product of
 * the round challenges of the rounds where it sat in the half multiplied (`lower`: the lower
 * half). In round `j` the vectors are `n/2^j` long, and generator `k` sits at `k mod n/2^j`.
 */
function foldWeights(n: number, challenges: bigint[], lower: boolean): bigint[] {
  const weights: bigint[] = new Array<bigint>(n).fill(1n);
  let m = n;
  for (const c of challenges) {
    const half = m / 2;
    for (let k = 0; k < n; k++) if ((k % m < half) === lower) weights[k] = (weights[k]! * c) % L;
    m = half;
  }
  return weights;
}

/** The coefficients of `P_R`, folded as `P' = A + c·P + c²·B` each round (`pairs`: each round's `A`, `B`). */
function foldedTarget(start: Map<number, bigint>, challenges: bigint[], pairs: [number, number][]): Map<number, bigint> {
  let acc = new Map(start);
  challenges.forEach((c, r) => {
    acc = new Map([...acc].map(([k, v]) => [k, (v * c) % L]));
    const [lo, hi] = pairs[r]!;
    acc.set(lo, mod((acc.get(lo) ?? 0n) + 1n));
    acc.set(hi, mod((acc.get(hi) ?? 0n) + c * c));
  });
  return acc;
}

/** Whether `proof` shows `deckOut` is a permutation of `deckIn` times `log_B(y)`, under `ctx`. */
export function verifyShuffleArgument(y: Point, deckIn: Point[], deckOut: Point[], proof: Bytes, ctx: Bytes): boolean {
  const n = deckIn.length;
  if (deckOut.length !== n || n < 2 || n > MAX_CARDS || proof.length !== argumentLength(n)) return false;
  const [rounds, rest, nElements, nScalars] = argumentShape(n);
  const enc = Array.from({ length: nElements }, (_, i) => proof.subarray(ELEMENT * i, ELEMENT * (i + 1)));
  const raw = Array.from({ length: nScalars }, (_, i) => proof.subarray(ELEMENT * (nElements + i), ELEMENT * (nElements + i + 1)));
  const sc = raw.map(scalarOf);
  if (sc.some((s) => s >= L)) return false;
  const elements = enc.map(decode);
  if (elements.includes(null)) return false;
  const statement = [y, ...deckIn, ...deckOut];
  if (statement.some((p) => p.is0())) return false;
  const [tHat, tauX, mu] = sc as [bigint, bigint, bigint];
  const lEnd = sc.slice(3, 3 + rest), rEnd = sc.slice(3 + rest, 3 + 2 * rest);
  const zBeta = sc[3 + 2 * rest]!, zX = sc[4 + 2 * rest]!, zEnd = sc.slice(5 + 2 * rest);
  const tr = new Transcript(ctx, encode(y), deckIn.map(encode), deckOut.map(encode));
  tr.absorb(enc[0]!);
  const ePow = powers(tr.challenge(), n);
  tr.absorb(enc[1]!);
  const yc = tr.challenge(0), zc = tr.challenge(1);
  tr.absorb(enc[2]!);
  const w = tr.challenge();
  if (w === 0n) return false;
  tr.absorb(...enc.slice(3, 7));
  const xc = tr.challenge();
  const x2 = (xc * xc) % L;
  tr.absorb(raw[0]!, raw[1]!, raw[2]!);
  const q = tr.challenge();
  const ipa: bigint[] = [];
  for (let k = 0; k < rounds; k++) {
    tr.absorb(...enc.slice(7 + 2 * k, 9 + 2 * k));
    ipa.push(tr.shortChallenge());
  }
  tr.absorb(...raw.slice(3, 3 + 2 * rest));
  const gamma = tr.challenge();
  const k0 = 7 + 2 * rounds;
  tr.absorb(...enc.slice(k0, k0 + 3));
  const c = tr.challenge();
  tr.absorb(raw[3 + 2 * rest]!, raw[4 + 2 * rest]!);
  const fold: bigint[] = [];
  for (let k = 0; k < rounds; k++) {
    tr.absorb(...enc.slice(k0 + 3 + 4 * k, k0 + 7 + 4 * k));
    fold.push(tr.shortChallenge());
  }
  tr.absorb(...raw.slice(5 + 2 * rest));
  const omega = [0, 1, 2, 3, 4].map((i) => tr.challenge(i)) as [bigint, bigint, bigint, bigint, bigint];
  const t = target(ePow, yc, zc, w, n);
  // the points of the one check: G_0..n-1, H_0..n-1, Q, h, B, Y, in, out, then the proof's
  const gen = argumentGenerators();
  const ig = 0, ih = n, iq = 2 * n, ihh = iq + 1, ib = iq + 2, iy = iq + 3;
  const iIn = iy + 1, iOut = iIn + n, ie = iOut + n;
  const points: Point[] = [...gen.g.slice(0, n), ...gen.h.slice(0, n), gen.q, gen.hh, BASE, ...statement, ...(elements as Point[])];
  const coef: bigint[] = new Array<bigint>(points.length).fill(0n);
  const add = (i: number, v: bigint) => { coef[i] = mod(coef[i]! + v); };
  const addAll = (m: Map<number, bigint>, weight: bigint) => m.forEach((v, i) => add(i, weight * v));
  // (1) t̂·Q + τ·h = ξ·t·Q + ξ²·T_2 + ξ³·T_3 + ξ⁴·T_4
  add(iq, omega[0] * (tHat - xc * t));
  add(ihh, omega[0] * tauX);
  add(ie + 4, -omega[0] * x2);
  add(ie + 5, -omega[0] * x2 * xc);
  add(ie + 6, -omega[0] * x2 * x2);
  // (2) the inner-product argument: P_R = ⟨l, G_f⟩ + ⟨r, H'_f⟩ + ⟨l, r⟩·q·Q, where P_0 =
  // y·C_a + C_b − z·ΣH_k − w⁻¹·Σ_{k≥1}H_k + w^n·H_0 + ξ·C_p + ξ²·S − μ·h + t̂·q·Q
  const wInv = powMod(w, L - 2n);
  const start = new Map<number, bigint>([[ie + 2, xc], [ie, yc], [ie + 1, 1n], [ie + 3, x2], [ihh, mod(-mu)], [iq, (tHat * q) % L]]);
  for (let k = 0; k < n; k++) start.set(ih + k, mod(-zc - (k ? wInv : 0n)));
  start.set(ih, mod(start.get(ih)! + powMod(w, BigInt(n))));
  addAll(foldedTarget(start, ipa, Array.from({ length: rounds }, (_, k) => [ie + 7 + 2 * k, ie + 8 + 2 * k])), omega[1]);
  const gW = foldWeights(n, ipa, true), hW = foldWeights(n, ipa, false), wInvPow = powers(wInv, n);
  for (let k = 0; k < n; k++) {
    add(ig + k, -omega[1] * ((lEnd[k % rest]! * gW[k]!) % L));
    add(ih + k, -omega[1] * ((rEnd[k % rest]! * hW[k]! * wInvPow[k]!) % L));
  }
  let lr = 0n;
  for (let i = 0; i < rest; i++) lr = (lr + lEnd[i]! * rEnd[i]!) % L;
  add(iq, -omega[1] * ((lr * q) % L));
  // (3) z_x·B = K_3 + c·Y
  const kk = ie + k0;
  add(ib, omega[2] * zX);
  add(kk + 2, -omega[2]);
  add(iy, -omega[2] * c);
  // (4, 5) the folded exponent argument, on H and on the output deck:
  // ⟨ζ, H⟩ = K_1 + c·(C_b + γ·C_a) − z_β·h   and   ⟨ζ, out⟩ = K_2 + z_x·Σ (e^i + γ·i)·in_i
  const sW = foldWeights(n, fold, true);
  const first = new Map<number, bigint>([[kk, 1n], [ie + 1, c], [ie, (c * gamma) % L], [ihh, mod(-zBeta)]]);
  const second = new Map<number, bigint>([[kk + 1, 1n], ...ePow.map((e, i): [number, bigint] => [iIn + i, (zX * mod(e + gamma * BigInt(i))) % L])]);
  const sides: [bigint, Map<number, bigint>, number, number][] = [[omega[3], first, 0, ih], [omega[4], second, 1, iOut]];
  for (const [weight, begin, offset, base] of sides) {
    const pairs = Array.from({ length: rounds }, (_, j): [number, number] => [kk + 3 + 4 * j + offset, kk + 5 + 4 * j + offset]);
    addAll(foldedTarget(begin, fold, pairs), weight);
    for (let k = 0; k < n; k++) add(base + k, -weight * ((zEnd[k % rest]! * sW[k]!) % L));
  }
  const used = coef.flatMap((v, i) => (v === 0n ? [] : [i]));
  return pippenger(ristretto255.Point, used.map((i) => points[i]!), used.map((i) => coef[i]!)).is0();
}

/**
 * A pass's proof by its length: `tarneeb-blind-v3`'s argument (704 bytes of elements, 1,408 of
 * scalars) or `tarneeb-blind-v2`'s proof (3,328 and 3,488); anything else fails.
 */
export function verifyPass(y: Point, deckIn: Point[], deckOut: Point[], elements: Bytes, scalars: Bytes, ctx: Bytes): boolean {
  const size = elements.length + scalars.length;
  if (size === argumentLength(deckIn.length) && elements.length === ELEMENT * argumentShape(deckIn.length)[2]) {
    return verifyShuffleArgument(y, deckIn, deckOut, concat(elements, scalars), ctx);
  }
  return size === SHUFFLE_PROOF_LEN && verifyShuffle(y, deckIn, deckOut, elements, scalars, ctx);
}
