/**
 * JSON text read as the Python verifier reads a log's JSON form (`jsonform.loads`:
 * Python's `json.loads` with a cap on the digits of a whole number and no key twice in one
 * object), so the page refuses what it refuses, in its words. Unlike `JSON.parse` it sees
 * a key given twice, and keeps `3.0` a float: a whole number is a number (a BigInt past
 * 2^53), any other number a `Float`, as the log's msgpack reader gives them.
 */
import { Float, pyFloat } from "./unpack.js";

/** A JSON form that is not one: one line saying why (and where). */
export class FormError extends Error {}

/** A JSON value as read: objects keep their keys in the order given. */
export type Json = null | boolean | number | bigint | string | Float | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** Deeper than this, Python's reader runs out of stack (RecursionError). */
const STACK = 900;
const SPACE = new Set([" ", "\t", "\n", "\r"]);
const ESCAPES: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
const NUMBER = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?/y;

/** A float's msgpack bytes (float 64), so the log's reader reads it as the float it is. */
function float(value: number): Float {
  const raw = new Uint8Array(9);
  raw[0] = 0xcb;
  new DataView(raw.buffer).setFloat64(1, value);
  return new Float(value, raw);
}

/** The value of JSON `text`; throws FormError as `jsonform.loads` words its refusals. */
export function parseStrict(text: string, maxIntDigits = 24): Json {
  let i = 0;
  const n = text.length;
  const where = (at: number): string => {
    const before = text.slice(0, at);
    const line = before.split("\n").length;
    const col = [...before.slice(before.lastIndexOf("\n") + 1)].length + 1;
    return `at line ${line} column ${col}`;
  };
  const bad = (msg: string, at: number): never => {
    throw new FormError(`not valid JSON: ${msg} ${where(at)}`);
  };
  const skip = (): void => {
    while (i < n && SPACE.has(text[i]!)) i++;
  };
  const str = (): string => {
    const start = i++;
    let out = "";
    for (;;) {
      if (i >= n) bad("Unterminated string starting", start);
      const c = text[i]!;
      if (c === '"') {
        i++;
        return out;
      }
      if (c === "\\") {
        const e = text[i + 1];
        if (e === "u") {
          const hex = text.slice(i + 2, i + 6);
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) bad("Invalid \\uXXXX escape", i + 1);
          out += String.fromCharCode(parseInt(hex, 16));
          i += 6;
        } else if (e !== undefined && e in ESCAPES) {
          out += ESCAPES[e];
          i += 2;
        } else bad("Invalid \\escape", i);
      } else if (c < " ") bad("Invalid control character", i);
      else {
        out += c;
        i++;
      }
    }
  };
  const value = (depth: number): Json => {
    if (depth > STACK) throw new FormError("JSON nested deeper than a log is: over the max_depth cap of 8");
    const c = text[i];
    if (c === '"') return str();
    if (c === "{") return object(depth);
    if (c === "[") {
      i++;
      const out: Json[] = [];
      skip();
      if (text[i] === "]") {
        i++;
        return out;
      }
      for (;;) {
        skip();
        out.push(value(depth + 1));
        skip();
        if (text[i] === "]") {
          i++;
          return out;
        }
        if (text[i] !== ",") bad("Expecting ',' delimiter", i);
        i++;
      }
    }
    for (const [word, v] of [["null", null], ["true", true], ["false", false], ["NaN", float(NaN)], ["Infinity", float(Infinity)], ["-Infinity", float(-Infinity)]] as const) {
      if (text.startsWith(word, i)) {
        i += word.length;
        return v;
      }
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (m === null) return bad("Expecting value", i);
    i += m[0].length;
    if (m[1] === undefined && m[2] === undefined) {
      const digits = m[0].replace("-", "").length;
      if (digits > maxIntDigits) throw new FormError(`a number of ${digits} digits: over the max_int_digits cap of ${maxIntDigits}`);
      const whole = BigInt(m[0]);
      return whole >= BigInt(Number.MIN_SAFE_INTEGER) && whole <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(whole) : whole;
    }
    return float(Number(m[0]));
  };
  const object = (depth: number): JsonObject => {
    i++;
    const pairs: [string, Json][] = [];
    skip();
    if (text[i] === "}") i++;
    else {
      for (;;) {
        skip();
        if (text[i] !== '"') bad("Expecting property name enclosed in double quotes", i);
        const key = str();
        skip();
        if (text[i] !== ":") bad("Expecting ':' delimiter", i);
        i++;
        skip();
        pairs.push([key, value(depth + 1)]);
        skip();
        if (text[i] === "}") {
          i++;
          break;
        }
        if (text[i] !== ",") bad("Expecting ',' delimiter", i);
        i++;
      }
    }
    // which of two values counts would depend on the JSON reader: refused when the object ends
    const seen = new Set<string>();
    const out: JsonObject = {};
    for (const [k, v] of pairs) {
      if (seen.has(k)) throw new FormError(`not a JSON log: the key ${pyRepr(k)} appears twice in one object`);
      seen.add(k);
      Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true });
    }
    return out;
  };
  if (text.startsWith("\ufeff")) bad("Unexpected UTF-8 BOM (decode using utf-8-sig)", 0);
  skip();
  const doc = value(0);
  skip();
  if (i < n) bad("Extra data", i);
  return doc;
}

// what Python's repr() escapes in a str: controls, separators, format, unassigned, surrogates
const UNPRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}\p{Cn}\p{Zl}\p{Zp}\p{Zs}]/u;

/** Python's repr() of a str: its quote, backslash escapes, what is not printable escaped. */
export function pyStr(s: string): string {
  const q = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = q;
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    if (ch === q || ch === "\\") out += `\\${ch}`;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (ch !== " " && UNPRINTABLE.test(ch)) {
      out += c < 0x100 ? `\\x${c.toString(16).padStart(2, "0")}` : c < 0x10000 ? `\\u${c.toString(16).padStart(4, "0")}` : `\\U${c.toString(16).padStart(8, "0")}`;
    } else out += ch;
  }
  return out + q;
}

/** Python's repr() of a value as `json.loads` gives it. */
export function pyRepr(v: unknown): string {
  if (v === null || v === undefined) return "None";
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "string") return pyStr(v);
  if (v instanceof Float) return pyFloat(v.value);
  if (Array.isArray(v)) return `[${v.map(pyRepr).join(", ")}]`;
  if (typeof v === "object") return `{${Object.entries(v).map(([k, x]) => `${pyStr(k)}: ${pyRepr(x)}`).join(", ")}}`;
  return String(v);
}

/** Python's str() of a value: text as it is, anything else as its repr(). */
export const pyText = (v: unknown): string => (typeof v === "string" ? v : pyRepr(v));
