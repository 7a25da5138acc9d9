/**
 * One reading of a small JSON document (a receipt), the same as the Python verifier's
 * `tarneeb.audit.jsontext` (docs/PROTOCOL.md §8.1), checked in this order: at most `limit`
 * bytes; no UTF-8 byte-order mark; UTF-8; nested at most MAX_DEPTH deep; JSON; every number
 * a whole number written without a fraction or exponent, not -0, at most 2^53 − 1 either
 * side of 0; no string holding a lone surrogate; no object holding a key twice.
 */

export const MAX_DEPTH = 16;

/** A document that is not one JSON value with one meaning: one line saying why. */
export class JsonTextError extends Error {}

const WHOLE = /^-?(?:0|[1-9][0-9]*)$/;
const LONE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const NUMBER_CHARS = "+-.eE0123456789";

/** The deepest nesting of `text` and its first number that is not a whole one, strings skipped. */
function scan(text: string): [number, string | null] {
  let depth = 0;
  let deepest = 0;
  let bad: string | null = null;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i]!;
    if (c === '"') {
      i++;
      while (i < n && text[i] !== '"') i += text[i] === "\\" ? 2 : 1;
    } else if (c === "[" || c === "{") {
      depth++;
      deepest = Math.max(deepest, depth);
    } else if (c === "]" || c === "}") depth--;
    else if (c === "-" || (c >= "0" && c <= "9")) {
      let j = i;
      while (j < n && NUMBER_CHARS.includes(text[j]!)) j++;
      const token = text.slice(i, j);
      if (bad === null && (!WHOLE.test(token) || token === "-0" || BigInt(token) > BigInt(Number.MAX_SAFE_INTEGER) || BigInt(token) < -BigInt(Number.MAX_SAFE_INTEGER))) {
        bad = token;
      }
      i = j;
      continue;
    }
    i++;
  }
  return [deepest, bad];
}

function loneSurrogate(v: unknown): boolean {
  if (typeof v === "string") return LONE.test(v);
  if (Array.isArray(v)) return v.some(loneSurrogate);
  if (typeof v === "object" && v !== null) return Object.entries(v).some(([k, x]) => loneSurrogate(k) || loneSurrogate(x));
  return false;
}

/** Whether one object of the (valid JSON) text holds a key twice. */
function repeatsKey(text: string): boolean {
  const stack: (Set<string> | null)[] = [];
  let i = 0;
  let expectKey = false;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      const top = stack[stack.length - 1];
      if (expectKey && top) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (top.has(key)) return true;
        top.add(key);
        expectKey = false;
      }
      i = j + 1;
      continue;
    }
    if (c === "{") {
      stack.push(new Set());
      expectKey = true;
    } else if (c === "[") stack.push(null);
    else if (c === "}" || c === "]") stack.pop();
    else if (c === ",") expectKey = stack.length > 0 && stack[stack.length - 1] !== null;
    i++;
  }
  return false;
}

/** The JSON value of `data`, read by the rules above (`what` names the document: "a receipt"). */
export function readJson(data: Uint8Array, what: string, limit: number | null = null): unknown {
  if (limit !== null && data.length > limit) throw new JsonTextError(`${data.length} bytes; ${what} is at most ${limit}`);
  if (data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) {
    throw new JsonTextError(`it begins with a byte-order mark (U+FEFF); ${what} is UTF-8 without one`);
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(data);
  } catch {
    throw new JsonTextError("not JSON (UnicodeDecodeError)");
  }
  const [deepest, bad] = scan(text);
  if (deepest > MAX_DEPTH) throw new JsonTextError(`not JSON (nested deeper than ${MAX_DEPTH} levels)`);
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    throw new JsonTextError("not JSON (JSONDecodeError)");
  }
  if (bad !== null) {
    throw new JsonTextError(`the number ${bad}: ${what}'s numbers are whole numbers (no fraction or exponent, not -0, at most 2^53 - 1 either side of 0)`);
  }
  if (loneSurrogate(doc)) throw new JsonTextError("a string holds a lone surrogate (an escape of one half of a surrogate pair without the other)");
  if (repeatsKey(text)) throw new JsonTextError("a key appears twice in one JSON object");
  return doc;
}
