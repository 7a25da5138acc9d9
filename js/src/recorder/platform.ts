/**
 * A platform's secrets for Node servers and browsers, all from WebCrypto: fresh seeds and
 * match ids (`crypto.getRandomValues`), the Ed25519 signing key (generated, or read from
 * the PKCS#8 PEM file `tarneeb keygen` writes), and a match's seeds with what follows from
 * them (docs/PROTOCOL.md §4–§7: the commitments, the binding, every deal and the first
 * dealer), through derive.ts.
 */
import { encode } from "@msgpack/msgpack";
import { type Bytes, concat, constantTimeEqual, lp16, toHex, utf8 } from "../text/bytes.js";
import { keyId } from "../protocol/crypto.js";
import { type SeasonLeaf, Deriver, RECEIPT_TAG, clientCommitment, matchBinding, serverCommitment } from "../protocol/derive.js";
import { type RuleSet, PRESETS, rulesMap } from "../rules/rules.js";
import { DEALINGS } from "../verify/receipt.js";

const webcrypto: Crypto = globalThis.crypto ?? ((await import("node:crypto")).webcrypto as unknown as Crypto);
const subtle = webcrypto.subtle;
const buf = (b: Bytes): Uint8Array<ArrayBuffer> => b as Uint8Array<ArrayBuffer>;

/** `n` random bytes from the system's generator (WebCrypto `getRandomValues`). */
export function randomBytes(n: number): Bytes {
  return webcrypto.getRandomValues(new Uint8Array(n));
}

/** A fresh 32-byte server seed: kept secret until the match ends. */
export const newServerSeed = (): Bytes => randomBytes(32);
/** A fresh 32-byte client seed (drawn on the seat's own device). */
export const newClientSeed = (): Bytes => randomBytes(32);
/** A fresh 8-byte match id. */
export const newMatchId = (): Bytes => randomBytes(8);

/** What signs a log: a WebCrypto Ed25519 private key, or a function that signs bytes (an HSM). */
export type SigningKey = CryptoKey | ((message: Bytes) => Bytes | Promise<Bytes>);

/** An Ed25519 signature of `message`. */
export async function signBytes(key: SigningKey, message: Bytes): Promise<Bytes> {
  if (typeof key === "function") return Uint8Array.from(await key(message));
  return new Uint8Array(await subtle.sign({ name: "Ed25519" }, key, buf(message)));
}

/** A fresh Ed25519 key pair (extractable, so it can be saved with {@link privateKeyPem}). */
export async function generateSigningKey(): Promise<CryptoKeyPair> {
  return await subtle.generateKey({ name: "Ed25519" }, true, ["sign", "verify"]) as CryptoKeyPair;
}

function pemBlock(label: string, der: Bytes): string {
  const b64 = btoa(String.fromCharCode(...der));
  return `-----BEGIN ${label}-----\n${b64.match(/.{1,64}/g)!.join("\n")}\n-----END ${label}-----\n`;
}

function pemBody(text: string, label: string): Bytes {
  const m = text.match(new RegExp(`-----BEGIN ${label}-----([\\s\\S]*?)-----END ${label}-----`));
  if (m === null) throw new Error(`not a PEM ${label.toLowerCase()}`);
  return Uint8Array.from(atob(m[1]!.replace(/\s+/g, "")), (c) => c.charCodeAt(0));
}

/** The platform's private key from a PKCS#8 PEM file's text (what `tarneeb keygen` writes). */
export async function privateKeyFromPem(pem: string, extractable = false): Promise<CryptoKey> {
  return subtle.importKey("pkcs8", buf(pemBody(pem, "PRIVATE KEY")), { name: "Ed25519" }, extractable, ["sign"]);
}

/** The PKCS#8 PEM text of an extractable private key (`tarneeb` reads it as a key file). */
export async function privateKeyPem(key: CryptoKey): Promise<string> {
  return pemBlock("PRIVATE KEY", new Uint8Array(await subtle.exportKey("pkcs8", key)));
}

/** The raw 32-byte public key (what the log's header holds) of a public key. */
export async function rawPublicKey(key: CryptoKey): Promise<Bytes> {
  return new Uint8Array(await subtle.exportKey("raw", key));
}

/** The raw 32-byte public key of a private key imported as extractable (its JWK's `x`). */
export async function publicKeyOf(privateKey: CryptoKey): Promise<Bytes> {
  const jwk = await subtle.exportKey("jwk", privateKey);
  if (typeof jwk.x !== "string") throw new Error("not an Ed25519 key");
  const b64 = jwk.x.replace(/-/g, "+").replace(/_/g, "/");
  return Uint8Array.from(atob(b64 + "=".repeat((4 - (b64.length % 4)) % 4)), (c) => c.charCodeAt(0));
}

/** The SubjectPublicKeyInfo PEM of a raw public key: the file `tarneeb verify --key` pins. */
export function publicKeyPem(raw: Bytes): string {
  const prefix = [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00];
  return pemBlock("PUBLIC KEY", Uint8Array.from([...prefix, ...raw]));
}

/** One deal as a server needs it: the four hands by seat, and the dealer's 13th card. */
export interface Deal {
  hands: number[][];
  thirteenth: number;
}

/** What {@link MatchSeeds.create} needs: the server seed, the match id, the client seeds. */
export interface MatchSeedsOptions {
  serverSeed: Bytes;
  matchId: Bytes;
  /** the four seats' client seeds, revealed and checked ({@link MatchSeeds.checkClientSeed}) */
  clientSeeds: readonly Bytes[];
  /** for a match of a committed season: where its commitment stands */
  season?: SeasonLeaf | null;
}

/**
 * A match's seeds and what follows from them: the server commitment and the binding
 * (published before play), every deck and the first dealer (tarneeb-fair-v2).
 */
export class MatchSeeds {
  private constructor(readonly serverCommitment: Bytes, readonly binding: Bytes, readonly matchId: Bytes,
                      private deriver: Deriver) {}

  static async create(options: MatchSeedsOptions): Promise<MatchSeeds> {
    if (options.clientSeeds.length !== 4) throw new RangeError("four client seeds, by seat");
    const commitment = await serverCommitment(options.serverSeed);
    const binding = await matchBinding(commitment, options.season ?? null);
    const deriver = await Deriver.create(options.serverSeed, options.matchId, [...options.clientSeeds], binding);
    return new MatchSeeds(commitment, binding, options.matchId, deriver);
  }

  /** The commitment of seat `seat` to its client seed (computed on the seat's device, in truth). */
  static clientCommitment(binding: Bytes, matchId: Bytes, seat: number, seed: Bytes): Promise<Bytes> {
    return clientCommitment(binding, matchId, seat, seed);
  }

  /** Whether a revealed client seed is the one seat `seat` committed to (compared in constant time). */
  static async checkClientSeed(binding: Bytes, matchId: Bytes, seat: number, seed: Bytes, commitment: Bytes): Promise<boolean> {
    return constantTimeEqual(await clientCommitment(binding, matchId, seat, seed), commitment);
  }

  /** The seat that deals first. */
  firstDealer(): Promise<number> {
    return this.deriver.firstDealer();
  }

  /** The deck of deal `dealNumber` (from 0): `deck[p]` is the card dealt `p`-th. */
  deck(dealNumber: number): Promise<number[]> {
    return this.deriver.deck(dealNumber);
  }

  /** Deal `dealNumber` by `dealer`: the cards go round from the dealer's left; the last is the dealer's 13th. */
  async deal(dealNumber: number, dealer: number): Promise<Deal> {
    const deck = await this.deck(dealNumber);
    const hands: number[][] = [[], [], [], []];
    deck.forEach((c, p) => hands[(dealer + 1 + p) & 3]!.push(c));
    return { hands, thirteenth: deck[51]! };
  }
}

/** The terms of a match as promised before play: what {@link makeReceipt} signs. */
export interface ReceiptOptions {
  /** a preset's name or the rule set, as given to the recorder */
  rules: string | RuleSet;
  /** the four seats, as given to the recorder */
  seats: readonly (string | { name: string; computer: boolean })[];
  matchId: Bytes;
  serverCommitment: Bytes;
  /** the four client commitments, in once every seat has sent its own */
  clientCommitments: readonly Bytes[];
  /** for a match of a committed season: where its commitment stands */
  season?: SeasonLeaf | null;
  /** the platform's signing key (a WebCrypto Ed25519 private key, or a function that signs) */
  key: SigningKey;
  /** the platform's raw public key (written into the receipt, as `tarneeb verify --receipt` reads it) */
  publicKey: Bytes;
  /** the dealing promised, as the recorder takes it (`"seeds"`, the default, or `"blind"`: tarneeb-blind-v3) or a
   *  protocol's name (tarneeb-fair-v2, tarneeb-blind-v1/v2/v3); signed, so the match cannot move to another (PROTOCOL.md §8.1) */
  dealing?: string;
}

/**
 * The receipt file of a match about to be played (the Python `make_receipt`): the terms
 * signed by the platform, a small JSON text each seat keeps. `tarneeb verify --receipt
 * FILE LOG` then checks that the log is the match that was promised (docs/PROTOCOL.md,
 * the receipt: `RECEIPT_TAG || binding || lp16(match id) || lp16(rules) || lp16(seat) × 4
 * || K_0 … K_3 || lp16(dealing)`, the rules and seats in the log header's canonical msgpack).
 */
export async function makeReceipt(options: ReceiptOptions): Promise<string> {
  const o = options;
  const rules = typeof o.rules === "string" ? PRESETS[o.rules] : o.rules;
  if (rules === undefined) throw new RangeError(`no preset named ${JSON.stringify(o.rules)}`);
  if (o.seats.length !== 4 || o.clientCommitments.length !== 4) throw new RangeError("a receipt names four seats and four client commitments");
  const seats = o.seats.map((s) => (typeof s === "string" ? [s, false] : [s.name, s.computer]));
  const map = rulesMap(rules);
  const leaf = o.season ?? null;
  const named = o.dealing ?? "seeds";
  const dealing = named === "seeds" ? "tarneeb-fair-v2" : named === "blind" ? "tarneeb-blind-v3" : named;
  if (!DEALINGS.includes(dealing)) throw new RangeError(`dealing ${JSON.stringify(named)}: it is seeds, blind or one of ${DEALINGS.join(", ")}`);
  const binding = await matchBinding(o.serverCommitment, leaf);
  const message = concat(RECEIPT_TAG, binding, lp16(o.matchId), lp16(encode(map)),
    ...seats.map((s) => lp16(encode(s))), ...o.clientCommitments, lp16(utf8(dealing)));
  const signature = await signBytes(o.key, message);
  const doc = {
    format: "tarneeb-receipt", protocol: "tarneeb-fair-v2", match_id: toHex(o.matchId), rules: map, seats,
    server_commitment: toHex(o.serverCommitment),
    season: leaf === null ? null : { index: leaf.index, size: leaf.size, root: toHex(leaf.root) },
    client_commitments: o.clientCommitments.map(toHex), dealing, public_key: toHex(o.publicKey),
    key_id: await keyId(o.publicKey), signature: toHex(signature),
  };
  return JSON.stringify(doc, null, 1) + "\n";
}
