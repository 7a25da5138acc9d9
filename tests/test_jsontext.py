"""One reading of a receipt's JSON (audit/jsontext.py, js/src/text/jsontext.ts): the Python and
the TypeScript reader give the same value or the same line for each of a list of edge
cases (numbers, white space, byte-order marks, surrogates, nesting, repeated keys)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tarneeb.audit.jsontext import MAX_DEPTH, JsonTextError, read_json

ROOT = Path(__file__).resolve().parent.parent
MODULE = ROOT / "js" / "dist" / "src" / "text" / "jsontext.js"

CASES: list[bytes] = [
    b"{}", b" \r\n{}\r\n ", b"{}x", b"[1,2,]", b"{'a': 1}", b"NaN", b"[Infinity]", b"[-Infinity]",
    b"0", b"-0", b"[0.0]", b"[0e0]", b"[1E2]", b"[1.5]", b"[-1]", b"[01]", b"[1.]", b"[-]",
    b"[9007199254740991]", b"[-9007199254740991]", b"[9007199254740992]",
    b"[-9007199254740992]", b"[123456789012345678901234567890]", b'["1.5", "-0"]',
    b'{"a": 1, "a": 1}', b'{"a": {"b": 1}, "b": {"b": 2}}', b'[{"a": 1}, {"a": 2}]',
    b'{"a": 1, "\\u0061": 2}', b'{"x{": [1, "}"], "x{": 2}', b'["\\ud800"]', b'["\\udc00"]',
    b'["\\udc00\\ud800"]', b'["\\ud83d\\ude00"]', b'{"\\ud800": 1}', b'["\\u0000"]',
    b'["a\x01b"]', b"\xef\xbb\xbf{}", b"\xef\xbb{}", b'["\xff"]', b'["\xed\xa0\x80"]',
    b"[" * MAX_DEPTH + b"]" * MAX_DEPTH, b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1),
    b"[" * 5000, b'"' + b"[" * 40 + b'"', b"[1, 2.5, -0, 3e1]", b'{"a": [0.5], "a": 1}',
    b"true", b"null", b'"\\"[\\\\"', b"", b" ",
]


def _py(data: bytes) -> object:
    try:
        return {"value": read_json(data, "a receipt", 10000)}
    except JsonTextError as e:
        return {"error": str(e)}


def test_python_reads_each_case_as_the_rules_say() -> None:
    said = {case: _py(case) for case in CASES}
    assert said[b"[0.0]"] == {"error": "the number 0.0: a receipt's numbers are whole numbers "
                                        "(no fraction or exponent, not -0, at most 2^53 - 1 "
                                        "either side of 0)"}
    assert said[b"[9007199254740991]"] == {"value": [2**53 - 1]}
    assert "error" in said[b"[9007199254740992]"] and "error" in said[b"-0"]
    assert said[b"\xef\xbb\xbf{}"]["error"].startswith("it begins with a byte-order mark")  # type: ignore[index]
    assert said[b"NaN"] == {"error": "not JSON (JSONDecodeError)"}
    assert said[b'["\\ud83d\\ude00"]'] == {"value": ["\U0001f600"]}
    assert "lone surrogate" in said[b'["\\udc00\\ud800"]']["error"]  # type: ignore[index]
    assert said[b'{"a": 1, "\\u0061": 2}'] == {"error": "a key appears twice in one JSON object"}
    assert said[b'[{"a": 1}, {"a": 2}]'] == {"value": [{"a": 1}, {"a": 2}]}
    assert said[b"[" * 5000] == {"error": "not JSON (nested deeper than 16 levels)"}
    assert said[b'"' + b"[" * 40 + b'"'] == {"value": "[" * 40}
    assert said[b" \r\n{}\r\n "] == {"value": {}}


def test_the_typescript_reader_agrees_on_every_case() -> None:
    node = shutil.which("node")
    if node is None or not MODULE.exists():
        pytest.fail("node and the built js/ (npm run build) are needed")
    script = (
        f"import {{readJson}} from {json.dumps(MODULE.as_uri())};"
        "import {readFileSync} from 'node:fs';"
        "const cases = JSON.parse(readFileSync(0, 'utf8'));"
        "process.stdout.write(JSON.stringify(cases.map((h) => {"
        " try { return {value: readJson(Buffer.from(h, 'hex'), 'a receipt', 10000)}; }"
        " catch (e) { return {error: e.message}; } })));")
    out = subprocess.run([node, "--input-type=module", "-e", script],
                         input=json.dumps([c.hex() for c in CASES]), capture_output=True,
                         text=True, check=True)
    js = json.loads(out.stdout)
    bad = [f"{case!r}: JS {j} vs Python {_py(case)}" for case, j in zip(CASES, js, strict=True)
           if j != _py(case)]
    assert bad == [], "\n".join(bad)
