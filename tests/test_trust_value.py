"""What the user trusts is one frozen value (Trust), passed whole to the replayer, the
match report, the archive audit and its workers: every anchor reaches each of them."""

from __future__ import annotations

import pickle
from dataclasses import FrozenInstanceError

import pytest

from tarneeb.audit.signing import public_key_raw
from tarneeb.replay.archive.audit import audit_chunk, run_chunks
from tarneeb.replay.log import parse_log
from tarneeb.replay.server.simulate import MatchSecrets, play_logged_match
from tarneeb.replay.verify.receipt import read_receipt, receipt_json
from tarneeb.replay.verify.replayer import verify_bytes
from tarneeb.replay.verify.trust import NOTHING, Trust
from tarneeb.report.match import match_report

SEED = b"trust value"


@pytest.fixture(scope="module")
def log() -> bytes:
    return play_logged_match("qahwa41", seed=SEED)


def test_trust_is_frozen_and_travels_to_a_worker_whole(log: bytes) -> None:
    raw = public_key_raw(MatchSecrets(SEED).key.public_key())
    receipt = read_receipt(receipt_json(parse_log(log).header, MatchSecrets(SEED).key).encode())
    t = Trust(public_key=raw, root=bytes(32), receipts=(receipt,), server_seed=bytes(32))
    with pytest.raises(FrozenInstanceError):
        t.root = None  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(t)) == t
    assert Trust() == NOTHING and not NOTHING.pinned and t.pinned
    # the keys too: a name added after the trust was made would pass none of the keys
    # file's checks (a look-alike "cardr00m" beside "cardroom")
    named = Trust(keys={"cardroom": raw})
    with pytest.raises(TypeError):
        named.keys["cardr00m"] = bytes(32)  # type: ignore[index]
    assert pickle.loads(pickle.dumps(named)) == named and dict(named.keys) == {"cardroom": raw}



def test_a_receipt_is_taken_for_its_match(log: bytes) -> None:
    key = MatchSecrets(SEED).key
    mine = read_receipt(receipt_json(parse_log(log).header, key).encode())
    other_log = play_logged_match("qahwa41", seed=b"another match")
    other = read_receipt(receipt_json(parse_log(other_log).header,
                                      MatchSecrets(b"another match").key).encode())
    match_id = parse_log(log).header.match_id
    assert Trust(receipts=(other, mine)).receipt_for(match_id) is mine
    assert Trust(receipts=(other,)).receipt_for(match_id) is other  # one given: it is checked
    assert Trust(receipts=(other, other)).receipt_for(match_id) is None
    assert Trust(receipts=(None,)).receipts == ()  # a caller may pass the one it has not


def test_every_anchor_reaches_the_replayer_the_report_and_the_archive(log: bytes,
                                                                      tmp_path) -> None:
    """One wrong anchor, the same finding from each of them: a server seed that is not
    the one the log reveals (the archive audit could not take one before)."""
    wrong = Trust(server_seed=bytes(32))
    path = tmp_path / "m.tlog"
    path.write_bytes(log)
    assert verify_bytes(log).clean
    kinds = [f.kind for f in verify_bytes(log, trust=wrong).findings]
    assert kinds == ["server-seed"]
    _, verdict = match_report(log, trust=wrong)
    assert [f.kind for f in verdict.findings] == ["server-seed"]
    chunk = audit_chunk([str(path)], wrong)
    assert [r.kind for r in chunk.findings] == ["server-seed"]
    rows = [m for c in run_chunks([str(path)], wrong, jobs=2) for m in c.matches]
    assert [m.verdict for m in rows] == ["findings"]  # through a worker process
    assert [m.verdict for c in run_chunks([str(path)], NOTHING, jobs=1) for m in c.matches] \
        == ["clean"]
