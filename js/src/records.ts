/**
 * A log read value by value (docs/FORMAT.md): the header, each hand (deal record, moves,
 * claims), the end and signature records, within the caps; a log cut short or whose bytes
 * stop being whole values is read up to there (§ "A log cut short").
 */
import { Encoder, decode, encode } from "@msgpack/msgpack";
import { type BlindTranscript, type RevealedKeys, readBlindRecord } from "./blind.js";

// one encoder for every canonical-form check: building one per record cost more than the check
const ENCODER = new Encoder();
import { type Bytes, equal } from "./bytes.js";
import { type RuleSet, RULE_FIELDS, rulesFromMap } from "./rules.js";
import { pyStr } from "./names.js";
import { DEFAULT_LIMITS, type Limits, moveRun, scanValue } from "./stream.js";

export const HEADER = 0, DEAL = 1, END = 2, SIGNATURE = 3, CLAIMS = 4, BLIND = 5, PROOF = 6, KEYS = 7;
const MAGIC = "tarneeb-log";
const VERSION = 3;
const CAUSES = ["disconnect", "timeout", "resignation", "server-fault"];
const SCORE_LIMIT = 2 ** 31;

/** A log that cannot be read at all (exit 2). */
export class LogError extends Error {
  constructor(message: string, readonly offset: number | null = null) {
    super(offset === null ? message : `byte ${offset}: ${message}`);
  }
}

/** A problem with one value past the header: the log is read up to it. */
class ValueError extends Error {
  constructor(readonly reason: string, readonly offset: number, readonly cap = false, readonly whole = false) {
    super(reason);
  }
}

export interface Batch { index: number; size: number; path: Bytes[]; root: Bytes; headSignature: Bytes }

export interface Header {
  rules: RuleSet;
  rulesMap: Record<string, unknown>;
  seats: { name: string; computer: boolean }[];
  matchId: Bytes;
  serverCommitment: Bytes | null;
  batch: Batch | null;
  clientCommitments: Bytes[] | null;
  clientSeeds: Bytes[] | null;
  firstDealer: number;
  publicKey: Bytes | null;
  blind: boolean;
}

export interface HandRecord {
  dealNumber: number;
  dealer: number;
  revealed: number | null;
  deal: { masks: number[]; thirteenth: number | null } | null;
  calls: [number, number][];
  trump: number | null;
  plays: number[];
  timer: bigint;
  tricks: number[] | null;
  scores: number[] | null;
  totals: number[] | null;
  closed: boolean;
  offset: number;
  /** a log dealt blind: the hand's blind record and its play proofs */
  blind?: BlindTranscript | null;
}

export interface EndRecord {
  winner: number | null;
  serverSeed: Bytes | null;
  abandoned: { cause: string; seat: number | null; reason: string } | null;
}

export interface Cut { offset: number; message: string; unreadable: boolean }

export interface ParsedLog {
  header: Header;
  hands: HandRecord[];
  end: EndRecord | null;
  endOffset: number | null;
  signature: Bytes | null;
  signatureOffset: number | null;
  signedBytes: Bytes;
  cut: Cut | null;
  size: number;
  zeroTail: number;
  /** the byte after each value (each move its own), in order */
  ends: number[];
  /** a log dealt blind: its keys records */
  keys: RevealedKeys[];
}

const isInt = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v);
const isBin = (v: unknown): v is Uint8Array => v instanceof Uint8Array;

function show(v: unknown): string {
  if (isBin(v)) return `${v.length} bytes`;
  if (Array.isArray(v)) return `a list of ${v.length}`;
  if (v !== null && typeof v === "object") return "a map";
  // Python's repr, cut to 30 characters
  const text = typeof v === "string" ? pyStr(v) : v === null ? "None" : typeof v === "boolean" ? (v ? "True" : "False") : String(v);
  return [...text].length <= 30 ? text : [...text].slice(0, 27).join("") + "...";
}

// FORMAT.md header, seats: characters no shown text may hold
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

class Shape {
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
    const m = UNSAFE.exec(t);
    if (m) throw this.fail(`${what} holds the character U+${m[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")} (a control, line-break or bidi character), which would change how a verdict that shows it reads`);
  }
}

function decodeHeader(d: unknown[], lim: Limits): Header {
  const sh = new Shape("header", 0, true);
  if (d.length < 3 || d[1] !== MAGIC) throw new LogError("not a tarneeb log (the first record is not a tarneeb-log header)", 0);
  const version = d[2];
  if (!isInt(version) || version < 1) throw sh.fail(`format version must be a number, not ${show(version)}`);
  if (version > VERSION) throw new LogError(`format version ${version} is newer than this verifier reads (${VERSION})`, 0);
  if (version < VERSION) throw new LogError(`format version ${version} is not read: only version ${VERSION} (tarneeb-fair-v2, move by move) logs are read`, 0);
  if (d.length === 13) {
    if (d[12] !== "blind") throw sh.fail(`dealing (field 12) must be 'blind', not ${show(d[12])}`);
  } else if (d.length !== 12) throw sh.fail(`has ${d.length} fields, not 12 (13 for blind dealing)`);
  const [, , , rulesRaw, seats, matchId, commitment, batch, commitments, seeds, firstDealer, publicKey] = d;
  if (rulesRaw === null || typeof rulesRaw !== "object" || Array.isArray(rulesRaw) || isBin(rulesRaw)) throw sh.fail("rules must be a map of fields");
  const map = rulesRaw as Record<string, unknown>;
  if (typeof map.name === "string" && [...map.name].length > lim.maxName) throw sh.fail(`a rules name over the max_name cap of ${lim.maxName}`);
  const missing = RULE_FIELDS.filter((k) => !(k in map));
  if (missing.length) throw sh.fail(`rules lack field(s) ${missing.join(", ")}: a log records every rule`);
  let rules: RuleSet;
  try {
    rules = rulesFromMap(map);
  } catch (e) {
    throw sh.fail(`rules: ${(e as Error).message}`);
  }
  if (!Array.isArray(seats) || seats.length !== 4 || !seats.every((s) => Array.isArray(s) && s.length === 2
      && typeof s[0] === "string" && typeof s[1] === "boolean")) throw sh.fail("seats must be four [name, computer] pairs");
  const seatList = (seats as [string, boolean][]).map(([name, computer]) => ({ name, computer }));
  for (const s of seatList) {
    if (new TextEncoder().encode(s.name).length > lim.maxName) throw sh.fail(`a seat name over the max_name cap of ${lim.maxName}`);
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

function decodeDeal(d: unknown[], at: number): HandRecord {
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

function closeHand(rec: HandRecord, d: unknown[], at: number, named: boolean): void {
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

function decodeEnd(d: unknown[], at: number): EndRecord {
  const sh = new Shape("end", at, false);
  if (d.length !== 4) throw sh.fail(`has ${d.length} fields, not 4`);
  const end: EndRecord = {
    winner: sh.int(d[1], "winner", 0, 1, true), serverSeed: sh.bin(d[2], "server_seed", 32, 32, true), abandoned: null,
  };
  const a = d[3];
  if (a !== null) {
    if (!(Array.isArray(a) && a.length === 3 && CAUSES.includes(a[0] as string) && typeof a[2] === "string"
        && [...a[2]].length <= 1024)) throw sh.fail("abandoned must be nil or [cause, seat, reason]");
    sh.text("the abandonment reason", a[2] as string);
    if (end.winner !== null) throw sh.fail("a match abandoned has no winner, but the end record names both");
    const seat = sh.int(a[1], "abandoning seat", 0, 3, true);
    if ((seat === null) !== (a[0] === "server-fault")) throw sh.fail("the abandoning seat must be nil for a server fault, and the seat that left for any other cause");
    end.abandoned = { cause: a[0] as string, seat, reason: a[2] as string };
  }
  return end;
}

/** What a writer writes after the header, torn: half a timer move, or a record's array start. */
function writerStart(head: Bytes): boolean {
  if (head.length === 1 && head[0] === 0xcc) return true;
  const kinds: Record<number, number[]> = { 2: [SIGNATURE], 3: [PROOF], 4: [END, KEYS], 5: [DEAL, CLAIMS], 6: [BLIND] };
  const k = head[0]! >= 0x90 && head[0]! <= 0x9f ? kinds[head[0]! - 0x90] : undefined;
  return k !== undefined && (head.length === 1 || k.includes(head[1]!));
}

function zerosAtEnd(b: Bytes, upto = b.length): number {
  let i = upto;
  while (i > 0 && b[i - 1] === 0) i--;
  return upto - i;
}

const num = (n: number) => n.toLocaleString("en-US");

/** Python's `f"{n:#04x}"`. */
function hex04(n: number): string {
  const prefix = (n < 0 ? "-" : "") + "0x";
  return prefix + Math.abs(n).toString(16).padStart(Math.max(0, 4 - prefix.length), "0");
}

/**
 * What Python's msgpack reader refuses in a value before anything else, in the order of its
 * bytes: a str whose bytes are not UTF-8 ("utf8"), or a map key that is not text or bytes
 * (its Python type name); null for neither. (JS's reader takes both, differently.)
 */
function readerRefusal(raw: Bytes): string | null {
  const utf8 = new TextDecoder("utf-8", { fatal: true });
  let p = 0;
  const n = (w: number) => {
    let v = 0;
    for (let i = 0; i < w; i++) v = v * 256 + raw[p + i]!;
    p += w;
    return v;
  };
  // one value from p: its Python type name, or a refusal thrown
  const value = (): string => {
    const b = raw[p++]!;
    let len = -1;
    if (b <= 0x7f || b >= 0xe0) return "int";
    if (b >= 0xa0 && b <= 0xbf) len = b & 31;
    else if (b === 0xd9) len = n(1);
    else if (b === 0xda) len = n(2);
    else if (b === 0xdb) len = n(4);
    if (len >= 0) {
      try {
        utf8.decode(raw.subarray(p, p + len));
      } catch {
        throw new Refusal("utf8");
      }
      p += len;
      return "str";
    }
    if (b === 0xc4 || b === 0xc5 || b === 0xc6) {
      const size = n(b === 0xc4 ? 1 : b === 0xc5 ? 2 : 4);
      p += size;
      return "bytes";
    }
    let items = -1;
    let map = false;
    if (b >= 0x90 && b <= 0x9f) items = b & 15;
    else if (b === 0xdc) items = n(2);
    else if (b === 0xdd) items = n(4);
    else if (b >= 0x80 && b <= 0x8f) [items, map] = [b & 15, true];
    else if (b === 0xde) [items, map] = [n(2), true];
    else if (b === 0xdf) [items, map] = [n(4), true];
    if (items >= 0) {
      for (let i = 0; i < items; i++) {
        if (map) {
          const k = value();
          if (k !== "str" && k !== "bytes") throw new Refusal(k);
        }
        value();
      }
      return map ? "dict" : "list";
    }
    const size = FIXED_SIZES[b];
    if (size === undefined || size < 0) throw new Refusal(null);
    p += size;
    return b === 0xc0 ? "NoneType" : b === 0xc2 || b === 0xc3 ? "bool" : b === 0xca || b === 0xcb ? "float" : "int";
  };
  try {
    value();
  } catch (e) {
    if (e instanceof Refusal) return e.what;
    throw e;
  }
  return null;
}

class Refusal {
  constructor(readonly what: string | null) {}
}

// the bytes after a fixed-size msgpack type byte
const FIXED_SIZES: Record<number, number> = {
  0xc0: 0, 0xc2: 0, 0xc3: 0, 0xca: 4, 0xcb: 8, 0xcc: 1, 0xcd: 2, 0xce: 4, 0xcf: 8,
  0xd0: 1, 0xd1: 2, 0xd2: 4, 0xd3: 8, 0xd4: 2, 0xd5: 3, 0xd6: 5, 0xd7: 9, 0xd8: 17, 0xc7: -1, 0xc8: -1, 0xc9: -1,
};

class Parser {
  header: Header | null = null;
  hands: HandRecord[] = [];
  end: EndRecord | null = null;
  endOffset: number | null = null;
  signature: Bytes | null = null;
  signatureOffset: number | null = null;
  cut: Cut | null = null;
  pos = 0;
  zeroTail = 0;
  last = { start: 0, end: 0, kind: -1 };
  ends: number[] = [];
  keys: RevealedKeys[] = [];
  private records = 0;
  private hand: HandRecord | null = null;

  constructor(private data: Bytes, private lim: Limits) {}

  run(): void {
    try {
      this.loop();
    } catch (e) {
      if (this.header === null && (e instanceof LogError || e instanceof ValueError)) throw this.tornHeader() ?? (e instanceof LogError ? e : new LogError(e.reason, e.offset));
      if (e instanceof LogError) throw e;
      if (!(e instanceof ValueError)) throw e;
      if (this.header === null) throw this.tornHeader() ?? new LogError(e.reason, e.offset);
      if (e.whole) throw new LogError(e.reason, e.offset);
      if (e.cap) {
        this.unreadable(e);
        return;
      }
      // the rest from there: a torn value or zeros is a cut, anything else unreadable
      const rest = this.data.subarray(e.offset);
      const zeros = zerosAtEnd(rest);
      const head = rest.subarray(0, rest.length - zeros);
      if (head.length > this.lim.maxRecordBytes) {
        this.unreadable(e);
        return;
      }
      const cut = this.tornTail(head, zeros, e.offset);
      if (cut === null) {
        this.unreadable(e);
        return;
      }
      this.cutAt(cut, e.offset + head.length, zeros);
      return;
    }
    this.zeroTail = zerosAtEnd(this.data);
  }

  /** A header cut short and zero-filled (a power loss while it was written), or null. */
  private tornHeader(): LogError | null {
    const zeros = zerosAtEnd(this.data);
    const head = this.data.subarray(0, this.data.length - zeros);
    if (!head.length || !zeros || head.length > this.lim.maxRecordBytes) return null;
    const starts = [0x9c, 0x9d].map((n) => Uint8Array.of(n, 0, ...encode(MAGIC)));
    if (!starts.some((st) => head.subarray(0, st.length).every((b, i) => b === st[i]))) return null;
    if (scanValue(head, 0, DEFAULT_LIMITS).kind !== "incomplete") return null;
    return new LogError("log cut short inside its header: not readable", head.length);
  }

  private tornTail(head: Bytes, zeros: number, pos: number): Cut | null {
    if (!head.length) return { offset: pos, message: `cut at byte ${pos}: the rest of the file (${num(zeros)} bytes) is zeros, not records`, unreadable: false };
    const padded = new Uint8Array(head.length + Math.min(zeros, 16));
    padded.set(head);
    if (scanValue(padded, 0, DEFAULT_LIMITS).kind === "error" || scanValue(head, 0, DEFAULT_LIMITS).kind !== "incomplete"
        || !writerStart(head)) return null;
    if (!zeros) return { offset: pos, message: `cut at byte ${pos}: the stream ends inside a record or move (${head.length} bytes of it)`, unreadable: false };
    return { offset: pos, message: `cut at byte ${pos}: a torn record (${head.length} bytes) then ${num(zeros)} bytes of zeros`, unreadable: false };
  }

  private unreadable(e: ValueError): void {
    const at = this.last.end;
    const inside = e.offset !== at ? ` (at byte ${e.offset})` : "";
    this.cut = { offset: at, message: `unreadable from byte ${at}: ${e.reason}${inside}`, unreadable: true };
    this.pos = at;
    this.trimEnds(at);
  }

  private trimEnds(at: number): void {
    while (this.ends.length && this.ends[this.ends.length - 1]! > at) this.ends.pop();
  }

  private cutAt(cut: Cut, zerosAt: number, zeros: number): void {
    this.zeroTail = zeros;
    const { start, end, kind } = this.last;
    let c = cut;
    if (zeros && zerosAt === c.offset && kind >= 0 && end === c.offset) {
      const before = zerosAtEnd(this.data, c.offset);
      if (before) {
        this.undo(kind, c.offset - before);
        c = { offset: start, message: `cut at byte ${start}: a record running into a zero-filled tail (${num(before + zeros)} bytes of zeros)`, unreadable: false };
      }
    }
    this.cut = c;
    this.pos = c.offset;
    this.trimEnds(c.offset);
  }

  private undo(kind: number, zerosAt: number): void {
    if (kind === CLAIMS) {
      const h = this.hands[this.hands.length - 1]!;
      h.closed = false;
      h.tricks = h.scores = h.totals = null;
      if (this.header!.rules.trump !== "named") h.trump = null;
    } else if (kind === DEAL) this.hands.pop();
    else if (kind === END) this.end = this.endOffset = null;
    else if (kind === SIGNATURE) this.signature = this.signatureOffset = null;
    else if (kind === BLIND) this.hands[this.hands.length - 1]!.blind = null;
    else if (kind === PROOF) {
      const h = this.hands[this.hands.length - 1]!;
      h.blind?.plays.delete(h.plays.length - 1);
    } else if (kind === KEYS) this.keys.pop();
    else throw new LogError("log cut short inside its header: not readable", zerosAt);
  }

  private loop(): void {
    const data = this.data;
    const lim = this.lim;
    while (this.pos < data.length) {
      const pos = this.pos;
      const run = moveRun(data, pos);
      if (run > 0) {
        // a run that stops at a last byte 0xcc is followed by half a timer move: a cut below
        this.count(pos);
        if (this.header === null) throw new LogError("not a tarneeb log (the first record is not a tarneeb-log header)", 0);
        if (this.signature !== null) throw new ValueError("a move follows the signature", pos);
        if (this.hand === null || this.end !== null && this.hand === null) throw new ValueError("a move outside a hand (before its deal record)", pos);
        this.addMoves(this.hand, pos, pos + run);
        this.last = { start: pos, end: pos + run, kind: -1 };
        this.pos = pos + run;
        continue;
      }
      const scan = scanValue(data, pos, lim);
      if (scan.kind === "incomplete") {
        const rest = data.subarray(pos);
        if (this.header === null) throw new LogError("log cut short inside its header: not readable", data.length - zerosAtEnd(data));
        if (!writerStart(rest)) {
          this.cut = { offset: pos, message: `unreadable from byte ${pos}: the last ${rest.length} bytes start no value a writer writes`, unreadable: true };
        } else {
          this.cut = { offset: pos, message: `cut at byte ${pos}: the stream ends inside a record or move (${rest.length} bytes of it)`, unreadable: false };
        }
        return;
      }
      if (scan.kind === "error") {
        if (scan.bare) throw new ValueError(scan.message, scan.at);
        if (pos === 0) throw new LogError(`not a tarneeb log (not msgpack: ${scan.message})`, 0);
        throw new ValueError(`not valid msgpack: ${scan.message}`, pos);
      }
      if (scan.end - pos > lim.maxRecordBytes) throw new ValueError(`a record of ${scan.end - pos} bytes: over the max_record_bytes cap of ${lim.maxRecordBytes}`, pos, true);
      this.count(pos);
      if (scan.depth > lim.maxDepth) throw new ValueError(`arrays or maps nested deeper: over the max_depth cap of ${lim.maxDepth}`, pos, true);
      const raw = data.subarray(pos, scan.end);
      const refused = readerRefusal(raw);
      if (refused === "utf8") throw new ValueError("a text field is not valid UTF-8", pos);
      if (refused !== null) {
        const why = `${refused} is not allowed for map key when strict_map_key=True`;
        throw pos === 0 ? new LogError(`not a tarneeb log (not msgpack: ${why})`, 0) : new ValueError(`not valid msgpack: ${why}`, pos);
      }
      let obj: unknown;
      try {
        obj = decode(raw);
      } catch (e) {
        throw new ValueError(`not valid msgpack: ${(e as Error).message}`, pos);
      }
      this.value(obj, raw, pos);
      this.last = { start: pos, end: scan.end, kind: (obj as number[])[0]! };
      this.ends.push(scan.end);
      this.pos = scan.end;
    }
  }

  private count(pos: number): void {
    if (++this.records > this.lim.maxRecords) {
      throw new ValueError(`the log holds more records: over the max_records cap of ${this.lim.maxRecords}; raise it with --max-records`, pos, false, true);
    }
  }

  private value(obj: unknown, raw: Bytes, pos: number): void {
    if (this.header === null && !(Array.isArray(obj) && obj.length >= 2 && obj[0] === HEADER && obj[1] === MAGIC)) {
      throw new LogError("not a tarneeb log (the first record is not a tarneeb-log header)", 0);
    }
    if (obj === 0) throw new ValueError("byte 0x00 is neither a record nor a move", pos);
    if (!equal(ENCODER.encode(obj), raw)) throw new ValueError(`${isInt(obj) ? "move" : "record"} is not in canonical msgpack form`, pos);
    if (this.signature !== null) throw new ValueError("a record follows the signature", pos);
    if (!Array.isArray(obj) || !obj.length) throw new ValueError(`expected a record (a msgpack array) or a move, found ${show(obj)}${isInt(obj) ? ` (${hex04(obj)} is no move)` : ""}`, pos);
    const kind = obj[0];
    if (!isInt(kind)) throw new ValueError(`unknown record type ${show(kind)}`, pos);
    const named = this.header?.rules.trump === "named";
    if (kind === CLAIMS) {
      if (this.hand === null || this.hand.closed) throw new ValueError("a claims record with no hand open", pos);
      closeHand(this.hand, obj, pos, named);
    } else if (kind === BLIND || kind === PROOF || kind === KEYS) {
      if (!this.header!.blind) throw new ValueError(`a ${kind === BLIND ? "blind" : kind === PROOF ? "proof" : "keys"} record in a log whose header does not say dealing: blind`, pos);
      const why = readBlindRecord(obj, pos, {
        hand: this.end === null ? this.hand : null, afterDeal: this.last.kind === DEAL, afterMoves: this.last.kind === -1 && this.last.end === pos,
        ended: this.end !== null, keys: this.keys,
      });
      if (why !== null) throw new ValueError(why, pos);
    } else if (kind === DEAL) {
      if (this.end !== null) throw new ValueError("a deal record follows the end record", pos);
      if (this.hand !== null && !this.hand.closed) throw new ValueError(`a deal record while hand ${this.hand.dealNumber} is still open: its claims record is missing`, pos);
      if (this.hands.length === this.lim.maxHands) {
        throw new ValueError(`the match has more dealing attempts: over the max_hands cap of ${this.lim.maxHands}; raise it with --max-hands`, pos, false, true);
      }
      this.hand = decodeDeal(obj, pos);
      this.hands.push(this.hand);
    } else if (kind === HEADER) {
      // past the header, a header-like value is a value the reader refuses, not a log refused whole
      if (this.header !== null) throw new ValueError("a second header record", pos);
      this.header = decodeHeader(obj, this.lim);
    } else if (kind === END) {
      const end = decodeEnd(obj, pos);
      if (this.end !== null) throw new ValueError("a second end record", pos);
      this.end = end;
      this.endOffset = pos;
      this.hand = null;
    } else if (kind === SIGNATURE) {
      const sh = new Shape("signature", pos, false);
      if (obj.length !== 2) throw sh.fail(`has ${obj.length} fields, not 2`);
      this.signature = sh.bin(obj[1], "signature", 64, 64);
      this.signatureOffset = pos;
    } else throw new ValueError(`unknown record type ${kind}`, pos);
  }

  /** FORMAT.md "Moves": calls, then a named trump, then cards; each checked. */
  private addMoves(rec: HandRecord, from: number, to: number): void {
    const data = this.data;
    if (rec.closed) throw new ValueError(`a move after hand ${rec.dealNumber}'s claims record`, from);
    const named = this.header!.rules.trump === "named";
    let k = rec.calls.length + (named && rec.trump !== null ? 1 : 0) + rec.plays.length;
    const n = rec.dealNumber;
    let i = from;
    while (i < to) {
      const at = i;
      let code = data[i]!;
      let timer = false;
      if (code === 0xcc) {
        code = data[i + 1]!;
        i++;
        timer = true;
      }
      i++;
      const m = code & 0x7f;
      const fail = (why: string) => {
        this.last = { start: from, end: at, kind: -1 };
        return new ValueError(`hand ${n}, move ${k}: ${why}`, at);
      };
      if (m >= 64) {
        if (rec.plays.length || (named && rec.trump !== null)) throw fail("a call after the play began");
        if ((m & 15) === 14) throw fail(`0x${code.toString(16)} is not a move (14 is no call)`);
        if (rec.calls.length === 64) throw fail("more than 64 calls");
        rec.calls.push([(m >> 4) & 3, m & 15]);
      } else if (m >= 56) {
        if (!named) throw fail("a trump named by a move, but in these rules the trump is not named");
        if (rec.trump !== null || rec.plays.length) throw fail("a trump named after the trump or the first card");
        rec.trump = m - 56;
      } else {
        if (rec.plays.length === 52) throw fail("more than 52 cards");
        rec.plays.push(m - 1);
      }
      if (timer) rec.timer |= 1n << BigInt(k);
      this.ends.push(i);
      k++;
    }
  }
}

/** Read a whole log; throws LogError when nothing of it can be checked (exit 2). */
export function parseLog(data: Bytes, lim: Limits = DEFAULT_LIMITS): ParsedLog {
  if (data.length > lim.maxBytes) throw new LogError(`the log is ${data.length} bytes: over the max_bytes cap of ${lim.maxBytes}; raise it with --max-bytes`, 0);
  if (data.length === 0) throw new LogError("empty file, not a tarneeb log", 0);
  const p = new Parser(data, lim);
  p.run();
  if (p.header === null) throw new LogError("log cut short inside its header: not readable", data.length);
  const signed = p.signatureOffset !== null ? data.subarray(0, p.signatureOffset) : data.subarray(0, p.pos === 0 ? data.length : p.pos);
  return {
    header: p.header, hands: p.hands, end: p.end, endOffset: p.endOffset, signature: p.signature,
    signatureOffset: p.signatureOffset, signedBytes: signed, cut: p.cut, size: data.length,
    zeroTail: p.zeroTail, ends: p.ends, keys: p.keys,
  };
}
