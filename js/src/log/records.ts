/**
 * A log read value by value (docs/FORMAT.md): the header, each hand (deal record, moves,
 * claims), the end and signature records, within the caps; a log cut short or whose bytes
 * stop being whole values is read up to there (§ "A log cut short").
 */
import { encode } from "@msgpack/msgpack";
import { type RevealedKeys, readBlindRecord } from "./blindrecords.js";
import { type Bytes, bytesArgument } from "../text/bytes.js";
import { LogError, MAGIC, Shape, ValueError, closeHand, decodeDeal, decodeEnd, decodeHeader, isInt, show } from "./fields.js";
import { grouped as num } from "../text/names.js";
import { DEFAULT_LIMITS, type Limits, moveRun, scanValue } from "../text/stream.js";
import { firstRefusal, isCanonical, isWhole, readValue } from "../text/unpack.js";

export { LogError } from "./fields.js";
export type { Batch, Cut, EndRecord, HandRecord, Header, ParsedLog } from "./recordtypes.js";
import type { Cut, EndRecord, HandRecord, Header, ParsedLog } from "./recordtypes.js";

export const HEADER = 0, DEAL = 1, END = 2, SIGNATURE = 3, CLAIMS = 4, BLIND = 5, PROOF = 6, KEYS = 7;

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


/** Python's `f"{n:#04x}"`. */
function hex04(n: number | bigint): string {
  const prefix = (n < 0 ? "-" : "") + "0x";
  return prefix + (n < 0 ? -n : n).toString(16).padStart(Math.max(0, 4 - prefix.length), "0");
}

/**
 * Whether `head` is the start of a msgpack value that stops before its end, nothing in it
 * refused on the way (the reference reader's test for a torn value).
 */
function incomplete(head: Bytes): boolean {
  return scanValue(head, 0, DEFAULT_LIMITS).kind === "incomplete" && firstRefusal(head, 0, DEFAULT_LIMITS) === null;
}

/**
 * Whether `head`, then `zeros` zero bytes, may be a value torn by a crash: its bytes stop
 * inside it, and neither they nor the first zeros after them hold a byte no log holds or a
 * length past the caps.
 */
function torn(head: Bytes, zeros: number): boolean {
  const padded = new Uint8Array(head.length + Math.min(zeros, 16));
  padded.set(head);
  return scanValue(padded, 0, DEFAULT_LIMITS).kind !== "error" && incomplete(head);
}

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
  /** the last end taken out for the blind or proof record that follows it */
  private glued: { end: number; record: number } | null = null;
  keys: RevealedKeys[] = [];
  private records = 0;
  private hand: HandRecord | null = null;

  constructor(private data: Bytes, private lim: Limits) {}

  run(): void {
    try {
      this.loop();
    } catch (e) {
      // a header past a cap on one value is refused whole, naming the cap, whatever follows it
      if (this.header === null && e instanceof ValueError && e.cap) throw new LogError(e.reason, e.offset);
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
    // as a torn record is judged: a byte no log holds, or a length past the caps, makes it
    // no header a writer was writing
    if (!torn(head, zeros)) return null;
    return new LogError("log cut short inside its header: not readable", head.length);
  }

  private tornTail(head: Bytes, zeros: number, pos: number): Cut | null {
    if (!head.length) return { offset: pos, message: `cut at byte ${pos}: the rest of the file (${num(zeros)} bytes) is zeros, not records`, unreadable: false };
    if (!torn(head, zeros) || !writerStart(head)) return null;
    if (!zeros) return { offset: pos, message: `cut at byte ${pos}: the stream ends inside a record or move (${head.length} byte${head.length === 1 ? "" : "s"} of it)`, unreadable: false };
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
    // a blind or proof record undone: the value before it ends where the log is read to
    const g = this.glued;
    if (g !== null && g.record >= at && g.end <= at && (this.ends[this.ends.length - 1] ?? -1) < g.end) this.ends.push(g.end);
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
      // what begins with moves is no log, however long the run
      if (run > 0 && this.header === null) throw new LogError("not a tarneeb log (the first record is not a tarneeb-log header)", 0);
      // a run of moves is one value to the caps (no log has one this long)
      if (run > lim.maxRecordBytes) throw new ValueError(`a run of moves of more than ${num(lim.maxRecordBytes)} bytes: over the max_record_bytes cap of ${num(lim.maxRecordBytes)}`, pos, true);
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
      // the reader refuses a text that is not UTF-8, or a bad map key, where it meets it:
      // before a fault further on, before the caps on a whole value, in a value cut short
      const refused = firstRefusal(data, pos, lim);
      if (refused === "utf8") throw new ValueError("a text field is not valid UTF-8", pos);
      if (refused !== null) {
        const why = `${refused} is not allowed for map key when strict_map_key=True`;
        throw pos === 0 ? new LogError(`not a tarneeb log (not msgpack: ${why})`, 0) : new ValueError(`not valid msgpack: ${why}`, pos);
      }
      if (scan.kind === "incomplete") {
        const rest = data.subarray(pos);
        // no writer writes a value this long: past the cap, not a value cut short
        if (rest.length > lim.maxRecordBytes) throw new ValueError(`a record of more than ${num(lim.maxRecordBytes)} bytes: over the max_record_bytes cap of ${num(lim.maxRecordBytes)}`, pos, true);
        // a header the file stops inside: refused where the file stops (parseLog), its last
        // bytes zeros or not; only a header that zeros made whole is one zero-filled
        if (this.header === null) return;
        if (!writerStart(rest)) {
          this.cut = { offset: pos, message: `unreadable from byte ${pos}: the last ${rest.length} bytes start no value a writer writes`, unreadable: true };
        } else {
          this.cut = { offset: pos, message: `cut at byte ${pos}: the stream ends inside a record or move (${rest.length} byte${rest.length === 1 ? "" : "s"} of it)`, unreadable: false };
        }
        return;
      }
      if (scan.kind === "error") {
        if (scan.bare) throw new ValueError(scan.message, scan.at);
        if (pos === 0) throw new LogError(`not a tarneeb log (not msgpack: ${scan.message})`, 0);
        throw new ValueError(`not valid msgpack: ${scan.message}`, pos);
      }
      if (scan.end - pos > lim.maxRecordBytes) throw new ValueError(`a record of ${num(scan.end - pos)} bytes: over the max_record_bytes cap of ${num(lim.maxRecordBytes)}`, pos, true);
      this.count(pos);
      if (scan.depth > lim.maxDepth) throw new ValueError(`arrays or maps nested deeper: over the max_depth cap of ${num(lim.maxDepth)}`, pos, true);
      const raw = data.subarray(pos, scan.end);
      let obj: unknown;
      try {
        obj = readValue(raw);
      } catch (e) {
        throw new ValueError(`not valid msgpack: ${(e as Error).message}`, pos);
      }
      this.value(obj, raw, pos);
      const kind = (obj as number[])[0]!;
      this.last = { start: pos, end: scan.end, kind };
      // no value ends between a deal and its blind record, a card and its proof: a writer writes them together
      if ((kind === BLIND || kind === PROOF) && this.ends.length) this.glued = { end: this.ends.pop()!, record: pos };
      this.ends.push(scan.end);
      this.pos = scan.end;
    }
  }

  private count(pos: number): void {
    if (++this.records > this.lim.maxRecords) {
      throw new ValueError(`the log holds more records: over the max_records cap of ${num(this.lim.maxRecords)}; raise it with --max-records`, pos, false, true);
    }
  }

  private value(obj: unknown, raw: Bytes, pos: number): void {
    if (this.header === null && !(Array.isArray(obj) && obj.length >= 2 && obj[0] === HEADER && obj[1] === MAGIC)) {
      throw new LogError("not a tarneeb log (the first record is not a tarneeb-log header)", 0);
    }
    if (obj === 0) throw new ValueError("byte 0x00 is neither a record nor a move", pos);
    // a move is an int, as msgpack reads it: a float (0xca, 0xcb), whole or not, is none
    if (!isCanonical(obj, raw)) throw new ValueError(`${isWhole(obj) ? "move" : "record"} is not in canonical msgpack form`, pos);
    if (this.signature !== null) throw new ValueError("a record follows the signature", pos);
    if (!Array.isArray(obj) || !obj.length) throw new ValueError(`expected a record (a msgpack array) or a move, found ${show(obj)}${isWhole(obj) ? ` (${hex04(obj)} is no move)` : ""}`, pos);
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
        throw new ValueError(`the match has more dealing attempts: over the max_hands cap of ${num(this.lim.maxHands)}; raise it with --max-hands`, pos, false, true);
      }
      this.hand = decodeDeal(obj, pos);
      this.hands.push(this.hand);
    } else if (kind === HEADER) {
      // past the header, a header-like value is a value the reader refuses, not a log refused whole
      if (this.header !== null) throw new ValueError("not a tarneeb log (the first record is not a tarneeb-log header)", pos);  // the Python reader's words
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
      // a move that cannot be is named by its number; a hand that holds too many, as a whole
      const fail = (why: string, whole = false) => {
        this.last = { start: from, end: at, kind: -1 };
        return new ValueError(whole ? `hand ${n} has ${why}` : `hand ${n}, move ${k}: ${why}`, at);
      };
      if (m >= 64) {
        if (rec.plays.length || (named && rec.trump !== null)) throw fail("a call after the play began");
        if ((m & 15) === 14) throw fail(`0x${code.toString(16)} is not a move (14 is no call)`);
        if (rec.calls.length === 64) throw fail("more than 64 calls", true);
        rec.calls.push([(m >> 4) & 3, m & 15]);
      } else if (m >= 56) {
        if (!named) throw fail("a trump named by a move, but in these rules the trump is not named");
        if (rec.trump !== null || rec.plays.length) throw fail("a trump named after the trump or the first card");
        rec.trump = m - 56;
      } else {
        if (rec.plays.length === 52) throw fail("more than 52 cards", true);
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
  bytesArgument(data, "parseLog");
  if (data.length > lim.maxBytes) throw new LogError(`the log is ${num(data.length)} bytes: over the max_bytes cap of ${num(lim.maxBytes)}; raise it with --max-bytes`, 0);
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
