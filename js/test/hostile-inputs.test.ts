/** `tarneeb-js verify` given hostile input from outside: a file name or an option holding a
 * line break, a keys file whose one value is a million characters, an error line longer
 * than a pipe holds read by a slow reader. Each is one whole line on stderr and exit 2, as
 * `tarneeb verify` says it: never a second, forged line, a stack overflow's words, or a
 * line cut short. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { pySplit, pyStrip } from "../src/text/names.js";

const cli = fileURLToPath(new URL("../src/cli.js", import.meta.url));
const log = fileURLToPath(new URL("../../../fixtures/matches/classic-01.tlog", import.meta.url));
const run = (...args: string[]) => spawnSync(process.execPath, [cli, "verify", ...args], { encoding: "utf8" });
const KEY = "a89157d99f7b82b68b92d05aaae7cf24a34a1610bd1f5c99af81f33c3b13726f";

test("a file name or an option holding a line break is one line, the break shown escaped", () => {
  const dir = mkdtempSync(join(tmpdir(), "tarneeb-js-"));
  const cases: [string[], string][] = [
    [["--key", join(dir, "k\ntarneeb-js: error: forged"), log], `${join(dir, "k")}\\ntarneeb-js: error: forged: cannot read public key file: no such file`],
    [["--keys", join(dir, "k\r\n.toml"), log], `${join(dir, "k")}\\r\\n.toml: cannot read keys file: no such file`],
    [["--bogus\nforged", log], "unknown option --bogus\\nforged"],
    [["--json=x\ny", log], "--json takes no value"],
  ];
  for (const [args, words] of cases) {
    const out = run(...args);
    assert.equal(out.status, 2, args.join(" "));
    assert.equal(out.stdout, "");
    assert.equal(out.stderr.split("\n").length, 2, JSON.stringify(out.stderr));  // one line and its end
    assert.ok(out.stderr.startsWith(`tarneeb-js: error: ${words}`), JSON.stringify(out.stderr));
    assert.doesNotMatch(out.stderr, /[\r\x1b]/);
  }
});

test("a keys file value of a million characters is refused by name, not with a stack overflow", () => {
  const dir = mkdtempSync(join(tmpdir(), "tarneeb-js-"));
  const cases: [string, string][] = [
    [`x = "${"a".repeat(1_000_000)}"\n`, "x: a raw Ed25519 key is 64 hex digits, not 1000000"],
    [`x = "${"aa ".repeat(300_000)}"\n`, "x: a raw Ed25519 key is 64 hex digits, not 899999"],
    [`x = """-----BEGIN PUBLIC KEY-----\n${"A".repeat(900_000)}\n-----END PUBLIC KEY-----\n"""\n`,
      "x: not a PEM public key (SubjectPublicKeyInfo, BEGIN PUBLIC KEY)"],
  ];
  for (const [text, words] of cases) {
    const keys = join(dir, "keys.toml");
    writeFileSync(keys, text);
    const out = run("--keys", keys, log);
    assert.equal(out.status, 2);
    assert.equal(out.stderr, `tarneeb-js: error: ${keys}: ${words}\n`);
  }
  // Python's strip() and split() of a long text, as the verifier needs them
  const long = "x".repeat(1_000_000);
  assert.equal(pyStrip(` \u3000${long}\t\n`), long);
  assert.equal(pyStrip("\u00a0 a\u{1F600}b \u2003"), "a\u{1F600}b");
  assert.deepEqual(pySplit(` ${long}\u3000b\u{1F600}c  d `), [long, "b\u{1F600}c", "d"]);
  assert.deepEqual(pySplit(" \t "), []);
});

test("an error line longer than a pipe holds reaches a slow reader whole", { skip: process.platform === "win32" }, () => {
  const dir = mkdtempSync(join(tmpdir(), "tarneeb-js-"));
  const keys = join(dir, "keys.toml");
  // a name that ends with a space: refused, and named in the line (about 400 KB)
  const name = "a b ".repeat(100_000);
  writeFileSync(keys, `"${name}" = "${KEY}"\n`);
  // the reader takes nothing for a second: the command has long written what it could
  const out = spawnSync("sh", ["-c", '"$0" "$1" verify --keys "$2" "$3" 2>&1 >/dev/null | (sleep 1; cat)', process.execPath, cli, keys, log],
    { encoding: "utf8", maxBuffer: 1 << 24 });
  assert.equal(out.stderr, "");
  assert.equal(out.stdout, `tarneeb-js: error: ${keys}: '${name}': a name a person cannot read as it is written: it begins or ends with a space\n`);
});
