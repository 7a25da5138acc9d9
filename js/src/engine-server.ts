#!/usr/bin/env node
/**
 * `tarneeb-engine [--planted-bug broken-trump]`: this package's engine (engine.ts over
 * rules.ts) behind the line protocol `tarneeb-engine`, version 1 (docs/ENGINES.md, "The
 * line protocol"), on standard input and output: one JSON object a line each way, for as
 * many matches as it is given, until `quit` or the end of its input. It is the TypeScript
 * reference an engine team compares against:
 *
 *     tarneeb regress --engine-cmd "npx tarneeb-engine"
 *
 * `--planted-bug broken-trump` serves a copy with one bug planted (as the Python
 * `tarneeb.testing.adapters:broken_trump`): a trick is judged as if there were no trump,
 * so the highest card of the led suit wins even when a seat void in it has trumped.
 * `regress` must catch it.
 */
import { realpathSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { BID, Match, PASS, Phase, TRUMP, legalActions } from "./rules/engine.js";
import { grouped } from "./text/names.js";

export { legalActions }; // engine.ts's, where it is now; kept here for its importers
import { RulesError, rulesFromMap } from "./rules/rules.js";

export const PROTOCOL = "tarneeb-engine";
export const VERSIONS = [1];
export const PLANTED_BUGS = ["broken-trump"] as const;
export type PlantedBug = (typeof PLANTED_BUGS)[number];

/** A request the server answers with an error; the engine goes on. */
class Refused extends Error {}

/** The match with the planted bug: the trick's last card is judged with no trump. */
class BrokenTrumpMatch extends Match {
  override applyUnchecked(action: number): void {
    if (this.phase !== Phase.PLAY || this.trick.length < 3) {
      super.applyUnchecked(action);
      return;
    }
    const trump = this.trump;
    this.trump = null; // the bug
    try {
      super.applyUnchecked(action);
    } finally {
      if (this.phase === Phase.PLAY) this.trump = trump; // the hand goes on: the trump is back
    }
  }
}

const isInt = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v);

function hand(cards: unknown): number[] {
  if (!Array.isArray(cards) || cards.length !== 13) throw new Refused("a hand is a list of 13 cards");
  const seen = new Set<number>();
  for (const c of cards) {
    if (!isInt(c) || c < 0 || c > 51 || seen.has(c)) {
      throw new Refused(`a hand holds 13 distinct cards 0-51, not ${JSON.stringify(cards)}`);
    }
    seen.add(c);
  }
  return [...seen].sort((a, b) => a - b);
}

/** Answers the requests of one process: a fresh match for every `new_match`. */
export class EngineServer {
  private match: Match | null = null;

  constructor(readonly bug: PlantedBug | null = null, readonly name = bug === null
    ? "tarneeb-js reference engine" : `tarneeb-js reference engine (planted bug: ${bug})`) {}

  /** The answer to one request, or null for `quit` (no answer: the server stops). */
  answer(request: unknown): Record<string, unknown> | null {
    if (typeof request !== "object" || request === null || Array.isArray(request)) {
      return { id: null, error: "a request is a JSON object" };
    }
    const r = request as Record<string, unknown>;
    if (r.cmd === "quit") return null;
    // the id is echoed: an integer (or another scalar), never a value of any size or depth
    if (r.id !== undefined && r.id !== null && typeof r.id === "object") return { id: null, error: "a request's id is an integer" };
    try {
      return { id: r.id ?? null, ...this.do(r.cmd, r) };
    } catch (e) {
      return { id: r.id ?? null, error: e instanceof Refused ? e.message : `${(e as Error).name}: ${(e as Error).message}` };
    }
  }

  private do(cmd: unknown, r: Record<string, unknown>): Record<string, unknown> {
    if (cmd === "hello") {
      const offered = r.versions;
      if (r.protocol !== PROTOCOL || !Array.isArray(offered)) throw new Refused(`this engine speaks '${PROTOCOL}'`);
      const both = VERSIONS.filter((v) => offered.includes(v));
      if (!both.length) {
        throw new Refused(`this engine speaks '${PROTOCOL}' version ${VERSIONS.join(" or ")}, not ${JSON.stringify(offered)}`);
      }
      return { protocol: PROTOCOL, version: Math.max(...both), engine: this.name };
    }
    if (cmd === "new_match") {
      let rules;
      try {
        if (typeof r.rules !== "object" || r.rules === null || Array.isArray(r.rules)) throw new RulesError("rules must be a table of fields");
        rules = rulesFromMap(r.rules as Record<string, unknown>);
      } catch (e) {
        if (e instanceof RulesError) throw new Refused(`rules this engine cannot play: ${e.message}`);
        throw e;
      }
      const dealer = r.first_dealer;
      if (!isInt(dealer) || dealer < 0 || dealer > 3) throw new Refused("first_dealer is a seat 0-3");
      this.match = this.bug === "broken-trump" ? new BrokenTrumpMatch(rules, dealer) : new Match(rules, dealer);
      return { ok: true };
    }
    const known = ["deal", "to_move", "legal_actions", "apply", "tricks", "hand_scores", "totals", "winner"];
    if (typeof cmd !== "string" || !known.includes(cmd)) throw new Refused(`unknown command ${JSON.stringify(cmd)}`);
    const m = this.match;
    if (m === null) throw new Refused("new_match was not called");
    switch (cmd) {
      case "deal": {
        if (!Array.isArray(r.hands) || r.hands.length !== 4) throw new Refused("hands is a list of four hands");
        const hands = r.hands.map(hand);
        if (new Set(hands.flat()).size !== 52) throw new Refused("the four hands hold every card once");
        const t = r.thirteenth ?? null;
        if (t !== null && (!isInt(t) || t < 0 || t > 51)) throw new Refused("thirteenth is a card 0-51 or null");
        if (m.phase !== Phase.DEAL) throw new Refused("a deal while a hand is under way or after the match is won");
        m.deal(hands, t);
        return { ok: true };
      }
      case "to_move":
        return { seat: m.phase === Phase.DEAL || m.phase === Phase.OVER ? null : m.current };
      case "legal_actions":
        return { actions: legalActions(m) };
      case "apply": {
        if (!isInt(r.action)) throw new Refused("action is an integer");
        if (m.phase === Phase.DEAL || m.phase === Phase.OVER) throw new Refused(m.phase === Phase.OVER ? "the match is already won" : "waiting for a deal");
        const why = r.action < 0 || r.action > TRUMP + 3 ? new Error(`no such action ${r.action}`) : m.check(r.action);
        if (why !== null) throw new Refused(why.message);
        m.applyUnchecked(r.action);
        return { ok: true };
      }
      case "tricks": {
        const h = m.hand ?? m.history[m.history.length - 1] ?? null;
        return { tricks: h === null ? [0, 0, 0, 0] : [...h.tricks] };
      }
      case "hand_scores": {
        for (let k = m.history.length - 1; k >= 0; k--) {
          const s = m.history[k]!.scores;
          if (s !== null) return { scores: [...s] };
        }
        return { scores: null };
      }
      case "totals":
        return { totals: [...m.totals] };
      default:
        return { team: m.winner };
    }
  }
}

/** The longest request line read (characters), as the Python server reads them. */
export const MAX_LINE = 1 << 20;

/** Serve the protocol on standard input and output until `quit` or the end of the input. */
export function serve(bug: PlantedBug | null = null): void {
  const server = new EngineServer(bug);
  // the protocol has standard output to itself: anything else printed goes to stderr
  const out = process.stdout.write.bind(process.stdout);
  console.log = console.info = console.debug = console.warn;
  let stopped = false; // after quit: the lines already read get no answer
  const stop = () => {
    stopped = true;
    process.stdin.destroy();
  };
  const send = (answer: Record<string, unknown>) => {
    let text: string;
    try {
      text = JSON.stringify(answer);
    } catch {
      text = JSON.stringify({ id: null, error: "the answer cannot be written as JSON" });
    }
    out(text + "\n");
  };
  const request = (line: string) => {
    if (stopped || !line.trim()) return;
    let answer: Record<string, unknown> | null;
    try {
      answer = server.answer(JSON.parse(line));
    } catch {
      answer = { id: null, error: "a request is one JSON object on one line" };
    }
    if (answer === null) stop();
    else send(answer);
  };
  const tooLong = () => send({ id: null, error: `a request line is longer than ${grouped(MAX_LINE)} characters` });
  // lines split here, each read no further than MAX_LINE characters: a line without an end
  // would otherwise be held whole, however long
  let held = "";
  let skipping = false; // in a line past MAX_LINE, answered: its rest is read and dropped
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk: string) => {
    let at = 0;
    while (!stopped) {
      const end = chunk.indexOf("\n", at);
      if (end < 0) {
        if (!skipping) held += chunk.slice(at);
        break;
      }
      if (!skipping) {
        const line = held + chunk.slice(at, end);
        if (line.length > MAX_LINE) tooLong();
        else request(line);
      }
      held = "";
      skipping = false;
      at = end + 1;
    }
    if (!stopped && held.length > MAX_LINE) {
      held = "";
      skipping = true;
      tooLong();
    }
  });
  process.stdin.on("end", () => {
    if (!skipping && held.length > MAX_LINE) tooLong();
    else if (!skipping) request(held);
  });
  // a reader that went away (the process that started the engine ended): stop, without a trace
  process.stdout.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code !== "EPIPE" && e.code !== "ERR_STREAM_DESTROYED") throw e;
    stop();
  });
}

/** An argument as a terminal may show it: control, line-break and bidi characters escaped. */
const shownArg = (text: string): string => text.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]/g,
  (c) => (c.charCodeAt(0) <= 0xff ? `\\x${c.charCodeAt(0).toString(16).padStart(2, "0")}` : `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`));

function main(argv: string[]): void {
  let bug: PlantedBug | null = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--planted-bug") {
      const v = argv[++i];
      if (!PLANTED_BUGS.includes(v as PlantedBug)) {
        process.stderr.write(`tarneeb-engine: error: --planted-bug takes ${PLANTED_BUGS.join(", ")}, not ${v === undefined ? "nothing" : shownArg(v)}\n`);
        process.exit(2);
      }
      bug = v as PlantedBug;
    } else if (a === "--help" || a === "-h") {
      process.stdout.write("usage: tarneeb-engine [--planted-bug broken-trump]\n"
        + "Answers the tarneeb-engine line protocol (docs/ENGINES.md) on standard input and output.\n");
      process.exit(0);
    } else {
      process.stderr.write(`tarneeb-engine: error: unknown argument ${shownArg(a)}\nusage: tarneeb-engine [--planted-bug broken-trump]\n`);
      process.exit(2);
    }
  }
  serve(bug);
}

// run as a command (not when imported)
if (process.argv[1] !== undefined && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url))) {
  main(process.argv.slice(2));
}
