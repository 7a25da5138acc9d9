/**
 * The records of blind dealing (docs/PROTOCOL.md §13, docs/FORMAT.md "Blind dealing"): the
 * blind (5), proof (6) and keys (7) records read and held to their shapes, a transcript's
 * version, and where a deal that stopped waits (§13.8). Their proofs are checked by
 * `verify/blind.ts`.
 */
import { type Bytes } from "../text/bytes.js";
import { DECK, ELEMENT, PROOF } from "../protocol/shuffleproof.js";
import { ARGUMENT_ELEMENTS, ARGUMENT_SCALARS } from "../protocol/shuffleargument.js";

// each pass's proof in two bins, its elements then its scalars: v2's shuffle proof (u ‖ ĉ,
// 109 scalars), or v3's shuffle argument (22 elements, 44 scalars)
const PASS_BINS = { v2: [2 * DECK * ELEMENT, (2 * DECK + 5) * 32], v3: [ARGUMENT_ELEMENTS * ELEMENT, ARGUMENT_SCALARS * 32] } as const;
const DECK_BYTES = DECK * ELEMENT;
/** The deck position of the card a finished deal opens: the dealer's 13th. */
export const OPENED_POSITION = 51;

/** One dealing attempt's blind record, and the proofs of its cards played. */
export interface BlindTranscript {
  publics: Bytes;
  passes: Bytes[];
  partials: Bytes[];
  /** v2 (and v3): each pass's shuffle proof (v3: argument), its elements and its scalars; null under v1 */
  shuffleProofs: [Bytes, Bytes][] | null;
  /** v2: the batched proofs delivered (round r, seat k at 4r + k), 64 bytes each */
  batch: Bytes | null;
  /** v1: the proof of each partial decryption, a bin a round */
  v1Proofs: Bytes[] | null;
  opened: Bytes | null;
  /** play index (0–51) → [position, proof] */
  plays: Map<number, [number, Bytes]>;
}

/** A keys record: what the seats revealed of one dealing attempt (null: kept). */
export interface RevealedKeys {
  dealNumber: number;
  scalars: (Bytes | null)[];
  permutations: (Bytes | null)[];
  offset: number;
}

const isBin = (v: unknown, n: number): v is Uint8Array => v instanceof Uint8Array && v.length === n;
const bins = (v: unknown, n: number, size: number, nil = false) =>
  Array.isArray(v) && v.length === n && v.every((x) => isBin(x, size) || (nil && x === null));

/** Where a blind dealing record may stand, as the reader knows it. */
export interface BlindPlace {
  hand: { plays: number[]; blind?: BlindTranscript | null } | null;
  afterDeal: boolean;
  afterMoves: boolean;
  ended: boolean;
  keys: RevealedKeys[];
}

/** Read one blind (5), proof (6) or keys (7) record; the reason it is refused, or null. */
export function readBlindRecord(d: unknown[], pos: number, at: BlindPlace): string | null {
  const kind = d[0];
  if (kind === 5) {
    if (!at.afterDeal || at.hand === null || at.hand.blind) return "a blind record anywhere but right after its deal record";
    const t = blindFromList(d);
    if (typeof t === "string") return `blind record: ${t}`;
    at.hand.blind = t;
  } else if (kind === 6) {
    const h = at.hand;
    if (h === null || !at.afterMoves || !h.plays.length || !h.blind || h.blind.plays.has(h.plays.length - 1)) {
      return "a proof record anywhere but right after a card move";
    }
    if (d.length !== 3 || typeof d[1] !== "number" || !Number.isInteger(d[1]) || d[1] < 0 || d[1] >= DECK || !isBin(d[2], PROOF)) {
      return `proof record: must be [6, position 0-51, ${PROOF}-byte proof]`;
    }
    h.blind.plays.set(h.plays.length - 1, [d[1], d[2] as Bytes]);
  } else {
    if (!at.ended) return "a keys record before the end record: keys are revealed after the match";
    if (d.length !== 4 || typeof d[1] !== "number" || !Number.isInteger(d[1]) || d[1] < 0 || d[1] > 1_000_000) {
      return "keys record: must be [7, deal_number, four scalars, four permutations]";
    }
    if (!bins(d[2], 4, 32, true)) return "keys record: scalars must be 4 byte strings of 32 bytes or nil";
    if (!bins(d[3], 4, DECK, true)) return `keys record: permutations must be 4 byte strings of ${DECK} bytes or nil`;
    at.keys.push({ dealNumber: d[1], scalars: d[2] as (Bytes | null)[], permutations: d[3] as (Bytes | null)[], offset: pos });
  }
  return null;
}

/** A blind record from its list: the transcript, or the reason its shape is refused. */
export function blindFromList(d: unknown[]): BlindTranscript | string {
  if (d.length !== 6) return `has ${d.length} fields, not 6`;
  const [, publics, passes, partials, proofs, opened] = d;
  if (!isBin(publics, 4 * ELEMENT)) return `publics must be ${4 * ELEMENT} bytes (four keys)`;
  if (opened !== null && !isBin(opened, PROOF)) return `opened must be a ${PROOF}-byte proof or nil`;
  const base = { publics, opened: opened as Bytes | null, plays: new Map<number, [number, Bytes]>() };
  if (Array.isArray(proofs) && proofs.length && proofs[0] instanceof Uint8Array && proofs[0].length <= 12 * PROOF) {
    const k = Array.isArray(passes) ? passes.length : -1;
    const batch = proofs[0];
    const dn = Math.floor(batch.length / PROOF);
    if (k < 0 || k > 4 || batch.length % PROOF || (k < 4 && dn) || proofs.length !== 1 + 2 * k) {
      return "a v2 transcript holds 0-4 passes, and after its batched proofs (none before the fourth pass) two bins of shuffle proof a pass";
    }
    if ((dn < 12 || k < 4) && opened !== null) return "an unfinished deal opens no card";
    if (!bins(passes, k, DECK_BYTES)) return `passes must be ${k} byte strings of ${DECK_BYTES} bytes`;
    if (!bins(partials, Math.ceil(dn / 4), DECK_BYTES)) return `partials must be ${Math.ceil(dn / 4)} byte strings of ${DECK_BYTES} bytes`;
    const els = proofs.filter((_, i) => i % 2 === 1), scs = proofs.filter((_, i) => i && i % 2 === 0);
    // the version is the first pass's: every pass of the record has its sizes
    const v = isBin(els[0], PASS_BINS.v3[0]) ? "v3" : "v2";
    const [split, scalars] = PASS_BINS[v];
    if (!bins(els, k, split)) return `${v} shuffle proofs' elements must be ${k} byte strings of ${split} bytes`;
    if (!bins(scs, k, scalars)) return `${v} shuffle proofs' scalars must be ${k} byte strings of ${scalars} bytes`;
    return { ...base, passes: passes as Bytes[], partials: partials as Bytes[], shuffleProofs: els.map((e, i) => [e as Bytes, scs[i] as Bytes]), batch, v1Proofs: null };
  }
  if (!bins(passes, 4, DECK_BYTES)) return `passes must be 4 byte strings of ${DECK_BYTES} bytes`;
  if (!bins(partials, 3, DECK_BYTES)) return `partials must be 3 byte strings of ${DECK_BYTES} bytes`;
  if (!bins(proofs, 3, DECK * PROOF)) return `partial_proofs must be 3 byte strings of ${DECK * PROOF} bytes`;
  return { ...base, passes: passes as Bytes[], partials: partials as Bytes[], shuffleProofs: null, batch: null, v1Proofs: proofs as Bytes[] };
}

/** A transcript's version (`tarneeb-blind-v1`, v2 or v3, by its shape); null for a deal stopped before its first pass. */
export function blindVersion(t: BlindTranscript): number | null {
  if (t.shuffleProofs === null) return 1;
  if (!t.shuffleProofs.length) return null;
  return t.shuffleProofs[0]![0].length === PASS_BINS.v3[0] ? 3 : 2;
}

/**
 * The seat whose step is missing in a `tarneeb-blind-v2` deal that stopped (§13.8): the seat
 * to pass, or in the round being decrypted the first seat that has not delivered; null for
 * a complete deal (or a v1 one).
 */
export function waitingFor(t: BlindTranscript): number | null {
  if (t.shuffleProofs === null) return null;
  if (t.passes.length < 4) return t.passes.length;
  const d = t.batch!.length / PROOF;
  return d === 12 ? null : d % 4;
}

/** What a deal that stopped waits for: `its shuffle pass`, `its partial decryptions of round 2`. */
export function waitingStep(t: BlindTranscript): string {
  if (t.passes.length < 4) return "its shuffle pass";
  return `its partial decryptions of round ${Math.floor(t.batch!.length / (4 * PROOF)) + 1}`;
}
