/**
 * How a match ends (docs/FORMAT.md "A log cut short", "End record"): the hands that could
 * not be replayed, a log cut short, the winner claimed against the winner by the rules, and
 * an abandonment or a timeout against whose turn it was where the log stops.
 */
import { waitingFor, waitingStep } from "../log/blindrecords.js";
import { Match, Phase } from "../rules/engine.js";
import { add, TEAMS, type Verdict } from "../log/findings.js";
import { type HandRecord, type ParsedLog } from "../log/records.js";

export function runs(numbers: number[]): string {
  const out: string[] = [];
  let start = numbers[0]!;
  let prev = start;
  for (const n of [...numbers.slice(1), null]) {
    if (n !== null && n === prev + 1) {
      prev = n;
      continue;
    }
    out.push(start === prev ? `${start}` : `${start}-${prev}`);
    if (n !== null) start = prev = n;
  }
  return out.join(", ");
}

export function reportNotReplayed(v: Verdict, missing: [number, number, string][]): void {
  const byReason = new Map<string, [number, number][]>();
  for (const [n, offset, why] of missing) {
    if (!byReason.has(why)) byReason.set(why, []);
    byReason.get(why)!.push([n, offset]);
  }
  for (const [why, hands] of byReason) {
    const numbers = hands.map(([n]) => n);
    v.notReplayed.push(...numbers);
    if (hands.length === 1) add(v, "not-replayed", `the hand could not be replayed: ${why}; none of its bids, cards or claims are checked`, { hand: numbers[0]!, offset: hands[0]![1] });
    else add(v, "not-replayed", `hands ${runs(numbers)} (${numbers.length} dealing attempts) could not be replayed: ${why}; none of their bids, cards or claims are checked`, { offset: hands[0]![1] });
  }
  v.notReplayed.sort((a, b) => a - b);
}

const CAUSE_TEXT: Record<string, string> = { disconnect: "disconnected", timeout: "timed out", resignation: "resigned" };
const TURN_TEXT = new Map<Phase, string>([[Phase.BID, "call"], [Phase.TRUMP, "name the trump"], [Phase.PLAY, "play"]]);

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
const moves = (rec: HandRecord) => `${count(rec.calls.length, "call")} and ${count(rec.plays.length, "card")}`;

/** ` in hand 7`: the hand that won the match, when the replay has it. */
function wonIn(state: Match): string {
  const won = state.history.find((h) => h.winner !== null);
  return won === undefined ? "" : ` in hand ${won.dealNumber}`;
}

function stopPlace(last: HandRecord | null): string {
  if (last === null) return "the start, before the first deal";
  if (last.closed) return `the end of hand ${last.dealNumber}, before the next deal`;
  const waiting = last.blind ? waitingFor(last.blind) : null;
  if (waiting !== null) return `hand ${last.dealNumber}, in its blind deal, waiting for seat ${waiting}`;
  if (last.plays.length === 52) return `hand ${last.dealNumber}, after its 13th trick, before its claims`;
  if (last.plays.length) return `hand ${last.dealNumber}, trick ${Math.floor(last.plays.length / 4) + 1}`;
  return `hand ${last.dealNumber}, in the bidding`;
}

type Abandoned = NonNullable<NonNullable<ParsedLog["end"]>["abandoned"]>;

function abandonText(log: ParsedLog, a: Abandoned): string {
  const who = a.seat === null ? (a.cause === "server-fault" ? "the server" : "a player") : `seat ${a.seat} (${log.header.seats[a.seat]!.name})`;
  const what = a.cause === "server-fault" ? "failed" : CAUSE_TEXT[a.cause] ?? a.cause;
  return `${who} ${what}` + (a.reason ? `: ${a.reason}` : "");
}

/** FORMAT.md "End": the end record (or its lack) against the state the replay left. */
export function checkEnd(log: ParsedLog, state: Match, v: Verdict, atLastMove: boolean): void {
  const last = log.hands.length ? log.hands[log.hands.length - 1]! : null;
  const at = log.endOffset;
  if (log.end === null) {
    const cutAt = log.cut !== null ? log.cut.offset : log.size;
    const stops = last !== null && !last.closed ? ` (hand ${last.dealNumber} stops after ${moves(last)})` : "";
    add(v, "cut-short", `${log.cut !== null ? log.cut.message : `cut at byte ${cutAt}: the log ends`}, after ${log.hands.length} dealing attempts, without its end record${stops}`, { offset: cutAt });
    return;
  }
  if (log.cut !== null) add(v, "cut-short", `${log.cut.message}, after the end record`, { offset: log.cut.offset });
  const claimed = log.end.winner;
  const actual = state.winner;
  const ab = log.end.abandoned;
  if (ab !== null) {
    v.ending = `abandoned at ${stopPlace(last)}: ${abandonText(log, ab)}`;
    v.reason = ab.reason || null;
    const waiting = last?.blind ? waitingFor(last.blind) : null;
    if (ab.cause === "timeout" && ab.seat !== null && waiting !== null) {
      // a blind deal that stopped (§13.8): the timeout blames the seat whose step is missing
      if (ab.seat !== waiting) {
        add(v, "timeout-out-of-turn", `the log says seat ${ab.seat} (${log.header.seats[ab.seat]!.name}) timed out, but the blind deal stops at seat ${waiting}: it is seat ${waiting} that has not delivered ${waitingStep(last!.blind!)}`,
          { hand: last!.dealNumber, seat: ab.seat, offset: at });
      }
    } else if (ab.cause === "timeout" && ab.seat !== null) checkTimeout(log, state, v, ab, last, atLastMove);
  } else if (last !== null && !last.closed) {
    add(v, "hand-incomplete", `hand ${last.dealNumber} has no claims record: the match ends inside it, after ${moves(last)}`, { hand: last.dealNumber, offset: at });
  }
  if (actual === null && claimed !== null) add(v, "winner-too-early", `the log declares ${TEAMS[claimed]} the winner, but no team has won yet (totals [${state.totals.join(", ")}])`, { offset: at });
  else if (actual !== null && claimed === null) add(v, "no-winner", `${TEAMS[actual]} won${wonIn(state)}, but the log declares no winner${ab !== null ? " (it says the match was abandoned after that)" : ""}`, { offset: at });
  else if (actual !== claimed) add(v, "wrong-winner", `the log declares ${TEAMS[claimed!]} the winner, but ${TEAMS[actual!]} won`, { offset: at });
  else if (actual === null && ab === null) add(v, "cut-short", "the match ends unfinished: no team has won, and the log does not say it was abandoned", { offset: at });
}

function checkTimeout(log: ParsedLog, state: Match, v: Verdict, a: Abandoned, last: HandRecord | null, atLastMove: boolean): void {
  const seat = a.seat!;
  const blamed = `the log says seat ${seat} (${log.header.seats[seat]!.name}) timed out`;
  const at = log.endOffset;
  const hand = last === null ? null : last.dealNumber;
  if (state.isOver) {
    add(v, "timeout-no-turn", `${blamed}, but the match was already over: ${TEAMS[state.winner!]} had won it${wonIn(state)}`, { seat, hand, offset: at });
    return;
  }
  if (last === null || last.closed) {
    const where = last === null ? "before the first deal" : `after hand ${last.dealNumber}, before the next deal`;
    add(v, "timeout-no-turn", `${blamed} ${where}, when no player was to move: dealing is up to the platform`, { hand, seat, offset: at });
    return;
  }
  const n = last.dealNumber;
  if (!atLastMove) {
    v.notes.push(`the timeout's seat is not checked: hand ${n} could not be replayed to its last move`);
    return;
  }
  const phase = state.phase;
  const turn = TURN_TEXT.get(phase);
  if (turn === undefined) {
    const why = last.plays.length === 52 ? "its 13 tricks were played" : "it was cancelled";
    add(v, "timeout-no-turn", `${blamed} at the end of hand ${n}, but no player was to move: ${why}, and only its claims were still to come`, { hand: n, seat, offset: at });
    return;
  }
  if (state.current !== seat) {
    const trick = phase === Phase.PLAY ? Math.floor(last.plays.length / 4) + 1 : null;
    add(v, "timeout-out-of-turn", `${blamed}, but it was seat ${state.current}'s turn to ${turn} when the log stops: a timeout blames the player to move`, { hand: n, trick, seat, offset: at });
  }
}
