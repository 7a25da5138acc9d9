// Drives the js package's MatchRecorder as a Node server would, for tests/test_js_recorder.py
// and tests/test_js_resume.py.
//
//   node record_match.mjs replay MATCH.json OUT.tlog PRIVATE.pem DURABILITY [PACE_MS [STOP]]
//     writes the match of MATCH.json (tarneeb export's JSON form; dealt blind too) move by
//     move, signed with the key; prints "ack N SIZE" once each value is written (and, in fsync
//     and group modes, durable: waitDurable), PACE_MS milliseconds apart; with STOP, prints
//     "stopped" after the STOP-th value and waits there (to be killed). A match on the seed
//     protocol gets its receipt too, OUT.tlog.receipt.json.
//   node record_match.mjs resume MATCH.json OUT.tlog PRIVATE.pem DURABILITY [SERVER_SEED]
//     takes OUT.tlog up again (MatchRecorder.resume, with the server seed in hex if given),
//     prints {"cut", "size", "moves"} as JSON, then writes the rest of the match from where
//     the log stops and signs it (where the log stops after no call of the match — garbage
//     kept as moves — abandons it there: server-fault); a log that cannot be taken up prints
//     "refused: WHY", exit 3.
//   node record_match.mjs play RULES OUT.tlog PUBLIC.pem DURABILITY
//     plays a whole match as docs/PLATFORM.md's recipe does: fresh seeds and key, the deals
//     derived from the seeds, the package's engine as the server's, the first legal action
//     each move; the seats' receipt in OUT.tlog.receipt.json; prints the server seed in hex.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { Match, Phase } from "../../js/dist/src/rules/engine.js";
import { PRESETS, rulesFromMap } from "../../js/dist/src/rules/rules.js";
import { legalActions } from "../../js/dist/src/engine-server.js";
import {
  MatchRecorder, MatchSeeds, RecorderError, generateSigningKey, newClientSeed, newMatchId, newServerSeed,
  makeReceipt, privateKeyFromPem, publicKeyOf, publicKeyPem, rawPublicKey,
} from "../../js/dist/src/server.js";

const hex = (t) => (t === null ? null : Uint8Array.from(Buffer.from(t, "hex")));
const toHex = (b) => Buffer.from(b).toString("hex");
const [mode, ...args] = process.argv.slice(2);

/** The options of MatchRecorder.create for the header of a JSON document. */
async function headerOptions(h, key, out, durability) {
  const b = h.batch;
  return {
    path: out, rules: rulesFromMap(h.rules), seats: h.seats, matchId: hex(h.match_id), firstDealer: h.first_dealer,
    publicKey: await publicKeyOf(key), serverCommitment: hex(h.server_commitment),
    clientCommitments: h.client_commitments && h.client_commitments.map(hex),
    clientSeeds: h.client_seeds && h.client_seeds.map(hex),
    season: b && { index: b.index, size: b.size, path: b.path.map(hex), root: hex(b.root), headSignature: hex(b.head_signature) },
    durability, dealing: h.dealing ?? "seeds",
  };
}

/** A blind deal's transcript as the JSON form gives it. */
function transcript(b) {
  const halves = b.shuffle_proofs && b.shuffle_proofs.map(hex);
  return {
    publics: hex(b.publics), passes: b.passes.map(hex), partials: b.partials.map(hex), opened: hex(b.opened),
    shuffleProofs: halves && halves.filter((_, i) => i % 2 === 0).map((e, i) => [e, halves[2 * i + 1]]),
    batch: b.batch_proofs === undefined ? null : hex(b.batch_proofs),
    v1Proofs: halves ? null : b.partial_proofs.map(hex),
  };
}

/** The recorder calls that write the match after its header, one value each (Python's match_calls). */
function matchCalls(records) {
  const named = records[0].rules.trump === "named";
  const calls = [];
  for (const hand of records.filter((r) => r.type === "hand")) {
    const blind = hand.blind ? transcript(hand.blind) : null;
    calls.push((rec) => rec.deal({ dealer: hand.dealer, revealed: hand.revealed, hands: hand.deal && hand.deal.hands,
      thirteenth: hand.deal && hand.deal.thirteenth, blind }));
    const timer = new Set(hand.timer);
    let k = 0;
    for (const c of hand.calls) {
      const t = timer.has(k++);
      calls.push((rec) => rec.call({ seat: c.seat, bid: c.call, timer: t }));
    }
    if (named && hand.trump !== null) {
      const t = timer.has(k++);
      calls.push((rec) => rec.nameTrump({ suit: hand.trump, timer: t }));
    }
    hand.plays.forEach((card, n) => {
      const t = timer.has(k++);
      const p = blind && hand.blind.proofs[n];
      const proof = p ? [p[0], hex(p[1])] : null;
      calls.push((rec) => rec.play({ card, timer: t, proof }));
    });
    if (hand.closed !== false) {
      calls.push((rec) => rec.claim({ totals: hand.totals, tricks: hand.tricks, scores: hand.scores, trump: named ? null : hand.trump }));
    }
  }
  const end = records.find((r) => r.type === "end");
  if (end.abandoned) {
    const a = end.abandoned;
    calls.push((rec) => rec.abandon({ cause: a.cause, seat: a.seat, reason: a.reason, serverSeed: hex(end.server_seed) }));
  } else {
    calls.push((rec) => rec.finish({ winner: end.winner, serverSeed: hex(end.server_seed) }));
  }
  for (const k of records.filter((r) => r.type === "keys")) {
    calls.push((rec) => rec.revealKeys({ dealNumber: k.deal_number, scalars: k.scalars.map(hex), permutations: k.permutations.map(hex) }));
  }
  return calls;
}

async function replay([matchPath, out, keyPath, durability, pace = "0", stop = "0"]) {
  const records = JSON.parse(readFileSync(matchPath, "utf8")).records;
  const h = records[0];
  const key = await privateKeyFromPem(readFileSync(keyPath, "utf8"), true);
  const rec = MatchRecorder.create(await headerOptions(h, key, out, durability));
  if (h.server_commitment !== null) {
    const b = h.batch;
    writeFileSync(`${out}.receipt.json`, await makeReceipt({ rules: rec.rules, seats: h.seats, matchId: hex(h.match_id),
      serverCommitment: hex(h.server_commitment), clientCommitments: h.client_commitments.map(hex),
      season: b && { index: b.index, size: b.size, root: hex(b.root) }, key, publicKey: await publicKeyOf(key), dealing: h.dealing ?? "seeds" }));
  }
  let n = 0;
  const ack = async () => {
    if (durability !== "flush") await rec.waitDurable();
    process.stdout.write(`ack ${++n} ${rec.writer.size}\n`);
    if (n === Number(stop)) {
      process.stdout.write("stopped\n");
      await new Promise(() => setInterval(() => {}, 60_000)); // killed here
    }
    if (Number(pace) > 0) await sleep(Number(pace));
  };
  await ack();
  for (const call of matchCalls(records)) {
    call(rec);
    await ack();
  }
  await rec.sign(key);
  process.stdout.write(`signed ${rec.writer.size}\n`);
}

async function resume([matchPath, out, keyPath, durability, seed]) {
  const records = JSON.parse(readFileSync(matchPath, "utf8")).records;
  const key = await privateKeyFromPem(readFileSync(keyPath, "utf8"), true);
  let rec;
  try {
    rec = await MatchRecorder.resume({ path: out, durability, serverSeed: seed ? hex(seed) : null });
  } catch (e) {
    if (!(e instanceof RecorderError)) throw e;
    process.stdout.write(`refused: ${e.message}\n`);
    process.exit(3);
  }
  process.stdout.write(`${JSON.stringify({ cut: rec.cut, size: rec.writer.size, moves: rec.moves })}\n`);
  // where the log stops: the size after each call of an uninterrupted run (a dry run)
  const dir = mkdtempSync(join(tmpdir(), "tarneeb-resume-"));
  const dry = MatchRecorder.create(await headerOptions(records[0], key, join(dir, "dry.tlog"), "flush"));
  const calls = matchCalls(records);
  const sizes = [dry.writer.size];
  for (const call of calls) {
    call(dry);
    sizes.push(dry.writer.size);
  }
  dry.close();
  rmSync(dir, { recursive: true });
  const done = sizes.indexOf(rec.writer.size);
  if (done >= 0) {
    for (const call of calls.slice(done)) call(rec);
  } else { // bytes that read as legal moves were kept: the server ends the match there
    rec.abandon({ cause: "server-fault", seat: null, reason: "restarted after a power loss", serverSeed: seed ? hex(seed) : null });
    process.stdout.write("abandoned\n");
  }
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

await ({ replay, resume, play }[mode])(args);
