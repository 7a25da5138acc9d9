/**
 * tarneeb-fair-v2 (docs/PROTOCOL.md §4–§7): commitments, the match binding, the season
 * tree, and the deals and first dealer drawn from the seeds by HMAC-SHA256 in counter
 * mode with rejection sampling.
 */
import { type Bytes, concat, lp16, u32be, u64be, u8, utf8 } from "../text/bytes.js";
import { type HmacKey, hmac, hmacKey, hmacNow, sha256 } from "./crypto.js";

/** `"tarneeb-fair-v2/" || purpose || 0x00` (PROTOCOL.md §2, domain tags). */
export function tag(purpose: string): Bytes {
  return concat(utf8(`tarneeb-fair-v2/${purpose}`), u8(0));
}

export const SERVER_COMMIT_TAG = tag("server-commit");
export const CLIENT_COMMIT_TAG = tag("client-commit");
export const BINDING_TAG = tag("binding");
export const DEAL_TAG = tag("deal");
export const FIRST_DEALER_TAG = tag("first-dealer");
export const SEASON_HEAD_TAG = tag("season-head");
export const RECEIPT_TAG = tag("receipt");

/** A match's place in a season: leaf `index` of the tree of `size` leaves with `root`. */
export interface SeasonLeaf {
  index: number;
  size: number;
  root: Bytes;
}

/** §4.1: `C = SHA-256(SERVER_COMMIT_TAG || S)`. */
export function serverCommitment(seed: Bytes): Promise<Bytes> {
  return sha256(concat(SERVER_COMMIT_TAG, seed));
}

/** §4.3: the match binding `B`. */
export function matchBinding(commitment: Bytes, leaf: SeasonLeaf | null): Promise<Bytes> {
  if (leaf === null) return sha256(concat(BINDING_TAG, u8(0), commitment));
  return sha256(concat(BINDING_TAG, u8(1), u64be(leaf.size), leaf.root, u64be(leaf.index), commitment));
}

/** §4.4: `K_s = SHA-256(CLIENT_COMMIT_TAG || B || lp16(M) || u8(s) || lp16(c_s))`. */
export function clientCommitment(binding: Bytes, matchId: Bytes, seat: number, seed: Bytes): Promise<Bytes> {
  return sha256(concat(CLIENT_COMMIT_TAG, binding, lp16(matchId), u8(seat), lp16(seed)));
}

/** §4.2: the season head message `SEASON_HEAD_TAG || u64be(N) || root`. */
export function seasonHeadMessage(size: number, root: Bytes): Bytes {
  return concat(SEASON_HEAD_TAG, u64be(size), root);
}

/** §4.2: the RFC 9162 check of an inclusion proof of leaf `index` of `size` leaves. */
export async function verifyInclusion(commitment: Bytes, index: number, size: number,
                                      proof: Bytes[], root: Bytes): Promise<boolean> {
  if (index >= size) return false;
  let fn = BigInt(index);
  let sn = BigInt(size - 1);
  let r = await sha256(concat(u8(0), commitment));
  for (const p of proof) {
    if (sn === 0n) return false;
    if (fn % 2n === 1n || fn === sn) {
      r = await sha256(concat(u8(1), p, r));
      if (fn % 2n === 0n) {
        while (fn !== 0n && fn % 2n === 0n) {
          fn >>= 1n;
          sn >>= 1n;
        }
      }
    } else {
      r = await sha256(concat(u8(1), r, p));
    }
    fn >>= 1n;
    sn >>= 1n;
  }
  return sn === 0n && r.length === root.length && r.every((b, i) => b === root[i]);
}

/**
 * §5.2–§5.4: Fisher–Yates over `0 … n−1`, each index drawn by rejection sampling (one byte a
 * draw: every `n` here is at most 256) from the bytes `next` gives; `null` when they run out
 * first (`next` gives `undefined`).
 */
function drawOrder(n: number, next: () => number | undefined): number[] | null {
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i >= 1; i--) {
    const m = i + 1;
    const limit = 256 - (256 % m);
    let v = next();
    while (v !== undefined && v >= limit) v = next();
    if (v === undefined) return null;
    const j = v % m;
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  return order;
}

/**
 * The shuffle of §5.2–§5.4 from the stream `H_0 || H_1 || …`, `H_i = HMAC(S, message ||
 * u32be(i))`. With WebCrypto (asynchronous) the blocks are made `first` at once and the
 * draw is made again over one block more in the rare case they run out (only the bytes
 * read matter); with node:crypto, one block when the next byte is wanted.
 */
async function shuffle(n: number, key: HmacKey, message: Bytes, first = 2): Promise<number[]> {
  if (hmacNow(key, new Uint8Array(0)) !== null) return shuffleNow(n, key, message);
  const blocks: Bytes[] = [];
  const more = async (count: number) => {
    blocks.push(...await Promise.all(Array.from({ length: count },
      (_, i) => hmac(key, concat(message, u32be(blocks.length + i))))));
  };
  await more(first);
  for (;;) {
    const stream = concat(...blocks);
    let at = 0;
    const order = drawOrder(n, () => (at < stream.length ? stream[at++] : undefined));
    if (order !== null) return order;
    await more(1);
  }
}

/** The shuffle with node:crypto's synchronous HMAC, one block when the next byte is wanted. */
function shuffleNow(n: number, key: HmacKey, message: Bytes): number[] {
  const counted = new Uint8Array(message.length + 4);
  counted.set(message);
  const view = new DataView(counted.buffer);
  let block = 0;
  let stream: Bytes = new Uint8Array(0);
  let at = 0;
  return drawOrder(n, () => {
    if (at === stream.length) {
      view.setUint32(message.length, block++);
      stream = hmacNow(key, counted)!;
      at = 0;
    }
    return stream[at++];
  })!;
}

/** §7 and §5.3: one uniform index in `0 … m−1`. */
async function uniform(m: number, key: HmacKey, message: Bytes): Promise<number> {
  const limit = 256 - (256 % m);
  for (let block = 0; ; block++) {
    for (const v of await hmac(key, concat(message, u32be(block)))) if (v < limit) return v % m;
  }
}

/** The seeds of a match and what follows from them (§5–§7). */
export class Deriver {
  private constructor(private key: HmacKey, readonly binding: Bytes, private seedPart: Bytes) {}

  /** `seedPart` is `B || lp16(M) || lp16(c_0) || … || lp16(c_3)`, shared by every message. */
  static async create(serverSeed: Bytes, matchId: Bytes, clientSeeds: Bytes[], binding: Bytes): Promise<Deriver> {
    const part = concat(binding, lp16(matchId), ...clientSeeds.map(lp16));
    return new Deriver(await hmacKey(serverSeed), binding, part);
  }

  /** §5.1: `msg_k`. */
  dealMessage(k: number): Bytes {
    return concat(DEAL_TAG, this.seedPart, u32be(k));
  }

  /** The deck of deal `k`: `deck[p]` is the card dealt `p`-th. */
  async deck(k: number): Promise<number[]> {
    return shuffle(52, this.key, this.dealMessage(k));
  }

  /** §7: the first dealer. */
  async firstDealer(): Promise<number> {
    return uniform(4, this.key, concat(FIRST_DEALER_TAG, this.seedPart));
  }
}
