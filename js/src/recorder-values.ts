/**
 * The values a recorder call takes, checked as the reader will read them: cards and suits
 * by number or name, seats, figures, texts a verdict shows, and a match dealt blind's
 * transcripts and keys. A value out of range throws {@link RecorderError}.
 */
import { blindFromList } from "./blind.js";
import { type Bytes } from "./bytes.js";
import { cardName } from "./engine.js";
import { unsafeCharacter } from "./names.js";
import { ARGUMENT_ELEMENTS, SHUFFLE_ARGUMENT_LEN } from "./shuffleargument.js";

/** A call the recorder cannot write: out of order, or a value out of its range. */
export class RecorderError extends Error {
  override name = "RecorderError";
}

/** A card: its number 0–51 (suit × 13 + rank; ♣ ♦ ♥ ♠, 2 … A) or its name, e.g. `"10♥"`. */
export type Card = number | string;
/** A suit: its number 0–3 (♣ ♦ ♥ ♠) or its symbol. */
export type Suit = number | string;

const SUITS = "♣♦♥♠";
const SUIT_LETTERS = "CDHS";
const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
export const ABANDON_CAUSES = ["disconnect", "timeout", "resignation", "server-fault"] as const;
export type AbandonCause = (typeof ABANDON_CAUSES)[number];

/** The card number of a card name (`"10♥"`, `"AS"`, `"qd"`) or a number 0–51. */
export function parseCard(c: Card, what = "card"): number {
  if (typeof c === "number") {
    if (!Number.isInteger(c) || c < 0 || c > 51) throw new RecorderError(`${what} must be 0-51 or a card name like '10♥', not ${c}`);
    return c;
  }
  const text = c.trim().toUpperCase();
  const s = Math.max(SUITS.indexOf(text.slice(-1)), SUIT_LETTERS.indexOf(text.slice(-1)));
  const r = RANKS.indexOf(text.slice(0, -1) === "T" ? "10" : text.slice(0, -1));
  if (s < 0 || r < 0 || text.length < 2) throw new RecorderError(`${what}: not a card: ${JSON.stringify(c)}`);
  return s * 13 + r;
}

/** The suit number of a suit symbol or letter, or a number 0–3. */
export function parseSuit(s: Suit): number {
  if (typeof s === "number") {
    if (!Number.isInteger(s) || s < 0 || s > 3) throw new RecorderError(`trump must be 0-3 or a suit symbol (♣ ♦ ♥ ♠), not ${s}`);
    return s;
  }
  const k = Math.max(SUITS.indexOf(s.trim()), SUIT_LETTERS.indexOf(s.trim().toUpperCase()));
  if (k < 0 || s.trim().length !== 1) throw new RecorderError(`trump: not a suit: ${JSON.stringify(s)}`);
  return k;
}

export function seatOf(s: unknown, what = "seat"): number {
  if (typeof s !== "number" || !Number.isInteger(s) || s < 0 || s > 3) throw new RecorderError(`${what} must be 0-3, not ${String(s)}`);
  return s;
}

export function four(values: readonly number[] | null | undefined, what: string, lo: number, hi: number): number[] | null {
  if (values === null || values === undefined) return null;
  if (values.length !== 4 || values.some((v) => !Number.isInteger(v) || v < lo || v > hi)) {
    throw new RecorderError(`${what} must be four whole numbers ${lo}-${hi}, not ${JSON.stringify(values)}`);
  }
  return [...values];
}

/**
 * One dealing attempt's public transcript, as its seats published it (PROTOCOL.md §13,
 * FORMAT.md "Blind dealing"): what the verifier reads back (`parseLog(...).hands[n].blind`)
 * is one too. `tarneeb-blind-v2` (and v3) gives `shuffleProofs` and `batch`; `tarneeb-blind-v1`
 * gives `v1Proofs`. A deal stopped at a seat that did not deliver (§13.8) holds the passes
 * and batched proofs up to there.
 */
export interface BlindDealTranscript {
  /** the four seats' public keys, 32 bytes each */
  publics: Bytes;
  /** each pass: 52 elements of 32 bytes */
  passes: readonly Bytes[];
  /** each round of partial decryptions: 52 elements of 32 bytes */
  partials: readonly Bytes[];
  /** v2: each pass's shuffle proof, whole (6,816 bytes; v3's argument: 2,112) or as its elements and its scalars */
  shuffleProofs?: readonly (Bytes | readonly [Bytes, Bytes])[] | null;
  /** v2: the batched decryption proofs delivered (round r, seat k at 4r + k), 64 bytes each */
  batch?: Bytes | null;
  /** v1: each round's partial decryption proofs, 52 of 64 bytes */
  v1Proofs?: readonly Bytes[] | null;
  /** the dealer's proof of its 13th card, in rules that reveal it */
  opened?: Bytes | null;
}

/** What the seats revealed of one dealing attempt after the match (null: a seat that keeps its own). */
export interface RevealedKeysOptions {
  dealNumber: number;
  /** four scalars of 32 bytes, or null */
  scalars: readonly (Bytes | null)[];
  /** four permutations of 52 bytes, or null */
  permutations: readonly (Bytes | null)[];
}

/** A keys record's lists, each checked: four 32-byte scalars and four 52-byte permutations, or null each. */
export function keysLists(keys: RevealedKeysOptions): [(Bytes | null)[], (Bytes | null)[]] {
  const nil = (v: readonly (Bytes | null)[], size: number, what: string) => {
    if (v.length !== 4 || v.some((x) => x !== null && !(x instanceof Uint8Array && x.length === size))) {
      throw new RecorderError(`${what} must be four byte strings of ${size} bytes or null`);
    }
    return v.map((x) => (x === null ? null : Uint8Array.from(x)));
  };
  return [nil(keys.scalars, 32, "scalars"), nil(keys.permutations, 52, "permutations")];
}

/** The blind record of a transcript (FORMAT.md "Blind dealing"), its shape checked as the reader checks it. */
export function blindList(t: BlindDealTranscript): unknown[] {
  const copy = (b: unknown) => (b instanceof Uint8Array ? Uint8Array.from(b) : b);
  const list = (v: unknown) => (Array.isArray(v) ? v.map(copy) : v);
  let proofs: unknown;
  if (t.shuffleProofs !== null && t.shuffleProofs !== undefined) {
    const halves = t.shuffleProofs.flatMap((p) => (p instanceof Uint8Array ? [p.subarray(0, split(p)), p.subarray(split(p))] : [...p]));
    proofs = [t.batch ?? new Uint8Array(0), ...halves].map(copy);
  } else proofs = list(t.v1Proofs);
  const record = [5, copy(t.publics), list(t.passes), list(t.partials), proofs, t.opened === undefined ? null : copy(t.opened)];
  const shape = blindFromList(record);
  if (typeof shape === "string") throw new RecorderError(`blind: ${shape}`);
  return record;
}

// a shuffle proof's elements, then its scalars: v3's argument (2,112 bytes) after its 22
// elements, v2's proof after its 104
const split = (p: Bytes) => (p.length === SHUFFLE_ARGUMENT_LEN ? ARGUMENT_ELEMENTS * 32 : 2 * 52 * 32);
