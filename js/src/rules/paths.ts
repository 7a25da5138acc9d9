/**
 * Which paths of the rules a replayed match went through (`paths` in the verdict JSON):
 * the corpus must exercise every path of docs/RULES.md, and both verifiers count them alike.
 */
import { BID, type Hand, PASS, breakTie, qualifying, totalsWinner } from "./engine.js";
import { type RuleSet, bidValue, lowestBid, lowestTotal, tieForm } from "./rules.js";

const team = (s: number) => s & 1;

function bidOf(hand: Hand, seat: number): number | null {
  for (const [s, a] of hand.calls) if (s === seat && a >= BID && a < PASS) return a - BID;
  return null;
}

function valueClass(r: RuleSet, bid: number, own: number): string {
  const value = bidValue(r, bid, own);
  const names: Record<number, string> = { 1: "face", 2: "double", 3: "triple", 4: "quadruple" };
  const name = (value % bid === 0 ? names[Math.floor(value / bid)] : undefined) ?? `value-${value}`;
  return value !== bidValue(r, bid, -(10 ** 9)) ? `${name}@30` : name;
}

const tieLabel = (r: RuleSet) => {
  const f = tieForm(r.tie);
  return typeof f === "string" ? f : f.join(">");
};

function made13(hand: Hand): boolean {
  if (hand.contract !== null) {
    const bt = team(hand.declarer!);
    return hand.contract === 13 && hand.tricks[bt]! + hand.tricks[bt + 2]! === 13;
  }
  return [0, 1, 2, 3].some((s) => bidOf(hand, s) === 13 && hand.tricks[s] === 13);
}

function endPaths(r: RuleSet, t: number[], winner: number | null): string[] {
  const out: string[] = [];
  const q = qualifying(r, t);
  const blocked = [0, 1, 2, 3].filter((p) => t[p]! >= r.target && !q.includes(p));
  if (blocked.length) {
    out.push("partner-blocks-win");
    if (r.partner_min === 1 && blocked.some((p) => t[p ^ 2] === 0)) out.push("partner-blocks-win:zero");
  }
  if (new Set(q.map(team)).size === 2) {
    out.push(`both-qualify:${tieLabel(r)}`);
    out.push(winner === null ? "both-qualify-equal" : "both-qualify-decided");
    if (r.tie[r.tie.length - 1] !== "play_on") out.push(`tie-decided:${breakTie(r, t, q)[1]}`);
  }
  return out;
}

/** The paths of the rules the match's history went through, counted (keys sorted). */
export function exercisedPaths(r: RuleSet, history: Hand[], timers: bigint[]): Record<string, number> {
  const seen = new Map<string, number>();
  const see = (k: string) => seen.set(k, (seen.get(k) ?? 0) + 1);
  let before = [0, 0, 0, 0];
  let streak = 0;
  history.forEach((hand, i) => {
    const timer = i < timers.length ? timers[i]! : 0n;
    const nCalls = hand.calls.length;
    if (timer & ((1n << BigInt(nCalls)) - 1n)) {
      see("timer-bid");
      if (r.timer_bid === "reach_minimum" && nCalls > 0 && (timer >> BigInt(nCalls - 1)) & 1n) {
        const [seat, action] = hand.calls[nCalls - 1]!;
        if (seat === hand.dealer && action - BID > lowestBid(r, before[seat]!)) see("timer-bid-reaches-minimum");
      }
    }
    if (r.bidding === "auction" && hand.declarer !== null && (timer >> BigInt(nCalls)) & 1n) see("timer-trump");
    if (timer >> BigInt(nCalls + (hand.declarer !== null ? 1 : 0))) see("timer-play");
    for (const [, low] of r.min_bid_steps) if ([0, 1, 2, 3].some((s) => lowestBid(r, before[s]!) === low)) see(`min-bid:${low}`);
    for (const [, low] of r.min_total_steps) if (lowestTotal(r, Math.max(...before)) === low) see(`min-total:${low}`);
    if (hand.cancelled) {
      streak++;
      see("cancelled");
      if (streak >= 2) see("cancelled-in-a-row");
      if (r.bidding === "auction") see("auction-all-pass");
      if (hand.totals) before = [...hand.totals];
      return;
    }
    streak = 0;
    if (hand.scores === null || hand.totals === null || hand.plays.length < 52) {
      if (hand.totals) before = [...hand.totals];
      return;
    }
    if (r.scoring === "team") {
      if (hand.declarer !== null && hand.contract !== null) {
        const bt = team(hand.declarer);
        const t = hand.tricks[bt]! + hand.tricks[bt + 2]!;
        const made = t >= hand.contract ? "made" : "failed";
        if (hand.contract >= 11) see(`bid-${hand.contract}-${made}`);
        if (hand.contract === 13) {
          see(t === 13 ? "kaboot-made" : "kaboot-failed");
          if (t === 0) see("kaboot-failed-no-trick");
          if (hand.calls[hand.calls.length - 1]![1] === BID + 13) see("auction-ended-on-13");
          else if (hand.calls.some(([, a]) => a === BID + 13)) see("auction-passes-after-13");
        } else {
          see(`classic-${made}`);
          if (t === 0 || t === 13) see("all-13-without-13");
          if (t === 0) see("declarers-no-trick");
        }
      }
    } else {
      for (let seat = 0; seat < 4; seat++) {
        const bid = bidOf(hand, seat);
        if (bid === null) continue;
        const made = hand.tricks[seat]! >= bid ? "made" : "failed";
        see(`${made}:${valueClass(r, bid, before[seat]!)}`);
        if (bid >= 11) see(`bid-${bid}-${made}`);
        if (hand.tricks[seat] === 0) see("no-trick");
      }
      for (const p of endPaths(r, hand.totals, hand.winner)) see(p);
    }
    if (r.made_13_wins && hand.winner !== null && made13(hand) && totalsWinner(r, hand.totals) !== hand.winner) see("made-13-wins");
    if (hand.totals.some((t) => t < 0)) see("negative-total");
    if (hand.winner !== null) see("match-won");
    before = [...hand.totals];
  });
  const out: Record<string, number> = {};
  for (const k of [...seen.keys()].sort()) out[k] = seen.get(k)!;
  return out;
}
