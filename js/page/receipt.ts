/**
 * A seat's pre-play receipt (PROTOCOL.md §8.1), checked against a log: its signature,
 * under the platform's key (the one given, else the log's), and that the log is the match
 * it promised — match id, rules, seats, server commitment, season leaf and the four client
 * commitments. Each difference is a `receipt-mismatch` finding, as `tarneeb verify
 * --receipt` gives it.
 */
import { encode } from "@msgpack/msgpack";
import { matchBinding, type ParsedLog } from "../src/index.js";

const te = new TextEncoder();
const RECEIPT_TAG = te.encode("tarneeb-fair-v2/receipt\0");

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const lp16 = (b: Uint8Array) => concat(new Uint8Array([b.length >> 8, b.length & 255]), b);
const equal = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);
const hexOf = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");

function bytes(v: unknown, what: string, length?: number): Uint8Array {
  if (typeof v !== "string" || !/^(?:[0-9a-fA-F]{2})*$/.test(v)) throw new Error(`${what} must be hex`);
  const b = new Uint8Array(v.match(/../g)?.map((x) => parseInt(x, 16)) ?? []);
  if (length !== undefined && b.length !== length) throw new Error(`${what} must be ${length} bytes, not ${b.length}`);
  return b;
}

/** A receipt file, read: its terms as bytes, its key and signature. */
export interface Receipt {
  matchId: Uint8Array;
  rules: Uint8Array;
  seats: Uint8Array[];
  serverCommitment: Uint8Array;
  season: { index: number; size: number; root: Uint8Array } | null;
  clientCommitments: Uint8Array[];
  publicKey: Uint8Array;
  signature: Uint8Array;
}

/** The receipt in the JSON text of a receipt file; throws an Error saying what is wrong. */
export function readReceipt(text: string): Receipt {
  let d: Record<string, unknown>;
  try {
    d = JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error("not JSON: give the receipt file tarneeb play --receipt-out writes");
  }
  if (d === null || typeof d !== "object" || d.format !== "tarneeb-receipt") throw new Error("not a tarneeb receipt (its format is not tarneeb-receipt)");
  if (d.protocol !== "tarneeb-fair-v2") throw new Error(`protocol ${String(d.protocol)} is not tarneeb-fair-v2`);
  const seats = d.seats;
  const commitments = d.client_commitments;
  if (!Array.isArray(seats) || seats.length !== 4) throw new Error("seats must be a list of 4");
  if (!Array.isArray(commitments) || commitments.length !== 4) throw new Error("client_commitments must be a list of 4");
  if (d.rules === null || typeof d.rules !== "object" || Array.isArray(d.rules)) throw new Error("rules must be a map");
  const s = d.season as Record<string, unknown> | null;
  let season: Receipt["season"] = null;
  if (s !== null && s !== undefined) {
    if (!Number.isInteger(s.index) || !Number.isInteger(s.size)) throw new Error("season index and size must be whole numbers");
    season = { index: s.index as number, size: s.size as number, root: bytes(s.root, "season root", 32) };
  }
  return {
    matchId: bytes(d.match_id, "match_id"),
    rules: encode(d.rules),
    seats: seats.map((x) => encode(x)),
    serverCommitment: bytes(d.server_commitment, "server_commitment", 32),
    season,
    clientCommitments: commitments.map((c, i) => bytes(c, `client commitment ${i + 1}`, 32)),
    publicKey: bytes(d.public_key, "public_key", 32),
    signature: bytes(d.signature, "signature", 64),
  };
}

async function verify(key: Uint8Array, sig: Uint8Array, msg: Uint8Array): Promise<boolean> {
  try {
    const k = await crypto.subtle.importKey("raw", key as BufferSource, { name: "Ed25519" }, false, ["verify"]);
    return await crypto.subtle.verify({ name: "Ed25519" }, k, sig as BufferSource, msg as BufferSource);
  } catch {
    return false;
  }
}

/** Every way `log` is not the match `r` promised (empty: it is), checked under `pinned`,
 *  else the log's own key. */
export async function receiptProblems(r: Receipt, log: ParsedLog, pinned: Uint8Array | null): Promise<string[]> {
  const h = log.header;
  const out: string[] = [];
  const key = pinned ?? h.publicKey;
  if (key === null) out.push("the log names no key to check the receipt's signature with");
  else if (!equal(r.publicKey, key)) out.push("the receipt is signed by another key than the platform's key the log is checked with");
  else {
    const binding = await matchBinding(r.serverCommitment, r.season);
    const message = concat(RECEIPT_TAG, binding, lp16(r.matchId), lp16(r.rules), ...r.seats.map(lp16), ...r.clientCommitments);
    if (!await verify(key, r.signature, message)) out.push("the receipt's signature does not verify: it was changed after the platform signed it");
  }
  if (h.serverCommitment === null || h.clientCommitments === null) {
    out.push("the receipt promised a match with committed seeds, but the log commits to none");
    return out;
  }
  const differ = (what: string) => out.push(`the log is not the match promised before play: its ${what} differs from the receipt's`);
  if (!equal(r.matchId, h.matchId)) differ(`match id (${hexOf(h.matchId)}, the receipt's ${hexOf(r.matchId)})`);
  if (!equal(r.rules, encode(h.rulesMap))) differ("rules");
  h.seats.forEach((s, i) => {
    if (!equal(r.seats[i]!, encode([s.name, s.computer]))) differ(`seat ${i}`);
  });
  if (!equal(r.serverCommitment, h.serverCommitment)) differ("server commitment");
  const b = h.batch;
  const same = r.season === null ? b === null
    : b !== null && b.index === r.season.index && b.size === r.season.size && equal(b.root, r.season.root);
  if (!same) differ("season leaf");
  h.clientCommitments.forEach((c, i) => {
    if (!equal(r.clientCommitments[i]!, c)) differ(`client commitment of seat ${i}`);
  });
  return out;
}
