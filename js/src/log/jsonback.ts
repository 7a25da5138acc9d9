/**
 * The checks of a JSON form against the log it makes, as the Python verifier's
 * `jsonform.py` makes them: the caps on each record before anything is converted
 * (`_check_sizes`), each record as the log made says it (`record_to_json`), and where the
 * document says other than that (`_differs`): a document that says more or other than its
 * log is refused, never converted to a log that says less.
 */
import { type EndRecord, type HandRecord, type Header } from "./recordtypes.js";
import { type BlindTranscript, type RevealedKeys } from "./blindrecords.js";
import { type Limits } from "../text/stream.js";
import { toHex } from "../text/bytes.js";
import { Float } from "../text/unpack.js";
import { FormError, type Json, type JsonObject, pyRepr } from "../text/strictjson.js";

const RANK_NAMES = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];
export const SUIT_SYMBOLS = "♣♦♥♠";
const SUIT_INPUT: Record<string, number> = { C: 0, D: 1, H: 2, S: 3, c: 0, d: 1, h: 2, s: 3, "♣": 0, "♦": 1, "♥": 2, "♠": 3, "♧": 0, "♢": 1, "♡": 2, "♤": 3 };
const RANK_INPUT: Record<string, number> = Object.fromEntries([..."23456789TJQKA"].flatMap((c, i) => [[c, i], [c.toLowerCase(), i]]).concat([["10", 8]]));
const SUIT_NAMES = ["clubs", "diamonds", "hearts", "spades"];
// what Python's str.strip() takes off
const PY_SPACE = /^[\t\n\v\f\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g;

export const isObject = (v: unknown): v is JsonObject => v !== null && typeof v === "object" && !Array.isArray(v) && !(v instanceof Float) && !(v instanceof Uint8Array);
/** A Python int: a whole number (not a bool). */
export const isWhole = (v: unknown): v is number | bigint => typeof v === "bigint" || (typeof v === "number" && Number.isInteger(v));
const length = (s: string): number => [...s].length;

export const cardName = (c: number): string => RANK_NAMES[c % 13]! + SUIT_SYMBOLS[Math.floor(c / 13)]!;

/** `parse_card`: the card of text such as `10♥`, `TH`, `th`; throws with its words. */
export function parseCard(text: string): number {
  const t = [...text.replace(PY_SPACE, "")];
  const rank = t.length < 2 ? undefined : RANK_INPUT[t.slice(0, -1).join("")];
  const suit = t.length < 2 ? undefined : SUIT_INPUT[t[t.length - 1]!];
  if (rank === undefined || suit === undefined) throw new FormError(`not a card: ${pyRepr(text)} (write it like AS, 10h, K♥)`);
  return suit * 13 + rank;
}

/** `parse_suit`: a suit from a letter, a symbol or a name. */
export function parseSuit(text: string): number {
  const t = text.replace(PY_SPACE, "");
  if (t in SUIT_INPUT) return SUIT_INPUT[t]!;
  const i = SUIT_NAMES.findIndex((name) => t.toLowerCase() === name || t.toLowerCase() === name.slice(0, -1));
  if (i < 0) throw new FormError(`not a suit: ${pyRepr(text)} (use C, D, H, S or ♣ ♦ ♥ ♠)`);
  return i;
}

/** `_check_sizes`: the caps of the log reader on one JSON record, before any of it is converted. */
export function checkSizes(index: number, rec: Json, lim: Limits): void {
  let level: Json[] = Array.isArray(rec) || isObject(rec) ? [rec] : [];
  let depth = 0;
  while (level.length) {
    depth++;
    if (depth > lim.maxDepth) throw new FormError(`record ${index}: nested deeper than a log is: over the max_depth cap of ${lim.maxDepth.toLocaleString("en")}`);
    const next: Json[] = [];
    for (const v of level) {
      const items = Array.isArray(v) ? v : Object.values(v as JsonObject);
      const most = Array.isArray(v) ? lim.maxField : lim.maxMap;
      if (items.length > most) throw new FormError(`record ${index}: a list or object of ${items.length.toLocaleString("en")} items, more than any field of a log holds (${most.toLocaleString("en")})`);
      for (const x of items) {
        if (typeof x === "string" && x.length > 2 * lim.maxField && length(x) > 2 * lim.maxField) {
          throw new FormError(`record ${index}: a text of ${length(x).toLocaleString("en")} characters, more than any field of a log holds`);
        }
        if (Array.isArray(x) || isObject(x)) next.push(x);
      }
    }
    level = next;
  }
}

const hexOf = (b: Uint8Array | null): string | null => (b === null ? null : toHex(b));
const cardOf = (c: number | null): string | null => (c === null ? null : cardName(c));

function blindToJson(t: BlindTranscript, plays: number): Record<string, unknown> {
  return {
    publics: toHex(t.publics), passes: t.passes.map(toHex), partials: t.partials.map(toHex),
    partial_proofs: (t.v1Proofs ?? []).map(toHex), opened: hexOf(t.opened),
    ...(t.shuffleProofs === null ? {} : { batch_proofs: hexOf(t.batch), shuffle_proofs: t.shuffleProofs.flatMap(([e, s]) => [toHex(e), toHex(s)]) }),
    proofs: Array.from({ length: plays }, (_, k) => {
      const p = t.plays.get(k);
      return p === undefined ? null : [p[0], toHex(p[1])];
    }),
  };
}

/** A hand record of the log as its JSON form says it (`record_to_json`). */
export function handToJson(h: HandRecord): Record<string, unknown> {
  const timer: number[] = [];
  for (let k = 0; k < 64; k++) if ((h.timer >> BigInt(k)) & 1n) timer.push(k);
  const out: Record<string, unknown> = {
    type: "hand", deal_number: h.dealNumber, dealer: h.dealer,
    calls: h.calls.map(([seat, v]) => ({ seat, call: v === 15 ? "pass" : v })),
    revealed: cardOf(h.revealed), trump: h.trump === null ? null : SUIT_SYMBOLS[h.trump], plays: h.plays.map(cardName), timer,
    tricks: h.tricks, scores: h.scores, totals: h.totals,
    deal: h.deal === null ? null : {
      hands: h.deal.masks.map((m) => Array.from({ length: 52 }, (_, c) => c).filter((c) => Math.floor(m / 2 ** c) % 2 === 1).map(cardName)),
      thirteenth: cardOf(h.deal.thirteenth),
    },
    closed: h.closed,
  };
  if (h.blind) out.blind = blindToJson(h.blind, h.plays.length);
  return out;
}

export function headerToJson(h: Header): Record<string, unknown> {
  const head: Record<string, unknown> = {
    type: "header", magic: "tarneeb-log", version: 3, rules: h.rulesMap,
    seats: h.seats.map((s) => ({ name: s.name, computer: s.computer })), match_id: toHex(h.matchId),
    server_commitment: hexOf(h.serverCommitment),
    batch: h.batch === null ? null : { index: h.batch.index, size: h.batch.size, path: h.batch.path.map(toHex), root: toHex(h.batch.root), head_signature: toHex(h.batch.headSignature) },
    client_commitments: h.clientCommitments?.map(toHex) ?? null, client_seeds: h.clientSeeds?.map(toHex) ?? null,
    first_dealer: h.firstDealer, public_key: hexOf(h.publicKey),
  };
  if (h.blind) head.dealing = "blind";
  return head;
}

export const endToJson = (e: EndRecord): Record<string, unknown> => ({
  type: "end", winner: e.winner, server_seed: hexOf(e.serverSeed),
  abandoned: e.abandoned === null ? null : { cause: e.abandoned.cause, seat: e.abandoned.seat, reason: e.abandoned.reason },
});

export const keysToJson = (k: RevealedKeys): Record<string, unknown> => ({
  type: "keys", deal_number: k.dealNumber, scalars: k.scalars.map(hexOf), permutations: k.permutations.map(hexOf),
});

/** `_value`: what a spelled value stands for: a card or suit number, lower-case hex; else itself. */
function spelled(v: unknown): unknown {
  if (typeof v !== "string") return v;
  for (const parse of [parseCard, parseSuit]) {
    try {
      return parse(v);
    } catch {
      // not that
    }
  }
  return v.toLowerCase();
}

const byCodePoint = (a: string, b: string): number => {
  const x = [...a].map((c) => c.codePointAt(0)!), y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
};

function kindOf(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "list";
  if (v instanceof Float) return "float";
  if (v instanceof Uint8Array) return "bytes";
  if (typeof v === "bigint") return "number";
  return typeof v;
}

function same(given: unknown, back: unknown): boolean {
  if (given instanceof Float && back instanceof Float) return given.value === back.value;
  if (kindOf(given) !== kindOf(back)) return false;
  // eslint-disable-next-line eqeqeq -- a number and a BigInt of one value are one int
  return given == back;
}

/** `_differs`: where the JSON `given` says other than `back`, the same record exported from
 *  the log it makes (null: nowhere). */
export function differs(given: unknown, back: unknown, key = ""): string | null {
  if (isObject(back)) {
    if (!isObject(given)) return `${key || "the record"} is not an object`;
    let g: Record<string, unknown> = given;
    if ("closed" in back && !("closed" in g) && back.closed === true) g = { ...g, closed: true };
    const gk = Object.keys(g), bk = Object.keys(back);
    const extra = [...gk.filter((k) => !bk.includes(k)), ...bk.filter((k) => !gk.includes(k))].sort(byCodePoint);
    if (extra.length) return `field(s) ${extra.map(pyRepr).join(", ")} of ${key || "the record"}`;
    for (const k of bk) {
      const d = differs(g[k], back[k], k);
      if (d !== null) return d;
    }
    return null;
  }
  if (Array.isArray(back)) {
    if (!Array.isArray(given) || given.length !== back.length) return `${key}: another number of items`;
    let g: unknown[] = given;
    if (key === "timer" || (key === "hands" && back.every((h) => typeof h === "string"))) {
      const order = (v: unknown): [number, unknown] => [isWhole(v) ? 0 : 1, spelled(v)];
      g = [...given].sort((a, b) => {
        const [x, y] = [order(a), order(b)];
        if (x[0] !== y[0]) return x[0] - y[0];
        return (x[1] as number) < (y[1] as number) ? -1 : (x[1] as number) > (y[1] as number) ? 1 : 0;
      });
    }
    for (let i = 0; i < back.length; i++) {
      const d = differs(g[i], back[i], key);
      if (d !== null) return d;
    }
    return null;
  }
  if (same(given, back)) return null;
  if (typeof back === "string" && (typeof given === "string" || isWhole(given)) && same(spelled(given), spelled(back))) return null;
  return `${key}: ${pyRepr(given)}`;
}
