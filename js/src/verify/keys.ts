/**
 * The platform's keys as the user names them (as `tarneeb verify --key` and `--keys`):
 * one public key file in PEM, or a keys file — TOML, one line per platform, its name as
 * the key and its Ed25519 public key as the value (64 hex digits, or a PEM block in a
 * multi-line string). Names follow the rules of `names.ts`; weak keys, a key under two
 * names and unreadable files are refused with the Python verifier's words.
 */
import { KEYS_HINT, readToml } from "../text/tomltext.js";
import { type Bytes, equal, toHex } from "../text/bytes.js";
import { weakKey } from "../protocol/crypto.js";
import { KeyFileError, checkPlatformNames, pyStrip } from "../text/names.js";

export { KeyFileError };

const SPKI_ED25519 = Uint8Array.of(0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00);

function weak(raw: Bytes): string | null {
  const what = weakKey(raw);
  return what === null ? null : `weak Ed25519 public key ${toHex(raw).slice(0, 16)}…: ${what}`;
}

/** The raw Ed25519 key of one SubjectPublicKeyInfo PEM block; `source` names it in errors. */
export function publicKeyFromPem(pem: string, source = "public key"): Bytes {
  const end = pem.lastIndexOf("-----END");
  if (pem.split("-----BEGIN").length - 1 > 1 || (end >= 0 && (pem.slice(end).trim().includes("\n")
    || !pem.replace(/[ \t\n\r\v\f]+$/, "").endsWith("-----")))) {
    // a keys file's last key (a PEM block in a TOML string: '-----"""') is not taken alone
    throw new KeyFileError(`${source}: one PEM public key and nothing else, not two blocks or text after the key`);
  }
  // white space inside the base64 is skipped, as the Python verifier's PEM reader does
  const block = /-----BEGIN PUBLIC KEY-----\r?\n([A-Za-z0-9+/= \t\v\f\r\n]+?)-----END PUBLIC KEY-----/.exec(pem);
  let der: Uint8Array | null = null;
  if (block) {
    try {
      der = Uint8Array.from(atob(block[1]!.replace(/[ \t\v\f\r\n]+/g, "")), (c) => c.charCodeAt(0));
    } catch {
      der = null;
    }
  }
  if (der === null || der.length < 2 || der[0] !== 0x30) throw new KeyFileError(`${source}: not a PEM public key (SubjectPublicKeyInfo, BEGIN PUBLIC KEY)`);
  if (der.length !== 44 || SPKI_ED25519.some((b, i) => der![i] !== b)) throw new KeyFileError(`${source}: the key is not an Ed25519 key`);
  const raw = der.slice(12);
  const w = weak(raw);
  if (w !== null) throw new KeyFileError(`${source}: ${w}`);
  return raw;
}

/** Platform keys from the text of a keys file: platform name → raw public key. */
export function parseKeys(text: string, source = "keys file"): Map<string, Bytes> {
  const doc = readToml(text, source, KEYS_HINT, (m) => new KeyFileError(m));
  checkPlatformNames(Object.keys(doc), source);
  const keys = new Map<string, Bytes>();
  const seen: [Bytes, string][] = [];
  for (const [name, value] of Object.entries(doc)) {
    const where = `${source}: ${name}`;
    if (typeof value !== "string") throw new KeyFileError(`${where}: the value must be a string: 64 hex digits or a PEM public key`);
    const t = pyStrip(value);
    let raw: Bytes;
    if (t.startsWith("-----BEGIN")) raw = publicKeyFromPem(t, where);
    else {
      // Python's bytes.fromhex: pairs of digits, ASCII white space between them only
      const digits = t.replace(/[ \t\n\r\v\f]+/g, "");
      if (!/^([0-9a-fA-F]{2}[ \t\n\r\v\f]*)*$/.test(t) || digits.length % 2) throw new KeyFileError(`${where}: not hex and not a PEM public key`);
      if (digits.length !== 64) throw new KeyFileError(`${where}: a raw Ed25519 key is 64 hex digits, not ${[...t].length}`);
      raw = Uint8Array.from(digits.match(/../g)!.map((h) => parseInt(h, 16)));
      const w = weak(raw);
      if (w !== null) throw new KeyFileError(`${where}: ${w}`);
    }
    const twin = seen.find(([k]) => equal(k, raw));
    if (twin) throw new KeyFileError(`${where}: the same key as ${twin[1]}`);
    seen.push([raw, name]);
    keys.set(name, raw);
  }
  // (every log would be "none of the 0 platform keys given": a finding)
  if (keys.size === 0) throw new KeyFileError(`${source}: names no platform: a keys file gives a line a platform, its name = "64 hex digits" or a PEM public key`);
  return keys;
}

/** The text of a key or keys file: UTF-8 without a byte-order mark (a TOML reader may skip
 *  one or not, and a browser's File.text() replaces bytes that are not UTF-8). */
export function keyFileText(data: Bytes, path: string): string {
  if (data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf) {
    throw new KeyFileError(`${path}: it begins with a byte-order mark (U+FEFF); a keys file is UTF-8 without one`);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(data);
  } catch {
    throw new KeyFileError(`${path}: not UTF-8 text`);
  }
}

/** Read a keys file's bytes (UTF-8 text) as `parseKeys` does. */
export function keysFromBytes(data: Bytes, path: string): Map<string, Bytes> {
  return parseKeys(keyFileText(data, path), path);
}
