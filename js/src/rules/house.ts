/**
 * House rules in words (docs/RULES.md "House rules"): where a rule set departs from the
 * preset of its name, from a shipped variant of its name, or from the nearest preset —
 * the notes a verdict gives on a log's rules, word for word as `tarneeb verify` gives them.
 */
import { SHIPPED } from "../data/shipped.js";
import { pyStr } from "../text/strictjson.js";
import { ALL_RULE_FIELDS, PRESETS, type RuleSet, rulesFromMap, rulesMap } from "./rules.js";
import { jsonKey } from "../text/unpack.js";
import { nameKeys } from "../text/names.js";

/** Python's str() of plain data, as the Python verifier prints a value in its messages. */
export function pyRepr(v: unknown, top = true): string {
  if (v === null || v === undefined) return "None";
  if (typeof v === "boolean") return v ? "True" : "False";
  if (typeof v === "string") return top ? v : `'${v}'`;
  if (Array.isArray(v)) return `[${v.map((x) => pyRepr(x, false)).join(", ")}]`;
  return String(v);
}

let shipped: Map<string, RuleSet> | null = null;

/** The shipped house-rule variants by name (the rules files of the Python package). */
export function shippedRules(): Map<string, RuleSet> {
  shipped ??= new Map(Object.entries(SHIPPED).map(([name, map]) => [name, rulesFromMap(map)]));
  return shipped;
}

const same = (a: unknown, b: unknown) => jsonKey(a) === jsonKey(b);

function differences(a: RuleSet, b: RuleSet): [string, unknown, unknown][] {
  const da = rulesMap(a, true);
  const db = rulesMap(b, true);
  return ALL_RULE_FIELDS.filter((k) => k !== "name" && !same(da[k], db[k])).map((k) => [k, da[k], db[k]]);
}

function distance(a: RuleSet, b: RuleSet): number {
  let n = 0;
  for (const [field, x0, y0] of differences(a, b)) {
    let x = x0;
    let y = y0;
    if (field === "values_high") {
      x = x ?? a.values;
      y = y ?? b.values;
    }
    if (Array.isArray(x) && Array.isArray(y)) {
      for (let i = 0; i < Math.max(x.length, y.length); i++) if (!same(x[i], y[i])) n++;
    } else n++;
  }
  return n;
}

/** The preset with the fewest fields different (the first on a tie); its own name wins. */
export function nearestPreset(r: RuleSet): RuleSet {
  if (PRESETS[r.name]) return PRESETS[r.name]!;
  let best: RuleSet | null = null;
  let bestD = Infinity;
  for (const p of Object.values(PRESETS)) {
    const d = distance(r, p);
    if (d < bestD) {
      best = p;
      bestD = d;
    }
  }
  return best!;
}

const article = (n: number) => (n === 8 || n === 11 || String(n).startsWith("8") ? "an" : "a");

const TIE_WORDS: Record<string, string> = {
  highest_player: "the higher player", team_total: "the higher team total", play_on: "another hand",
  "team_0+2": "team 0+2 wins", "team_1+3": "team 1+3 wins",
};
const tieWords = (chain: string[]) => chain.map((s) => TIE_WORDS[s]).join(", then ");

function valuesWords(mine: number[], theirs: number[], b: string): string {
  const bids = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13].filter((n) => mine[n - 2] !== theirs[n - 2]);
  return `values ${bids.map((n) => `${article(n)} ${n} at ${mine[n - 2]}`).join(", ")} (${b}: ${bids.map((n) => theirs[n - 2]).join(", ")})`;
}

function changes(high: number[], low: number[]): string {
  const out: string[] = [];
  for (let n = 2; n < 14; n++) if (high[n - 2] !== low[n - 2]) out.push(`${article(n)} ${n} at ${high[n - 2]}`);
  return out.join(", ");
}

function secondTableWords(r: RuleSet, base: RuleSet): string {
  const b = base.name;
  if (r.values_high === null) {
    return `values do not change with the player's own score (${b}: from ${base.values_high_from} on, ${changes(base.values_high!, base.values)})`;
  }
  if (base.values_high === null) return `from an own score of ${r.values_high_from} on, ${changes(r.values_high, r.values)} (${b}: no change)`;
  const out: string[] = [];
  if (r.values_high_from !== base.values_high_from) out.push(`the second value table applies from an own score of ${r.values_high_from} (${b}: ${base.values_high_from})`);
  let mirrored = true;
  for (let i = 0; i < 12; i++) {
    if (r.values_high[i] !== base.values_high[i] && !(r.values_high[i] === r.values[i] && base.values_high[i] === base.values[i])) mirrored = false;
  }
  if (!mirrored) out.push(`from an own score of ${r.values_high_from} on, ${valuesWords(r.values_high, base.values_high, b)}`);
  return out.join("; ");
}

const TRUMP_WORDS: Record<string, string> = {
  revealed_mate: "the colour-mate of the dealer's shown 13th card",
  revealed: "the suit of the dealer's shown 13th card itself", named: "named by the auction winner",
};
const trumpWords = (r: RuleSet) => TRUMP_WORDS[r.trump] ?? `always ${"♣♦♥♠"[r.fixed_trump]}`;

const PHRASES: Record<string, (r: RuleSet, p: RuleSet) => string> = {
  trump: (r, p) => (r.trump !== "revealed" && p.trump !== "revealed" ? `trump = ${r.trump} ({b}: ${p.trump})`
    : `the trump is ${trumpWords(r)} ({b}: ${trumpWords(p)})`),
  dealer_rotates: (r) => (!r.dealer_rotates
    ? "the first dealer deals every hand, so the same seat bids first and leads ({b}: the deal passes to the right after every hand)"
    : "the deal passes to the right after every hand ({b}: the first dealer deals every hand)"),
  target: (r, p) => `plays to ${r.target} ({b}: ${p.target})`,
  made_13_wins: (r) => (r.made_13_wins ? "a made 13 wins the match outright ({b}: it does not)" : "a made 13 does not win the match outright ({b}: it does)"),
  tie: (r, p) => `breaks a tie of two qualifying teams by ${tieWords(r.tie)} ({b}: ${tieWords(p.tie)})`,
  timer_bid: (r) => (r.timer_bid === "reach_minimum" ? "the timer raises the last bid to reach the table minimum ({b}: the lowest bid)"
    : "the timer bids the lowest allowed ({b}: it raises the last bid to the minimum)"),
  partner_min: (r, p) => `a partner needs ${r.partner_min} or more for the win ({b}: ${p.partner_min})`,
  min_total: (r, p) => `the four bids must total at least ${r.min_total} ({b}: ${p.min_total})`,
  kaboot_defenders_factor: (r, p) => `the defenders score ${r.kaboot_defenders_factor} x their tricks on a failed 13 ({b}: ${p.kaboot_defenders_factor} x)`,
  defenders_all_tricks_value: (r, p) => `defenders taking all 13 tricks score ${r.defenders_all_tricks_value} ({b}: ${p.defenders_all_tricks_value})`,
  kaboot_defenders_all_tricks_value: (r, p) => `defenders taking all 13 tricks against a 13 score ${r.kaboot_defenders_all_tricks_value} ({b}: ${p.kaboot_defenders_all_tricks_value})`,
  auction_ends_on_13: (r) => (!r.auction_ends_on_13 ? "the auction goes on after a 13, the others passing in turn ({b}: it ends at once)"
    : "a 13 ends the auction at once ({b}: the others still pass in turn)"),
  all_tricks_value: (r, p) => `declarers taking all 13 tricks without bidding 13 score ${r.all_tricks_value} ({b}: ${p.all_tricks_value})`,
  kaboot_made_value: (r, p) => `a made 13 scores ${r.kaboot_made_value} ({b}: ${p.kaboot_made_value})`,
  kaboot_failed_value: (r, p) => `a failed 13 loses ${r.kaboot_failed_value} ({b}: ${p.kaboot_failed_value})`,
};

const show = (v: unknown) => (typeof v === "boolean" ? (v ? "true" : "false") : pyRepr(v));

/** Where `r` departs from `base` (default: the nearest preset), in words. */
export function explain(r: RuleSet, base: RuleSet = nearestPreset(r)): string[] {
  const b = base.name;
  const out: string[] = [];
  for (const [field, mine, theirs] of differences(r, base)) {
    if (field === "values") out.push(valuesWords(r.values, base.values, b));
    else if (field === "values_high" || field === "values_high_from") {
      const said = secondTableWords(r, base);
      if (said && !out.includes(said)) out.push(said);
    } else if (PHRASES[field]) out.push(PHRASES[field]!(r, base).replaceAll("{b}", b));
    else out.push(`${field} = ${show(mine)} (${b}: ${show(theirs)})`);
  }
  return out;
}

/** Python's `repr` of a string, as the Python verifier's notes write a rules name: its
 *  quote, backslash escapes, and what is not printable escaped (`'eram41\xa0'`). */
export const pyQuote = pyStr;

/** The verdict's notes on a log's rules (none for a preset or shipped variant as it stands). */
export function rulesNotes(r: RuleSet): string[] {
  const preset = PRESETS[r.name];
  const sameRules = (a: RuleSet, b: RuleSet) => same(rulesMap(a), rulesMap(b));
  if (preset) return sameRules(r, preset) ? [] : [`rules ${r.name} with house options: ${explain(r, preset).join("; ")}`];
  const variant = shippedRules().get(r.name);
  if (variant) return sameRules(r, variant) ? [] : [`house rules ${pyQuote(r.name)} differ from the ${r.name} shipped with tarneeb: ${explain(r, variant).join("; ")}`];
  const nearest = nearestPreset(r);
  const other = looksLike(r.name);
  const alike = other === null ? "" : ` (a name that looks like ${other}'s, which they are not)`;
  return [`house rules ${pyQuote(r.name)}${alike}, recorded in full in the log; their differences from the nearest preset, ${nearest.name}: ${explain(r, nearest).join("; ") || "none"}`];
}

/** The preset or shipped rule set whose name `name` looks like but is not (UTS #39's
 * confusables, case folded: `еram41` with a Cyrillic е, `ERAM41`, `eram4l`). */
function looksLike(name: string): string | null {
  const keys = nameKeys(name);
  const others = [...new Set([...Object.keys(PRESETS), ...shippedRules().keys()])].sort();
  return others.find((o) => o !== name && [...nameKeys(o)].some((k) => keys.has(k))) ?? null;
}
