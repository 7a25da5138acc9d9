// A game server's side of a match, in Node.js: it writes the log move by move as the
// match is played, with the tarneeb-js package's MatchRecorder, and signs it with a key
// of its own.
//
//   node server.mjs MATCH.json OUT.tlog KEY.pub.pem [flush|fsync|group:MS]
//
// The moves and the platform's claims come from MATCH.json, a match in tarneeb's JSON
// form (`tarneeb export`), standing in for the server's game engine; the seeds and
// commitments are taken from it too. What the server writes is its own: the header
// names its public key (written to KEY.pub.pem), every value is appended the moment
// it happens, and the signature is its own. `tarneeb verify --key KEY.pub.pem OUT.tlog`
// then finds the log clean.

import { readFileSync, writeFileSync } from "node:fs";
import { rulesFromMap } from "tarneeb-js";
import {
  MatchRecorder, generateSigningKey, publicKeyPem, rawPublicKey,
} from "tarneeb-js/server";

const [matchPath, outPath, keyPath, durability = "flush"] = process.argv.slice(2);
if (!keyPath) {
  console.error("usage: node server.mjs MATCH.json OUT.tlog KEY.pub.pem [flush|fsync|group:MS]");
  process.exit(2);
}
const hex = (text) => (text === null ? null : Uint8Array.from(Buffer.from(text, "hex")));
const records = JSON.parse(readFileSync(matchPath, "utf8")).records;
const header = records[0];
const end = records.find((r) => r.type === "end");

const keys = await generateSigningKey(); // the platform's key (WebCrypto Ed25519)
const publicKey = await rawPublicKey(keys.publicKey);
writeFileSync(keyPath, publicKeyPem(publicKey));

const b = header.batch;
const rec = MatchRecorder.create({
  path: outPath, // created; never overwritten
  rules: rulesFromMap(header.rules), // the rule set, house options included; or a preset's name
  seats: header.seats, // [{ name, computer }] × 4, in play order
  matchId: hex(header.match_id),
  firstDealer: header.first_dealer,
  publicKey,
  serverCommitment: hex(header.server_commitment),
  clientCommitments: header.client_commitments && header.client_commitments.map(hex),
  clientSeeds: header.client_seeds && header.client_seeds.map(hex),
  season: b && { index: b.index, size: b.size, path: b.path.map(hex), root: hex(b.root),
    headSignature: hex(b.head_signature) },
  durability,
});

let moves = 0;
const named = header.rules.trump === "named";
for (const hand of records.filter((r) => r.type === "hand")) {
  rec.deal({ dealer: hand.dealer, revealed: hand.revealed, // cards by name ("10♥") or 0-51
    hands: hand.deal && hand.deal.hands, thirteenth: hand.deal && hand.deal.thirteenth });
  const timer = new Set(hand.timer);
  let k = 0; // moves are numbered calls, the trump named, cards
  for (const c of hand.calls) rec.call({ seat: c.seat, bid: c.call, timer: timer.has(k++) });
  if (named && hand.trump !== null) rec.nameTrump({ suit: hand.trump, timer: timer.has(k++) });
  for (const card of hand.plays) rec.play({ card, timer: timer.has(k++) });
  moves += k;
  if (hand.closed !== false) {
    rec.claim({ tricks: hand.tricks, scores: hand.scores, totals: hand.totals,
      trump: named ? null : hand.trump });
  }
}
if (end.abandoned) {
  const a = end.abandoned;
  rec.abandon({ cause: a.cause, seat: a.seat, reason: a.reason, serverSeed: hex(end.server_seed) });
} else {
  rec.finish({ winner: end.winner, serverSeed: hex(end.server_seed) });
}
await rec.sign(keys.privateKey); // Ed25519 over every byte; the log is synced and closed
console.log(`wrote ${outPath}: ${moves} moves, ${rec.writer.size} bytes`);
