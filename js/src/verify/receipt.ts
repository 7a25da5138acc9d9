/**
 * Pre-play receipts (docs/PROTOCOL.md §8.1): the terms the platform signed when play
 * started — match id, rules, seats, server commitment or season leaf, the four client
 * commitments — read from a seat's receipt file, and the check of a log against them
 * (`tarneeb-js verify --receipt FILE LOG`, as `tarneeb verify --receipt`).
 */
import { encode } from "@msgpack/msgpack";
import { type Bytes, concat, equal, fromHex, lp16, toHex, utf8 } from "../text/bytes.js";
import { ed25519Verify, keyId, weakKey } from "../protocol/crypto.js";
import { RECEIPT_TAG, type SeasonLeaf, matchBinding } from "../protocol/derive.js";
import { type Header } from "../log/records.js";
import { encodeExact } from "../text/unpack.js";
import { JsonTextError, readJson } from "../text/jsontext.js";

export const RECEIPT_FORMAT = "tarneeb-receipt";
export const MAX_RECEIPT_BYTES = 64 * 1024;
const PROTOCOL = "tarneeb-fair-v2";
const FIELDS = new Set(["format", "protocol", "match_id", "rules", "seats", "server_commitment", "season",
  "client_commitments", "dealing", "public_key", "key_id", "signature"]);
/** The dealing protocols a receipt can promise: from the committed seeds, or blind under a version of §13. */
export const DEALINGS = [PROTOCOL, "tarneeb-blind-v1", "tarneeb-blind-v2", "tarneeb-blind-v3"];

/** A receipt file that cannot be read: one line saying what is wrong. */
export class ReceiptError extends Error {}

/** The terms of a match as promised before play (the signed part of a receipt). */
export interface Receipt {
  matchId: Bytes;
  rules: Bytes;
  seats: Bytes[];
  serverCommitment: Bytes;
  season: SeasonLeaf | null;
  clientCommitments: Bytes[];
  /** the dealing protocol promised (one of DEALINGS); null: a receipt made before receipts named it */
  dealing: string | null;
}

/** A receipt with the key that signed it and its signature (not yet checked). */
export interface SignedReceipt {
  receipt: Receipt;
  publicKey: Bytes;
  signature: Bytes;
}

/** The bytes the platform signs: RECEIPT_TAG || B || lp16(M) || lp16(rules) || lp16(seat_s)… || K_s… [|| lp16(dealing)]. */
export async function receiptMessage(r: Receipt): Promise<Bytes> {
  return concat(RECEIPT_TAG, await matchBinding(r.serverCommitment, r.season), lp16(r.matchId), lp16(r.rules),
    ...r.seats.map(lp16), ...r.clientCommitments, ...(r.dealing === null ? [] : [lp16(utf8(r.dealing))]));
}

/** The terms a log header records, as a receipt; null for a log that commits to no seeds. */
export function receiptOf(h: Header): Receipt | null {
  if (h.serverCommitment === null || h.clientCommitments === null) return null;
  return {
    matchId: h.matchId, rules: encodeExact(h.rulesMap), seats: h.seats.map((s) => encode([s.name, s.computer])),
    serverCommitment: h.serverCommitment,
    season: h.batch === null ? null : { index: h.batch.index, size: h.batch.size, root: h.batch.root },
    clientCommitments: h.clientCommitments, dealing: null,
  };
}

function hexField(doc: Record<string, unknown>, name: string, length: number | null = null): Bytes {
  const v = doc[name];
  let raw: Bytes | null = null;
  if (typeof v === "string") {
    try {
      raw = fromHex(v);
    } catch {
      raw = null;
    }
  }
  if (raw === null || (length !== null && raw.length !== length)) {
    throw new ReceiptError(`field '${name}' must be hex${length !== null ? ` of ${length} bytes` : ""}`);
  }
  return raw;
}

const pyRepr = (v: unknown): string => (typeof v === "string" ? `'${v}'` : v === null || v === undefined ? "None" : typeof v === "boolean" ? (v ? "True" : "False") : String(v));
const isWhole = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v);

async function read(data: Bytes): Promise<SignedReceipt> {
  let doc: unknown;
  try {
    doc = readJson(data, "a receipt", MAX_RECEIPT_BYTES);
  } catch (e) {
    if (e instanceof JsonTextError) throw new ReceiptError(e.message);
    throw e;
  }
  if (typeof doc !== "object" || doc === null || Array.isArray(doc) || (doc as Record<string, unknown>).format !== RECEIPT_FORMAT) {
    throw new ReceiptError(`expected "format": "${RECEIPT_FORMAT}"`);
  }
  const d = doc as Record<string, unknown>;
  const unknown = Object.keys(d).filter((k) => !FIELDS.has(k)).sort();
  if (unknown.length) throw new ReceiptError(`unknown field(s) ${unknown.map((k) => `'${k}'`).join(", ")}`);
  if (d.protocol !== PROTOCOL) throw new ReceiptError(`protocol ${pyRepr(d.protocol)}; this tool checks ${PROTOCOL}`);
  const seats = d.seats;
  if (!Array.isArray(seats) || seats.length !== 4 || !seats.every((s) => Array.isArray(s) && s.length === 2 && typeof s[0] === "string" && typeof s[1] === "boolean")) {
    throw new ReceiptError("seats must be four [name, computer] pairs");
  }
  if (typeof d.rules !== "object" || d.rules === null || Array.isArray(d.rules)) throw new ReceiptError("rules must be a map");
  const cc = d.client_commitments;
  if (!Array.isArray(cc) || cc.length !== 4) throw new ReceiptError("client_commitments must be four hex commitments");
  if ("dealing" in d && !DEALINGS.includes(d.dealing as string)) throw new ReceiptError(`dealing must be one of ${DEALINGS.join(", ")}`);
  const dealing = "dealing" in d ? d.dealing as string : null;
  let season: SeasonLeaf | null = null;
  if (d.season !== null && d.season !== undefined) {
    const s = d.season as Record<string, unknown>;
    if (typeof s !== "object" || Array.isArray(s) || Object.keys(s).sort().join() !== "index,root,size") throw new ReceiptError("season must be {index, size, root} or null");
    const root = hexField(s, "root", 32);
    if (!isWhole(s.size) || s.size < 1 || s.size > 2 ** 40) throw new ReceiptError(`season size: ${pyRepr(s.size)}; it must be a whole number 1-${2 ** 40}`);
    if (!isWhole(s.index) || s.index < 0 || s.index > s.size - 1) throw new ReceiptError(`leaf index: ${pyRepr(s.index)}; it must be a whole number 0-${(s.size as number) - 1}`);
    season = { index: s.index, size: s.size, root };
  }
  const matchId = hexField(d, "match_id");
  const rules = encode(d.rules);
  const packedSeats = seats.map((s) => encode(s));
  const serverCommitment = hexField(d, "server_commitment", 32);
  const clientCommitments = cc.map((c) => hexField({ c }, "c", 32));
  if (matchId.length < 1 || matchId.length > 64) throw new ReceiptError(`match id: ${matchId.length} byte${matchId.length === 1 ? "" : "s"}; it must be 1-64 bytes`);
  for (const [what, raw] of [["receipt rules", rules], ...packedSeats.map((p, i) => [`receipt seat ${i}`, p] as const)] as const) {
    if (raw.length > 4096) throw new ReceiptError(`${what}: ${raw.length} bytes; at most 4096`);
  }
  const receipt: Receipt = { matchId, rules, seats: packedSeats, serverCommitment, season, clientCommitments, dealing };
  const publicKey = hexField(d, "public_key", 32);
  if ("key_id" in d && d.key_id !== await keyId(publicKey)) {
    throw new ReceiptError(`key_id ${pyRepr(d.key_id)} is not the id of its public_key (${await keyId(publicKey)})`);
  }
  return { receipt, publicKey, signature: hexField(d, "signature", 64) };
}

/** A receipt from its file's bytes; throws ReceiptError naming the file and what is wrong. */
export async function readReceipt(data: Bytes, path = "<receipt>"): Promise<SignedReceipt> {
  try {
    return await read(data);
  } catch (e) {
    if (e instanceof ReceiptError) throw new ReceiptError(`${path}: not a receipt: ${e.message}`);
    throw e;
  }
}

async function keyName(raw: Bytes): Promise<string> {
  return weakKey(raw) === null ? keyId(raw) : `${toHex(raw).slice(0, 16)}… (not a valid Ed25519 key)`;
}

const NAMES: Record<string, string> = {
  match_id: "match id", rules: "rules", seats: "seats", server_commitment: "server commitment",
  season: "season leaf", client_commitments: "client commitments",
};

function differences(a: Receipt, b: Receipt): string[] {
  const seasonEq = (x: SeasonLeaf | null, y: SeasonLeaf | null) => (x === null || y === null ? x === y
    : x.index === y.index && x.size === y.size && equal(x.root, y.root));
  const lists = (x: Bytes[], y: Bytes[]) => x.length === y.length && x.every((v, i) => equal(v, y[i]!));
  const out: string[] = [];
  if (!equal(a.matchId, b.matchId)) out.push("match_id");
  if (!equal(a.rules, b.rules)) out.push("rules");
  if (!lists(a.seats, b.seats)) out.push("seats");
  if (!equal(a.serverCommitment, b.serverCommitment)) out.push("server_commitment");
  if (!seasonEq(a.season, b.season)) out.push("season");
  if (!lists(a.clientCommitments, b.clientCommitments)) out.push("client_commitments");
  return out;
}

function describe(name: string, promised: Receipt, logged: Receipt): string {
  if (name === "season") {
    const where = (r: Receipt) => (r.season === null ? "no season"
      : `leaf ${r.season.index} of the season of ${r.season.size} with root ${toHex(r.season.root).slice(0, 16)}…`);
    return `the receipt promised ${where(promised)}, the log has ${where(logged)}`;
  }
  if (name === "client_commitments") {
    const seats = [0, 1, 2, 3].filter((s) => !equal(promised.clientCommitments[s]!, logged.clientCommitments[s]!)).map((s) => `seat ${s}`);
    if (seats.length === 1) return `the client commitment of ${seats[0]} is not the one promised`;
    return `the client commitments of ${seats.join(", ")} are not the ones promised`;
  }
  return `its ${NAMES[name]} is not the one promised`;
}

/**
 * The dealing protocol a receipt promised against the log's, as `check_dealing` of
 * replay/verify/receipt.py: the header's (seeds or blind) and each hand's blind version
 * (`versions`: deal number → 1-3, a hand without a pass left out). Gives the mismatches
 * (a deal number, or null for the match) and the note for a receipt that promises none.
 */
export function dealingMismatches(h: Header, promised: string | null, versions: Map<number, number>): { found: [number | null, string][]; note: string | null } {
  if (promised === null) {
    return { found: [], note: h.blind ? "the receipt does not name the dealing protocol (a receipt made before receipts did): it does not bind the blind dealing's version (--require-proof makes a deal without pass proofs a finding)" : null };
  }
  const head = `the log is not the match promised before play: the receipt promised dealing under ${promised}, `;
  if ((promised !== PROTOCOL) !== h.blind) return { found: [[null, head + (h.blind ? "the log is dealt blind" : `the log is dealt from seeds (${PROTOCOL})`)]], note: null };
  const found: [number, string][] = [];
  if (h.blind) for (const [n, version] of versions) if (`tarneeb-blind-v${version}` !== promised) found.push([n, `${head}this hand is dealt under tarneeb-blind-v${version}`]);
  return { found, note: null };
}

/** Every way the log is not the promised match, as `receipt-mismatch` finding messages. */
export async function receiptMismatches(h: Header, signed: SignedReceipt, pinned: Bytes | null): Promise<string[]> {
  const out: string[] = [];
  const key = pinned ?? h.publicKey;
  if (key === null) out.push("the log names no key to check the receipt's signature with");
  else if (!equal(signed.publicKey, key)) {
    out.push(`the receipt is signed by key ${await keyName(signed.publicKey)}, not by the platform's key ${await keyName(key)} that the log is checked with`);
  } else if (weakKey(key) !== null || !await ed25519Verify(key, await receiptMessage(signed.receipt), signed.signature)) {
    out.push("the receipt's signature does not verify: it was changed after the platform signed it");
  }
  const logged = receiptOf(h);
  if (logged === null) {
    out.push("the receipt promised a match with committed seeds, but the log commits to none");
    return out;
  }
  for (const name of differences(signed.receipt, logged)) out.push(`the log is not the match promised before play: ${describe(name, signed.receipt, logged)}`);
  return out;
}

export { utf8 };
