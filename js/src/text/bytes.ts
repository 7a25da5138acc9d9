/** Byte strings: hex, concatenation and the fixed-width integers of PROTOCOL.md §2. */

export type Bytes = Uint8Array;

/** `value` as `Bytes` when it is a Uint8Array (a Node Buffer is one); else a TypeError
 * naming the function and what it was given, for callers from plain JavaScript (a string,
 * an ArrayBuffer, a path) that the types do not stop. */
export function bytesArgument(value: unknown, where: string): Bytes {
  if (value instanceof Uint8Array) return value;
  const given = value === null ? "null" : Array.isArray(value) ? "an array"
    : value instanceof ArrayBuffer ? "an ArrayBuffer (wrap it: new Uint8Array(buffer))"
    : typeof value === "object" ? `a ${(value as object).constructor?.name ?? "object"}` : `a ${typeof value}`;
  throw new TypeError(`${where}: the log must be a Uint8Array (a Node Buffer is one), not ${given}`);
}

/** Lower-case hex of `b`. */
export function toHex(b: Bytes): string {
  let s = "";
  for (const x of b) s += x.toString(16).padStart(2, "0");
  return s;
}

/** Bytes of a hex string (upper case and a `0x` prefix accepted); throws on anything else. */
export function fromHex(text: string): Bytes {
  const h = text.startsWith("0x") || text.startsWith("0X") ? text.slice(2) : text;
  if (h.length % 2 !== 0 || /[^0-9a-fA-F]/.test(h)) throw new Error(`not hex: ${text.slice(0, 20)}`);
  const out = new Uint8Array(h.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(h.slice(2 * i, 2 * i + 2), 16);
  return out;
}

export function concat(...parts: Bytes[]): Bytes {
  let n = 0;
  for (const p of parts) n += p.length;
  const out = new Uint8Array(n);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

export function u8(n: number): Bytes {
  return Uint8Array.of(n & 0xff);
}

export function u16be(n: number): Bytes {
  return Uint8Array.of((n >>> 8) & 0xff, n & 0xff);
}

export function u32be(n: number): Bytes {
  return Uint8Array.of((n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);
}

export function u64be(n: number | bigint): Bytes {
  let v = BigInt(n);
  const out = new Uint8Array(8);
  for (let i = 7; i >= 0; i--) {
    out[i] = Number(v & 0xffn);
    v >>= 8n;
  }
  return out;
}

/** `lp16(x) = u16be(len(x)) || x`. */
export function lp16(x: Bytes): Bytes {
  return concat(u16be(x.length), x);
}

/** ASCII/UTF-8 bytes of a text. */
export function utf8(text: string): Bytes {
  return new TextEncoder().encode(text);
}

export function equal(a: Bytes, b: Bytes): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Equality in time independent of where the bytes differ (for secrets and commitments). */
export function constantTimeEqual(a: Bytes, b: Bytes): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a[i]! ^ b[i]!;
  return d === 0;
}
