/**
 * Each record's fields (docs/FORMAT.md "Records"): the header, a deal, a hand's claims and
 * the end record decoded from their msgpack arrays and checked against their forms and
 * caps; a value that breaks them is a ValueError naming the field and the byte.
 */
import { encode } from "@msgpack/msgpack";
import { type Bytes } from "../text/bytes.js";
import { grouped, pyStr, unsafeCharacter } from "../text/names.js";
import type { EndRecord, HandRecord, Header } from "./recordtypes.js";
import { ALL_RULE_FIELDS, type RuleSet, RULE_FIELDS, rulesFromMap } from "../rules/rules.js";
import { type Limits } from "../text/stream.js";
import { BIN_KEY, Float, pyFloat } from "../text/unpack.js";

export const MAGIC = "tarneeb-log";
export const VERSION = 3;
export const CAUSES = ["disconnect", "timeout", "resignation", "server-fault"];
export const SCORE_LIMIT = 2 ** 31;

/** A log that cannot be read at all (exit 2). */
export class LogError extends Error {
  constructor(message: string, readonly offset: number | null = null) {
    super(offset === null ? message : `byte ${offset}: ${message}`);
  }
}

/** A problem with one value past the header: the log is read up to it. */
export class ValueError extends Error {
  constructor(readonly reason: string, readonly offset: number, readonly cap = false, readonly whole = false) {
    super(reason);
  }
}

export const isInt = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v);
export const isBin = (v: unknown): v is Uint8Array => v instanceof Uint8Array;

export function show(v: unknown): string {
  if (isBin(v)) return `${v.length} bytes`;
  if (v instanceof Float) return cut30(pyFloat(v.value));
  if (Array.isArray(v)) return `a list of ${v.length}`;
  if (v !== null && typeof v === "object") return "a map";
  // Python's repr, cut to 30 characters
  return cut30(typeof v === "string" ? pyStr(v) : v === null ? "None" : typeof v === "boolean" ? (v ? "True" : "False") : String(v));
}

const cut30 = (text: string): string => [...text].length <= 30 ? text : [...text].slice(0, 27).join("") + "...";

/** Python's order of texts: by code point. */
function byCodePoint(a: string, b: string): number {
  const x = [...a].map((c) => c.codePointAt(0)!);
  const y = [...b].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

/** Python's repr() of bytes. */
function pyBytes(b: Bytes): string {
  const q = b.includes(0x27) && !b.includes(0x22) ? '"' : "'";
  let out = "b" + q;
  for (const c of b) {
    if (c === q.charCodeAt(0) || c === 0x5c) out += "\\" + String.fromCharCode(c);
    else if (c === 9) out += "\\t";
    else if (c === 10) out += "\\n";
    else if (c === 13) out += "\\r";
    else if (c >= 0x20 && c < 0x7f) out += String.fromCharCode(c);
    else out += `\\x${c.toString(16).padStart(2, "0")}`;
  }
  return out + q;
}

/** Python's repr() of a value as read from a log (a map's keys text, or bytes as `BIN_KEY` holds them). */
export function pyValue(v: unknown): string {
  if (v === null || v === undefined) return "None";
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "string") return v.startsWith(BIN_KEY) ? pyBytes(Uint8Array.from(v.slice(BIN_KEY.length), (c) => c.charCodeAt(0))) : pyStr(v);
  if (v instanceof Float) return pyFloat(v.value);
  if (isBin(v)) return pyBytes(v);
  if (Array.isArray(v)) return `[${v.map(pyValue).join(", ")}]`;
  if (typeof v === "object") return `{${Object.entries(v).map(([k, x]) => `${pyValue(k)}: ${pyValue(x)}`).join(", ")}}`;
  return String(v);
}

export class Shape {
  constructor(private kind: string, private offset: number, private header: boolean) {}
  fail(what: string): Error {
    const msg = `${this.kind} record: ${what}`;
    return this.header ? new LogError(msg, this.offset) : new ValueError(msg, this.offset);
  }
  int(v: unknown, name: string, lo: number, hi: number, nil = false): number | null {
    if (v === null && nil) return null;
    if (!isInt(v) || v < lo || v > hi) throw this.fail(`${name} must be a whole number ${lo}-${hi}${nil ? " or nil" : ""}, not ${show(v)}`);
    return v;
  }
  bin(v: unknown, name: string, lo: number, hi: number, nil = false): Bytes | null {
    if (v === null && nil) return null;
    if (!isBin(v) || v.length < lo || v.length > hi) throw this.fail(`${name} must be ${lo === hi ? lo : `${lo}-${hi}`} bytes${nil ? " or nil" : ""}, not ${show(v)}`);
    return v;
  }
  ints(v: unknown, name: string, lo: number, hi: number, nil = false): number[] | null {
    if (v === null && nil) return null;
    if (!Array.isArray(v) || v.length !== 4) throw this.fail(`${name} must be a list of 4 numbers, not ${show(v)}`);
    for (const x of v) this.int(x, name, lo, hi);
    return [...v] as number[];
  }
  text(what: string, t: string): void {
    const bad = unsafeCharacter(t);
    if (bad) throw this.fail(`${what} holds the character ${bad} (a control, line-break or bidi character), which would change how a verdict that shows it reads`);
  }
}

export function decodeHeader(d: unknown[], lim: Limits): Header {
  const sh = new Shape("header", 0, true);
  if (d.length < 3 || d[1] !== MAGIC) throw new LogError("not a tarneeb log (the first record is not a tarneeb-log header)", 0);
  const version = d[2];
  // a whole number past 2^53 (a BigInt) is a version too, a newer one
  if (!(isInt(version) || typeof version === "bigint") || version < 1) throw sh.fail(`format version must be a number, not ${show(version)}`);
  if (version > VERSION) throw new LogError(`format version ${version} is newer than this tool reads (${VERSION}); upgrade tarneeb`, 0);
  if (version < VERSION) throw new LogError(`format version ${version} is not read: only version ${VERSION} (tarneeb-fair-v2, move by move) logs are read`, 0);
  if (d.length === 13) {
    if (d[12] !== "blind") throw sh.fail(`dealing (field 12) must be 'blind', not ${show(d[12])}; a log dealt from the seeds has no 13th field`);
  } else if (d.length !== 12) throw sh.fail(`has ${d.length} fields, not 12 (13 for blind dealing)`);
  const [, , , rulesRaw, seats, matchId, commitment, batch, commitments, seeds, firstDealer, publicKey] = d;
  if (rulesRaw === null || typeof rulesRaw !== "object" || Array.isArray(rulesRaw) || isBin(rulesRaw) || rulesRaw instanceof Float) throw sh.fail("rules must be a map of fields");
  const map = rulesRaw as Record<string, unknown>;
  if (typeof map.name === "string" && [...map.name].length > lim.maxName) throw sh.fail(`a rules name of ${grouped([...map.name].length)} characters: over the max_name cap of ${grouped(lim.maxName)}`);
  const missing = RULE_FIELDS.filter((k) => !(k in map));
  if (missing.length) throw sh.fail(`rules lack field(s) ${missing.join(", ")}: a log records every rule`);
  let rules: RuleSet;
  try {
    rules = rulesFromMap(map);
  } catch (e) {
    let why = (e as Error).message;
    // a name that is not text, shown as the Python reader shows it
    const name = "name must be 1-64 characters";
    if (typeof map.name !== "string" && why.startsWith("rule set ") && why.endsWith(`: ${name}`)) why = `rule set ${pyValue(map.name)}: ${name}`;
    // keys of bytes among the unknown ones, shown and sorted as the Python reader does
    if (why.startsWith("unknown rule field(s): ") && Object.keys(map).some((k) => k.startsWith(BIN_KEY))) {
      const unknown = Object.keys(map).filter((k) => !(ALL_RULE_FIELDS as readonly string[]).includes(k));
      why = `unknown rule field(s): ${unknown.map((k) => (k.startsWith(BIN_KEY) ? pyValue(k) : k)).sort(byCodePoint).join(", ")}`;
    }
    throw sh.fail(`rules: ${why}`);
  }
  // no bid could be scored without a table of values: refused as a table that is no list
  if ((rules.values as unknown) === null) throw sh.fail("rules: values must be a list of 12 numbers (bids 2 to 13)");
  if (!Array.isArray(seats) || seats.length !== 4 || !seats.every((s) => Array.isArray(s) && s.length === 2
      && typeof s[0] === "string" && typeof s[1] === "boolean")) throw sh.fail("seats must be four [name, computer] pairs");
  const seatList = (seats as [string, boolean][]).map(([name, computer]) => ({ name, computer }));
  for (const s of seatList) {
    const bytes = new TextEncoder().encode(s.name).length;
    if (bytes > lim.maxName) throw sh.fail(`a seat name of ${grouped(bytes)} bytes: over the max_name cap of ${grouped(lim.maxName)}`);
  }
  for (const s of seatList) sh.text("a seat name", s.name);
  sh.text("the rules name", rules.name);
  const h: Header = {
    rules, rulesMap: map, seats: seatList, matchId: sh.bin(matchId, "match_id", 1, 64)!,
    firstDealer: sh.int(firstDealer, "first_dealer", 0, 3)!, serverCommitment: null, batch: null,
    clientCommitments: null, clientSeeds: null, publicKey: null, blind: d.length === 13,
  };
  h.serverCommitment = sh.bin(commitment, "server_commitment", 32, 32, true);
  if (batch !== null) {
    if (!Array.isArray(batch) || batch.length !== 5 || !Array.isArray(batch[2])) throw sh.fail("batch must be [index, size, path, root, head_signature] or nil");
    const size = sh.int(batch[1], "batch size", 1, 2 ** 40)!;
    h.batch = {
      index: sh.int(batch[0], "batch index", 0, size - 1)!, size,
      path: (batch[2] as unknown[]).map((p) => sh.bin(p, "batch path", 32, 32)!),
      root: sh.bin(batch[3], "batch root", 32, 32)!, headSignature: sh.bin(batch[4], "batch head_signature", 64, 64)!,
    };
    if (h.batch.path.length > 64) throw sh.fail("batch path is longer than 64 hashes");
  }
  for (const [name, v, lo, hi] of [["client_commitments", commitments, 32, 32], ["client_seeds", seeds, 16, 64]] as const) {
    if (v === null) continue;
    if (!Array.isArray(v) || v.length !== 4) throw sh.fail(`${name} must be a list of four, or nil`);
    const list = v.map((x) => sh.bin(x, name, lo, hi)!);
    if (name === "client_commitments") h.clientCommitments = list;
    else h.clientSeeds = list;
  }
  h.publicKey = sh.bin(publicKey, "public_key", 32, 32, true);
  return h;
}

export function decodeDeal(d: unknown[], at: number): HandRecord {
  const sh = new Shape("deal", at, false);
  if (d.length !== 5) throw sh.fail(`has ${d.length} fields, not 5`);
  const rec: HandRecord = {
    dealNumber: sh.int(d[1], "deal_number", 0, 1_000_000)!, dealer: sh.int(d[2], "dealer", 0, 3)!,
    revealed: sh.int(d[3], "revealed", 0, 51, true), deal: null, calls: [], trump: null, plays: [],
    timer: 0n, tricks: null, scores: null, totals: null, closed: false, offset: at,
  };
  const deal = d[4];
  if (deal !== null) {
    if (!Array.isArray(deal) || deal.length !== 5) throw sh.fail("deal must be four hands and the dealer's 13th card, or nil");
    rec.deal = {
      masks: deal.slice(0, 4).map((m) => sh.int(m, "deal hand", 0, 2 ** 52 - 1)!),
      thirteenth: sh.int(deal[4], "deal 13th card", 0, 51, true),
    };
  }
  return rec;
}

export function closeHand(rec: HandRecord, d: unknown[], at: number, named: boolean): void {
  const sh = new Shape("claims", at, false);
  if (d.length !== 5) throw sh.fail(`has ${d.length} fields, not 5`);
  const trump = sh.int(d[1], "trump", 0, 3, true);
  const tricks = sh.ints(d[2], "tricks", 0, 13, true);
  const scores = sh.ints(d[3], "scores", -SCORE_LIMIT, SCORE_LIMIT, true);
  const totals = sh.ints(d[4], "totals", -SCORE_LIMIT, SCORE_LIMIT);
  if (trump !== null) {
    if (named) throw sh.fail("the trump is named by a move in these rules, so the claims record's trump must be nil");
    rec.trump = trump;
  }
  rec.tricks = tricks;
  rec.scores = scores;
  rec.totals = totals;
  rec.closed = true;
}

export function decodeEnd(d: unknown[], at: number): EndRecord {
  const sh = new Shape("end", at, false);
  if (d.length !== 4) throw sh.fail(`has ${d.length} fields, not 4`);
  const end: EndRecord = {
    winner: sh.int(d[1], "winner", 0, 1, true), serverSeed: sh.bin(d[2], "server_seed", 32, 32, true), abandoned: null,
  };
  const a = d[3];
  if (a !== null) {
    if (!(Array.isArray(a) && a.length === 3 && CAUSES.includes(a[0] as string) && typeof a[2] === "string"
        && [...a[2]].length <= 1024)) throw sh.fail(`abandoned must be nil or [cause, seat, reason], the cause one of ${CAUSES.join(", ")}, the reason text of at most 1024 characters`);
    sh.text("the abandonment reason", a[2] as string);
    if (end.winner !== null) throw sh.fail("a match abandoned has no winner, but the end record names both");
    const seat = sh.int(a[1], "abandoning seat", 0, 3, true);
    if ((seat === null) !== (a[0] === "server-fault")) throw sh.fail("the abandoning seat must be nil for a server fault, and the seat that left for any other cause");
    end.abandoned = { cause: a[0] as string, seat, reason: a[2] as string };
  }
  return end;
}

/** What a writer writes after the header, torn: half a timer move, or a record's array start. */
