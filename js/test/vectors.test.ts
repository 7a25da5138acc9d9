/** The published vectors (fixtures/vectors/*.json) reproduced by the JS verifier's own code. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { encode } from "@msgpack/msgpack";
import { fromHex, toHex } from "../src/text/bytes.js";
import { ed25519Verify, keyId, rawKeyFromPem, sha256 } from "../src/protocol/crypto.js";
import {
  Deriver, clientCommitment, matchBinding, seasonHeadMessage, serverCommitment, verifyInclusion,
} from "../src/protocol/derive.js";
import { receiptMessage } from "../src/verify/receipt.js";
import { parseLog } from "../src/log/records.js";
import { PRESETS, rulesMap, trumpForDeal } from "../src/rules/rules.js";
import { verifyBytes } from "../src/verify/verify.js";

const dir = fileURLToPath(new URL("../../../fixtures/vectors/", import.meta.url));
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const load = (name: string): any => JSON.parse(readFileSync(dir + name, "utf8"));
const season = (s: { index: number; size: number; root: string } | null) =>
  s === null ? null : { index: s.index, size: s.size, root: fromHex(s.root) };

test("deals.json: commitments, binding, first dealer, every deck", async () => {
  const d = load("deals.json");
  assert.ok(d.vectors.length >= 5);
  for (const v of d.vectors) {
    const commitment = await serverCommitment(fromHex(v.server_seed));
    assert.equal(toHex(commitment), v.server_commitment, v.name);
    const binding = await matchBinding(commitment, season(v.season));
    assert.equal(toHex(binding), v.binding, v.name);
    const seeds = v.client_seeds.map(fromHex);
    for (let s = 0; s < 4; s++) {
      assert.equal(toHex(await clientCommitment(binding, fromHex(v.match_id), s, seeds[s])), v.client_commitments[s]);
    }
    const deriver = await Deriver.create(fromHex(v.server_seed), fromHex(v.match_id), seeds, binding);
    assert.equal(await deriver.firstDealer(), v.first_dealer.first_dealer, v.name);
    for (const deal of v.deals) {
      assert.equal(toHex(deriver.dealMessage(deal.deal_number)), deal.message);
      const deck = await deriver.deck(deal.deal_number);
      assert.deepEqual(deck, deal.deck, `${v.name} deal ${deal.deal_number}`);
      assert.equal(deck[51], deal.thirteenth);
      const bySeat: number[][] = [[], [], [], []];
      deck.forEach((c, p) => bySeat[(deal.dealer + 1 + p) % 4]!.push(c));
      assert.deepEqual(bySeat.map((h) => h.sort((a, b) => a - b)), deal.cards_by_seat);
    }
  }
});

test("deals.json: the first dealers drawn from other seeds", async () => {
  for (const f of load("deals.json").first_dealers) {
    const seed = fromHex(f.server_seed);
    const binding = await matchBinding(await serverCommitment(seed), null);
    const deriver = await Deriver.create(seed, fromHex(f.match_id), f.client_seeds.map(fromHex), binding);
    assert.equal(await deriver.firstDealer(), f.first_dealer);
  }
});

test("commitments.json", async () => {
  const c = load("commitments.json");
  const list = <T>(x: T | T[]): T[] => (Array.isArray(x) ? x : [x]);
  for (const s of list(c.server)) assert.equal(toHex(await serverCommitment(fromHex(s.server_seed))), s.commitment);
  for (const b of list(c.bindings)) assert.equal(toHex(await matchBinding(fromHex(b.server_commitment), season(b.season))), b.binding);
  for (const k of list(c.client)) {
    assert.equal(toHex(await clientCommitment(fromHex(k.binding), fromHex(k.match_id), k.seat, fromHex(k.client_seed))), k.commitment);
  }
});

test("merkle.json: every inclusion proof, and a proof under another size or index fails", async () => {
  const m = load("merkle.json");
  for (const t of m.trees) {
    assert.equal(toHex(seasonHeadMessage(t.size, fromHex(t.root))), t.head_message);
    for (let i = 0; i < t.size; i++) {
      const proof = t.proofs[i].map(fromHex);
      assert.ok(await verifyInclusion(fromHex(m.leaves[i]), i, t.size, proof, fromHex(t.root)), `size ${t.size} leaf ${i}`);
      if (t.size > 1) assert.ok(!await verifyInclusion(fromHex(m.leaves[i]), (i + 1) % t.size, t.size, proof, fromHex(t.root)));
    }
  }
});

test("signature.json: signatures, key id, the PEM key, the season head", async () => {
  const s = load("signature.json");
  const key = fromHex(s.public_key_raw);
  assert.equal(toHex(rawKeyFromPem(s.public_key_pem)), s.public_key_raw);
  assert.equal(await keyId(key), s.key_id);
  for (const sig of s.signatures) {
    assert.ok(await ed25519Verify(key, fromHex(sig.message), fromHex(sig.signature)));
    assert.ok(!await ed25519Verify(key, fromHex(sig.message + "00"), fromHex(sig.signature)));
  }
  assert.equal(toHex(seasonHeadMessage(s.season_head.size, fromHex(s.season_head.root))), s.season_head.message);
  assert.ok(await ed25519Verify(key, fromHex(s.season_head.message), fromHex(s.season_head.signature)));
  // the receipt, as made before receipts named the dealing protocol and as made now
  const r = s.receipt;
  const terms = {
    matchId: fromHex(r.match_id), rules: fromHex(r.rules), seats: r.seats.map(fromHex), serverCommitment: fromHex(r.server_commitment),
    season: season(r.season), clientCommitments: r.client_commitments.map(fromHex),
  };
  assert.equal(toHex(await receiptMessage({ ...terms, dealing: null })), r.message);
  assert.equal(toHex(await receiptMessage({ ...terms, dealing: r.dealing })), r.dealing_message);
  assert.ok(await ed25519Verify(key, fromHex(r.dealing_message), fromHex(r.dealing_signature)));
  assert.ok(!await ed25519Verify(key, fromHex(r.message), fromHex(r.dealing_signature)));
});

test("hands.json: the trump each preset takes from a deal", async () => {
  const h = load("hands.json");
  let n = 0;
  for (const v of h.vectors) {
    for (const deal of v.deals) {
      assert.equal(deal.deck[51], deal.thirteenth);
      deal.hands.forEach((cards: number[], s: number) => {
        assert.equal(cards.reduce((m, c) => m + 2 ** c, 0), deal.hand_masks[s]);
      });
      for (const [name, trump] of Object.entries(deal.trump as Record<string, number | null>)) {
        assert.equal(trumpForDeal(PRESETS[name]!, deal.thirteenth), trump, `${v.name} ${name}`);
        assert.equal(PRESETS[name]!.trump === "revealed_mate" ? deal.thirteenth : null, deal.revealed[name]);
        n++;
      }
    }
  }
  assert.ok(n >= 20);
});

test("log-*.json: each log reads, signs and verifies clean, its rules map in the one form", async () => {
  for (const name of ["classic", "eram41", "qahwa41", "sahrat41", "sahrat400", "cancelled-hand", "recorded-deals", "abandoned", "season"]) {
    const v = load(`log-${name}.json`);
    const bytes = fromHex(v.log);
    const log = parseLog(bytes);
    assert.equal(log.signedBytes.length, v.signed_bytes, name);
    assert.equal(toHex(log.signature!), v.signature);
    assert.ok(await ed25519Verify(fromHex(v.public_key), log.signedBytes, log.signature!));
    assert.deepEqual(encode(rulesMap(log.header.rules)), encode(log.header.rulesMap));
    const verdict = await verifyBytes(bytes, name);
    assert.equal(verdict.verdict, "clean", `${name}: ${JSON.stringify(verdict.findings)}`);
    assert.equal(verdict.hands, v.json.records.filter((r: { type: string }) => r.type === "hand").length);
    // one changed byte in the signed part is a finding, never clean
    const bad = new Uint8Array(bytes);
    bad[v.signed_bytes - 1]! ^= 1;
    assert.notEqual((await verifyBytes(bad, name)).verdict, "clean");
  }
  assert.equal(toHex(await sha256(new Uint8Array(0))), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
});
