/**
 * The game (docs/RULES.md): one state machine for a match — the deal, personal bids or the
 * auction, naming the trump, the 13 tricks, the hand's score and the win check.
 * Actions: a card 0–51, a bid `BID + n`, a pass, or naming suit `TRUMP + s`.
 */
import {
  type RuleSet, bidValue, lowestBid, lowestTotal, trumpForDeal,
} from "./rules.js";

export const BID = 52;
export const PASS = 66;
export const TRUMP = 67;

export enum Phase { DEAL, BID, TRUMP, PLAY, OVER }

export const SUITS = "♣♦♥♠";
const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];

export function cardName(c: number): string {
  return RANKS[c % 13]! + SUITS[Math.floor(c / 13)]!;
}

export function describe(a: number): string {
  if (a < 52) return cardName(a);
  if (a < PASS) return `bid ${a - BID}`;
  if (a === PASS) return "pass";
  return `trump ${SUITS[a - TRUMP]}`;
}

/** A hand as the engine saw it. */
export interface Hand {
  dealNumber: number;
  dealer: number;
  /** the cards each seat was dealt */
  dealt: number[][];
  thirteenth: number | null;
  calls: [number, number][];
  declarer: number | null;
  contract: number | null;
  plays: number[];
  trickWinners: number[];
  tricks: number[];
  scores: number[] | null;
  totals: number[] | null;
  cancelled: boolean;
  winner: number | null;
}

export class Illegal extends Error {
  constructor(readonly kind: string, message: string) {
    super(message);
  }
}

function emptyHand(n: number, dealer: number): Hand {
  return {
    dealNumber: n, dealer, dealt: [[], [], [], []], thirteenth: null, calls: [], declarer: null,
    contract: null, plays: [], trickWinners: [], tricks: [0, 0, 0, 0], scores: null, totals: null,
    cancelled: false, winner: null,
  };
}

const team = (seat: number) => seat & 1;

export function trickWinner(cards: number[], leader: number, trump: number | null): number {
  let best = cards[0]!;
  let bestSuit = Math.floor(best / 13);
  for (const c of cards.slice(1)) {
    const s = Math.floor(c / 13);
    if (s === bestSuit) {
      if (c > best) best = c;
    } else if (s === trump) {
      best = c;
      bestSuit = s;
    }
  }
  return (leader + cards.indexOf(best)) & 3;
}

export class Match {
  dealer: number;
  dealNumber = 0;
  totals = [0, 0, 0, 0];
  phase = Phase.DEAL;
  current: number | null = null;
  history: Hand[] = [];
  hand: Hand | null = null;
  /** who holds each card now (−1: nobody) */
  holder: Int8Array = new Int8Array(52).fill(-1);
  trump: number | null = null;
  winner: number | null = null;
  leader = 0;
  trick: number[] = [];
  private led = -1;
  private bids: (number | null)[] = [null, null, null, null];
  private passed = [false, false, false, false];

  constructor(readonly rules: RuleSet, firstDealer: number) {
    this.dealer = firstDealer;
  }

  get isOver(): boolean {
    return this.phase === Phase.OVER;
  }

  deal(dealt: number[][], thirteenth: number | null): void {
    const h = emptyHand(this.dealNumber, this.dealer);
    h.dealt = dealt;
    h.thirteenth = thirteenth;
    this.hand = h;
    this.holder.fill(-1);
    dealt.forEach((cards, s) => cards.forEach((c) => (this.holder[c] = s)));
    this.trump = trumpForDeal(this.rules, thirteenth);
    this.bids = [null, null, null, null];
    this.passed = [false, false, false, false];
    this.trick = [];
    this.led = -1;
    this.phase = Phase.BID;
    this.current = (this.dealer + 1) & 3;
  }

  private highest(): number {
    return Math.max(0, ...this.bids.map((b) => b ?? 0));
  }

  private holds(seat: number, suit: number): boolean {
    for (let c = suit * 13; c < suit * 13 + 13; c++) if (this.holder[c] === seat) return true;
    return false;
  }

  /** The cards the seat to move may play. */
  legalCards(): number[] {
    const seat = this.current!;
    const held: number[] = [];
    for (let c = 0; c < 52; c++) if (this.holder[c] === seat) held.push(c);
    if (this.led >= 0) {
      const follow = held.filter((c) => Math.floor(c / 13) === this.led);
      if (follow.length) return follow;
    }
    return held;
  }

  /** Why `action` is illegal now, or null. */
  check(action: number): Illegal | null {
    const seat = this.current!;
    const who = `seat ${seat}`;
    switch (this.phase) {
      case Phase.OVER: return new Illegal("over", "the match is already won");
      case Phase.DEAL: return new Illegal("wrong-phase", "waiting for a deal");
      case Phase.PLAY:
        if (action >= 52) return new Illegal("wrong-phase", `${who} must play a card`);
        if (this.holder[action] !== seat) return new Illegal("not-held", `${who} does not hold ${cardName(action)}`);
        if (this.led >= 0 && Math.floor(action / 13) !== this.led && this.holds(seat, this.led)) {
          return new Illegal("renege", `${who} played ${cardName(action)} on a ${SUITS[this.led]} lead while holding ${SUITS[this.led]}`);
        }
        return null;
      case Phase.TRUMP:
        return action >= TRUMP && action < TRUMP + 4 ? null : new Illegal("wrong-phase", `${who} must name the trump`);
      default: break;
    }
    const r = this.rules;
    if (r.bidding === "personal") {
      if (action < BID || action >= PASS) return new Illegal("bid-range", `${who} must bid 2-13; there is no pass`);
      const n = action - BID;
      if (n < r.min_bid || n > r.max_bid) return new Illegal("bid-range", `${who} bid ${n}; bids run from ${r.min_bid} to ${r.max_bid}`);
      const low = lowestBid(r, this.totals[seat]!);
      if (n < low) return new Illegal("bid-minimum", `${who} bid ${n}, but with a score of ${this.totals[seat]} the lowest bid allowed is ${low}`);
      return null;
    }
    if (action === PASS) return null;
    if (action < BID || action >= PASS) return new Illegal("wrong-phase", `${who} must bid or pass`);
    const n = action - BID;
    if (n < r.auction_min || n > 13) return new Illegal("bid-range", `${who} bid ${n}; auction bids run from ${r.auction_min} to 13`);
    const high = this.highest();
    if (n <= high) return new Illegal("bid-not-higher", `${who} bid ${n}, not higher than the ${high} already bid`);
    return null;
  }

  /** The moves the turn timer may make now (RULES.md "The turn timer"). */
  timerActions(): number[] {
    const r = this.rules;
    const seat = this.current!;
    if (this.phase === Phase.BID) {
      if (r.bidding !== "personal") return [PASS];
      let bid = lowestBid(r, this.totals[seat]!);
      if (r.timer_bid === "reach_minimum" && seat === this.dealer) {
        const need = Number(lowestTotal(r, Math.max(...this.totals))) - this.bids.reduce<number>((a, b) => a + (b ?? 0), 0);
        if (bid < need && need <= r.max_bid) bid = need;
      }
      return [BID + bid];
    }
    if (this.phase === Phase.TRUMP) {
      const lengths = [0, 1, 2, 3].map((s) => {
        let n = 0;
        for (let c = s * 13; c < s * 13 + 13; c++) if (this.holder[c] === seat) n++;
        return n;
      });
      const longest = Math.max(...lengths);
      return [0, 1, 2, 3].filter((s) => lengths[s] === longest).map((s) => TRUMP + s);
    }
    if (this.phase === Phase.PLAY) {
      const legal = this.legalCards();
      const plain = legal.filter((c) => Math.floor(c / 13) !== this.trump);
      const pool = plain.length ? plain : legal;
      const low = Math.min(...pool.map((c) => c % 13));
      return pool.filter((c) => c % 13 === low);
    }
    return [];
  }

  /** Take an action already judged (legal, or a fault the state can hold). */
  applyUnchecked(action: number): void {
    if (this.phase === Phase.PLAY) this.play(action);
    else if (this.phase === Phase.BID) this.call(action);
    else this.nameTrump(action - TRUMP);
  }

  private call(action: number): void {
    const seat = this.current!;
    const hand = this.hand!;
    hand.calls.push([seat, action]);
    if (this.rules.bidding === "personal") {
      this.bids[seat] = action - BID;
      if (seat === this.dealer) {
        const total = this.bids.reduce<number>((a, b) => a + (b ?? 0), 0);
        if (total < lowestTotal(this.rules, Math.max(...this.totals))) this.finishCancelled();
        else {
          this.phase = Phase.PLAY;
          this.leader = this.current = (this.dealer + 1) & 3;
        }
      } else this.current = (seat + 1) & 3;
      return;
    }
    if (action === PASS) this.passed[seat] = true;
    else this.bids[seat] = action - BID;
    const nPassed = this.passed.filter(Boolean).length;
    const high = this.highest();
    if (nPassed === 4) {
      this.finishCancelled();
      return;
    }
    if ((high === 13 && this.rules.auction_ends_on_13) || (nPassed === 3 && high > 0)) {
      const declarer = [0, 1, 2, 3].find((s) => this.bids[s] === high)!;
      hand.declarer = declarer;
      hand.contract = high;
      this.phase = Phase.TRUMP;
      this.current = declarer;
      return;
    }
    let next = (seat + 1) & 3;
    while (this.passed[next]) next = (next + 1) & 3;
    this.current = next;
  }

  private nameTrump(suit: number): void {
    this.trump = suit;
    this.phase = Phase.PLAY;
    this.leader = this.current = this.hand!.declarer!;
  }

  private play(card: number): void {
    const seat = this.current!;
    const hand = this.hand!;
    this.holder[card] = -1;
    hand.plays.push(card);
    if (!this.trick.length) this.led = Math.floor(card / 13);
    this.trick.push(card);
    if (this.trick.length < 4) {
      this.current = (seat + 1) & 3;
      return;
    }
    const w = trickWinner(this.trick, this.leader, this.trump);
    hand.tricks[w]! += 1;
    hand.trickWinners.push(w);
    this.trick = [];
    this.led = -1;
    this.leader = this.current = w;
    if (hand.plays.length === 52) this.finishWith(this.score(hand));
  }

  /** RULES.md: the value of a bid, or the classic team table. */
  score(hand: Hand): number[] {
    const r = this.rules;
    if (r.scoring === "personal") {
      const bids = [0, 0, 0, 0];
      for (const [seat, a] of hand.calls) bids[seat] = a - BID;
      return [0, 1, 2, 3].map((s) => {
        const v = bidValue(r, bids[s]!, this.totals[s]!);
        return hand.tricks[s]! >= bids[s]! ? v : -v;
      });
    }
    const b = hand.contract!;
    const bt = team(hand.declarer!);
    const t = hand.tricks[bt]! + hand.tricks[bt + 2]!;
    const ts = [0, 0];
    if (b < 13) {
      if (t >= b) ts[bt] = t === 13 ? r.all_tricks_value : t;
      else {
        ts[bt] = -b;
        ts[1 - bt] = t === 0 ? r.defenders_all_tricks_value : 13 - t;
      }
    } else if (t === 13) ts[bt] = r.kaboot_made_value;
    else {
      ts[bt] = -r.kaboot_failed_value;
      ts[1 - bt] = t === 0 ? r.kaboot_defenders_all_tricks_value : r.kaboot_defenders_factor * (13 - t);
    }
    return [0, 1, 2, 3].map((s) => ts[s & 1]!);
  }

  private finishCancelled(): void {
    const hand = this.hand!;
    hand.cancelled = true;
    hand.totals = [...this.totals];
    this.nextHand();
  }

  /** End the hand under way with these scores (the replayer: the log's own, past a hand it could not replay). */
  finishWith(scores: number[]): void {
    if (this.hand === null) this.hand = emptyHand(this.dealNumber, this.dealer);
    const hand = this.hand;
    hand.scores = [...scores];
    this.totals = this.totals.map((t, s) => t + scores[s]!);
    hand.totals = [...this.totals];
    this.winner = hand.winner = this.matchWinner(hand);
    this.nextHand();
  }

  private matchWinner(hand: Hand): number | null {
    const r = this.rules;
    if (r.made_13_wins) {
      if (r.scoring === "team") {
        // made: every trick to the declarers, whatever it scores
        const d = hand.declarer;
        if (hand.contract === 13 && d !== null && hand.tricks[d]! + hand.tricks[d ^ 2]! === 13) return team(d);
      } else {
        for (let s = 0; s < 4; s++) {
          const bid = hand.calls.find(([seat, a]) => seat === s && a >= BID && a < PASS);
          if (hand.tricks[s] === 13 && bid !== undefined && bid[1] - BID === 13) return team(s);
        }
      }
    }
    return totalsWinner(this.rules, this.totals);
  }

  private nextHand(): void {
    this.history.push(this.hand!);
    this.hand = null;
    this.holder.fill(-1);
    this.dealNumber++;
    if (this.rules.dealer_rotates) this.dealer = (this.dealer + 1) & 3; // else the first dealer deals every hand
    this.trump = null;
    this.current = null;
    this.phase = this.winner !== null ? Phase.OVER : Phase.DEAL;
  }
}

/** Every legal action of the seat to move, in increasing order (none between hands): cards
 *  0–51, bids `BID + n`, `PASS`, suits named `TRUMP + s` (js/README.md, "Actions"). */
/** The players who qualify on ``t`` in personal scoring: on the target, their partner at
 *  ``partner_min`` or more (the Python `qualifying_players`). */
export function qualifying(r: RuleSet, t: number[]): number[] {
  return [0, 1, 2, 3].filter((p) => t[p]! >= r.target && t[p ^ 2]! >= r.partner_min);
}

/** Both teams qualify: the winning team (null: another hand) by the tie chain, and the entry
 *  of the chain that decided (the Python `break_tie`). */
export function breakTie(r: RuleSet, t: number[], q: number[]): [number | null, string] {
  for (const step of r.tie) {
    let a: number;
    let b: number;
    if (step === "team_total") [a, b] = r.scoring === "team" ? [t[0]!, t[1]!] : [t[0]! + t[2]!, t[1]! + t[3]!];
    else if (step === "highest_player") {
      a = Math.max(...q.filter((p) => team(p) === 0).map((p) => t[p]!));
      b = Math.max(...q.filter((p) => team(p) === 1).map((p) => t[p]!));
    } else return [step === "team_0+2" ? 0 : step === "team_1+3" ? 1 : null, step];
    if (a !== b) return [a > b ? 0 : 1, step];
  }
  return [null, "play_on"];
}

/** The team that has won on the running totals alone (a made 13 aside), or null when play
 *  goes on (the Python `totals_winner`). */
export function totalsWinner(r: RuleSet, t: number[]): number | null {
  if (Math.max(...t) < r.target) return null;
  let reached: number[];
  let q: number[];
  if (r.scoring === "team") {
    reached = [0, 1].filter((x) => t[x]! >= r.target);
    q = [0, 1, 2, 3].filter((x) => t[x]! >= r.target);
  } else {
    q = qualifying(r, t);
    reached = [...new Set(q.map(team))].sort();
  }
  if (reached.length === 1) return reached[0]!;
  if (reached.length === 2) return breakTie(r, t, q)[0];
  return null;
}

export function legalActions(m: Match): number[] {
  switch (m.phase) {
    case Phase.PLAY: return m.legalCards();
    case Phase.TRUMP: return [TRUMP, TRUMP + 1, TRUMP + 2, TRUMP + 3];
    case Phase.BID: {
      const out: number[] = [];
      for (let a = BID; a <= PASS; a++) if (m.check(a) === null) out.push(a);
      return out;
    }
    default: return [];
  }
}
