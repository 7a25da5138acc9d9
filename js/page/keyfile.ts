/**
 * The platform's public key as a player gives it: a PEM file (`-----BEGIN PUBLIC KEY-----`,
 * an Ed25519 SubjectPublicKeyInfo, as `tarneeb keygen` writes it) or 64 hex digits.
 */
const SPKI_PREFIX = [0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00];

export interface ToldKey {
  raw: Uint8Array;
  /** the first 16 hex digits of SHA-256 of the raw key, as verdicts name keys */
  id: string;
}

/** The raw 32-byte key in `text`; throws an Error saying what is wrong. */
export async function keyFromText(text: string): Promise<ToldKey> {
  const t = text.trim();
  let raw: Uint8Array;
  if (/^[0-9a-fA-F]{64}$/.test(t)) {
    raw = new Uint8Array(t.match(/../g)!.map((b) => parseInt(b, 16)));
  } else {
    const m = /-----BEGIN PUBLIC KEY-----([A-Za-z0-9+/=\s]+)-----END PUBLIC KEY-----/.exec(t);
    if (!m) throw new Error("not a public key: give the platform's PEM file (BEGIN PUBLIC KEY) or 64 hex digits");
    const der = Uint8Array.from(atob(m[1]!.replace(/\s+/g, "")), (c) => c.charCodeAt(0));
    if (der.length !== 44 || !SPKI_PREFIX.every((b, i) => der[i] === b)) throw new Error("not an Ed25519 public key");
    raw = der.subarray(12);
  }
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", raw as BufferSource));
  const id = Array.from(digest.subarray(0, 8), (b) => b.toString(16).padStart(2, "0")).join("");
  return { raw, id };
}
