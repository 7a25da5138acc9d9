#!/usr/bin/env node
/**
 * `tarneeb-js verify LOG… [--json] [--key PEM] [--server-seed HEX]`: the verdicts, one JSON
 * array for all logs with --json; exit 0 every log clean, 1 findings, 2 a log not verified.
 */
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fromHex } from "./bytes.js";
import { rawKeyFromPem } from "./crypto.js";
import { type Options } from "./replay.js";
import { DEFAULT_LIMITS, type Limits } from "./stream.js";
import { type VerdictJson, exitCode, verifyBytes } from "./verify.js";

const USAGE = "usage: tarneeb-js verify LOG... [--json] [--key PUBLIC_KEY_PEM] [--server-seed HEX] [--root HEX] [--max-bytes N] [--max-records N] [--max-hands N]";

function fail(message: string): never {
  process.stderr.write(`tarneeb-js: error: ${message}\n`);
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
  if (argv[0] !== "verify") fail(USAGE);
  const opts: Options = {};
  const limits: Limits = { ...DEFAULT_LIMITS };
  let json = false;
  const paths: string[] = [];
  for (let i = 1; i < argv.length; i++) {
    const a = argv[i]!;
    const value = () => argv[++i] ?? fail(`${a} needs a value`);
    if (a === "--json") json = true;
    else if (a === "--key") {
      const file = value();
      try {
        opts.publicKey = rawKeyFromPem(readFileSync(file, "utf8"));
      } catch (e) {
        fail(`${file}: not one Ed25519 public key in PEM: ${(e as Error).message}`);
      }
    } else if (a === "--server-seed") {
      try {
        opts.serverSeed = fromHex(value());
      } catch {
        fail("--server-seed must be hex");
      }
      if (opts.serverSeed!.length !== 32) fail("--server-seed must be 32 bytes");
    } else if (a === "--root") {
      try {
        opts.root = fromHex(value());
      } catch {
        fail("--root must be hex");
      }
      if (opts.root!.length !== 32) fail("--root must be 32 bytes");
    } else if (a === "--max-bytes" || a === "--max-records" || a === "--max-hands") {
      const n = Number(value());
      if (!Number.isInteger(n) || n < 1) fail(`${a} must be a whole number of at least 1`);
      if (a === "--max-bytes") limits.maxBytes = n;
      else if (a === "--max-records") limits.maxRecords = n;
      else limits.maxHands = n;
    } else if (a.startsWith("-")) fail(`unknown option ${a}\n${USAGE}`);
    else paths.push(...expand(a));
  }
  if (!paths.length) fail(USAGE);
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
  if (json) process.stdout.write(JSON.stringify(verdicts, null, 1) + "\n");
  else {
    for (const v of verdicts) {
      if (v.error !== null) {
        process.stdout.write(`${v.error}\n`);
        continue;
      }
      process.stdout.write(`${v.path}: ${v.verdict === "clean" ? "CLEAN" : `${v.findings.length} finding(s)`}; ${v.signed}\n`);
      process.stdout.write(`  ${v.hands} dealing attempts replayed, ${v.played} played, ${v.deals_proven ? "deals proven by the committed seeds" : v.recorded_deals ? "deals recorded by the platform, not proven" : "deals not proven"}\n`);
      for (const f of v.findings) {
        const where = [["hand", f.hand === null ? null : f.hand + 1], ["trick", f.trick], ["seat", f.seat]]
          .filter(([, x]) => x !== null).map(([k, x]) => `${k} ${x}`).join(", ") || "match";
        process.stdout.write(`  ${f.kind} (${where}): ${f.message}\n`);
      }
    }
  }
  return exitCode(verdicts);
}

// exitCode, not exit(): a piped stdout is written out before the process ends
main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
}, (e: unknown) => {
  process.stderr.write(`tarneeb-js: error: ${(e as Error).message}\n`);
  process.exitCode = 2;
});
