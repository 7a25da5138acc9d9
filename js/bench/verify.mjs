// Time the TypeScript verifier in process over logs: node js/bench/verify.mjs ROUNDS LOG...
// prints {"seconds": best round, "hands": dealing attempts replayed, "logs": n, "verdicts": {...}}
import { readFileSync } from "node:fs";
import { verifyBytes } from "../dist/src/index.js";

const [rounds, ...paths] = process.argv.slice(2);
const logs = paths.map((p) => new Uint8Array(readFileSync(p)));
let best = Infinity;
let hands = 0;
const verdicts = {};
for (let r = 0; r < Number(rounds); r++) {
  hands = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < logs.length; i++) {
    const v = await verifyBytes(logs[i], paths[i]);
    hands += v.hands;
    verdicts[v.verdict] = (verdicts[v.verdict] ?? 0) + (r === 0 ? 1 : 0);
  }
  best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e9);
}
process.stdout.write(JSON.stringify({ seconds: best, hands, logs: logs.length, verdicts }) + "\n");
