"""Reading msgpack records from an untrusted stream, one at a time, within caps.

A log comes from a platform the reader need not trust, so nothing in it may make
the reader use unbounded memory or time. :class:`RecordReader` reads a binary
stream (a file, a pipe, or bytes) in chunks and yields one msgpack value a
record, refusing, with a :class:`CapExceeded` that names the cap, a stream
larger than ``max_bytes``, more than ``max_records`` records, a record larger
than ``max_record_bytes``, a field longer than ``max_field`` items or bytes, a
map of more than ``max_map`` entries, or nesting deeper than ``max_depth``.
Memory stays below ``max_bytes`` whatever the size of the file: a file larger
than the cap is refused before it is read, a pipe once the cap is passed.
:class:`Limits` is the one place that says every cap; ``docs/FORMAT.md`` lists
them and ``tarneeb verify --max-bytes/--max-records/--max-hands`` raise them.

>>> import msgpack
>>> reader = RecordReader(msgpack.packb([2, 0, None]) + msgpack.packb([3, b"x"]))
>>> [(r.offset, r.value) for r in reader]
[(0, [2, 0, None]), (4, [3, b'x'])]
>>> list(RecordReader(msgpack.packb([0, [1] * 5]), Limits(max_field=4)))
Traceback (most recent call last):
...
tarneeb.replay.log.stream.LogError: byte 0: not a tarneeb log (not msgpack: 5 exceeds ...)
"""

from __future__ import annotations

import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, fields
from typing import Any, BinaryIO, NamedTuple

import msgpack

CHUNK = 64 * 1024  # bytes read from the stream at a time


@dataclass(frozen=True, slots=True)
class Limits:
    """The caps a reader applies to an untrusted log; each can be raised.

    The defaults hold every log a real match makes with a wide margin (a match
    of 1,000 played hands is about 90 KB), while the slowest log they admit
    verifies in well under a second.

    >>> Limits().max_hands
    1000
    >>> Limits(max_hands=5000).max_hands
    5000
    """

    max_bytes: int = 16 * 1024 * 1024  # the whole log
    max_records: int = 100_000  # records in one log
    max_hands: int = 1_000  # dealing attempts (hand records) of one match
    max_record_bytes: int = 64 * 1024  # one record
    max_field: int = 4096  # items of an array, bytes of a bin or str
    max_map: int = 256  # entries of a map
    max_depth: int = 8  # arrays and maps inside one another, the record itself included
    max_name: int = 256  # UTF-8 bytes of a name (a seat's, the rules')
    max_int_digits: int = 24  # digits of an integer in the JSON form

    def __post_init__(self) -> None:
        for f in fields(self):
            v = getattr(self, f.name)
            if type(v) is not int or v < 1:
                raise ValueError(f"{f.name} must be a whole number of at least 1, not {v!r}")

    @property
    def max_json_bytes(self) -> int:
        """The JSON form of a log is about six times its msgpack size: allow eight."""
        return 8 * self.max_bytes


DEFAULT_LIMITS = Limits()

# what each cap is called on the command line, for the messages
OPTIONS = {"max_bytes": "--max-bytes", "max_records": "--max-records",
           "max_hands": "--max-hands"}


class LogError(ValueError):
    """A log that cannot be read: ``offset`` is the byte where the trouble starts. The
    message is for people (hands counted from 1); ``deal`` is the deal number (from 0)
    of the hand it names as ``hand {deal + 1}``, if any."""

    def __init__(self, message: str, offset: int | None = None, path: str | None = None,
                 deal: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.path = path
        self.deal = deal

    @property
    def replayer_message(self) -> str:
        """The message as the replayer's findings say it: deal numbers from 0 (the text
        for people counts from 1 again: :mod:`tarneeb.replay.verify.people`)."""
        if self.deal is None:
            return self.message
        return self.message.replace(f"hand {self.deal + 1}", f"hand {self.deal}", 1)

    def __str__(self) -> str:
        where = []
        if self.path:
            where.append(self.path)
        if self.offset is not None:
            where.append(f"byte {self.offset}")
        return ": ".join([*where, self.message])


class LogCutShort(LogError):
    """The stream ends inside a record; the records before it are whole."""


class LogUnreadable(LogCutShort):
    """From ``offset`` on the log's bytes are not whole, consistent values (garbage a power
    loss left, or damage): the values before it are read, and judged; what follows is not.
    ``reason`` says what is wrong there, as the replayer's findings say it (deal numbers
    from 0)."""

    def __init__(self, offset: int, reason: str) -> None:
        super().__init__(f"unreadable from byte {offset}: {reason}", offset)
        self.reason = reason


class CapExceeded(LogError):
    """The log passes one of the :class:`Limits`: ``cap`` names it, ``limit`` is its value."""

    def __init__(self, cap: str, limit: int, what: str, offset: int | None = None) -> None:
        option = OPTIONS.get(cap)
        raise_it = f"; raise it with {option}" if option else ""
        super().__init__(f"{what}: over the {cap} cap of {limit:,}{raise_it}", offset)
        self.cap = cap
        self.limit = limit


class Moves(bytes):
    """A run of moves (``docs/FORMAT.md``): bytes, each a move, or ``0xcc`` and a timer
    move. The reader yields a whole run as one value."""


# a run of moves: any byte that is a move, or 0xcc and a timer move
MOVE_RUN = re.compile(rb"(?:[\x01-\x34\x38-\x3b\x40-\x7f]|\xcc[\x81-\xb4\xb8-\xbb\xc0-\xff])+")


class RawRecord(NamedTuple):
    """One msgpack value read from the stream, with where it lies and its exact bytes."""

    offset: int
    end: int
    value: Any
    raw: bytes

    @property
    def canonical(self) -> bool:
        """True when the bytes are what a standard packer writes for the value."""
        return msgpack.packb(self.value, use_bin_type=True) == self.raw


def depth_ok(value: Any, max_depth: int) -> bool:
    """True when ``value`` nests arrays and maps at most ``max_depth`` deep (no recursion).

    >>> depth_ok([1, [2, {"a": [3]}]], 4), depth_ok([[[[]]]], 3)
    (True, False)
    """
    level = [value] if type(value) in _CONTAINERS else []
    depth = 0
    while level:
        depth += 1
        if depth > max_depth:
            return False
        level = [x for v in level for x in (v.values() if type(v) is dict else v)
                 if type(x) in _CONTAINERS]
    return True


_CONTAINERS = frozenset((list, dict))
_CONTAINER_BYTES = bytes([*range(0x80, 0xa0), 0xdc, 0xdd, 0xde, 0xdf])  # fix/16/32 array, map


# the bytes after each fixed-size type byte; ext types (fixext too) are none of them
_FIXED = {0xc0: 0, 0xc2: 0, 0xc3: 0, 0xca: 4, 0xcb: 8, 0xcc: 1, 0xcd: 2, 0xce: 4, 0xcf: 8,
          0xd0: 1, 0xd1: 2, 0xd2: 4, 0xd3: 8}
_SIZED = {0xc4: (1, "bytes"), 0xc5: (2, "bytes"), 0xc6: (4, "bytes"), 0xd9: (1, "bytes"),
          0xda: (2, "bytes"), 0xdb: (4, "bytes"), 0xdc: (2, "items"), 0xdd: (4, "items"),
          0xde: (2, "entries"), 0xdf: (4, "entries")}


def overlong_claim(data: bytes | bytearray, pos: int, limits: Limits) -> tuple[int, str] | None:
    """In a record that runs past the end of the data, a length prefix larger than any
    field of a log may be (a stream that is merely cut off has none): where and what."""
    end = len(data)
    todo = 1
    while todo and pos < end:
        todo -= 1
        b = data[pos]
        at = pos
        pos += 1
        if b <= 0x7f or b >= 0xe0 or b in _FIXED:
            pos += _FIXED.get(b, 0)
            continue
        if 0x80 <= b <= 0x9f:
            todo += (b & 15) * (2 if b <= 0x8f else 1)
            continue
        if 0xa0 <= b <= 0xbf:
            pos += b & 31
            continue
        if b not in _SIZED:
            return at, f"byte {b:#04x} is not msgpack a log may hold"
        width, unit = _SIZED[b]
        if pos + width > end:
            return None
        n = int.from_bytes(data[pos:pos + width], "big")
        pos += width
        most = limits.max_map if unit == "entries" else limits.max_field
        if n > most:
            return at, (f"a length prefix claims {n:,} {unit}, more than any field of a log "
                        f"may hold ({most:,}); not a log, or a damaged one")
        if unit == "bytes":
            pos += n
        else:
            todo += n * (2 if unit == "entries" else 1)
    return None


def _ext_refusal(length: int) -> str:
    return f"{length} exceeds max_ext_len(0)"


def no_ext(code: int, data: bytes) -> Any:
    """The ``ext_hook`` of every unpacker that reads a log: ``max_ext_len=0`` refuses an ext
    value by its length, type byte included, but lets one of no data through; this refuses
    that one too, in the same words (its length is 1). A log holds no ext value."""
    raise ValueError(_ext_refusal(len(data) + 1))


def limited_unpacker(limits: Limits, buffer: int) -> msgpack.Unpacker:
    """A msgpack unpacker held to the caps on one field (bytes, text, array, map; no
    extension types) with a buffer of ``buffer`` bytes: the careful reader's and the
    fast reader's, so that both refuse the same values."""
    return msgpack.Unpacker(
        raw=False, strict_map_key=True, use_list=True, max_bin_len=limits.max_field,
        max_str_len=limits.max_field, max_array_len=limits.max_field,
        max_map_len=limits.max_map, max_ext_len=0, ext_hook=no_ext, max_buffer_size=buffer)


class RecordReader:
    """The msgpack records of a stream, read a chunk at a time within :class:`Limits`.

    Iterating yields :class:`RawRecord` values; anything unreadable raises
    :class:`LogError` (a cap: :class:`CapExceeded`) naming the byte offset. A stream
    that ends inside a record ends the iteration with ``cut_short`` set. ``data`` holds
    the bytes read so far (when ``keep``), never more than ``limits.max_bytes``.
    """

    def __init__(self, source: BinaryIO | bytes | bytearray | memoryview,
                 limits: Limits = DEFAULT_LIMITS, keep: bool = True) -> None:
        self.limits = limits
        self.keep = keep
        self.cut_short: LogCutShort | None = None
        self.size = 0  # bytes read so far
        self._buf = bytearray()
        self._base = 0  # the offset of _buf[0] in the stream
        if isinstance(source, bytes | bytearray | memoryview):
            self._stream: BinaryIO | None = None
            self._bytes: memoryview | None = memoryview(source)
            self._check_size(len(self._bytes))
        else:
            self._stream, self._bytes = source, None
            self._check_size(_regular_file_size(source))

    @property
    def data(self) -> bytes:
        """The bytes read so far (from the start when ``keep``)."""
        return bytes(self._buf)

    def _check_size(self, size: int | None) -> None:
        if size is not None and size > self.limits.max_bytes:
            raise CapExceeded("max_bytes", self.limits.max_bytes,
                              f"the log is {size:,} bytes", 0)

    def _read(self) -> bytes:
        want = min(CHUNK, self.limits.max_bytes + 1 - self.size)
        if self._bytes is not None:
            chunk = bytes(self._bytes[self.size:self.size + want])
        else:
            assert self._stream is not None
            try:
                chunk = self._stream.read(want)
            except OSError as e:
                raise LogError(f"cannot read: {e.strerror or e}", self.size) from None
        self.size += len(chunk)
        if self.size > self.limits.max_bytes:
            raise CapExceeded("max_bytes", self.limits.max_bytes,
                              "the log is longer", self.limits.max_bytes)
        return chunk

    def __iter__(self) -> Iterator[RawRecord]:
        lim = self.limits
        unpacker = limited_unpacker(lim, lim.max_record_bytes + 2 * CHUNK)
        pos = 0  # where the next record starts
        records = 0
        eof = False
        move_run = MOVE_RUN.match
        while True:
            m = move_run(self._buf, pos - self._base)
            if m is not None:
                stop = m.end() + self._base
                if stop - pos > lim.max_record_bytes and pos == 0:
                    # what begins with moves is no log (a JSON form padded with white space
                    # is read as one, not refused for its run's length)
                    raise LogError("not a tarneeb log (the first record is not a tarneeb-log "
                                   "header)", 0)
                if stop - pos > lim.max_record_bytes:  # (no log has such a run: a record)
                    # (the cap, not the bytes read so far: the words do not hang on chunks)
                    raise CapExceeded("max_record_bytes", lim.max_record_bytes, "a run of moves "
                                      f"of more than {lim.max_record_bytes:,} bytes", pos)
                # the run may go on in the next chunk: it reaches the end of what is read,
                # or stops at a last byte 0xcc, the first half of a timer move
                if not eof and (stop == self.size or (
                        stop == self.size - 1 and self._buf[-1] == 0xcc)):
                    chunk = self._read()
                    if chunk:
                        self._buf += chunk
                        unpacker.feed(chunk)
                        continue
                    eof = True
                records += 1
                if records > lim.max_records:
                    raise CapExceeded("max_records", lim.max_records,
                                      "the log holds more records", pos)
                # bytes from msgpack's C unpacker (then no copy), a bytearray from its
                # pure-Python one
                raw = bytes(unpacker.read_bytes(stop - pos))
                if not self.keep:
                    del self._buf[:stop - self._base]
                    self._base = stop
                yield RawRecord(pos, stop, Moves(raw), raw)
                pos = stop
                continue
            try:
                value = unpacker.unpack()
            except msgpack.OutOfData:
                if eof:
                    break
                if self.size - pos > lim.max_record_bytes:
                    self._too_long(pos)
                chunk = self._read()
                if not chunk:
                    eof = True
                else:
                    self._buf += chunk
                    unpacker.feed(chunk)
                continue
            except (ValueError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError,
                    msgpack.BufferFull) as e:
                if isinstance(e, UnicodeDecodeError):
                    raise LogError("a text field is not valid UTF-8", pos) from None
                what = str(e) or "a byte that no msgpack value holds there"
                if what.startswith("invalid timestamp data"):
                    # an ext of type -1 and no data, which msgpack reads as a timestamp
                    # before ext_hook sees it: refused as no_ext refuses the others
                    what = _ext_refusal(1)
                if pos == 0:
                    raise LogError(f"not a tarneeb log (not msgpack: {what})", 0) from None
                raise LogError(f"not valid msgpack: {what}", pos) from None
            except TypeError as e:  # e.g. an unhashable map key
                raise LogError(f"not valid msgpack for a log: {e}", pos) from None
            end = unpacker.tell()
            if end - pos > lim.max_record_bytes:
                raise CapExceeded("max_record_bytes", lim.max_record_bytes,
                                  f"a record of {end - pos:,} bytes", pos)
            records += 1
            if records > lim.max_records:
                raise CapExceeded("max_records", lim.max_records,
                                  "the log holds more records", pos)
            raw = bytes(self._buf[pos - self._base:end - self._base])
            # no more bytes that may start an array or map than max_depth: no need to walk it
            if len(raw) - len(raw.translate(None, _CONTAINER_BYTES)) > lim.max_depth \
                    and not depth_ok(value, lim.max_depth):
                raise CapExceeded("max_depth", lim.max_depth,
                                  "arrays or maps nested deeper", pos)
            if not self.keep:
                del self._buf[:end - self._base]
                self._base = end
            yield RawRecord(pos, end, value, raw)
            pos = end
        if pos < self.size:
            rest = self._buf[pos - self._base:]
            claim = overlong_claim(rest, 0, lim)
            if claim is not None:
                raise LogError(claim[1], pos + claim[0])
            self.cut_short = LogCutShort(f"log cut short: the stream ends inside a record "
                                         f"({self.size - pos} bytes of it)", pos)

    def tail(self, pos: int) -> tuple[bytes, int] | None:
        """The rest of the stream from ``pos``: its bytes up to a closing run of zeros, and
        how many zeros close it; ``None`` when more than ``max_record_bytes`` come before
        the zeros (not a torn record). Read a chunk at a time: zeros are counted, not kept."""
        head = bytes(self._buf[pos - self._base:]) if pos >= self._base else b""
        stripped = head.rstrip(b"\0")
        zeros = len(head) - len(stripped)
        head = stripped
        while len(head) <= self.limits.max_record_bytes:
            chunk = self._read()
            if not chunk:
                return head, zeros
            stripped = chunk.rstrip(b"\0")
            if stripped:
                head += bytes(zeros) + stripped
                zeros = len(chunk) - len(stripped)
            else:
                zeros += len(chunk)
        return None

    def _too_long(self, pos: int) -> None:
        claim = overlong_claim(self._buf[pos - self._base:], 0, self.limits)
        if claim is not None:
            raise LogError(claim[1], pos + claim[0])
        raise CapExceeded("max_record_bytes", self.limits.max_record_bytes,
                          f"a record of more than {self.limits.max_record_bytes:,} bytes", pos)


def _regular_file_size(stream: BinaryIO) -> int | None:
    """The size of a regular file still to be read, or None for a pipe or the like."""
    try:
        st = os.fstat(stream.fileno())
        if not stat.S_ISREG(st.st_mode):
            return None
        return st.st_size - stream.tell()
    except (OSError, AttributeError, ValueError):  # io.UnsupportedOperation is both
        return None


__all__ = ["DEFAULT_LIMITS", "MOVE_RUN", "CapExceeded", "Limits", "LogCutShort", "LogError",
           "LogUnreadable", "Moves", "RawRecord", "RecordReader", "depth_ok", "limited_unpacker",
           "no_ext", "overlong_claim"]
