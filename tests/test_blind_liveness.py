"""A seat that stops in a blind deal: the log says who, and the transcript shows it was that seat.

PROTOCOL.md §13.8: the blind record of a deal that stopped holds the steps delivered,
the end record a timeout on the seat whose step is missing; a timeout blamed on
another seat is a finding on the seat blamed.
"""

from __future__ import annotations

import pytest

from tarneeb.replay.log import parse_log
from tarneeb.replay.log.records import Abandonment, EndRecord
from tarneeb.replay.server.blind import play_blind_match
from tarneeb.replay.server.simulate import MatchSecrets
from tarneeb.replay.verify.replayer import verify_bytes
from tarneeb.testing.alterations.base import _close, _open

SEED = b"blind stall"


def _stalled(step: int, rules: str = "eram41") -> bytes:
    return play_blind_match(rules, seed=SEED, target=3, stall=(0, step))


@pytest.mark.parametrize(("step", "seat", "what"), [
    (0, 0, "shuffle pass"), (3, 3, "shuffle pass"), (4, 0, "partial decryptions"),
    (10, 2, "partial decryptions"), (15, 3, "partial decryptions")])
def test_the_seat_that_did_not_deliver_is_named(step: int, seat: int, what: str) -> None:
    data = _stalled(step)
    log = parse_log(data)
    assert log.hands[-1].blind is not None and log.hands[-1].blind.waiting_for == seat
    v = verify_bytes(data)
    assert v.clean, [str(f) for f in v.findings]
    assert v.ending is not None and f"waiting for seat {seat}" in v.ending
    assert f"seat {seat} did not deliver its {what}" in v.ending


@pytest.mark.parametrize("rules", ["qahwa41", "sahrat41", "sahrat400", "classic"])
def test_a_timeout_blamed_on_another_seat_is_a_finding_on_the_seat_blamed(rules: str) -> None:
    log = _open(_stalled(6, rules))  # seat 2's first round of decryptions is missing
    assert log.end is not None
    log.end = EndRecord(None, log.end.server_seed, Abandonment("timeout", 0, "no answer"))
    v = verify_bytes(_close(log, MatchSecrets(SEED).key))
    f = next(f for f in v.findings if f.kind == "timeout-out-of-turn")
    assert f.seat == 0 and "stops at seat 2" in f.message and "round 1" in f.message


def test_an_unfinished_deal_that_goes_on_is_a_finding() -> None:
    log = _open(_stalled(2))
    log.hands[-1].calls = [(1, 7)]
    v = verify_bytes(_close(log, MatchSecrets(SEED).key))
    assert any(f.kind == "blind-transcript" and "not finished" in f.message for f in v.findings)
    assert not v.clean


def test_a_pass_delivered_before_the_stop_is_still_proven() -> None:
    log = _open(_stalled(2))  # passes 0-1 delivered, seat 2 stops
    t = log.hands[-1].blind
    assert t is not None and t.shuffle_proofs is not None
    bad = bytearray(t.passes[1])
    bad[:32], bad[32:64] = bad[32:64], bad[:32]  # seat 1's last pass is not what it proved
    t.passes[1] = bytes(bad)
    v = verify_bytes(_close(log, MatchSecrets(SEED).key))
    assert {(f.kind, f.seat) for f in v.findings if f.seat is not None} == {("wrong-shuffle", 1)}


def test_a_stopped_deal_converts_to_json_and_back_to_the_same_bytes() -> None:
    from tarneeb.replay.log.jsonform import dumps, loads

    for step in (2, 9):
        data = _stalled(step)
        assert loads(dumps(data)) == data
