/**
 * The verifier page: a player chooses (or drops) a `.tlog`, optionally gives the platform's
 * public key, and reads — computed in this browser by tarneeb-js, nothing sent anywhere —
 * the verdict in the words of the match report, their own hand in every deal, each step of
 * the proof that the deals were not chosen, and every finding where it happens.
 *
 * The element `#verdict` carries `data-verdict`: `clean`, `findings` or `unreadable`. A log
 * dealt blind (tarneeb-blind-v3, v2, or v1, whose passes carry no proofs; a deal that stopped at
 * a seat that did not deliver too) is checked from its proofs, as `tarneeb verify` does.
 */
import {
  Deriver, matchBinding, parseKeys, parseLog, readReceipt, serverCommitment,
  verifyBytes, waitingFor, waitingStep, type Finding, type ParsedLog, type SignedReceipt, type VerdictJson,
} from "../src/index.js";
import { keyId } from "../src/protocol/crypto.js";
import { shown } from "../src/text/names.js";
import { Table } from "../src/verify/people.js";
import words from "./words.json";
import { keyFromText, type ToldKey } from "./keyfile.js";
import { isolate } from "./isolate.js";
import { ed25519, equal, hex, proofSteps, tableOf, v1 } from "./steps.js";
import { keyFileText, keysFromBytes } from "../src/verify/keys.js";
import { jsonFormFile, startsAsJson as jsonForm } from "../src/log/jsonform.js";
import { DEFAULT_LIMITS } from "../src/text/stream.js";

const KINDS: Record<string, string> = words.kinds;
const HEADLINES: Record<string, string> = words.headlines;
/** the games the presets name, as the match report names them (report/match.py, GAMES) */
const GAMES: Record<string, string> = words.games;
/** findings whose sentence says again what the kind's words say: shown once */
const SAID_BY_KIND = new Set(["broken-signature"]);
const SEAT_KINDS = new Set(["broken-signature", "unsigned", "key-mismatch", "weak-key", "not-canonical"]);
const SEED_KINDS = new Set(["server-seed", "seed-not-revealed", "batch-proof", "client-seed", "wrong-first-dealer", "receipt-mismatch"]);
const SUITS = "♣♦♥♠";
const RANKS = ["2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A"];

const $ = <T extends HTMLElement>(sel: string) => document.querySelector(sel) as T;
const sentence = (t: string) => t.slice(0, 1).toUpperCase() + t.slice(1);
/** `count(4, "call")`: "4 calls", `count(1, "call")`: "1 call". */
const count = (n: number, what: string) => `${n} ${what}${n === 1 ? "" : "s"}`;
/** The game a rule set names, as players call it; house rules keep their own name. */
const gameName = (rules: string) => GAMES[rules] !== undefined ? `${GAMES[rules]} (${rules})` : `house rules ${rules}`;

/** Text the page writes, as the match report writes it (report/page.py): each line as
 *  `shown` shows it, so a bidi override or a control character in a file name or a message
 *  quoting one is written as an escape and cannot reorder or hide what follows it. */
const pageText = (t: string) => t.split("\n").map(shown).join("\n");

/** `el("p", {class: "x"}, "text", child)`: an element; text is always text, never markup,
 *  and written as `pageText` writes it. */
function el(tag: string, attrs: Record<string, string> = {}, ...kids: (Node | string | null)[]): HTMLElement {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  for (const k of kids) if (k !== null) e.append(typeof k === "string" ? pageText(k) : k);
  return e;
}

/** A status line set to `text`, written as `pageText` writes it. */
const setStatus = (status: HTMLElement, text: string) => { status.textContent = pageText(text); };

const cardText = (c: number) => `${RANKS[c % 13]}${SUITS[Math.floor(c / 13)]}`;
function cardEl(c: number): HTMLElement {
  return el("span", { class: `card ${[1, 2].includes(Math.floor(c / 13)) ? "red" : "black"}` }, cardText(c));
}

/** The cards of a hand by suit, ♠ ♥ ♣ ♦ (colours alternate), high cards first. */
function handEl(cards: number[]): HTMLElement {
  const out = el("span", { class: "hand" });
  for (const s of [3, 2, 0, 1]) {
    const suit = cards.filter((c) => Math.floor(c / 13) === s).sort((a, b) => b - a);
    if (suit.length) out.append(el("span", { class: "suitgroup" }, ...suit.map(cardEl)));
  }
  return out;
}

/** The players as the verdict's sentences name them, as `tarneeb verify` and the match
 *  report do (src/verify/people.ts): a name that reads as a seat, or that two seats share, quoted
 *  with its seat; a sentence read once, so a name is never read again as a seat or hand. */

function where(f: Finding, t: Table): string {
  const parts = [f.hand !== null ? `hand ${f.hand + 1}` : "", f.trick !== null ? `trick ${f.trick}` : "", f.seat !== null ? t.names[f.seat] ?? "" : ""];
  const w = parts.filter(Boolean).join(", ");
  if (w) return w;
  if (SEAT_KINDS.has(f.kind)) return "the signature";
  if (f.kind === "receipt-mismatch") return "your receipt";
  if (SEED_KINDS.has(f.kind)) return "the seeds";
  return f.kind === "cut-short" ? "the end of the log" : "the log";
}

/** The verifier's sentence without the kind it may begin with. */
const said = (f: Finding) => f.message.startsWith(`${f.kind}: `) ? f.message.slice(f.kind.length + 2) : f.message;

function findingEl(f: Finding, n: number, t: Table): HTMLElement {
  const message = said(f);
  return el("div", { class: "finding", "data-kind": f.kind, id: `finding-${n}` },
    el("p", {}, el("span", { class: "what" }, `Problem ${n}: ${sentence(KINDS[f.kind] ?? f.kind)}`), " ", el("span", { class: "where" }, `(${where(f, t)})`)),
    SAID_BY_KIND.has(f.kind) ? null : el("p", {}, sentence(t.say(message))),
    f.card !== null ? el("p", { class: "muted" }, `The card: ${f.card}`) : null);
}

/** The cards each seat holds in each hand: derived from the seeds, or as recorded. */
async function deals(log: ParsedLog, dealers: number[]): Promise<(number[][] | null)[]> {
  const h = log.header;
  if (h.blind) return log.hands.map(() => null);
  const seed = log.end?.serverSeed ?? null;
  let d: Deriver | null = null;
  if (h.serverCommitment !== null && seed !== null && h.clientSeeds !== null && equal(await serverCommitment(seed), h.serverCommitment)) {
    const leaf = h.batch === null ? null : { index: h.batch.index, size: h.batch.size, root: h.batch.root };
    d = await Deriver.create(seed, h.matchId, h.clientSeeds, await matchBinding(h.serverCommitment, leaf));
  }
  // hand i is the log's i-th dealing attempt, dealt as the verifier deals it: the deck of
  // attempt i by the dealer the rules give (whatever number and dealer the record writes)
  return Promise.all(log.hands.map(async (rec, i) => {
    const hands: number[][] = [[], [], [], []];
    if (d !== null) {
      (await d.deck(i)).forEach((c, p) => hands[((dealers[i] ?? rec.dealer) + 1 + p) & 3]!.push(c));
      return hands;
    }
    if (rec.deal === null) return null;
    rec.deal.masks.forEach((m, s) => {
      for (let c = 0; c < 52; c++) if (Math.floor(m / 2 ** c) % 2 === 1) hands[s]!.push(c);
    });
    return hands;
  }));
}

/** Whether a hand of a log dealt blind is dealt under tarneeb-blind-v1 (its passes unproven). */

/** The id of the key the log names, when the log's signature verifies under it (null
 *  otherwise): a log refused under the key given was then signed by that other key. */
async function signedByItsOwnKey(log: ParsedLog): Promise<string | null> {
  const own = log.header.publicKey;
  if (own === null || log.signature === null) return null;
  return await ed25519(own, log.signature, log.signedBytes) ? await keyId(own) : null;
}

function banner(v: VerdictJson, log: ParsedLog | null, t: Table | null, otherKey: string | null): [string, string, string] {
  if (v.verdict === "unreadable" || log === null || t === null) {
    return ["unreadable", "This log could not be read", `${v.error ?? "not a tarneeb log"}. Nothing in it can be checked.`];
  }
  if (v.findings.length) {
    const n = v.findings.length;
    const kinds = new Set(v.findings.map((f) => f.kind));
    if (kinds.has("key-mismatch") && otherKey !== null) {
      // the log is whole: its signature verifies under the key it names, not the one given
      const rest = v.findings.filter((f) => f.kind !== "key-mismatch" && f.kind !== "broken-signature");
      const more = rest.slice(0, 2).map((f) => ` ${sentence(where(f, t))}: ${sentence(t.say(said(f)))}.`).join("");
      return ["findings", "This log was not signed by the platform's key: another key signed it",
        `Its signature verifies under the key named inside the log (key ${otherKey}), ${v.key.pinned ? `not under the key you gave (key ${v.key.id})` : "which is none of the platform keys you gave"}.${more}`
          + (rest.length ? ` ${rest.length === 1 ? "It is" : "Each is"} marked below where it happens.` : "")];
    }
    const lead = Object.keys(HEADLINES).find((k) => kinds.has(k));
    const head = lead ? HEADLINES[lead]! : `${count(n, "problem")} found: this match log does not check out`;
    // what went wrong, the lead's own sentence first unless the headline says it all
    const told = [...v.findings.filter((f) => f.kind === lead && !SAID_BY_KIND.has(f.kind)),
      ...v.findings.filter((f) => f.kind !== lead)].slice(0, 2);
    const detail = told.map((f) => `${sentence(where(f, t))}: ${sentence(t.say(said(f)))}.`).join(" ");
    const others = n - told.length;
    const more = others > 0 && told.length ? ` And ${others} more.` : "";
    return ["findings", head, `${detail}${more} ${n === 1 ? "It is" : "Each is"} marked below where it happens.`.trim()];
  }
  const signed = v.key.pinned ? (v.key.platform !== null ? `signed by ${v.key.platform}, as your keys file names its key (key ${v.key.id})` : `signed by the key you gave (key ${v.key.id})`)
    : "signed by the key named inside the log (compare its key id below with the one the platform publishes)";
  const stopped = v.ending ? ` The match did not finish: it was ${t.ending(v)}.` : "";
  const dealt = !log.header.blind ? "Every deal is the one the committed seeds give"
    : v1(log) ? "Every deal was dealt blind and is proven by its decryptions and plays (its shuffle passes, tarneeb-blind-v1, carry no proofs)"
      : "Every deal was dealt blind and is proven by its transcript";
  const checked = `${dealt}, and every bid, card, score and the winner follow the rules.`;
  if (!v.deals_proven) {
    return ["notice", "No rule was broken, but the deals are only recorded",
      `Every bid, card, score and the winner follow the rules, but the platform wrote the deals into the log itself: nothing proves the cards were not chosen. The log is ${signed}.${stopped}`];
  }
  if (!v.key.pinned) {
    return ["notice", "No problems found, but nothing ties this log to the platform",
      `${checked} The log is ${signed}: anyone could make such a log, seeds and all, with a key of their own. Give the platform's public key below to settle who wrote it.${stopped}`];
  }
  return ["clean", "No problems found: this match was dealt fairly and played by the rules", `${checked} The log is ${signed}.${stopped}`];
}

let logBytes: Uint8Array | null = null;
let logName = "";
let key: ToldKey | null = null;
/** a keys file (platform name → key), as `tarneeb verify --keys` takes */
let keyFile: Map<string, Uint8Array> | null = null;
let receipt: SignedReceipt | null = null;
// a receipt or root given that cannot be read: nothing is checked, as `tarneeb verify` refuses
let receiptError: string | null = null;
let root: Uint8Array | null = null;
let rootError: string | null = null;
let runs = 0;

async function show(): Promise<void> {
  const out = $("#result");
  const verdictEl = $("#verdict");
  if (logBytes === null) return;
  const run = ++runs;
  verdictEl.hidden = false;
  verdictEl.dataset.verdict = "checking";
  verdictEl.className = "verdict";
  verdictEl.replaceChildren(el("p", { class: "headline" }, "Checking…"));
  out.replaceChildren();
  let bytes = logBytes;
  let formError: string | null = receiptError ?? rootError;
  // (a JSON form past the log's cap is refused as a log past it is, unread)
  if (formError === null && jsonForm(bytes) && bytes.length <= DEFAULT_LIMITS.maxBytes) {
    try {
      bytes = jsonFormFile(bytes);
    } catch (e) {
      formError = `${logName}: its JSON form cannot be read: ${(e as Error).message}`;
    }
  }
  // read once: whether it was dealt blind now, the hands and proof steps after the verdict
  let parsed: ParsedLog | null = null;
  try {
    parsed = formError === null ? parseLog(bytes) : null;
  } catch {
    parsed = null;
  }
  let onHand: ((done: number, total: number) => Promise<void>) | null = null;
  if (parsed !== null && parsed.header.blind) {
    // a blind transcript costs the verifier seconds a deal: say so, deal by deal, and let the
    // page paint between deals (the page's CSP allows no Worker to do it elsewhere)
    const progress = el("p", { class: "progress" }, "");
    verdictEl.replaceChildren(el("p", { class: "headline" }, "Checking…"),
      el("p", { class: "detail" }, "This match was dealt blind: every shuffle, decryption and card played is checked from its proof, a few seconds a deal. This page stays open while it works."),
      progress);
    onHand = async (done, total) => {
      setStatus(progress, `Checking deal ${done + 1} of ${total}…`);
      await new Promise((r) => setTimeout(r, 0));
    };
    await new Promise((r) => setTimeout(r, 30));
  }
  const dealers: number[] = [];
  const onDealt = (n: number, dealer: number) => { dealers[n] = dealer; };
  const opts = { onDealt, ...(key === null ? {} : { publicKey: key.raw }), ...(keyFile === null ? {} : { keys: keyFile }),
    ...(receipt === null ? {} : { receipts: [receipt] }), ...(onHand === null ? {} : { onHand }),
    ...(root === null ? {} : { root }),
    requireProof: ($("#require-proof") as HTMLInputElement).checked };
  let v: VerdictJson;
  try {
    v = await verifyBytes(bytes, logName, opts);
  } catch (e) {
    v = { ...(await verifyBytes(new Uint8Array(0), logName)), error: `${logName}: ${(e as Error).message}` };
  }
  if (formError !== null) v = { ...(await verifyBytes(new Uint8Array(0), logName)), error: formError };
  const log = v.verdict !== "unreadable" ? parsed : null;
  const t = log === null ? null : tableOf(log);
  const otherKey = log !== null && v.findings.some((f) => f.kind === "key-mismatch") ? await signedByItsOwnKey(log) : null;
  const [tone, head, detail] = banner(v, log, t, otherKey);
  const rendered = document.createElement("div");
  if (log !== null && t !== null) await render(rendered, log, v, t, dealers);
  if (run !== runs) return; // a newer input is being checked
  out.replaceChildren(...Array.from(rendered.childNodes));
  // the verdict last: a page that says data-verdict has shown everything
  verdictEl.className = `verdict ${tone}`;
  // on a phone the player's own hand is screens below: a way there from the top
  const seat = Number(($("#seat") as HTMLSelectElement).value);
  const jump = log !== null && t !== null && log.hands.length
    ? el("p", { class: "jump" }, el("a", { href: "#hands", id: "to-hands" }, `Your hand in every deal (${t.names[seat]}) ↓`),
      v.findings.length ? " · " : "", v.findings.length ? el("a", { href: "#problems" }, "What is wrong ↓") : "")
    : null;
  verdictEl.replaceChildren(el("p", { class: "headline" }, head), el("p", { class: "detail" }, detail), ...(jump === null ? [] : [jump]));
  // the log's own words (names, a reason, a platform) kept from reordering the sentences
  const untrusted = [...(t?.names ?? []), ...(log?.header.seats.map((x) => x.name) ?? []), v.reason ?? "", v.key.platform ?? ""];
  isolate(out, untrusted);
  isolate(verdictEl, untrusted);
  verdictEl.dataset.verdict = v.verdict;
}

async function render(out: HTMLElement, log: ParsedLog, v: VerdictJson, t: Table, dealers: number[]): Promise<void> {
  const h = log.header;
  let n = 0;
  const numbered = v.findings.map((f) => ({ f, n: ++n }));
  const sec = (id: string, title: string, ...kids: (Node | null)[]) => el("section", { id }, el("h2", {}, title), ...kids);
  out.append(sec("players", "The match",
    el("dl", { class: "facts" },
      el("dt", {}, "Game"), el("dd", {}, `${gameName(h.rules.name)}, played to ${h.rules.target}`),
      el("dt", {}, "Teams"), el("dd", {}, `${t.team(0)} against ${t.team(1)}`),
      el("dt", {}, "Match id"), el("dd", {}, el("code", {}, hex(h.matchId))),
      // counted from the log's own records: a hand that breaks a rule is still dealt and played
      el("dt", {}, "Hands"), el("dd", {}, `${log.hands.length} dealt, ${log.hands.filter((r) => r.plays.length > 0).length} played`))));
  if (numbered.length) {
    out.append(sec("problems", `What is wrong (${numbered.length})`, el("ol", { class: "problems" },
      ...numbered.map(({ f, n }) => el("li", {}, el("a", { href: `#finding-${n}` }, where(f, t)), ": ", el("strong", {}, sentence(KINDS[f.kind] ?? f.kind)),
        SAID_BY_KIND.has(f.kind) ? "." : `. ${sentence(t.say(said(f)))}`)))));
  }
  const placed = new Set<Finding>();
  const place = (pred: (f: Finding) => boolean) => numbered.filter(({ f }) => !placed.has(f) && pred(f)).map(({ f, n }) => {
    placed.add(f);
    return findingEl(f, n, t);
  });
  const sigStatus = v.signed.startsWith("signed by") && !v.findings.some((f) => ["broken-signature", "unsigned", "weak-key", "key-mismatch"].includes(f.kind));
  // a failed signature is said once, by its problem below: the step gives only the key
  const facts = /\(([^()]*)\)$/.exec(v.signed)?.[1];
  const sigWords = !sigStatus && facts !== undefined && v.findings.some((f) => f.hand === null && SEAT_KINDS.has(f.kind))
    ? ` ${sentence(facts)}; what is wrong is below.` : ` ${sentence(t.say(v.signed))}.`;
  out.append(sec("signature", "Who signed this log",
    el("ol", { class: "steps" }, el("li", { "data-status": sigStatus ? "pass" : "fail" },
      el("span", { class: sigStatus ? "pass" : "fail" }, sigStatus ? "✓ checked" : "✗ failed"), " ",
      el("span", { class: "title" }, "The signature."), sigWords,
      key === null && keyFile === null ? el("p", { class: "muted" }, "Give the platform's public key above to check the log against the key it publishes, not the key written in the log.") : null)),
    ...place((f) => f.hand === null && SEAT_KINDS.has(f.kind))));
  const pinned = key?.raw ?? (keyFile !== null && v.key.platform !== null ? keyFile.get(v.key.platform) ?? null : null);
  const steps = await proofSteps(log, v, pinned, receipt !== null, root !== null);
  if (steps.length) {
    out.append(sec("proof", "Were the deals fair?",
      el("p", {}, "The platform could not choose the cards: it had to lock in its secret seed before play, each player added a seed of their own, and every deal follows from all five seeds by a public recipe. Each step is checked again here, in your browser:"),
      el("ol", { class: "steps" }, ...steps.map((s) => {
        const bad = v.findings.some((f) => f.hand === null && s.kinds.includes(f.kind));
        const status = bad ? "fail" : s.status;
        return el("li", { "data-status": status },
          el("span", { class: status }, status === "pass" ? "✓ checked" : status === "fail" ? "✗ failed" : "– not checked"), " ",
          el("span", { class: "title" }, `${s.title}.`), ` ${s.detail}`,
          ...place((f) => f.hand === null && s.kinds.includes(f.kind)));
      }))));
  } else {
    out.append(sec("proof", "Were the deals fair?", el("div", { class: "note" }, el("p", {}, el("strong", {}, "The deals are only recorded."), " This platform does not use committed seeds: it wrote each deal into the log itself. Nothing proves it did not choose them."))));
  }
  const seat = Number(($("#seat") as HTMLSelectElement).value);
  const hands = await deals(log, dealers);
  const list = el("section", { id: "hands" }, el("h2", {}, `Your hand in every deal (${t.names[seat]})`));
  log.hands.forEach((rec, i) => {
    const cards = hands[i];
    const waiting = rec.blind ? waitingFor(rec.blind) : null;
    // hand N is the N-th dealing attempt, as findings and `tarneeb show --hand N` count
    const s = el("section", { class: "deal", id: `hand-${i + 1}`, "data-hand": String(i + 1) },
      el("h3", {}, `Hand ${i + 1} · dealt by ${t.names[dealers[i] ?? rec.dealer]}`),
      cards ? el("p", { class: "mine" }, handEl(cards[seat]!))
        : waiting !== null ? el("p", { class: "muted blind" }, `Dealt blind, but the deal stopped before any card was dealt: ${t.names[waiting]} did not deliver ${waitingStep(rec.blind!)}. Each step delivered before it is checked here from its proof.`)
        : h.blind ? el("p", { class: "muted blind" }, `Dealt blind: when it was dealt, ${t.names[seat]}’s hand was known only to ${t.names[seat]}. No one else saw it; each card played from it was opened with a proof that it is a card dealt to that seat, and those proofs are checked here.`)
          : el("p", { class: "muted" }, "No deal for this hand: the log has neither seeds nor a recorded deal."),
      rec.plays.length ? el("p", { class: "muted" }, `${count(rec.calls.length, "call")}, ${count(rec.plays.length, "card")} played${rec.closed ? "" : "; the log stops in this hand"}.`) : null,
      ...place((f) => f.hand === i));
    list.append(s);
  });
  out.append(list);
  const rest = place(() => true);
  out.append(sec("end", "End of the match",
    el("dl", { class: "facts" },
      el("dt", {}, "How it ended"), el("dd", {}, v.ending ? sentence(t.ending(v)) : "played to the end"),
      el("dt", {}, "Winner, as the platform declared"), el("dd", {}, log.end?.winner != null ? t.team(log.end.winner) : "none declared")),
    ...rest));
  if (v.notes.length) out.append(sec("notes", "Notes", el("ul", {}, ...v.notes.map((x) => el("li", {}, sentence(t.say(x)))))));
}

function seatChoices(): void {
  const sel = $("#seat") as HTMLSelectElement;
  const old = sel.value;
  let raw = ["", "", "", ""];
  if (logBytes !== null) {
    try {
      const b = jsonForm(logBytes) ? jsonFormFile(logBytes) : logBytes;
      raw = parseLog(b).header.seats.map((s) => s.name);
    } catch {
      // an unreadable log: keep the seat numbers
    }
  }
  // the names as the verdict says them: one that looks like a seat or like another
  // player's quoted, with its seat
  const names = Table.of(raw).names;
  sel.replaceChildren(...names.map((nm, i) => el("option", { value: String(i) },
    nm === `Seat ${i + 1}` || nm.endsWith(`(Seat ${i + 1})`) ? nm : `${nm} (seat ${i + 1})`)));
  sel.value = old || "0";
}

async function takeLog(file: File): Promise<void> {
  logBytes = new Uint8Array(await file.arrayBuffer());
  logName = file.name;
  seatChoices();
  await show();
}

/** The platform's key as given: one public key (PEM or 64 hex digits) or a keys file (TOML,
 *  platform name = key, as `tarneeb verify --keys` takes). */
async function takeKey(pasted: string | null, name: string, data: Uint8Array | null = null): Promise<void> {
  const status = $("#key-status");
  key = null;
  keyFile = null;
  let text = pasted ?? "";
  if (data !== null) {
    // a file's bytes as the command line reads them: UTF-8 (a byte-order mark taken
    // before a PEM key, and refused in a keys file, as tarneeb verify --key and --keys do)
    const bom = data[0] === 0xef && data[1] === 0xbb && data[2] === 0xbf;
    try {
      text = keyFileText(bom ? data.subarray(3) : data, name);
    } catch (e) {
      setStatus(status, (e as Error).message);
      status.className = "fail";
      await show();
      return;
    }
  }
  if (!text.trim()) {
    setStatus(status, "");
  } else {
    try {
      key = await keyFromText(text);
      setStatus(status, `key ${key.id} (from ${name})`);
      status.className = "muted";
    } catch (one) {
      // not one key: a keys file, when it reads as one
      const toml = /^\s*[^\s=#][^=\n]*=/m.test(text) && !text.trim().startsWith("-----BEGIN");
      try {
        if (!toml) throw one;
        keyFile = data !== null ? keysFromBytes(data, name) : parseKeys(text, name);
        const names = [...keyFile.keys()];
        setStatus(status, `a keys file of ${names.length} platform${names.length === 1 ? "" : "s"}: ${names.join(", ")} (from ${name})`);
        status.className = "muted";
      } catch (e) {
        keyFile = null;
        const m = (e as Error).message;
        setStatus(status, m.startsWith(`${name}:`) ? m : `${name}: ${m}`);
        status.className = "fail";
      }
    }
  }
  await show();
}

async function takeReceipt(file: File): Promise<void> {
  const status = $("#receipt-status");
  try {
    receipt = await readReceipt(new Uint8Array(await file.arrayBuffer()), file.name);
    receiptError = null;
    setStatus(status, `the receipt of match ${hex(receipt.receipt.matchId)} (from ${file.name})`);
    status.className = "muted";
  } catch (e) {
    receipt = null;
    receiptError = `the receipt ${file.name}: ${(e as Error).message}: nothing was checked (choose a receipt that can be read, or none)`;
    setStatus(status, `${(e as Error).message}: nothing was checked`);
    status.className = "fail";
  }
  await show();
}

/** The season root typed (64 hex digits, or nothing): pinned, or said to be no root. */
function takeRoot(text: string): void {
  const status = $("#root-status");
  const hexText = text.trim();
  root = null;
  rootError = null;
  if (hexText === "") {
    setStatus(status, "");
  } else if (!/^[0-9a-fA-F]{64}$/.test(hexText)) {
    rootError = "the season root given is not 64 hex digits: nothing was checked";
    setStatus(status, "not 64 hex digits: nothing was checked");
    status.className = "fail";
  } else {
    root = Uint8Array.from(hexText.match(/../g)!.map((b) => parseInt(b, 16)));
    setStatus(status, `the season root ${hexText.toLowerCase().slice(0, 16)}… is pinned`);
    status.className = "muted";
  }
  void show();
}

function wire(): void {
  const pasted = $("#json-text") as HTMLTextAreaElement;
  $("#json-check").addEventListener("click", () => {
    if (!pasted.value.trim()) return;
    logBytes = new TextEncoder().encode(pasted.value);
    logName = "the log pasted";
    seatChoices();
    void show();
  });
  const receiptInput = $("#receipt") as HTMLInputElement;
  receiptInput.addEventListener("change", () => {
    if (receiptInput.files?.[0]) void takeReceipt(receiptInput.files[0]);
    else {  // the receipt taken away
      receipt = receiptError = null;
      setStatus($("#receipt-status"), "");
      void show();
    }
  });
  const rootInput = $("#root") as HTMLInputElement;
  rootInput.addEventListener("change", () => takeRoot(rootInput.value));
  const logInput = $("#log") as HTMLInputElement;
  logInput.addEventListener("change", () => {
    if (logInput.files?.[0]) void takeLog(logInput.files[0]);
  });
  const keyInput = $("#key") as HTMLInputElement;
  keyInput.addEventListener("change", async () => {
    const f = keyInput.files?.[0];
    if (f) await takeKey(null, f.name, new Uint8Array(await f.arrayBuffer()));
  });
  // a pasted key is used at once (as it is typed, after a pause) and by its button
  const keyText = $("#key-text") as HTMLTextAreaElement;
  let taken: string | null = null;
  let pause: ReturnType<typeof setTimeout> | undefined;
  const usePasted = () => {
    clearTimeout(pause);
    if (keyText.value === taken) return;
    taken = keyText.value;
    void takeKey(keyText.value, "the key pasted");
  };
  keyText.addEventListener("input", () => {
    clearTimeout(pause);
    pause = setTimeout(usePasted, 300);
  });
  keyText.addEventListener("change", usePasted);
  $("#key-use").addEventListener("click", () => {
    taken = null;
    usePasted();
  });
  $("#seat").addEventListener("change", () => void show());
  $("#require-proof").addEventListener("change", () => { if (logBytes !== null) void show(); });
  const drop = $("#drop");
  for (const ev of ["dragenter", "dragover"]) document.addEventListener(ev, (e) => {
    e.preventDefault();
    drop.classList.add("over");
  });
  document.addEventListener("dragleave", () => drop.classList.remove("over"));
  document.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    const f = (e as DragEvent).dataTransfer?.files?.[0];
    if (f) void takeLog(f);
  });
  seatChoices();
}

wire();
