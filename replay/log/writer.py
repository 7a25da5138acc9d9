"""Writing a log as the match goes: every value appended, with a chosen durability.

:class:`LogWriter` appends the values of ``docs/FORMAT.md`` to a binary stream:
the header, then for each hand its deal record, each move as it happens, its
claims record; the end record; the signature. What "written" means is the
:class:`Durability`:

* ``Durability.flush()`` — each append is handed to the operating system before it
  returns: it survives the server process dying (even by SIGKILL), not a power loss
  or an operating-system crash until the system writes it back by itself;
* ``Durability.fsync()`` — each append is on the disk (``fsync``) before it returns:
  it survives a power loss too;
* ``Durability.group(ms)`` — each append is handed to the system before it returns,
  and while anything is unsynced a background thread calls ``fsync`` at most every
  ``ms`` milliseconds, timed to return about ``ms`` ms after the one before; an append
  after that time syncs before it returns. An append survives a power loss once the
  ``fsync`` that covers it has returned: about ``ms`` ms after the append at most, later
  by as much as the thread is woken late or the disk syncs slowly (a loaded machine:
  ``bench/bench_durability.py`` measures it). :meth:`LogWriter.wait_durable` waits for it.

A value counts as *written* once the stream has handed it to the operating system,
and as *durable* once an ``fsync`` that started after that has returned: never
before (``wait_durable`` answers by that).

A write or an ``fsync`` that fails (a full disk, an I/O error) raises, and the writer is
*broken* from then on: every later append, sync or wait raises :class:`LogWriteError`. After
a failed ``fsync`` the system may have dropped the bytes it could not write back, and a
later ``fsync`` would say nothing of them; after a failed write the stream may hold part of
a value. Only the file tells what it holds: the server takes it up again
(``MatchRecorder.resume``). A value torn by a failed write on an unbuffered file
(``io.FileIO``, as the recorder opens its log) is cut off the file at once, so the file
stays a log of whole values.

>>> import io
>>> from tarneeb.replay.log import HandRecord, Header, Seat
>>> from tarneeb.replay.rules.ruleset import preset
>>> w = LogWriter(io.BytesIO())
>>> w.write(Header(preset("qahwa41"), [Seat("bot", True)] * 4, b"m1", first_dealer=1))
0
>>> start = w.begin_hand(HandRecord(deal_number=0, dealer=1))
>>> w.move(CALL_MOVE | 2 << 4 | 5) - start  # seat 2 bids 5: one byte after the deal record
6
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import BinaryIO

from tarneeb.replay.log.blind import BlindTranscript, blind_list, proof_list
from tarneeb.replay.log.records import (
    CALL_MOVE,
    EndRecord,
    HandRecord,
    Header,
    Record,
    SignatureRecord,
    _pack,
    claims_list,
    deal_list,
    encode_hand,
    encode_move,
    encode_record,
)

MAX_GROUP_MS = 60_000  # a group commit's longest interval: a minute


@dataclass(frozen=True)
class Durability:
    """When an appended value counts as written: see the module's docstring.

    >>> Durability.group(5)
    Durability(mode='group', interval_ms=5.0)
    """

    mode: str = "flush"
    interval_ms: float = 0.0

    def __post_init__(self) -> None:
        if self.mode not in ("flush", "fsync", "group"):
            raise ValueError(f"durability {self.mode!r}: give flush, fsync or group:MS")
        if self.mode == "group" and not 0 < self.interval_ms <= MAX_GROUP_MS:
            # (an interval past a minute, or not a number, stops the commits it times)
            raise ValueError(f"a group commit needs an interval above 0 ms and at most "
                             f"{MAX_GROUP_MS:,} ms, not {self.interval_ms!r}")

    @classmethod
    def flush(cls) -> Durability:
        return cls("flush")

    @classmethod
    def fsync(cls) -> Durability:
        return cls("fsync")

    @classmethod
    def group(cls, interval_ms: float) -> Durability:
        return cls("group", float(interval_ms))

    @classmethod
    def parse(cls, text: str) -> Durability:
        """``flush``, ``fsync`` or ``group:MS``."""
        if text in ("flush", "fsync"):
            return cls(text)
        if text.startswith("group:"):
            # milliseconds in decimal digits (as the TypeScript recorder reads them: not
            # 1_000, 0x10 or 1e3), or inf and nan, out of range
            given = text[6:].strip(" \t")
            if re.fullmatch(r"[0-9]+(\.[0-9]+)?|[-+]?(inf(inity)?|nan)", given,
                            re.IGNORECASE | re.ASCII):
                return cls.group(float(given))  # (out of range: said in its own words)
        raise ValueError(f"durability {text!r}: give flush, fsync or group:MS")


class LogWriteError(OSError):
    """A writer whose write or ``fsync`` failed writes nothing more: the file, not the
    writer, says what the log holds (take it up again with ``MatchRecorder.resume``)."""


class LogWriter:
    """Appends a log's values to ``stream`` and signs at the end.

    ``sign`` is a function from bytes to a 64-byte Ed25519 signature (for example
    ``tarneeb.audit`` signing with the platform key). With ``fsync`` or ``group``
    durability the stream must be a real file (it has a ``fileno``); a flush-only writer
    syncs a real file only when asked (:meth:`sync`).
    """

    def __init__(self, stream: BinaryIO, durability: Durability | None = None, *,
                 written: bytes = b"", named_trump: bool = False) -> None:
        """``written`` is what the stream already holds (a log taken up again after a
        restart: the signature covers it too); ``named_trump`` its rules' trump naming."""
        self._stream = stream
        self._written = bytearray(written)
        self.durability = durability or Durability.flush()
        self._named_trump = named_trump
        try:
            self._fd: int | None = stream.fileno()
        except (OSError, AttributeError, ValueError):  # io.UnsupportedOperation is both
            self._fd = None
        if self._fd is None and self.durability.mode != "flush":
            raise ValueError(f"{self.durability.mode} durability needs a file with a "
                             "descriptor to fsync")
        self._lock = threading.Lock()
        self._handed = len(written)  # bytes the operating system holds: what an fsync covers
        self._synced = 0  # bytes an fsync that has returned covers
        self._last_sync = 0.0  # when the last fsync returned
        self._sync_took = 0.0  # how long it took: the next one starts that much earlier
        self._timer: threading.Timer | None = None
        self._syncing: threading.Thread | None = None  # the background fsync's, while it runs
        self._durable = threading.Condition(self._lock)
        self._failed: BaseException | None = None  # the write or fsync that broke the writer
        # where the log starts in an unbuffered file: a torn value is cut off it there
        self._base: int | None = None
        if self._fd is not None and isinstance(stream, io.RawIOBase):
            try:
                self._base = stream.tell() - len(written)
            except OSError:
                self._base = None

    def _check(self) -> None:
        """Raise :class:`LogWriteError` when an earlier write or ``fsync`` failed."""
        if self._failed is not None:
            raise LogWriteError(f"the log's writer failed ({self._failed}): nothing more is "
                                "written to it; take the log up again from the file "
                                "(MatchRecorder.resume)") from self._failed

    def _broken(self, e: BaseException, offset: int | None = None) -> None:
        """Mark the writer broken by ``e``; a value torn at ``offset`` is cut off the file."""
        with self._lock:
            if self._failed is None:
                self._failed = e
            self._durable.notify_all()
        if offset is not None and self._base is not None and self._fd is not None:
            # if it fails the torn value stays: a reader (and resume) stops before it
            with contextlib.suppress(OSError):
                os.ftruncate(self._fd, self._base + offset)

    def _write_all(self, raw: bytes) -> None:
        view = memoryview(raw)
        while view:
            n = self._stream.write(view)
            if n is None:  # a stream that does not count: it took it whole
                break
            view = view[n:]
        self._stream.flush()

    # -- appending
    def _append(self, raw: bytes) -> int:
        self._check()
        offset = len(self._written)
        try:
            self._write_all(raw)
        except BaseException as e:  # a short write then an error: part of a value written
            self._broken(e, offset)
            raise
        mode = self.durability.mode
        with self._lock:  # counted once the system holds it: an fsync from now on covers it
            self._written += raw
            self._handed = len(self._written)
            if mode == "flush":
                return offset
            if mode == "group":
                # the next fsync to return about interval ms after the last one did
                interval = self.durability.interval_ms / 1000
                due = self._last_sync + interval - min(self._sync_took, interval / 2) \
                    - time.monotonic()
                if due > 0:
                    if self._timer is None:
                        self._timer = threading.Timer(due, self._timed_sync)
                        self._timer.daemon = True
                        self._timer.start()
                    return offset
        self._fsync()
        return offset

    def write(self, rec: Record) -> int:
        """Append a record (a whole hand: its deal, moves and claims); returns its offset."""
        if isinstance(rec, Header):
            self._named_trump = rec.rules.trump == "named"
        if isinstance(rec, HandRecord):
            return self._append(encode_hand(rec, self._named_trump))
        return self._append(encode_record(rec))

    def begin_hand(self, rec: HandRecord) -> int:
        """Append the deal record that opens ``rec`` (its number, dealer, revealed card and
        recorded deal; its moves and claims are not written)."""
        return self._append(_pack(deal_list(rec)))

    def move(self, code: int) -> int:
        """Append one move (see ``docs/FORMAT.md``: ``TIMER_MOVE`` set for a timer move)."""
        return self._append(encode_move(code))

    def blind_deal(self, transcript: BlindTranscript) -> int:
        """Append a blind deal's transcript, right after its deal record (a log whose
        header says dealing: blind; its play proofs are appended with :meth:`play_proof`)."""
        return self._append(_pack(blind_list(transcript)))

    def play_proof(self, position: int, proof: bytes) -> int:
        """Append the proof that the card just played is the one dealt at ``position``."""
        return self._append(_pack(proof_list(position, proof)))

    def close_hand(self, rec: HandRecord) -> int:
        """Append the claims record that closes ``rec`` (its trump, tricks, scores, totals)."""
        return self._append(_pack(claims_list(rec, self._named_trump)))

    @property
    def named_trump(self) -> bool:
        """Whether the header's rules name the trump by a move."""
        return self._named_trump

    @property
    def signed_bytes(self) -> bytes:
        return bytes(self._written)

    @property
    def size(self) -> int:
        return len(self._written)

    @property
    def durable_size(self) -> int:
        """How many bytes an ``fsync`` that has returned covers: they survive a power loss."""
        with self._lock:
            return self._synced

    def sign(self, sign: Callable[[bytes], bytes]) -> int:
        """Append the signature record over everything written so far."""
        return self.write(SignatureRecord(sign(bytes(self._written))))

    def end(self, rec: EndRecord) -> int:
        return self.write(rec)

    # -- durability
    def _fsync(self) -> None:
        assert self._fd is not None
        with self._lock:
            size = self._handed  # what the system holds now: all this fsync can cover
        start = time.monotonic()
        try:
            os.fsync(self._fd)
        except BaseException as e:  # the system may have dropped what it could not write
            self._broken(e)
            raise
        with self._lock:
            self._synced = max(self._synced, size)
            self._last_sync = time.monotonic()
            self._sync_took = self._last_sync - start
            self._durable.notify_all()

    def _timed_sync(self) -> None:
        with self._lock:  # with the check: an append after it schedules the next timer
            self._timer, self._syncing = None, threading.current_thread()
            pending = self._synced < self._handed and self._failed is None
        try:
            if pending:
                # failed, the writer is broken: the next append, sync or wait says so
                with contextlib.suppress(OSError):
                    self._fsync()
        finally:
            with self._lock:
                self._syncing = None

    def sync(self) -> None:
        """Make everything appended so far durable now: ``fsync``, in every durability mode
        (a stream without a file descriptor is only flushed)."""
        self._check()
        try:
            self._stream.flush()
        except BaseException as e:
            self._broken(e)
            raise
        if self._fd is not None:
            self._fsync()

    def wait_durable(self, timeout: float | None = None) -> bool:
        """Wait until everything appended so far is durable: an ``fsync`` that covers it has
        returned (group commit); ``False`` when ``timeout`` seconds passed first. A
        flush-only writer syncs only in :meth:`sync`: it answers at once. Raises
        :class:`LogWriteError` when a write or an ``fsync`` failed (the bytes may be lost)."""
        with self._lock:
            target = self._handed
            if self.durability.mode == "flush" or self._fd is None:
                done = self._synced >= target
            else:
                done = self._durable.wait_for(
                    lambda: self._synced >= target or self._failed is not None, timeout)
            if self._failed is None or self._synced >= target:
                return done
        self._check()
        return False  # not reached: _check raised

    def close(self, close_stream: bool = True) -> None:
        """Sync what is pending (fsync and group modes), stop the timer, close the stream
        (unless ``close_stream`` is false)."""
        with self._lock:
            timer, self._timer = self._timer, None
            syncing = self._syncing
            pending = self._synced < self._handed
        if timer is not None:
            timer.cancel()
        if syncing is not None and syncing is not threading.current_thread():
            syncing.join()  # the background fsync in flight: its system call holds the file
            # (and a recorder's lock on it) open until it returns
        if self._failed is not None:  # broken: nothing more to sync, only the file to close
            if close_stream:
                with contextlib.suppress(OSError):
                    self._stream.close()
            return
        if self.durability.mode != "flush" and pending:
            self._fsync()
        if close_stream:
            self._stream.close()
        else:
            self._stream.flush()


def sync_directory(path: str | os.PathLike[str]) -> None:
    """``fsync`` the directory that holds ``path``, so that a file just created there (its
    directory entry) survives a power loss. A system that cannot open a directory (Windows)
    has nothing to sync."""
    folder = os.path.dirname(os.path.abspath(os.fspath(path)))
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError as e:
        if e.errno not in (errno.EINVAL, errno.ENOTSUP):  # a file system that syncs none
            raise
    finally:
        os.close(fd)


__all__ = ["CALL_MOVE", "Durability", "LogWriteError", "LogWriter", "sync_directory"]
