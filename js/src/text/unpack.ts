/**
 * One msgpack value of a log read as the reference reader reads it (docs/FORMAT.md): its
 * whole numbers exact — past 2^53, where a JavaScript number cannot hold them, as a
 * BigInt — its canonical form, and what that reader refuses inside a value (a text that is
 * not UTF-8, a map key that is neither text nor bytes) in the order of its bytes, so that
 * of two faults the first is named.
 */
import { Decoder, Encoder } from "@msgpack/msgpack";
import { type Bytes, concat, equal } from "./bytes.js";
import { FIXED, type Limits, STACK, lengthAt } from "./stream.js";

// one decoder and encoder of each kind: building one per record cost more than the check
const PLAIN = new Decoder();
const EXACT = new Decoder({ useBigInt64: true });
const ENCODER = new Encoder();
// writes a BigInt as uint64 / int64, a number as ENCODER does up to 32 bits
const WIDE = new Encoder({ useBigInt64: true });

/** A whole number: a safe-integer number, or a BigInt (one past 2^53). */
export const isWhole = (v: unknown): v is number | bigint =>
  typeof v === "bigint" || (typeof v === "number" && Number.isInteger(v));

/**
 * A msgpack float (0xca, 0xcb) as read: never a whole number, whatever its value (a
 * JavaScript number would make 20.0 the int 20), with the bytes it was read from. msgpack
 * writes a float as float 64 (0xcb), so those bytes are its canonical form; a float 32 has
 * none.
 */
export class Float {
  constructor(readonly value: number, readonly raw: Bytes) {}
}

/**
 * Python's repr() of a float: the shortest digits that read back as it, positional from
 * 1e-4 up to below 1e16, else with an exponent of at least two digits.
 */
export function pyFloat(x: number): string {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const sign = x < 0 ? "-" : "";
  const [mantissa, exponent] = Math.abs(x).toExponential().split("e") as [string, string];
  const digits = mantissa.replace(".", "");
  const e = Number(exponent);
  if (e < -4 || e >= 16) {
    const rest = digits.length > 1 ? `.${digits.slice(1)}` : "";
    return `${sign}${digits[0]}${rest}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  }
  if (e < 0) return `${sign}0.${"0".repeat(-e - 1)}${digits}`;
  if (digits.length <= e + 1) return `${sign}${digits}${"0".repeat(e + 1 - digits.length)}.0`;
  return `${sign}${digits.slice(0, e + 1)}.${digits.slice(e + 1)}`;
}

/**
 * The value of one msgpack value's bytes: a whole number within 2^53 as a number (as the
 * 52-bit hands of a recorded deal are), one past it as a BigInt, never rounded; a float as
 * a `Float`.
 */
export function readValue(raw: Bytes): unknown {
  if (raw.includes(0xca) || raw.includes(0xcb) || hasBom(raw)) return new Reader(raw).value();
  try {
    // only uint64 and int64 (0xcf, 0xd3) hold what a double may round
    if (!raw.includes(0xcf) && !raw.includes(0xd3)) return PLAIN.decode(raw);
    return narrow(EXACT.decode(raw));
  } catch {
    // a map key of bytes or `__proto__`, which they refuse
    return new Reader(raw).value();
  }
}

/**
 * Whether `raw` holds the bytes of U+FEFF (EF BB BF): a text may start with it, and the
 * decoders above read a text of over 200 bytes with a `TextDecoder` that drops it (the
 * text read would not be the text written); `Reader` keeps it.
 */
function hasBom(raw: Bytes): boolean {
  for (let i = raw.indexOf(0xef); i >= 0 && i + 2 < raw.length; i = raw.indexOf(0xef, i + 1)) {
    if (raw[i + 1] === 0xbb && raw[i + 2] === 0xbf) return true;
  }
  return false;
}

/**
 * A map key of bytes (bin), which the Python reader reads as bytes, apart from any text:
 * this prefix (a lone surrogate, which no text read from UTF-8 holds), then a character a
 * byte.
 */
export const BIN_KEY = "\udc00";

const binKey = (k: Bytes): string => BIN_KEY + String.fromCharCode(...k);
const keyBytes = (k: string): Bytes => Uint8Array.from(k.slice(BIN_KEY.length), (c) => c.charCodeAt(0));

const TEXT = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }); // (a BOM is a character)
/**
 * One value read as the decoders above read it (whole numbers as `readValue` gives them,
 * maps as objects, their keys text or numbers, in their words), but a float as a `Float`,
 * a key of bytes as `BIN_KEY` says, and a key `__proto__` as one like any other, as the
 * Python reader reads them: for the values that hold one.
 */
class Reader {
  private p = 0;
  private view: DataView;
  constructor(private raw: Bytes) {
    this.view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
  }

  private take(n: number): number {
    const at = this.p;
    if (at + n > this.raw.length) throw new Error("Insufficient data");
    this.p += n;
    return at;
  }

  private uint(n: number): number {
    const at = this.take(n);
    return n === 1 ? this.view.getUint8(at) : n === 2 ? this.view.getUint16(at) : this.view.getUint32(at);
  }

  private wide(signed: boolean): number | bigint {
    const at = this.take(8);
    const v = signed ? this.view.getBigInt64(at) : this.view.getBigUint64(at);
    return v >= -Number.MAX_SAFE_INTEGER && v <= Number.MAX_SAFE_INTEGER ? Number(v) : v;
  }

  private list(n: number): unknown[] {
    const out: unknown[] = [];
    for (let i = 0; i < n; i++) out.push(this.value());
    return out;
  }

  private map(n: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) {
      let key = this.value();
      if (key instanceof Uint8Array) key = binKey(key);
      if (typeof key !== "string" && typeof key !== "number") throw new Error(`The type of key must be string or number but ${typeof key}`);
      // an own property, as any other key is (assigning it would set the prototype)
      Object.defineProperty(out, key, { value: this.value(), enumerable: true, writable: true, configurable: true });
    }
    return out;
  }

  private text(n: number): string {
    const at = this.take(n);
    return TEXT.decode(this.raw.subarray(at, at + n));
  }

  private bytes(n: number): Bytes {
    const at = this.take(n);
    return this.raw.subarray(at, at + n);
  }

  value(): unknown {
    const start = this.p;
    const b = this.uint(1);
    if (b <= 0x7f) return b;
    if (b >= 0xe0) return b - 0x100;
    if (b <= 0x8f) return this.map(b & 15);
    if (b <= 0x9f) return this.list(b & 15);
    if (b <= 0xbf) return this.text(b & 31);
    switch (b) {
      case 0xc0: return null;
      case 0xc2: return false;
      case 0xc3: return true;
      case 0xc4: return this.bytes(this.uint(1));
      case 0xc5: return this.bytes(this.uint(2));
      case 0xc6: return this.bytes(this.uint(4));
      case 0xca: return new Float(this.view.getFloat32(this.take(4)), this.raw.subarray(start, this.p));
      case 0xcb: return new Float(this.view.getFloat64(this.take(8)), this.raw.subarray(start, this.p));
      case 0xcc: return this.uint(1);
      case 0xcd: return this.uint(2);
      case 0xce: return this.uint(4);
      case 0xcf: return this.wide(false);
      case 0xd0: return this.view.getInt8(this.take(1));
      case 0xd1: return this.view.getInt16(this.take(2));
      case 0xd2: return this.view.getInt32(this.take(4));
      case 0xd3: return this.wide(true);
      case 0xd9: return this.text(this.uint(1));
      case 0xda: return this.text(this.uint(2));
      case 0xdb: return this.text(this.uint(4));
      case 0xdc: return this.list(this.uint(2));
      case 0xdd: return this.list(this.uint(4));
      case 0xde: return this.map(this.uint(2));
      case 0xdf: return this.map(this.uint(4));
      default: throw new Error(`Unrecognized type byte: 0x${b.toString(16)}`);
    }
  }
}

function narrow(v: unknown): unknown {
  if (typeof v === "bigint") return v >= -Number.MAX_SAFE_INTEGER && v <= Number.MAX_SAFE_INTEGER ? Number(v) : v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) v[i] = narrow(v[i]);
  } else if (v !== null && typeof v === "object" && !(v instanceof Uint8Array)) {
    const m = v as Record<string, unknown>;
    for (const k of Object.keys(m)) m[k] = narrow(m[k]);
  }
  return v;
}

/** The canonical msgpack form of a value read by `readValue` (the shortest integers, bin for bytes). */
export function encodeExact(v: unknown): Uint8Array {
  if (ownForm(v)) return concat(...parts(v));
  try {
    return ENCODER.encode(v);
  } catch {
    return WIDE.encode(widen(v));  // a BigInt, which ENCODER refuses
  }
}

/** Whether `raw` is the canonical msgpack form of `v`. */
export const isCanonical = (v: unknown, raw: Bytes): boolean => equal(encodeExact(v), raw);

// whether a value holds a float or a key of bytes, which the encoders above cannot write
function ownForm(v: unknown): boolean {
  if (v instanceof Float) return true;
  if (Array.isArray(v)) return v.some(ownForm);
  if (v !== null && typeof v === "object" && !(v instanceof Uint8Array)) {
    return Object.keys(v).some((k) => k.startsWith(BIN_KEY)) || Object.values(v).some(ownForm);
  }
  return false;
}

// such a value, in parts: each array's and map's head as msgpack writes it, each float as
// float 64 (its own bytes when it was read as one), a key of bytes as bin, everything else
// as encodeExact writes it
function parts(v: unknown, out: Uint8Array[] = []): Uint8Array[] {
  const head = (n: number, fix: number, b16: number) => {
    if (n <= 15) out.push(Uint8Array.of(fix | n));
    else if (n <= 0xffff) out.push(Uint8Array.of(b16, n >> 8, n & 0xff));
    else out.push(Uint8Array.of(b16 + 1, n >>> 24, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff));
  };
  if (v instanceof Float) {
    if (v.raw.length === 9) out.push(v.raw);
    else {
      const f = new Uint8Array(9);
      f[0] = 0xcb;
      new DataView(f.buffer).setFloat64(1, v.value);
      out.push(f);
    }
  } else if (Array.isArray(v)) {
    head(v.length, 0x90, 0xdc);
    for (const x of v) parts(x, out);
  } else if (v !== null && typeof v === "object" && !(v instanceof Uint8Array)) {
    const entries = Object.entries(v as Record<string, unknown>);
    head(entries.length, 0x80, 0xde);
    for (const [k, x] of entries) {
      out.push(ENCODER.encode(k.startsWith(BIN_KEY) ? keyBytes(k) : k));
      parts(x, out);
    }
  } else out.push(encodeExact(v));
  return out;
}

/** A value as JSON text, a BigInt in it too (which JSON.stringify refuses): for comparing. */
export const jsonKey = (v: unknown): string =>
  JSON.stringify(v, (_, x: unknown) => (typeof x === "bigint" ? `${x}n` : x));

// every whole number past 32 bits as a BigInt, for WIDE to write it in 64
function widen(v: unknown): unknown {
  if (typeof v === "number") return Number.isInteger(v) && (v < -(2 ** 31) || v >= 2 ** 32) ? BigInt(v) : v;
  if (Array.isArray(v)) return v.map(widen);
  if (v !== null && typeof v === "object" && !(v instanceof Uint8Array)) {
    return Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([k, x]) => [k, widen(x)]));
  }
  return v;
}

const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
const TYPE: Record<number, string> = { 0xc0: "NoneType", 0xc2: "bool", 0xc3: "bool", 0xca: "float", 0xcb: "float" };
// the width of the length of each sized type: bin, str, array, map
const WIDTH: Record<number, number> = {
  0xc4: 1, 0xc5: 2, 0xc6: 4, 0xd9: 1, 0xda: 2, 0xdb: 4, 0xdc: 2, 0xdd: 4, 0xde: 2, 0xdf: 4,
};

interface Level { left: number; map: boolean; done: number; badKey: string | null }

/**
 * What the reference reader refuses first in the msgpack value at `pos`, as it meets it
 * byte by byte: a text whose bytes are not UTF-8 (`"utf8"`, once its bytes are there), or
 * a map key that is neither text nor bytes (its Python type name, once the entry's value
 * is read). Null when the value ends, or the data runs out, or `scanValue` refuses a byte
 * (an ext value, a length past the caps) before either: that refusal then comes first.
 */
export function firstRefusal(data: Bytes, pos: number, lim: Limits): string | null {
  const end = data.length;
  let p = pos;
  const stack: Level[] = [];
  let top: Level = { left: 1, map: false, done: 0, badKey: null };
  const length = (w: number): number | null => {
    const n = lengthAt(data, p, w);
    if (n !== null) p += w;
    return n;
  };
  for (;;) {
    if (p >= end) return null;
    const b = data[p++]!;
    let type: string;
    if (b <= 0x7f || b >= 0xe0) type = "int";
    else if ((b >= 0xa0 && b <= 0xbf) || (b >= 0xd9 && b <= 0xdb) || (b >= 0xc4 && b <= 0xc6)) {
      const n = b <= 0xbf ? b & 31 : length(WIDTH[b]!);
      if (n === null || n > lim.maxField || p + n > end) return null;
      if (b < 0xc4 || b > 0xc6) {
        try {
          UTF8.decode(data.subarray(p, p + n));
        } catch {
          return "utf8";
        }
        type = "str";
      } else type = "bytes";
      p += n;
    } else if (b <= 0x9f || b >= 0xdc && b <= 0xdf) {
      const map = b <= 0x8f || b >= 0xde;
      const n = b <= 0x9f ? b & 15 : length(WIDTH[b]!);
      if (n === null || stack.length >= STACK || n > (map ? lim.maxMap : lim.maxField)) return null;
      if (n > 0) {
        stack.push(top);
        top = { left: map ? 2 * n : n, map, done: 0, badKey: null };
        continue;
      }
      type = map ? "dict" : "list";
    } else {
      const size = FIXED[b];
      if (size === undefined || p + size > end) return null;
      p += size;
      type = TYPE[b] ?? "int";
    }
    // a value read: at its level, and at each level it completes
    for (;;) {
      if (top.map) {
        if (top.done % 2 === 0) {
          if (type !== "str" && type !== "bytes") top.badKey = type;
        } else if (top.badKey !== null) return top.badKey;
      }
      top.done++;
      if (--top.left > 0) break;
      const parent = stack.pop();
      if (parent === undefined) return null;
      type = top.map ? "dict" : "list";
      top = parent;
    }
  }
}
