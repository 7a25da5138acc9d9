/**
 * Taking a log up again after a power loss that kept a card and its proof (an fsync covered
 * them) and saved the file's length for the next value but not its block: zeros after the
 * proof. A proof ends in a zero byte about one time in 30; the reader cannot tell that zero
 * from the fill and drops the record, and resume dropped the card with it: a move acknowledged,
 * durable, lost. Given the server seed, the proof is judged, proves, and the card is kept (as
 * the Python recorder keeps it); a proof a crash tore is still cut.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseLog } from "../src/log/records.js";
import { MatchRecorder } from "../src/server.js";

const root = fileURLToPath(new URL("../../../", import.meta.url));
const FIXTURE = new Uint8Array(readFileSync(root + "fixtures/matches/qahwa5-blind.tlog"));
const dir = mkdtempSync(join(tmpdir(), "tarneeb-crashes-"));

/** Where each card whose proof record ends in a zero byte ends (a card and its proof), before the end record. */
function proofsEndingInZero(): number[] {
  const log = parseLog(FIXTURE);
  const out: number[] = [];
  for (let e = 1; e < (log.endOffset ?? 0); e++) {
    // a card move, then a proof record [6, position, bin8 64]: 1 + 1 + 1 + 1 + 2 + 64 bytes
    const s = e - 70;
    if (s < 0 || FIXTURE[e - 1] !== 0 || FIXTURE[s + 1] !== 0x93 || FIXTURE[s + 2] !== 0x06 || FIXTURE[s + 4] !== 0xc4) continue;
    out.push(e);
  }
  return out;
}

test("a card whose proof ends in a zero byte survives a zero-filled tail", async () => {
  const serverSeed = parseLog(FIXTURE).end!.serverSeed;
  const ends = proofsEndingInZero();
  assert.ok(ends.length > 0);
  const path = join(dir, "m.tlog");
  for (const e of ends) {
    writeFileSync(path, new Uint8Array([...FIXTURE.subarray(0, e), ...new Uint8Array(4096 - (e % 4096))]));
    let rec = await MatchRecorder.resume({ path, durability: "fsync", serverSeed });
    assert.equal(rec.writer.size, e, rec.cut ?? "");
    assert.match(rec.cut ?? "", /is zeros, not records/);
    rec.close();
    assert.deepEqual(new Uint8Array(readFileSync(path)), FIXTURE.subarray(0, e));
    let own = 0;
    while (FIXTURE[e - 1 - own] === 0) own++;
    writeFileSync(path, new Uint8Array([...FIXTURE.subarray(0, e - own - 1), ...new Uint8Array(4096)]));
    rec = await MatchRecorder.resume({ path, serverSeed });
    assert.ok(rec.writer.size < e - 66, rec.cut ?? ""); // torn: the card cut with its proof
    rec.close();
  }
});
