/**
 * The stream of values of a log (docs/FORMAT.md "The stream", "Limits"): where each
 * msgpack value starts and ends, held to the caps on one value before it is decoded, and
 * the runs of moves (bare integers) between records.
 */

/** The msgpack headers that give a length in the bytes after them: its width, and what it
 *  counts (bin and str 8/16/32, array 16/32, map 16/32). */
const SIZED: Record<number, [number, "bytes" | "items" | "entries"]> = {
  0xc4: [1, "bytes"], 0xd9: [1, "bytes"], 0xc5: [2, "bytes"], 0xda: [2, "bytes"],
  0xc6: [4, "bytes"], 0xdb: [4, "bytes"], 0xdc: [2, "items"], 0xdd: [4, "items"],
  0xde: [2, "entries"], 0xdf: [4, "entries"],
};
export interface Limits {
  maxBytes: number;
  maxRecords: number;
  maxHands: number;
  maxRecordBytes: number;
  maxField: number;
  maxMap: number;
  maxDepth: number;
  maxName: number;
}

export const DEFAULT_LIMITS: Limits = {
  maxBytes: 16 * 1024 * 1024, maxRecords: 100_000, maxHands: 1000, maxRecordBytes: 65536,
  maxField: 4096, maxMap: 256, maxDepth: 8, maxName: 256,
};

/** Whether byte `b` is a move by itself (FORMAT.md "Moves": cards, a named trump, calls). */
export function isMoveByte(b: number): boolean {
  return (b >= 0x01 && b <= 0x34) || (b >= 0x38 && b <= 0x3b) || (b >= 0x40 && b <= 0x7f);
}

/** The length of the run of moves at `pos` (0: no move there). */
export function moveRun(data: Uint8Array, pos: number): number {
  let i = pos;
  for (;;) {
    const b = data[i];
    if (b === undefined) break;
    if (isMoveByte(b)) {
      i++;
      continue;
    }
    const m = data[i + 1];
    if (b === 0xcc && m !== undefined && m >= 0x80 && isMoveByte(m & 0x7f)) {
      i += 2;
      continue;
    }
    break;
  }
  return i - pos;
}

/** The most arrays and maps msgpack's reader nests (its stack, 1024). */
export const STACK = 1024;

/** The outcome of scanning one msgpack value. */
export type Scan =
  | { kind: "value"; end: number; depth: number }
  | { kind: "incomplete" }
  | { kind: "error"; at: number; message: string; cap?: string; bare?: boolean };

/** The bytes after each fixed-size msgpack type byte (nil, bools, floats, ints; no ext). */
export const FIXED: Record<number, number> = {
  0xc0: 0, 0xc2: 0, 0xc3: 0, 0xca: 4, 0xcb: 8, 0xcc: 1, 0xcd: 2, 0xce: 4, 0xcf: 8,
  0xd0: 1, 0xd1: 2, 0xd2: 4, 0xd3: 8,
};

/** The `width`-byte big-endian length at `at`, or null when the data ends before it. */
export function lengthAt(data: Uint8Array, at: number, width: number): number | null {
  if (at + width > data.length) return null;
  let n = 0;
  for (let i = 0; i < width; i++) n = n * 256 + data[at + i]!;
  return n;
}

/**
 * Where the msgpack value at `pos` ends, without decoding it: a length past `maxField`
 * (`maxMap` for a map) is refused at once, as is a byte no log holds (ext types, 0xc1).
 */
export function scanValue(data: Uint8Array, pos: number, lim: Limits): Scan {
  const end = data.length;
  let p = pos;
  // a stack of how many values remain at each open level
  const todo: number[] = [1];
  let depth = 0;
  const readN = (w: number): number | null => {
    const n = lengthAt(data, p, w);
    if (n !== null) p += w;
    return n;
  };
  while (todo.length) {
    if (todo[todo.length - 1] === 0) {
      todo.pop();
      continue;
    }
    todo[todo.length - 1]!--;
    if (p >= end) return { kind: "incomplete" };
    const at = p;
    const b = data[p++]!;
    if (b <= 0x7f || b >= 0xe0) continue;
    if (b in FIXED) {
      p += FIXED[b]!;
      if (p > end) return { kind: "incomplete" };
      continue;
    }
    if (b >= 0xa0 && b <= 0xbf) {
      p += b & 31;
      if (p > end) return { kind: "incomplete" };
      continue;
    }
    let n: number | null;
    let unit: "bytes" | "items" | "entries";
    if (b >= 0x80 && b <= 0x8f) {
      n = b & 15;
      unit = "entries";
    } else if (b >= 0x90 && b <= 0x9f) {
      n = b & 15;
      unit = "items";
    } else if (b in SIZED) {
      const [width, what] = SIZED[b]!;
      n = readN(width);
      unit = what;
    } else if (b >= 0xd4 && b <= 0xd8 || b >= 0xc7 && b <= 0xc9) {
      // ext: msgpack's reader refuses it by its length (max_ext_len 0) once its bytes are
      // there; one that runs past the data is a byte no log holds
      let size: number | null = [2, 3, 5, 9, 17][b - 0xd4] ?? null;
      if (size === null) {
        const len = readN(b === 0xc7 ? 1 : b === 0xc8 ? 2 : 4);
        size = len === null ? null : len + 1;
      }
      if (size === null || p + size > end) {
        return { kind: "error", at, bare: true, message: `byte 0x${b.toString(16).padStart(2, "0")} is not msgpack a log may hold` };
      }
      return { kind: "error", at, message: `${size} exceeds max_ext_len(0)` };
    } else if (b === 0xc1) {
      return { kind: "error", at, message: "a byte that no msgpack value holds there" };
    } else {
      return { kind: "error", at, message: `byte 0x${b.toString(16).padStart(2, "0")} is not msgpack a log may hold` };
    }
    if (n === null) return { kind: "incomplete" };
    // msgpack's reader holds at most STACK containers open, an empty one too
    if (unit !== "bytes" && todo.length > STACK) return { kind: "error", at, message: "a byte that no msgpack value holds there" };
    const most = unit === "entries" ? lim.maxMap : lim.maxField;
    if (n > most) {
      // as msgpack's reader says it: an array or map at once; bytes or text once they are
      // there, and a claim past the end of the data as a length no log holds
      if (unit !== "bytes") return { kind: "error", at, message: `${n} exceeds max_${unit === "items" ? "array" : "map"}_len(${most})` };
      if (p + n > end) {
        return { kind: "error", at, bare: true, message: `a length prefix claims ${n.toLocaleString("en-US")} bytes, more than any field of a log may hold (${most.toLocaleString("en-US")}); not a log, or a damaged one` };
      }
      return { kind: "error", at, message: `${n} exceeds max_${b >= 0xd9 ? "str" : "bin"}_len(${most})` };
    }
    if (unit === "bytes") {
      p += n;
      if (p > end) return { kind: "incomplete" };
      continue;
    }
    todo.push(unit === "entries" ? 2 * n : n);
    depth = Math.max(depth, todo.length - 1);
  }
  return { kind: "value", end: p, depth };
}
