/**
 * The JSON form of a log (docs/FORMAT.md "The JSON form", as `tarneeb export` writes it)
 * back to the log's msgpack bytes, so a player may paste it: the records re-encoded in
 * the canonical form, each hand as its deal record, its moves and its claims record. The
 * result is then read and verified like any log: a byte that differs from what the
 * platform signed is a broken signature, never a clean verdict. A log dealt blind carries
 * its transcripts in the form too: each hand's blind record follows its deal record, each
 * card its proof record, and the keys records the end record (PROTOCOL.md §13).
 */
import { encode } from "@msgpack/msgpack";

const RANKS: Record<string, number> = { "2": 0, "3": 1, "4": 2, "5": 3, "6": 4, "7": 5, "8": 6, "9": 7, "10": 8, T: 8, t: 8, J: 9, j: 9, Q: 10, q: 10, K: 11, k: 11, A: 12, a: 12 };
const SUITS: Record<string, number> = { "♣": 0, C: 0, c: 0, "♦": 1, D: 1, d: 1, "♥": 2, H: 2, h: 2, "♠": 3, S: 3, s: 3 };
const PASS = 15;
const BLIND = 5, PROOF = 6, KEYS = 7;

class FormError extends Error {}

function fail(index: number, kind: string, what: string): never {
  throw new FormError(`record ${index} (${kind}): ${what}`);
}

function hex(v: unknown, at: () => never): Uint8Array {
  if (typeof v !== "string" || !/^(?:[0-9a-fA-F]{2})*$/.test(v)) at();
  return new Uint8Array((v as string).match(/../g)?.map((x) => parseInt(x, 16)) ?? []);
}

function card(v: unknown, at: () => never): number {
  if (typeof v === "number" && Number.isInteger(v) && v >= 0 && v < 52) return v;
  if (typeof v !== "string") at();
  const t = (v as string).trim();
  const rank = RANKS[t.slice(0, -1)];
  const suit = SUITS[t.slice(-1)];
  if (rank === undefined || suit === undefined) at();
  return suit! * 13 + rank!;
}

function suit(v: unknown, at: () => never): number {
  if (typeof v === "number" && Number.isInteger(v) && v >= 0 && v < 4) return v;
  const s = typeof v === "string" ? SUITS[v.trim()] : undefined;
  if (s === undefined) at();
  return s!;
}

type Obj = Record<string, unknown>;

/** A hand's `blind` (its transcript, as `tarneeb export` writes it) as its blind record, and
 *  each card's proof (`[position, proof]`, or null for a card without one). */
function blindRecord(v: unknown, bad: (what: string) => () => never): { record: unknown[]; proofs: ([number, Uint8Array] | null)[] } {
  const shape = "blind must be {publics, passes, partials, partial_proofs, opened, proofs} (and batch_proofs, shuffle_proofs in v2)";
  if (v === null || typeof v !== "object") bad(shape)();
  const b = v as Obj;
  const hexes = (k: string) => (Array.isArray(b[k]) ? (b[k] as unknown[]).map((x) => hex(x, bad(`blind ${k} must be hex`))) : bad(`blind ${k} must be a list`)());
  const one = (k: string) => (b[k] === null ? null : hex(b[k], bad(`blind ${k} must be hex`)));
  if (!Array.isArray(b.proofs)) bad(shape)();
  const proofs = (b.proofs as unknown[]).map((p) => {
    if (p === null) return null;
    if (!Array.isArray(p) || p.length !== 2 || !Number.isInteger(p[0])) bad("each play proof is [position, hex proof] or null")();
    return [(p as unknown[])[0] as number, hex((p as unknown[])[1], bad("a play proof must be hex"))] as [number, Uint8Array];
  });
  const head = [BLIND, one("publics"), hexes("passes"), hexes("partials")];
  const record = "shuffle_proofs" in b // tarneeb-blind-v2: the batched proofs, then each pass's elements and scalars
    ? [...head, [one("batch_proofs"), ...hexes("shuffle_proofs")], one("opened")]
    : [...head, hexes("partial_proofs"), one("opened")];
  return { record, proofs };
}

/** The log's bytes from its JSON form (the parsed document); throws an Error naming the
 *  record for a document that is not one. */
export function jsonFormToBytes(doc: unknown): Uint8Array {
  if (doc === null || typeof doc !== "object" || (doc as Obj).format !== "tarneeb-log-json") throw new FormError("not the JSON form of a tarneeb log");
  const d = doc as Obj;
  if (d.version !== 3) throw new FormError(`JSON form of version ${String(d.version)}: only version 3 is read`);
  if (!Array.isArray(d.records) || !d.records.length) throw new FormError("\"records\" must be a non-empty list");
  const parts: Uint8Array[] = [];
  let named = false;
  d.records.forEach((raw: unknown, i: number) => {
    if (raw === null || typeof raw !== "object") fail(i, "?", "not an object");
    const r = raw as Obj;
    const kind = String(r.type);
    const bad = (what: string) => () => fail(i, kind, what);
    const bin = (k: string, nil = false): Uint8Array | null => (nil && r[k] === null ? null : hex(r[k], bad(`${k} must be hex`)));
    switch (r.type) {
      case "header": {
        if (r.dealing !== undefined && r.dealing !== "blind") fail(i, kind, "dealing must be \"blind\" when given");
        const rules = r.rules as Obj;
        named = rules !== null && typeof rules === "object" && rules.trump === "named";
        const seats = Array.isArray(r.seats) ? (r.seats as Obj[]).map((s) => [s?.name, s?.computer]) : bad("seats must be a list")();
        const b = r.batch as Obj | null;
        const batch = b === null || b === undefined ? null : [b.index, b.size,
          Array.isArray(b.path) ? b.path.map((p) => hex(p, bad("batch path must be hex"))) : bad("batch path must be a list")(),
          hex(b.root, bad("batch root must be hex")), hex(b.head_signature, bad("head_signature must be hex"))];
        const list = (k: string) => (r[k] === null ? null : Array.isArray(r[k]) ? (r[k] as unknown[]).map((x) => hex(x, bad(`${k} must be hex`))) : bad(`${k} must be a list`)());
        parts.push(encode([0, r.magic, r.version, rules, seats, bin("match_id"), bin("server_commitment", true), batch,
          list("client_commitments"), list("client_seeds"), r.first_dealer, bin("public_key", true),
          ...(r.dealing === "blind" ? ["blind"] : [])]));
        break;
      }
      case "hand": {
        const blind = r.blind === undefined || r.blind === null ? null : blindRecord(r.blind, bad);
        const deal = r.deal as Obj | null;
        let recorded: unknown[] | null = null;
        if (deal !== null && deal !== undefined) {
          if (!Array.isArray(deal.hands) || deal.hands.length !== 4) fail(i, kind, "deal must be {\"hands\": [four card lists], \"thirteenth\": card}");
          const masks = (deal.hands as unknown[][]).map((h) => h.reduce((m: number, c) => m + 2 ** card(c, bad("a card of the deal is not a card")), 0));
          recorded = [...masks, deal.thirteenth === null ? null : card(deal.thirteenth, bad("thirteenth is not a card"))];
        }
        parts.push(encode([1, r.deal_number, r.dealer, r.revealed === null ? null : card(r.revealed, bad("revealed is not a card")), recorded]));
        if (blind !== null) parts.push(encode(blind.record));
        const timer = new Set(Array.isArray(r.timer) ? (r.timer as number[]) : bad("timer must be a list")());
        const moves: number[] = [];
        for (const c of Array.isArray(r.calls) ? (r.calls as Obj[]) : bad("calls must be a list")()) {
          const v = c.call === "pass" ? PASS : c.call;
          if (!Number.isInteger(v) || !Number.isInteger(c.seat)) fail(i, kind, "a call is not a seat and a bid or pass");
          moves.push(64 + (((c.seat as number) << 4) | (v as number)));
        }
        if (named && r.trump !== null && r.trump !== undefined) moves.push(56 + suit(r.trump, bad("trump is not a suit")));
        const first = moves.length; // the first card's move
        for (const c of Array.isArray(r.plays) ? r.plays : bad("plays must be a list")()) moves.push(1 + card(c, bad("a card played is not a card")));
        moves.forEach((m, k) => {
          parts.push(encode(timer.has(k) ? m | 0x80 : m));
          const proof = k >= first ? blind?.proofs[k - first] : null;
          if (proof) parts.push(encode([PROOF, proof[0], proof[1]]));
        });
        if (r.closed !== false) {
          const claimed = named || r.trump === null || r.trump === undefined ? null : suit(r.trump, bad("trump is not a suit"));
          parts.push(encode([4, claimed, r.tricks, r.scores, r.totals]));
        }
        break;
      }
      case "end": {
        const a = r.abandoned as Obj | null;
        parts.push(encode([2, r.winner, bin("server_seed", true), a === null || a === undefined ? null : [a.cause, a.seat, a.reason]]));
        break;
      }
      case "signature":
        parts.push(encode([3, bin("signature")]));
        break;
      case "keys": {
        const secrets = (k: string) => (Array.isArray(r[k]) ? (r[k] as unknown[]).map((x) => (x === null ? null : hex(x, bad(`${k} must be hex or null`)))) : bad(`${k} must be a list`)());
        parts.push(encode([KEYS, r.deal_number, secrets("scalars"), secrets("permutations")]));
        break;
      }
      default:
        fail(i, kind, "not a record type of the JSON form");
    }
  });
  // a log cut short, as export writes it: the bytes after the cut, so the very log comes back
  if (d.cut_bytes !== undefined) parts.push(hex(d.cut_bytes, () => { throw new FormError("\"cut_bytes\" must be hex"); }));
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export { FormError };
