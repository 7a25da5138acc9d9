#!/usr/bin/env node
/**
 * `tarneeb-js verify LOG… [--json] [--key PEM | --keys FILE] [--root HEX] [--receipt FILE]
 * [--server-seed HEX]`: the verdicts, one JSON array for all logs with --json; exit 0 every
 * log clean, 1 findings, 2 a log not read (or a bad option, key, keys file or receipt).
 * Without --key or --keys, the user's keys file is read if there is one, as `tarneeb verify`
 * reads it (`keys.toml` in tarneeb's config directory, `~/.config/tarneeb` on Linux).
 */
import { existsSync, readFileSync, readdirSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { type Bytes, fromHex } from "./bytes.js";
import { KeyFileError, keysFromBytes, publicKeyFromPem } from "./keys.js";
import { jsonShown, shown } from "./names.js";
import { verdictLines } from "./people.js";
import { ReceiptError, readReceipt } from "./receipt.js";
import { type Options } from "./replay.js";
import { DEFAULT_LIMITS, type Limits } from "./stream.js";
import { type VerdictJson, exitCode, verifyBytes } from "./verify.js";

const USAGE = "usage: tarneeb-js verify LOG... [--json] [--key PUBLIC_KEY_PEM] [--keys KEYS_TOML] [--root HEX] [--receipt FILE] [--server-seed HEX] [--require-proof] [--max-bytes N] [--max-records N] [--max-hands N]";

/** The user's keys file, where `tarneeb verify` looks for it (platformdirs' user config dir). */
function defaultKeysPath(): string {
  if (process.platform === "win32") return join(process.env.APPDATA ?? join(homedir(), "AppData", "Roaming"), "tarneeb", "keys.toml");
  if (process.platform === "darwin") return join(homedir(), "Library", "Application Support", "tarneeb", "keys.toml");
  const base = process.env.XDG_CONFIG_HOME?.trim() ? process.env.XDG_CONFIG_HOME : join(homedir(), ".config");
  return join(base!, "tarneeb", "keys.toml");
}

/** A file's bytes, or the Python verifier's words for why it cannot be read. */
function readFor(path: string, what: string): Uint8Array {
  try {
    if (statSync(path).isDirectory()) fail(`${path}: cannot read ${what}: it is a directory`);
    return new Uint8Array(readFileSync(path));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") fail(`${path}: cannot read ${what}: no such file`);
    fail(`${path}: cannot read ${what}: ${(e as Error).message}`);
  }
}

/** `parse_hex` of the Python verifier: 0x allowed, surrounding spaces ignored, an exact length. */
function parseHex(text: string, what: string, length: number): Bytes {
  let t = text.trim();
  if (t.startsWith("0x") || t.startsWith("0X")) t = t.slice(2);
  if (t.length % 2) fail(`${what}: not hex (${t.length} hex digits; hex needs an even number)`);
  let raw: Bytes;
  try {
    if (!/^[0-9a-fA-F]*$/.test(t)) throw new Error();
    raw = fromHex(t);
  } catch {
    fail(`${what}: not hex (use the digits 0-9 and a-f)`);
  }
  if (raw.length !== length) fail(`${what}: ${raw.length} byte${raw.length === 1 ? "" : "s"} (${t.length} hex digits); it must be ${length} bytes (${2 * length} hex digits)`);
  return raw;
}

function fail(message: string): never {
  process.stderr.write(`tarneeb-js: error: ${message.split("\n").map(shown).join("\n")}\n`);
  process.exit(2);
}

function expand(path: string): string[] {
  try {
    if (statSync(path).isDirectory()) return readdirSync(path).filter((f) => f.endsWith(".tlog")).sort().map((f) => join(path, f));
  } catch {
    // a path that does not exist is reported as unreadable below
  }
  return [path];
}

async function main(argv: string[]): Promise<number> {
  if (argv[0] === "--help" || argv[0] === "-h" || (argv[0] === "verify" && (argv.includes("--help") || argv.includes("-h")))) {
    process.stdout.write(`${USAGE}\n\nVerify tarneeb logs: exit 0 every log clean, 1 findings, 2 a log not read or bad input.\n`);
    return 0;
  }
  if (argv[0] !== "verify") fail(USAGE);
  const opts: Options = {};
  const limits: Limits = { ...DEFAULT_LIMITS };
  let json = false;
  let keyPath: string | null = null;
  let keysPath: string | null = null;
  let receiptPath: string | null = null;
  let seedHex: string | null = null;
  let rootHex: string | null = null;
  const paths: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => argv[++i] ?? fail(`${a} needs a value`);
    if (a === "--json") json = true;
    else if (a === "--require-proof") opts.requireProof = true;
    else if (a === "--key") keyPath = value();
    else if (a === "--keys") keysPath = value();
    else if (a === "--receipt") receiptPath = value();
    else if (a === "--server-seed") seedHex = value();
    else if (a === "--root") rootHex = value();
    else if (a === "--max-bytes" || a === "--max-records" || a === "--max-hands") {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 1) fail(`${a} must be a whole number of at least 1`);
      if (a === "--max-bytes") limits.maxBytes = n;
      else if (a === "--max-records") limits.maxRecords = n;
      else limits.maxHands = n;
    } else if (a.startsWith("-")) fail(`unknown option ${a}\n${USAGE}`);
    else paths.push(...expand(a));
  }
  if (!paths.length) fail(USAGE);
  // in the order `tarneeb verify` reads them, so the first bad one is the one named
  if (seedHex !== null) opts.serverSeed = parseHex(seedHex, "server seed", 32);
  if (keyPath !== null) {
    const data = readFor(keyPath, "public key file");
    try {
      opts.publicKey = publicKeyFromPem(new TextDecoder().decode(data), keyPath);
    } catch (e) {
      if (!(e instanceof KeyFileError)) throw e;
      if (new TextDecoder().decode(data.subarray(0, 64 * 1024)).includes("PRIVATE KEY-----")) {
        const pub = keyPath.replace(/(\.[^./\\]*)?$/, (ext) => `.pub${ext}`);
        fail(existsSync(pub) ? `${keyPath}: a private key; --key pins the platform's public key: give ${pub} (tarneeb keygen wrote it beside the private key)`
          : `${keyPath}: a private key; --key pins the platform's public key: make it with 'tarneeb pubkey ${keyPath} > ${pub}' and give that`);
      }
      fail(e.message);
    }
  }
  const keysFile = keysPath ?? defaultKeysPath();
  if (keysPath !== null || existsSync(keysFile)) {
    try {
      opts.keys = keysFromBytes(readFor(keysFile, "keys file"), keysFile);
    } catch (e) {
      if (e instanceof KeyFileError) fail(e.message);
      throw e;
    }
  }
  if (rootHex !== null) opts.root = parseHex(rootHex, "season root", 32);
  if (receiptPath !== null) {
    let data: Uint8Array;
    try {
      data = new Uint8Array(readFileSync(receiptPath));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      fail(`${receiptPath}: cannot read: ${code === "ENOENT" ? "No such file or directory" : code === "EISDIR" ? "Is a directory" : (e as Error).message}`);
    }
    try {
      opts.receipts = [await readReceipt(data, receiptPath)];
    } catch (e) {
      if (e instanceof ReceiptError) fail(e.message);
      throw e;
    }
    if (paths.length !== 1) fail(`--receipt is the receipt of one match: give one LOG, not ${paths.length}`);
  }
  const verdicts: VerdictJson[] = [];
  for (const path of paths) {
    let data: Uint8Array;
    try {
      const size = statSync(path).size;
      if (size > limits.maxBytes) {
        verdicts.push(await verifyBytes(new Uint8Array(limits.maxBytes + 1), path, opts, limits));
        continue;
      }
      data = new Uint8Array(readFileSync(path));
    } catch (e) {
      verdicts.push({ ...(await verifyBytes(new Uint8Array(0), path, opts, limits)), error: `${path}: cannot read: ${(e as Error).message}` });
      continue;
    }
    verdicts.push(await verifyBytes(data, path, opts, limits));
  }
  if (json) process.stdout.write(jsonShown(JSON.stringify(verdicts, null, 1)) + "\n");
  else {
    for (const v of verdicts) {
      const { lines, error } = verdictLines(v);
      process.stdout.write(lines.map((l) => `${l}\n`).join(""));
      if (error !== null) process.stderr.write(`tarneeb-js: error: ${error}\n`);
    }
  }
  return exitCode(verdicts);
}

// a reader that went away (`| head`): what is left to write is dropped, and the exit code
// stays the verdict's, as the Python command does; no unhandled 'error' event
for (const stream of [process.stdout, process.stderr]) {
  stream.on("error", (e: NodeJS.ErrnoException) => {
    if (e.code !== "EPIPE" && e.code !== "ERR_STREAM_DESTROYED") throw e;
  });
}

// exitCode, not exit(): a piped stdout is written out before the process ends
main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
}, (e: unknown) => {
  process.stderr.write(`tarneeb-js: error: ${shown((e as Error).message)}\n`);
  process.exitCode = 2;
});
