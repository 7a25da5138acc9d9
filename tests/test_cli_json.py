"""--json wherever a program may read the output, and show's signature line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_cli import run

from tarneeb.audit import new_server_seed, server_commitment
from tarneeb.replay.log import parse_log
from tarneeb.replay.verify.replayer import verify_file

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def test_show_says_the_signature_first(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "show", str(FIXTURES / "matches" / "eram41-01.tlog"))
    assert code == 0 and out.splitlines()[1].startswith("Signature: valid, signed by key ")
    assert "NOT PINNED" in out.splitlines()[1]
    broken = FIXTURES / "altered" / "broken-signature-eram41.tlog"
    code, out, _ = run(capsys, "show", str(broken))
    assert out.splitlines()[1].startswith("Signature: NOT VALID — the signature does not match")
    code, out, _ = run(capsys, "show", "--json", str(broken))
    sig = json.loads(out)["signature"]
    assert sig["valid"] is False and sig["problem"]["kind"] == "broken-signature"


def test_show_json_is_the_replayed_match(capsys: pytest.CaptureFixture[str]) -> None:
    path = FIXTURES / "matches" / "classic-timer.tlog"
    code, out, _ = run(capsys, "show", "--json", str(path))
    doc = json.loads(out)
    verdict = verify_file(str(path))
    assert code == 0 and doc["verdict"]["verdict"] == "clean" and doc["signature"]["valid"]
    assert [h["deal_number"] for h in doc["hands"]] == [h.deal_number for h in verdict.history]
    played = [h for h in doc["hands"] if not h["cancelled"]]
    for hand, seen in zip(played, (h for h in verdict.history if not h.cancelled), strict=True):
        assert len(hand["tricks"]) == 13 and sum(hand["tricks_taken"]) == 13
        assert [t["winner"] for t in hand["tricks"]] == seen.trick_winners
        assert sorted(c for h in hand["hands"] for c in h) == sorted(
            c["card"] for t in hand["tricks"] for c in t["cards"])
    timer = [c for h in doc["hands"] for t in h["tricks"] for c in t["cards"] if c["timer"]]
    timer += [c for h in doc["hands"] for c in h["calls"] if c["timer"]]
    assert timer, "the timer's moves are marked"
    code, out, _ = run(capsys, "show", "--json", "--hand", "3", str(path))
    assert [h["deal_number"] for h in json.loads(out)["hands"]] == [2]


def test_play_keygen_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "keygen", "--json", str(tmp_path / "k.pem"))
    key = json.loads(out)
    assert code == 0 and key["public_key"] == str(tmp_path / "k.pub.pem")
    code, out, _ = run(capsys, "pubkey", "--json", str(tmp_path / "k.pem"))
    pub = json.loads(out)
    assert code == 0 and (pub["key_id"], pub["public_key_hex"]) == (
        key["key_id"], key["public_key_hex"])
    assert pub["public_key_pem"] == (tmp_path / "k.pub.pem").read_text()
    log = tmp_path / "m.tlog"
    code, out, _ = run(capsys, "play", "--rules", "sahrat400", "--key", str(tmp_path / "k.pem"),
                       "-o", str(log), "--json")
    doc = json.loads(out)
    parsed = parse_log(log.read_bytes())
    assert code == 0 and doc["bytes"] == log.stat().st_size and doc["key_id"] == key["key_id"]
    assert doc["hands"] == len(parsed.hands) and doc["winner"] == parsed.end.winner
    assert parsed.header.public_key.hex() == key["public_key_hex"]
    code, _, err = run(capsys, "play", "--rules", "eram41", "-o", "-", "--json")
    assert code == 2 and "both write to standard output" in err


def test_verify_seed_json(capsys: pytest.CaptureFixture[str]) -> None:
    seed = new_server_seed()
    code, out, _ = run(capsys, "verify-seed", "--json", seed.hex(), server_commitment(seed).hex())
    assert code == 0 and json.loads(out) == {"ok": True, "checks": [
        {"check": "commitment", "commitment": server_commitment(seed).hex(), "ok": True}]}
    code, out, _ = run(capsys, "verify-seed", "--json", seed.hex(), "00" * 32)
    doc = json.loads(out)
    assert code == 1 and doc["ok"] is False and "does not match" in doc["failed"]


def test_dump_json_covers_every_byte(capsys: pytest.CaptureFixture[str]) -> None:
    path = FIXTURES / "matches" / "sahrat400-01.tlog"
    code, out, _ = run(capsys, "dump", "--json", str(path))
    doc = json.loads(out)
    assert code == 0 and "".join(e["hex"] for e in doc) == path.read_bytes().hex()
    assert [e["offset"] for e in doc] == sorted(e["offset"] for e in doc)
    assert {"deal_number", "totals", "abandoned", "signature"} <= {e["field"] for e in doc}
    assert "moves" in {e["kind"] for e in doc}


@pytest.mark.parametrize(("data", "says"), [
    (b"hello world\n", "not a tarneeb log: it does not begin with a header record"),
    (b"", "not a tarneeb log: it is empty"),
    (None, "cut off: not a whole record at offset"),
])
@pytest.mark.parametrize("as_json", [False, True])
def test_dump_of_what_is_not_a_log_says_so(capsys: pytest.CaptureFixture[str],
                                           tmp_path: Path, data: bytes | None, says: str,
                                           as_json: bool) -> None:
    """Bytes that are not a whole log are dumped as far as they go, the damage in place,
    and the exit code says they are not a log (a dump exited 0 for any bytes at all)."""
    whole = (FIXTURES / "matches" / "sahrat400-01.tlog").read_bytes()
    path = tmp_path / "x.tlog"
    path.write_bytes(whole[:-10] if data is None else data)
    code, out, err = run(capsys, "dump", *(["--json"] if as_json else []), str(path))
    assert code == 2 and err.startswith("tarneeb: error: ") and says in err
    assert len(err.splitlines()) == 1
    shown = "\n".join(e["text"] for e in json.loads(out)) if as_json else out
    assert says.split(" at offset")[0] in shown
    if data is None:  # what the bytes hold up to the damage is dumped
        assert "header record" in shown
    code, _, err = run(capsys, "dump", *(["--json"] if as_json else []),
                       str(FIXTURES / "matches" / "sahrat400-01.tlog"))
    assert code == 0 and err == ""
