"""The match log: an append-only stream of msgpack records, signed at the end.

A log is a sequence of msgpack arrays, each starting with its record type:

* ``[0, "tarneeb-log", version, rules, seats, match_id, server_commitment,
  batch, client_commitments, client_seeds, first_dealer, public_key]`` — the header
  (version 2: protocol ``tarneeb-fair-v2``);
* ``[1, deal_number, dealer, calls, revealed, trump, plays, timer, tricks,
  scores, totals, deal]`` — one per dealing attempt, cancelled ones included;
* ``[2, winner, server_seed]`` — the end: the claimed winning team and the revealed seed;
* ``[3, signature]`` — Ed25519 over every byte before this record.

A server appends each record as the match goes, so a log cut off mid-match
still reads up to its last whole record. Every record must be in canonical
msgpack form (what :func:`msgpack.packb` writes), so a log has exactly one
byte form and the JSON form converts back to the very same bytes.
``docs/FORMAT.md`` documents every field.

>>> rec = HandRecord(deal_number=0, dealer=1, calls=[(2, 5), (3, 4), (0, 2), (1, 3)])
>>> decode_record(msgpack.unpackb(encode_record(rec)), 0) == rec
True
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import msgpack

from .logstream import DEFAULT_LIMITS, CapExceeded, Limits, LogCutShort, LogError, RecordReader
from .rules import RulesError, RuleSet

MAGIC = "tarneeb-log"
VERSION = 2
PROTOCOLS = {1: "tarneeb-fair-v1", 2: "tarneeb-fair-v2"}  # the seed protocol of each version
HEADER, HAND, END, SIGNATURE = 0, 1, 2, 3
RECORD_NAMES = {HEADER: "header", HAND: "hand", END: "end", SIGNATURE: "signature"}
PASS_CODE = 15  # a call byte's low nibble: 0-13 a bid, 15 a pass

RULE_FIELDS = tuple(f.name for f in dataclasses.fields(RuleSet))


@dataclass
class Seat:
    name: str
    computer: bool


@dataclass
class BatchProof:
    """Where the server commitment stands in a published season: leaf ``index`` of the
    signed season head ``(size, root)``, with its RFC 6962 inclusion ``path`` and the
    platform's ``head_signature`` over the head."""

    index: int
    size: int
    path: list[bytes]
    root: bytes
    head_signature: bytes


@dataclass
class Header:
    rules: RuleSet
    seats: list[Seat]
    match_id: bytes
    first_dealer: int
    server_commitment: bytes | None = None
    batch: BatchProof | None = None
    client_commitments: list[bytes] | None = None
    client_seeds: list[bytes] | None = None
    public_key: bytes | None = None  # raw 32-byte Ed25519 key of the platform
    version: int = VERSION
    rules_raw: dict[str, Any] | None = None  # the rules table as stored, kept for exact bytes


@dataclass
class RecordedDeal:
    """A deal written out in full by a platform that does not use the seed protocol."""

    hands: tuple[int, int, int, int]
    thirteenth: int | None


@dataclass(slots=True)
class HandRecord:
    deal_number: int
    dealer: int
    calls: list[tuple[int, int]] = field(default_factory=list)  # (seat, bid; PASS_CODE = pass)
    revealed: int | None = None
    trump: int | None = None
    plays: bytes = b""
    timer: int = 0  # bit k: move k of the hand (calls, trump choice, plays) was the timer's
    tricks: list[int] | None = None
    scores: list[int] | None = None
    totals: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    deal: RecordedDeal | None = None


@dataclass
class EndRecord:
    winner: int | None
    server_seed: bytes | None


@dataclass
class SignatureRecord:
    signature: bytes


Record = Header | HandRecord | EndRecord | SignatureRecord


@dataclass
class ParsedLog:
    """A log read from bytes: its records, the byte offset of each, and the signed bytes."""

    header: Header
    hands: list[HandRecord]
    offsets: list[int]  # offsets[i] is where hands[i] starts
    end: EndRecord | None
    end_offset: int | None
    signature: SignatureRecord | None
    signed_bytes: bytes  # every byte before the signature record
    signature_offset: int | None
    cut_short: LogCutShort | None = None  # set when the stream ends inside a record
    size: int = 0


# ---------------------------------------------------------------- encoding
def _pack(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)


def encode_calls(calls: list[tuple[int, int]]) -> bytes:
    return bytes((s << 4) | v for s, v in calls)


def record_to_list(rec: Record) -> list[Any]:
    """The msgpack array of a record."""
    if isinstance(rec, HandRecord):
        deal = None
        if rec.deal is not None:
            deal = [*rec.deal.hands, rec.deal.thirteenth]
        return [HAND, rec.deal_number, rec.dealer, encode_calls(rec.calls), rec.revealed,
                rec.trump, bytes(rec.plays), rec.timer, rec.tricks, rec.scores, rec.totals, deal]
    if isinstance(rec, Header):
        batch = None
        if rec.batch is not None:
            b = rec.batch
            batch = [b.index, b.size, list(b.path), b.root, b.head_signature]
        rules = rec.rules_raw if rec.rules_raw is not None else rec.rules.to_dict()
        return [HEADER, MAGIC, rec.version, rules, [[s.name, s.computer] for s in rec.seats],
                rec.match_id, rec.server_commitment, batch, rec.client_commitments,
                rec.client_seeds, rec.first_dealer, rec.public_key]
    if isinstance(rec, EndRecord):
        return [END, rec.winner, rec.server_seed]
    if isinstance(rec, SignatureRecord):
        return [SIGNATURE, rec.signature]
    raise TypeError(f"not a log record: {rec!r}")


def encode_record(rec: Record) -> bytes:
    return _pack(record_to_list(rec))


# ---------------------------------------------------------------- decoding
class _Shape:
    """Checks one record's fields, raising LogError that names the field."""

    def __init__(self, kind: str, offset: int) -> None:
        self.kind, self.offset = kind, offset

    def fail(self, what: str) -> LogError:
        return LogError(f"{self.kind} record: {what}", self.offset)

    def int_(self, v: Any, name: str, lo: int, hi: int, nil: bool = False) -> int | None:
        if v is None and nil:
            return None
        if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
            raise self.fail(f"{name} must be a whole number {lo}-{hi}"
                            + (" or nil" if nil else "") + f", not {_show(v)}")
        return v

    def bytes_(self, v: Any, name: str, lo: int, hi: int, nil: bool = False) -> bytes | None:
        if v is None and nil:
            return None
        if not isinstance(v, bytes) or not lo <= len(v) <= hi:
            size = f"{lo}" if lo == hi else f"{lo}-{hi}"
            raise self.fail(f"{name} must be {size} bytes" + (" or nil" if nil else "")
                            + f", not {_show(v)}")
        return v

    def ints(self, v: Any, name: str, n: int, lo: int, hi: int,
             nil: bool = False) -> list[int] | None:
        if v is None and nil:
            return None
        if not isinstance(v, list) or len(v) != n:
            raise self.fail(f"{name} must be a list of {n} numbers, not {_show(v)}")
        for x in v:
            self.int_(x, name, lo, hi)
        return list(v)


def _show(v: Any) -> str:
    if isinstance(v, bytes):
        return f"{len(v)} bytes"
    if isinstance(v, list):
        return f"a list of {len(v)}"
    if isinstance(v, dict):
        return "a map"
    text = repr(v)
    return text if len(text) <= 30 else text[:27] + "..."


SCORE_LIMIT = 1 << 31


def decode_record(data: Any, offset: int, limits: Limits = DEFAULT_LIMITS) -> Record:
    """A record from its unpacked msgpack value; raises LogError naming the bad field."""
    if not isinstance(data, list) or not data:
        raise LogError(f"expected a record (a msgpack array), found {_show(data)}", offset)
    kind = data[0]
    if type(kind) is not int:
        raise LogError(f"unknown record type {_show(kind)}", offset)
    if kind == HAND:
        return _decode_hand(data, offset)
    if kind == HEADER:
        return _decode_header(data, offset, limits)
    if kind == END:
        sh = _Shape("end", offset)
        if len(data) != 3:
            raise sh.fail(f"has {len(data)} fields, not 3")
        return EndRecord(sh.int_(data[1], "winner", 0, 1, nil=True),
                         sh.bytes_(data[2], "server_seed", 32, 32, nil=True))
    if kind == SIGNATURE:
        sh = _Shape("signature", offset)
        if len(data) != 2:
            raise sh.fail(f"has {len(data)} fields, not 2")
        return SignatureRecord(sh.bytes_(data[1], "signature", 64, 64))
    raise LogError(f"unknown record type {_show(kind)}", offset)


_CALL_BYTES = bytes(b for b in range(256) if (b & 15 < 14 or b & 15 == PASS_CODE) and b >> 4 <= 3)
_CARD_BYTES = bytes(range(52))
_CALL_PAIRS = tuple((b >> 4, b & 15) for b in range(256))


def _claims_ok(tricks: Any, scores: Any, totals: Any) -> bool:
    """The claims of a played hand (three lists of four) or a cancelled one (totals only)."""
    if type(totals) is not list or len(totals) != 4:
        return False
    if tricks is None and scores is None:
        numbers = totals
    elif type(tricks) is list and type(scores) is list and len(tricks) == len(scores) == 4:
        if set(map(type, tricks)) != _INT or min(tricks) < 0 or max(tricks) > 13:
            return False
        numbers = scores + totals
    else:
        return False
    return set(map(type, numbers)) == _INT and min(numbers) >= -SCORE_LIMIT \
        and max(numbers) <= SCORE_LIMIT


_INT = {int}


def _decode_hand(data: list[Any], offset: int) -> HandRecord:
    """A hand record; the common, well-formed case is checked in one go."""
    if len(data) == 12:
        (_, deal_number, dealer, calls, revealed, trump, plays, timer, tricks, scores, totals,
         deal) = data
        if (type(deal_number) is int and 0 <= deal_number <= 1_000_000
                and type(dealer) is int and 0 <= dealer <= 3
                and type(calls) is bytes and len(calls) <= 64
                and not calls.translate(None, _CALL_BYTES)
                and (revealed is None or (type(revealed) is int and 0 <= revealed <= 51))
                and (trump is None or (type(trump) is int and 0 <= trump <= 3))
                and type(plays) is bytes and len(plays) <= 52
                and not plays.translate(None, _CARD_BYTES)
                and type(timer) is int and 0 <= timer < 1 << 64 and deal is None
                and _claims_ok(tricks, scores, totals)):
            return HandRecord(deal_number, dealer, list(map(_CALL_PAIRS.__getitem__, calls)),
                              revealed,
                              trump, plays, timer, tricks, scores, totals, None)
    return _decode_hand_checked(data, offset)


def _decode_hand_checked(data: list[Any], offset: int) -> HandRecord:
    sh = _Shape("hand", offset)
    if len(data) != 12:
        raise sh.fail(f"has {len(data)} fields, not 12")
    (_, deal_number, dealer, calls, revealed, trump, plays, timer, tricks, scores, totals,
     deal) = data
    rec = HandRecord(deal_number=sh.int_(deal_number, "deal_number", 0, 1_000_000),
                     dealer=sh.int_(dealer, "dealer", 0, 3))
    raw_calls = sh.bytes_(calls, "calls", 0, 64)
    for b in raw_calls:
        if (b & 15 not in range(14) and b & 15 != PASS_CODE) or b >> 4 > 3:
            raise sh.fail(f"calls: byte {b:#04x} is not a seat and a bid or pass")
    rec.calls = [(b >> 4, b & 15) for b in raw_calls]
    rec.revealed = sh.int_(revealed, "revealed", 0, 51, nil=True)
    rec.trump = sh.int_(trump, "trump", 0, 3, nil=True)
    rec.plays = sh.bytes_(plays, "plays", 0, 52)
    for c in rec.plays:
        if c > 51:
            raise sh.fail(f"plays: {c} is not a card (0-51)")
    rec.timer = sh.int_(timer, "timer", 0, (1 << 64) - 1)
    rec.tricks = sh.ints(tricks, "tricks", 4, 0, 13, nil=True)
    rec.scores = sh.ints(scores, "scores", 4, -SCORE_LIMIT, SCORE_LIMIT, nil=True)
    rec.totals = sh.ints(totals, "totals", 4, -SCORE_LIMIT, SCORE_LIMIT)
    if deal is not None:
        if not isinstance(deal, list) or len(deal) != 5:
            raise sh.fail("deal must be four hands and the dealer's 13th card, or nil")
        hands = [sh.int_(h, "deal hand", 0, (1 << 52) - 1) for h in deal[:4]]
        rec.deal = RecordedDeal((hands[0], hands[1], hands[2], hands[3]),
                                sh.int_(deal[4], "deal 13th card", 0, 51, nil=True))
    return rec


def _decode_header(data: list[Any], offset: int, limits: Limits) -> Header:
    sh = _Shape("header", offset)
    if len(data) < 3 or data[1] != MAGIC:
        raise LogError("not a tarneeb log (the first record is not a tarneeb-log header)", offset)
    version = data[2]
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise sh.fail(f"format version must be a number, not {_show(version)}")
    if version > VERSION:
        raise LogError(f"format version {version} is newer than this tool reads ({VERSION}); "
                       "upgrade tarneeb", offset)
    if version < VERSION:
        raise LogError(f"format version {version} (protocol {PROTOCOLS.get(version, '?')}) is "
                       f"no longer verified: its deals are not bound to what the platform "
                       f"promised before play, so they prove nothing; only version {VERSION} "
                       f"({PROTOCOLS[VERSION]}) logs are read", offset)
    if len(data) != 12:
        raise sh.fail(f"has {len(data)} fields, not 12")
    (_, _, _, rules_raw, seats, match_id, commitment, batch, client_commitments,
     client_seeds, first_dealer, public_key) = data
    if not isinstance(rules_raw, dict):
        raise sh.fail("rules must be a map of fields")
    if isinstance(rules_raw.get("name"), str) and len(rules_raw["name"]) > limits.max_name:
        raise sh.fail(f"a rules name of {len(rules_raw['name']):,} characters: over the "
                      f"max_name cap of {limits.max_name:,}")
    missing = [f for f in RULE_FIELDS if f not in rules_raw]
    if missing:
        raise sh.fail(f"rules lack field(s) {', '.join(missing)}: a log records every rule")
    try:
        rules = _rules_from_bytes(_pack(rules_raw))
    except (RulesError, TypeError) as e:
        raise sh.fail(f"rules: {e}") from None
    if not isinstance(seats, list) or len(seats) != 4 or not all(
            isinstance(s, list) and len(s) == 2 and isinstance(s[0], str)
            and isinstance(s[1], bool) for s in seats):
        raise sh.fail("seats must be four [name, computer] pairs")
    for name in (s[0] for s in seats):
        if len(name.encode()) > limits.max_name:
            raise sh.fail(f"a seat name of {len(name.encode()):,} bytes: over the max_name "
                          f"cap of {limits.max_name:,}")
    hdr = Header(rules=rules, seats=[Seat(s[0], s[1]) for s in seats],
                 match_id=sh.bytes_(match_id, "match_id", 1, 64),
                 first_dealer=sh.int_(first_dealer, "first_dealer", 0, 3),
                 version=version, rules_raw=rules_raw)
    hdr.server_commitment = sh.bytes_(commitment, "server_commitment", 32, 32, nil=True)
    if batch is not None:
        if not isinstance(batch, list) or len(batch) != 5 or not isinstance(batch[2], list):
            raise sh.fail("batch must be [index, size, path, root, head_signature] or nil")
        size = sh.int_(batch[1], "batch size", 1, 1 << 40)
        hdr.batch = BatchProof(sh.int_(batch[0], "batch index", 0, size - 1), size,
                               [sh.bytes_(p, "batch path", 32, 32) for p in batch[2]],
                               sh.bytes_(batch[3], "batch root", 32, 32),
                               sh.bytes_(batch[4], "batch head_signature", 64, 64))
        if len(hdr.batch.path) > 64:
            raise sh.fail("batch path is longer than 64 hashes")
    for name, v, lo, hi in (("client_commitments", client_commitments, 32, 32),
                            ("client_seeds", client_seeds, 16, 64)):
        if v is None:
            continue
        if not isinstance(v, list) or len(v) != 4:
            raise sh.fail(f"{name} must be a list of four, or nil")
        setattr(hdr, name, [sh.bytes_(x, name, lo, hi) for x in v])
    hdr.public_key = sh.bytes_(public_key, "public_key", 32, 32, nil=True)
    return hdr


@functools.lru_cache(maxsize=64)
def _rules_from_bytes(raw: bytes) -> RuleSet:
    """Rules from their msgpack bytes; cached, since a batch of logs shares a few rule sets."""
    return RuleSet.from_dict(msgpack.unpackb(raw, raw=False))


_NOT_A_LOG = "not a tarneeb log (the first record is not a tarneeb-log header)"


def parse_log(data: bytes | BinaryIO, path: str | None = None,
              limits: Limits = DEFAULT_LIMITS) -> ParsedLog:
    """Read a whole log from bytes or a binary stream, record by record, within ``limits``.
    Raises :class:`LogError` for anything unreadable (:class:`CapExceeded` for a cap).

    A stream that ends inside a record is returned with ``cut_short`` set; the
    whole records before it are all there.
    """
    try:
        return _parse(RecordReader(data, limits), limits)
    except LogError as e:
        e.path = path
        raise


def _parse(reader: RecordReader, limits: Limits) -> ParsedLog:
    header: Header | None = None
    hands: list[HandRecord] = []
    offsets: list[int] = []
    end: EndRecord | None = None
    end_offset: int | None = None
    signature: SignatureRecord | None = None
    signature_offset: int | None = None
    max_hands = limits.max_hands
    for r in reader:
        obj, pos = r.value, r.offset
        if _pack(obj) != r.raw:
            if header is None and not (isinstance(obj, list) and obj[:2] == [0, MAGIC]):
                raise LogError(_NOT_A_LOG, 0)
            raise LogError("record is not in canonical msgpack form", pos)
        if header is None and not (isinstance(obj, list) and len(obj) >= 2 and obj[0] == HEADER):
            raise LogError(_NOT_A_LOG, 0)
        if signature is not None:
            raise LogError("a record follows the signature", pos)
        if type(obj) is list and obj and type(obj[0]) is int and obj[0] == HAND \
                and end is None:  # the common case, first
            if len(hands) == max_hands:
                raise CapExceeded("max_hands", max_hands, "the match has more dealing attempts",
                                  pos)
            hands.append(_decode_hand(obj, pos))
            offsets.append(pos)
            continue
        rec = decode_record(obj, pos, limits)
        if isinstance(rec, Header):
            if header is not None:
                raise LogError("a second header record", pos)
            header = rec
        elif isinstance(rec, HandRecord):
            raise LogError("a hand record follows the end record", pos)
        elif isinstance(rec, EndRecord):
            if end is not None:
                raise LogError("a second end record", pos)
            end, end_offset = rec, pos
        else:
            signature, signature_offset = rec, pos
    if reader.size == 0:
        raise LogError("empty file, not a tarneeb log", 0)
    if header is None:  # the stream was cut inside the header
        raise LogError("log cut short inside its header: not readable", 0)
    data = reader.data
    signed = data[:signature_offset] if signature_offset is not None else data
    if reader.cut_short is not None:
        signed = data[:reader.cut_short.offset]
    return ParsedLog(header=header, hands=hands, offsets=offsets, end=end, end_offset=end_offset,
                     signature=signature, signed_bytes=signed, signature_offset=signature_offset,
                     cut_short=reader.cut_short, size=reader.size)


def read_log(path: str, limits: Limits = DEFAULT_LIMITS) -> ParsedLog:
    """Read a log file as a stream; every problem is a :class:`LogError` naming the file.
    A file larger than ``limits.max_bytes`` is refused before it is read."""
    try:
        with open(path, "rb") as f:
            return parse_log(f, path, limits)
    except OSError as e:
        raise LogError(f"cannot read: {e.strerror or e}", None, path) from None


# ---------------------------------------------------------------- writing
class LogWriter:
    """Appends records to a binary stream as the match goes, and signs at the end.

    ``sign`` is a function from bytes to a 64-byte Ed25519 signature (for example
    ``tarneeb.audit`` signing with the platform key).
    """

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._written = bytearray()

    def write(self, rec: Record) -> int:
        """Append a record; returns its byte offset."""
        raw = encode_record(rec)
        offset = len(self._written)
        self._written += raw
        self._stream.write(raw)
        self._stream.flush()
        return offset

    @property
    def signed_bytes(self) -> bytes:
        return bytes(self._written)

    def sign(self, sign: Any) -> None:
        """Append the signature record over everything written so far."""
        self.write(SignatureRecord(sign(bytes(self._written))))


__all__ = [
    "END", "HAND", "HEADER", "MAGIC", "PASS_CODE", "PROTOCOLS", "SIGNATURE", "VERSION",
    "BatchProof", "CapExceeded", "EndRecord", "HandRecord", "Header", "Limits", "LogCutShort",
    "LogError", "LogWriter", "ParsedLog",
    "RecordedDeal", "Seat", "SignatureRecord", "decode_record", "encode_record", "parse_log",
    "read_log", "record_to_list",
]
