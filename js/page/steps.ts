/** The verifier page's proof steps: each re-computed in the browser from the log
 *  (PROTOCOL.md §4–§7), with the helpers the page shares. */
import {
  Deriver, clientCommitment, matchBinding, seasonHeadMessage, serverCommitment, verifyInclusion,
  type ParsedLog, type VerdictJson,
} from "../src/index.js";
import { Table } from "../src/verify/people.js";

export const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
export const equal = (a: Uint8Array, b: Uint8Array) => a.length === b.length && a.every((x, i) => x === b[i]);
export const tableOf = (log: ParsedLog) => Table.of(log.header.seats.map((s) => s.name));
export const v1 = (log: ParsedLog) => log.hands.some((rec) => rec.blind?.shuffleProofs === null);

export interface Step { title: string; status: "pass" | "fail" | "skip"; detail: string; kinds: string[] }

export async function ed25519(key: Uint8Array, sig: Uint8Array, msg: Uint8Array): Promise<boolean> {
  try {
    const k = await crypto.subtle.importKey("raw", key as BufferSource, { name: "Ed25519" }, false, ["verify"]);
    return await crypto.subtle.verify({ name: "Ed25519" }, k, sig as BufferSource, msg as BufferSource);
  } catch {
    return false;
  }
}

/** The proof steps, each re-computed here from the log (PROTOCOL.md §4–§7). */
export async function proofSteps(log: ParsedLog, v: VerdictJson, pinned: Uint8Array | null, receiptGiven: boolean,
  rootGiven: boolean): Promise<Step[]> {
  const h = log.header;
  if (h.serverCommitment === null) return [];
  const steps: Step[] = [];
  const leaf = h.batch === null ? null : { index: h.batch.index, size: h.batch.size, root: h.batch.root };
  if (h.batch !== null) {
    const b = h.batch;
    const inTree = await verifyInclusion(h.serverCommitment, b.index, b.size, b.path, b.root);
    const key = pinned ?? h.publicKey;
    const head = key !== null && await ed25519(key, b.headSignature, seasonHeadMessage(b.size, b.root));
    // the root is the log's own unless one the platform published was given: as the match
    // report, a step not checked then (the log could name a root of its own making)
    steps.push({
      title: "The season proof", status: !(inTree && head) ? "fail" : rootGiven ? "pass" : "skip", kinds: ["batch-proof"],
      detail: `The platform's commitment is leaf ${b.index + 1} of ${b.size} of the season whose root is ${hex(b.root)}: `
        + `${inTree ? "the inclusion proof leads to that root" : "the inclusion proof does NOT lead to that root"}, and `
        + `${head ? `the season head is signed by ${pinned !== null ? "the platform's key" : "the key named inside the log"}` : "the season head's signature does NOT verify"}`
        + (rootGiven ? ", the root you gave." : ". That root is named in the log itself: that it is the root the platform published is not checked (give it above)."),
    });
  }
  const receiptBad = v.findings.some((f) => f.kind === "receipt-mismatch");
  steps.push({
    title: "The platform's commitment", status: !receiptGiven ? "skip" : receiptBad ? "fail" : "pass", kinds: ["receipt-mismatch"],
    detail: `Before play the platform committed to its secret seed: ${hex(h.serverCommitment)}. `
      + (!receiptGiven ? "That it did so before the cards were dealt is shown by your seat's receipt (give it above) or by the platform's publication."
        : receiptBad ? "Your seat's receipt does NOT promise this match: see below."
          : "Your seat's receipt, signed by the platform when play started, names this commitment, these seats, rules and players' commitments: this is the match promised before play."),
  });
  const seed = log.end?.serverSeed ?? null;
  let seedOk = false;
  if (seed === null) {
    steps.push({ title: "The platform's seed", status: "fail", kinds: ["server-seed", "seed-not-revealed"], detail: "The log does not reveal the server seed, so no deal can be proven." });
  } else {
    seedOk = equal(await serverCommitment(seed), h.serverCommitment);
    steps.push({
      title: "The platform's seed", status: seedOk ? "pass" : "fail", kinds: ["server-seed", "seed-not-revealed"],
      detail: `Revealed after the match: ${hex(seed)}. Its SHA-256 (with the protocol's tag) ${seedOk ? "is" : "is NOT"} the commitment above.`,
    });
  }
  const binding = await matchBinding(h.serverCommitment, leaf);
  if (h.clientSeeds !== null && h.clientCommitments !== null) {
    const t = tableOf(log);
    const ok = await Promise.all(h.clientSeeds.map(async (c, s) => equal(await clientCommitment(binding, h.matchId, s, c), h.clientCommitments![s]!)));
    steps.push({
      title: "The players' seeds", status: ok.every(Boolean) ? "pass" : "fail", kinds: ["client-seed"],
      detail: ok.map((good, s) => `${t.names[s]}: ${hex(h.clientSeeds![s]!)} ${good ? "matches" : "does NOT match"} the commitment made before play`).join("; ") + ".",
    });
  } else {
    steps.push({ title: "The players' seeds", status: "fail", kinds: ["client-seed"], detail: "The log does not carry the players' seeds and commitments." });
  }
  const dealKinds = ["wrong-deal", "wrong-first-dealer", "not-replayed"];
  if (h.blind) {
    const blindKinds = ["blind-transcript", "wrong-shuffle", "wrong-decryption", "wrong-key", "card-not-dealt", "not-replayed"];
    const bad = v.findings.some((f) => blindKinds.includes(f.kind));
    steps.push({
      title: "The blind deals", status: bad || !v.deals_proven ? "fail" : "pass", kinds: blindKinds,
      detail: "Every deal was dealt blind (PROTOCOL.md §13): each seat shuffled the encrypted deck in turn and proved it, the cards were decrypted with proofs so that each hand was seen only by its holder, and every card played was opened with a proof that it is the card dealt to that seat. Each of these proofs, and the keys the seats revealed after the match, is checked here."
        + (v1(log) ? " Under tarneeb-blind-v1 the shuffle passes carry no proofs: a seat that changed the deck is named only by the keys revealed after the match." : "")
        + (bad ? " Some do NOT check out: see below." : ""),
    });
  } else if (seedOk && h.clientSeeds !== null) {
    const d = await Deriver.create(seed!, h.matchId, h.clientSeeds, binding);
    const first = await d.firstDealer();
    const firstOk = first === h.firstDealer;
    steps.push({
      title: "The deals", status: firstOk && !v.findings.some((f) => dealKinds.includes(f.kind)) ? "pass" : "fail", kinds: dealKinds,
      detail: `Every deal is computed here from the five seeds and the match id ${hex(h.matchId)} by HMAC-SHA256 (PROTOCOL.md §5); the first dealer drawn is ${tableOf(log).names[first]}${firstOk ? ", as the log says" : ", NOT the one the log names"}. Your hand in each deal is shown below.`,
    });
  } else {
    steps.push({ title: "The deals", status: "fail", kinds: dealKinds, detail: "Without the seeds, no deal can be derived." });
  }
  return steps;
}
