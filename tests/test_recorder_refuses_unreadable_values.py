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
