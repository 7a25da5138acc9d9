"""export and import agree: every document ``export`` writes, ``import`` reads, and the
log it gives back has the original's verdict.

Over damaged logs (the corpus and its altered logs, cut, cut then zero-filled, a byte
changed, a byte added, bytes after the signature): the JSON form of each readable log
must convert back, and the verdict of what comes back must be the original's.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest
from cli_runner import run
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from tarneeb.replay.log import LogError, parse_log
from tarneeb.replay.log import jsonform as logjson
from tarneeb.replay.verify.replayer import verify_bytes

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
LOGS = [*sorted((FIXTURES / "matches").glob("*.tlog")),
        *sorted((FIXTURES / "altered").glob("*.tlog"))]


@cache
def _bytes(index: int) -> bytes:
    return LOGS[index].read_bytes()


def _verdict(data: bytes) -> str:
    return json.dumps(verify_bytes(data, "m.tlog").to_json(), sort_keys=True, default=str)


def _round_trip(data: bytes) -> None:
    try:
        text = logjson.dumps(data)
    except LogError:  # export refuses a log it cannot read; nothing to import
        assume(False)
        return
    back = logjson.loads(text)  # every document export writes, import reads
    assert back == data or _verdict(back) == _verdict(data)
    assert _verdict(back) == _verdict(data)


def _damaged(data: bytes, how: int, where: float, byte: int, extra: bytes) -> bytes:
    at = int(where * len(data))
    if how == 0:
        return data[:at]
    if how == 1:
        return data[:at] + bytes(len(extra) or 7)
    if how == 2:
        return data[:at] + bytes((byte,)) + data[at + 1:]
    if how == 3:
        return data[:at] + bytes((byte,)) + data[at:]
    return data + extra  # after the signature (or the last record)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(LOGS) - 1), st.integers(0, 4), st.floats(0, 1),
       st.integers(0, 255), st.binary(min_size=1, max_size=24))
def test_export_then_import_gives_a_log_with_the_same_verdict(
        index: int, how: int, where: float, byte: int, extra: bytes) -> None:
    data = _damaged(_bytes(index), how, where, byte, extra)
    assume(data)
    _round_trip(data)


@pytest.mark.parametrize("tail", [b"\x92\x01", b"zzzz", b"\x00\x00\x00", b"\xc1"])
def test_a_log_with_bytes_after_its_signature_round_trips_through_the_commands(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], tail: bytes) -> None:
    data = (FIXTURES / "matches" / "classic-01.tlog").read_bytes() + tail
    assert parse_log(data).cut_short is not None
    log, doc, back = tmp_path / "m.tlog", tmp_path / "m.json", tmp_path / "back.tlog"
    log.write_bytes(data)
    assert run(capsys, "export", str(log), "-o", str(doc))[0] == 0
    code, _, err = run(capsys, "import", str(doc), "-o", str(back))
    assert code == 0, err
    assert back.read_bytes() == data
    first = run(capsys, "verify", str(log))
    again = run(capsys, "verify", str(back))
    assert first[0] == again[0] == 1
    assert first[1].replace(str(log), "X") == again[1].replace(str(back), "X")


@pytest.mark.parametrize("change", ["a whole record", "no cut", "not hex"])
def test_import_refuses_cut_bytes_that_are_not_what_was_cut(change: str) -> None:
    data = (FIXTURES / "matches" / "classic-01.tlog").read_bytes()
    log = parse_log(data)
    cut = data[:log.end_offset or 0] + b"\x92"  # cut inside the end record
    doc = json.loads(logjson.dumps(cut))
    if change == "a whole record":  # the cut bytes would make the end record whole
        doc["cut_bytes"] = data[log.end_offset or 0:log.signature_offset].hex()
    elif change == "no cut":
        del doc["cut_short_at"]
    else:
        doc["cut_bytes"] = "zz"
    with pytest.raises(LogError, match="cut_bytes"):
        logjson.from_json(doc)


def test_a_blind_log_whose_keys_record_keeps_a_scalar_round_trips() -> None:
    """A keys record may keep a seat's scalar (nil): ``export`` wrote it as null, and
    ``import`` refused its own document ("scalars must be a hex string"), so a player
    given the JSON form could not check it."""
    from tarneeb.replay.server.blind import play_blind_match
    from tarneeb.replay.server.simulate import MatchSecrets
    from tarneeb.testing.alterations import base as tamper

    seed = b"round trip kept scalar"
    log = tamper._open(play_blind_match("eram41", seed=seed, target=3))
    log.keys[0].scalars[2] = None
    data = tamper._close(log, MatchSecrets(seed).key)
    text = logjson.dumps(data)
    kept = next(r for r in json.loads(text)["records"] if r.get("type") == "keys")
    assert kept["scalars"][2] is None and kept["scalars"][1] is not None
    assert logjson.loads(text) == data


def test_a_json_form_with_much_white_space_is_read_as_one_by_verify(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """White space is JSON's: past 64 KiB of it after the opening brace, ``tarneeb verify``
    read the bytes as a log that begins with a run of moves too long for the caps, and
    said so, where the verifier page read the JSON form (clean). What begins with moves is
    no log, however long the run."""
    log, doc = tmp_path / "m.tlog", tmp_path / "m.json"
    log.write_bytes((FIXTURES / "matches" / "classic-01.tlog").read_bytes())
    assert run(capsys, "export", str(log), "-o", str(doc))[0] == 0
    text = doc.read_text(encoding="utf-8")
    doc.write_text("{" + " " * 70_000 + text[1:], encoding="utf-8")
    code, out, err = run(capsys, "verify", str(doc))
    assert code == 0 and ": clean" in out, err
    with pytest.raises(LogError, match="not a tarneeb log"):
        parse_log(b" " * 70_000)
