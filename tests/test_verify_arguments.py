"""The verify functions refuse arguments of the wrong type with a TypeError that says what
to give, before judging anything: a trust given where the path goes would verify against
no pinned key, and a verdict read as true would pass an unreadable log."""

from __future__ import annotations

from pathlib import Path

import pytest

import tarneeb
from tarneeb.replay.server.simulate import MatchSecrets, play_logged_match

SEED = b"verify arguments"


@pytest.fixture(scope="module")
def log() -> bytes:
    return play_logged_match("eram41", seed=SEED)


@pytest.fixture(scope="module")
def pinned() -> tarneeb.Trust:
    return tarneeb.Trust(public_key=tarneeb.public_key_raw(MatchSecrets(SEED).key.public_key()))


def test_a_trust_given_where_the_path_goes_is_refused(log: bytes,
                                                     pinned: tarneeb.Trust) -> None:
    with pytest.raises(TypeError, match="give the trust as trust="):
        tarneeb.verify_bytes(log, pinned)  # type: ignore[arg-type]
    verdict = tarneeb.verify_bytes(log, trust=pinned)
    assert verdict.clean and verdict.key_pinned


@pytest.mark.parametrize("data", [None, "a log as text", Path("match.tlog")])
def test_verify_bytes_takes_bytes(data: object) -> None:
    with pytest.raises(TypeError, match="verify_bytes: data must be a log's bytes"):
        tarneeb.verify_bytes(data)  # type: ignore[arg-type]


def test_verify_bytes_takes_a_memoryview(log: bytes) -> None:
    assert tarneeb.verify_bytes(memoryview(log)).clean


def test_verify_file_takes_a_path_not_the_logs_bytes(log: bytes, tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="verify_bytes"):
        tarneeb.verify_file(log)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="verify_file: path must be"):
        tarneeb.verify_file(None)  # type: ignore[arg-type]
    (tmp_path / "m.tlog").write_bytes(log)
    verdict = tarneeb.verify_file(tmp_path / "m.tlog")
    assert verdict.clean and verdict.path == str(tmp_path / "m.tlog")


@pytest.mark.parametrize("trust", [None, {"public_key": bytes(32)}])
def test_the_trust_is_a_trust(log: bytes, trust: object) -> None:
    with pytest.raises(TypeError, match=r"trust must be a tarneeb\.Trust"):
        tarneeb.verify_bytes(log, trust=trust)  # type: ignore[arg-type]


def test_a_verdict_has_no_truth_value() -> None:
    unreadable = tarneeb.verify_bytes(b"not a log")
    with pytest.raises(TypeError, match=r"ask verdict\.clean"):
        bool(unreadable)
    assert not unreadable.clean


@pytest.mark.parametrize("field, value", [
    ("public_key", "00" * 32), ("root", "00" * 32), ("server_seed", "00" * 32),
    ("receipts", b"{}"), ("receipts", (b"{}",)), ("require_proof", "no"),
    ("keys", {"cardroom": "00" * 32}), ("limits", None),
])
def test_trust_refuses_values_of_the_wrong_type(field: str, value: object) -> None:
    with pytest.raises(TypeError, match=f"Trust\\({field}="):
        tarneeb.Trust(**{field: value})


def test_trust_refuses_a_key_object(pinned: tarneeb.Trust) -> None:
    with pytest.raises(TypeError, match="public_key_raw"):
        tarneeb.Trust(public_key=MatchSecrets(SEED).key.public_key())  # type: ignore[arg-type]


def test_receipts_are_read_from_bytes() -> None:
    with pytest.raises(TypeError, match=r"\.encode\(\)"):
        tarneeb.read_receipt('{"format": "tarneeb-receipt"}')  # type: ignore[arg-type]


def test_make_receipt_refuses_values_it_cannot_sign() -> None:
    key = MatchSecrets(SEED).key
    terms = dict(rules="eram41", seats=["A", "B", "C", "D"], match_id=b"m",
                 server_commitment=bytes(32), client_commitments=[bytes(32)] * 4)
    with pytest.raises(TypeError, match="private key"):
        tarneeb.make_receipt(key.public_key(), **terms)  # type: ignore[arg-type]
    with pytest.raises(tarneeb.ReceiptError, match="match_id"):
        tarneeb.make_receipt(key, **{**terms, "match_id": "m"})
    with pytest.raises(tarneeb.ReceiptError, match="four seats"):
        tarneeb.make_receipt(key, **{**terms, "seats": [None] * 4})
