// Drives the js package's MatchRecorder as a Node server would, for tests/test_js_recorder.py.
//
//   node record_match.mjs replay MATCH.json OUT.tlog PRIVATE.pem DURABILITY [PACE_MS]
//     writes the match of MATCH.json (tarneeb export's JSON form) move by move, signed with
//     the key; prints "ack N SIZE" once each value is written (and, in fsync and group
//     modes, durable: waitDurable), PACE_MS milliseconds apart; a match on the seed
//     protocol gets its receipt too, OUT.tlog.receipt.json.
//   node record_match.mjs play RULES OUT.tlog PUBLIC.pem DURABILITY
//     plays a whole match as docs/PLATFORM.md's recipe does: fresh seeds and key, the deals
//     derived from the seeds, the package's engine as the server's, the first legal action
//     each move; the seats' receipt in OUT.tlog.receipt.json; prints the server seed in hex.
import { readFileSync, writeFileSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { Match, Phase } from "../../js/dist/src/engine.js";
import { PRESETS, rulesFromMap } from "../../js/dist/src/rules.js";
import { legalActions } from "../../js/dist/src/engine-server.js";
import {
  MatchRecorder, MatchSeeds, generateSigningKey, newClientSeed, newMatchId, newServerSeed,
  makeReceipt, privateKeyFromPem, publicKeyOf, publicKeyPem, rawPublicKey,
} from "../../js/dist/src/server.js";

const hex = (t) => (t === null ? null : Uint8Array.from(Buffer.from(t, "hex")));
const toHex = (b) => Buffer.from(b).toString("hex");
const [mode, ...args] = process.argv.slice(2);

async function replay([matchPath, out, keyPath, durability, pace = "0"]) {
  const records = JSON.parse(readFileSync(matchPath, "utf8")).records;
  const h = records[0];
  const key = await privateKeyFromPem(readFileSync(keyPath, "utf8"), true);
  const rules = rulesFromMap(h.rules);
  const b = h.batch;
  const rec = MatchRecorder.create({
    path: out, rules, seats: h.seats, matchId: hex(h.match_id), firstDealer: h.first_dealer,
    publicKey: await publicKeyOf(key), serverCommitment: hex(h.server_commitment),
    clientCommitments: h.client_commitments && h.client_commitments.map(hex),
    clientSeeds: h.client_seeds && h.client_seeds.map(hex),
    season: b && { index: b.index, size: b.size, path: b.path.map(hex), root: hex(b.root), headSignature: hex(b.head_signature) },
    durability,
  });
  if (h.server_commitment !== null) {
    writeFileSync(`${out}.receipt.json`, await makeReceipt({ rules, seats: h.seats, matchId: hex(h.match_id),
      serverCommitment: hex(h.server_commitment), clientCommitments: h.client_commitments.map(hex),
      season: b && { index: b.index, size: b.size, root: hex(b.root) }, key, publicKey: await publicKeyOf(key) }));
  }
  let n = 0;
  const ack = async () => {
    if (durability !== "flush") await rec.waitDurable();
    process.stdout.write(`ack ${++n} ${rec.writer.size}\n`);
    if (Number(pace) > 0) await sleep(Number(pace));
  };
  await ack();
  const named = rules.trump === "named";
  for (const hand of records.filter((r) => r.type === "hand")) {
    rec.deal({ dealer: hand.dealer, revealed: hand.revealed, hands: hand.deal && hand.deal.hands,
      thirteenth: hand.deal && hand.deal.thirteenth });
    await ack();
    const timer = new Set(hand.timer);
    let k = 0;
    for (const c of hand.calls) {
      rec.call({ seat: c.seat, bid: c.call, timer: timer.has(k++) });
      await ack();
    }
    if (named && hand.trump !== null) {
      rec.nameTrump({ suit: hand.trump, timer: timer.has(k++) });
      await ack();
    }
    for (const card of hand.plays) {
      rec.play({ card, timer: timer.has(k++) });
      await ack();
    }
    if (hand.closed !== false) {
      rec.claim({ totals: hand.totals, tricks: hand.tricks, scores: hand.scores, trump: named ? null : hand.trump });
      await ack();
    }
  }
  const end = records.find((r) => r.type === "end");
  if (end.abandoned) {
    const a = end.abandoned;
    rec.abandon({ cause: a.cause, seat: a.seat, reason: a.reason, serverSeed: hex(end.server_seed) });
  } else {
    rec.finish({ winner: end.winner, serverSeed: hex(end.server_seed) });
  }
  await ack();
  await rec.sign(key);
  process.stdout.write(`signed ${rec.writer.size}\n`);
}

// a computer player: bids its aces, kings and long trumps (at least the lowest bid), passes
// an auction half the time, plays a random legal card
function choose(engine, actions) {
  if (engine.phase === Phase.PLAY || engine.phase === Phase.TRUMP) return actions[Math.floor(Math.random() * actions.length)];
  if (actions.includes(66) && Math.random() < 0.5) return 66;
  const held = [];
  for (let c = 0; c < 52; c++) if (engine.holder[c] === engine.current) held.push(c);
  const trumps = held.filter((c) => Math.floor(c / 13) === engine.trump).length;
  const strength = held.filter((c) => c % 13 >= 11).length + Math.max(0, trumps - 3);
  return actions.find((a) => a >= 52 + strength && a < 66) ?? actions[0];
}

async function play([rulesName, out, publicPath, durability]) {
  const keys = await generateSigningKey();
  const publicKey = await rawPublicKey(keys.publicKey);
  writeFileSync(publicPath, publicKeyPem(publicKey));
  const serverSeed = newServerSeed();
  const matchId = newMatchId();
  const clientSeeds = [0, 1, 2, 3].map(() => newClientSeed());
  const seeds = await MatchSeeds.create({ serverSeed, matchId, clientSeeds });
  const clientCommitments = await Promise.all(clientSeeds.map((s, seat) =>
    MatchSeeds.clientCommitment(seeds.binding, matchId, seat, s)));
  for (let seat = 0; seat < 4; seat++) {
    if (!await MatchSeeds.checkClientSeed(seeds.binding, matchId, seat, clientSeeds[seat], clientCommitments[seat])) throw new Error("seed");
  }
  const rules = PRESETS[rulesName];
  const seats = ["Ann", { name: "Bot 1", computer: true }, "Cat", { name: "Bot 3", computer: true }];
  writeFileSync(`${out}.receipt.json`, await makeReceipt({ rules: rulesName, seats, matchId,
    serverCommitment: seeds.serverCommitment, clientCommitments, key: keys.privateKey, publicKey }));
  const firstDealer = await seeds.firstDealer();
  const rec = MatchRecorder.create({
    path: out, rules: rulesName, seats,
    matchId, firstDealer, publicKey, serverCommitment: seeds.serverCommitment, clientCommitments, clientSeeds, durability,
  });
  const engine = new Match(rules, firstDealer);
  while (!engine.isOver) {
    const deal = await seeds.deal(engine.dealNumber, engine.dealer);
    engine.deal(deal.hands, deal.thirteenth);
    rec.deal({ dealer: engine.dealer, revealed: rules.trump === "revealed_mate" ? deal.thirteenth : null });
    while (engine.phase !== Phase.DEAL && engine.phase !== Phase.OVER) {
      const seat = engine.current;
      const actions = legalActions(engine);
      const action = choose(engine, actions);
      engine.applyUnchecked(action);
      if (action === 66) rec.call({ seat, bid: "pass" });
      else if (action >= 67) rec.nameTrump({ suit: action - 67 });
      else if (action >= 52) rec.call({ seat, bid: action - 52 });
      else rec.play({ card: action });
    }
    const hand = engine.history[engine.history.length - 1];
    if (hand.cancelled) rec.claim({ totals: hand.totals });
    else {
      const trump = rules.trump === "named" ? null
        : rules.trump === "fixed" ? rules.fixed_trump : 3 - Math.floor(hand.thirteenth / 13);
      rec.claim({ tricks: hand.tricks, scores: hand.scores, totals: hand.totals, trump });
    }
    if (engine.history.length === 60 && !engine.isOver) break;
  }
  if (engine.isOver) rec.finish({ winner: engine.winner, serverSeed });
  else rec.abandon({ cause: "resignation", seat: 1, reason: "left after 60 hands", serverSeed });
  await rec.sign(keys.privateKey);
  process.stdout.write(`${toHex(serverSeed)} ${engine.history.length}\n`);
}

await (mode === "replay" ? replay(args) : play(args));
