// A game server's side of a match, in Node.js: it writes the log move by move as the
// match is played and signs it with a key of its own.
//
//   node server.mjs MATCH.json OUT.tlog KEY.pub.pem [flush|fsync]
//
// The moves and the platform's claims come from MATCH.json, a match in tarneeb's JSON
// form (`tarneeb export`), standing in for the server's game engine; the seeds and
// commitments are taken from it too. What the server writes is its own: the header
// names its public key (written to KEY.pub.pem), every value is appended the moment
// it happens, and the signature is its own. `tarneeb verify --key KEY.pub.pem OUT.tlog`
// then finds the log clean.

import { readFileSync, writeFileSync } from "node:fs";
import { generateKeyPairSync } from "node:crypto";
import { LogWriter, PASS, card, hex, rawPublicKey, suit } from "./tarneeb-log.mjs";

const [matchPath, outPath, keyPath, durability = "flush"] = process.argv.slice(2);
if (!keyPath) {
  console.error("usage: node server.mjs MATCH.json OUT.tlog KEY.pub.pem [flush|fsync]");
  process.exit(2);
}
const records = JSON.parse(readFileSync(matchPath, "utf8")).records;
const header = records[0];
const end = records.find((r) => r.type === "end");

const { publicKey, privateKey } = generateKeyPairSync("ed25519"); // the platform's key
writeFileSync(keyPath, publicKey.export({ type: "spki", format: "pem" }));

const log = new LogWriter(outPath, { durability });
log.header({
  rules: header.rules, // every field, in FORMAT.md's order (JSON keeps it)
  seats: header.seats,
  matchId: hex(header.match_id),
  serverCommitment: hex(header.server_commitment),
  batch: header.batch && [header.batch.index, header.batch.size,
    header.batch.path.map(hex), hex(header.batch.root), hex(header.batch.head_signature)],
  clientCommitments: header.client_commitments && header.client_commitments.map(hex),
  clientSeeds: header.client_seeds && header.client_seeds.map(hex),
  firstDealer: header.first_dealer,
  publicKey: rawPublicKey(publicKey),
});

let moves = 0;
for (const hand of records.filter((r) => r.type === "hand")) {
  const deal = hand.deal && [...hand.deal.hands.map((cards) =>
    cards.reduce((mask, c) => mask + 2 ** card(c), 0)),
  hand.deal.thirteenth === null ? null : card(hand.deal.thirteenth)];
  log.deal(hand.deal_number, hand.dealer, hand.revealed && card(hand.revealed), deal);
  const timer = new Set(hand.timer);
  let k = 0; // moves are numbered calls, the trump named, cards
  for (const c of hand.calls) {
    log.call(c.seat, c.call === "pass" ? PASS : c.call, timer.has(k++));
  }
  if (header.rules.trump === "named" && hand.trump !== null) {
    log.nameTrump(suit(hand.trump), timer.has(k++));
  }
  for (const c of hand.plays) log.play(card(c), timer.has(k++));
  moves += k;
  if (hand.closed !== false) {
    log.claims({ trump: hand.trump && suit(hand.trump), tricks: hand.tricks,
      scores: hand.scores, totals: hand.totals });
  }
}
log.end({ winner: end.winner, serverSeed: hex(end.server_seed),
  abandoned: end.abandoned && [end.abandoned.cause, end.abandoned.seat, end.abandoned.reason] });
log.sign(privateKey);
console.log(`wrote ${outPath}: ${moves} moves, ${log.size} bytes`);
