/**
 * The platform's recorder for Node servers: a match's log written move by move, from plain
 * values, the same bytes as the Python `tarneeb.MatchRecorder` (docs/PLATFORM.md walks
 * through a whole match; docs/FORMAT.md gives every byte).
 *
 * The server calls it as the match happens — the seats, the rules and the commitments once
 * (`MatchRecorder.create`); each deal; each call, trump and card as it is made; its own
 * claims when a hand closes; the end — and each value is appended to the file at once, with
 * the durability asked for, and signed at the end with Ed25519 (WebCrypto). It checks the
 * order of the calls (a card before a deal, a claim twice) and the range of each value,
 * never the rules, and never computes a claim: `tarneeb verify` judges them. A call out of
 * order or out of range throws {@link RecorderError} and writes nothing; each record is read
 * back as the reader reads it before it is written (recorder-values.ts), so no call leaves a
 * value the verifiers refuse, or bytes other than the ones given.
 *
 * A match dealt blind (`dealing: "blind"`, docs/PROTOCOL.md §13) is recorded as the seats
 * publish it: each deal's public transcript with its deal record, each card with its proof,
 * the keys the seats reveal after the end. `MatchRecorder.resume` takes a log up again after
 * a crash (resume.ts says what it reads and cuts).
 *
 * One recorder per log: from `create` or `resume` until `sign` or `close` the recorder holds
 * the log's lock, the Python recorder's (`flock`, filelock.ts), which the system drops when
 * the process dies, however it dies; a second recorder, in Node or in Python, is refused
 * with a RecorderError and leaves the file as it is.
 */
import { closeSync, constants, fstatSync, ftruncateSync, openSync, unlinkSync } from "node:fs";
import { type Bytes, concat, constantTimeEqual } from "../text/bytes.js";
import {
  type AbandonCause, ABANDON_CAUSES, type BlindDealTranscript, type Card, RecorderError, type RevealedKeysOptions, type Suit,
  blindList, bytesList, bytesOf, four, keysLists, parseCard, parseSuit, recordBytes, seatOf, seatsOf, textOf,
} from "./recorder-values.js";
import { cardName } from "../rules/engine.js";
import { resumePoint } from "./resume.js";
import { held, lockLog } from "./filelock.js";
import { errnoWords } from "../text/errno.js";
import { shown } from "../text/names.js";
import { PRESETS, RulesError, type RuleSet, presetDepartures, rulesFromMap, rulesMap } from "../rules/rules.js";
import { type Durability, LogWriter, encodeMove, encodeValue, parseDurability, syncDirectory } from "../log/writer.js";
import { type SigningKey, signBytes } from "./platform.js";
import { createHash } from "node:crypto";
import { SERVER_COMMIT_TAG } from "../protocol/derive.js";
import { ed25519Verify } from "../protocol/crypto.js";

export {
  ABANDON_CAUSES, RecorderError, parseCard, parseSuit, type AbandonCause, type BlindDealTranscript, type Card,
  type RevealedKeysOptions, type Suit,
} from "./recorder-values.js";
export { cardName } from "../rules/engine.js";

const MAX_REASON = 1024;
const SCORE_LIMIT = 2 ** 31;
const CARD_MOVE = 1, TRUMP_MOVE = 56, CALL_MOVE = 64, TIMER_MOVE = 128, PASS_CODE = 15;
const HEADER = 0, DEAL = 1, END = 2, SIGNATURE = 3, CLAIMS = 4, PROOF = 6, KEYS = 7;

/** Where a match's server commitment stands in a committed season (docs/PROTOCOL.md §4.2). */
export interface SeasonProof {
  /** the leaf's index in the season's tree */
  index: number;
  /** the tree's number of leaves */
  size: number;
  /** the RFC 6962 inclusion path, leaf to root */
  path: Bytes[];
  root: Bytes;
  /** the platform's Ed25519 signature of the season head */
  headSignature: Bytes;
}

/** One seat: a name, and whether a computer plays it. */
export interface SeatInfo {
  name: string;
  computer: boolean;
}

/** What {@link MatchRecorder.create} needs: the header of the log. */
export interface MatchRecorderOptions {
  /** the log's path: the file is created, and must not exist */
  path: string;
  /** a preset's name (`"eram41"`, `"qahwa41"`, `"sahrat41"`, `"sahrat400"`, `"classic"`) or a rule set */
  rules: string | RuleSet;
  /** four seats in play order: names (humans), or `{ name, computer }` */
  seats: readonly (string | SeatInfo)[];
  /** the match id, the bytes that enter every deal */
  matchId: Bytes;
  /** the seat that deals first (0–3): `MatchSeeds.firstDealer()` for a match on the seed protocol */
  firstDealer: number;
  /** the platform's raw 32-byte Ed25519 public key, written into the header */
  publicKey?: Bytes | null;
  /** the server seed's commitment (the seed protocol); null for a platform that records its deals */
  serverCommitment?: Bytes | null;
  /** the four seats' client commitments */
  clientCommitments?: readonly Bytes[] | null;
  /** the four client seeds, revealed before the first deal */
  clientSeeds?: readonly Bytes[] | null;
  /** where the server commitment stands in a committed season */
  season?: SeasonProof | null;
  /** `"flush"` (default), `"fsync"` or `"group:MS"`: see writer.ts and docs/PLATFORM.md */
  durability?: Durability | string;
  /** `"seeds"` (default: the seed protocol, or deals recorded), or `"blind"`: a match dealt blind (PROTOCOL.md §13) */
  dealing?: "seeds" | "blind";
}

/** What {@link MatchRecorder.resume} needs. */
export interface ResumeOptions {
  /** the log a crashed or restarted server left */
  path: string;
  /** the durability from now on */
  durability?: Durability | string;
  /** a match on the seed protocol: its server seed, to judge the log's last values by the rules too */
  serverSeed?: Bytes | null;
}


/** A new dealing attempt. */
export interface DealOptions {
  /** the seat that deals (0–3) */
  dealer: number;
  /** the card shown to all, in rules that reveal the dealer's 13th card (eram41, sahrat41) */
  revealed?: Card | null;
  /** a platform without the seed protocol: the four hands by seat (13 cards each) */
  hands?: readonly (readonly Card[])[] | null;
  /** with `hands`: the dealer's 13th card */
  thirteenth?: Card | null;
  /** a match dealt blind: the deal's public transcript, written right after the deal record */
  blind?: BlindDealTranscript | null;
}

export interface CallOptions {
  seat: number;
  /** a bid 0–13, or `"pass"` (the classic auction) */
  bid: number | "pass";
  /** the turn timer made the call */
  timer?: boolean;
}

export interface TrumpOptions {
  /** the suit the auction winner names (rules whose trump is named: classic) */
  suit: Suit;
  timer?: boolean;
}

export interface PlayOptions {
  /** the card played by the seat on turn (who it is follows from the deal and the rules) */
  card: Card;
  timer?: boolean;
  /** a match dealt blind: the seat's `[position, proof]` that the card is the one dealt to it there */
  proof?: readonly [number, Bytes] | null;
}

/** The platform's claims that close a hand: its own figures, which `tarneeb verify` checks. */
export interface ClaimOptions {
  /** the running totals per seat after the hand (team games: the team's total on both partners) */
  totals: readonly number[];
  /** a played hand: tricks per seat (absent for a cancelled hand) */
  tricks?: readonly number[] | null;
  /** a played hand: the hand's score per seat (team games: the team's on both partners) */
  scores?: readonly number[] | null;
  /** the trump, where the rules derive it (not in rules that name it by a move; absent for a cancelled hand) */
  trump?: Suit | null;
}

export interface FinishOptions {
  /** the winning team: 0 (seats 0 and 2) or 1 (seats 1 and 3) */
  winner: 0 | 1;
  /** the server seed, revealed (null for a platform that records its deals) */
  serverSeed: Bytes | null;
}

export interface AbandonOptions {
  cause: AbandonCause;
  /** the seat that left; null for a server fault */
  seat: number | null;
  /** the platform's reason, at most 1024 characters */
  reason: string;
  /** the server seed, revealed all the same, so every move made can be checked */
  serverSeed: Bytes | null;
}

interface OpenHand { calls: number; plays: number; trumpNamed: boolean; number: number }

/** Writes one match's signed log as it is played: see the module's comment. */
/** SHA-256, at once (the end record is written as it is called). */
const nodeSha256 = (data: Bytes): Bytes => new Uint8Array(createHash("sha256").update(data).digest());

/** A call's options object, or RecorderError (a call given none, or something else, threw
 *  TypeError from inside the recorder). */
function optionsOf<T>(options: T, call: string): T {
  if (typeof options !== "object" || options === null) throw new RecorderError(`${call} takes one options object`);
  return options;
}

export class MatchRecorder {
  /** moves written in the hand in progress */
  moves = 0;
  private hand: OpenHand | null = null;
  private deals = 0;
  private ended = false;
  private signed = false;

  /** what {@link resume} cut off the log (null: nothing) */
  cut: string | null = null;

  /** the header's server commitment and public key: what the end record and the signature answer to */
  private commitment: Bytes | null = null;
  private publicKey: Bytes | null = null;

  private constructor(readonly path: string, readonly rules: RuleSet, readonly writer: LogWriter, readonly blind: boolean) {}

  /** Create the log file and write its header (synced, with its directory entry, in fsync and group modes). */
  static create(options: MatchRecorderOptions): MatchRecorder {
    const o = options;
    let rules: RuleSet;
    try {
      if (typeof o.rules === "string") {
        const p = PRESETS[o.rules];
        if (p === undefined) throw new RulesError(`no preset named ${JSON.stringify(o.rules)}: ${Object.keys(PRESETS).join(", ")}`);
        rules = p;
      } else {
        rules = rulesFromMap(rulesMap(o.rules));
      }
    } catch (e) {
      throw new RecorderError(`rules: ${(e as Error).message}`);
    }
    const departs = presetDepartures(rules);
    if (departs.length) {
      throw new RecorderError(`rules: rules named ${rules.name} depart from that preset beyond its house options (${departs.join(", ")}): give them a name of their own`);
    }
    const seats = seatsOf(o.seats);
    let durability: Durability;
    try {
      durability = parseDurability(o.durability ?? "flush");
    } catch (e) {
      throw new RecorderError((e as Error).message);
    }
    const firstDealer = seatOf(o.firstDealer, "firstDealer");
    const dealing = o.dealing ?? "seeds";
    if (dealing !== "seeds" && dealing !== "blind") throw new RecorderError(`dealing is "seeds" or "blind", not ${JSON.stringify(dealing)}`);
    const blind = dealing === "blind";
    if (blind && (o.serverCommitment === null || o.serverCommitment === undefined)) {
      throw new RecorderError("a match dealt blind commits to seeds too (serverCommitment, clientSeeds): they draw its first dealer");
    }
    const b = o.season ?? null;
    if (b !== null && (typeof b !== "object" || !Array.isArray(b.path))) throw new RecorderError("season must be { index, size, path, root, headSignature }, path a list");
    // read back as the reader reads a log's header: nothing unreadable is written
    const header = recordBytes("header", [HEADER, "tarneeb-log", 3, rulesMap(rules), seats.map((s) => [s.name, s.computer]),
      bytesOf(o.matchId, "matchId"), bytesOf(o.serverCommitment, "serverCommitment", true),
      b === null ? null : [b.index, b.size, b.path.map((p) => bytesOf(p, "season path")), bytesOf(b.root, "season root"), bytesOf(b.headSignature, "season headSignature")],
      bytesList(o.clientCommitments, "clientCommitments"), bytesList(o.clientSeeds, "clientSeeds"), firstDealer,
      bytesOf(o.publicKey, "publicKey", true), ...(blind ? ["blind"] : [])]);
    let fd: number;
    try {
      fd = openSync(o.path, "wx"); // a log is never overwritten
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "EEXIST") { // the Python recorder's words
        throw new RecorderError(`${shown(o.path)} exists: a recorder never writes over a log (resume a log a crash cut short with MatchRecorder.resume)`);
      }
      throw new RecorderError(`cannot create ${o.path}: ${(e as Error).message}`);
    }
    if (lockLog(fd) === "held") { // another recorder resumed the file just made: it is that one's
      closeSync(fd);
      throw new RecorderError(held(o.path));
    }
    const writer = new LogWriter(fd, durability);
    try {
      writer.append(header);
    } catch (e) { // nothing of the match was written: no file left behind to block a new start
      try {
        writer.close();
      } catch {
        // closed all the same
      }
      try {
        unlinkSync(o.path);
      } catch {
        // gone already
      }
      throw e;
    }
    if (durability.mode !== "flush") syncDirectory(o.path); // else a power loss may lose the file whole
    const rec = new MatchRecorder(o.path, rules, writer, blind);
    rec.commitment = bytesOf(o.serverCommitment, "serverCommitment", true);
    rec.publicKey = bytesOf(o.publicKey, "publicKey", true);
    return rec;
  }

  /**
   * Go on with the log a crashed or restarted server left (the Python `MatchRecorder.resume`):
   * what follows its last whole value is cut off and the file truncated there — a torn
   * value, a zero-filled tail, bytes no writer writes; dealt blind, a deal record without
   * its blind record and a card without its proof (the server writes them again, whole);
   * given the server seed, also the last values that break the rules, as `verify` judges
   * them. `cut` says what was cut. The recorder stands where the log stops — in the hand it
   * stops in, with the moves it has — so the server goes on, or ends the match (`abandon`
   * with `server-fault`, the seed revealed) and signs it. Refused (RecorderError): a log that
   * cannot be read, or is signed, or that another recorder holds (its lock: the file is left
   * as it is).
   */
  static async resume(options: ResumeOptions): Promise<MatchRecorder> {
    optionsOf(options, "resume()");
    if (typeof options.path !== "string") throw new RecorderError("resume() takes the log's path as a string");
    let durability: Durability;
    try {
      durability = parseDurability(options.durability ?? "flush");
    } catch (e) {
      throw new RecorderError((e as Error).message);
    }
    const seed = bytesOf(options.serverSeed, "serverSeed", true);
    if (seed !== null && seed.length !== 32) throw new RecorderError(`serverSeed must be 32 bytes, not ${seed.length}`);
    let fd: number;
    const name = shown(options.path);
    try { // appends at the end, once truncated; never creates the file; a FIFO not waited on
      fd = openSync(options.path, constants.O_WRONLY | constants.O_APPEND | constants.O_NONBLOCK);
    } catch (e) { // a log that cannot be read says so first, as before
      // (ENXIO: a FIFO no process reads, a socket; anything else in the C library's words)
      const why = (e as NodeJS.ErrnoException).code === "ENXIO" ? "not a regular file" : errnoWords(e);
      throw new RecorderError(`cannot go on with ${name}: ${why}`);
    }
    let at: Awaited<ReturnType<typeof resumePoint>>;
    try { // the file locked first: read, judged and cut by this recorder alone
      if (!fstatSync(fd).isFile()) throw new RecorderError(`cannot go on with ${name}: not a regular file`);
      if (lockLog(fd) === "held") throw new RecorderError(held(options.path));
      at = await resumePoint(options.path, seed);
      if (typeof at === "string") throw new RecorderError(at);
      try {
        ftruncateSync(fd, at.keep);
      } catch (e) {
        throw new RecorderError(`cannot go on with ${options.path}: ${(e as Error).message}`);
      }
    } catch (e) { // closed: the lock goes with it
      closeSync(fd);
      throw e;
    }
    const { log, keep } = at;
    const writer = new LogWriter(fd, durability, log.signedBytes.slice(0, keep));
    if (durability.mode !== "flush") { // the cut, on disk before anything is appended to it
      writer.sync();
      syncDirectory(options.path);
    }
    const rec = new MatchRecorder(options.path, log.header.rules, writer, log.header.blind);
    rec.commitment = log.header.serverCommitment;
    rec.publicKey = log.header.publicKey;
    rec.cut = at.cut;
    const last = log.hands[log.hands.length - 1];
    const named = rec.rules.trump === "named";
    if (last !== undefined && !last.closed && log.end === null) {
      const trumpNamed = named && last.trump !== null;
      rec.hand = { calls: last.calls.length, plays: last.plays.length, trumpNamed, number: last.dealNumber };
      rec.moves = last.calls.length + last.plays.length + (trumpNamed ? 1 : 0);
    }
    rec.deals = log.hands.length;
    rec.ended = log.end !== null;
    return rec;
  }

  private open(what: string): OpenHand {
    if (this.ended) throw new RecorderError(`${what} after the end of the match`);
    if (this.hand === null) throw new RecorderError(`${what} before the hand's deal (call deal() first)`);
    return this.hand;
  }

  private move(code: number, timer: boolean | undefined): number {
    const offset = this.writer.appendValue(code | (timer ? TIMER_MOVE : 0));
    this.moves += 1;
    return offset;
  }

  /** A new dealing attempt: returns the byte offset of its deal record. */
  deal(options: DealOptions): number {
    optionsOf(options, "deal()");
    if (this.ended) throw new RecorderError("a deal after the end of the match");
    if (this.hand !== null) throw new RecorderError(`a deal while hand ${this.hand.number + 1} is open: claim() closes it`);
    const dealer = seatOf(options.dealer, "dealer");
    const revealed = options.revealed === null || options.revealed === undefined ? null : parseCard(options.revealed, "revealed");
    let recorded: (number | null)[] | null = null;
    if (options.hands !== null && options.hands !== undefined) {
      const { hands } = options;
      if (!Array.isArray(hands) || hands.length !== 4 || !hands.every((h) => Array.isArray(h))) throw new RecorderError("hands must be four lists of cards, by seat");
      const seen = new Set<number>();
      const masks = hands.map((h) => {
        let mask = 0;
        for (const c of h) {
          const n = parseCard(c);
          if (seen.has(n)) throw new RecorderError(`the card ${cardName(n)} is dealt twice`);
          seen.add(n);
          mask += 2 ** n;
        }
        return mask;
      });
      const t = options.thirteenth;
      recorded = [...masks, t === null || t === undefined ? null : parseCard(t, "thirteenth")];
    }
    const transcript = options.blind ?? null;
    if (this.blind !== (transcript !== null)) throw new RecorderError("a match dealt blind gives each deal's transcript (blind), and only such a match");
    const deal = recordBytes("deal", [DEAL, this.deals, dealer, revealed, recorded]);
    // the deal record and its blind record in one write: a reader never finds one without the other
    const offset = this.writer.append(transcript === null ? deal : concat(deal, encodeValue(blindList(transcript))));
    this.hand = { calls: 0, plays: 0, trumpNamed: false, number: this.deals };
    this.deals += 1;
    this.moves = 0;
    return offset;
  }

  /** Seat `seat` calls: a bid 0–13, or a pass. Returns the move's byte offset: once it returns, the call is written. */
  call(options: CallOptions): number {
    optionsOf(options, "call()");
    const hand = this.open("a call");
    if (hand.plays || hand.trumpNamed) throw new RecorderError("a call after the trump was named or the play began");
    const { bid } = options;
    let value: number;
    if (bid === "pass") value = PASS_CODE;
    else if (typeof bid === "number" && Number.isInteger(bid) && bid >= 0 && bid <= 13) value = bid;
    else throw new RecorderError(`a bid is 0-13, or "pass", not ${typeof bid === "bigint" ? `${bid}n` : JSON.stringify(bid)}`);
    if (hand.calls === 64) throw new RecorderError("a hand has at most 64 calls");
    const seat = seatOf(options.seat);
    hand.calls += 1;
    return this.move(CALL_MOVE | (seat << 4) | value, options.timer);
  }

  /** The auction winner names the trump (rules whose trump is named: classic). */
  nameTrump(options: TrumpOptions): number {
    optionsOf(options, "nameTrump()");
    const hand = this.open("a trump named");
    if (this.rules.trump !== "named") throw new RecorderError(`in ${this.rules.name} the trump is not named by a player; give it with claim({ trump })`);
    if (hand.trumpNamed || hand.plays) throw new RecorderError("the trump is named once, before the first card");
    const suit = parseSuit(options.suit);
    hand.trumpNamed = true;
    return this.move(TRUMP_MOVE + suit, options.timer);
  }

  /** The seat on turn plays a card. */
  play(options: PlayOptions): number {
    optionsOf(options, "play()");
    const hand = this.open("a card");
    if (hand.plays === 52) throw new RecorderError("a hand has 52 cards");
    const proof = options.proof ?? null;
    if (this.blind !== (proof !== null)) throw new RecorderError("in a match dealt blind every card comes with its proof (proof), and only there");
    const c = parseCard(options.card);
    if (proof !== null) {
      if (!Array.isArray(proof)) throw new RecorderError("a card's proof is [position 0-51, 64-byte proof]");
      const [position, bytes] = proof as [unknown, unknown];
      if (typeof position !== "number" || !Number.isInteger(position) || position < 0 || position > 51 || !(bytes instanceof Uint8Array) || bytes.length !== 64) {
        throw new RecorderError(`a card's proof is [position 0-51, 64-byte proof], not [${String(position)}, ${bytes instanceof Uint8Array ? `${bytes.length} bytes` : typeof bytes}]`);
      }
      // the card and its proof in one write
      const offset = this.writer.append(concat(encodeMove((CARD_MOVE + c) | (options.timer ? TIMER_MOVE : 0)), encodeValue([PROOF, position, Uint8Array.from(bytes)])));
      hand.plays += 1;
      this.moves += 1;
      return offset;
    }
    hand.plays += 1;
    return this.move(CARD_MOVE + c, options.timer);
  }

  /** Close the hand with the platform's claims. */
  claim(options: ClaimOptions): number {
    optionsOf(options, "claim()");
    this.open("a claim");
    const { tricks = null, scores = null, trump = null } = options;
    if ((tricks === null) !== (scores === null)) {
      throw new RecorderError("tricks and scores go together: both for a played hand, neither for a cancelled one");
    }
    const named = this.rules.trump === "named";
    if (trump !== null && named) throw new RecorderError("in these rules the trump is named by a move (nameTrump)");
    const record = [CLAIMS, named || trump === null ? null : parseSuit(trump), four(tricks, "tricks", 0, 13),
      four(scores, "scores", -SCORE_LIMIT, SCORE_LIMIT), four(options.totals, "totals", -SCORE_LIMIT, SCORE_LIMIT, true)];
    const offset = this.writer.append(recordBytes("claims", record, named));
    this.hand = null;
    return offset;
  }

  /** The match is won: the end record, the server seed revealed. */
  finish(options: FinishOptions): number {
    optionsOf(options, "finish()");
    if (options.winner !== 0 && options.winner !== 1) throw new RecorderError(`the winner is team 0 or 1, not ${String(options.winner)}`);
    return this.end([END, options.winner, bytesOf(options.serverSeed, "serverSeed", true), null], false);
  }

  /** The match stops before it is won; a hand in progress stays as it is (no claims). */
  abandon(options: AbandonOptions): number {
    optionsOf(options, "abandon()");
    const { cause, seat } = options;
    if (!ABANDON_CAUSES.includes(cause)) throw new RecorderError(`cause must be one of ${ABANDON_CAUSES.join(", ")}, not ${JSON.stringify(cause)}`);
    const reason = textOf(options.reason, "the reason");
    if ([...reason].length > MAX_REASON) throw new RecorderError(`a reason of at most ${MAX_REASON} characters`);
    if ((seat === null) !== (cause === "server-fault")) throw new RecorderError("seat is null for a server fault, and the seat that left otherwise");
    return this.end([END, null, bytesOf(options.serverSeed, "serverSeed", true), [cause, seat === null ? null : seatOf(seat), reason]], true);
  }

  /** The server seed an end record reveals, checked against the header's commitment: a seed
   *  that is not the committed one, or one for a log that commits to none, is refused
   *  (signed, the log would hold a finding for ever). */
  private revealed(given: unknown): Bytes | null {
    const seed = bytesOf(given, "serverSeed", true);
    if (seed === null) return null;
    if (this.commitment === null) throw new RecorderError("the log's header commits to no server seed: none is revealed (serverSeed: null)");
    if (seed.length === 32 && !constantTimeEqual(nodeSha256(concat(SERVER_COMMIT_TAG, seed)), this.commitment)) {
      throw new RecorderError("the server seed is not the one the log's header commits to");
    }
    return seed;
  }

  private end(record: unknown[], abandoned: boolean): number {
    if (this.ended) throw new RecorderError("the match has ended already");
    if (this.hand !== null && !abandoned) {
      throw new RecorderError(`hand ${this.hand.number + 1} is open: claim() closes it before the match ends (or abandon())`);
    }
    const raw = recordBytes("end", record); // a seed of the wrong length: refused, the match not ended
    this.revealed(record[2]); // and one not committed to
    this.ended = true;
    this.hand = null;
    return this.writer.append(raw);
  }

  /**
   * After the end of a match dealt blind: the scalars and permutations the seats revealed for
   * one dealing attempt (null for a seat that keeps its own). Returns the keys record's offset.
   */
  revealKeys(keys: RevealedKeysOptions): number {
    if (!this.blind || !this.ended || this.signed) throw new RecorderError("keys are revealed after the end of a match dealt blind, before the signature");
    const { dealNumber } = keys;
    if (!Number.isInteger(dealNumber) || dealNumber < 0 || dealNumber >= this.deals) {
      throw new RecorderError(`dealNumber must be a dealing attempt of the match (0-${this.deals - 1}), not ${String(dealNumber)}`);
    }
    return this.writer.appendValue([KEYS, dealNumber, ...keysLists(keys)]);
  }

  /**
   * Sign everything written with the platform's key (a WebCrypto Ed25519 private key, or a
   * function that signs bytes, e.g. through an HSM), append the signature, fsync the log
   * (in every durability) and close it: the log's lock goes with it. Resolves to the signature.
   */
  async sign(key: SigningKey): Promise<Bytes> {
    if (!this.ended) throw new RecorderError("sign after finish() or abandon()");
    if (this.signed) throw new RecorderError("the log is signed already");
    const signed = this.writer.signedBytes;
    if (typeof key !== "function" && !(typeof CryptoKey !== "undefined" && key instanceof CryptoKey)) {
      throw new RecorderError("sign() takes the platform's signing key (a CryptoKey) or a function that signs bytes");
    }
    const signature = await signBytes(key, signed);
    if (signature.length !== 64) throw new RecorderError(`a signature is 64 bytes, not ${signature.length}`);
    if (this.publicKey !== null && !await ed25519Verify(this.publicKey, signed, signature)) {
      throw new RecorderError("the signature does not verify under the key the log's header names: nothing written");
    }
    this.writer.appendValue([SIGNATURE, signature]);
    this.signed = true;
    this.writer.sync();
    syncDirectory(this.path);
    this.writer.close();
    return signature;
  }

  /** Resolves once everything written so far is durable (see writer.ts); `false` past `timeoutMs`. */
  waitDurable(timeoutMs?: number): Promise<boolean> {
    return this.writer.waitDurable(timeoutMs);
  }

  /** Sync the log and close it, its lock with it (a log closed before its end reads as cut short). */
  close(): void {
    this.writer.close();
  }
}
