"""The recorder refuses, with RecorderError and writing nothing, every value a log's reader
would refuse: a value written unreadable would make the log unreadable from there, every
move acknowledged after it with it, and once signed the log could not be taken up again."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import tarneeb
from tarneeb.replay.server.simulate import MatchSecrets

SECRETS = MatchSecrets(b"recorder refuses")
SEED = bytes(range(32))


def header(**changes: Any) -> dict[str, Any]:
    commitment = tarneeb.server_commitment(SEED)
    return {"rules": "eram41", "seats": ["Ann", "Ben", "Cat", "Dan"], "match_id": b"m-1",
            "first_dealer": 0, "public_key": tarneeb.public_key_raw(SECRETS.key.public_key()),
            "server_commitment": commitment, "client_commitments": [bytes(32)] * 4,
            "client_seeds": [bytes(16)] * 4, **changes}


@pytest.mark.parametrize("changes", [
    {"public_key": "ab" * 32}, {"public_key": bytes(5)},
    {"server_commitment": "ab" * 32}, {"client_commitments": [bytes(32)] * 3},
    {"client_seeds": ["ab" * 16] * 4}, {"match_id": "m-1"}, {"match_id": bytes(65)},
    {"match_id": None}, {"seats": "ABCD"}, {"seats": [None, "Ben", "Cat", "Dan"]},
    {"seats": ["x" * 5000, "Ben", "Cat", "Dan"]},
])
def test_a_header_the_reader_refuses_is_not_written(tmp_path: Path,
                                                    changes: dict[str, Any]) -> None:
    path = tmp_path / "m.tlog"
    with pytest.raises(tarneeb.RecorderError):
        tarneeb.MatchRecorder(path, **header(**changes))
    assert not path.exists()


@pytest.fixture
def rec(tmp_path: Path) -> tarneeb.MatchRecorder:
    r = tarneeb.MatchRecorder(tmp_path / "m.tlog", **header())
    r.deal(0, revealed=5)
    return r


def test_a_claim_without_totals_is_refused(rec: tarneeb.MatchRecorder) -> None:
    size = rec.writer.size
    with pytest.raises(tarneeb.RecorderError, match="totals"):
        rec.claim(totals=None)  # type: ignore[arg-type]
    with pytest.raises(tarneeb.RecorderError, match="trump"):
        rec.claim(totals=[0, 0, 0, 0], tricks=[1] * 4, scores=[0] * 4, trump=9)
    assert rec.writer.size == size
    rec.claim(totals=[0, 0, 0, 0])  # the hand is still open: a claim that reads closes it


@pytest.mark.parametrize("seed", [SEED.hex(), SEED[:5], 5])
def test_an_end_record_the_reader_refuses_is_not_written(rec: tarneeb.MatchRecorder,
                                                         seed: object, tmp_path: Path) -> None:
    size = rec.writer.size
    with pytest.raises(tarneeb.RecorderError, match="server_seed"):
        rec.abandon("server-fault", None, "restarted", seed)  # type: ignore[arg-type]
    with pytest.raises(tarneeb.RecorderError, match="reason"):
        rec.abandon("server-fault", None, 42, SEED)  # type: ignore[arg-type]
    assert rec.writer.size == size
    rec.abandon("server-fault", None, "restarted", SEED)  # not ended: it can end now
    rec.sign(SECRETS.key)
    verdict = tarneeb.verify_file(tmp_path / "m.tlog")
    assert verdict.error is None
    assert verdict.ending is not None and "restarted" in verdict.ending


def test_a_recorded_deal_the_reader_refuses_is_not_written(tmp_path: Path) -> None:
    r = tarneeb.MatchRecorder(tmp_path / "m.tlog", **header(server_commitment=None,
                                                            client_commitments=None,
                                                            client_seeds=None))
    size = r.writer.size
    with pytest.raises(tarneeb.RecorderError, match="deal hand"):
        r.deal(0, hands=[1 << 60, 0, 0, 0], thirteenth=5)
    assert r.writer.size == size


def test_resume_takes_the_server_seed_as_bytes(rec: tarneeb.MatchRecorder,
                                               tmp_path: Path) -> None:
    path = tmp_path / "m.tlog"
    rec.close()
    with pytest.raises(tarneeb.RecorderError, match="server_seed must be bytes"):
        tarneeb.MatchRecorder.resume(path, server_seed=SEED.hex())  # type: ignore[arg-type]
    tarneeb.MatchRecorder.resume(path, server_seed=SEED).close()


def test_values_a_signed_log_would_hold_as_findings_for_ever_are_refused(
        rec: tarneeb.MatchRecorder, tmp_path: Path) -> None:
    """A server seed other than the committed one, and a signing function that gives no
    signature of the log under its header's key (63 bytes, text, None, another key's),
    were written and signed: the log then held a finding for ever, or was torn."""
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    size = rec.writer.size
    with pytest.raises(tarneeb.RecorderError, match="not the one the log's header commits"):
        rec.abandon("server-fault", None, "restarted", bytes(32))
    assert rec.writer.size == size
    rec.abandon("server-fault", None, "restarted", SEED)
    size = rec.writer.size
    for bad in (lambda d: bytes(63), lambda d: "sig", lambda d: None,
                Ed25519PrivateKey.generate().sign):
        with pytest.raises(tarneeb.RecorderError, match="nothing written"):
            rec.sign(bad)
        assert rec.writer.size == size
    rec.sign(SECRETS.key)
    kinds = {f.kind for f in tarneeb.verify_file(tmp_path / "m.tlog").findings}
    assert not kinds & {"unsigned", "broken-signature", "server-seed", "cut-short"}, kinds


def test_a_seed_for_a_log_that_commits_to_none_and_flags_and_intervals_out_of_range(
        tmp_path: Path) -> None:
    """A seed revealed (or given to resume) for a log that commits to no seed, a computer
    flag that is not a bool (("Ann", "no") was a computer seat), a group commit's interval
    that is infinite (its timer thread died: nothing was ever durable)."""
    plain = header(server_commitment=None, client_commitments=None, client_seeds=None)
    r = tarneeb.MatchRecorder(tmp_path / "m.tlog", **plain)
    r.close()
    with pytest.raises(tarneeb.RecorderError, match="commits to no server seed"):
        tarneeb.MatchRecorder.resume(tmp_path / "m.tlog", server_seed=SEED)
    r = tarneeb.MatchRecorder.resume(tmp_path / "m.tlog")
    with pytest.raises(tarneeb.RecorderError, match="commits to no server seed"):
        r.finish(0, SEED)
    r.close()
    with pytest.raises(tarneeb.RecorderError, match="computer flag"):
        tarneeb.MatchRecorder(tmp_path / "n.tlog",
                              **header(seats=[("Ann", "no"), "Ben", "Cat", "Dan"]))
    for interval in ("group:inf", "group:60001", "group:nan"):
        with pytest.raises(tarneeb.RecorderError, match="at most 60,000 ms"):
            tarneeb.MatchRecorder(tmp_path / "o.tlog", **header(), durability=interval)
    assert not (tmp_path / "n.tlog").exists() and not (tmp_path / "o.tlog").exists()


def test_a_trump_refused_is_not_named(tmp_path: Path) -> None:
    """A suit that is none is refused, and the trump is still to name: it counted as named
    (the right suit was then refused, "the trump is named once"); the Node recorder checks
    first."""
    import io

    rec = tarneeb.MatchRecorder(io.BytesIO(), rules="classic", seats=["A", "B", "C", "D"],
                                match_id=b"m-1", first_dealer=0)
    rec.deal(0)
    rec.call(1, 7)
    for bad in ("X", 9):
        with pytest.raises(tarneeb.RecorderError, match=r"not a suit|must be 0-3"):
            rec.name_trump(bad)
    rec.name_trump("♠")
    with pytest.raises(tarneeb.RecorderError, match="named once"):
        rec.name_trump("♥")


def test_a_log_that_cannot_be_made_and_a_bad_durability_to_resume_are_recorder_errors(
        tmp_path: Path) -> None:
    """``MatchRecorder("/no/dir/x.tlog")`` raised FileNotFoundError (Node: RecorderError);
    ``resume(durability=None)`` raised AttributeError after it had cut the file."""
    with pytest.raises(tarneeb.RecorderError, match=r"cannot create .*x.tlog: No such file"):
        tarneeb.MatchRecorder(tmp_path / "no" / "x.tlog", rules="eram41",
                              seats=["A", "B", "C", "D"], match_id=b"m", first_dealer=0)
    path = tmp_path / "m.tlog"
    rec = tarneeb.MatchRecorder(path, rules="eram41", seats=["A", "B", "C", "D"],
                                match_id=b"m", first_dealer=0)
    rec.deal(0)
    rec.close()
    data = path.read_bytes() + b"\xcc"  # (a torn value the resume would cut)
    path.write_bytes(data)
    for bad in (None, 5):
        with pytest.raises(tarneeb.RecorderError, match="durability is flush, fsync"):
            tarneeb.MatchRecorder.resume(path, durability=bad)  # type: ignore[arg-type]
        assert path.read_bytes() == data
