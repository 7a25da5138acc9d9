/** tarneeb-engine: the line protocol's answers, and the planted bug. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { EngineServer } from "../src/engine-server.js";
import { PRESETS, rulesMap } from "../src/rules/rules.js";

const hello = { id: 1, cmd: "hello", protocol: "tarneeb-engine", versions: [1] };

function firstTrick(server: EngineServer): unknown {
  // qahwa41 (hearts trump), seat 0 all ♣, 1 all ♦, 2 all ♥, 3 all ♠; seat 2, void in clubs, trumps
  const suits = [0, 1, 2, 3].map((s) => Array.from({ length: 13 }, (_, r) => s * 13 + r));
  let id = 1;
  const ask = (r: Record<string, unknown>) => server.answer({ id: id++, ...r })!;
  ask(hello);
  assert.deepEqual(ask({ cmd: "new_match", rules: rulesMap(PRESETS.qahwa41!), first_dealer: 3 }), { id: 2, ok: true });
  assert.deepEqual(ask({ cmd: "deal", hands: suits, thirteenth: 51 }), { id: 3, ok: true });
  assert.deepEqual(ask({ cmd: "legal_actions" }), { id: 4, actions: [54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65] });
  for (const a of [54, 54, 54, 57, 0, 13, 26, 39]) assert.equal(ask({ cmd: "apply", action: a }).ok, true);
  return ask({ cmd: "tricks" }).tricks;
}

test("the reference engine and its planted bug", () => {
  assert.deepEqual(firstTrick(new EngineServer()), [0, 0, 1, 0]);
  assert.deepEqual(firstTrick(new EngineServer("broken-trump")), [1, 0, 0, 0]);
});

test("what it cannot do is an error answer, and the process serves on", () => {
  const s = new EngineServer();
  assert.deepEqual(s.answer({ id: 1, cmd: "to_move" }), { id: 1, error: "new_match was not called" });
  assert.match(String(s.answer({ id: 2, cmd: "new_match", rules: { name: "eram41" }, first_dealer: 0 })!.error), /rules this engine cannot play/);
  s.answer({ id: 3, cmd: "new_match", rules: rulesMap(PRESETS.classic!), first_dealer: 0 });
  assert.match(String(s.answer({ id: 4, cmd: "deal", hands: [[1, 2]], thirteenth: null })!.error), /four hands/);
  assert.equal(s.answer({ id: 5, cmd: "quit" }), null);
});

test("the command answers one line a request on stdout", () => {
  const bin = fileURLToPath(new URL("../src/engine-server.js", import.meta.url));
  const input = [hello, { id: 2, cmd: "bid" }, { id: 3, cmd: "quit" }, { id: 4, cmd: "to_move" }].map((r) => JSON.stringify(r)).join("\n") + "\n";
  const out = spawnSync(process.execPath, [bin], { input, encoding: "utf8" });
  assert.equal(out.status, 0);
  const lines = out.stdout.trim().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((l) => l.id), [1, 2]); // nothing after quit
  assert.equal(lines[0].engine, "tarneeb-js reference engine");
  assert.equal(spawnSync(process.execPath, [bin, "--planted-bug", "nope"], { encoding: "utf8" }).status, 2);
});
