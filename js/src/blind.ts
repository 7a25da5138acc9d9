/**
 * Blind dealing (docs/PROTOCOL.md §13, docs/FORMAT.md "Blind dealing"): the blind, proof and
 * keys records read, and each dealing attempt checked — its transcript from its proofs by
 * `transcript.ts` (`tarneeb-blind-v2` or v3, v1, or a v2/v3 deal that stopped at a seat, §13.8), then
 * the dealer's 13th card and every card played with its proof, and the hands the keys the
 * seats revealed decrypt; the hands the replay is dealt are the ones the transcript proves.
 */
import { type Bytes, toHex } from "./bytes.js";
import { cardName } from "./engine.js";
import { type Finding } from "./findings.js";
import { DECK, ELEMENT, L, PROOF, type Point, cardPoints, context, decode, encode, owner, scalarOf, tabled, verifyDleq } from "./shuffleproof.js";
import { ARGUMENT_ELEMENTS, ARGUMENT_SCALARS } from "./shuffleargument.js";
import { type Deal, type Fault, type SeatKey, split, verifyUnfinished, verifyV1, verifyV2 } from "./transcript.js";

// each pass's proof in two bins, its elements then its scalars: v2's shuffle proof (u ‖ ĉ,
// 109 scalars), or v3's shuffle argument (22 elements, 44 scalars)
const PASS_BINS = { v2: [2 * DECK * ELEMENT, (2 * DECK + 5) * 32], v3: [ARGUMENT_ELEMENTS * ELEMENT, ARGUMENT_SCALARS * 32] } as const;
const DECK_BYTES = DECK * ELEMENT;
const OPENED_POSITION = 51;

/** One dealing attempt's blind record, and the proofs of its cards played. */
export interface BlindTranscript {
  publics: Bytes;
  passes: Bytes[];
  partials: Bytes[];
  /** v2 (and v3): each pass's shuffle proof (v3: argument), its elements and its scalars; null under v1 */
  shuffleProofs: [Bytes, Bytes][] | null;
  /** v2: the batched proofs delivered (round r, seat k at 4r + k), 64 bytes each */
  batch: Bytes | null;
  /** v1: the proof of each partial decryption, a bin a round */
  v1Proofs: Bytes[] | null;
  opened: Bytes | null;
  /** play index (0–51) → [position, proof] */
  plays: Map<number, [number, Bytes]>;
}

/** A keys record: what the seats revealed of one dealing attempt (null: kept). */
export interface RevealedKeys {
  dealNumber: number;
  scalars: (Bytes | null)[];
  permutations: (Bytes | null)[];
  offset: number;
}

const isBin = (v: unknown, n: number): v is Uint8Array => v instanceof Uint8Array && v.length === n;
const bins = (v: unknown, n: number, size: number, nil = false) =>
  Array.isArray(v) && v.length === n && v.every((x) => isBin(x, size) || (nil && x === null));

/** Where a blind dealing record may stand, as the reader knows it. */
export interface BlindPlace {
  hand: { plays: number[]; blind?: BlindTranscript | null } | null;
  afterDeal: boolean;
  afterMoves: boolean;
  ended: boolean;
  keys: RevealedKeys[];
}

/** Read one blind (5), proof (6) or keys (7) record; the reason it is refused, or null. */
export function readBlindRecord(d: unknown[], pos: number, at: BlindPlace): string | null {
  const kind = d[0];
  if (kind === 5) {
    if (!at.afterDeal || at.hand === null || at.hand.blind) return "a blind record anywhere but right after its deal record";
    const t = blindFromList(d);
    if (typeof t === "string") return `blind record: ${t}`;
    at.hand.blind = t;
  } else if (kind === 6) {
    const h = at.hand;
    if (h === null || !at.afterMoves || !h.plays.length || !h.blind || h.blind.plays.has(h.plays.length - 1)) {
      return "a proof record anywhere but right after a card move";
    }
    if (d.length !== 3 || typeof d[1] !== "number" || !Number.isInteger(d[1]) || d[1] < 0 || d[1] >= DECK || !isBin(d[2], PROOF)) {
      return `proof record: must be [6, position 0-51, ${PROOF}-byte proof]`;
    }
    h.blind.plays.set(h.plays.length - 1, [d[1], d[2] as Bytes]);
  } else {
    if (!at.ended) return "a keys record before the end record";
    if (d.length !== 4 || typeof d[1] !== "number" || !Number.isInteger(d[1]) || d[1] < 0 || d[1] > 1_000_000) {
      return "keys record: must be [7, deal_number, four scalars, four permutations]";
    }
    if (!bins(d[2], 4, 32, true)) return "keys record: scalars must be 4 byte strings of 32 bytes or nil";
    if (!bins(d[3], 4, DECK, true)) return `keys record: permutations must be 4 byte strings of ${DECK} bytes or nil`;
    at.keys.push({ dealNumber: d[1], scalars: d[2] as (Bytes | null)[], permutations: d[3] as (Bytes | null)[], offset: pos });
  }
  return null;
}

/** A blind record from its list: the transcript, or the reason its shape is refused. */
export function blindFromList(d: unknown[]): BlindTranscript | string {
  if (d.length !== 6) return `has ${d.length} fields, not 6`;
  const [, publics, passes, partials, proofs, opened] = d;
  if (!isBin(publics, 4 * ELEMENT)) return `publics must be ${4 * ELEMENT} bytes (four keys)`;
  if (opened !== null && !isBin(opened, PROOF)) return `opened must be a ${PROOF}-byte proof or nil`;
  const base = { publics, opened: opened as Bytes | null, plays: new Map<number, [number, Bytes]>() };
  if (Array.isArray(proofs) && proofs.length && proofs[0] instanceof Uint8Array && proofs[0].length <= 12 * PROOF) {
    const k = Array.isArray(passes) ? passes.length : -1;
    const batch = proofs[0];
    const dn = Math.floor(batch.length / PROOF);
    if (k < 0 || k > 4 || batch.length % PROOF || (k < 4 && dn) || proofs.length !== 1 + 2 * k) {
      return "a v2 transcript holds 0-4 passes, and after its batched proofs (none before the fourth pass) two bins of shuffle proof a pass";
    }
    if ((dn < 12 || k < 4) && opened !== null) return "an unfinished deal opens no card";
    if (!bins(passes, k, DECK_BYTES)) return `passes must be ${k} byte strings of ${DECK_BYTES} bytes`;
    if (!bins(partials, Math.ceil(dn / 4), DECK_BYTES)) return `partials must be ${Math.ceil(dn / 4)} byte strings of ${DECK_BYTES} bytes`;
    const els = proofs.filter((_, i) => i % 2 === 1), scs = proofs.filter((_, i) => i && i % 2 === 0);
    // the version is the first pass's: every pass of the record has its sizes
    const v = isBin(els[0], PASS_BINS.v3[0]) ? "v3" : "v2";
    const [split, scalars] = PASS_BINS[v];
    if (!bins(els, k, split)) return `${v} shuffle proofs' elements must be ${k} byte strings of ${split} bytes`;
    if (!bins(scs, k, scalars)) return `${v} shuffle proofs' scalars must be ${k} byte strings of ${scalars} bytes`;
    return { ...base, passes: passes as Bytes[], partials: partials as Bytes[], shuffleProofs: els.map((e, i) => [e as Bytes, scs[i] as Bytes]), batch, v1Proofs: null };
  }
  if (!bins(passes, 4, DECK_BYTES)) return `passes must be 4 byte strings of ${DECK_BYTES} bytes`;
  if (!bins(partials, 3, DECK_BYTES)) return `partials must be 3 byte strings of ${DECK_BYTES} bytes`;
  if (!bins(proofs, 3, DECK * PROOF)) return `partial_proofs must be 3 byte strings of ${DECK * PROOF} bytes`;
  return { ...base, passes: passes as Bytes[], partials: partials as Bytes[], shuffleProofs: null, batch: null, v1Proofs: proofs as Bytes[] };
}

/** A transcript's version (`tarneeb-blind-v1`, v2 or v3, by its shape); null for a deal stopped before its first pass. */
export function blindVersion(t: BlindTranscript): number | null {
  if (t.shuffleProofs === null) return 1;
  if (!t.shuffleProofs.length) return null;
  return t.shuffleProofs[0]![0].length === PASS_BINS.v3[0] ? 3 : 2;
}

/**
 * The seat whose step is missing in a `tarneeb-blind-v2` deal that stopped (§13.8): the seat
 * to pass, or in the round being decrypted the first seat that has not delivered; null for
 * a complete deal (or a v1 one).
 */
export function waitingFor(t: BlindTranscript): number | null {
  if (t.shuffleProofs === null) return null;
  if (t.passes.length < 4) return t.passes.length;
  const d = t.batch!.length / PROOF;
  return d === 12 ? null : d % 4;
}

/** What a deal that stopped waits for: `its shuffle pass`, `its partial decryptions of round 2`. */
export function waitingStep(t: BlindTranscript): string {
  if (t.passes.length < 4) return "its shuffle pass";
  return `its partial decryptions of round ${Math.floor(t.batch!.length / (4 * PROOF)) + 1}`;
}

/** What the checks read of a hand record. */
export interface HandShape { revealed: number | null; calls: unknown[]; plays: number[]; trump: number | null; closed: boolean }

/** What one hand's checks give the replay. */
export interface BlindHand {
  hands: number[][] | null;
  thirteenth: number | null;
  proven: boolean;
  faults: number;
  /** a deal that stopped (§13.8): the seat that did not deliver */
  waiting: number | null;
}

const AFTER = " (the deal's transcript is at fault above: the seat named there changed what this card's owner was given)";

let pointCards: Map<string, number> | null = null;
function cardOfPoint(p: Point): number | null {
  pointCards ??= new Map(cardPoints().map((q, c) => [toHex(encode(q)), c]));
  return pointCards.get(toHex(p.toBytes())) ?? null;
}

/** Checks each blind hand of one log, adding its findings. */
export class BlindChecker {
  faults = 0;
  secretCancelled: number[] = [];
  /** the hands dealt under `tarneeb-blind-v1`: their passes carry no proofs */
  v1Hands: number[] = [];
  private keys = new Map<number, RevealedKeys>();
  private consequence = false;

  /**
   * `memo`: the transcript checks of earlier logs that are prefixes of the same bytes (one
   * log judged cut at several places), by the hand's offset and its keys record's.
   */
  constructor(private matchId: Bytes, keys: RevealedKeys[], hands: number, private findings: Finding[], private memo: Map<string, Fault[]> | null = null) {
    for (const k of keys) {
      if (this.keys.has(k.dealNumber) || k.dealNumber >= hands) {
        this.add("blind-transcript", `a keys record for hand ${k.dealNumber}, which ${this.keys.has(k.dealNumber) ? "has one already" : "the log does not hold"}`, { offset: k.offset });
        this.faults++;
        continue;
      }
      this.keys.set(k.dealNumber, k);
    }
  }

  private add(kind: string, message: string, where: Partial<Finding>): void {
    this.findings.push({ kind, message, hand: null, trick: null, seat: null, card: null, offset: null, ...where });
  }

  /** The hands `t` proves for hand `n` dealt by `dealer`; null when it has no transcript. */
  check(t: BlindTranscript | null | undefined, rec: HandShape, n: number, dealer: number, reveals: boolean, offset: number): BlindHand | null {
    const before = this.findings.length;
    const done = () => { const a = this.findings.length - before; this.faults += a; return a; };
    if (!t) {
      this.add("blind-transcript", "the hand has no blind record: nothing proves its deal", { hand: n, offset });
      done();
      return null;
    }
    const d: Deal = {
      matchId: this.matchId, n, dealer, publics: split(t.publics, ELEMENT).map(decode).map((y) => y && tabled(y)),
      passes: t.passes.map((p) => split(p, ELEMENT).map(decode)), rawPasses: t.passes,
      rounds: t.partials.map((r) => split(r, ELEMENT).map(decode)),
    };
    const waiting = waitingFor(t);
    if (waiting !== null) {
      for (const f of verifyUnfinished(d, t.shuffleProofs!, t.batch!)) this.add(f.kind, f.what, { hand: n, seat: f.seat < 0 ? null : f.seat, offset });
      if (rec.closed || rec.calls.length || rec.plays.length || rec.trump !== null) {
        this.add("blind-transcript", `the deal is not finished (seat ${waiting} has not delivered ${waitingStep(t)}), yet the hand goes on`, { hand: n, offset });
      }
      return { hands: null, thirteenth: null, proven: false, faults: done(), waiting };
    }
    if (t.shuffleProofs === null) this.v1Hands.push(n);
    const keys = this.seatKeys(n);
    const memoKey = `${offset}:${this.keys.get(n)?.offset ?? -1}`;
    const faults: Fault[] = this.memo?.get(memoKey)
      ?? (t.shuffleProofs === null ? verifyV1(d, t.v1Proofs!, keys) : verifyV2(d, t.shuffleProofs, t.batch!, keys));
    this.memo?.set(memoKey, faults);
    for (const f of faults) this.add(f.kind, f.what, { hand: n, seat: f.seat < 0 ? null : f.seat, offset });
    // under v2 a fault names the seat that made it; a card that then fails to open follows from it
    this.consequence = faults.length > 0 && t.shuffleProofs !== null;
    const { publics } = d;
    const finals = d.rounds[2]!;
    const known = new Map<number, number>();
    if (this.findings.length === before) {
      for (const { seat: s, scalar } of keys) {
        const x = scalarOf(scalar);
        const inv = modInverse(x);
        for (let p = 0; p < DECK; p++) {
          if (owner(p, dealer) !== s) continue;
          const e = finals[p]!;
          const c = e === null || e.is0() ? null : cardOfPoint(e.multiplyUnsafe(inv));
          if (c === null) {
            this.add("wrong-shuffle", `position ${p} of seat ${s} does not decrypt to a card`, { hand: n, seat: s, offset });
            break;
          }
          known.set(p, c);
        }
      }
    }
    const open = (p: number, card: number, step: string, proof: Bytes): number | null => {
      const o = owner(p, dealer);
      const y = publics[o]!, z = finals[p]!;
      if (y === null || z === null) return o;
      return verifyDleq(y, cardPoints()[card]!, z, proof, context(this.matchId, n, step, o, p)) ? null : o;
    };
    let thirteenth: number | null = null;
    if (!reveals) {
      if (t.opened !== null) this.add("not-canonical", "the blind record opens the dealer's 13th card, but these rules show no card", { hand: n, offset });
    } else if (rec.revealed === null || t.opened === null) {
      this.add("blind-transcript", "the dealer's 13th card is not opened with its proof", { hand: n, seat: dealer, offset });
    } else if (open(OPENED_POSITION, rec.revealed, "open", t.opened) !== null) {
      this.add("card-not-dealt", `the dealer shows ${cardName(rec.revealed)} as its 13th card, but its proof does not verify: it is not the card dealt there${this.consequence ? AFTER : ""}`,
        { hand: n, seat: this.consequence ? null : dealer, card: cardName(rec.revealed), offset });
    } else {
      if (!known.has(OPENED_POSITION)) known.set(OPENED_POSITION, rec.revealed);
      thirteenth = rec.revealed;
    }
    rec.plays.forEach((card, k) => {
      const trick = Math.floor(k / 4) + 1;
      const pp = t.plays.get(k);
      if (pp === undefined) {
        this.add("blind-transcript", `${cardName(card)} is played without the proof that it is a card dealt to the seat`, { hand: n, trick, card: cardName(card), offset });
        return;
      }
      const [p, proof] = pp;
      const seat = open(p, card, "play", proof);
      if (seat !== null) {
        this.add("card-not-dealt", `${cardName(card)} is played as the card dealt to seat ${seat} at position ${p}, but its proof does not verify: it is not the card dealt there${this.consequence ? AFTER : ""}`,
          { hand: n, trick, card: cardName(card), offset, seat: this.consequence ? null : seat });
        return;
      }
      if ((known.get(p) ?? card) !== card) this.add("card-not-dealt", `position ${p} is opened as two cards`, { hand: n, trick, offset });
      known.set(p, card);
    });
    const distinct = new Set(known.values()).size;
    const proven = known.size === DECK && distinct === DECK;
    if (known.size === DECK && !proven) {
      this.add("wrong-shuffle", "the cards opened are not the 52 cards of the deck: a pass replaced, dropped or duplicated a card (the revealed keys name the seat)", { hand: n, offset });
    }
    let hands: number[][] | null = null;
    if (distinct === known.size) {
      const rest = Array.from({ length: DECK }, (_, c) => c).filter((c) => ![...known.values()].includes(c));
      hands = [[], [], [], []];
      let i = 0;
      for (let p = 0; p < DECK; p++) hands[owner(p, dealer)]!.push(known.has(p) ? known.get(p)! : rest[i++]!);
      if (thirteenth === null && reveals) thirteenth = known.get(OPENED_POSITION) ?? null;
    }
    return { hands, thirteenth, proven, faults: done(), waiting: null };
  }

  /** The keys the seats revealed of hand `n`, each seat's scalar with its permutation. */
  private seatKeys(n: number): SeatKey[] {
    const k = this.keys.get(n);
    if (!k) return [];
    const out: SeatKey[] = [];
    for (let s = 0; s < 4; s++) if (k.scalars[s] && k.permutations[s]) out.push({ seat: s, scalar: k.scalars[s]!, permutation: k.permutations[s]! });
    return out;
  }
}

function modInverse(x: bigint): bigint {
  let [a, b, u, v] = [x % L, L, 1n, 0n];
  while (a !== 0n) {
    const q = b / a;
    [a, b] = [b - q * a, a];
    [u, v] = [v - q * u, u];
  }
  return ((v % L) + L) % L;
}
