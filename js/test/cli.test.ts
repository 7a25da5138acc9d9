/** The command: one JSON array for many logs, and the exit codes of `tarneeb verify`. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const cli = fileURLToPath(new URL("../src/cli.js", import.meta.url));
const fixtures = fileURLToPath(new URL("../../../fixtures/", import.meta.url));
const run = (...args: string[]) => spawnSync(process.execPath, [cli, "verify", ...args], { encoding: "utf8" });

test("a clean log exits 0, a log with findings 1, bytes that are no log 2", () => {
  const dir = mkdtempSync(join(tmpdir(), "tarneeb-js-"));
  const junk = join(dir, "junk.tlog");
  writeFileSync(junk, "not a log");
  assert.equal(run(`${fixtures}matches/eram41-01.tlog`).status, 0);
  assert.equal(run(`${fixtures}altered/renege-eram41.tlog`).status, 1);
  assert.equal(run(junk).status, 2);
  const both = run("--json", `${fixtures}matches/eram41-01.tlog`, `${fixtures}altered/renege-eram41.tlog`);
  assert.equal(both.status, 1);
  const verdicts = JSON.parse(both.stdout);
  assert.deepEqual(verdicts.map((v: { verdict: string }) => v.verdict), ["clean", "findings"]);
  assert.ok(verdicts[1].findings.every((f: { kind: string }) => f.kind === "renege"));
});

test("a log dealt blind: clean exits 0, a pass its proof does not prove 1", () => {
  const out = run("--json", `${fixtures}matches/qahwa5-blind.tlog`);
  assert.equal(out.status, 0);
  assert.equal(JSON.parse(out.stdout)[0].verdict, "clean");
  assert.equal(run(`${fixtures}altered/wrong-shuffle-qahwa5-forged-shuffle-proof.tlog`).status, 1);
});

test("a pinned key other than the log's is a key-mismatch, and the signature is checked under it", () => {
  const s = JSON.parse(readFileSync(`${fixtures}vectors/signature.json`, "utf8"));
  const dir = mkdtempSync(join(tmpdir(), "tarneeb-js-"));
  const pem = join(dir, "other.pem");
  writeFileSync(pem, s.public_key_pem);
  const out = run("--json", "--key", pem, `${fixtures}matches/eram41-01.tlog`);
  assert.equal(out.status, 1);
  const kinds = JSON.parse(out.stdout)[0].findings.map((f: { kind: string }) => f.kind);
  assert.deepEqual(kinds.sort(), ["broken-signature", "key-mismatch"]);
});

test("a directory is verified log by log, in one JSON array (one node process for many logs)", () => {
  const out = run("--json", `${fixtures}matches`);
  const verdicts = JSON.parse(out.stdout);
  assert.ok(verdicts.length > 40);
  assert.ok(verdicts.filter((v: { verdict: string }) => v.verdict === "clean").length >= 40);
});

// the characters no text from outside may bring to the terminal: C0 (ESC, CR), DEL, C1 (CSI),
// the bidi overrides and isolates
const HOSTILE: [string, string][] = [
  ["\x1b[2J", "\\x1b[2J"], ["\x1b[1A\x1b[2K", "\\x1b[1A\\x1b[2K"], ["\x1b[8m", "\\x1b[8m"],
  ["\r", "\\r"], ["\x7f", "\\x7f"], ["\x9b", "\\x9b"], ["\u202e", "\\u202e"], ["\u2066", "\\u2066"],
];
// eslint-disable-next-line no-control-regex
const RAW = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

test("file names holding terminal escapes are printed escaped, as text and as JSON", () => {
  const dir = mkdtempSync(join(tmpdir(), "tarneeb-js-"));
  const log = readFileSync(`${fixtures}matches/eram41-01.tlog`);
  for (const [i, [c]] of HOSTILE.entries()) writeFileSync(join(dir, `m${i}${c}x.tlog`), log);
  const text = run(dir);
  assert.equal(text.status, 0);
  assert.ok(!RAW.test(text.stdout + text.stderr), JSON.stringify(text.stdout));
  for (const [i, [, escaped]] of HOSTILE.entries()) assert.ok(text.stdout.includes(`m${i}${escaped}x.tlog: `));
  const json = run("--json", dir);
  assert.equal(json.status, 0);
  assert.ok(!RAW.test(json.stdout));
  const paths = JSON.parse(json.stdout).map((v: { path: string }) => v.path);
  assert.deepEqual(paths, HOSTILE.map(([c], i) => join(dir, `m${i}${c}x.tlog`)));
  const missing = run(join(dir, "gone\x1b[2J.tlog"));
  assert.equal(missing.status, 2);
  assert.ok(!RAW.test(missing.stdout + missing.stderr));
});

test("into a closed pipe the command ends quietly with the verdict's exit code", () => {
  for (let i = 0; i < 6; i++) {
    const out = spawnSync("sh", ["-c", `"${process.execPath}" "${cli}" verify "${fixtures}altered/renege-classic.tlog" | head -c 1 >/dev/null; exit 0`], { encoding: "utf8" });
    assert.equal(out.stderr, "", out.stderr);
  }
});
