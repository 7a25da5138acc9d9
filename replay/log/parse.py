"""A whole match log read from bytes, a stream or a file, value by value.

:func:`parse_log` and :func:`read_log` give a :class:`ParsedLog`: the header, every
hand with the byte offset of its deal record, the end and signature records, and the
signed bytes. A log in the common form is read in one pass by
:mod:`tarneeb.replay.log.fastread`; anything else goes through :class:`_Parser`, which
says where and what is wrong, stops at every cap, and reads a log cut off anywhere
(a crash, a power loss, a zero-filled tail) up to its last whole value, and a log whose
bytes stop being whole, consistent values (the garbage a power loss may leave, or
damage) up to them: ``cut_short`` is then a
:class:`~tarneeb.replay.log.stream.LogUnreadable` (``docs/FORMAT.md`` § "A log cut short").

>>> from tarneeb.replay.server.simulate import play_logged_match
>>> data = play_logged_match("classic", seed=b"logparse doc")
>>> log = parse_log(data)
>>> log.header.rules.name, log.end is not None, log.cut_short
('classic', True, None)
>>> print(parse_log(data[:-7]).cut_short)
byte ...: cut at byte ...: the stream ends inside a record or move (61 bytes of it)
>>> at = log.offsets[1]
>>> print(parse_log(data[:at] + b"\\xc1 garbage").cut_short.message)
unreadable from byte ...: not valid msgpack: ...
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, BinaryIO

import msgpack

from tarneeb.audit.encoding import NotRegularFile, nbytes, open_regular
from tarneeb.replay.log.decode import _add_moves, _close_hand, _decode_deal, _show, decode_record
from tarneeb.replay.log.records import (
    BLIND,
    CLAIMS,
    DEAL,
    END,
    HEADER,
    KEYS,
    MAGIC,
    PROOF,
    RECORD_FIELDS,
    RECORD_NAMES,
    SIGNATURE,
    EndRecord,
    HandRecord,
    Header,
    ParsedLog,
    SignatureRecord,
    _pack,
)
from tarneeb.replay.log.stream import (
    DEFAULT_LIMITS,
    CapExceeded,
    Limits,
    LogCutShort,
    LogError,
    LogUnreadable,
    Moves,
    RecordReader,
    _regular_file_size,
    no_ext,
    overlong_claim,
)

if TYPE_CHECKING:  # loaded only for a log dealt blind
    from tarneeb.replay.log.blind import RevealedKeys

_NOT_A_LOG = "not a tarneeb log (the first record is not a tarneeb-log header)"
# caps on one value, which no writer comes near: past the header, the log is unreadable from
# such a value (the caps on the whole log refuse it whole)
_VALUE_CAPS = frozenset({"max_record_bytes", "max_depth"})
# how a header starts: an array of 12 (13 when dealt blind), type 0, the magic
_HEADER_STARTS = tuple(bytes([n, HEADER]) + _pack(MAGIC) for n in (0x9c, 0x9d))


def _header_cut(at: int) -> LogError:
    return LogError("log cut short inside its header: not readable", at)


def _incomplete(data: bytes) -> bool:
    """Whether ``data`` is the start of a msgpack value that stops before its end."""
    unpacker = msgpack.Unpacker(None, raw=False, max_bin_len=4096, max_str_len=4096,
                                max_array_len=4096, max_map_len=256, max_ext_len=0,
                                ext_hook=no_ext)
    unpacker.feed(data)
    try:
        unpacker.unpack()
    except msgpack.OutOfData:
        return True
    except Exception:  # anything else: not a torn value
        return False
    return False


# the records a writer writes after the header, by their number of fields
_RECORD_KINDS: dict[int, tuple[int, ...]] = {}
for _kind, _fields in RECORD_FIELDS.items():
    if _kind != HEADER:
        _RECORD_KINDS[_fields] = (*_RECORD_KINDS.get(_fields, ()), _kind)


def writer_start(head: bytes) -> bool:
    """Whether ``head`` (a value that stops before its end) begins as a value a writer
    writes after the header: half a timer move (``cc``), or a record's array of the
    number of fields its type (the next byte, when there is one) has. Anything else is
    not a torn value but bytes no writer wrote.

    >>> writer_start(bytes([0x95, 0x04, 0xc0])), writer_start(bytes([0x95, 0x07]))
    (True, False)
    >>> writer_start(bytes([0xc5, 0x01])), writer_start(b"\\xcc")
    (False, True)
    """
    if head == b"\xcc":
        return True
    kinds = _RECORD_KINDS.get(head[0] - 0x90) if 0x90 <= head[0] <= 0x9f else None
    return kinds is not None and (len(head) == 1 or head[1] in kinds)


def torn_tail(head: bytes, zeros: int, pos: int) -> LogCutShort | None:
    """The cut at ``pos`` when the rest of the file — ``head`` then ``zeros`` zero bytes —
    is a torn value, zeros, or a torn value followed by zeros (what a crash or a power
    loss leaves); else ``None``. A torn value begins as one a writer writes
    (:func:`writer_start`)."""
    if not head:
        return LogCutShort(f"cut at byte {pos}: the rest of the file ({zeros:,} bytes) is "
                           "zeros, not records", pos)
    if overlong_claim(head + bytes(min(zeros, 16)), 0, DEFAULT_LIMITS) is not None \
            or not _incomplete(head) or not writer_start(head):
        return None
    if not zeros:
        return LogCutShort(f"cut at byte {pos}: the stream ends inside a record or move "
                           f"({nbytes(len(head))} of it)", pos)
    return LogCutShort(f"cut at byte {pos}: a torn record ({len(head)} bytes) then "
                       f"{zeros:,} bytes of zeros", pos)


class _Parser:
    """One pass over a log's values, as :class:`RecordReader` reads them."""

    def __init__(self, source: bytes | BinaryIO, limits: Limits = DEFAULT_LIMITS,
                 strict: bool = False) -> None:
        self.reader = RecordReader(source, limits)
        self.limits = limits
        self.strict = strict  # raise at unreadable bytes, instead of reading up to them
        self.header: Header | None = None
        self.named_trump = False
        self.blind = False  # the header says dealing: blind
        self.hands: list[HandRecord] = []
        self.offsets: list[int] = []
        self.end: EndRecord | None = None
        self.end_offset: int | None = None
        self.signature: SignatureRecord | None = None
        self.signature_offset: int | None = None
        self.keys: list[RevealedKeys] = []
        self.key_offsets: list[int] = []
        self.cut: LogCutShort | None = None
        self.pos = 0
        self.zero_tail = 0
        self.last: tuple[int, int, int] = (0, 0, -1)  # the last value read: offset, end, type

    def run(self, need_header: bool = True) -> None:
        try:
            self._run(need_header)
        except CapExceeded as e:
            if e.cap not in _VALUE_CAPS or self.header is None:
                raise  # a cap on the whole log: refused whole, the option named
            self._unreadable(e, need_header)
        except LogError as e:
            if self.header is None and need_header:
                raise self._torn_header() or e from None
            if e.offset is None:
                raise
            rest = self.reader.tail(e.offset)
            cut = None if rest is None else torn_tail(rest[0], rest[1], e.offset)
            if cut is None or rest is None:
                self._unreadable(e, need_header)
                return
            self._cut_at(cut, e.offset + len(rest[0]), rest[1])
            return
        if self.reader.cut_short is not None:
            at = self.reader.cut_short.offset or 0
            n = self.reader.size
            after = self.reader.data[at:]
            if self.header is not None and not writer_start(after):
                if self.strict:
                    raise LogError("bytes that start no value a writer writes", at)
                self.cut = LogUnreadable(at, f"the last {n - at} bytes start no value a "
                                         "writer writes")
            else:
                self.cut = LogCutShort(f"cut at byte {at}: the stream ends inside a record "
                                       f"or move ({nbytes(n - at)} of it)", at)
            self.pos = at
        self.zero_tail = self.reader.size - len(self.reader.data.rstrip(b"\0"))

    def _unreadable(self, e: LogError, need_header: bool) -> None:
        """Bytes that are no value a writer writes there: the log is read up to them, from
        the end of the last value read (the trouble may lie inside the next one)."""
        if self.strict or not need_header:  # every byte is to be read
            raise e
        at = self.last[1]
        inside = f" (at byte {e.offset})" if e.offset is not None and e.offset != at else ""
        self.cut = LogUnreadable(at, e.replayer_message + inside)
        self.pos = at

    def _torn_header(self) -> LogError | None:
        """A header cut short, or cut and zero-filled (a power loss while it was written):
        the error that says so, at the byte where its bytes stop; ``None`` otherwise."""
        rest = self.reader.tail(0)
        if rest is None or not rest[0] or not rest[1]:
            return None  # a header cut short without zeros is the stream's end (_parse_carefully)
        head = rest[0]
        # as torn_tail judges a torn record: a byte no log holds, or a length past the caps,
        # makes it no header a writer was writing
        if not any(start.startswith(head[:len(start)]) for start in _HEADER_STARTS) \
                or overlong_claim(head + bytes(min(rest[1], 16)), 0, DEFAULT_LIMITS) is not None \
                or not _incomplete(head):
            return None
        return _header_cut(len(head))

    def _cut_at(self, cut: LogCutShort, zeros_at: int, zeros: int) -> None:
        """Stop at ``cut``; a value just before it whose bytes run into the zero-filled
        tail (from ``zeros_at``) may be torn too (zeros complete many a value): it is
        dropped, and the cut moves to its start."""
        self.zero_tail = zeros
        start, end, kind = self.last
        at = cut.offset or 0
        if zeros and zeros_at == at and kind >= 0 and end == at:
            before = self._zeros_before(at)
            if before:
                self._undo(kind, at - before)
                cut = LogCutShort(f"cut at byte {start}: a record running into a zero-filled "
                                  f"tail ({before + zeros:,} bytes of zeros)", start)
        self.cut, self.pos = cut, cut.offset or 0

    def _zeros_before(self, at: int) -> int:
        """How many zero bytes end the data before ``at``."""
        data = self.reader.data[:at]
        return len(data) - len(data.rstrip(b"\0"))

    def _undo(self, kind: int, zeros_at: int) -> None:
        """Drop the last value read (of type ``kind``), whose bytes run into the zeros that
        start at ``zeros_at``."""
        if kind == CLAIMS:
            hand = self.hands[-1]
            hand.closed, hand.tricks, hand.scores, hand.totals = False, None, None, None
            if not self.named_trump:
                hand.trump = None
        elif kind == DEAL:
            self.hands.pop()
            self.offsets.pop()
        elif kind == END:
            self.end = self.end_offset = None
        elif kind == SIGNATURE:
            self.signature = self.signature_offset = None
        elif kind == BLIND:
            self.hands[-1].blind = None
        elif kind == PROOF:
            blind = self.hands[-1].blind
            assert blind is not None
            blind.play_proofs.pop(len(self.hands[-1].plays) - 1, None)
        elif kind == KEYS:
            self.keys.pop()
            self.key_offsets.pop()
        else:  # the header's own last bytes ran into the zeros
            raise _header_cut(zeros_at)

    def _blind_record(self, kind: int, obj: list[Any], pos: int,
                      hand: HandRecord | None) -> None:
        """A blind record, a play's proof or a keys record, where the stream may hold it."""
        name = RECORD_NAMES[kind]
        if not self.blind:
            raise LogError(f"a {name} record in a log whose header does not say dealing: "
                           "blind", pos)
        from tarneeb.replay.log.blind import blind_from_list, keys_from_list, proof_from_list
        if kind == KEYS:
            if self.end is None:
                raise LogError("a keys record before the end record: keys are revealed "
                               "after the match", pos)
            self.keys.append(keys_from_list(obj, pos))
            self.key_offsets.append(pos)
            return
        if hand is None or hand.closed:
            raise LogError(f"a {name} record with no hand open", pos)
        if kind == BLIND:
            if hand.blind is not None or hand.calls or hand.plays or hand.trump is not None:
                raise LogError("a blind record must come right after its deal record, once",
                               pos)
            hand.blind = blind_from_list(obj, pos)
            return
        k = len(hand.plays) - 1
        if hand.blind is None or self.last[2] != -1 or k < 0 or k in hand.blind.play_proofs:
            raise LogError("a proof record must come right after a card move of a blind "
                           "hand, once", pos)
        hand.blind.play_proofs[k] = proof_from_list(obj, pos)

    def _run(self, need_header: bool) -> None:
        hand: HandRecord | None = None
        max_hands = self.limits.max_hands
        for r in self.reader:
            obj, pos = r.value, r.offset
            if type(obj) is Moves:
                if self.header is None and need_header:
                    raise LogError(_NOT_A_LOG, 0)
                if self.signature is not None:
                    raise LogError("a move follows the signature", pos)
                if hand is None:
                    raise LogError("a move outside a hand (before its deal record)", pos)
                try:
                    _add_moves(hand, obj, pos, self.named_trump)
                except LogError as e:  # the moves before the one that is wrong are read
                    if e.offset is not None and e.offset > pos:
                        _add_moves(hand, obj[:e.offset - pos], pos, self.named_trump)
                        self.last = (pos, e.offset, -1)
                    raise
                self.last = (pos, r.end, -1)
                continue
            if self.header is None and need_header and not (
                    type(obj) is list and len(obj) >= 2 and type(obj[0]) is int
                    and obj[0] == HEADER and obj[1] == MAGIC):
                raise LogError(_NOT_A_LOG, 0)
            if obj == 0 and type(obj) is int:
                raise LogError("byte 0x00 is neither a record nor a move", pos)
            if _pack(obj) != r.raw:
                what = "move" if type(obj) is int else "record"
                raise LogError(f"{what} is not in canonical msgpack form", pos)
            if self.signature is not None:
                raise LogError("a record follows the signature", pos)
            if type(obj) is not list or not obj:
                raise LogError(f"expected a record (a msgpack array) or a move, found "
                               f"{_show(obj)}" + (f" ({obj:#04x} is no move)"
                                                  if type(obj) is int else ""), pos)
            kind = obj[0]
            if type(kind) is not int:
                raise LogError(f"unknown record type {_show(kind)}", pos)
            if kind == CLAIMS:
                if hand is None or hand.closed:
                    raise LogError("a claims record with no hand open", pos)
                _close_hand(hand, obj, pos, self.named_trump)
            elif kind in (BLIND, PROOF, KEYS):
                self._blind_record(kind, obj, pos, hand)
            elif kind == DEAL:
                if self.end is not None:
                    raise LogError("a deal record follows the end record", pos)
                if hand is not None and not hand.closed:
                    raise LogError(f"a deal record while hand {hand.deal_number + 1} is still "
                                   "open: its claims record is missing", pos,
                                   deal=hand.deal_number)
                if len(self.hands) == max_hands:
                    raise CapExceeded("max_hands", max_hands,
                                      "the match has more dealing attempts", pos)
                hand = _decode_deal(obj, pos)
                self.hands.append(hand)
                self.offsets.append(pos)
            else:
                rec = decode_record(obj, pos, self.limits)
                if isinstance(rec, Header):
                    if self.header is not None:
                        raise LogError("a second header record", pos)
                    self.header = rec
                    self.named_trump = rec.rules.trump == "named"
                    self.blind = rec.blind
                elif isinstance(rec, EndRecord):
                    if self.end is not None:
                        raise LogError("a second end record", pos)
                    self.end, self.end_offset = rec, pos
                    hand = None
                elif isinstance(rec, SignatureRecord):
                    self.signature, self.signature_offset = rec, pos
            self.last = (pos, r.end, kind)
        self.pos = self.reader.size


def decode_hand(raw: bytes, named_trump: bool, blind: bool = False) -> HandRecord:
    """The hand of the bytes :func:`encode_hand` writes (checked like a log's); ``blind``
    for a hand of a blind-dealt log."""
    log = _Parser(raw)
    log.named_trump = named_trump
    log.blind = blind
    log.run(need_header=False)
    if log.cut is not None:
        raise log.cut
    if len(log.hands) != 1 or log.end is not None:
        raise LogError("not the bytes of one hand", 0)
    return log.hands[0]


def parse_log(data: bytes | BinaryIO, path: str | None = None,
              limits: Limits = DEFAULT_LIMITS, strict: bool = False) -> ParsedLog:
    """Read a whole log from bytes or a binary stream, value by value, within ``limits``.
    Raises :class:`LogError` when nothing of it can be read: the file is empty or no
    log, its header is unreadable or cut short, a cap is passed (:class:`CapExceeded`).

    A stream that stops inside a value, or runs into a zero-filled tail, is returned
    with ``cut_short`` set; the whole values before it are all there. So is one whose
    bytes stop being whole, consistent values (the garbage a power loss may leave, or
    damage): ``cut_short`` is then a :class:`~tarneeb.replay.log.stream.LogUnreadable`
    saying where and why. ``strict`` raises that :class:`LogError` instead (a log made
    here, e.g. from its JSON form, must read whole).
    """
    try:
        return _parse(data, limits, strict)
    except LogError as e:
        e.path = path
        raise


def _parse(source: bytes | BinaryIO, limits: Limits, strict: bool = False) -> ParsedLog:
    if isinstance(source, bytes) and len(source) <= limits.max_bytes:
        from tarneeb.replay.log.fastread import fast_parse  # a log in the common form, in one pass

        log = fast_parse(source, limits)
        if log is not None:
            return log
    return _parse_carefully(source, limits, strict)


def _parse_carefully(source: bytes | BinaryIO, limits: Limits, strict: bool = False
                     ) -> ParsedLog:
    p = _Parser(source, limits, strict)
    p.run()
    if p.reader.size == 0:
        raise LogError("empty file, not a tarneeb log", 0)
    if p.header is None:  # the stream was cut inside the header: it stops at its end
        raise _header_cut(p.reader.size)
    data = p.reader.data
    signed = data[:p.signature_offset] if p.signature_offset is not None else data[:p.pos]
    return ParsedLog(header=p.header, hands=p.hands, offsets=p.offsets, end=p.end,
                     end_offset=p.end_offset, signature=p.signature, signed_bytes=signed,
                     signature_offset=p.signature_offset, cut_short=p.cut,
                     size=p.reader.size, zero_tail=p.zero_tail, keys=p.keys,
                     key_offsets=p.key_offsets)


_WHOLE = 1 << 20  # a file up to this size is read whole (a match of 1,000 hands is ~90 KB)


def read_log(path: str, limits: Limits = DEFAULT_LIMITS) -> ParsedLog:
    """Read a log file as a stream; every problem is a :class:`LogError` naming the file.
    A file larger than ``limits.max_bytes`` is refused before it is read, and anything but
    a regular file (a FIFO, a device, a socket) without being opened for reading
    (:func:`open_regular`): standard input is read with :func:`parse_log`."""
    try:
        with open_regular(path) as f:
            size = _regular_file_size(f)
            if size is not None and size <= min(limits.max_bytes, _WHOLE):
                # a regular file within the cap: read whole, for the common form's fast path
                data = f.read(size + 1)
                if len(data) == size:
                    return parse_log(data, path, limits)
                f.seek(0)
            return parse_log(f, path, limits)
    except OSError as e:
        raise LogError(f"cannot read: {e.strerror or e}", None, path) from None


__all__ = ["NotRegularFile", "decode_hand", "open_regular", "parse_log", "read_log", "torn_tail"]
