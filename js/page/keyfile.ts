/**
 * The platform's public key as a player gives it: a PEM file (`-----BEGIN PUBLIC KEY-----`,
 * an Ed25519 SubjectPublicKeyInfo, as `tarneeb keygen` writes it) or 64 hex digits.
 */
import { KeyFileError, publicKeyFromPem } from "../src/verify/keys.js";
import { weakKey } from "../src/protocol/crypto.js";
import { toHex } from "../src/text/bytes.js";

export interface ToldKey {
  raw: Uint8Array;
  /** the first 16 hex digits of SHA-256 of the raw key, as verdicts name keys */
  id: string;
}

/** The raw 32-byte key in `text`; throws an Error saying what is wrong. A PEM file is
 *  read as `tarneeb verify --key` reads it: one block and nothing else, so a keys file
 *  (whose first PEM block is one platform's key among others) or two blocks are not
 *  taken as the one key given. */
export async function keyFromText(text: string): Promise<ToldKey> {
  const t = text.trim();
  let raw: Uint8Array;
  if (/^[0-9a-fA-F]{64}$/.test(t)) {
    raw = new Uint8Array(t.match(/../g)!.map((b) => parseInt(b, 16)));
    // refused as the PEM form of the same key is (and as a keys file's hex key is)
    const weak = weakKey(raw);
    if (weak !== null) throw new KeyFileError(`the key given: weak Ed25519 public key ${toHex(raw).slice(0, 16)}…: ${weak}`);
  } else {
    if (!t.includes("-----BEGIN")) throw new Error("not a public key: give the platform's PEM file (BEGIN PUBLIC KEY) or 64 hex digits");
    raw = publicKeyFromPem(t, "the key given");
  }
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", raw as BufferSource));
  const id = Array.from(digest.subarray(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
  return { raw, id };
}
