// A tarneeb log writer for Node.js: every value of docs/FORMAT.md appended to the file
// as it happens, signed at the end with Node's own Ed25519.
//
// The canonical encoding of FORMAT.md is what @msgpack/msgpack's encode() writes with
// its default options: integers in their shortest form, Uint8Array as bin, strings as
// str, object keys in insertion order. So this file only lays out the records.

import { closeSync, fsyncSync, openSync, writeSync } from "node:fs";
import { createPublicKey, sign } from "node:crypto";
import { encode } from "@msgpack/msgpack";

export const PASS = 15;
const CARD_MOVE = 1; // 1-52: card c played is c + 1
const TRUMP_MOVE = 56; // 56-59: the suit named as trump
const CALL_MOVE = 64; // 64-127: 64 | seat << 4 | value (0-13 a bid, 15 a pass)
const TIMER_MOVE = 128; // set when the turn timer made the move

const SUITS = "♣♦♥♠";
const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];

/** A card 0-51 from its name ("10♥", "A♠"): suit × 13 + rank. */
export function card(name) {
  const suit = SUITS.indexOf(name.slice(-1));
  const rank = RANKS.indexOf(name.slice(0, -1));
  if (suit < 0 || rank < 0) throw new Error(`not a card: ${name}`);
  return suit * 13 + rank;
}

/** A suit 0-3 from its symbol. */
export function suit(symbol) {
  const s = SUITS.indexOf(symbol);
  if (s < 0) throw new Error(`not a suit: ${symbol}`);
  return s;
}

export function hex(text) {
  return text === null ? null : Uint8Array.from(Buffer.from(text, "hex"));
}

/** The raw 32-byte Ed25519 public key of a Node key object. */
export function rawPublicKey(key) {
  const jwk = (key.type === "public" ? key : createPublicKey(key)).export({ format: "jwk" });
  return Uint8Array.from(Buffer.from(jwk.x, "base64url"));
}

/**
 * Appends a match's log to a new file, value by value. `durability` is "flush" (each
 * value written to the operating system before the call returns: it survives the
 * server process dying) or "fsync" (each value on disk before the call returns: it
 * survives a power loss too).
 */
export class LogWriter {
  constructor(path, { durability = "flush" } = {}) {
    this.fd = openSync(path, "wx"); // a log is never overwritten
    this.durability = durability;
    this.written = []; // every chunk, for the signature
    this.size = 0;
    this.namedTrump = false;
  }

  append(value) {
    const bytes = encode(value);
    writeSync(this.fd, bytes);
    if (this.durability === "fsync") fsyncSync(this.fd);
    this.written.push(bytes);
    const offset = this.size;
    this.size += bytes.length;
    return offset; // the move is acknowledged once this returns
  }

  header({ rules, seats, matchId, serverCommitment, batch, clientCommitments, clientSeeds,
           firstDealer, publicKey }) {
    this.namedTrump = rules.trump === "named";
    return this.append([0, "tarneeb-log", 3, rules, seats.map((s) => [s.name, s.computer]),
      matchId, serverCommitment, batch, clientCommitments, clientSeeds, firstDealer,
      publicKey]);
  }

  /** A deal record opens a hand; `deal` is [hand0..hand3 masks, 13th card] or null. */
  deal(dealNumber, dealer, revealed = null, deal = null) {
    return this.append([1, dealNumber, dealer, revealed, deal]);
  }

  /** A call: a bid 0-13, or PASS. */
  call(seat, value, timer = false) {
    return this.append(CALL_MOVE | (seat << 4) | value | (timer ? TIMER_MOVE : 0));
  }

  nameTrump(s, timer = false) {
    return this.append((TRUMP_MOVE + s) | (timer ? TIMER_MOVE : 0));
  }

  play(c, timer = false) {
    return this.append((CARD_MOVE + c) | (timer ? TIMER_MOVE : 0));
  }

  /** The claims record closes the hand: the platform's own figures. */
  claims({ trump = null, tricks = null, scores = null, totals }) {
    return this.append([4, this.namedTrump ? null : trump, tricks, scores, totals]);
  }

  end({ winner = null, serverSeed = null, abandoned = null }) {
    return this.append([2, winner, serverSeed, abandoned]);
  }

  /** Ed25519 over every byte written so far, appended as the signature record. */
  sign(privateKey) {
    const signature = sign(null, Buffer.concat(this.written), privateKey);
    this.append([3, Uint8Array.from(signature)]);
    fsyncSync(this.fd);
    closeSync(this.fd);
    return signature;
  }
}
