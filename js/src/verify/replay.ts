/**
 * The replay (docs/RULES.md "What the replayer checks", docs/FORMAT.md "What a verifier
 * proves"): the signature, the seeds and the deals they derive, every call and card through
 * the engine, every claim, and the end of the match. Findings name the hand (the deal
 * number, from 0), the trick (1–13), the seat and the card.
 */
import { BlindChecker } from "./blind.js";
import { blindVersion } from "../log/blindrecords.js";
import { type Fault } from "../protocol/transcript.js";
import { type Bytes, constantTimeEqual, equal, toHex } from "../text/bytes.js";
import { ed25519Verify, keyId, weakKey } from "../protocol/crypto.js";
import { Deriver, clientCommitment, matchBinding, seasonHeadMessage, serverCommitment, verifyInclusion } from "../protocol/derive.js";
import { BID, Illegal, Match, PASS, Phase, SUITS, TRUMP, cardName, describe, type Hand } from "../rules/engine.js";
import { checkEnd, reportNotReplayed, runs } from "./ending.js";
import { add, TEAMS, type Verdict, type Where } from "../log/findings.js";
import { type HandRecord, type ParsedLog } from "../log/records.js";
import { ALL_RULE_FIELDS, PRESETS, lowestTotal, presetDepartures, reveals, rulesMap, sameRules } from "../rules/rules.js";
import { pyRepr, rulesNotes } from "../rules/house.js";
import { nameScripts, pyStr } from "../text/names.js";
import { exercisedPaths } from "../rules/paths.js";
import { type SignedReceipt, dealingMismatches, receiptMismatches, receiptOf } from "./receipt.js";
import { encodeExact, jsonKey } from "../text/unpack.js";

export type { Finding, Verdict } from "../log/findings.js";

export interface Options {
  /** a raw Ed25519 key the user pins */
  publicKey?: Bytes | null;
  /** platform name → raw key (a keys file) */
  keys?: Map<string, Bytes> | null;
  /** the season root the platform published, to pin */
  root?: Bytes | null;
  /** the server seed revealed outside the log */
  serverSeed?: Bytes | null;
  /** seats' pre-play receipts: the one naming the log's match (or the only one) is checked */
  receipts?: SignedReceipt[];
  /** called before each dealing attempt is replayed (from 0, of `total`): a page shows the
   *  progress of a log dealt blind, whose proofs take seconds a deal, and lets itself paint */
  onHand?: (done: number, total: number) => void | Promise<void>;
  /** called as each dealing attempt is replayed: its number (from 0, its place in the log,
   *  as findings name it) and the dealer the rules give it (a page shows the same hand) */
  onDealt?: (n: number, dealer: number) => void;
  /** the user's policy (`--require-proof`): a deal not proven from the log (recorded by the
   *  platform, or dealt blind under `tarneeb-blind-v1`) is an `unproven-deal` finding */
  requireProof?: boolean;
}

/** The receipt for a match: the one that names it; else the only one given; else none. */
function receiptFor(opts: Options, matchId: Bytes): SignedReceipt | null {
  const all = opts.receipts ?? [];
  return all.find((r) => equal(r.receipt.matchId, matchId)) ?? (all.length === 1 ? all[0]! : null);
}

/** The note on a log with committed seeds verified without a seat's receipt. */
export const NO_RECEIPT_NOTE = "not compared with a seat's pre-play receipt (--receipt): that the log is the match promised before play rests on the platform's word";
const hex16 = (b: Bytes) => toHex(b).slice(0, 16);

const NO_DEAL = "the log has neither seeds to derive the deal nor a recorded deal";
const SECRET_HAND = "a blind deal that was not played out, and whose seats did not reveal their keys: its cards stay secret, so its plays cannot be checked against the hands";

/** What the asynchronous checks (signature, seeds) leave for the replay. */
interface Source {
  deriver: Deriver | null;
  noDeal: string;
  decks: Map<number, number[]>;
  /** a log dealt blind: its transcripts' checks (PROTOCOL.md §13.4) */
  blind?: BlindChecker | null;
}

class Abandon extends Error {}
class LogStops extends Abandon {}

/**
 * Verify a parsed log (asynchronous: the crypto is WebCrypto's). `cache` holds the decks
 * derived, `memo` the blind transcripts checked, of logs that are prefixes of the same bytes.
 */
export async function verifyLog(log: ParsedLog, opts: Options, cache: Map<number, number[]>, memo: Map<string, Fault[]> | null = null): Promise<Verdict> {
  const v: Verdict = {
    findings: [], notes: [], hands: 0, played: 0, dealsProven: false, recorded: 0, notReplayed: [],
    keyId: null, keyPinned: false, signatureVerified: false, signature: null, checkedTo: null, ending: null, reason: null,
    signer: null, signerScripts: [], paths: {},
  };
  const h = log.header;
  const rules = h.rules;
  const preset = PRESETS[rules.name];
  if (preset && !sameRules(preset, rules) && presetDepartures(rules).length) {
    const mine = rulesMap(rules, true);
    const theirs = rulesMap(preset, true);
    const shown = ALL_RULE_FIELDS.filter((k) => jsonKey(mine[k]) !== jsonKey(theirs[k])).map((k) => `${k}=${pyRepr(mine[k])}`).join(", ");
    add(v, "wrong-rules", `the rules bear the name ${rules.name}, but ${rules.name} has another ${presetDepartures(rules).join(", ")} and offers no house option there (${shown}): these rules are not ${rules.name}`, { offset: 0 });
  } else v.notes.push(...rulesNotes(rules));
  if (!equal(encodeExact(rulesMap(rules)), encodeExact(h.rulesMap))) {
    const order = Object.keys(h.rulesMap).join(",") === Object.keys(rulesMap(rules)).join(",");
    add(v, "not-canonical", order ? "the rules map does not have the one byte form of its rules (a value of another type)"
      : `the rules map's keys are not in the order FORMAT.md gives them (${Object.keys(rulesMap(rules)).join(", ")})`, { offset: 0 });
  }
  await checkSignature(log, v, opts);
  const source = await checkSeeds(log, v, opts, cache);
  const receipt = receiptFor(opts, h.matchId);
  if (receipt !== null) {
    for (const m of await receiptMismatches(h, receipt, opts.publicKey ?? null)) add(v, "receipt-mismatch", m);
    const versions = new Map<number, number>();
    for (const rec of log.hands) {
      const version = rec.blind ? blindVersion(rec.blind) : null;
      if (version !== null) versions.set(rec.dealNumber, version);
    }
    // as the Python verifier: a log that commits to no seeds is that one finding, nothing more
    const dealing = receiptOf(h) === null ? { found: [], note: null } : dealingMismatches(h, receipt.receipt.dealing, versions);
    for (const [hand, m] of dealing.found) add(v, "receipt-mismatch", m, { hand });
    if (dealing.note !== null) v.notes.push(dealing.note);
  } else if (h.serverCommitment !== null) v.notes.push(NO_RECEIPT_NOTE);
  let firstDealer = h.firstDealer;
  let seedsOk = false;
  if (source.deriver !== null) {
    seedsOk = !v.findings.some((f) => ["client-seed", "batch-proof", "receipt-mismatch"].includes(f.kind));
    const drawn = await source.deriver.firstDealer();
    if (drawn !== firstDealer) {
      add(v, "wrong-first-dealer", `the log names seat ${firstDealer} as first dealer, but the seeds draw seat ${drawn}`, { seat: firstDealer });
      firstDealer = drawn;
    }
    const todo = log.hands.map((_, n) => n).filter((n) => !source.decks.has(n));
    const decks = await Promise.all(todo.map((n) => source.deriver!.deck(n)));
    todo.forEach((n, i) => source.decks.set(n, decks[i]!));
  }
  const state = new Match(rules, firstDealer);
  if (h.blind) source.blind = new BlindChecker(h.matchId, log.keys, log.hands.length, v.findings, memo);
  const replay = new HandReplay(state, v, source);
  const timers: bigint[] = [];
  for (const [k, rec] of log.hands.entries()) {
    if (opts.onHand) await opts.onHand(k, log.hands.length);
    if (state.isOver) {
      add(v, "played-after-win", `hand ${rec.dealNumber} was played after ${TEAMS[state.winner!]} had won the match`, { hand: rec.dealNumber, offset: rec.offset });
      break;
    }
    opts.onDealt?.(state.dealNumber, state.dealer);
    replay.run(rec);
    timers.push(rec.timer);
  }
  v.hands = replay.replayed;
  v.played = replay.played;
  v.recorded = replay.recorded;
  v.dealsProven = seedsOk;
  if (source.blind) {
    v.dealsProven = seedsOk && !source.blind.faults && !replay.missing.length;
    const cancelled = source.blind.secretCancelled;
    if (cancelled.length) v.notes.push(`hand(s) ${runs(cancelled)} dealt blind and never played out (cancelled in the bidding, or the log stops in its bidding): their cards were never shown and no keys were revealed; their calls do not depend on them and are checked`);
    const v1 = source.blind.v1Hands.length;
    if (v1) v.notes.push(`${v1} dealing attempt(s) dealt blind under tarneeb-blind-v1: their shuffle passes carry no proofs, so a pass that changed the deck is named only with the revealed keys`);
  }
  if (v.recorded) v.notes.push(`${v.recorded} of the deals replayed are recorded by the platform, not proven by committed seeds`);
  if (opts.requireProof) {
    if (v.recorded) add(v, "unproven-deal", `${v.recorded} of the deals replayed are recorded by the platform, not derived from committed seeds: nothing in the log proves them, and proof is required`);
    for (const n of source.blind?.v1Hands ?? []) add(v, "unproven-deal", "dealt blind under tarneeb-blind-v1: its shuffle passes carry no proofs, and proof is required", { hand: n });
  }
  reportNotReplayed(v, replay.missing);
  checkEnd(log, state, v, replay.atLastMove);
  v.paths = exercisedPaths(rules, state.history, timers);
  return v;
}

async function checkSignature(log: ParsedLog, v: Verdict, opts: Options): Promise<void> {
  let key = log.header.publicKey;
  const named = new Map<string, string>();
  for (const [name, raw] of opts.keys ?? []) named.set(toHex(raw), name);
  if (opts.publicKey) {
    if (key !== null && !equal(key, opts.publicKey)) add(v, "key-mismatch", "the log names another platform key than the one given; checking the signature against the key given");
    key = opts.publicKey;
    v.keyPinned = true;
  } else if (opts.keys) {
    if (key !== null && named.has(toHex(key))) v.keyPinned = true;
    else if (key !== null) add(v, "key-mismatch", `the log's key ${await keyId(key)} is none of the ${named.size} platform keys given`);
  }
  if (key !== null) {
    v.keyId = await keyId(key);
    v.signer = named.get(toHex(key)) ?? null;
    if (v.signer !== null) {
      v.signerScripts = nameScripts(v.signer);
      if (v.signerScripts.length > 1) v.notes.push(`the platform name ${pyStr(v.signer)} in the keys file mixes ${v.signerScripts.join(" and ")} letters: a name written to look like another platform's would too`);
    }
  }
  v.checkedTo = log.signedBytes.length;
  if (log.signature === null) {
    v.signature = "absent";
    if (log.end !== null) add(v, "unsigned", "the log ends without the platform's signature", { offset: log.endOffset });
    return;
  }
  if (key === null) {
    add(v, "unsigned", "there is no public key to check the signature against", { offset: log.signatureOffset });
    return;
  }
  const weak = weakKey(key);
  if (weak !== null) {
    v.signature = "weak-key";
    add(v, "weak-key", `weak Ed25519 public key ${hex16(key)}…: ${weak}: a signature under it proves nothing`, { offset: log.signatureOffset });
    return;
  }
  if (await ed25519Verify(key, log.signedBytes, log.signature)) {
    v.signatureVerified = true;
    return;
  }
  v.signature = "broken";
  const at = log.size - log.zeroTail;
  const so = log.signatureOffset!;
  if (log.zeroTail >= 4 && so < at && at < so + 68) {
    add(v, "broken-signature", `the signature does not cover the log: it ends in ${log.zeroTail} zero bytes from byte ${at}, as a torn write leaves it; torn by a crash or by someone who changed the log, it proves nothing of the ${v.checkedTo} bytes before it`, { offset: at });
    return;
  }
  add(v, "broken-signature", "the signature does not match the log: its bytes were changed after signing, or another key signed it", { offset: log.signatureOffset });
}

async function checkSeeds(log: ParsedLog, v: Verdict, opts: Options, cache: Map<number, number[]>): Promise<Source> {
  const h = log.header;
  const none = (why: string): Source => ({ deriver: null, noDeal: why, decks: cache });
  const given = opts.serverSeed ?? null;
  const root = opts.root ?? null;
  if (root !== null && (h.batch === null || !constantTimeEqual(h.batch.root, root))) {
    add(v, "batch-proof", `the log does not place the match in the published season root ${hex16(root)}…${h.batch === null ? "" : ` (it names root ${hex16(h.batch.root)}…)`}`);
  } else if (h.batch !== null && root === null) v.notes.push("the season root named in the log was not compared with the published one; pass it to pin it");
  if (h.serverCommitment === null) {
    const stray = ([["a season proof", h.batch], ["client commitments", h.clientCommitments],
      ["client seeds", h.clientSeeds], ["a server seed", log.end?.serverSeed ?? null]] as const)
      .filter(([, x]) => x !== null).map(([n]) => n);
    if (stray.length) add(v, "not-canonical", `the log has no server commitment, but carries ${stray.join(", ")}: a log without the seed protocol has nil there`, { offset: 0 });
    if (given !== null) add(v, "server-seed", "a server seed was given to the verifier, but the log commits to no server seed: the seed and the log are not of one match", { offset: 0 });
    if (h.blind) add(v, "wrong-first-dealer", `the log is dealt blind but commits to no seeds, which draw the first dealer: seat ${h.firstDealer} dealing first is the platform's word alone`, { seat: h.firstDealer, offset: 0 });
    return none(NO_DEAL);
  }
  let seed = log.end?.serverSeed ?? null;
  if (seed === null && given !== null) {
    seed = given;
    v.notes.push("the server seed is not in the log: it was given to the verifier");
  } else if (seed !== null && given !== null && !constantTimeEqual(seed, given)) {
    add(v, "server-seed", "the server seed given to the verifier is not the one the log reveals: they cannot both be this match's seed", { offset: log.endOffset });
  } else if (seed !== null && given !== null) v.notes.push("the server seed given to the verifier is the one the log reveals");
  if (seed === null) {
    const why = log.end === null ? "the log ends before its end record" : "the end record does not reveal it";
    add(v, "seed-not-revealed", `the server seed is not revealed (${why}), so the deals cannot be re-derived`, { offset: log.endOffset });
    return none(`the server seed is not revealed (${why}), so the deal cannot be derived`);
  }
  if (!constantTimeEqual(await serverCommitment(seed), h.serverCommitment)) {
    add(v, "server-seed", "the revealed server seed does not match the commitment published before play", { offset: log.endOffset });
    return none("the revealed server seed does not match its commitment, so the deal cannot be derived");
  }
  const leaf = h.batch === null ? null : { index: h.batch.index, size: h.batch.size, root: h.batch.root };
  if (h.batch !== null && leaf !== null) {
    if (!await verifyInclusion(h.serverCommitment, leaf.index, leaf.size, h.batch.path, leaf.root)) {
      add(v, "batch-proof", `the commitment is not match ${leaf.index} of the published root ${hex16(leaf.root)}…: its inclusion proof does not lead there`);
    }
    const key = opts.publicKey ?? h.publicKey;
    if (key === null || weakKey(key) !== null
        || !await ed25519Verify(key, seasonHeadMessage(leaf.size, leaf.root), h.batch.headSignature)) {
      add(v, "batch-proof", `the season head (size ${leaf.size}, root ${hex16(leaf.root)}…) is not signed by the platform's key: the size and root are not the ones published`);
    }
  }
  if (h.clientSeeds === null || h.clientCommitments === null) {
    add(v, "client-seed", "the log lacks the client seeds or their commitments, so the deals cannot be re-derived");
    return none("the log lacks the client seeds, so the deal cannot be derived");
  }
  const binding = await matchBinding(h.serverCommitment, leaf);
  for (let s = 0; s < 4; s++) {
    const made = await clientCommitment(binding, h.matchId, s, h.clientSeeds[s]!);
    if (!constantTimeEqual(made, h.clientCommitments[s]!)) {
      add(v, "client-seed", `seat ${s}'s client seed does not match the commitment it made before the seeds were revealed, for this match and this binding`, { seat: s });
    }
  }
  return { deriver: await Deriver.create(seed, h.matchId, h.clientSeeds, binding), noDeal: "", decks: cache };
}

/** The cards of each seat of a recorded deal's masks; a reason when they are no deal. */
function recordedDeal(masks: number[], dealer: number, thirteenth: number | null, needs: boolean): [number[][], string | null] {
  const hands: number[][] = masks.map((m) => {
    const cards: number[] = [];
    let x = BigInt(m);
    for (let c = 0; x; c++, x >>= 1n) if (x & 1n) cards.push(c);
    return cards;
  });
  const seen = new Set<number>();
  for (let s = 0; s < 4; s++) {
    if (hands[s]!.length !== 13) return [hands, `seat ${s} was dealt ${hands[s]!.length} cards, not 13`];
    for (const c of hands[s]!) {
      if (seen.has(c)) return [hands, `seat ${s} was dealt ${cardName(c)}, dealt to another seat too`];
      seen.add(c);
    }
  }
  if (thirteenth === null) return [hands, needs ? "the dealer's 13th card is missing" : null];
  if (!hands[dealer]!.includes(thirteenth)) return [hands, `the dealer's 13th card ${cardName(thirteenth)} is not in the dealer's hand`];
  return [hands, null];
}

const CALL_KINDS: Record<string, string> = {
  "bid-range": "bid-out-of-range", "bid-minimum": "bid-below-minimum", "bid-not-higher": "bid-not-higher",
  "wrong-phase": "pass-not-allowed",
};

class HandReplay {
  drift = [0, 0, 0, 0];
  replayed = 0;
  played = 0;
  recorded = 0;
  missing: [number, number, string][] = [];
  atLastMove = false;
  private rec!: HandRecord;
  private n = 0;
  private move = 0;

  constructor(private state: Match, private v: Verdict, private source: Source) {}

  run(rec: HandRecord): void {
    const { state, v } = this;
    const n = state.dealNumber;
    this.rec = rec;
    this.n = n;
    if (rec.dealNumber !== n) add(v, "wrong-deal-number", `the log numbers this dealing attempt ${rec.dealNumber}, but it is attempt ${n}`, { hand: n, offset: rec.offset });
    if (rec.dealer !== state.dealer) add(v, "wrong-dealer", `seat ${rec.dealer} dealt, but it was seat ${state.dealer}'s deal`, { hand: n, seat: rec.dealer, offset: rec.offset });
    let dealt = false;
    try {
      this.deal();
      dealt = true;
      this.bidding();
      if (state.phase === Phase.DEAL || state.phase === Phase.OVER) this.cancelledClaims();
      else {
        this.play();
        if (rec.closed) {
          this.claims();
          this.played++;
        }
      }
    } catch (e) {
      if (e instanceof LogStops) {
        this.replayed++;
        this.atLastMove = true;
        return;
      }
      if (!(e instanceof Abandon)) throw e;
      if (rec.closed) this.resync();
      else if (dealt) this.replayed++;
      return;
    }
    this.replayed++;
    this.atLastMove = !rec.closed;
    if (rec.timer) this.timerMarks(state.history[state.history.length - 1]!);
  }

  private where(extra: Where = {}): Where {
    return { hand: this.n, offset: this.rec.offset, ...extra };
  }

  /** A blind hand (PROTOCOL.md §13.4): its transcript checked, dealt the hands it proves. */
  private blindDeal(blind: BlindChecker): void {
    const { state, rec, v, n } = this;
    if (rec.deal !== null) add(v, "not-canonical", "a hand dealt blind writes out a deal; FORMAT.md has nil there", this.where());
    const shows = reveals(state.rules);
    const bh = blind.check(rec.blind, rec, n, state.dealer, shows, rec.offset);
    if (bh !== null && bh.waiting !== null) throw new Abandon(); // the deal stopped (§13.8): nothing to replay
    if (bh === null || bh.hands === null || (shows && bh.thirteenth === null)) {
      this.missing.push([n, rec.offset, "its blind deal does not give four hands"]);
      throw new Abandon();
    }
    if (!bh.proven) {
      if (rec.plays.length || (state.rules.trump === "named" && rec.trump !== null)) {
        this.missing.push([n, rec.offset, SECRET_HAND]);
        throw new Abandon();
      }
      blind.secretCancelled.push(n);
    }
    const thirteenth = shows ? bh.thirteenth : null;
    state.deal(bh.hands, thirteenth);
    if (!shows) {
      if (rec.revealed !== null) add(v, "wrong-revealed-card", `the log reveals ${cardName(rec.revealed)}, but ${state.rules.name} reveals no card`, this.where());
    } else if (rec.revealed !== thirteenth) {
      add(v, "wrong-revealed-card", "the revealed card is not the one opened", this.where({ seat: state.dealer }));
    }
  }

  private deal(): void {
    const { state, rec, v, n } = this;
    if (this.source.blind) {
      this.blindDeal(this.source.blind);
      return;
    }
    let hands: number[][];
    let thirteenth: number | null;
    const deck = this.source.deriver !== null ? this.source.decks.get(n) : undefined;
    if (deck !== undefined) {
      hands = [[], [], [], []];
      deck.forEach((c, p) => hands[(state.dealer + 1 + p) & 3]!.push(c));
      thirteenth = deck[51]!;
      if (rec.deal !== null) {
        const [mine] = recordedDeal(rec.deal.masks, state.dealer, rec.deal.thirteenth, false);
        const same = mine.every((cs, s) => [...cs].sort((a, b) => a - b).join() === [...hands[s]!].sort((a, b) => a - b).join())
          && rec.deal.thirteenth === thirteenth;
        if (!same) add(v, "wrong-deal", "the recorded deal is not the one the committed seeds produce", this.where());
        else add(v, "not-canonical", "the record writes out the deal the seeds derive; FORMAT.md has nil there", this.where());
      }
    } else if (rec.deal !== null) {
      const [mine, problem] = recordedDeal(rec.deal.masks, state.dealer, rec.deal.thirteenth, reveals(state.rules));
      if (problem !== null) {
        add(v, "bad-deal", `the recorded deal is not a deal: ${problem}`, this.where());
        throw new Abandon();
      }
      hands = mine;
      thirteenth = rec.deal.thirteenth;
      this.recorded++;
    } else {
      this.missing.push([n, rec.offset, this.source.noDeal || NO_DEAL]);
      throw new Abandon();
    }
    state.deal(hands, thirteenth);
    if (!reveals(state.rules)) {
      if (rec.revealed !== null) add(v, "wrong-revealed-card", `the log reveals ${cardName(rec.revealed)}, but ${state.rules.name} reveals no card`, this.where());
    } else if (rec.revealed !== thirteenth) {
      const shown = rec.revealed !== null ? cardName(rec.revealed) : "no card";
      add(v, "wrong-revealed-card", `the log reveals ${shown}, but the dealer's 13th card is ${thirteenth === null ? "none" : cardName(thirteenth)}`,
        this.where({ seat: state.dealer, card: shown }));
    }
  }

  private timerCheck(move: number, action: number, trick: number | null = null): void {
    const { state } = this;
    if (this.rec.timer !== 0n && (this.rec.timer >> BigInt(move)) & 1n) {
      const allowed = state.timerActions();
      if (!allowed.includes(action)) {
        add(this.v, "wrong-timer-move", `the timer's move was ${describe(action)}, but the rules' automatic move is ${allowed.map(describe).join(", ")}`,
          this.where({ trick, seat: state.current, card: action < 52 ? cardName(action) : null }));
      }
    }
  }

  private bidding(): void {
    const { state, rec, v } = this;
    let move = 0;
    for (const [seat, code] of rec.calls) {
      if (state.phase !== Phase.BID) {
        add(v, "bidding-overrun", `seat ${seat}'s call comes after the bidding had ended`, this.where({ seat }));
        break;
      }
      const action = code === 15 ? PASS : BID + code;
      if (seat !== state.current) {
        add(v, "bid-out-of-turn", `seat ${seat} made a call (${describe(action)}) when it was seat ${state.current}'s turn`, this.where({ seat }));
        throw new Abandon();
      }
      this.timerCheck(move, action);
      move++;
      const problem = state.check(action);
      if (problem !== null) {
        const noBid = action === PASS || problem.kind === "wrong-phase";
        add(v, noBid ? "pass-not-allowed" : CALL_KINDS[problem.kind] ?? "bid-out-of-range", problem.message, this.where({ seat }));
        if (noBid || (state.rules.bidding === "personal" && !(code >= 2 && code <= 13))) throw new Abandon();
      }
      state.applyUnchecked(action);
    }
    if (state.phase === Phase.BID) {
      // the log stops in the bidding; a trump named or a card played after it is a move the
      // bidding never allowed, open hand or not
      if (!rec.closed && !rec.plays.length && rec.trump === null) throw new LogStops();
      add(v, "bidding-incomplete", `the bidding stops before it is over: seat ${state.current} has not called`, this.where({ seat: state.current }));
      throw new Abandon();
    }
    this.move = move;
  }

  private cancelledClaims(): void {
    const { rec, v, state } = this;
    const hand = state.history[state.history.length - 1]!;
    if (rec.plays.length) {
      const bids = hand.calls.filter(([, a]) => a !== PASS).map(([, a]) => a - BID);
      const why = state.rules.bidding === "auction" ? "all four passed"
        : `the bids total ${bids.reduce((a, b) => a + b, 0)}, below the minimum of ${lowestTotal(state.rules, Math.max(...hand.totals!))}`;
      add(v, "played-when-cancelled", `the hand was played although ${why}: it does not count`, this.where());
    }
    if (!rec.closed) { // the hand a log stops in: its moves are checked, it has no claims
      // a trump named after the bidding cancelled the hand
      if (rec.trump !== null) add(v, "not-canonical", "the hand is cancelled, but its record carries a trump; FORMAT.md has nil there for a cancelled hand", this.where());
      return;
    }
    if (rec.scores !== null && rec.scores.some((x) => x !== 0)) add(v, "wrong-hand-score", "the log scores a cancelled hand", this.where());
    const extra = ([["a trump", rec.trump], ["trick counts", rec.tricks], ["hand scores", rec.scores]] as const)
      .filter(([, x]) => x !== null).map(([w]) => w);
    if (extra.length) add(v, "not-canonical", `the hand is cancelled, but its record carries ${extra.join(" and ")}; FORMAT.md has nil there for a cancelled hand`, this.where());
    this.compareTotals(rec.totals!, hand.totals!);
  }

  private timerMarks(hand: Hand): void {
    const moves = this.rec.calls.length + this.rec.plays.length + (hand.declarer !== null ? 1 : 0);
    const extra = this.rec.timer >> BigInt(moves);
    if (extra) {
      const marks: number[] = [];
      for (let i = 0; extra >> BigInt(i); i++) if ((extra >> BigInt(i)) & 1n) marks.push(moves + i);
      const shown = marks.slice(0, 5).join(", ") + (marks.length > 5 ? " …" : "");
      add(this.v, "not-canonical", `the timer marks move(s) ${shown}, but the hand has only ${moves} moves (0-${moves - 1})`, this.where());
    }
  }

  private play(): void {
    const { state, rec, v, n } = this;
    let move = this.move;
    if (state.phase === Phase.TRUMP) {
      if (rec.trump === null) {
        if (!rec.closed && !rec.plays.length) throw new LogStops();
        add(v, "wrong-trump", "the auction winner named no trump", this.where({ seat: state.current }));
        throw new Abandon();
      }
      this.timerCheck(move, TRUMP + rec.trump);
      move++;
      state.applyUnchecked(TRUMP + rec.trump);
    } else if (rec.closed && rec.trump !== state.trump) {
      add(v, "wrong-trump", `the log gives ${rec.trump !== null ? SUITS[rec.trump] : "none"} as trump, but the rules give ${SUITS[state.trump!]}`, this.where());
    }
    if (!rec.plays.length) {
      if (!rec.closed) throw new LogStops();
      add(v, "cancelled-wrongly", `the hand was not played, but the bids total ${state.hand!.calls.filter(([, a]) => a !== PASS).reduce((t, [, a]) => t + a - BID, 0)}, enough to play`, this.where());
      throw new Abandon();
    }
    const plays = rec.plays;
    for (let k = 0; k < plays.length; k++) {
      const card = plays[k]!;
      const trick = Math.floor(k / 4) + 1;
      this.timerCheck(move + k, card, trick);
      const problem: Illegal | null = state.check(card);
      if (problem === null) {
        state.applyUnchecked(card);
        continue;
      }
      const seat = state.current!;
      const where = this.where({ trick, seat, card: cardName(card) });
      if (problem.kind === "renege") {
        add(v, "renege", `renege: ${problem.message}`, where);
        state.applyUnchecked(card);
        continue;
      }
      const owner = state.holder[card]!;
      if (owner < 0) {
        const first = state.hand!.plays.indexOf(card);
        add(v, "card-already-played", `${cardName(card)} was already played${first >= 0 ? ` in trick ${Math.floor(first / 4) + 1}` : ""}, and is played again in trick ${trick}`, where);
      } else if (k % 4 === 0 && k > 0) {
        add(v, "wrong-trick-winner", `trick ${trick} is led with ${cardName(card)}, seat ${owner}'s card, but seat ${seat} won trick ${trick - 1} and leads: the trick was given to the wrong seat, or seat ${owner} played out of turn`, where);
      } else if (((owner - state.leader) & 3) < state.trick.length) {
        add(v, "card-not-held", `seat ${seat} played ${cardName(card)}, which it does not hold: it is seat ${owner}'s, who has already played to this trick`, where);
      } else {
        add(v, "played-out-of-turn", `${cardName(card)} is seat ${owner}'s card, played when it was seat ${seat}'s turn`, where);
      }
      throw new Abandon();
    }
    if (plays.length < 52) {
      if (!rec.closed) throw new LogStops();
      add(v, "hand-incomplete", `the hand stops after ${plays.length} of 52 cards`, this.where({ trick: Math.floor(plays.length / 4) + 1 }));
      throw new Abandon();
    }
    void n;
  }

  private compare(kind: string, what: string, claimed: number[] | null, actual: number[]): void {
    if (claimed !== null && claimed.every((x, s) => x === actual[s])) return;
    if (claimed === null) {
      add(this.v, kind, `the log claims no ${what}s`, this.where());
      return;
    }
    for (let s = 0; s < 4; s++) {
      if (claimed[s] !== actual[s]) add(this.v, kind, `the log claims a ${what} of ${claimed[s]} for seat ${s}, the rules give ${actual[s]}`, this.where({ seat: s }));
    }
  }

  private claims(): void {
    const hand = this.state.history[this.state.history.length - 1]!;
    this.compare("wrong-trick-count", "trick count", this.rec.tricks, hand.tricks);
    this.compare("wrong-hand-score", "hand score", this.rec.scores, hand.scores!);
    this.compareTotals(this.rec.totals!, hand.totals!);
  }

  private compareTotals(claimed: number[], actual: number[]): void {
    const drift = claimed.map((c, s) => c - actual[s]!);
    for (let s = 0; s < 4; s++) {
      if (drift[s] && drift[s] !== this.drift[s]) {
        const carried = this.drift[s] ? ` (it was already off by ${this.drift[s]})` : "";
        add(this.v, "wrong-total", `the log claims a running total of ${claimed[s]} for seat ${s}, the rules give ${actual[s]}${carried}`, this.where({ seat: s }));
      }
    }
    this.drift = drift;
  }

  private resync(): void {
    const { state } = this;
    if (state.hand === null && this.n !== state.dealNumber) return;
    const before = [...state.totals];
    state.finishWith(this.rec.totals!.map((t, s) => t - before[s]!));
    this.drift = [0, 0, 0, 0];
    const last = this.missing[this.missing.length - 1];
    if (!last || last[0] !== this.n) this.v.notes.push(`hand ${this.n} could not be replayed to its end; the rest of the match is checked from the totals the log claims after it`);
  }
}
