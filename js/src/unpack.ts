/**
 * One msgpack value of a log read as the reference reader reads it (docs/FORMAT.md): its
 * whole numbers exact — past 2^53, where a JavaScript number cannot hold them, as a
 * BigInt — its canonical form, and what that reader refuses inside a value (a text that is
 * not UTF-8, a map key that is neither text nor bytes) in the order of its bytes, so that
 * of two faults the first is named.
 */
import { Decoder, Encoder } from "@msgpack/msgpack";
import { type Bytes, equal } from "./bytes.js";
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
 * The value of one msgpack value's bytes: a whole number within 2^53 as a number (as the
 * 52-bit hands of a recorded deal are), one past it as a BigInt, never rounded.
 */
export function readValue(raw: Bytes): unknown {
  // only uint64 and int64 (0xcf, 0xd3) hold what a double may round
  if (!raw.includes(0xcf) && !raw.includes(0xd3)) return PLAIN.decode(raw);
  return narrow(EXACT.decode(raw));
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
  try {
    return ENCODER.encode(v);
  } catch {
    return WIDE.encode(widen(v));  // a BigInt, which ENCODER refuses
  }
}

/** Whether `raw` is the canonical msgpack form of `v`. */
export const isCanonical = (v: unknown, raw: Bytes): boolean => equal(encodeExact(v), raw);

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

const UTF8 = new TextDecoder("utf-8", { fatal: true });
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
