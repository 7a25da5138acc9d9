/**
 * One reading of a TOML file that is not TOML, as the Python verifier says it
 * (`tarneeb.audit.tomltext`): neither parser's own words (smol-toml's and tomllib's differ,
 * and stop at different places), but the first line after the longest run of whole lines,
 * from the start, that is a TOML document — a line any two parsers that follow TOML 1.0
 * agree on — and a short hint of what the file holds. It is read as TOML 1.0, as tomllib
 * reads it (smol-toml reads TOML 1.1: see toml11Escape).
 */
import { TomlError, parse } from "smol-toml";

/** prefixes parsed at most to find the line, else the line is not named */
export const MOST_TRIES = 1000;

export const KEYS_HINT = 'a keys file holds lines "platform name" = "its key" (64 hex digits, or a PEM public key)';

/**
 * The line (from 1) of the first escape in a basic string that TOML 1.1 added and TOML 1.0,
 * the Python verifier's tomllib, refuses (`\xHH`, `\e`), or null. smol-toml reads TOML 1.1:
 * without this, a keys file naming a platform or writing a key with them was read by one
 * verifier and refused by the other.
 */
export function toml11Escape(text: string): number | null {
  let line = 1;
  let i = 0;
  const at = (s: string) => text.startsWith(s, i);
  while (i < text.length) {
    const c = text[i]!;
    if (c === "\n") line++;
    if (c === "#") {
      while (i < text.length && text[i] !== "\n") i++;
      continue;
    }
    if (c === "'" || c === '"') {
      const multi = at(c.repeat(3));
      i += multi ? 3 : 1;
      while (i < text.length) {
        const d = text[i]!;
        if (d === "\n") {
          if (!multi) break; // a single-line string ends at its line (and is no TOML)
          line++;
        } else if (d === "\\" && c === '"') {
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
      continue;
    }
    i++;
  }
  return null;
}

function parses(text: string): boolean {
  if (toml11Escape(text) !== null) return false;
  try {
    parse(text);
    return true;
  } catch {
    return false;
  }
}

/** The line (from 1) from which `text`, which is not TOML, stops being TOML: the one after
 * the longest prefix of whole lines that parses; null when that takes more than MOST_TRIES
 * parses. `stoppedAt` is the line where the parser stopped (null: the end of the text). */
export function fromLine(text: string, stoppedAt: number | null = null): number | null {
  const ends: number[] = [];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) ends.push(i + 1);
  if (!text.endsWith("\n")) ends.push(text.length);
  let k = stoppedAt === null ? ends.length - 1 : Math.min(stoppedAt, ends.length) - 1;
  for (let tries = 0; tries < MOST_TRIES; tries++) {
    if (k <= 0 || parses(text.slice(0, ends[k - 1]))) return Math.max(k, 0) + 1;
    k--;
  }
  return null;
}

/** The TOML document `text` (the file `source`), or the one line saying it is none
 * (`keys.toml: not TOML from line 3: <hint>`), thrown as `make(message)`. */
export function readToml(text: string, source: string, hint: string, make: (message: string) => Error): Record<string, unknown> {
  let stopped: number | null;
  const escape = toml11Escape(text);
  if (escape !== null) stopped = escape;
  else {
    try {
      return parse(text) as Record<string, unknown>;
    } catch (e) {
      if (!(e instanceof TomlError)) throw e;
      stopped = typeof e.line === "number" && e.line > 0 ? e.line : null;
    }
  }
  const line = fromLine(text, stopped);
  throw make(`${source}: not TOML${line !== null ? ` from line ${line}` : ""}: ${hint}`);
}
