/** Whole numbers in a keys file: read as TOML 1.0 reads them, as the Python verifier does. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { KeyFileError } from "../src/text/names.js";
import { parseKeys } from "../src/verify/keys.js";
import { KEYS_HINT } from "../src/text/tomltext.js";

const said = (text: string): string => {
  try {
    parseKeys(text, "keys.toml");
    return "read";
  } catch (e) {
    assert.ok(e instanceof KeyFileError);
    return (e as Error).message;
  }
};

test("a whole number of TOML's 64 bits is read, even past 2^53: the keys file is refused for its value", () => {
  for (const n of ["9007199254740993", "9223372036854775807", "-9223372036854775808", "0x7fffffffffffffff"]) {
    assert.equal(said(`"Club 400" = ${n}\n`), "keys.toml: Club 400: the value must be a string: 64 hex digits or a PEM public key", n);
  }
});

test("a whole number past TOML's 64 bits makes the file no TOML, from its line", () => {
  for (const n of ["9223372036854775808", "-9223372036854775809", "18446744073709551616", "0xffffffffffffffff"]) {
    assert.equal(said(`a = "x"\nb = [1, { c = ${n} }]\n`), `keys.toml: not TOML from line 2: ${KEYS_HINT}`, n);
  }
});
