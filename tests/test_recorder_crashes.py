"""The recorder under a hostile server and a hostile disk: nothing it acknowledged is lost.

- A match dealt blind gives the recorder records it does not make itself: each deal's
  transcript, each card's proof, the keys the seats reveal. Written unreadable, such a record
  made every value after it unreadable (here the 50-odd moves, the end record and the
  signature of the match played on after it) while every call after it returned as
  acknowledged. Refused (``RecorderError``), nothing written, the match goes on clean.
- ``close()`` then ``resume`` in one process, group commit: refused now and then as "being
  written by another recorder" (the background fsync in flight held the file, and its lock).
- A power loss that keeps a card and its proof (fsynced) and leaves zeros after them: a
  proof that ends in a zero byte was dropped with its card by ``resume``.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from test_recorder_failures import _open as _open_any

import tarneeb
from tarneeb.replay.log import jsonform as logjson
from tarneeb.replay.log import parse_log
from tarneeb.replay.server.blind import play_blind_match
from tarneeb.replay.server.recorder import MatchRecorder, match_calls
from tarneeb.replay.server.simulate import MatchSecrets
from tarneeb.replay.verify.tail import value_ends

SEED = b"recorder crashes blind"


@functools.cache
def blind_match() -> tuple[bytes, dict[str, Any]]:
    log = play_blind_match("qahwa41", seed=SEED, target=3)
    return log, logjson.to_json(log)


def _open(path: Path, doc: dict[str, Any], durability: str = "flush") -> MatchRecorder:
    return _open_any(path, doc, durability, dealing="blind")


def _bad_proof(position: Callable[[int], object], proof: Callable[[bytes], object]
               ) -> Callable[[dict[str, Any]], dict[str, Any] | None]:
    def bad(kw: dict[str, Any]) -> dict[str, Any] | None:
        if kw.get("proof") is None or "card" not in kw:
            return None
        pos, pr = kw["proof"]
        return {**kw, "proof": (position(pos), proof(pr))}
    return bad


def _bad_transcript(kw: dict[str, Any]) -> dict[str, Any] | None:
    t = kw.get("blind")
    return None if t is None else {**kw, "blind": dataclasses.replace(t, publics=t.publics[:10])}


def _bad_keys(kw: dict[str, Any]) -> dict[str, Any] | None:
    k = kw.get("keys")
    return None if k is None else {"keys": dataclasses.replace(k, scalars=[b"x"] * 4)}


BAD = {
    "a proof at position 99": _bad_proof(lambda p: 99, lambda b: b),
    "a proof at position True": _bad_proof(lambda p: True, lambda b: b),
    "a proof of 5 bytes": _bad_proof(lambda p: p, lambda b: b[:5]),
    "a proof given as hex text": _bad_proof(lambda p: p, lambda b: b.hex()),
    "a transcript with short public keys": _bad_transcript,
    "revealed scalars of 1 byte": _bad_keys,
}


@pytest.mark.parametrize("what", sorted(BAD))
def test_a_blind_record_the_reader_refuses_is_not_written(tmp_path: Path, what: str) -> None:
    log, doc = blind_match()
    path = tmp_path / "m.tlog"
    rec = _open(path, doc)
    refused = False
    for call in match_calls(doc):
        assert isinstance(call, functools.partial)
        bad = None if refused else BAD[what](dict(call.keywords))
        if bad is not None:
            size = rec.writer.size
            with pytest.raises(tarneeb.RecorderError):
                call.func(rec, **bad)
            assert rec.writer.size == size and path.stat().st_size == size  # nothing written
            refused = True
        call(rec)  # the server makes the call again, right: the match goes on
    assert refused
    rec.sign(MatchSecrets(SEED).key)
    rec.close()
    assert path.read_bytes() == log  # every move acknowledged after the refusal is there
    verdict = tarneeb.verify_file(path)
    assert verdict.clean, verdict.findings


def test_a_recorder_closed_while_its_group_commit_syncs_can_be_resumed_at_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``group:MS``: ``close()`` returned while the background ``fsync`` still ran on its
    thread, and a system call in flight holds the file open — and the recorder's lock with it.
    A server that closes a recorder and resumes its log at once was refused ("being written
    by another recorder") about one time in 25 with ``group:1``; ``close()`` now waits for
    the ``fsync`` and drops the lock. The ``fsync`` here holds the file as the one in flight
    does (a duplicate of its descriptor) for a fifth of a second."""
    log, doc = blind_match()
    path = tmp_path / "m.tlog"
    syncing, release = threading.Event(), threading.Event()
    real_fsync = os.fsync

    def fsync(fd: int) -> None:
        if threading.current_thread().name != "group-commit":
            real_fsync(fd)
            return
        held = os.dup(fd)  # the file, held by the system call in flight
        syncing.set()
        release.wait(10)
        try:
            real_fsync(held)
        finally:
            os.close(held)

    monkeypatch.setattr(os, "fsync", fsync)
    rec = _open(path, doc, "group:60000")  # its timer not due in the test: the test's thread syncs
    calls = list(match_calls(doc))
    calls[0](rec)
    calls[1](rec)
    sync = threading.Thread(target=rec.writer._timed_sync, name="group-commit")
    sync.start()
    try:
        assert syncing.wait(10)
        threading.Timer(0.2, release.set).start()  # the slow disk's fsync returns
        rec.close()
        again = MatchRecorder.resume(path, durability="group:1")  # refused before the fix
    finally:
        release.set()
        sync.join(10)
    for call in calls[2:]:
        call(again)
    again.sign(MatchSecrets(SEED).key)
    again.close()
    assert path.read_bytes() == log
    assert tarneeb.verify_file(path).clean


FIXTURE = Path(__file__).resolve().parent.parent / "fixtures" / "matches" / "qahwa5-blind.tlog"


def _proofs_ending_in_zero(data: bytes) -> list[int]:
    """Where each card whose proof record ends in a zero byte ends (a card and its proof: one
    value), before the end record."""
    log = parse_log(data)
    ends = value_ends(data, log.offsets[0])
    return [e for s, e in itertools.pairwise(ends)
            if data[e - 1] == 0 and b"\x93\x06" in data[s:s + 3] and e <= (log.end_offset or 0)]


def test_a_card_whose_proof_ends_in_a_zero_byte_survives_a_zero_filled_tail(
        tmp_path: Path) -> None:
    """A power loss after the ``fsync`` that covered a card and its proof, with the file's
    length saved for the next value and its block not: zeros after the proof. A proof ends
    in a zero byte about one time in 30 (its last scalar byte); the reader cannot tell its
    own zero from the fill and drops the record, and ``resume`` dropped the card with it: a
    move acknowledged, durable, lost. Given the server seed, the proof is judged and proves:
    the card is kept. A proof a crash tore (its last bytes zeros, not its own) is still cut."""
    data = FIXTURE.read_bytes()
    seed = parse_log(data).end.server_seed  # type: ignore[union-attr]
    ends = _proofs_ending_in_zero(data)
    assert ends
    path = tmp_path / "m.tlog"
    for e in ends:
        path.write_bytes(data[:e] + bytes(4096 - e % 4096))
        rec = MatchRecorder.resume(path, durability="fsync", server_seed=seed)
        assert rec.writer.size == e, (e, rec.cut)  # the card and its proof kept
        assert rec.cut is not None and "is zeros, not records" in rec.cut
        rec.close()
        assert path.read_bytes() == data[:e]
        torn = e - len(data[:e].rstrip(b"\0")) + 1  # its own zeros, and the byte before them
        path.write_bytes(data[:e - torn] + bytes(4096))
        rec = MatchRecorder.resume(path, server_seed=seed)
        assert rec.writer.size < e - 66, (e, rec.cut)  # the card cut with its torn proof
        rec.close()
