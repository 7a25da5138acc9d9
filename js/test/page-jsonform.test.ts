/** The verifier page's reader of a log's JSON form (src/log/jsonform.ts): the published vectors'
 *  forms give their logs' very bytes, and what the Python reader refuses is refused, in its
 *  words (tests/test_page_jsonform_agrees.py holds the two readers to each other). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { jsonFormFile, jsonFormText } from "../src/log/jsonform.js";
import { parseStrict } from "../src/text/strictjson.js";

const dir = fileURLToPath(new URL("../../../fixtures/vectors/", import.meta.url));
const VECTORS = ["classic", "recorded-deals", "qahwa41", "sahrat41", "sahrat400", "abandoned", "season", "eram41", "cancelled-hand"];
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const load = (name: string): { json: any; log: string } => JSON.parse(readFileSync(`${dir}log-${name}.json`, "utf8"));
const hex = (b: Uint8Array): string => Buffer.from(b).toString("hex");
const classic = load("classic").json;
const text = JSON.stringify(classic);
/** the classic form with one change made to a copy of it */
const changed = (change: (d: any) => void): string => { // eslint-disable-line @typescript-eslint/no-explicit-any
  const d = structuredClone(classic);
  change(d);
  return JSON.stringify(d);
};
const refuses = (doc: string, words: string | RegExp): void => {
  assert.throws(() => jsonFormText(doc), (e: Error) => (typeof words === "string" ? e.message === words : words.test(e.message)) || assert.fail(e.message));
};

test("every vector's JSON form gives its log's very bytes, as text and as a file", () => {
  for (const name of VECTORS) {
    const v = load(name);
    assert.equal(hex(jsonFormText(JSON.stringify(v.json))), v.log, name);
    assert.equal(hex(jsonFormFile(new TextEncoder().encode(JSON.stringify(v.json, null, 2)))), v.log, name);
  }
});

test("other spellings of the same values are the same log", () => {
  const spelled = changed((d) => {
    d.records[0].match_id = d.records[0].match_id.toUpperCase();
    d.records[1].plays = d.records[1].plays.map((p: string) => p.replace("♥", "h").replace("10", "T"));
    delete d.records[1].closed;
  });
  assert.equal(hex(jsonFormText(spelled)), load("classic").log);
});

test("a key given twice is refused, wherever it is", () => {
  refuses(text.replace('"dealer":', '"dealer":1,"dealer":'), "not a JSON log: the key 'dealer' appears twice in one object");
  refuses(text.replace('"version":3', '"version":3,"version":3'), "not a JSON log: the key 'version' appears twice in one object");
  // a key twice is seen even where JSON.parse keeps the last, and __proto__ is a key like another
  assert.throws(() => parseStrict('{"__proto__": 1, "__proto__": 2}'), /the key '__proto__' appears twice/);
});

test("a field the log would not carry is refused", () => {
  refuses(changed((d) => (d.records[1].note = "hi")), "record 1 (hand): unknown field(s) 'note'");
  refuses(changed((d) => (d.comment = 1)), "not a JSON tarneeb log of version 3 (\"version\": 3; unknown field(s) ['comment'])");
  refuses(changed((d) => (d.records[1].blind = null)), "record 1 (hand): field(s) 'blind' of the record: the log would not say what the document says");
});

test("a float where a whole number is wanted is refused, 3.0 as well as 3.5", () => {
  refuses(text.replace('"version":3', '"version":3.0'), "not a JSON tarneeb log of version 3 (\"version\": 3.0)");
  refuses(text.replace('"version":3', '"version":3e0'), "not a JSON tarneeb log of version 3 (\"version\": 3.0)");
  refuses(text.replace('{"seat":3,', '{"seat":3.0,'), /^record 1 \(hand\): call \{'seat': 3\.0, 'call': [^}]+\} is not a seat and a bid or pass$/);
  refuses(text.replace('"dealer":2', '"dealer":2.0'), /^record \d+ \(hand\): deal record: dealer must be a whole number 0-3, not 2\.0$/);
  refuses(text.replace('"target":41', '"target":41.0'), "record 0 (header): rules: rule set 'classic': target must be a whole number");
  refuses(text.replace('"dealer":2', `"dealer":${"9".repeat(25)}`), "a number of 25 digits: over the max_int_digits cap of 24");
});

test("a document or a record past the log's caps is refused", () => {
  refuses(changed((d) => (d.records[1].plays = Array(4097).fill("2♣"))), "record 1: a list or object of 4,097 items, more than any field of a log holds (4,096)");
  refuses(changed((d) => (d.records[0].seats[0].name = "x".repeat(8193))), "record 0: a text of 8,193 characters, more than any field of a log holds");
  refuses(changed((d) => (d.records[0].rules.values = [[[[[[[[1]]]]]]]])), "record 0: nested deeper than a log is: over the max_depth cap of 8");
  const cap = 8 * 16 * 1024 * 1024;
  refuses(text.slice(0, -1) + " ".repeat(cap - text.length + 1) + "}", "JSON text of 134,217,729 characters, more than eight times: over the max_bytes cap of 16,777,216; raise it with --max-bytes");
});

test("JSON Python's reader refuses is refused in its words", () => {
  refuses(`\ufeff${text}`, "not valid JSON: Unexpected UTF-8 BOM (decode using utf-8-sig) at line 1 column 1");
  refuses(`${text.slice(0, -2)},]}`, /^not valid JSON: Expecting value at line 1 column \d+$/);
  assert.throws(() => jsonFormFile(Uint8Array.of(0x7b, 0xff, 0x7d)), /^Error: not UTF-8 text$|not UTF-8 text/);
  refuses('{"format": "something else"}', "not a JSON tarneeb log (expected \"format\": \"tarneeb-log-json\")");
});
