/**
 * Rule sets as data (docs/RULES.md "Rule sets are data", docs/FORMAT.md "The rules map"):
 * the fields in their one order, their validation, the five presets and the house
 * options each platform offers.
 */
import { jsonKey } from "../text/unpack.js";

export type Pair = [number, number];

export interface RuleSet {
  name: string;
  trump: "revealed_mate" | "revealed" | "fixed" | "named";
  fixed_trump: number;
  bidding: "personal" | "auction";
  min_bid: number;
  max_bid: number;
  auction_min: number;
  min_bid_steps: Pair[];
  min_total: number;
  min_total_steps: Pair[];
  scoring: "personal" | "team";
  values: number[];
  values_high_from: number | null;
  values_high: number[] | null;
  all_tricks_value: number;
  kaboot_made_value: number;
  kaboot_failed_value: number;
  defenders_all_tricks_value: number;
  kaboot_defenders_factor: number;
  kaboot_defenders_all_tricks_value: number;
  auction_ends_on_13: boolean;
  timer_bid: "lowest" | "reach_minimum";
  target: number;
  partner_min: number;
  /** the full tie chain: steps, then one fallback */
  tie: string[];
  made_13_wins: boolean;
  /** the deal passes to the right after every hand (false: the first dealer deals every hand) */
  dealer_rotates: boolean;
}

/** The keys of the rules map, in the order a log writes them. */
export const RULE_FIELDS = [
  "name", "trump", "fixed_trump", "bidding", "min_bid", "max_bid", "auction_min",
  "min_bid_steps", "min_total", "min_total_steps", "scoring", "values", "values_high_from",
  "values_high", "all_tricks_value", "kaboot_made_value", "kaboot_failed_value",
  "defenders_all_tricks_value", "kaboot_defenders_factor", "kaboot_defenders_all_tricks_value",
  "auction_ends_on_13", "timer_bid", "target", "partner_min", "tie", "made_13_wins",
] as const;

/** Fields a rules map leaves out at their default (added after logs were written without
 *  them), written after the others when not: a rule set without the house rule keeps its bytes. */
export const OPTIONAL_RULE_FIELDS = ["dealer_rotates"] as const;
const OPTIONAL_DEFAULTS: Record<string, unknown> = { dealer_rotates: true };

/** Every field of a rule set, in order. */
export const ALL_RULE_FIELDS = [...RULE_FIELDS, ...OPTIONAL_RULE_FIELDS] as const;

export const TIE_STEPS = ["team_total", "highest_player"];
export const TIE_FALLBACKS = ["play_on", "team_0+2", "team_1+3"];

export class RulesError extends Error {}

const NO_SECOND_TABLE = "(or be none, for no second table: nil in a log, null in its JSON form, values_high = [] in a rules file)";

/** Python's repr() of a name: quoted as the Python verifier quotes it. */
function pyName(v: unknown): string {
  if (typeof v !== "string") return v === null || v === undefined ? "None" : Array.isArray(v) ? JSON.stringify(v) : String(v);
  const q = v.includes("'") && !v.includes('"') ? '"' : "'";
  return q + v.replaceAll("\\", "\\\\").replaceAll(q, "\\" + q) + q;
}

const LINEAR = [2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13];
const DOUBLED = [2, 3, 4, 10, 12, 14, 16, 18, 20, 22, 24, 26];
const V400 = [2, 3, 4, 10, 12, 14, 16, 27, 40, 40, 40, 40];
const V400_30 = [2, 3, 4, 5, 6, 14, 16, 27, 40, 40, 40, 40];

function base(name: string, over: Partial<RuleSet>): RuleSet {
  return {
    name, trump: "revealed_mate", fixed_trump: 2, bidding: "personal", min_bid: 2, max_bid: 13,
    auction_min: 7, min_bid_steps: [], min_total: 11, min_total_steps: [], scoring: "personal",
    values: LINEAR, values_high_from: null, values_high: null, all_tricks_value: 16,
    kaboot_made_value: 26, kaboot_failed_value: 16, defenders_all_tricks_value: 16,
    kaboot_defenders_factor: 1, kaboot_defenders_all_tricks_value: 16, auction_ends_on_13: true,
    timer_bid: "lowest", target: 41, partner_min: 1, tie: ["team_total", "play_on"],
    made_13_wins: false, dealer_rotates: true, ...over,
  };
}

/** The five presets of RULES.md. */
export const PRESETS: Record<string, RuleSet> = {
  eram41: base("eram41", {}),
  qahwa41: base("qahwa41", { trump: "fixed", values: DOUBLED }),
  sahrat41: base("sahrat41", { tie: ["highest_player", "play_on"] }),
  sahrat400: base("sahrat400", {
    trump: "fixed", min_bid_steps: [[30, 3], [40, 4], [50, 5]],
    min_total_steps: [[30, 12], [40, 13], [50, 14]], values: V400, values_high_from: 30,
    values_high: V400_30, tie: ["highest_player", "play_on"],
  }),
  classic: base("classic", { trump: "named", bidding: "auction", scoring: "team", min_total: 0 }),
};

/** The house options each platform's page offers (RULES.md): anything else needs a name of its own. */
export const PAGE_OPTIONS: Record<string, Record<string, number[]>> = {
  eram41: {}, qahwa41: { target: [31, 41, 61], min_total: [11, 12, 13] }, sahrat41: {},
  sahrat400: {}, classic: { target: [31, 41, 61] },
};

// a whole number of a log may be a BigInt (past 2^53): in range where a range is checked
const isInt = (v: unknown): v is number => typeof v === "bigint" || (typeof v === "number" && Number.isInteger(v));

/** The full chain of a tie value as a log may write it. */
function tieChain(v: unknown): unknown {
  if (typeof v === "string" && TIE_FALLBACKS.includes(v)) return [v];
  if (typeof v === "string" && TIE_STEPS.includes(v)) return [v, "play_on"];
  return v;
}

/** How a chain is written in a log: the one-string shorthand where there is one. */
export function tieForm(chain: string[]): string | string[] {
  if (chain.length === 1 && chain[0] === "play_on") return "play_on";
  if (chain.length === 2 && chain[1] === "play_on") return chain[0]!;
  return chain;
}

/** The rule set a log's rules map gives; throws RulesError naming the field. */
export function rulesFromMap(map: Record<string, unknown>): RuleSet {
  const unknown = Object.keys(map).filter((k) => !(ALL_RULE_FIELDS as readonly string[]).includes(k));
  if (unknown.length) throw new RulesError(`unknown rule field(s): ${unknown.sort().join(", ")}`);
  const missing = RULE_FIELDS.filter((k) => !(k in map));
  if (missing.length) throw new RulesError(`rules lack field(s) ${missing.join(", ")}`);
  // the shapes the Python reader takes before it makes the rule set (RuleSet.from_dict),
  // each refused as it meets it, in the map's order
  for (const [k, v] of Object.entries(map)) {
    if ((k === "min_bid_steps" || k === "min_total_steps")
        && !(Array.isArray(v) && v.every((p) => Array.isArray(p) && p.length === 2))) {
      throw new RulesError(`${k} must be a list of [score, value] pairs`);
    }
    if ((k === "values" || k === "values_high") && v !== null && !Array.isArray(v)) {
      throw new RulesError(`${k} must be a list of 12 numbers (bids 2 to 13)${k === "values_high" ? ` ${NO_SECOND_TABLE}` : ""}`);
    }
  }
  const r = { ...OPTIONAL_DEFAULTS, ...map, tie: tieChain(map.tie) } as unknown as RuleSet;
  const need = (cond: boolean, msg: string) => {
    if (!cond) throw new RulesError(`rule set ${pyName(r.name)}: ${msg}`);
  };
  need(typeof r.name === "string" && [...r.name].length >= 1 && [...r.name].length <= 64, "name must be 1-64 characters");
  need(["revealed_mate", "revealed", "fixed", "named"].includes(r.trump), "trump must be one of revealed_mate, revealed, fixed, named");
  need(["personal", "auction"].includes(r.bidding), "bidding must be one of personal, auction");
  need(["personal", "team"].includes(r.scoring), "scoring must be one of personal, team");
  const tie = r.tie as unknown;
  need(Array.isArray(tie) && tie.length >= 1 && tie.every((x) => typeof x === "string"),
    `tie must be one of ${[...TIE_STEPS, ...TIE_FALLBACKS].join(", ")}, or a list of them ending in a fallback`);
  const steps = r.tie.slice(0, -1);
  const last = r.tie[r.tie.length - 1]!;
  need(TIE_FALLBACKS.includes(last), `tie: the last entry must be a fallback (${TIE_FALLBACKS.join(", ")}), not ${pyName(last)}`);
  for (const step of steps) need(TIE_STEPS.includes(step), `tie: ${pyName(step)} is not a step of the chain (steps: ${TIE_STEPS.join(", ")}; a fallback ends the list)`);
  need(new Set(steps).size === steps.length, "tie: a step appears twice");
  need(["lowest", "reach_minimum"].includes(r.timer_bid), "timer_bid must be one of lowest, reach_minimum");
  const values = ["all_tricks_value", "kaboot_made_value", "kaboot_failed_value",
    "defenders_all_tricks_value", "kaboot_defenders_all_tricks_value"] as const;
  for (const k of ["fixed_trump", "min_bid", "max_bid", "auction_min", "min_total", "target",
    "partner_min", "kaboot_defenders_factor", ...values] as const) need(isInt(r[k]), `${k} must be a whole number`);
  for (const k of values) need(r[k] >= 0 && r[k] <= 1000, `${k} must be 0-1000`);
  need(r.kaboot_defenders_factor >= 1 && r.kaboot_defenders_factor <= 10, "kaboot_defenders_factor must be 1-10 (1: the defenders' tricks, 2: twice them)");
  need(r.fixed_trump >= 0 && r.fixed_trump <= 3, "fixed_trump must be a suit 0-3 (CDHS)");
  need(typeof r.made_13_wins === "boolean", "made_13_wins must be true or false");
  need(typeof r.auction_ends_on_13 === "boolean", "auction_ends_on_13 must be true or false");
  need(typeof r.dealer_rotates === "boolean", "dealer_rotates must be true or false");
  need(r.min_bid >= 2 && r.min_bid <= r.max_bid && r.max_bid === 13, "bids must run from min_bid (2 or more) up to 13");
  need(r.auction_min >= 1 && r.auction_min <= 13, "auction_min must be 1-13");
  need(r.min_total >= 0 && r.min_total <= 52, "min_total must be 0-52");
  need(r.target >= 1 && r.target <= 10000, "target must be 1-10000");
  need(r.partner_min >= -10000 && r.partner_min <= 10000, "partner_min is out of range");
  for (const k of ["min_bid_steps", "min_total_steps"] as const) {
    const v = r[k] as unknown;
    need(Array.isArray(v) && v.every((p) => Array.isArray(p) && p.length === 2 && p.every(isInt)),
      `${k} must hold [score, value] pairs of whole numbers`);
  }
  for (const [, bid] of r.min_bid_steps) need(r.min_bid <= bid && bid <= 13, `min_bid_steps: a lowest bid of ${bid} is not 2-13`);
  for (const k of ["values", "values_high"] as const) {
    const v = r[k] as unknown;
    if (v === null) continue;
    need(Array.isArray(v) && v.length === 12 && v.every(isInt), `${k} must list 12 whole numbers, the values of bids 2 to 13${k === "values_high" ? ` ${NO_SECOND_TABLE}` : ""}`);
    need((v as number[]).every((x) => x >= 0 && x <= 1000), `${k}: values must be 0-1000`);
  }
  need((r.values_high === null) === (r.values_high_from === null), "values_high and values_high_from go together");
  need(r.values_high_from === null || isInt(r.values_high_from), "values_high_from must be a whole number");
  if (r.bidding === "auction") {
    need(r.trump === "named" && r.scoring === "team", "an auction goes with a named trump and team scoring");
    need(r.timer_bid === "lowest", "timer_bid reach_minimum needs personal bids (in an auction the timer passes)");
  } else {
    need(r.trump !== "named" && r.scoring === "personal", "personal bids go with a dealt trump and personal scoring");
  }
  return r;
}

/** The rules map in its one form: every field in order, the tie chain as a log writes it,
 *  an optional field only when it is not at its default (`every`: always, to compare). */
export function rulesMap(r: RuleSet, every = false): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of RULE_FIELDS) out[k] = k === "tie" ? tieForm(r.tie) : r[k];
  for (const k of OPTIONAL_RULE_FIELDS) if (every || r[k] !== OPTIONAL_DEFAULTS[k]) out[k] = r[k];
  return out;
}

function same(a: unknown, b: unknown): boolean {
  return jsonKey(a) === jsonKey(b);
}

export function sameRules(a: RuleSet, b: RuleSet): boolean {
  return ALL_RULE_FIELDS.every((k) => same(a[k], b[k]));
}

/** The fields where rules bearing a preset's name differ from it, beyond its page's options. */
export function presetDepartures(r: RuleSet): string[] {
  const preset = PRESETS[r.name];
  if (!preset) return [];
  const offered = PAGE_OPTIONS[r.name]!;
  return ALL_RULE_FIELDS.filter((k) => !same(r[k], preset[k])
    && !(offered[k]?.includes(r[k] as number) ?? false));
}

export const reveals = (r: RuleSet): boolean => r.trump === "revealed_mate" || r.trump === "revealed";

/** The trump a deal gives, or null where the auction winner names it. */
export function trumpForDeal(r: RuleSet, thirteenth: number | null): number | null {
  if (r.trump === "revealed_mate") return thirteenth === null ? null : 3 - Math.floor(thirteenth / 13);
  if (r.trump === "revealed") return thirteenth === null ? null : Math.floor(thirteenth / 13);
  if (r.trump === "fixed") return r.fixed_trump;
  return null;
}

export function lowestBid(r: RuleSet, own: number): number {
  let low = r.min_bid;
  for (const [atLeast, bid] of r.min_bid_steps) if (own >= atLeast) low = Math.max(low, bid);
  return low;
}

export function lowestTotal(r: RuleSet, highest: number): number {
  let low = r.min_total;
  // a total past 2^53 (a BigInt) is kept exact, for the words that name it
  for (const [atLeast, total] of r.min_total_steps) if (highest >= atLeast && total > low) low = total;
  return low;
}

export function bidValue(r: RuleSet, bid: number, own: number): number {
  const table = r.values_high !== null && r.values_high_from !== null && own >= r.values_high_from
    ? r.values_high : r.values;
  return table[bid - 2]!;
}
