/**
 * Saying a verdict to people (the Python verifier's `tarneeb.replay.verify.people`): the
 * verifier speaks in seats 0–3 and deal numbers from 0, as the log and `--json` do; a
 * player reads the players' names and hands counted from 1. `Table` translates, for the
 * CLI's lines, in the same words as `tarneeb verify`.
 */
import { casefold, nameKeys, pySplit, pyStrip, shown } from "../text/names.js";
import { NO_RECEIPT_NOTE } from "./replay.js";
import { type VerdictJson } from "./verify.js";

// the verifier's words for teams, seats and hands, read in one pass (a name put in is not
// read again), ASCII only, as the Python verifier reads them
const HANDS = String.raw`\b([Hh]ands?|[Hh]and\(s\)|attempt|dealing attempt) ([0-9]+(?:-[0-9]+)?(?:, [0-9]+(?:-[0-9]+)?)*)\b`;
const WORDS = new RegExp(String.raw`\bteam ([01])\+([23])\b|\bseat ([0-3])('s)?\b|` + HANDS, "g");
// a seat named in a name, anywhere in it ("seat 3", "Omar (Seat 3)", "Seat #3", "player
// three"), and the quotes a verdict puts around a name it writes with its seat: casefolded,
// spaces made one, not inside a word
const SEAT_LIKE = /(?<![\p{L}\p{N}])(?:seat|player|hand|team)[ #:.\-]*(?:\p{Nd}+|one|two|three|four)(?![\p{L}\p{N}])|[“”"]/u;

/** The forms in which two names that look the same share one (UTS #39's skeleton, the
 * invisible characters left out: `nameKeys`), their spaces made one. */
const looks = (name: string): Set<string> => new Set([...nameKeys(name)].map((k) => pySplit(k).join(" ")));
const escaped = (s: string) => s.replace(/[\\^\]\-[]/g, "\\$&");
let seatLook: RegExp | undefined; // the seat-like words and digits as those forms write them
const SEAT_LOOK = (): RegExp => seatLook ??= new RegExp(`(?<![\\p{L}\\p{N}])(?:${
  [...new Set(["seat", "player", "hand", "team"].flatMap((w) => [...looks(w)]))].sort().join("|")
}) ?[${escaped([...new Set([..."0123456789"].flatMap((d) => [...looks(d)]))].sort().join(""))}]+(?![\\p{L}\\p{N}])`, "u");
const meets = (a: Set<string>, b: Set<string>) => [...a].some((k) => b.has(k));

const fromOne = (numbers: string) => numbers.replace(/[0-9]+/g, (n) => String(Number(n) + 1));

/** The four players of a match, for putting the verifier's words to people. */
export class Table {
  readonly given: string[];
  readonly raw: string[];
  /** each seat as a sentence names it: the player's name; `Seat N` for a seat without
   * one; quoted, with its seat, a name two seats share or one that reads as a seat */
  readonly names: string[];

  constructor(names: readonly string[]) {
    this.given = [...names];
    this.raw = names.map(pyStrip);
    // a name that reads as a seat, or that two seats share, or that only looks so (an
    // invisible character, a letter of another script): quoted, with its seat
    const plain = this.raw.map((n) => pySplit(casefold(n)).join(" "));
    const look = this.raw.map(looks);
    const seatLike = (s: number) => {
      const own = `seat ${s + 1}`;
      return !(plain[s] === own || meets(look[s]!, looks(own)))
        && (SEAT_LIKE.test(plain[s]!) || [...look[s]!].some((k) => SEAT_LOOK().test(k))
          // a name that only looks blank (U+3164, a Hangul filler): a sentence about its
          // player would read as having no subject
          || ![...look[s]!].some((k) => k !== ""));
    };
    this.names = this.raw.map((n, s) => !n ? `Seat ${s + 1}`
      : look.filter((k) => meets(k, look[s]!)).length > 1 || seatLike(s)
        ? `“${n}” (Seat ${s + 1})` : n);
  }

  /** The players a verdict names (`Seat 1`–`Seat 4` when the log names none). */
  static of(players: readonly string[]): Table {
    return new Table(players.length ? players : ["", "", "", ""]);
  }

  team(team: number): string {
    return `${this.names[team]} & ${this.names[team + 2]}`;
  }

  /** How an abandoned match ended (\`v.ending\`) as \`say\` tells it, but for the platform's
   *  reason it ends with: quoted and kept as the end record gives it (a reason's "seat 2" is
   *  the platform's word, not a seat for a name). */
  ending(v: { ending: string | null; reason: string | null }): string {
    const text = v.ending ?? "";
    const reason = v.reason;
    if (reason && text.endsWith(`: ${reason}`)) return `${this.say(text.slice(0, text.length - reason.length))}“${reason}”`;
    return this.say(text);
  }

  /** The verifier's sentence with names for seats and teams, hands counted from 1. */
  say(text: string): string {
    let out = "";
    let at = 0;
    for (const m of text.matchAll(WORDS)) {
      if (m.index < at) continue; // inside a name already said
      out += text.slice(at, m.index);
      at = m.index + m[0].length;
      if (m[1] !== undefined) out += this.team(Number(m[1]));
      else if (m[3] !== undefined) {
        const s = Number(m[3]);
        out += this.names[s]! + (m[4] ? "’s" : "");
        const said = ` (${this.given[s]})`; // "seat 2 (Cy)" says the name twice
        if (!m[4] && text.startsWith(said, at)) at += said.length;
      } else out += `${m[5]} ${fromOne(m[6]!)}`;
    }
    return out + text.slice(at);
  }
}

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;

/** `deals_words` of the Python CLI: the hands, and where their deals came from if not proven. */
function dealsWords(v: VerdictJson): string {
  let source = v.deals_proven ? "" : v.recorded_deals ? (v.recorded_deals === v.hands ? "deals recorded, not proven" : `${v.recorded_deals} deals recorded, not proven`) : "deals not proven";
  if (v.not_replayed.length) source += `${source ? "; " : ""}${v.not_replayed.length} NOT replayed`;
  return count(v.hands, "hand") + (source ? ` (${source})` : "");
}

/** `deals_line` of the Python verdict: how many dealing attempts were replayed, and from which deals. */
function dealsLine(v: VerdictJson): string {
  const v1 = v.notes.some((n) => n.includes("dealt blind under tarneeb-blind-v1"));
  const source = v.deals_proven && v.dealing === "blind"
    ? (v1 ? "dealt blind (tarneeb-blind-v1: the shuffle passes not proven), every hand proven by its decryptions and plays" : "dealt blind, every hand proven by the deal's transcript")
    : v.deals_proven ? "deals proven by the committed seeds"
      : v.recorded_deals ? (v.recorded_deals === v.hands ? "deals recorded by the platform, not proven" : `${v.recorded_deals} deals recorded by the platform, not proven`)
        : "deals not proven";
  return `${v.hands} dealing attempts replayed, ${v.played} played, ${source}${v.not_replayed.length ? `; ${v.not_replayed.length} NOT replayed` : ""}`;
}

/** `print_verdict` of the Python CLI: a short first line (file, verdict, hands, who signed),
 * then what was replayed, what the signature proves (once), the findings, the ending and
 * the notes, the players named and hands counted from 1; the error goes to stderr. */
export function verdictLines(v: VerdictJson): { lines: string[]; error: string | null } {
  const table = Table.of(v.players);
  const say = (text: string) => table.say(text);
  const lines: string[] = [];
  if (v.findings.length || v.error === null) {
    const who = signerWords(v);
    lines.push(`${v.path}: ${v.findings.length ? count(v.findings.length, "finding") : "clean"}, ${dealsWords(v)}, ${who}`);
    lines.push(`  ${dealsLine(v)}`);
    if (v.signed !== who) lines.push(`  ${v.signed}`);
    for (const f of v.findings) {
      const where = ([["hand", f.hand], ["trick", f.trick], ["seat", f.seat]] as const)
        .filter(([, x]) => x !== null).map(([k, x]) => `${k} ${x}`).join(", ") || "match";
      lines.push(`  ${say(`${where}: ${f.message}`)}`);
    }
    if (v.ending !== null) lines.push(`  ${table.ending(v)}`);
  }
  for (const note of v.notes) lines.push(`  note: ${say(note)}`);
  return { lines: lines.map(shown), error: v.error === null ? null : shown(v.error) };
}

/** `signer_words` of the Python CLI: who signed, in a few words for the first line. */
function signerWords(v: VerdictJson): string {
  if (v.signed.startsWith("not signed yet")) return "not signed yet";
  if (v.key.id === null) return "no key to check a signature against";
  if (!v.signed.startsWith("signed by")) return `signature does NOT verify (key ${v.key.id})`;
  return v.key.pinned ? v.signed : `signed by key ${v.key.id}, not pinned`;
}

/** `key_words` of the Python CLI: the key a signature was checked against, in a few words. */
function keyWords(v: VerdictJson): string {
  if (v.key.id === null) return "no key";
  if (!v.key.pinned) return `key ${v.key.id} not pinned`;
  return v.key.platform !== null ? `${v.key.platform} (key ${v.key.id})` : `key ${v.key.id} pinned`;
}

/** `_clip` of the Python CLI: `text` cut at a word to at most `most` characters, `…` marking the cut. */
function clip(text: string, most: number): string {
  const chars = [...text];
  if (chars.length <= most) return text;
  const head = chars.slice(0, most).join("");
  const space = head.lastIndexOf(" ");
  return (space < 0 ? head : head.slice(0, space)).replace(/[,;:]+$/, "") + "…";
}

/** The Python CLI's `Tally`: many logs' verdicts, one short line each; the hints they share
 *  said once at the end (`close`), then how many logs were clean. */
export class Tally {
  static readonly FINDING_ROOM = 80; // characters of a log's first finding shown on its line
  clean = 0;
  withFindings = 0;
  unreadable = 0;
  notPinned = 0;
  noReceipt = 0;
  more = false; // a log has findings or notes its line does not show in full

  /** The line of one log's verdict (`v.path` and `v.error` as they are to be shown). */
  add(v: VerdictJson): string {
    if (v.error !== null) {
      this.unreadable += 1;
      const said = v.error.startsWith(`${v.path}: `) ? v.error.slice(v.path.length + 2) : v.error;
      return shown(`${v.path}: unreadable: ${said}`);
    }
    const notes = v.notes.filter((n) => n !== NO_RECEIPT_NOTE);
    this.noReceipt += notes.length < v.notes.length ? 1 : 0;
    this.notPinned += v.key.id !== null && !v.key.pinned ? 1 : 0;
    this.more ||= v.findings.length > 0 || notes.length > 0 || v.ending !== null;
    let about = `, ${dealsWords(v)}, ${keyWords(v)}`;
    if (notes.length) about += `, ${count(notes.length, "note")}`;
    if (!v.findings.length) {
      this.clean += 1;
      return shown(`${v.path}: clean${about}`);
    }
    this.withFindings += 1;
    const f = v.findings[0]!;
    const where = ([["hand", f.hand], ["trick", f.trick], ["seat", f.seat]] as const)
      .filter(([, x]) => x !== null).map(([k, x]) => `${k} ${x}`).join(", ") || "match";
    const first = clip(Table.of(v.players).say(`${where}: ${f.message}`), Tally.FINDING_ROOM);
    return shown(`${v.path}: ${count(v.findings.length, "finding")}${about}: ${first}`);
  }

  /** The hints the logs share, each once, and the count of logs by verdict. */
  close(): string[] {
    const lines: string[] = [];
    if (this.notPinned) lines.push(`note: ${count(this.notPinned, "log")} checked against a key named in the log itself, NOT PINNED: anyone could have made them with a key of their own (pin the platform's key: tarneeb verify --key or --keys)`);
    if (this.noReceipt) lines.push(`note: ${count(this.noReceipt, "log")} not compared with a seat's pre-play receipt: that each is the match promised before play rests on the platform's word (tarneeb verify --receipt FILE LOG checks one)`);
    if (this.more) lines.push("note: tarneeb verify LOG gives one log's findings and notes in full");
    const total = this.clean + this.withFindings + this.unreadable;
    const counts = [`${this.clean} clean`];
    if (this.withFindings) counts.push(`${this.withFindings} with findings`);
    if (this.unreadable) counts.push(`${this.unreadable} unreadable`);
    lines.push(`${count(total, "log")}: ${counts.join(", ")}`);
    return lines;
  }
}
