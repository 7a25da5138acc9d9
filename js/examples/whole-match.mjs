// A whole match written by a Node server, from the first seed to the signature: the
// platform's key, the server seed and the seats' client seeds with their commitments, the
// receipt each seat keeps, every deal derived from the seeds, this package's engine standing
// in for the server's own game (a simple computer player in every seat), each move recorded
// as it happens, the claims that close each hand, the end with the seed revealed, and the
// signature. The match is played to its end.
//
//   npm run build                                   # in js/ (or install the package: README)
//   node examples/whole-match.mjs [RULES [OUT.tlog]]  # RULES: a preset, eram41 by default
//   tarneeb verify --key OUT.pub.pem --receipt OUT.receipt.json OUT.tlog
//
// It writes OUT.tlog (match.tlog by default), the platform's public key OUT.pub.pem and
// the receipt OUT.receipt.json; a log that exists already is never written over.
import { writeFileSync } from "node:fs";
import {
  BID, Match, PASS, PRESETS, Phase, TRUMP, cardName, legalActions, trumpForDeal,
} from "tarneeb-js";
import {
  MatchRecorder, MatchSeeds, RecorderError, generateSigningKey, makeReceipt, newClientSeed, newMatchId,
  newServerSeed, publicKeyPem, rawPublicKey,
} from "tarneeb-js/server";

const [rulesName = "eram41", out = "match.tlog"] = process.argv.slice(2);
const rules = PRESETS[rulesName];
if (rules === undefined) {
  console.error(`unknown rules ${rulesName}: one of ${Object.keys(PRESETS).join(", ")}`);
  process.exit(2);
}
const stem = out.replace(/\.tlog$/, "");

// 1. Before play: the platform's key (long-lived: privateKeyFromPem of a `tarneeb keygen`
//    file, in truth), the server seed (secret until the end; its commitment is published)
//    and the match id.
const keys = await generateSigningKey();
const publicKey = await rawPublicKey(keys.publicKey);
writeFileSync(`${stem}.pub.pem`, publicKeyPem(publicKey));
const serverSeed = newServerSeed();
const matchId = newMatchId();

// 2. Each seat draws a client seed and sends only its commitment; the seeds are revealed
//    and checked against them before the first deal.
const clientSeeds = [0, 1, 2, 3].map(() => newClientSeed()); // on the seats' devices, in truth
const seeds = await MatchSeeds.create({ serverSeed, matchId, clientSeeds });
const clientCommitments = await Promise.all(clientSeeds.map((seed, seat) =>
  MatchSeeds.clientCommitment(seeds.binding, matchId, seat, seed)));

// 3. The receipt: the terms of the match, signed, a copy for every seat.
const seats = ["Ann", { name: "Bot 1", computer: true }, "Cat", { name: "Bot 3", computer: true }];
writeFileSync(`${stem}.receipt.json`, await makeReceipt({
  rules: rulesName, seats, matchId, serverCommitment: seeds.serverCommitment, clientCommitments,
  key: keys.privateKey, publicKey,
}));
for (let seat = 0; seat < 4; seat++) {
  if (!await MatchSeeds.checkClientSeed(seeds.binding, matchId, seat, clientSeeds[seat], clientCommitments[seat])) {
    throw new Error(`seat ${seat + 1}'s seed is not the one it committed to: the match stops`);
  }
}

// 4. The log: the header is written at once.
const firstDealer = await seeds.firstDealer();
let rec;
try {
  rec = MatchRecorder.create({
    path: out, rules: rulesName, seats, matchId, firstDealer, publicKey,
    serverCommitment: seeds.serverCommitment, clientCommitments, clientSeeds, durability: "flush",
  });
} catch (e) {
  if (!(e instanceof RecorderError)) throw e;
  console.error(`whole-match: ${e.message}`); // the log exists: it is never written over
  process.exit(2);
}

// A computer player: bids what its aces, kings and long trumps are worth (at least the
// lowest bid), passes an auction half the time, names its longest suit trump, plays a
// random legal card. Actions are numbers: a card 0-51, a bid BID + n, PASS, TRUMP + suit.
function choose(engine) {
  const actions = legalActions(engine);
  if (engine.phase === Phase.PLAY) return actions[Math.floor(Math.random() * actions.length)];
  const held = [];
  for (let c = 0; c < 52; c++) if (engine.holder[c] === engine.current) held.push(c);
  const bySuit = [0, 1, 2, 3].map((s) => held.filter((c) => Math.floor(c / 13) === s).length);
  if (engine.phase === Phase.TRUMP) return TRUMP + bySuit.indexOf(Math.max(...bySuit));
  if (actions.includes(PASS) && Math.random() < 0.5) return PASS;
  const trumps = engine.trump === null ? Math.max(...bySuit) : bySuit[engine.trump];
  const strength = held.filter((c) => c % 13 >= 11).length + Math.max(0, trumps - 3);
  return actions.find((a) => a >= BID + strength && a < PASS) ?? actions[0];
}

// 5. Play, each move recorded as it happens; the platform's claims close each hand.
const engine = new Match(rules, firstDealer);
const firstTrick = [];
while (!engine.isOver) {
  const { hands, thirteenth } = await seeds.deal(engine.dealNumber, engine.dealer);
  engine.deal(hands, thirteenth);
  // the dealer's last card is shown to the table where the rules take the trump from it
  rec.deal({ dealer: engine.dealer, revealed: rules.trump === "revealed_mate" ? thirteenth : null });
  while (engine.phase !== Phase.DEAL && engine.phase !== Phase.OVER) {
    const seat = engine.current;
    const action = choose(engine);
    engine.applyUnchecked(action); // legal: legalActions gave it
    if (action === PASS) rec.call({ seat, bid: "pass" });
    else if (action >= TRUMP) rec.nameTrump({ suit: action - TRUMP });
    else if (action >= BID) rec.call({ seat, bid: action - BID });
    else {
      rec.play({ card: action });
      if (firstTrick.length < 4) firstTrick.push(`${typeof seats[seat] === "string" ? seats[seat] : seats[seat].name} ${cardName(action)}`);
    }
  }
  const hand = engine.history[engine.history.length - 1];
  if (hand.cancelled) rec.claim({ totals: hand.totals });
  else { // the trump the rules derive (null where it was named: a move already)
    rec.claim({ tricks: hand.tricks, scores: hand.scores, totals: hand.totals,
      trump: trumpForDeal(rules, thirteenth) });
  }
}

// 6. The end: the winner, the server seed revealed, the signature.
rec.finish({ winner: engine.winner, serverSeed });
await rec.sign(keys.privateKey);
console.log(`first trick: ${firstTrick.join(", ")}`);
console.log(`wrote ${out}: ${rulesName}, ${engine.history.length} hands, won by team ${engine.winner + 1}; `
  + `check it: tarneeb verify --key ${stem}.pub.pem --receipt ${stem}.receipt.json ${out}`);
