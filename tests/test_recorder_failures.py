"""The recorder when the disk fails it: a write that stops part-way through a value (a full
disk: a short write, then an error) and an ``fsync`` that fails (an I/O error).

The call that failed raises, and the writer is broken from then on: it writes nothing more
(a retried call would land after a torn value, or after bytes the system may have dropped),
and says so. A value torn on the recorder's own file is cut off it at once, so the file
stays a log of whole values that the server takes up again (``MatchRecorder.resume``) and
goes on from, to the uninterrupted run's bytes.
"""

from __future__ import annotations

import errno
import io
import os
import resource
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import tarneeb
from tarneeb.replay.log import jsonform as logjson
from tarneeb.replay.log import writer as logwriter
from tarneeb.replay.log.writer import Durability, LogWriteError, LogWriter
from tarneeb.replay.rules.ruleset import preset
from tarneeb.replay.server.recorder import MatchRecorder, RecorderError, match_calls
from tarneeb.replay.server.simulate import MatchSecrets, play_logged_match
from tarneeb.replay.verify.trust import Trust

SEED = b"recorder failures"


@pytest.fixture(scope="module")
def match() -> tuple[bytes, dict, MatchSecrets]:
    log = play_logged_match(preset("classic"), seed=SEED)
    return log, logjson.to_json(log), MatchSecrets(SEED)


def _open(path: Path, doc: dict, durability: str = "flush", **more: Any) -> MatchRecorder:
    """A recorder of ``doc``'s match (its JSON form) writing to ``path``; ``more``: the
    recorder's other options (``dealing="blind"``)."""
    h = doc["records"][0]
    return MatchRecorder(
        path, rules=h["rules"], seats=[(x["name"], x["computer"]) for x in h["seats"]],
        match_id=bytes.fromhex(h["match_id"]), first_dealer=h["first_dealer"],
        public_key=bytes.fromhex(h["public_key"]),
        server_commitment=bytes.fromhex(h["server_commitment"]),
        client_commitments=[bytes.fromhex(x) for x in h["client_commitments"]],
        client_seeds=[bytes.fromhex(x) for x in h["client_seeds"]], durability=durability,
        **more)


class _FileSizeLimit:
    """RLIMIT_FSIZE at ``limit`` bytes (SIGXFSZ ignored): a write past it is cut short at
    the limit and the next one fails with EFBIG, as a write to a full disk does."""

    def __init__(self) -> None:
        self.soft, self.hard = resource.getrlimit(resource.RLIMIT_FSIZE)
        self.handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

    def set(self, limit: int) -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, self.hard))

    def lift(self) -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (self.soft, self.hard))


@pytest.fixture
def fsize() -> Iterator[_FileSizeLimit]:
    limit = _FileSizeLimit()
    try:
        yield limit
    finally:
        limit.lift()
        signal.signal(signal.SIGXFSZ, limit.handler)


@pytest.mark.parametrize("durability", ["flush", "fsync", "group:5"])
def test_a_write_torn_by_a_full_disk_is_cut_off_and_the_match_goes_on_after_resume(
        tmp_path: Path, match: tuple[bytes, dict, MatchSecrets], fsize: _FileSizeLimit,
        durability: str) -> None:
    log, doc, s = match
    path = tmp_path / "m.tlog"
    rec = _open(path, doc, durability)
    calls = list(match_calls(doc))
    fsize.set(1000)  # the disk fills up at byte 1,000, part-way through a value
    failed = None
    for i, call in enumerate(calls):
        try:
            call(rec)
        except OSError:
            failed = i
            break
    assert failed is not None
    acknowledged = rec.writer.size  # every call before the failed one returned
    # the torn value is cut off: the file holds whole values, those acknowledged
    assert path.read_bytes() == rec.writer.signed_bytes == log[:acknowledged]
    fsize.lift()  # space again: the broken writer still writes nothing
    with pytest.raises(LogWriteError):
        calls[failed](rec)
    with pytest.raises(LogWriteError):
        rec.writer.sync()
    rec.close()
    assert path.read_bytes() == log[:acknowledged]
    # the server takes the log up again from the file and goes on
    rec = MatchRecorder.resume(path, durability=durability, server_seed=s.server_seed)
    assert rec.cut is None and rec.writer.size == acknowledged
    for call in calls[failed:]:
        call(rec)
    rec.sign(s.key)
    rec.close()
    assert path.read_bytes() == log
    assert tarneeb.verify_file(str(path), Trust(
        public_key=tarneeb.public_key_raw(s.key.public_key()))).clean


def test_a_header_that_cannot_be_written_leaves_no_file(
        tmp_path: Path, match: tuple[bytes, dict, MatchSecrets], fsize: _FileSizeLimit) -> None:
    """Nothing of the match was acknowledged: no torn header is left to block a new start
    (a recorder never writes over a file, and resume cannot read a torn header)."""
    _, doc, _ = match
    path = tmp_path / "m.tlog"
    fsize.set(100)
    with pytest.raises(OSError):
        _open(path, doc, "flush")
    fsize.lift()
    assert not path.exists()
    _open(path, doc, "flush").close()  # the server starts it again


def _failing_fsync(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The next fsync fails with EIO, then they succeed again, as Linux's do once the
    pages it could not write back are dropped (marked clean) and the error reported."""
    fail = [1]
    real = os.fsync

    def fsync(fd: int) -> None:
        if fail:
            fail.pop()
            raise OSError(errno.EIO, "Input/output error")
        real(fd)

    monkeypatch.setattr(logwriter.os, "fsync", fsync)
    return fail


def test_after_a_failed_fsync_nothing_more_is_written_or_called_durable(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with open(tmp_path / "w.tlog", "wb", buffering=0) as f:
        w = LogWriter(f, Durability.fsync())
        w.move(0x41)
        _failing_fsync(monkeypatch)
        with pytest.raises(OSError):
            w.move(0x42)  # not acknowledged: its bytes may be lost
        with pytest.raises(LogWriteError):
            w.move(0x43)  # the next fsync would succeed, and cover nothing that was dropped
        with pytest.raises(LogWriteError):
            w.wait_durable(0)
        assert w.durable_size == 1
        w.close(close_stream=False)


def test_a_failed_background_fsync_is_reported_not_waited_for_forever(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[Callable[[], None]] = []

    class Timer:  # the group commit's background sync, run when the test says
        def __init__(self, interval: float, function: Callable[[], None]) -> None:
            self.function, self.daemon = function, False
            made.append(function)

        def start(self) -> None:
            pass

        def cancel(self) -> None:
            pass

    monkeypatch.setattr(logwriter.threading, "Timer", Timer)
    with open(tmp_path / "w.tlog", "wb", buffering=0) as f:
        w = LogWriter(f, Durability.group(60_000))
        w.move(0x41)  # synced at once: nothing synced for a minute
        w.move(0x42)  # the background sync will cover it
        assert len(made) == 1
        _failing_fsync(monkeypatch)
        made[0]()  # it fails
        with pytest.raises(LogWriteError):
            w.wait_durable()  # no timeout: it said nothing and waited forever
        with pytest.raises(LogWriteError):
            w.move(0x43)  # was written, then synced by a fsync that covered nothing lost
        assert w.durable_size == 1
        w.close(close_stream=False)


def test_a_stream_recorder_is_broken_by_a_failed_write_too() -> None:
    """A stream the server gives (no file to cut): the writer breaks all the same."""

    class Full(io.RawIOBase):
        def writable(self) -> bool:
            return True

        def write(self, b: object) -> int:
            raise OSError(errno.ENOSPC, "No space left on device")

    out = io.BytesIO()
    rec = MatchRecorder(out, rules="qahwa41", seats=["A", "B", "C", "D"], match_id=b"m",
                        first_dealer=0)
    rec.deal(0)
    stream = rec.writer._stream
    rec.writer._stream = Full()  # type: ignore[assignment]
    with pytest.raises(OSError):
        rec.call(1, 6)
    rec.writer._stream = stream
    with pytest.raises(LogWriteError):
        rec.call(1, 6)
    with pytest.raises((LogWriteError, RecorderError)):
        rec.claim(totals=[0, 0, 0, 0])


def test_a_second_recorder_on_a_log_being_written_is_refused(
        tmp_path: Path, match: tuple[bytes, dict, MatchSecrets]) -> None:
    """A watchdog resumes a server it thinks dead while that one still writes: the second
    recorder, refused, cannot write over moves the first acknowledged (each would write at
    its own offset: the resumed one's abandon and signature over the first one's moves, a
    clean signed log without them)."""
    log, doc, s = match
    path = tmp_path / "m.tlog"
    rec = _open(path, doc, "fsync")
    calls = list(match_calls(doc))
    for call in calls[:30]:
        call(rec)
    with pytest.raises(RecorderError, match="another recorder"):
        MatchRecorder.resume(path, durability="fsync", server_seed=s.server_seed)
    for call in calls[30:40]:
        call(rec)  # acknowledged: nothing else writes over them
    assert path.read_bytes() == log[:rec.writer.size]
    rec.close()  # or the process dies: the lock goes with it
    again = MatchRecorder.resume(path, durability="fsync", server_seed=s.server_seed)
    with pytest.raises(RecorderError, match="another recorder"):
        MatchRecorder.resume(path, server_seed=s.server_seed)
    for call in calls[40:]:
        call(again)
    again.sign(s.key)
    again.close()
    assert path.read_bytes() == log
