"""The verifier page reads a log's JSON form as ``tarneeb verify`` does: the page's reader
(js/src/log/jsonform.ts, bundled by esbuild and run in Node) refuses exactly the documents
Python's :func:`tarneeb.replay.log.jsonform.loads` refuses, with the same words, and gives
the very bytes Python gives for every document both accept.

It once took them all through ``JSON.parse``: a key given twice (the last one kept), an
unknown field, ``"version": 3.0``, a float seat, a document past the caps were read, and
only the signature of the bytes they re-encoded to stood between them and a verdict."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_js_conformance import CLI, node  # noqa: F401 (a fixture)

from tarneeb.replay.log import LogError, jsonform
from tarneeb.replay.log.jsonout import dumps
from tarneeb.replay.log.stream import DEFAULT_LIMITS

ROOT = Path(__file__).resolve().parent.parent
JS = ROOT / "js"
MATCHES = ROOT / "fixtures" / "matches"

RUN = """import { jsonFormFile } from %s;
import { readFileSync } from "node:fs";
const out = JSON.parse(readFileSync(process.argv[2], "utf8")).map((f) => {
  try {
    return { ok: true, hex: Buffer.from(jsonFormFile(readFileSync(f))).toString("hex") };
  } catch (e) {
    return { ok: false, error: e.message, form: e.constructor.name === "FormError" };
  }
});
console.log(JSON.stringify(out));
"""


@pytest.fixture(scope="module")
def page_reader(tmp_path_factory: pytest.TempPathFactory) -> Callable[[list[bytes]], list[Any]]:
    """The page's reader run under Node on files: for each, its bytes or its refusal."""
    node_bin = shutil.which("node")
    esbuild = JS / "node_modules" / ".bin" / "esbuild"
    if node_bin is None or not esbuild.exists():
        pytest.fail("node and js/node_modules (npm ci in js/) are needed to run the page's code")
    where = tmp_path_factory.mktemp("pagejson")
    bundle = where / "jsonform.mjs"
    subprocess.run([str(esbuild), str(JS / "src" / "log" / "jsonform.ts"), "--bundle",
                    "--format=esm", "--platform=node", f"--outfile={bundle}",
                    "--log-level=error"], check=True)
    script = where / "run.mjs"
    script.write_text(RUN % json.dumps(str(bundle)), encoding="utf-8")
    runs = iter(range(10**6))

    def read(docs: list[bytes]) -> list[Any]:
        n = next(runs)
        files = []
        for i, doc in enumerate(docs):
            files.append(where / f"{n}-{i}.json")
            files[-1].write_bytes(doc)
        listed = where / f"{n}.list"
        listed.write_text(json.dumps([str(f) for f in files]))
        done = subprocess.run([node_bin, str(script), str(listed)], capture_output=True, text=True,
                              check=True)
        for f in files:
            f.unlink()
        out: list[Any] = json.loads(done.stdout)
        return out

    return read


def python_reads(doc: bytes) -> tuple[bool, str | bytes]:
    """Python's verdict on a JSON form, as ``tarneeb verify`` reads the file."""
    try:
        return True, jsonform.loads(doc.decode("utf-8"))
    except UnicodeDecodeError:
        return False, "not UTF-8 text"
    except LogError as e:
        return False, str(e)


def _form(name: str) -> str:
    return dumps((MATCHES / name).read_bytes())


CLASSIC = _form("classic-01.tlog")
RECORDED = _form("eram41-recorded-deals.tlog")
BLIND = _form("qahwa5-blind.tlog")
DOC: dict[str, Any] = json.loads(CLASSIC)
NL = "\n"


def _changed(change: Callable[[dict[str, Any]], Any], text: str = CLASSIC) -> str:
    doc = json.loads(text)
    change(doc)
    return json.dumps(doc, ensure_ascii=False)


def _set(path: str, value: Any, text: str = CLASSIC) -> str:
    """The form with the field at ``path`` (``records.1.calls.0.seat``) set to ``value``."""
    *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]

    def change(doc: Any) -> None:
        for p in parents:
            doc = doc[p]
        doc[last] = value

    return _changed(change, text)


def _drop(path: str, text: str = CLASSIC) -> str:
    *parents, last = path.split(".")

    def change(doc: Any) -> None:
        for p in parents:
            doc = doc[int(p) if p.isdigit() else p]
        del doc[last]

    return _changed(change, text)


def _shuffled_deal(doc: dict[str, Any]) -> None:
    for rec in doc["records"]:
        if rec["type"] == "hand" and rec["deal"] is not None:
            rec["deal"]["hands"] = [list(reversed(h)) for h in rec["deal"]["hands"]]


def _spelled(doc: dict[str, Any]) -> None:
    head = doc["records"][0]
    head["match_id"] = head["match_id"].upper()
    hand = doc["records"][1]
    hand["plays"] = [p.replace("♥", "h").replace("10", "T") for p in hand["plays"]]
    del hand["closed"]


# the documents Python refuses, and the words it refuses each with (the page's must be these)
REFUSED: dict[str, tuple[str | bytes, str]] = {
    "key twice in a record": (CLASSIC.replace('"dealer": ', '"dealer": 1, "dealer": ', 1),
                              "not a JSON log: the key 'dealer' appears twice in one object"),
    "key twice at the top": (CLASSIC.replace('"version": 3', '"version": 3, "version": 3', 1),
                             "not a JSON log: the key 'version' appears twice in one object"),
    "unknown field": (_set("records.1.note", "hi"),
                      "record 1 (hand): unknown field(s) 'note'"),
    "unknown field __proto__": (_set("records.2.__proto__", {}),
                                "record 2 (hand): unknown field(s) '__proto__'"),
    "unknown top field": (_set("comment", 1),
                          "not a JSON tarneeb log of version 3 (\"version\": 3; unknown field(s) "
                          "['comment'])"),
    "version 3.0": (CLASSIC.replace('"version": 3', '"version": 3.0', 1),
                    "not a JSON tarneeb log of version 3 (\"version\": 3.0)"),
    "version 3e0": (CLASSIC.replace('"version": 3', '"version": 3e0', 1),
                    "not a JSON tarneeb log of version 3 (\"version\": 3.0)"),
    "float seat": (_set("records.1.calls.0.seat", 3.0),
                   "record 1 (hand): call {'seat': 3.0, 'call': 7} is not a seat and a bid or "
                   "pass"),
    "float call": (_set("records.1.calls.0.call", 7.0),
                   "record 1 (hand): call {'seat': 3, 'call': 7.0} is not a seat and a bid or "
                   "pass"),
    "float dealer": (_set("records.1.dealer", 2.0),
                     "record 1 (hand): deal record: dealer must be a whole number 0-3, not 2.0"),
    "float rule": (_set("records.0.rules.target", 41.0),
                   "record 0 (header): rules: rule set 'classic': target must be a whole number"),
    "float score": (_set("records.1.totals", [0.5, 0, 0, 0]), ""),
    "more than 4,096 items": (_set("records.1.plays", ["2♣"] * 4097),
                              "record 1: a list or object of 4,097 items, more than any field of a "
                              "log holds (4,096)"),
    "more than 256 entries": (_set("records.0.rules", {f"k{i}": i for i in range(257)}),
                              "record 0: a list or object of 257 items, more than any field of a "
                              "log holds (256)"),
    "nested deeper than a log": (_set("records.0.rules.values", [[[[[[[[1]]]]]]]]),
                                 "record 0: nested deeper than a log is: over the max_depth cap "
                                 "of 8"),
    "text too long": (_set("records.0.seats.0.name", "x" * 8193),
                      "record 0: a text of 8,193 characters, more than any field of a log holds"),
    "seat name past max_name": (_set("records.0.seats.0.name", "x" * 257),
                                "record 0 (header): a seat name of 257 characters: over the "
                                "max_name cap of 256 bytes"),
    "a number of 25 digits": (_set("records.1.dealer", 10**24),
                              "a number of 25 digits: over the max_int_digits cap of 24"),
    "past 2^53": (_set("records.1.deal_number", 2**53 + 1), ""),
    "past 2^64": (_set("records.1.deal_number", 2**64), ""),
    "blind: null": (_set("records.1.blind", None),
                    "record 1 (hand): field(s) 'blind' of the record: the log would not say what "
                    "the document says"),
    "dealing: null": (_set("records.0.dealing", None), ""),
    "a card as a number": (_set("records.1.plays.0", 51),
                           "record 1 (hand): plays: 51 is not a card"),
    "a card twice in a deal": (_changed(lambda d: d["records"][1]["deal"]["hands"][0].append(
        d["records"][1]["deal"]["hands"][0][0]), RECORDED),
        "record 1 (hand): hands: another number of items: the log would not say what the document "
        "says"),
    "true as a dealer": (_set("records.1.dealer", True), ""),
    # a named trump is a move: a suit's number or name (Python said how its encoder failed)
    "true as a trump": (_set("records.1.trump", True),
                        "record 1 (hand): trump: True is not a suit"),
    "2.0 as a trump": (_set("records.1.trump", 2.0), "record 1 (hand): trump: 2.0 is not a suit"),
    "7 as a trump": (_set("records.1.trump", 7), "record 1 (hand): trump: 7 is not a suit"),
    "a raw tab in a text": (CLASSIC.replace('"name": "', '"name": "\t', 1),
                            "not valid JSON: Invalid control character at line 2 column 77"),
    "missing dealer": (_drop("records.1.dealer"), "record 1 (hand): missing field 'dealer'"),
    "missing abandoned": (_drop(f"records.{len(DOC['records']) - 2}.abandoned"), ""),
    "closed: null": (_set("records.1.closed", None),
                     "record 1 (hand): closed must be true or false, not None"),
    "trump not a suit": (_set("records.1.trump", "X"), ""),
    "hex not hex": (_set("records.0.match_id", "zz"), "record 0 (header): match_id is not hex"),
    "a lone surrogate": (CLASSIC.replace('"name": "', '"name": "\\ud800', 1), ""),
    "NaN": (CLASSIC.replace('"dealer": 2', '"dealer": NaN', 1),
            "record 1 (hand): deal record: dealer must be a whole number 0-3, not nan"),
    "a byte-order mark": ("\ufeff" + CLASSIC,
                          "not valid JSON: Unexpected UTF-8 BOM (decode using utf-8-sig) at line 1 "
                          "column 1"),
    "a trailing comma": (CLASSIC.replace("]}", ",]}"),
                         f"not valid JSON: Expecting value at line {CLASSIC.count(NL) + 1} "
                         "column 2"),
    "not UTF-8": (CLASSIC.encode("utf-8").replace(b"classic", b"cl\xffssic", 1),
                  "not UTF-8 text"),
    "not a log": ('{"format": "something else"}',
                  "not a JSON tarneeb log (expected \"format\": \"tarneeb-log-json\")"),
    "no records": (_set("records", []), "\"records\" must be a non-empty list"),
    "cut_short_at 0.0": (_set("cut_short_at", 0.0),
                         "\"cut_short_at\" must be the byte where the log stops (a whole number "
                         "from 0), not 0.0"),
    "cut_short_at after the signature": (_set("cut_short_at", len(
        (MATCHES / "classic-01.tlog").read_bytes())), ""),
    "a record not an object": (_changed(lambda d: d["records"].append([1])),
                               f"record {len(DOC['records'])}: not a JSON object"),
    "a blind pass null": (_changed(lambda d: d["records"][1]["blind"]["passes"].__setitem__(
        0, None), BLIND), ""),
}

# documents Python accepts (other spellings of the same values): the page must give its bytes
ACCEPTED: dict[str, str] = {
    "classic": CLASSIC, "recorded deals": RECORDED, "blind": BLIND,
    "a recorded deal's cards in any order": _changed(_shuffled_deal, RECORDED),
    "hex upper-case, cards as letters, closed left out": _changed(_spelled),
    # a keys record keeps a seat's scalar (nil): export writes null, and import reads it
    # (both refused it once, "scalars must be a hex string")
    "a keys scalar kept (null)": _changed(lambda d: [r["scalars"].__setitem__(0, None) for r in
                                                     d["records"] if r["type"] == "keys"], BLIND),
    "timer marks in any order": _form("classic-timer.tlog").replace(
        '"timer": [0, 14, 32', '"timer": [32, 0, 14'),
    "indented": json.dumps(json.loads(CLASSIC), indent=2, ensure_ascii=True),
}


def test_the_page_refuses_what_python_refuses_in_its_words(page_reader: Any) -> None:
    docs = [d if isinstance(d, bytes) else d.encode("utf-8") for d, _ in REFUSED.values()]
    seen = page_reader(docs)
    for (name, (_, words)), doc, page in zip(REFUSED.items(), docs, seen, strict=True):
        ok, said = python_reads(doc)
        assert not ok, f"{name}: Python accepts it"
        assert not page["ok"] and page["form"], f"{name}: the page reads it ({page})"
        if words:  # the words this test holds both to
            assert (said, page["error"]) == (words, words), name


def test_the_page_accepts_what_python_accepts_giving_its_bytes(page_reader: Any) -> None:
    timer = ACCEPTED["timer marks in any order"]
    assert re.search(r'"timer": \[32, 0, 14', timer)  # the fixture changed: the case is one
    assert '"scalars": [null, "' in ACCEPTED["a keys scalar kept (null)"]
    docs = [d.encode("utf-8") for d in ACCEPTED.values()]
    for name, doc, page in zip(ACCEPTED, docs, page_reader(docs), strict=True):
        ok, made = python_reads(doc)
        assert ok, f"{name}: Python refuses it: {made!r}"
        assert page["ok"], f"{name}: the page refuses it: {page['error']}"
        assert bytes.fromhex(page["hex"]) == made, name


def test_a_document_past_the_size_cap_is_refused_unread(page_reader: Any) -> None:
    """A JSON form of more than eight times the max_bytes cap (16 MiB) of characters."""
    cap = 8 * DEFAULT_LIMITS.max_bytes
    doc = CLASSIC[:-1] + " " * (cap - len(CLASSIC) + 1) + "}"
    words = ("JSON text of 134,217,729 characters, more than eight times: over the max_bytes "
             "cap of 16,777,216; raise it with --max-bytes")
    assert python_reads(doc.encode("utf-8")) == (False, words)
    assert page_reader([doc.encode("utf-8")]) == [{"ok": False, "error": words, "form": True}]
    # one character less is read (and is the log)
    at_cap = CLASSIC[:-1] + " " * (cap - len(CLASSIC)) + "}"
    assert page_reader([at_cap.encode("utf-8")])[0]["ok"]


def test_both_command_lines_read_a_json_form_alike(
        node: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``tarneeb verify`` and the page read a log's JSON form; ``tarneeb-js verify`` said
    "not a tarneeb log" (exit 2) where they said clean. The same verdicts now, field for
    field: clean forms, an altered log's, one padded with white space, one that is no
    JSON log."""
    from tarneeb.cli.verify_cmd import run

    config = tmp_path / "config"
    config.mkdir()
    env = {**os.environ, "XDG_CONFIG_HOME": str(config), "HOME": str(config)}
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    files = []
    for log in [MATCHES / "classic-01.tlog", MATCHES / "eram41-01.tlog",
                ROOT / "fixtures" / "altered" / "renege-classic.tlog"]:
        form = tmp_path / f"{log.stem}.json"
        form.write_text(dumps(log.read_bytes()), encoding="utf-8")
        files.append(form)
    padded = tmp_path / "padded.json"
    padded.write_text("{" + " " * 70_000 + files[0].read_text(encoding="utf-8")[1:],
                      encoding="utf-8")
    other = tmp_path / "other.json"
    other.write_text('{"a": 1}', encoding="utf-8")
    files += [padded, other]
    js = subprocess.run([node, str(CLI), "verify", "--json", *map(str, files)],
                        capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    code = run([str(f) for f in files], True, None, None)
    out, _ = capsys.readouterr()
    assert js.returncode == code == 2, js.stderr
    assert json.loads(js.stdout) == json.loads(out)
    assert [v["verdict"] for v in json.loads(out)] == ["clean", "clean", "findings", "clean",
                                                      "unreadable"]
