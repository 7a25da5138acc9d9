/** The verifier page's key input read as `tarneeb verify --key` reads a key: a keys file
 *  whose first PEM block is one platform's key among others, or a file of two PEM keys,
 *  is not taken as "the key you gave" (the page then reads a keys file as a keys file). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { keyFromText } from "../page/keyfile.js";
import { parseKeys } from "../src/index.js";

const PEM_A = "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEAgCVoVavAtiMTNAh9pSg9sg+94aporAM15vCoSNiZBv4=\n-----END PUBLIC KEY-----";
const PEM_B = "-----BEGIN PUBLIC KEY-----\nMCowBQYDK2VwAyEA2lTwaiCfcTvsevzv6Gg5yRm0R2GGJdz0B+F92OMQU6s=\n-----END PUBLIC KEY-----";
const HEX_B = "da54f06a209f713bec7afcefe86839c919b447618625dcf407e17dd8e31053ab";

test("one PEM key, or 64 hex digits, is the key given", async () => {
  assert.equal((await keyFromText(`${PEM_B}\n`)).id, (await keyFromText(HEX_B)).id);
  assert.equal((await keyFromText(`platform key:\n${PEM_B}\n`)).id, (await keyFromText(HEX_B)).id);
});

test("a keys file holding a PEM block is not one key: it reads as the keys file it is", async () => {
  const keysFile = `"Club" = """\n${PEM_A}\n"""\ncardroom = "${HEX_B}"\n`;
  await assert.rejects(keyFromText(keysFile));
  assert.deepEqual([...parseKeys(keysFile).keys()], ["Club", "cardroom"]);
});

test("two PEM blocks are refused, as tarneeb verify --key refuses them", async () => {
  await assert.rejects(keyFromText(`${PEM_A}\n${PEM_B}\n`), /one PEM public key and nothing else/);
});

test("a keys file whose last key is a PEM block closed on its END line is not one key", async () => {
  // the block's END line ends the TOML string: the key alone would be taken for the file
  const keysFile = `cardroom = "${HEX_B}"\n"Club" = """\n${PEM_A}"""\n`;
  await assert.rejects(keyFromText(keysFile), /one PEM public key and nothing else/);
  assert.deepEqual([...parseKeys(keysFile).keys()], ["cardroom", "Club"]);
});

test("a weak key given as 64 hex digits is refused, as its PEM form is", async () => {
  await assert.rejects(keyFromText("01" + "00".repeat(31)), /weak Ed25519 public key/);
});
