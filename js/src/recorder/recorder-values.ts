/**
 * The values a recorder call takes, checked as the reader will read them: cards and suits
 * by number or name, seats, figures, bytes, texts a verdict shows, and a match dealt blind's
 * transcripts and keys. A value out of range throws {@link RecorderError}.
 *
 * A record the recorder is about to write is read back first, as the reader reads a log
 * ({@link recordBytes}): a value the reader would refuse — a seed of the wrong length, a key
 * given as text — would make the log unreadable from there, every move acknowledged after it
 * with it. Bytes are taken as a `Uint8Array` (a `Buffer` is one) and nothing else: text or a
 * list of numbers would be written as other bytes than the ones meant.
 */
import { blindFromList } from "../log/blindrecords.js";
import { type Bytes } from "../text/bytes.js";
import { cardName } from "../rules/engine.js";
import { LogError, ValueError, closeHand, decodeDeal, decodeEnd, decodeHeader } from "../log/fields.js";
import { grouped, shown, unsafeCharacter } from "../text/names.js";
import { parseLog } from "../log/records.js";
import { ARGUMENT_ELEMENTS, SHUFFLE_ARGUMENT_LEN } from "../protocol/shuffleargument.js";
import { DEFAULT_LIMITS } from "../text/stream.js";
import { isCanonical, readValue } from "../text/unpack.js";
import { encodeValue } from "../log/writer.js";

/** A call the recorder cannot write: out of order, or a value out of its range. Its message
 *  holds the values given as text a terminal shows as text (control, line-break and bidi
 *  characters escaped, as the Python recorder's `repr` does). */
export class RecorderError extends Error {
  override name = "RecorderError";

  constructor(message: string) {
    super(shown(message));
  }
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
  if (typeof c !== "string" && typeof c !== "number") throw new RecorderError(`${what} must be 0-51 or a card name like '10♥', not ${kind(c)}`);
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
  if (typeof s !== "string" && typeof s !== "number") throw new RecorderError(`trump must be 0-3 or a suit symbol (♣ ♦ ♥ ♠), not ${kind(s)}`);
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

export function four(values: readonly number[] | null | undefined, what: string, lo: number, hi: number, needed = false): number[] | null {
  if ((values === null || values === undefined) && !needed) return null;
  const list = Array.isArray(values) || (ArrayBuffer.isView(values) && !(values instanceof DataView)) ? [...values as ArrayLike<unknown> & Iterable<unknown>] : null;
  if (list === null || list.length !== 4 || list.some((v) => typeof v !== "number" || !Number.isInteger(v) || v < lo || v > hi)) {
    throw new RecorderError(`${what} must be four whole numbers ${lo}-${hi}, not ${list === null ? kind(values) : JSON.stringify(list, (_, v: unknown) => (typeof v === "bigint" ? `${v}n` : v))}`);
  }
  return list as number[];
}

/** What a value is, for a message: its type, or its JSON for a short one. */
function kind(v: unknown): string {
  if (v === null || v === undefined) return String(v);
  if (v instanceof Uint8Array) return `${v.length} bytes`;
  if (Array.isArray(v)) return `a list of ${v.length}`;
  return typeof v === "object" ? (v.constructor?.name ?? "an object") : `${typeof v} ${String(v).slice(0, 40)}`;
}

/**
 * Bytes given as a `Uint8Array` (a copy; null or absent as null where `nil`): text, a list of
 * numbers or a buffer of another kind is refused, not turned into other bytes. Their length is
 * the reader's to judge ({@link recordBytes}).
 */
export function bytesOf(v: unknown, what: string, nil = false): Bytes | null {
  if ((v === null || v === undefined) && nil) return null;
  if (!(v instanceof Uint8Array)) throw new RecorderError(`${what} must be bytes (a Uint8Array), not ${kind(v)}`);
  return Uint8Array.from(v);
}

/** Four byte strings, by seat (null or absent: none). */
export function bytesList(v: unknown, what: string): Bytes[] | null {
  if (v === null || v === undefined) return null;
  if (!Array.isArray(v) || v.length !== 4) throw new RecorderError(`${what} must be four, by seat, not ${kind(v)}`);
  return v.map((x) => bytesOf(x, what)!);
}

/** A text the log keeps (a seat name, an abandonment's reason). */
export function textOf(v: unknown, what: string): string {
  if (typeof v !== "string") throw new RecorderError(`${what} must be text, not ${kind(v)}`);
  const bad = unsafeCharacter(v);
  if (bad !== null) throw new RecorderError(`${what} ${JSON.stringify(v.slice(0, 40))} holds the character ${bad}`);
  return v;
}

/** Four seats in play order: names, or `{ name, computer }`. */
export function seatsOf(seats: unknown): { name: string; computer: boolean }[] {
  if (!Array.isArray(seats) || seats.length !== 4) throw new RecorderError(`a match has four seats, not ${kind(seats)}`);
  return seats.map((s: unknown) => {
    const seat = typeof s === "string" ? { name: s, computer: false as unknown } : s !== null && typeof s === "object" ? s as { name?: unknown; computer?: unknown } : null;
    if (seat === null || typeof seat.name !== "string" || (seat.computer !== undefined && typeof seat.computer !== "boolean")) {
      throw new RecorderError(`a seat is a name, or { name, computer } (a text and true or false), not ${kind(s)}`);
    }
    const name = textOf(seat.name, "seat name");
    const size = new TextEncoder().encode(name).length;
    if (size > DEFAULT_LIMITS.maxName) throw new RecorderError(`a seat name of ${grouped(size)} bytes: over the reader's max_name cap of ${grouped(DEFAULT_LIMITS.maxName)}`);
    return { name, computer: seat.computer === true };
  });
}

/** What a record is, to read it back: the header, a deal, a hand's claims (`named`: in rules whose trump is named by a move), the end. */
export type RecordKind = "header" | "deal" | "claims" | "end";

/**
 * The bytes of one record, once they read back as a log's reader reads them (a header as a
 * log's first record): else {@link RecorderError}, with the reader's words, and nothing written.
 */
export function recordBytes(what: RecordKind, record: unknown[], named = false): Bytes {
  let raw: Bytes;
  try {
    raw = encodeValue(record);
  } catch (e) { // a value msgpack cannot write (a BigInt, a function)
    throw new RecorderError(`${what} record: ${(e as Error).message}`);
  }
  try {
    if (what === "header") {
      // its fields first: a header that ends in zero bytes (a key of zeros) would read as torn
      decodeHeader(record, DEFAULT_LIMITS);
      parseLog(raw);
      return raw;
    }
    const value = readValue(raw);
    if (!Array.isArray(value) || !isCanonical(value, raw)) throw new RecorderError(`${what} record: not in canonical msgpack form`);
    if (what === "deal") decodeDeal(value, 0);
    else if (what === "claims") closeHand(decodeDeal([1, 0, 0, null, null], 0), value, 0, named);
    else decodeEnd(value, 0);
  } catch (e) {
    if (e instanceof LogError) throw new RecorderError(e.message.replace(/^byte \d+: /, ""));
    if (e instanceof ValueError) throw new RecorderError(e.reason);
    throw e;
  }
  return raw;
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
    if (!Array.isArray(v) || v.length !== 4 || v.some((x) => x !== null && !(x instanceof Uint8Array && x.length === size))) {
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
