/**
 * A log's verdict, as `tarneeb verify --json` gives it: read, replayed, and — for a log
 * that ends open (unsigned, cut before its end record or damaged after it) — judged only
 * up to the last of its values that makes no finding of its own (FORMAT.md "The open end").
 */
import { type Fault } from "../protocol/transcript.js";
import { type Bytes, bytesArgument } from "../text/bytes.js";
import { type Finding, type Options, type Verdict, verifyLog } from "./replay.js";
import { type Cut, LogError, type ParsedLog, parseLog } from "../log/records.js";
import { DEFAULT_LIMITS, type Limits } from "../text/stream.js";

export interface VerdictJson {
  path: string;
  verdict: "clean" | "findings" | "unreadable";
  error: string | null;
  hands: number;
  played: number;
  deals_proven: boolean;
  dealing: "seeds" | "recorded" | "blind";
  recorded_deals: number;
  not_replayed: number[];
  key: { id: string | null; pinned: boolean; platform: string | null; scripts: string[] };
  signed: string;
  ending: string | null;
  /** the platform's reason \`ending\` ends with, as the end record gives it (its words) */
  reason: string | null;
  /** the players the findings' seats are (seat 0 first), as the log names them; none for a log not read */
  players: string[];
  findings: Finding[];
  notes: string[];
  paths: Record<string, number>;
}

const NOT_FAULTS = new Set(["cut-short", "unsigned", "not-replayed", "seed-not-revealed"]);

const key = (f: Finding) => JSON.stringify([f.kind, f.hand, f.trick, f.seat, f.card, f.message]);

function faults(v: Verdict): Map<string, number> {
  const out = new Map<string, number>();
  for (const f of v.findings) if (!NOT_FAULTS.has(f.kind)) out.set(key(f), (out.get(key(f)) ?? 0) + 1);
  return out;
}

function minus(a: Map<string, number>, b: Map<string, number>): Set<string> {
  const out = new Set<string>();
  for (const [k, n] of a) if (n > (b.get(k) ?? 0)) out.add(k);
  return out;
}

/** Where the open end starts, or null for a log judged whole. */
function openEnd(log: ParsedLog): number | null {
  if (log.signature !== null || (log.end !== null && log.cut === null)) return null;
  const starts = log.hands.length ? [log.hands[log.hands.length - 1]!.offset] : [];
  if (log.keys.length) starts.push(log.keys[log.keys.length - 1]!.offset);
  if (log.endOffset !== null) starts.push(log.endOffset);
  return starts.length ? Math.max(...starts) : null;
}

/** `log` read up to byte `at` (the end of one of its values), unreadable from there for the reason `why`. */
export function cutAt(log: ParsedLog, at: number, why: string): ParsedLog {
  const trimmed = parseLog(log.signedBytes.subarray(0, at));
  const cut: Cut = { offset: at, message: `unreadable from byte ${at}: ${why}`, unreadable: true };
  return { ...trimmed, cut, size: log.size, zeroTail: log.zeroTail };
}

/**
 * The log as `verify` judges it — cut where the values of a log that ends open stop being
 * consistent (FORMAT.md "The open end"): `cut` then says why — and its verdict.
 */
export async function judgedLog(log: ParsedLog, opts: Options = {}): Promise<{ log: ParsedLog; verdict: Verdict }> {
  const cache = new Map<number, number[]>();
  const memo = new Map<string, Fault[]>();
  const verify = (l: ParsedLog) => verifyLog(l, opts, cache, memo);
  const start = openEnd(log);
  const verdict = await verify(log);
  if (start === null || !faults(verdict).size) return { log, verdict };
  const before = faults(await verify(cutAt(log, start, "")));
  if (!minus(faults(verdict), before).size) return { log, verdict };
  const ends = [start, ...log.ends.filter((e) => e > start)];
  let good = 0;
  let bad = ends.length - 1;
  let made: Finding[] = [];
  while (bad - good > 1) {
    const mid = (good + bad) >> 1;
    const v = await verify(cutAt(log, ends[mid]!, ""));
    const extra = minus(faults(v), before);
    if (extra.size) {
      bad = mid;
      made = v.findings.filter((f) => extra.has(key(f)));
    } else good = mid;
  }
  if (!made.length) {
    const extra = minus(faults(verdict), before);
    made = verdict.findings.filter((f) => extra.has(key(f)));
  }
  const f = made[0]!;
  // the finding as the text for people writes it: where (hand, trick, seat, or "match"), then what
  const where = ([["hand", f.hand], ["trick", f.trick], ["seat", f.seat]] as const)
    .filter(([, x]) => x !== null).map(([k, x]) => `${k} ${x}`).join(", ") || "match";
  const why = `read as play, the value there would make a finding (${where}: ${f.message}); the last values of a log that ends unsigned may be bytes a power loss left, so they are not judged`;
  const judged = cutAt(log, ends[good]!, why);
  return { log: judged, verdict: await verify(judged) };
}

function signedLine(v: Verdict): string {
  const upto = v.checkedTo === null ? "" : `checked up to byte ${v.checkedTo}`;
  if (v.signature === "absent") return `not signed yet: ${upto || "checked as far as it goes"} (crashed or still being written)`;
  if (v.keyId === null) return "no key to check a signature against: anyone could have made this log";
  if (!v.signatureVerified) {
    const why = v.signature === "weak-key" ? "the key is weak, and a signature under it proves nothing" : "the signature does not cover the log";
    return `signature does not verify: ${why} (key ${v.keyId}, ${v.keyPinned ? "pinned" : "named in the log itself"}${upto ? `; ${upto})` : ")"}`;
  }
  if (v.keyPinned) {
    const mixed = v.signerScripts.length > 1 ? `; the name mixes ${v.signerScripts.join(" and ")} letters: see that it is the platform you mean` : "";
    return `signed by ${v.signer ?? "the key given"} (key ${v.keyId}, pinned${mixed})`;
  }
  return `signed by key ${v.keyId} named in the log itself, NOT PINNED: anyone could have made this log with a key of their own (pin the platform's key: tarneeb verify --key or --keys)`;
}

function unreadable(path: string, error: string): VerdictJson {
  return {
    path, verdict: "unreadable", error, hands: 0, played: 0, deals_proven: false, dealing: "seeds", recorded_deals: 0,
    not_replayed: [], key: { id: null, pinned: false, platform: null, scripts: [] },
    signed: "no key to check a signature against: anyone could have made this log", ending: null, reason: null,
    players: [], findings: [], notes: [], paths: {},
  };
}

/** The verdict on a log's bytes. */
export async function verifyBytes(data: Bytes, path = "<log>", opts: Options = {}, limits: Limits = DEFAULT_LIMITS): Promise<VerdictJson> {
  bytesArgument(data, "verifyBytes");
  let log: ParsedLog;
  try {
    log = parseLog(data, limits);
  } catch (e) {
    if (e instanceof LogError) return unreadable(path, `${path}: ${e.message}`);
    throw e;
  }
  const v = (await judgedLog(log, opts)).verdict;
  return {
    path, verdict: v.findings.length ? "findings" : "clean", error: null, hands: v.hands, played: v.played,
    deals_proven: v.dealsProven, dealing: log.header.blind ? "blind" : v.recorded === 0 ? "seeds" : "recorded", recorded_deals: v.recorded,
    not_replayed: v.notReplayed, key: { id: v.keyId, pinned: v.keyPinned, platform: v.signer, scripts: v.signerScripts },
    signed: signedLine(v), ending: v.ending, reason: v.reason, players: log.header.seats.map((s) => s.name), findings: v.findings, notes: v.notes, paths: v.paths,
  };
}

/** The exit code of verdicts: 0 all clean, 1 findings, 2 a log not read. */
export function exitCode(verdicts: VerdictJson[]): number {
  if (verdicts.some((v) => v.verdict === "unreadable")) return 2;
  return verdicts.some((v) => v.verdict === "findings") ? 1 : 0;
}
