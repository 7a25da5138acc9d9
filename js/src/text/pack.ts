/**
 * msgpack as Python's `msgpack.packb(obj, use_bin_type=True)` writes it (the log's
 * canonical form), for the values a JSON form gives: a whole number in its shortest form
 * (a BigInt past 2^53), a `Float` as the float 64 it is (where `encode` would write 3.0 as
 * the int 3), text, bytes, lists and maps. What Python refuses to pack is refused in its words.
 */
import { Float } from "./unpack.js";

class Out {
  parts: number[] = [];
  head(code: number, n: number, width: number): void {
    this.parts.push(code);
    for (let k = width - 1; k >= 0; k--) this.parts.push(Number((BigInt(n) >> BigInt(8 * k)) & 0xffn));
  }
  sized(n: number, fix: number | null, fixMax: number, codes: [number | null, number, number]): void {
    if (fix !== null && n <= fixMax) this.parts.push(fix | n);
    else if (codes[0] !== null && n < 0x100) this.head(codes[0], n, 1);
    else if (n < 0x10000) this.head(codes[1], n, 2);
    else this.head(codes[2], n, 4);
  }
}

function int(out: Out, v: bigint): void {
  if (v >= 0n) {
    if (v < 0x80n) out.parts.push(Number(v));
    else if (v < 0x100n) out.head(0xcc, Number(v), 1);
    else if (v < 0x10000n) out.head(0xcd, Number(v), 2);
    else if (v < 0x100000000n) out.head(0xce, Number(v), 4);
    else if (v < 2n ** 64n) {
      out.parts.push(0xcf);
      for (let k = 7; k >= 0; k--) out.parts.push(Number((v >> BigInt(8 * k)) & 0xffn));
    } else throw new Error("Integer value out of range");
  } else if (v >= -32n) out.parts.push(Number(v & 0xffn));
  else if (v >= -0x80n) out.head(0xd0, Number(v & 0xffn), 1);
  else if (v >= -0x8000n) out.head(0xd1, Number(v & 0xffffn), 2);
  else if (v >= -0x80000000n) out.head(0xd2, Number(v & 0xffffffffn), 4);
  else if (v >= -(2n ** 63n)) {
    const u = v & (2n ** 64n - 1n);
    out.parts.push(0xd3);
    for (let k = 7; k >= 0; k--) out.parts.push(Number((u >> BigInt(8 * k)) & 0xffn));
  } else throw new Error("Integer value out of range");
}

function text(out: Out, s: string): void {
  let at = 0;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (c >= 0xd800 && c <= 0xdfff) {
      throw new Error(`'utf-8' codec can't encode character '\\u${c.toString(16)}' in position ${at}: surrogates not allowed`);
    }
    at++;
  }
  const b = new TextEncoder().encode(s);
  out.sized(b.length, 0xa0, 31, [0xd9, 0xda, 0xdb]);
  for (const x of b) out.parts.push(x);
}

function value(out: Out, v: unknown): void {
  if (v === null) out.parts.push(0xc0);
  else if (v === false) out.parts.push(0xc2);
  else if (v === true) out.parts.push(0xc3);
  else if (typeof v === "bigint") int(out, v);
  else if (typeof v === "number") {
    if (Number.isInteger(v)) int(out, BigInt(v));
    else value(out, new Float(v, new Uint8Array()));
  } else if (v instanceof Float) {
    const raw = new Uint8Array(9);
    raw[0] = 0xcb;
    new DataView(raw.buffer).setFloat64(1, v.value);
    out.parts.push(...raw);
  } else if (typeof v === "string") text(out, v);
  else if (v instanceof Uint8Array) {
    out.sized(v.length, null, 0, [0xc4, 0xc5, 0xc6]);
    for (const b of v) out.parts.push(b);
  } else if (Array.isArray(v)) {
    out.sized(v.length, 0x90, 15, [null, 0xdc, 0xdd]);
    for (const x of v) value(out, x);
  } else if (typeof v === "object") {
    const entries = Object.entries(v as object);
    out.sized(entries.length, 0x80, 15, [null, 0xde, 0xdf]);
    for (const [k, x] of entries) {
      text(out, k);
      value(out, x);
    }
  } else throw new Error(`can not serialize ${typeof v} object`);
}

/** The msgpack bytes of `v`; throws an Error worded as Python's packer words it. */
export function pack(v: unknown): Uint8Array {
  const out = new Out();
  value(out, v);
  return Uint8Array.from(out.parts);
}
