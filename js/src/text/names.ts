/**
 * Platform names a person reads and compares by eye (the rules of the Python verifier's
 * `tarneeb.audit.names`, on the same data: js/src/data/names.ts is generated from Python's
 * `unicodedata` and the `confusable_homoglyphs` package by js/scripts/tables.py).
 *
 * A keys file names each platform's key, and a verdict says "signed by <name>". A name
 * must be in NFKC form, hold no invisible, control, private-use or unassigned code point,
 * be spaced with single plain spaces, not begin with a combining mark, hold no elongation
 * mark (tatweel), keep to UTS #39's General Security Profile (Identifier_Status Allowed),
 * mix scripts only as UTS #39's Moderately Restrictive level allows; and no two names of
 * one file may share a UTS #39 skeleton (case folded before and after). The UTS #39 data
 * is the table the Python verifier reads (audit/uts39.txt, through ./uts39.ts).
 */
import {
  CATEGORIES, FOLD, LOWER, NAMES, NAME_WORDS, SCRIPTS, SCRIPT_NAMES, VIRAMA,
} from "../data/names.js";
import * as uts39 from "./uts39.js";

const b36 = (s: string) => parseInt(s, 36);

interface Tables {
  catStarts: Uint32Array;
  catCodes: string;
  virama: Set<number>;
  fold: Map<number, string>;
  lower: Map<number, string>;
  names: Map<number, string>;
  scriptStarts: Uint32Array;
  scriptOf: Uint16Array;
  scripts: string[];
}

let tables: Tables | null = null;

function deltaMap(text: string, value: (parts: string) => string): Map<number, string> {
  const out = new Map<number, string>();
  let cp = 0;
  for (const row of text.split(",")) {
    const [d, rest] = row.split(":") as [string, string];
    cp += b36(d);
    out.set(cp, value(rest));
  }
  return out;
}

const chars = (rest: string) => String.fromCodePoint(...rest.split(".").map(b36));

function load(): Tables {
  if (tables) return tables;
  const cats = CATEGORIES.split(",");
  const catStarts = new Uint32Array(cats.length);
  let codes = "";
  let at = 0;
  cats.forEach((r, i) => {
    catStarts[i] = at;
    at += b36(r.slice(0, -1));
    codes += r.slice(-1);
  });
  const runs = SCRIPTS.split(",");
  const scriptStarts = new Uint32Array(runs.length);
  const scriptOf = new Uint16Array(runs.length);
  at = 0;
  runs.forEach((r, i) => {
    const [n, s] = r.split(".") as [string, string];
    scriptStarts[i] = at;
    scriptOf[i] = b36(s);
    at += b36(n);
  });
  const words = NAME_WORDS.split(" ");
  tables = {
    catStarts, catCodes: codes, virama: new Set(VIRAMA.split(",").map(b36)),
    fold: deltaMap(FOLD, chars), lower: deltaMap(LOWER, chars),
    names: deltaMap(NAMES, (rest) => rest.split(".").map((w) => words[b36(w)]).join(" ")),
    scriptStarts, scriptOf, scripts: SCRIPT_NAMES.split(" "),
  };
  return tables;
}

function find(starts: Uint32Array, cp: number): number {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid]! <= cp) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * The class of a code point's general category: f (Cf), c (Cc), s (Cs), o (Co), n (Cn),
 * m (Mn), M (Mc, Me), z (Zs, Zl, Zp), L, N, P, S; w a space outside those.
 */
function cls(cp: number): string {
  const t = load();
  return t.catCodes[find(t.catStarts, cp)]!;
}

const SPACE_CONTROLS = new Set([9, 10, 11, 12, 13, 0x1c, 0x1d, 0x1e, 0x1f, 0x85]);
const isSpace = (cp: number) => SPACE_CONTROLS.has(cp) || "zw".includes(cls(cp));
/** The number of UTF-16 code units the code points `list` take. */
const units = (list: number[]): number => list.reduce((n, cp) => n + (cp > 0xffff ? 2 : 1), 0);
/** Python's str.strip(): white space as str.isspace sees it, from both ends. (Sliced, not
 * rebuilt with `String.fromCodePoint(...list)`: a spread of a long text, a 1 MiB keys file
 * value, overflows the stack.) */
export function pyStrip(s: string): string {
  const list = cps(s);
  let a = 0;
  let b = list.length;
  while (a < b && isSpace(list[a]!)) a++;
  while (b > a && isSpace(list[b - 1]!)) b--;
  return s.slice(units(list.slice(0, a)), s.length - units(list.slice(b)));
}
/** Python's str.split() without arguments: the words between runs of white space. */
export function pySplit(s: string): string[] {
  const out: string[] = [];
  let start = -1;  // where the word being read starts, in UTF-16 code units
  let at = 0;
  for (const cp of [...cps(s), 0x20]) {
    if (!isSpace(cp)) {
      if (start < 0) start = at;
    } else if (start >= 0) {
      out.push(s.slice(start, at));
      start = -1;
    }
    at += cp > 0xffff ? 2 : 1;
  }
  return out;
}
const isAlpha = (cp: number) => cls(cp) === "L";

const BLANK = new Set([0x2800, 0x16fe4, 0x1d159]);
const ZWNJ = 0x200c;
const ZWJ = 0x200d;
const NEUTRAL = new Set(["COMMON", "INHERITED", "Unknown"]);
const JOINING = new Set(["ARABIC", "SYRIAC", "NKO", "MONGOLIAN", "MANDAIC", "MANICHAEAN", "PSALTER_PAHLAVI", "ADLAM",
  "HANIFI_ROHINGYA", "SOGDIAN", "OLD_UYGHUR", "PHAGS_PA", "CHORASMIAN"]);

/** A code point that shows as nothing: a format character, a default-ignorable one, a blank glyph. */
export function invisible(cp: number): boolean {
  return cls(cp) === "f" || BLANK.has(cp) || uts39.ignorable(cp);
}

/** The script alias of a code point, as `confusable_homoglyphs` gives it (LATIN, COMMON …). */
function alias(cp: number): string {
  const t = load();
  return t.scripts[t.scriptOf[find(t.scriptStarts, cp)]!]!;
}

const cps = (s: string) => Array.from(s, (c) => c.codePointAt(0)!);

/**
 * `s` in a normal form, leaving alone the code points Python's data has unassigned (which
 * the JS runtime's newer Unicode may decompose): both verifiers then normalise alike.
 */
function norm(s: string, form: "NFC" | "NFD" | "NFKC"): string {
  let out = "";
  let run = "";
  for (const c of s) {
    if (cls(c.codePointAt(0)!) === "n") {
      out += run.normalize(form) + c;
      run = "";
    } else run += c;
  }
  return out + run.normalize(form);
}
const hex = (cp: number, n: number) => cp.toString(16).padStart(n, "0");
const HEX = (cp: number) => cp.toString(16).toUpperCase().padStart(4, "0");

/** Python's str.isprintable of one code point. */
function printable(cp: number): boolean {
  if (cp === 0x20) return true;
  return !"fcsonz".includes(cls(cp));
}

/** `1,234,567`: a whole number as Python's `{:,}` writes it. */
export const grouped = (n: number): string => n.toLocaleString("en-US");

/** Python's repr() of a string. */
export function pyStr(s: string): string {
  const q = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = q;
  for (const cp of cps(s)) {
    const c = String.fromCodePoint(cp);
    if (c === q || c === "\\") out += "\\" + c;
    else if (c === "\t") out += "\\t";
    else if (c === "\n") out += "\\n";
    else if (c === "\r") out += "\\r";
    else if (printable(cp)) out += c;
    else if (cp < 0x100) out += `\\x${hex(cp, 2)}`;
    else if (cp < 0x10000) out += `\\u${hex(cp, 4)}`;
    else out += `\\U${hex(cp, 8)}`;
  }
  return out + q;
}

/** `name` quoted as Python writes it, with every character that shows as nothing escaped. */
export function quoted(name: string): string {
  return cps(pyStr(name)).map((cp) => (!invisible(cp) ? String.fromCodePoint(cp) : cp <= 0xffff ? `\\u${hex(cp, 4)}` : `\\U${hex(cp, 8)}`)).join("");
}

function charName(cp: number): string {
  const name = load().names.get(cp);
  return `U+${HEX(cp)}` + (name ? ` (${name})` : "");
}

function joinerShows(name: number[], i: number): boolean {
  if (i > 0 && load().virama.has(name[i - 1]!)) return true;
  if (name[i] !== ZWNJ) return false;
  let j = i - 1;
  let k = i + 1;
  while (j >= 0 && cls(name[j]!) === "m") j--;
  while (k < name.length && cls(name[k]!) === "m") k++;
  if (j < 0 || k >= name.length || !(isAlpha(name[j]!) && isAlpha(name[k]!))) return false;
  const script = alias(name[j]!);
  return JOINING.has(script) && alias(name[k]!) === script;
}

const CJK = [new Set(["Han", "Hiragana", "Katakana"]), new Set(["Han", "Bopomofo"]), new Set(["Han", "Hangul"])];

/** Python's str.title() of a script alias: OLD_UYGHUR → Old_Uyghur. */
function title(s: string): string {
  let out = "";
  let prevLetter = false;
  for (const c of s) {
    const letter = /\p{L}/u.test(c);
    out += letter ? (prevLetter ? c.toLowerCase() : c.toUpperCase()) : c;
    prevLetter = letter;
  }
  return out;
}

/** The scripts a name's letters come from, sorted (digits, spaces, punctuation not counted). */
export function nameScripts(name: string): string[] {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(name)) return /[A-Za-z]/.test(name) ? ["Latin"] : [];
  const out = new Set<string>();
  for (const cp of cps(norm(name, "NFKC"))) {
    const a = alias(cp);
    if (!NEUTRAL.has(a) && !invisible(cp)) out.add(title(a));
  }
  return [...out].sort();
}

/** Why the scripts of `name` mix in a way a reader cannot see (UTS #39 Moderately Restrictive), or null. */
export function mixingProblem(name: string): string | null {
  const scripts = new Set(nameScripts(name));
  if (scripts.size <= 1) return null;
  const others = [...scripts].filter((s) => s !== "Latin");
  if (CJK.some((cjk) => others.every((s) => cjk.has(s)))) return null;
  if (scripts.size === 2 && scripts.has("Latin") && !scripts.has("Cyrillic") && !scripts.has("Greek")) return null;
  return `its letters mix ${[...scripts].sort().join(" and ")} (UTS #39 lets a name mix Latin with one other script, not Cyrillic or Greek, or write Chinese, Japanese or Korean with Latin): letters of one pass for the other`;
}

/** What makes `name` unfit to name a platform, as the end of a sentence; null when fit. */
export function nameProblem(name: string): string | null {
  const list = cps(name);
  for (let i = 0; i < list.length; i++) {
    const cp = list[i]!;
    if (cp === ZWNJ || cp === ZWJ) {
      if (joinerShows(list, i)) continue;
      return `it holds ${charName(cp)}, which shows as nothing here: a joiner is allowed only where it changes the shape of the letters around it`;
    }
    if (invisible(cp)) return `it holds ${charName(cp)}, a character that shows as nothing (a format character, filler, default-ignorable code point or blank symbol)`;
    const k = cls(cp);
    if (cp !== 0x20 && (isSpace(cp) || k === "z")) return `it holds ${charName(cp)}, a space other than the plain space U+0020`;
    if ("csno".includes(k)) {
      const what = k === "c" ? "a control character" : k === "s" ? "a lone surrogate" : k === "o" ? "a private-use character, drawn as a font chooses" : "an unassigned code point";
      return `it holds U+${HEX(cp)}, ${what}`;
    }
    if (uts39.elongation(cp)) return `it holds ${charName(cp)}, an elongation mark: it lengthens the line joining two letters and changes no letter, so the name reads as the same name without it`;
  }
  if (name.startsWith(" ") || name.endsWith(" ")) return "it begins or ends with a space";
  if (name.includes("  ")) return "two spaces in a row";
  const normal = norm(name, "NFKC");
  if (normal !== name) return `it is not in Unicode's NFKC form, which is ${pyStr(normal)}: it shows like another name`;
  if (!list.some((cp) => "LNPS".includes(cls(cp)))) return "it shows as nothing";
  if ("mM".includes(cls(list[0]!))) return `it begins with ${charName(list[0]!)}, a combining mark drawn on nothing`;
  return profileProblem(name) ?? mixingProblem(name);
}

/**
 * Why `name` is outside UTS #39's General Security Profile (a character whose
 * Identifier_Status is not Allowed, the plain space and the joiners judged by nameProblem
 * excepted), or null.
 */
export function profileProblem(name: string): string | null {
  for (const cp of cps(name)) {
    if (cp === 0x20 || cp === ZWNJ || cp === ZWJ || uts39.allowed(cp)) continue;
    const types = uts39.types(cp);
    return `it holds ${quoted(String.fromCodePoint(cp))} (U+${HEX(cp)}), which UTS #39's General Security Profile does not allow in an identifier: its Identifier_Status is Restricted (${types.length ? types.join(", ") : "unassigned"})`;
  }
  return null;
}

/** Python's str.casefold(). */
export function casefold(s: string): string {
  const t = load();
  return cps(s).map((cp) => t.fold.get(cp) ?? t.lower.get(cp) ?? String.fromCodePoint(cp)).join("");
}

/** UTS #39's skeleton: NFD, each character replaced by its prototype, NFD again. */
export function skeleton(text: string): string {
  return norm(cps(norm(text, "NFD")).map((cp) => uts39.prototype(cp) ?? String.fromCodePoint(cp)).join(""), "NFD");
}

/** The forms in which two names that look the same share one. */
export function nameKeys(name: string): Set<string> {
  const plain = cps(norm(name, "NFKC")).filter((cp) => cp !== ZWNJ && cp !== ZWJ && !invisible(cp) && !uts39.elongation(cp)).map((cp) => String.fromCodePoint(cp)).join("");
  const first = skeleton(norm(casefold(plain), "NFKC"));
  const then = skeleton(norm(casefold(skeleton(plain)), "NFKC"));
  return new Set([first, then].map((k) => norm(k, "NFC")));
}

// what no shown text may hold (FORMAT.md: a log's names and reasons, a keys file's names):
// C0, DEL and C1 controls, the line and paragraph separators, the bidi embeddings,
// overrides and isolates; it could forge or hide a line of a verdict that shows it
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** The first character of `text` that no shown text may hold, as `U+XXXX`; null for none. */
export function unsafeCharacter(text: string): string | null {
  const m = UNSAFE.exec(text);
  return m === null ? null : `U+${HEX(m[0].codePointAt(0)!)}`;
}

// what shown() writes as an escape: UNSAFE's characters, and a lone surrogate (by code
// point: the two halves of a character past U+FFFF, an emoji say, are one character)
// eslint-disable-next-line no-control-regex
const SHOWN = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]/gu;
// eslint-disable-next-line no-control-regex
const JSON_SHOWN = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** `text` with each character `unsafeCharacter` refuses written as an escape (`\x1b`,
 * `\r`, `\u202e`), as the Python CLI's `shown`: a file name printed cannot act on the terminal. */
export function shown(text: string): string {
  return text.replace(SHOWN, (c) => {
    const cp = c.charCodeAt(0);
    return cp === 10 ? "\\n" : cp === 13 ? "\\r" : cp === 9 ? "\\t"
      : cp <= 0xff ? `\\x${hex(cp, 2)}` : `\\u${hex(cp, 4)}`;
  });
}

/** A JSON document (JSON.stringify output, whose strings hold C0 controls escaped already)
 * with DEL, C1, the line separators and the bidi controls as `\uXXXX` escapes too. */
export function jsonShown(document: string): string {
  return document.replace(JSON_SHOWN, (c) => `\\u${hex(c.charCodeAt(0), 4)}`);
}

/** Thrown for a keys file or names that cannot name platforms. */
export class KeyFileError extends Error {}

/** Refuse names that cannot each name one platform in a verdict (as `check_platform_names`). */
export function checkPlatformNames(names: string[], source = "keys"): void {
  const seen = new Map<string, string>();
  for (const name of names) {
    const where = `${source}: ${quoted(name)}`;
    const bad = unsafeCharacter(name);
    if (bad) throw new KeyFileError(`${where}: the name holds the character ${bad} (a control, line-break or bidi character)`);
    const problem = nameProblem(name);
    if (problem !== null) throw new KeyFileError(`${where}: a name a person cannot read as it is written: ${problem}`);
    const looks = names.length > 1 ? nameKeys(name) : new Set<string>();
    let same: string | undefined;
    for (const k of looks) if (same === undefined && seen.has(k)) same = seen.get(k);
    if (same !== undefined) {
      throw new KeyFileError(`${where}: looks the same as ${quoted(same)} (the same Unicode look-alike skeleton, UTS #39: letters of another script, digits for letters, rn for m, case): a verdict could not tell the two platforms apart`);
    }
    for (const k of looks) if (!seen.has(k)) seen.set(k, name);
  }
}
