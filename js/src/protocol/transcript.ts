/**
 * One dealing attempt's blind transcript checked from its proofs (docs/PROTOCOL.md §13.4,
 * §13.8): under `tarneeb-blind-v2` every pass by its shuffle proof (under v3, the same but
 * each pass by its compact shuffle argument) and every round of partial decryptions by its
 * batched proof; under `tarneeb-blind-v1` no pass twice the same
 * element and every partial decryption by its own proof; a v2 deal that stopped at a seat
 * that did not deliver, the steps it holds; then, where the seats revealed them, the keys
 * against the public keys and the passes. Each fault names the seat whose step fails.
 */
import { type Bytes, toHex } from "../text/bytes.js";
import {
  BASE, DECK, ELEMENT, L, PROOF, type Point, allMultiples, cardPoints, context, owner, roundPositions,
  scalarOf, verifyBatch, verifyDleq,
} from "./shuffleproof.js";
import { verifyPass } from "./shuffleargument.js";

/** A seat's fault in a deal's transcript (seat -1: none named), and its finding's kind. */
export interface Fault { seat: number; what: string; kind: string }

/** A keys record's scalar and permutation of one seat (both revealed). */
export interface SeatKey { seat: number; scalar: Bytes; permutation: Bytes }

/** The public values of one deal's transcript, decoded (null: an encoding that does not decode). */
export interface Deal {
  matchId: Bytes;
  n: number;
  dealer: number;
  publics: (Point | null)[];
  passes: (Point | null)[][];
  /** the passes as the log holds them */
  rawPasses: Bytes[];
  /** round r (0-2): each position's element after its r+1-th partial decryption */
  rounds: (Point | null)[][];
}

export const split = (b: Bytes, size: number) => Array.from({ length: b.length / size }, (_, i) => b.subarray(i * size, (i + 1) * size));

const UNPROVEN_PASS = "its shuffle pass is not proven: its proof does not show the deck it published is a permutation of the deck before it under its key";
const keyWhat = (s: number) => `seat ${s}'s public key: not a valid ristretto255 element`;

/** Each public key that is no group element, as a fault on its seat. */
function publicKeyFaults(d: Deal): Fault[] {
  return d.publics.flatMap((y, s) => (y === null ? [{ seat: s, what: keyWhat(s), kind: "blind-transcript" }] : []));
}

/** The sentence a fault ends with when later steps were built on what it published. */
const unjudged = (steps: string[]) => (steps.length ? `; what was built on it cannot be judged, and is not held against its seats: ${steps.join(", ")}` : "");

/** The batched proof of round `r`, seat `k`, against the elements that seat was given. */
function batchHolds(d: Deal, r: number, k: number, proof: Bytes): boolean {
  const positions = roundPositions(d.dealer, r, k);
  const given = r === 0 ? d.passes[3]! : d.rounds[r - 1]!;
  const ins = positions.map((p) => given[p] ?? null), outs = positions.map((p) => d.rounds[r]![p] ?? null);
  return !ins.includes(null) && !outs.includes(null)
    && verifyBatch(d.publics[k]!, positions, ins as Point[], outs as Point[], proof, context(d.matchId, d.n, "decrypt-batch", k, r));
}

/**
 * The passes, then the decryption rounds (`batch`: round r, seat k at 4r + k), judged in the
 * order they were made, as `_judge_in_order` of audit/blind/proofs.py: a step is judged only
 * when everything it was given is proven (a pass on the deck of the pass before it, by its
 * shuffle proof — `tarneeb-blind-v3`'s argument or v2's proof, by its length —; a seat's
 * batch of a round on its positions' elements one round earlier). The first step whose proof
 * fails is the fault; a step built on what a failed or unjudged step published is not judged
 * (a change made after the fact to one seat's step would fail the honest next seat's proof
 * too), and is named in that fault's sentence, never held against its own seat. Gives the
 * faults and how many passes are proven (4: all).
 */
function judgeInOrder(d: Deal, proofs: [Bytes, Bytes][], batch: Bytes): { faults: Fault[]; provenPasses: number } {
  let deck: (Point | null)[] = cardPoints();
  for (let s = 0; s < d.passes.length; s++) {
    const out = d.passes[s]!;
    const [els, scs] = proofs[s]!;
    const ok = !deck.includes(null) && !out.includes(null)
      && verifyPass(d.publics[s]!, deck as Point[], out as Point[], els, scs, context(d.matchId, d.n, "shuffle", s, s));
    if (!ok) {
      const later = Array.from({ length: d.passes.length - s - 1 }, (_, i) => `seat ${s + 1 + i}'s pass`);
      if (batch.length) later.push("every decryption");
      return { faults: [{ seat: s, what: UNPROVEN_PASS + unjudged(later), kind: "wrong-shuffle" }], provenPasses: s };
    }
    deck = out;
  }
  const faults: Fault[] = [];
  const builtOn: string[][] = [];
  const cause = new Map<number, number>(); // a position whose element is not proven -> its fault
  split(batch, PROOF).forEach((proof, i) => {
    const r = i >> 2, k = i & 3;
    const positions = roundPositions(d.dealer, r, k);
    const from = [...new Set(positions.filter((p) => cause.has(p)).map((p) => cause.get(p)!))].sort((x, y) => x - y);
    if (from.length) {
      for (const f of from) builtOn[f]!.push(`seat ${k}'s decryptions in round ${r + 1}`);
      for (const p of positions) if (!cause.has(p)) cause.set(p, from[0]!);
      return;
    }
    if (!batchHolds(d, r, k, proof)) {
      faults.push({ seat: k, what: `a wrong partial decryption in round ${r + 1}: its batched proof fails (one of positions ${positions.join(", ")})`, kind: "wrong-decryption" });
      builtOn.push([]);
      for (const p of positions) cause.set(p, faults.length - 1);
    }
  });
  return { faults: faults.map((f, i) => ({ ...f, what: f.what + unjudged(builtOn[i]!) })), provenPasses: d.passes.length };
}

/** §13.4 under v2, from the proofs alone, in causal order; then the revealed keys, each judged
 * against its seat's pass and the proven deck before it. */
export function verifyV2(d: Deal, shuffleProofs: [Bytes, Bytes][], batch: Bytes, keys: SeatKey[]): Fault[] {
  const bad = publicKeyFaults(d);
  if (bad.length) return bad;
  const { faults, provenPasses } = judgeInOrder(d, shuffleProofs, batch);
  return [...faults, ...keys.filter((key) => key.seat <= provenPasses).flatMap((key) => revealedFaults(d, key))];
}

/**
 * §13.4 under v1: no pass holds an element twice (the first such seat named), every partial
 * decryption carries its proof (`proofs[r]`: 52 proofs of round r); then the revealed keys.
 */
export function verifyV1(d: Deal, proofs: Bytes[], keys: SeatKey[]): Fault[] {
  const bad = publicKeyFaults(d);
  if (bad.length) return bad;
  const faults: Fault[] = [];
  const twice = d.rawPasses.findIndex((raw) => new Set(split(raw, ELEMENT).map(toHex)).size !== DECK);
  if (twice >= 0) faults.push({ seat: twice, what: "its pass holds the same element twice", kind: "wrong-shuffle" });
  for (let p = 0; p < DECK; p++) {
    let element = d.passes[3]![p]!;
    for (let r = 0; r < 3; r++) {
      const seat = (owner(p, d.dealer) + 1 + r) & 3;
      const out = d.rounds[r]![p]!, y = d.publics[seat]!;
      const proof = proofs[r]!.subarray(p * PROOF, (p + 1) * PROOF);
      if (element === null || out === null || !verifyDleq(y, out, element, proof, context(d.matchId, d.n, "decrypt", seat, p))) {
        faults.push({ seat, what: `a wrong partial decryption (position ${p})`, kind: "wrong-decryption" });
        break;
      }
      element = out;
    }
  }
  return [...faults, ...keys.flatMap((key) => revealedFaults(d, key))];
}

/**
 * §13.8: a v2 deal that stopped, the steps it holds — the passes delivered, the batches
 * delivered (round r, seat k at 4r + k; the elements of a seat yet to deliver ignored).
 */
export function verifyUnfinished(d: Deal, shuffleProofs: [Bytes, Bytes][], batch: Bytes): Fault[] {
  const s = d.publics.indexOf(null);
  if (s >= 0) return [{ seat: -1, what: keyWhat(s), kind: "blind-transcript" }];
  return judgeInOrder(d, shuffleProofs, batch).faults;
}

/**
 * What of a seat's key is revealed, each half on its own: its scalar against its public key,
 * its permutation a permutation (a key revealed in part, the other half kept, is checked as far
 * as it goes).
 */
export function halfFaults(d: Deal, s: number, scalar: Bytes | null, perm: Bytes | null): Fault[] {
  if (scalar !== null) {
    const x = scalarOf(scalar);
    const y = d.publics[s];
    if (!(x > 0n && x < L) || y === null || y === undefined || !BASE.multiplyUnsafe(x).equals(y)) {
      return [{ seat: s, what: "its revealed scalar does not match its public key", kind: "wrong-key" }];
    }
  }
  if (perm !== null && (perm.length !== DECK || [...perm].sort((a, b) => a - b).some((v, i) => v !== i))) {
    return [{ seat: s, what: "its revealed permutation is not a permutation of 52 positions", kind: "wrong-key" }];
  }
  return [];
}

/** A revealed key against its public key, and its seat's pass against the deck before it. */
function revealedFaults(d: Deal, key: SeatKey): Fault[] {
  const { seat: s, permutation: perm } = key;
  const x = scalarOf(key.scalar);
  const halves = halfFaults(d, s, key.scalar, perm);
  if (halves.length > 0) return halves;
  const prior: (Point | null)[] = s === 0 ? cardPoints() : d.passes[s - 1]!;
  const ins: Point[] = [], outs: Point[] = [];
  let wrong = DECK; // the first position whose elements are missing, or the identity
  for (let j = 0; j < DECK; j++) {
    const e = prior[perm[j]!]!, o = d.passes[s]![j]!;
    if (e === null || o === null || e.is0()) {
      wrong = j;
      break;
    }
    ins.push(e);
    outs.push(o);
  }
  // every position before it at once; only when that fails, one by one for the first that differs
  if (!allMultiples(x, ins, outs)) {
    const j = ins.findIndex((e, i) => !e.multiplyUnsafe(x).equals(outs[i]!));
    if (j >= 0) wrong = j;
  }
  return wrong < DECK ? [{ seat: s, what: `its pass is not its re-encryption and permutation of the deck before it (position ${wrong})`, kind: "wrong-shuffle" }] : [];
}
