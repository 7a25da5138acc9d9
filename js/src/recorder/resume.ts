/**
 * Taking a log up again after a crash or a restart (the Python `MatchRecorder.resume`):
 * what the file holds is read, and judged as `verify` judges it, and the recorder goes on
 * from its last whole value (recorder.ts makes the recorder; this module says where it
 * stands).
 *
 * What follows the last whole value is cut off: a torn value, a zero-filled tail, bytes no
 * writer writes (the garbage a power loss may leave); in a log dealt blind, a deal record
 * without its blind record and a card without its proof too (the server writes them again,
 * whole). With the server seed (a match on the seed protocol; one that records its deals
 * needs none) the log's last values are also replayed as `verify` judges them, and cut where
 * they stop following the rules (docs/FORMAT.md "A log cut short").
 */
import { readFileSync } from "node:fs";
import { type Bytes, constantTimeEqual } from "../text/bytes.js";
import { errnoWords } from "../text/errno.js";
import { shown } from "../text/names.js";
import { serverCommitment } from "../protocol/derive.js";
import { LogError, type ParsedLog, parseLog } from "../log/records.js";
import { cutAt, judgedLog } from "../verify/verify.js";

/** Where a resumed recorder stands. */
export interface ResumePoint {
  /** the log as judged: the values the recorder goes on from */
  log: ParsedLog;
  /** the bytes kept (the file is truncated there) */
  keep: number;
  /** what was cut, as the Python recorder's `cut` says it; null: nothing */
  cut: string | null;
}

// the replayer counts hands from 0; a message for people counts them from 1
const HAND = /\b([Hh]ands?|[Hh]and\(s\)|attempt|dealing attempt) (\d+(?:-\d+)?(?:, \d+(?:-\d+)?)*)\b/g;

/** The replayer's sentence with hands counted from 1 (Python's `hands_from_1`). */
export function handsFrom1(text: string): string {
  return text.replace(HAND, (_, word: string, numbers: string) => `${word} ${numbers.replace(/\d+/g, (n) => String(Number(n) + 1))}`);
}

/** Open end: whether the log stops before its end record, or is damaged after it (verify's rule). */
function endsOpen(log: ParsedLog): boolean {
  return log.signature === null && (log.end === null || log.cut !== null);
}

/**
 * Dealt blind: without a deal record that lacks its blind record, or a card that lacks its
 * proof (the server writes them again, whole).
 */
function wholeBlindDeals(log: ParsedLog): ParsedLog {
  const last = log.hands[log.hands.length - 1];
  if (!log.header.blind || last === undefined || last.closed || log.end !== null) return log;
  if (!last.blind) return cutAt(log, last.offset, `hand ${last.dealNumber}'s deal record without its blind record`);
  if (last.plays.length && !last.blind.plays.has(last.plays.length - 1)) {
    return cutAt(log, log.ends[log.ends.length - 2]!, `hand ${last.dealNumber}'s last card without its proof record`);
  }
  return log;
}

/**
 * Read the log at `path` for a recorder to go on with it: the point it stands at, or the
 * reason it cannot (a log not readable, or signed).
 */
export async function resumePoint(path: string, serverSeed: Bytes | null): Promise<ResumePoint | string> {
  let data: Bytes;
  try {
    data = readFileSync(path);
  } catch (e) {
    return `cannot go on with ${shown(path)}: ${errnoWords(e)}`;
  }
  let log: ParsedLog;
  try {
    log = parseLog(data);
  } catch (e) {
    if (e instanceof LogError) return shown(`cannot go on with this log: ${path}: ${e.message}`);
    throw e;
  }
  if (log.signature !== null) return `${shown(path)}: the log is signed: the match is over`;
  const commitment = log.header.serverCommitment;
  if (serverSeed !== null && commitment === null) return `${shown(path)}: the log's header commits to no server seed`;
  if (serverSeed !== null && commitment !== null && !constantTimeEqual(await serverCommitment(serverSeed), commitment)) {
    return `${shown(path)}: the server seed given is not the one the log's header commits to (another match's?)`;
  }
  log = (await zerosItsOwn(data, log, serverSeed)) ?? (await judged(log, serverSeed));
  const keep = log.signedBytes.length;
  const said = log.cut !== null ? log.cut.message
    : `cut at byte ${keep}: the rest of the file (${(data.length - keep).toLocaleString("en-US")} bytes) is zeros, not records`;
  const cut = keep === data.length ? null
    : `cut ${(data.length - keep).toLocaleString("en-US")} bytes from byte ${keep.toLocaleString("en-US")}: ${handsFrom1(said)}`;
  return { log, keep, cut };
}

/** Dealt blind, whole deals; then, ending open, judged as `verify` judges it (a whole end record: nothing more to cut). */
async function judged(log: ParsedLog, serverSeed: Bytes | null): Promise<ParsedLog> {
  const whole = wholeBlindDeals(log);
  return endsOpen(whole) ? (await judgedLog(whole, { serverSeed })).log : whole;
}

/** The most zero bytes a record is taken to end in (a scalar's top bytes, totals of 0): a torn
 *  record is not read again for each byte of a long zero-filled tail. */
const ZEROS_OWN = 64;

/**
 * The log with its last record kept, when the reader dropped it because the record's own last
 * bytes are zeros and a zero-filled tail follows (a power loss after an fsync that covered it: a
 * card's proof ends in a zero byte one time in 30 or so, a claims record in a running total of 0)
 * and, judged with the server seed as `verify` judges it, the record is the one written (a proof
 * that proves, claims the rules give). null: the reader's cut stands (no seed to judge it by, a
 * record after the end record, or the record judged torn). The Python `tarneeb.replay.server.resume.zeros_its_own`.
 */
async function zerosItsOwn(data: Bytes, log: ParsedLog, serverSeed: Bytes | null): Promise<ParsedLog | null> {
  const at = log.cut;
  if (serverSeed === null || at === null || !at.message.includes("a record running into a zero-filled tail")) return null;
  let written = data.length;
  while (written > 0 && data[written - 1] === 0) written -= 1;
  // the record's end: where it first reads whole, within ZEROS_OWN bytes of the last byte not zero
  for (let end = written + 1; end < Math.min(data.length, written + ZEROS_OWN + 1); end += 1) {
    let whole: ParsedLog;
    try {
      whole = parseLog(data.subarray(0, end));
    } catch {
      return null;
    }
    if (whole.cut === null && whole.signedBytes.length === end) {
      if (whole.end !== null) return null; // a keys record: nothing judges it before the signature
      const kept = await judged(whole, serverSeed);
      return kept.signedBytes.length === end ? kept : null;
    }
    if (whole.cut === null || whole.cut.offset < at.offset) return null;
  }
  return null;
}
