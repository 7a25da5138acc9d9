/**
 * One reading of a TOML file that is not TOML, as the Python verifier says it
 * (`tarneeb.audit.tomltext`): neither parser's own words (smol-toml's and tomllib's differ,
 * and stop at different places), but the first line after the longest run of whole lines,
 * from the start, that is a TOML document — a line any two parsers that follow TOML 1.0
 * agree on — and a short hint of what the file holds. It is read as TOML 1.0, as tomllib
 * reads it: smol-toml reads TOML 1.1, so a document it parses is refused when it holds what
 * only TOML 1.1 allows (see toml11), and a prefix of lines counts as TOML only when it is
 * parsed and holds none of that, so that the line named is tomllib's.
 */
import { TomlError, parse } from "smol-toml";

/** prefixes parsed at most to find the line, else the line is not named */
export const MOST_TRIES = 1000;
/** nor when the prefixes parsed would hold more than this many bytes (UTF-8) together: each
 * parse of a long prefix costs its length */
export const MOST_BYTES = 2 * 1024 * 1024; // as the Python verifier (audit/tomltext.py)

export const KEYS_HINT = 'a keys file holds lines "platform name" = "its key" (64 hex digits, or a PEM public key)';

const TIME = /[0-9]{2}:[0-9]{2}(?!:)/y;

/** TOML's integers: 64-bit signed. smol-toml reads one past 2^53 as a BigInt here (by
 * default it refused every one, 2^63 − 1 included, which tomllib reads); one outside the
 * 64 bits "cannot be represented losslessly" and makes the document no TOML, as the Python
 * verifier says it (tarneeb.audit.tomltext.INT_RANGE). */
const INT_MIN = -(2n ** 63n);
const INT_MAX = 2n ** 63n - 1n;

const parseToml = (text: string) => parse(text, { integersAsBigInt: "asNeeded" }) as Record<string, unknown>;

/** Whether a parsed document holds an integer outside TOML's 64-bit integers. */
export function outOfRange(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length) {
    const v = stack.pop();
    if (typeof v === "bigint") {
      if (v < INT_MIN || v > INT_MAX) return true;
    } else if (Array.isArray(v)) for (const x of v) stack.push(x);
    else if (v !== null && typeof v === "object" && !(v instanceof Date)) for (const x of Object.values(v)) stack.push(x);
  }
  return false;
}

/**
 * The line (from 1) of the first thing in `text` that TOML 1.1 added and TOML 1.0, the
 * Python verifier's tomllib, refuses, or null: an escape `\xHH` or `\e` in a basic string,
 * a line end inside an inline table (one written over several lines; a comment there ends
 * with one), a comma right before an inline table's `}`, a time (alone or in a date-time)
 * without seconds. smol-toml reads TOML 1.1: without this, a keys file holding one of them
 * was read by one verifier and refused by the other. `text` is one smol-toml parsed (a
 * TOML 1.1 document): outside strings and comments, two digits, a colon and two digits
 * are a time, its hour when no digit, colon or sign is before them (an offset's hour has
 * one), and its seconds are missing when no colon follows.
 */
export function toml11(text: string): number | null {
  let line = 1;
  let i = 0;
  const open: string[] = []; // the arrays and inline tables (and table headers) open at i
  let last = ""; // the last character outside white space, comments and strings
  const at = (s: string) => text.startsWith(s, i);
  while (i < text.length) {
    const c = text[i]!;
    if (c === "\n") {
      if (open[open.length - 1] === "{") return line;
      line++;
    } else if (c === "#") {
      while (i < text.length && text[i] !== "\n") i++;
      continue;
    } else if (c === "'" || c === '"') {
      const multi = at(c.repeat(3));
      i += multi ? 3 : 1;
      while (i < text.length) {
        const d = text[i]!;
        if (d === "\n") line++;
        else if (d === "\\" && c === '"') {
          const e = text[i + 1];
          if (e === "x" || e === "e") return line;
          if (e === "\n") line++;
          i += 2;
          continue;
        } else if (d === c && (!multi || at(c.repeat(3)))) {
          i += multi ? 3 : 1;
          while (multi && text[i] === c) i++; // up to two quotes of its content before the end
          break;
        }
        i++;
      }
      last = '"';
      continue;
    } else if (c === "[" || c === "{") open.push(c);
    else if (c === "]" || c === "}") {
      if (c === "}" && last === ",") return line;
      open.pop();
    } else if (c >= "0" && c <= "9") {
      TIME.lastIndex = i;
      if (!/[0-9:+-]/.test(text[i - 1] ?? "") && TIME.test(text)) return line;
    }
    if (c !== " " && c !== "\t" && c !== "\r" && c !== "\n") last = c;
    i++;
  }
  return null;
}

function parses(text: string): boolean {
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text);
  } catch {
    return false;
  }
  return toml11(text) === null && !outOfRange(doc);
}

/** The line (from 1) from which `text`, which is not TOML, stops being TOML: the one after
 * the longest prefix of whole lines that parses; null when that takes more than MOST_TRIES
 * parses, or parses of more than MOST_BYTES bytes together. `stoppedAt` is the line where
 * the parser stopped (null: the end of the text). */
export function fromLine(text: string, stoppedAt: number | null = null): number | null {
  const ends: number[] = [];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) ends.push(i + 1);
  if (!text.endsWith("\n")) ends.push(text.length);
  let k = stoppedAt === null ? ends.length - 1 : Math.min(stoppedAt, ends.length) - 1;
  const inside = openAtLineEnds(text);
  let spent = 0;
  for (let tries = 0; tries < MOST_TRIES; tries++) {
    while (k > 0 && inside[k - 1]) k--; // a prefix ending in a string or an array: no TOML
    if (k <= 0) return 1;
    const prefix = text.slice(0, ends[k - 1]);
    spent += utf8Length(prefix);
    if (spent > MOST_BYTES) return null;
    if (parses(prefix)) return k + 1;
    k--;
  }
  return null;
}

/**
 * Per line end of `text` (each newline), whether it is inside a string, an array or an
 * inline table: where no prefix that is TOML ends, which fromLine does not parse (as the
 * Python verifier's open_at_line_ends). Strings and comments are read as TOML reads them,
 * so this is exact on what is TOML.
 */
export function openAtLineEnds(text: string): boolean[] {
  const out: boolean[] = [];
  let depth = 0;
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === "\n") out.push(depth > 0);
    else if (c === "#") {
      const end = text.indexOf("\n", i);
      i = end < 0 ? text.length : end;
      continue;
    } else if (c === "[" || c === "{") depth++;
    else if (c === "]" || c === "}") depth = Math.max(depth - 1, 0);
    else if (c === '"' || c === "'") {
      const multi = text.startsWith(c.repeat(3), i);
      i += multi ? 3 : 1;
      for (;;) {
        if (i >= text.length) return out; // a string never closed
        const d = text[i]!;
        if (d === "\n") {
          if (!multi) break; // a one-line string not closed on its line ends there
          out.push(true);
        } else if (d === "\\" && c === '"') {
          if (text[i + 1] === "\n") {
            if (!multi) { i++; break; }
            out.push(true);
          }
          i += 2;
          continue;
        } else if (d === c && (!multi || text.startsWith(c.repeat(3), i))) {
          i += multi ? 3 : 1;
          for (let more = 0; multi && more < 2 && text[i] === c; more++) i++;
          break;
        }
        i++;
      }
      continue;
    }
    i++;
  }
  return out;
}

/** The length of `text` in UTF-8 (a lone surrogate, which no file read as UTF-8 holds,
 * encoded as U+FFFD: three bytes, as Python's "surrogatepass" counts it). */
const utf8Length = (text: string): number => new TextEncoder().encode(text).length;

/** The TOML document `text` (the file `source`), or the one line saying it is none
 * (`keys.toml: not TOML from line 3: <hint>`), thrown as `make(message)`. */
export function readToml(text: string, source: string, hint: string, make: (message: string) => Error): Record<string, unknown> {
  let stopped: number | null;
  try {
    const doc = parseToml(text);
    stopped = toml11(text);
    if (stopped === null && !outOfRange(doc)) return doc;
  } catch (e) {
    if (!(e instanceof TomlError)) throw e;
    stopped = typeof e.line === "number" && e.line > 0 ? e.line : null;
  }
  const line = fromLine(text, stopped);
  throw make(`${source}: not TOML${line !== null ? ` from line ${line}` : ""}: ${hint}`);
}
