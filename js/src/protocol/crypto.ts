/**
 * The primitives, all from WebCrypto (`crypto.subtle`): SHA-256, HMAC-SHA256 and Ed25519.
 * Nothing here is hand-written cryptography; the only arithmetic is the weak-key test of
 * PROTOCOL.md §8 (a comparison of the key's y coordinate with a short list).
 */
import { type Bytes, concat, toHex } from "../text/bytes.js";

// WebCrypto: global in browsers and Node ≥ 19; Node 18 keeps it in node:crypto
const subtle: SubtleCrypto = globalThis.crypto?.subtle
  ?? ((await import("node:crypto")).webcrypto as unknown as Crypto).subtle;
// In Node, node:crypto's synchronous hashes and HMACs (the same OpenSSL primitives WebCrypto
// uses there, without a hop to the thread pool per call: a deal takes a few HMAC blocks, and
// that hop cost more than the whole replay). The name is built at run time so that a browser
// bundle neither includes nor asks for it; browsers take WebCrypto.
type NodeCrypto = typeof import("node:crypto");
const nodeCrypto: NodeCrypto | null = typeof process !== "undefined" && process.versions?.node
  ? await import(["node", "crypto"].join(":")) as NodeCrypto : null;
// the platform keys seen: a verifier checks many logs under a few keys
const nodeKeys = new Map<string, import("node:crypto").KeyObject>();
const view = (b: Uint8Array): Bytes => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);

// WebCrypto takes bytes backed by an ArrayBuffer; every Bytes here is
const buf = (b: Bytes): Uint8Array<ArrayBuffer> => b as Uint8Array<ArrayBuffer>;

export async function sha256(data: Bytes): Promise<Bytes> {
  if (nodeCrypto) return view(nodeCrypto.createHash("sha256").update(data).digest());
  return new Uint8Array(await subtle.digest("SHA-256", buf(data)));
}

/** An HMAC-SHA256 key, imported once and used for many messages. */
export type HmacKey = CryptoKey | { raw: Bytes };

export async function hmacKey(key: Bytes): Promise<HmacKey> {
  if (nodeCrypto) return { raw: key };
  return subtle.importKey("raw", buf(key), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
}

/** HMAC-SHA256 at once, where the runtime has it synchronously (Node); else null. */
export function hmacNow(key: HmacKey, message: Bytes): Bytes | null {
  return "raw" in key ? view(nodeCrypto!.createHmac("sha256", key.raw).update(message).digest()) : null;
}

export async function hmac(key: HmacKey, message: Bytes): Promise<Bytes> {
  if ("raw" in key) return view(nodeCrypto!.createHmac("sha256", key.raw).update(message).digest());
  return new Uint8Array(await subtle.sign("HMAC", key, buf(message)));
}

/** The key id: the first 16 hex digits of SHA-256 of the raw 32-byte key. */
export async function keyId(raw: Bytes): Promise<string> {
  return toHex(await sha256(raw)).slice(0, 16);
}

const P = (1n << 255n) - 19n;
// y of the points of order 8 (libsodium's blocklist, c7176a70…ac037a little-endian)
const Y8 = 0x7a03ac9277fdc74ec6cc392cfa53202a0f67100d760b3cba4fd84d3d706a17c7n;
// the y coordinates of the eight points of small order: order 1 (y = 1), 2 (y = p − 1),
// 4 (y = 0), 8 (y = ±Y8)
const SMALL_ORDER_Y = new Set([0n, 1n, P - 1n, Y8, P - Y8]);

/** Why a raw Ed25519 public key is weak (PROTOCOL.md §8), or `null` for a sound one. */
export function weakKey(raw: Bytes): string | null {
  if (raw.length !== 32) return "not 32 bytes";
  let y = 0n;
  for (let i = 31; i >= 0; i--) y = (y << 8n) | BigInt(raw[i]!);
  y &= (1n << 255n) - 1n;
  if (y >= P) return "not canonically encoded (y ≥ p)";
  if (SMALL_ORDER_Y.has(y)) return "a point of small order" + (y === 1n ? " (the identity)" : "");
  return null;
}

/** Whether `signature` is an Ed25519 signature of `message` under the raw key `raw`. */
export async function ed25519Verify(raw: Bytes, message: Bytes, signature: Bytes): Promise<boolean> {
  try {
    if (nodeCrypto) {
      const hex = toHex(raw);
      let key = nodeKeys.get(hex);
      if (key === undefined) {
        // as a JWK (RFC 8037): Node makes the key object from it about 13x faster than
        // from the same key in DER (SubjectPublicKeyInfo), which it parses as ASN.1
        key = nodeCrypto.createPublicKey({ key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(raw).toString("base64url") }, format: "jwk" });
        if (nodeKeys.size > 64) nodeKeys.clear();
        nodeKeys.set(hex, key);
      }
      return nodeCrypto.verify(null, message, key, signature);
    }
    const key = await subtle.importKey("raw", buf(raw), { name: "Ed25519" }, false, ["verify"]);
    return await subtle.verify({ name: "Ed25519" }, key, buf(signature), buf(message));
  } catch {
    return false; // bytes that are no point on the curve verify nothing
  }
}

/** The raw key of a SubjectPublicKeyInfo PEM block of an Ed25519 key (RFC 8410). */
export function rawKeyFromPem(text: string): Bytes {
  const blocks = text.match(/-----BEGIN PUBLIC KEY-----([\s\S]*?)-----END PUBLIC KEY-----/g);
  if (!blocks || blocks.length !== 1) throw new Error("not one PEM public key");
  const rest = text.replace(blocks[0]!, "").trim();
  if (rest) throw new Error("text besides the PEM public key");
  const b64 = blocks[0]!.replace(/-----[A-Z ]+-----/g, "").replace(/\s+/g, "");
  const der = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const prefix = Uint8Array.of(0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00);
  if (der.length !== 44 || prefix.some((b, i) => der[i] !== b)) throw new Error("not an Ed25519 public key");
  return der.slice(12);
}

export { concat };
