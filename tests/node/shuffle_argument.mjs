// Checks tarneeb-blind-v3 shuffle arguments with the js package's verifier, for
// tests/test_js_shuffle_argument.py.
//
//   node shuffle_argument.mjs < CASES.json
//     CASES.json: {"cases": [{"y", "in": [...], "out": [...], "proof", "ctx"}, ...]}, all hex.
//     Prints {"accepted": [...], "passes": [...], "generators": {"G", "H", "Q", "h"}}: each
//     case's verdict by verifyShuffleArgument (false where a statement element does not
//     decode), by verifyPass on the proof's two bins (elements, then scalars) as the log holds
//     them, and the argument's generators.
import { readFileSync } from "node:fs";
import { argumentGenerators, argumentShape, verifyPass, verifyShuffleArgument } from "../../js/dist/src/protocol/shuffleargument.js";
import { decode } from "../../js/dist/src/protocol/shuffleproof.js";

const hex = (t) => Uint8Array.from(Buffer.from(t, "hex"));
const toHex = (p) => Buffer.from(p.toBytes()).toString("hex");
const { cases } = JSON.parse(readFileSync(0, "utf8"));
const accepted = [], passes = [];
for (const c of cases) {
  const y = decode(hex(c.y)), deckIn = c.in.map((e) => decode(hex(e))), deckOut = c.out.map((e) => decode(hex(e)));
  const proof = hex(c.proof), ctx = hex(c.ctx);
  const statement = y !== null && !deckIn.includes(null) && !deckOut.includes(null);
  accepted.push(statement && verifyShuffleArgument(y, deckIn, deckOut, proof, ctx));
  const split = 32 * argumentShape(deckIn.length)[2]; // the elements, then the scalars
  passes.push(statement && verifyPass(y, deckIn, deckOut, proof.subarray(0, split), proof.subarray(split), ctx));
}
const g = argumentGenerators();
const generators = { G: g.g.map(toHex), H: g.h.map(toHex), Q: toHex(g.q), h: toHex(g.hh) };
process.stdout.write(JSON.stringify({ accepted, passes, generators }));
