"""A receipt's hex fields, read alike by both verifiers.

A receipt file has one reading, the same in every verifier (docs/PROTOCOL.md §8.1): its hex
fields were read by Python's ``bytes.fromhex``, which takes white space between the digit
pairs and refuses a ``0x`` prefix, while the TypeScript verifier takes the prefix (PROTOCOL.md
§2: tools accept it on input) and refuses white space. One receipt file was then a receipt
to one verifier (a clean verdict, exit 0) and "not a receipt" to the other (exit 2).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from js_build import JS, built

from tarneeb.replay.log import parse_log
from tarneeb.replay.server.simulate import MatchSecrets, play_logged_match
from tarneeb.replay.verify.receipt import ReceiptError, read_receipt, receipt_json

SECRETS = MatchSecrets(b"receipt hex")  # reproducible: not secret


def _log_and_receipt() -> tuple[bytes, dict[str, object]]:
    log = play_logged_match("eram41", seed=b"receipt hex")
    doc = json.loads(receipt_json(parse_log(log).header, SECRETS.key))
    return log, doc


def _spaced(text: str) -> str:
    return " ".join(text[i:i + 2] for i in range(0, len(text), 2))


@pytest.mark.parametrize("field", ["signature", "match_id", "server_commitment"])
def test_hex_with_white_space_is_not_a_receipt(field: str) -> None:
    _, doc = _log_and_receipt()
    doc[field] = _spaced(str(doc[field]))
    with pytest.raises(ReceiptError, match=f"field '{field}' must be hex"):
        read_receipt(json.dumps(doc).encode())


def test_hex_with_a_0x_prefix_or_upper_case_reads_as_without() -> None:
    _, doc = _log_and_receipt()
    plain = read_receipt(json.dumps(doc).encode())
    doc["match_id"] = "0x" + str(doc["match_id"])
    doc["signature"] = str(doc["signature"]).upper()
    assert read_receipt(json.dumps(doc).encode()) == plain


def _verify_both(tmp_path: Path, log: bytes, doc: dict[str, object]) -> tuple[int, int]:
    node = built("cli.js")
    (tmp_path / "m.tlog").write_bytes(log)
    (tmp_path / "r.json").write_text(json.dumps(doc))
    from tarneeb.replay.verify.replayer import verify_bytes
    from tarneeb.replay.verify.trust import Trust

    try:
        py = verify_bytes(log, "m.tlog", Trust(receipts=(read_receipt(
            (tmp_path / "r.json").read_bytes()),))).exit_code
    except ReceiptError:
        py = 2
    out = subprocess.run([node, str(JS / "dist" / "src" / "cli.js"), "verify", "--receipt",
                          str(tmp_path / "r.json"), str(tmp_path / "m.tlog")],
                         capture_output=True, text=True, check=False)
    return py, out.returncode


@pytest.mark.parametrize("spelling", ["spaces", "0x"])
def test_both_verifiers_read_a_receipt_s_hex_alike(tmp_path: Path, spelling: str) -> None:
    log, doc = _log_and_receipt()
    if spelling == "spaces":
        doc["signature"] = _spaced(str(doc["signature"]))
    else:
        doc["match_id"] = "0x" + str(doc["match_id"])
    py, js = _verify_both(tmp_path, log, doc)
    assert py == js == (2 if spelling == "spaces" else 0)
