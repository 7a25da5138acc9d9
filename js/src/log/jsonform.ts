/**
 * The JSON form of a log (docs/FORMAT.md "The JSON form", as `tarneeb export` writes it)
 * back to the log's msgpack bytes, so a player may paste it: the records re-encoded in
 * the canonical form, each hand as its deal record, its moves and its claims record. A log
 * dealt blind carries its transcripts in the form too: each hand's blind record follows its
 * deal record, each card its proof record, and the keys records the end record (PROTOCOL.md
 * §13).
 *
 * It is read as the Python verifier reads it (`tarneeb.replay.log.jsonform.loads`), refusing
 * what that refuses in its words: a key twice in one object, a field the log would not carry,
 * `3.0` where a whole number is wanted, a document or a record past the log's caps, and a
 * record that the log made would not say the same way (each record is compared with itself
 * exported again from the log). The result is then read and verified like any log: a byte
 * that differs from what the platform signed is a broken signature, never a clean verdict.
 */
import { type ParsedLog, parseLog } from "./records.js";
import { LogError } from "./fields.js";
import { rulesFromMap } from "../rules/rules.js";
import { DEFAULT_LIMITS, type Limits } from "../text/stream.js";
import { checkSizes, differs, endToJson, handToJson, headerToJson, isObject, isWhole, keysToJson, parseCard, parseSuit } from "./jsonback.js";
import { pack } from "../text/pack.js";
import { FormError, type Json, type JsonObject, parseStrict, pyRepr, pyText } from "../text/strictjson.js";

const PASS = 15, CALL_MOVE = 64n, TRUMP_MOVE = 56n, CARD_MOVE = 1n, TIMER_MOVE = 128n;
const BLIND = 5, PROOF = 6, KEYS = 7;
const FORMAT = "tarneeb-log-json";
const CAUSES = ["disconnect", "timeout", "resignation", "server-fault"];
/** digits of a whole number in the JSON form (Python's `Limits.max_int_digits`) */
const MAX_INT_DIGITS = 24;
const FIELDS: Record<string, string[]> = {
  hand: ["type", "deal_number", "dealer", "calls", "revealed", "trump", "plays", "timer", "tricks", "scores", "totals", "deal", "closed", "blind"],
  header: ["type", "magic", "version", "rules", "seats", "match_id", "server_commitment", "batch", "client_commitments", "client_seeds", "first_dealer", "public_key", "dealing"],
  end: ["type", "winner", "server_seed", "abandoned"],
  signature: ["type", "signature"],
  keys: ["type", "deal_number", "scalars", "permutations"],
};
const grouped = (n: number): string => n.toLocaleString("en");
const codePoints = (s: string): number => {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff || i + 1 >= s.length || (s.charCodeAt(i + 1) & 0xfc00) !== 0xdc00) n++;
  }
  return n;
};

/** One record of the document (Python's `_In`): its fields, and its errors naming it. */
class In {
  constructor(readonly index: number, readonly rec: JsonObject) {}
  fail(what: string): never {
    throw new FormError(`record ${this.index} (${"type" in this.rec ? pyText(this.rec.type) : "?"}): ${what}`);
  }
  get(key: string): Json {
    if (!(key in this.rec)) this.fail(`missing field ${pyRepr(key)}`);
    return this.rec[key]!;
  }
  /** bytes.fromhex: pairs of hex digits, ASCII spaces between them; of ``value``, or of
   * the field ``key`` when no value is given (undefined); a null is null with ``nil`` (an
   * item of a list too: a kept scalar) */
  hex(key: string, value?: Json, nil = false): Uint8Array | null {
    const v = value === undefined ? this.get(key) : value;
    if (v === null && nil) return null;
    if (typeof v !== "string") this.fail(`${key} must be a hex string`);
    const digits = (v as string).replace(/[ \t\n\v\f\r]+(?=[0-9a-fA-F]{2}|$)|^[ \t\n\v\f\r]+/g, "");
    if (!/^(?:[0-9a-fA-F]{2})*$/.test(digits)) this.fail(`${key} is not hex`);
    return Uint8Array.from(digits.match(/../g) ?? [], (x) => parseInt(x, 16));
  }
  card(key: string, v: Json, nil = false): number | null {
    if (v === null && nil) return null;
    if (typeof v !== "string") this.fail(`${key}: ${pyRepr(v)} is not a card`);
    return this.or(key, () => parseCard(v as string));
  }
  list(key: string, nil = false): Json[] | null {
    const v = this.get(key);
    if (v === null && nil) return null;
    if (!Array.isArray(v)) this.fail(`${key} must be a list`);
    return v as Json[];
  }
  hexes(key: string): (Uint8Array | null)[] {
    return this.list(key)!.map((x) => this.hex(key, x, true));
  }
  or<T>(key: string, f: () => T): T {
    try {
      return f();
    } catch (e) {
      return this.fail(`${key}: ${(e as Error).message}`);
    }
  }
}

function blindValues(r: In): { record: unknown[]; proofs: Map<number, [Json, Uint8Array]> } | null {
  const b = r.rec.blind;
  if (b === undefined || b === null) return null;
  const v1 = ["publics", "passes", "partials", "partial_proofs", "opened", "proofs"];
  const keys = isObject(b) ? Object.keys(b).sort().join() : "";
  if (!isObject(b) || !Array.isArray(b.proofs) || (keys !== [...v1].sort().join() && keys !== [...v1, "batch_proofs", "shuffle_proofs"].sort().join())) {
    r.fail("blind must be {publics, passes, partials, partial_proofs, opened, proofs} (and batch_proofs, shuffle_proofs in v2)");
  }
  const t = b as JsonObject;
  const sub = new In(r.index, t);
  const passes = sub.hexes("passes"), partials = sub.hexes("partials"), partialProofs = sub.hexes("partial_proofs");
  const head: unknown[] = [BLIND, sub.hex("publics"), passes, partials];
  const opened = sub.hex("opened", undefined, true);
  let record: unknown[] = [...head, partialProofs, opened];
  if ("shuffle_proofs" in t) { // tarneeb-blind-v2: the batched proofs, then each pass's elements and scalars
    const halves = sub.hexes("shuffle_proofs");
    if (halves.length % 2 || halves.length > 8 || halves.some((h) => h === null)) r.fail("shuffle_proofs must be two hex strings for each pass (eight)");
    record = [...head, [sub.hex("batch_proofs"), ...halves], opened];
  }
  const proofs = new Map<number, [Json, Uint8Array]>();
  (t.proofs as Json[]).forEach((p, k) => {
    if (p === null) return;
    if (!Array.isArray(p) || p.length !== 2 || !(isWhole(p[0]) || typeof p[0] === "boolean")) r.fail("each play proof is [position, hex proof] or null");
    proofs.set(k, [(p as Json[])[0]!, sub.hex("proof", (p as Json[])[1]!)!]);
  });
  return { record, proofs };
}

/** A move's bytes, as Python's `bytes()` takes them: 0-255, or refused. */
function moveBytes(r: In, codes: bigint[]): number[] {
  if (codes.some((c) => c < 0n || c > 255n)) r.fail("bytes must be in range(0, 256)");
  const timed = codes.some((c) => c >= 128n);
  return codes.flatMap((c) => (timed && c >= 128n ? [0xcc, Number(c)] : [Number(c)]));
}

function hand(r: In, named: boolean): Uint8Array[] {
  const calls: [bigint, bigint][] = [];
  for (const c of r.list("calls")!) {
    if (!isObject(c) || Object.keys(c).sort().join() !== "call,seat") r.fail("each call is {\"seat\": s, \"call\": n or \"pass\"}");
    const o = c as JsonObject;
    const call = o.call === "pass" ? PASS : o.call;
    if (!isWhole(call) || !isWhole(o.seat)) r.fail(`call ${pyRepr(c)} is not a seat and a bid or pass`);
    calls.push([BigInt(o.seat as number | bigint), BigInt(call as number | bigint)]);
  }
  let trump = r.get("trump");
  if (typeof trump === "string") trump = r.or("trump", () => parseSuit(trump as string));
  let timer = 0n;
  for (const k of r.list("timer")!) {
    if (!isWhole(k) || k < 0 || k >= 64) r.fail(`timer: ${pyRepr(k)} is not a move index 0-63`);
    timer |= 1n << BigInt(k as number);
  }
  const deal = r.get("deal");
  let recorded: unknown[] | null = null;
  if (deal !== null) {
    if (!isObject(deal) || !Array.isArray(deal.hands) || deal.hands.length !== 4) r.fail("deal must be {\"hands\": [four card lists], \"thirteenth\": card}");
    const d = deal as JsonObject;
    const masks = (d.hands as Json[]).map((h) => (Array.isArray(h) ? h.reduce((m: bigint, c) => m | (1n << BigInt(r.card("deal", c)!)), 0n) : -1n));
    recorded = [...masks, r.card("thirteenth", d.thirteenth ?? null, true)];
  }
  const plays = r.list("plays")!.map((c) => r.card("plays", c)!);
  const closed = "closed" in r.rec ? r.rec.closed : true;
  if (typeof closed !== "boolean") r.fail(`closed must be true or false, not ${pyRepr(closed)}`);
  if (!closed && ["tricks", "scores", "totals"].some((k) => r.rec[k] !== undefined && r.rec[k] !== null)) {
    r.fail("an open hand (closed: false) has no claims record: its tricks, scores and totals are null");
  }
  const [dealNumber, dealer] = [r.get("deal_number"), r.get("dealer")];
  const revealed = r.card("revealed", r.get("revealed"), true);
  const [tricks, scores, totals] = [r.get("tricks"), r.get("scores"), r.get("totals")];
  const blind = blindValues(r);
  const codes = calls.map(([s, v]) => CALL_MOVE | (s << 4n) | v);
  if (named && trump !== null) {
    if (!isWhole(trump) || trump < 0 || trump > 3) r.fail(`trump: ${pyRepr(trump)} is not a suit`);
    codes.push(TRUMP_MOVE + BigInt(trump as number | bigint));
  }
  const first = codes.length; // the first card's move
  codes.push(...plays.map((c) => CARD_MOVE + BigInt(c)));
  const marked = codes.map((c, k) => ((timer >> BigInt(k)) & 1n ? c | TIMER_MOVE : c));
  const parts = [pack([1, dealNumber, dealer, revealed, recorded])];
  if (blind !== null) {
    parts.push(pack(blind.record));
    marked.forEach((m, k) => {
      parts.push(Uint8Array.from(moveBytes(r, [m])));
      const proof = k >= first ? blind.proofs.get(k - first) : undefined;
      if (proof) parts.push(pack([PROOF, proof[0], proof[1]]));
    });
  } else parts.push(Uint8Array.from(moveBytes(r, marked)));
  if (closed) parts.push(pack([4, named ? null : trump, tricks, scores, totals]));
  return parts;
}

function header(r: In, lim: Limits): Uint8Array[] {
  if (r.get("magic") !== "tarneeb-log") r.fail("magic must be 'tarneeb-log'");
  const rules = r.get("rules");
  if (isObject(rules) && typeof rules.name === "string" && codePoints(rules.name) > lim.maxName) {
    r.fail(`a rules name of ${grouped(codePoints(rules.name))} characters: over the max_name cap of ${grouped(lim.maxName)}`);
  }
  if (!isObject(rules)) r.fail("rules: rules must be a table of fields");
  r.or("rules", () => rulesFromMap(rules as JsonObject));
  const seats = r.list("seats")!.map((s) => {
    if (!isObject(s) || typeof s.name !== "string" || typeof s.computer !== "boolean") r.fail("each seat is {\"name\": text, \"computer\": true/false}");
    const o = s as JsonObject;
    if (codePoints(o.name as string) > lim.maxName) r.fail(`a seat name of ${grouped(codePoints(o.name as string))} characters: over the max_name cap of ${grouped(lim.maxName)} bytes`);
    return [o.name, o.computer];
  });
  const b = r.get("batch");
  let batch: unknown[] | null = null;
  if (b !== null) {
    if (!isObject(b) || !Array.isArray(b.path)) r.fail("batch must be {index, size, path, root, head_signature}");
    const o = b as JsonObject;
    batch = [o.index ?? null, o.size ?? null, (o.path as Json[]).map((p) => r.hex("batch path", p)), r.hex("batch root", o.root ?? null),
      r.hex("batch head_signature", o.head_signature ?? null)];
  }
  const cc = r.list("client_commitments", true), cs = r.list("client_seeds", true);
  const matchId = r.hex("match_id");
  const firstDealer = r.get("first_dealer");
  const commitment = r.hex("server_commitment", undefined, true);
  const commitments = cc === null ? null : cc.map((x) => r.hex("client_commitments", x));
  const seeds = cs === null ? null : cs.map((x) => r.hex("client_seeds", x));
  const publicKey = r.hex("public_key", undefined, true);
  const version = r.get("version");
  const dealing = r.rec.dealing ?? null;
  if (dealing !== null && dealing !== "blind") r.fail("dealing must be 'blind' or absent");
  return [pack([0, "tarneeb-log", version, rules, seats, matchId, commitment, batch, commitments, seeds, firstDealer, publicKey,
    ...(dealing === "blind" ? ["blind"] : [])])];
}

function end(r: In): Uint8Array[] {
  const winner = r.get("winner");
  const seed = r.hex("server_seed", undefined, true);
  const a = r.rec.abandoned ?? null;
  if (a !== null && (!isObject(a) || !CAUSES.includes(a.cause as string) || typeof a.reason !== "string")) {
    r.fail(`abandoned must be null or {"cause": one of ${CAUSES.join(", ")}, "seat": 0-3 or null, "reason": text}`);
  }
  const o = a as JsonObject | null;
  return [pack([2, winner, seed, o === null ? null : [o.cause, o.seat ?? null, o.reason]])];
}

/** One record's bytes (Python's `_record_from_json` up to the encoding). */
function recordBytes(index: number, obj: Json, lim: Limits, named: boolean): Uint8Array[] {
  if (!isObject(obj)) throw new FormError(`record ${index}: not a JSON object`);
  const r = new In(index, obj);
  const kind = r.get("type");
  const fields = typeof kind === "string" && Object.hasOwn(FIELDS, kind) ? FIELDS[kind]! : null;
  const unknown = fields === null ? [] : Object.keys(obj).filter((k) => !fields.includes(k)).sort();
  if (unknown.length) r.fail(`unknown field(s) ${unknown.map(pyRepr).join(", ")}`);
  try {
    if (kind === "hand") return hand(r, named);
    if (kind === "header") return header(r, lim);
    if (kind === "end") return end(r);
    if (kind === "signature") return [pack([3, r.hex("signature")])];
    if (kind === "keys") return [pack([KEYS, r.get("deal_number"), r.hexes("scalars"), r.hexes("permutations")])];
  } catch (e) {
    if (e instanceof FormError) throw e;
    r.fail((e as Error).message); // what Python's packer refuses
  }
  return r.fail(`unknown record type ${pyRepr(kind)}`);
}

/** The record of the document that byte `at` of its log lies in: "record i (kind): ". */
function recordAt(starts: number[], records: Json[], at: number | null): string {
  if (at === null) return "";
  let i = 0;
  while (i + 1 < starts.length && starts[i + 1]! <= at) i++;
  const rec = records[i];
  return `record ${i} (${isObject(rec) && "type" in rec ? pyText(rec.type) : "?"}): `;
}

/** A log's error without the byte it names: the Python reader's message. */
const reason = (e: LogError): string => e.message.replace(/^byte \d+: /, "");

/** The log of the records' bytes, read whole or refused (`parse_log(strict=True)`). */
function readWhole(data: Uint8Array, starts: number[], records: Json[], lim: Limits): ParsedLog {
  let log: ParsedLog;
  try {
    log = parseLog(data, lim);
  } catch (e) {
    if (!(e instanceof LogError)) throw e;
    throw new FormError(`${recordAt(starts, records, e.offset)}${reason(e)}`);
  }
  if (log.cut !== null) {
    const m = /^unreadable from byte (\d+): (.*?)(?: \(at byte (\d+)\))?$/s.exec(log.cut.message);
    const at = m === null ? log.cut.offset : Number(m[3] ?? m[1]);
    throw new FormError(`${recordAt(starts, records, at)}${m === null ? log.cut.message : m[2]}`);
  }
  return log;
}

/** Each record against itself exported from the log made (`_differs`). */
function sameAsLog(log: ParsedLog, records: Json[]): void {
  let hands = 0, keys = 0;
  records.forEach((rec, i) => {
    const o = rec as JsonObject;
    const back = o.type === "header" ? headerToJson(log.header) : o.type === "hand" ? handToJson(log.hands[hands++]!)
      : o.type === "end" ? endToJson(log.end!) : o.type === "keys" ? keysToJson(log.keys[keys++]!)
      : { type: "signature", signature: Array.from(log.signature!, (b) => b.toString(16).padStart(2, "0")).join("") };
    const d = differs(rec, back);
    if (d !== null) throw new FormError(`record ${i} (${pyText(o.type)}): ${d}: the log would not say what the document says`);
  });
}

/** The log's bytes from its JSON form (the parsed document: `parseStrict`'s, or
 *  `JSON.parse`'s); throws a FormError worded as Python's `from_json` words it. */
export function jsonFormToBytes(doc: unknown, lim: Limits = DEFAULT_LIMITS): Uint8Array {
  if (!isObject(doc) || doc.format !== FORMAT) throw new FormError(`not a JSON tarneeb log (expected "format": "${FORMAT}")`);
  const d = doc as JsonObject;
  const unknown = Object.keys(d).filter((k) => !["format", "version", "records", "cut_short_at", "cut_bytes"].includes(k)).sort();
  if (unknown.length || !isWhole(d.version) || d.version !== 3) {
    throw new FormError(`not a JSON tarneeb log of version 3 ("version": ${pyRepr(d.version)}${unknown.length ? `; unknown field(s) ${pyRepr(unknown)}` : ""})`);
  }
  const cut = d.cut_short_at;
  if ("cut_short_at" in d && (!isWhole(cut) || cut < 0)) {
    throw new FormError(`"cut_short_at" must be the byte where the log stops (a whole number from 0), not ${pyRepr(cut)}`);
  }
  let tail: Uint8Array | null = null;
  if ("cut_bytes" in d) {
    if (!("cut_short_at" in d)) throw new FormError("\"cut_bytes\" are the bytes after the cut: the document says no \"cut_short_at\"");
    const text = d.cut_bytes;
    if (typeof text !== "string" || codePoints(text) > 2 * lim.maxBytes) {
      throw new FormError(`"cut_bytes" must be hex text of the bytes after the cut, within the max_bytes cap of ${grouped(lim.maxBytes)}`);
    }
    try {
      tail = new In(0, { cut_bytes: text }).hex("cut_bytes");
    } catch {
      throw new FormError("\"cut_bytes\" is not hex");
    }
  }
  const records = d.records;
  if (!Array.isArray(records) || !records.length) throw new FormError("\"records\" must be a non-empty list");
  if (records.length > lim.maxRecords) throw new FormError(`${grouped(records.length)} records: over the max_records cap of ${grouped(lim.maxRecords)}; raise it with --max-records`);
  records.forEach((rec, i) => checkSizes(i, rec, lim));
  const parts: Uint8Array[] = [];
  const starts: number[] = [];
  let size = 0;
  let named = false;
  records.forEach((rec, i) => {
    starts.push(size);
    for (const p of recordBytes(i, rec, lim, named)) {
      parts.push(p);
      size += p.length;
    }
    if (isObject(rec) && rec.type === "header" && isObject(rec.rules)) named = rec.rules.trump === "named";
  });
  const data = new Uint8Array(size);
  parts.reduce((at, p) => (data.set(p, at), at + p.length), 0);
  sameAsLog(readWhole(data, starts, records, lim), records);
  if (cut !== undefined) {
    const said = `"cut_short_at" says the log was cut short at byte ${String(cut)}`;
    if (Number(cut) !== size) throw new FormError(`${said}, but its records, the whole ones before the cut, end at byte ${size}`);
    const last = records[records.length - 1];
    if (isObject(last) && last.type === "signature" && tail === null) throw new FormError(`${said}, after its signature: the log without the bytes cut off would read as whole`);
  }
  if (tail === null) return data;
  const whole = new Uint8Array(size + tail.length);
  whole.set(data);
  whole.set(tail, size);
  let at: number | null;
  try {
    at = parseLog(whole, lim).cut?.offset ?? null;
  } catch (e) {
    if (e instanceof LogError) throw new FormError(reason(e));
    throw e;
  }
  if (at !== size) {
    throw new FormError(`"cut_bytes": the log with them is not cut short at byte ${size}, where its records end (${at === null ? "it reads whole" : `it is cut at byte ${at}`})`);
  }
  return whole;
}

/** The log's bytes from the text of its JSON form, read as `tarneeb verify` reads it. */
export function jsonFormText(text: string, lim: Limits = DEFAULT_LIMITS): Uint8Array {
  if (text.length > 8 * lim.maxBytes && codePoints(text) > 8 * lim.maxBytes) {
    throw new FormError(`JSON text of ${grouped(codePoints(text))} characters, more than eight times: over the max_bytes cap of ${grouped(lim.maxBytes)}; raise it with --max-bytes`);
  }
  return jsonFormToBytes(parseStrict(text, MAX_INT_DIGITS), lim);
}

/** Whether `bytes` are to be read as the JSON form of a log (FORMAT.md), not the log itself:
 *  as `tarneeb verify` tells them, they start as a JSON object (no log starts with `{`). */
export function startsAsJson(bytes: Uint8Array): boolean {
  let i = 0;
  while (i < bytes.length && [0x20, 0x09, 0x0d, 0x0a, 0xef, 0xbb, 0xbf].includes(bytes[i]!)) i++;
  return bytes[i] === 0x7b;
}

/** The log's bytes from a file holding its JSON form (UTF-8 text). */
export function jsonFormFile(bytes: Uint8Array, lim: Limits = DEFAULT_LIMITS): Uint8Array {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new FormError("not UTF-8 text");
  }
  return jsonFormText(text, lim);
}

export { FormError };
