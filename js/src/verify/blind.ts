/**
 * Blind dealing checked (docs/PROTOCOL.md §13, docs/FORMAT.md "Blind dealing"): each dealing
 * attempt's transcript from its proofs by `transcript.ts` (`tarneeb-blind-v2` or v3, v1, or a
 * v2/v3 deal that stopped at a seat, §13.8), then the dealer's 13th card and every card played
 * with its proof, and the hands the keys the seats revealed decrypt; the hands the replay is
 * dealt are the ones the transcript proves. The records themselves are read by
 * `blindrecords.ts`.
 */
import { type Bytes, toHex } from "../text/bytes.js";
import { cardName } from "../rules/engine.js";
import { type Finding } from "../log/findings.js";
import { DECK, ELEMENT, L, type Point, cardPoints, context, decode, encode, owner, scalarOf, tabled, verifyDleq } from "../protocol/shuffleproof.js";
import { type Deal, type Fault, type SeatKey, halfFaults, split, verifyUnfinished, verifyV1, verifyV2 } from "../protocol/transcript.js";
import { type BlindTranscript, OPENED_POSITION, type RevealedKeys, waitingFor, waitingStep } from "../log/blindrecords.js";

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
    const { whole: keys, halves } = this.seatKeys(n);
    const memoKey = `${offset}:${this.keys.get(n)?.offset ?? -1}`;
    const faults: Fault[] = this.memo?.get(memoKey)
      ?? [...(t.shuffleProofs === null ? verifyV1(d, t.v1Proofs!, keys) : verifyV2(d, t.shuffleProofs, t.batch!, keys)),
        // a key revealed in part (a scalar without its permutation, or the other way round)
        ...halves.flatMap(([s, scalar, perm]) => halfFaults(d, s, scalar, perm))];
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

  /**
   * The keys the seats revealed of hand `n`: each seat's scalar with its permutation; and those
   * revealed in part (a scalar without its permutation, or the other way round), per seat what it
   * revealed, each half checked on its own.
   */
  private seatKeys(n: number): { whole: SeatKey[]; halves: [number, Bytes | null, Bytes | null][] } {
    const whole: SeatKey[] = [], halves: [number, Bytes | null, Bytes | null][] = [];
    const k = this.keys.get(n);
    if (!k) return { whole, halves };
    for (let s = 0; s < 4; s++) {
      const scalar = k.scalars[s] ?? null, perm = k.permutations[s] ?? null;
      if (scalar !== null && perm !== null) whole.push({ seat: s, scalar, permutation: perm });
      else if (scalar !== null || perm !== null) halves.push([s, scalar, perm]);
    }
    return { whole, halves };
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
