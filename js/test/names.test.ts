/** Platform names and keys files: the names a verdict may print, and keys files refused. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { KeyFileError, checkPlatformNames, nameKeys, nameProblem, nameScripts, parseKeys } from "../src/index.js";

const KEY = "51df6c988191452e33e288d156d4f0459eea528b8c66cf386592b91b039ee41f";

test("names a person reads as written pass; invisible, spacing, compatibility forms do not", () => {
  assert.equal(nameProblem("Club Tarneeb"), null);
  assert.equal(nameProblem("نادي الورق"), null);
  assert.equal(nameProblem("card  room"), "two spaces in a row");
  assert.match(nameProblem("cardroom\u3000")!, /U\+3000 \(IDEOGRAPHIC SPACE\), a space other than/);
  assert.match(nameProblem("\u3164")!, /HANGUL FILLER\), a character that shows as nothing/);
  assert.match(nameProblem("\uff43\uff41\uff52\uff44")!, /not in Unicode's NFKC form, which is 'card'/);
  assert.match(nameProblem("\u0415R\u0410\u041c")!, /mix Cyrillic and Latin/);
});

test("scripts and look-alike keys", () => {
  assert.deepEqual(nameScripts("\u0415R\u0410\u041c"), ["Cyrillic", "Latin"]);
  assert.deepEqual(nameScripts("2024"), []);
  const [a, b] = [nameKeys("cardr00m"), nameKeys("cardroom")];
  assert.ok([...a].some((k) => b.has(k)));
});

test("a keys file with two names that look the same, or a weak key, is refused", () => {
  assert.equal(parseKeys(`"Club 400" = "${KEY}"`).size, 1);
  assert.throws(() => parseKeys(`cardroom = "${KEY}"\ncardr00m = "${"11".repeat(32)}"`, "k.toml"),
    (e: Error) => e instanceof KeyFileError && e.message.startsWith("k.toml: 'cardr00m': looks the same as 'cardroom'"));
  assert.throws(() => parseKeys(`cardroom = "01${"00".repeat(31)}"`), /weak Ed25519 public key 0100000000000000…/);
  assert.throws(() => parseKeys(`a = "${KEY}"\nb = "${KEY}"`), /b: the same key as a/);
  assert.throws(() => checkPlatformNames(["card\u200broom"]), /ZERO WIDTH SPACE/);
});

test("shown text keeps a character past U+FFFF whole and escapes a lone surrogate", async () => {
  const { shown } = await import("../src/text/names.js");
  // an emoji, a CJK Extension B character: one character each, shown as it is (they were
  // written as the escapes of their two halves, where Python shows them)
  assert.equal(shown("😀 bot \u{20000}.tlog"), "😀 bot \u{20000}.tlog");
  assert.equal(shown("a\ud83db\ude00c"), "a\\ud83db\\ude00c");
  assert.equal(shown("m\x1b[2J\u202e😀"), "m\\x1b[2J\\u202e😀");
});
