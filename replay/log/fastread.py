"""The reader's fast path: a whole log in the common form, decoded in one pass.

:func:`~tarneeb.replay.log.parse_log` reads a log value by value through
:class:`~tarneeb.replay.log.stream.RecordReader`, which copes with a stream cut
anywhere, zero-filled tails, every cap and every non-canonical encoding, and says
where and what. Almost every log is simpler: a header, then for each dealing
attempt a deal record of six bytes, a run of plain moves and a claims record, then
the end and signature records and nothing after. :func:`fast_parse` reads exactly
that, straight into the :class:`~tarneeb.replay.log.HandRecord` values the
replayer consumes, and gives ``None`` at the first thing out of the ordinary
(a cut, a timer move, a recorded deal, a cap, a byte not in canonical form, an
unknown record…): the caller then reads the log the careful way, which says what
is wrong. What it returns is what the careful reader returns for the same bytes
(``tests/test_fastread.py`` compares the two on the corpus, the altered logs and
generated ones).

>>> from tarneeb.replay.server.simulate import play_logged_match
>>> from tarneeb.replay.log import _parse, DEFAULT_LIMITS
>>> data = play_logged_match("eram41", seed=b"fast read doc")
>>> fast_parse(data, DEFAULT_LIMITS) == _parse(data, DEFAULT_LIMITS)
True
>>> fast_parse(data[:-3], DEFAULT_LIMITS) is None  # cut short: the careful reader's job
True
"""

from __future__ import annotations

import re

import msgpack

from tarneeb.replay.log.decode import (
    _CALL_OK,
    _CALL_PAIRS,
    _CARDS,
    decode_record,
)
from tarneeb.replay.log.records import (
    CALL_MOVE,
    CARD_MOVE,
    CLAIMS,
    DEAL,
    END,
    HEADER,
    MAGIC,
    RECORD_FIELDS,
    SIGNATURE,
    TIMER_MOVE,
    TRUMP_MOVE,
    EndRecord,
    HandRecord,
    Header,
    ParsedLog,
    SignatureRecord,
    _pack,
)
from tarneeb.replay.log.stream import Limits, depth_ok, limited_unpacker


def _head(kind: int) -> bytes:
    """The first two bytes of a record of ``kind``: its fixarray of RECORD_FIELDS[kind]
    fields, then its type."""
    return re.escape(bytes([0x90 | RECORD_FIELDS[kind], kind]))


def _span(first: int, count: int) -> bytes:
    """A character class of the ``count`` single-byte values from ``first``."""
    return b"[" + re.escape(bytes([first])) + b"-" + re.escape(bytes([first + count - 1])) + b"]"


_CALLS = _span(CALL_MOVE, TIMER_MOVE - CALL_MOVE)  # every call: seat << 4 | value
_TRUMPS = _span(TRUMP_MOVE, 4)  # a suit named
_CARD_MOVES = _span(CARD_MOVE, 52)  # a card played
_SEATS4 = b"\x94"  # a list of four values, one a seat
# A deal record in its common form (deal number below 65,536, no recorded deal) and the
# plain moves after it: calls, at most one trump move, cards, none of them the timer's.
# Every byte here is canonical msgpack: fixints and nil, a uint8 from 128, a uint16
# from 256; a move byte never begins a record, so the claims record follows.
_HAND = re.compile(
    _head(DEAL) + rb"([\x00-\x7f]|\xcc[\x80-\xff]|\xcd[\x01-\xff].)([\x00-\x03])([\x00-\x33]|\xc0)"
    rb"\xc0(" + _CALLS + rb"*)(" + _TRUMPS + rb"?)(" + _CARD_MOVES + rb"*)" + _head(CLAIMS), re.S)
# A played hand's claims record in canonical form: trump nil or 0-3, tricks 0-13, scores and
# totals from -32,768 to 65,535 (a fixint, a uint8 or uint16 past the fixints, an int8 or
# int16 past the negative fixints). Matched, it needs no re-encoding to be known canonical.
_INT = rb"(?:[\x00-\x7f\xe0-\xff]|\xcc[\x80-\xff]|\xcd[\x01-\xff].|\xd0[\x80-\xdf]" \
       rb"|\xd1(?:[\x80-\xfe].|\xff[\x00-\x7f]))"
_CLAIMS = re.compile(_head(CLAIMS) + rb"[\x00-\x03\xc0]" + _SEATS4 + rb"[\x00-\x0d]{4}"
                     + _SEATS4 + _INT + rb"{4}" + _SEATS4 + _INT + rb"{4}", re.S)
# A deal record, its moves and its claims in their common forms, as one match: the claims
# of a played hand (trump nil or 0-3, tricks 0-13, scores and totals as above), or of a
# hand cancelled in the bidding (trump, tricks and scores nil).
_WHOLE_HAND = re.compile(
    _HAND.pattern[:-len(_head(CLAIMS))] + b"(" + _head(CLAIMS) + rb"(?:[\x00-\x03\xc0]"
    + _SEATS4 + rb"[\x00-\x0d]{4}" + _SEATS4 + _INT + rb"{4}|\xc0\xc0\xc0)" + _SEATS4 + _INT
    + rb"{4})", re.S)
_SMALL = 256  # a common record is far smaller; under caps this tight, read carefully


def fast_parse(data: bytes, limits: Limits) -> ParsedLog | None:
    """The log of ``data`` when it is in the common form, else ``None`` (read it with
    :func:`~tarneeb.replay.log.parse_log`, which says what is unusual)."""
    if limits.max_record_bytes < _SMALL or limits.max_depth < 2 or limits.max_field < 64 \
            or not data or data[0] & 0xf0 not in (0x90, 0xd0):
        return None
    try:
        header, pos = _record(data, 0, limits)
        if type(header) is not Header:
            return None
        named = header.rules.trump == "named"
        hands: list[HandRecord] = []
        offsets: list[int] = []
        # a hand is at most three records (deal, moves, claims): within this many hands no
        # cap can be passed, and past it the careful reader counts exactly
        most = min(limits.max_hands, (limits.max_records - 3) // 3)
        match, unpackb = _WHOLE_HAND.match, msgpack.unpackb
        call_pairs = _CALL_PAIRS.__getitem__
        while (m := match(data, pos)) is not None:
            number, dealer, revealed, calls, trump, plays, claims = m.groups()
            if len(calls) > 64 or len(plays) > 52 or calls.translate(None, _CALL_OK) \
                    or (trump and not named):
                return None
            _, claimed_trump, tricks, scores, totals = unpackb(claims)  # canonical, matched
            if claimed_trump is None:
                claimed_trump = trump[0] - TRUMP_MOVE if trump else None
            elif named:
                return None
            n = number[0] if len(number) == 1 else int.from_bytes(number[1:], "big")
            hands.append(HandRecord(n, dealer[0], list(map(call_pairs, calls)),
                                    None if revealed == b"\xc0" else revealed[0],
                                    claimed_trump, plays.translate(_CARDS), 0, tricks, scores,
                                    totals, None, True))
            offsets.append(pos)
            if len(hands) > most:
                return None  # the careful reader refuses it, naming the cap, without reading on
            pos = m.end()
        end_record, after = _record(data, pos, limits)
        if type(end_record) is not EndRecord:
            return None
        end_offset, pos = pos, after
        signature, after = _record(data, pos, limits)
        if type(signature) is not SignatureRecord or after != len(data):
            return None
    except Exception:  # anything unusual (msgpack's errors, a LogError): the careful way
        return None
    return ParsedLog(header=header, hands=hands, offsets=offsets, end=end_record,
                     end_offset=end_offset, signature=signature, signed_bytes=data[:pos],
                     signature_offset=pos, cut_short=None, size=len(data),
                     zero_tail=len(data) - len(data.rstrip(b"\0")))


def _record(data: bytes, pos: int, limits: Limits
            ) -> tuple[Header | EndRecord | SignatureRecord | None, int]:
    """The header, end or signature record at ``pos``, checked as the careful reader
    checks it, and where it ends; ``None`` (or an exception) for anything else.

    Only the bytes a record may take are handed to msgpack: a flood of records after
    the header is never copied."""
    unpacker = limited_unpacker(limits, limits.max_record_bytes)
    unpacker.feed(data[pos:pos + limits.max_record_bytes])
    obj = unpacker.unpack()
    end = pos + unpacker.tell()
    if type(obj) is not list or len(obj) < 2 \
            or obj[0] not in (HEADER, END, SIGNATURE) or type(obj[0]) is not int \
            or (obj[0] == HEADER and (pos or obj[1] != MAGIC)) \
            or (obj[0] != HEADER and not pos) \
            or not depth_ok(obj, limits.max_depth) or _pack(obj) != data[pos:end]:
        return None, end
    rec = decode_record(obj, pos, limits)
    return (None if isinstance(rec, HandRecord) else rec), end


__all__ = ["fast_parse"]
