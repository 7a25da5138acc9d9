"""The match log: an append-only stream of msgpack values, written move by move.

A log is a sequence of msgpack values. A *move* is a bare unsigned integer (one
byte; two when the turn timer made it); everything else is a *record*, a msgpack
array starting with its record type:

* ``[0, "tarneeb-log", version, rules, seats, match_id, server_commitment,
  batch, client_commitments, client_seeds, first_dealer, public_key]`` — the header;
* ``[1, deal_number, dealer, revealed, deal]`` — a deal: it opens a hand, whose
  moves (calls, the trump named, the cards) follow one by one;
* ``[4, trump, tricks, scores, totals]`` — the claims: they close the hand;
* ``[2, winner, server_seed, abandoned]`` — the end: finished, or abandoned (who, why);
* ``[3, signature]`` — Ed25519 over every byte before this record.

A server appends each value as it happens, so a log cut off anywhere still reads
up to its last whole value. Every record is in canonical msgpack form (what
:func:`msgpack.packb` writes), so a log has exactly one byte form and the JSON
form converts back to the very same bytes. In memory a hand is one
:class:`HandRecord` (its deal, moves and claims); ``docs/FORMAT.md`` documents
every byte.

>>> rec = HandRecord(deal_number=0, dealer=1, calls=[(2, 5), (3, 4), (0, 2), (1, 3)],
...                  plays=bytes([34, 0]), timer=1 << 5)
>>> raw = encode_hand(rec, named_trump=False)
>>> raw.hex(" ")
'95 01 00 01 c0 c0 65 74 42 53 23 cc 81 95 04 c0 c0 c0 94 00 00 00 00'
>>> decode_hand(raw, named_trump=False) == rec
True
"""

from __future__ import annotations

import dataclasses
import functools
import re
from dataclasses import dataclass, field
from typing import Any, BinaryIO

import msgpack

from tarneeb.audit.encoding import unsafe_character

from .blindlog import (
    BLIND,
    DEALING_BLIND,
    KEYS,
    PROOF,
    BlindTranscript,
    RevealedKeys,
    blind_from_list,
    blind_list,
    keys_from_list,
    keys_list,
    proof_from_list,
    proof_list,
)
from .logstream import (
    DEFAULT_LIMITS,
    MOVE_RUN,
    CapExceeded,
    Limits,
    LogCutShort,
    LogError,
    Moves,
    RecordReader,
    _regular_file_size,
    overlong_claim,
)
from .rules import RulesError, RuleSet

MAGIC = "tarneeb-log"
VERSION = 3
# the seed protocol of each version (3: version 2's header, the log written move by move)
PROTOCOLS = {1: "tarneeb-fair-v1", 2: "tarneeb-fair-v2", 3: "tarneeb-fair-v2"}
HEADER, DEAL, END, SIGNATURE, CLAIMS = 0, 1, 2, 3, 4
RECORD_NAMES = {HEADER: "header", DEAL: "deal", END: "end", SIGNATURE: "signature",
                CLAIMS: "claims", BLIND: "blind", PROOF: "proof", KEYS: "keys"}
PASS_CODE = 15  # a call's low nibble: 0-13 a bid, 15 a pass

# A move is one msgpack unsigned integer m: bit 7 set when the turn timer made the
# move; the low seven bits say which move (0 is never one: a zero-filled tail is no move).
CARD_MOVE = 1  # 1-52: card m - 1 played
TRUMP_MOVE = 56  # 56-59: suit m - 56 named as trump (rules whose trump is named)
CALL_MOVE = 64  # 64-127: a call, m - 64 = seat << 4 | value (0-13 a bid, 15 a pass)
TIMER_MOVE = 128
ABANDON_CAUSES = ("disconnect", "timeout", "resignation", "server-fault")

RULE_FIELDS = tuple(f.name for f in dataclasses.fields(RuleSet))
MAX_REASON = 1024  # characters of an abandonment reason


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
    blind: bool = False  # dealing: blind (a 13th header field); else dealt from seeds/recorded


@dataclass
class RecordedDeal:
    """A deal written out in full by a platform that does not use the seed protocol."""

    hands: tuple[int, int, int, int]
    thirteenth: int | None


@dataclass(slots=True)
class HandRecord:
    """One dealing attempt: its deal record, its moves and (once closed) its claims.

    ``closed`` is false for the hand a log stops in (cut off, or abandoned): it has
    the moves made so far and no claims.
    """

    deal_number: int
    dealer: int
    calls: list[tuple[int, int]] = field(default_factory=list)  # (seat, bid; PASS_CODE = pass)
    revealed: int | None = None
    trump: int | None = None
    plays: bytes = b""
    timer: int = 0  # bit k: move k of the hand (calls, trump choice, plays) was the timer's
    tricks: list[int] | None = None
    scores: list[int] | None = None
    totals: list[int] | None = field(default_factory=lambda: [0, 0, 0, 0])
    deal: RecordedDeal | None = None
    closed: bool = True
    blind: BlindTranscript | None = None  # a blind deal's transcript and play proofs


@dataclass
class Abandonment:
    """Why a match stopped before it was won: ``cause`` one of ``ABANDON_CAUSES``,
    the ``seat`` that left (``None`` for a server fault), the platform's ``reason``."""

    cause: str
    seat: int | None
    reason: str


@dataclass
class EndRecord:
    winner: int | None
    server_seed: bytes | None
    abandoned: Abandonment | None = None


@dataclass
class SignatureRecord:
    signature: bytes


Record = Header | HandRecord | EndRecord | SignatureRecord | RevealedKeys


@dataclass
class ParsedLog:
    """A log read from bytes: its records, the byte offset of each, and the signed bytes."""

    header: Header
    hands: list[HandRecord]
    offsets: list[int]  # offsets[i] is where hands[i]'s deal record starts
    end: EndRecord | None
    end_offset: int | None
    signature: SignatureRecord | None
    signed_bytes: bytes  # every byte before the signature record
    signature_offset: int | None
    cut_short: LogCutShort | None = None  # set when the stream stops inside a value
    size: int = 0
    zero_tail: int = 0  # how many zero bytes the file ends with
    keys: list[RevealedKeys] = field(default_factory=list)  # blind: revealed after the match
    key_offsets: list[int] = field(default_factory=list)


# ---------------------------------------------------------------- encoding
def _pack(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)


def encode_calls(calls: list[tuple[int, int]]) -> bytes:
    """Calls as move bytes (no timer marks)."""
    return bytes(CALL_MOVE | (s << 4) | v for s, v in calls)


def encode_move(code: int) -> bytes:
    """The bytes of one move (``code`` with ``TIMER_MOVE`` set for a timer move)."""
    return bytes((code,)) if code < 128 else bytes((0xcc, code))


def hand_moves(rec: HandRecord, named_trump: bool) -> list[int]:
    """The move codes of a hand in order, timer bits included."""
    codes = [CALL_MOVE | (s << 4) | v for s, v in rec.calls]
    if named_trump and rec.trump is not None:
        codes.append(TRUMP_MOVE + rec.trump)
    codes.extend(CARD_MOVE + c for c in rec.plays)
    timer = rec.timer
    if timer:
        codes = [c | TIMER_MOVE if timer >> k & 1 else c for k, c in enumerate(codes)]
    return codes


def deal_list(rec: HandRecord) -> list[Any]:
    deal = None if rec.deal is None else [*rec.deal.hands, rec.deal.thirteenth]
    return [DEAL, rec.deal_number, rec.dealer, rec.revealed, deal]


def claims_list(rec: HandRecord, named_trump: bool) -> list[Any]:
    return [CLAIMS, None if named_trump else rec.trump, rec.tricks, rec.scores, rec.totals]


def encode_hand(rec: HandRecord, named_trump: bool) -> bytes:
    """A hand's bytes: its deal record, its moves, its claims record (when closed).

    ``named_trump`` (the rules' ``trump == "named"``): the trump is a move, not a claim.
    """
    moves = hand_moves(rec, named_trump)
    if rec.blind is not None:
        return _encode_blind_hand(rec, moves, named_trump)
    timed = any(c >= 128 for c in moves)
    raw = b"".join(map(encode_move, moves)) if timed else bytes(moves)
    out = _pack(deal_list(rec)) + raw
    if rec.closed:
        out += _pack(claims_list(rec, named_trump))
    return out


def _encode_blind_hand(rec: HandRecord, moves: list[int], named_trump: bool) -> bytes:
    """A blind hand: its deal and blind records, its moves, each card followed by its proof."""
    assert rec.blind is not None
    out = [_pack(deal_list(rec)), _pack(blind_list(rec.blind))]
    first_card = len(moves) - len(rec.plays)
    out.extend(encode_move(m) for m in moves[:first_card])
    proofs = rec.blind.play_proofs
    for k, m in enumerate(moves[first_card:]):
        out.append(encode_move(m))
        if k in proofs:
            out.append(_pack(proof_list(*proofs[k])))
    if rec.closed:
        out.append(_pack(claims_list(rec, named_trump)))
    return b"".join(out)


def record_to_list(rec: Header | EndRecord | SignatureRecord | RevealedKeys) -> list[Any]:
    """The msgpack array of a record other than a hand."""
    if isinstance(rec, Header):
        batch = None
        if rec.batch is not None:
            b = rec.batch
            batch = [b.index, b.size, list(b.path), b.root, b.head_signature]
        rules = rec.rules_raw if rec.rules_raw is not None else rec.rules.to_dict()
        out = [HEADER, MAGIC, rec.version, rules, [[s.name, s.computer] for s in rec.seats],
               rec.match_id, rec.server_commitment, batch, rec.client_commitments,
               rec.client_seeds, rec.first_dealer, rec.public_key]
        if rec.blind:
            out.append(DEALING_BLIND)
        return out
    if isinstance(rec, EndRecord):
        a = rec.abandoned
        return [END, rec.winner, rec.server_seed,
                None if a is None else [a.cause, a.seat, a.reason]]
    if isinstance(rec, SignatureRecord):
        return [SIGNATURE, rec.signature]
    if isinstance(rec, RevealedKeys):
        return keys_list(rec)
    raise TypeError(f"not a log record: {rec!r}")


def encode_record(rec: Record, named_trump: bool = False) -> bytes:
    """The bytes of a record (a hand: all of its values, see :func:`encode_hand`)."""
    if isinstance(rec, HandRecord):
        return encode_hand(rec, named_trump)
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


def decode_record(data: Any, offset: int, limits: Limits = DEFAULT_LIMITS
                  ) -> Header | HandRecord | EndRecord | SignatureRecord:
    """A record from its unpacked msgpack value; raises LogError naming the bad field.

    A deal record gives an open :class:`HandRecord` (no moves, no claims yet).
    """
    if not isinstance(data, list) or not data:
        raise LogError(f"expected a record (a msgpack array) or a move, found {_show(data)}",
                       offset)
    kind = data[0]
    if type(kind) is not int:
        raise LogError(f"unknown record type {_show(kind)}", offset)
    if kind == DEAL:
        return _decode_deal(data, offset)
    if kind == HEADER:
        return _decode_header(data, offset, limits)
    if kind == END:
        return _decode_end(data, offset)
    if kind == SIGNATURE:
        sh = _Shape("signature", offset)
        if len(data) != 2:
            raise sh.fail(f"has {len(data)} fields, not 2")
        return SignatureRecord(sh.bytes_(data[1], "signature", 64, 64))
    if kind == CLAIMS:
        raise LogError("a claims record with no hand open", offset)
    raise LogError(f"unknown record type {_show(kind)}", offset)


def _decode_end(data: list[Any], offset: int) -> EndRecord:
    sh = _Shape("end", offset)
    if len(data) != 4:
        raise sh.fail(f"has {len(data)} fields, not 4")
    end = EndRecord(sh.int_(data[1], "winner", 0, 1, nil=True),
                    sh.bytes_(data[2], "server_seed", 32, 32, nil=True))
    a = data[3]
    if a is not None:
        if not (isinstance(a, list) and len(a) == 3 and a[0] in ABANDON_CAUSES
                and isinstance(a[2], str) and len(a[2]) <= MAX_REASON):
            raise sh.fail("abandoned must be nil or [cause, seat, reason], the cause one of "
                          + ", ".join(ABANDON_CAUSES) + f", the reason text of at most "
                          f"{MAX_REASON} characters")
        _check_text(sh, "the abandonment reason", a[2])
        if end.winner is not None:
            raise sh.fail("a match abandoned has no winner, but the end record names both")
        seat = sh.int_(a[1], "abandoning seat", 0, 3, nil=True)
        if (seat is None) != (a[0] == "server-fault"):  # a verdict says who left, or the server
            raise sh.fail("the abandoning seat must be nil for a server fault, and the seat "
                          "that left for any other cause")
        end.abandoned = Abandonment(a[0], seat, a[2])
    return end


def _check_text(sh: _Shape, what: str, text: str) -> None:
    """Text a verdict prints may not hold a character that changes how the text around it
    is shown: a newline or a terminal escape in a name could forge a line of the verdict."""
    bad = unsafe_character(text)
    if bad is not None:
        raise sh.fail(f"{what} holds the character {bad} (a control, line-break or bidi "
                      "character), which would change how a verdict that shows it reads")


def _decode_deal(data: list[Any], offset: int) -> HandRecord:
    if len(data) == 5:
        _, deal_number, dealer, revealed, deal = data
        if (type(deal_number) is int and 0 <= deal_number <= 1_000_000
                and type(dealer) is int and 0 <= dealer <= 3 and deal is None
                and (revealed is None or (type(revealed) is int and 0 <= revealed <= 51))):
            return HandRecord(deal_number, dealer, [], revealed, totals=None, closed=False)
    sh = _Shape("deal", offset)
    if len(data) != 5:
        raise sh.fail(f"has {len(data)} fields, not 5")
    _, deal_number, dealer, revealed, deal = data
    rec = HandRecord(deal_number=sh.int_(deal_number, "deal_number", 0, 1_000_000),
                     dealer=sh.int_(dealer, "dealer", 0, 3), totals=None, closed=False)
    rec.revealed = sh.int_(revealed, "revealed", 0, 51, nil=True)
    if deal is not None:
        if not isinstance(deal, list) or len(deal) != 5:
            raise sh.fail("deal must be four hands and the dealer's 13th card, or nil")
        hands = [sh.int_(h, "deal hand", 0, (1 << 52) - 1) for h in deal[:4]]
        rec.deal = RecordedDeal((hands[0], hands[1], hands[2], hands[3]),
                                sh.int_(deal[4], "deal 13th card", 0, 51, nil=True))
    return rec


_INT = {int}


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


def _close_hand(rec: HandRecord, data: list[Any], offset: int, named_trump: bool) -> None:
    """Put a claims record's values on the open hand ``rec``."""
    if len(data) == 5:
        _, trump, tricks, scores, totals = data
        if (trump is None or (type(trump) is int and 0 <= trump <= 3)) \
                and _claims_ok(tricks, scores, totals):
            if trump is not None:
                if named_trump:
                    raise LogError("claims record: the trump is named by a move in these "
                                   "rules, so the claims record's trump must be nil", offset)
                rec.trump = trump
            rec.tricks, rec.scores, rec.totals = tricks, scores, totals
            rec.closed = True
            return
    _close_hand_checked(rec, data, offset, named_trump)


def _close_hand_checked(rec: HandRecord, data: list[Any], offset: int,
                        named_trump: bool) -> None:
    sh = _Shape("claims", offset)
    if len(data) != 5:
        raise sh.fail(f"has {len(data)} fields, not 5")
    sh.int_(data[1], "trump", 0, 3, nil=True)
    # one of tricks and scores without the other is readable: the replayer says it is wrong
    rec.tricks = sh.ints(data[2], "tricks", 4, 0, 13, nil=True)
    rec.scores = sh.ints(data[3], "scores", 4, -SCORE_LIMIT, SCORE_LIMIT, nil=True)
    rec.totals = sh.ints(data[4], "totals", 4, -SCORE_LIMIT, SCORE_LIMIT)
    if data[1] is not None:
        if named_trump:
            raise sh.fail("the trump is named by a move in these rules, so the claims "
                          "record's trump must be nil")
        rec.trump = data[1]
    rec.closed = True


# the common run: calls, at most one trump move, cards, none of them the timer's
_PLAIN_RUN = re.compile(rb"([\x40-\x7f]*)([\x38-\x3b]?)([\x01-\x34]*)")
_CALL_PAIRS = tuple(((b >> 4) & 3, b & 15) for b in range(256))
_CALL_OK = bytes(b for b in range(64, 128) if b & 15 != 14)
_CARDS = bytes.maketrans(bytes(range(1, 53)), bytes(range(52)))


def _add_moves(rec: HandRecord, run: bytes, offset: int, named_trump: bool) -> None:
    """Put a run of move bytes (starting at ``offset``) on the open hand ``rec``."""
    if rec.closed:
        raise LogError(f"a move after hand {rec.deal_number + 1}'s claims record", offset)
    if rec.calls or rec.plays or rec.trump is not None:  # a second run: take the slow way
        _add_moves_checked(rec, run, offset, named_trump)
        return
    m = _PLAIN_RUN.fullmatch(run)
    if m is None or len(m.group(1)) > 64 or len(m.group(3)) > 52 \
            or m.group(1).translate(None, _CALL_OK) or (m.group(2) and not named_trump):
        _add_moves_checked(rec, run, offset, named_trump)
        return
    calls, trump, plays = m.groups()
    rec.calls = list(map(_CALL_PAIRS.__getitem__, calls))
    if trump:
        rec.trump = trump[0] - TRUMP_MOVE
    rec.plays = plays.translate(_CARDS)


def _add_moves_checked(rec: HandRecord, run: bytes, offset: int, named_trump: bool) -> None:
    k = len(rec.calls) + (rec.trump is not None and named_trump) + len(rec.plays)
    plays = bytearray(rec.plays)
    hand = f"hand {rec.deal_number + 1}"  # as people count: the first is hand 1
    i = 0
    while i < len(run):
        at = offset + i
        code = run[i]
        if code == 0xcc:
            code = run[i + 1]
            i += 1
            rec.timer |= 1 << k
        i += 1
        m = code & 0x7f
        if m >= CALL_MOVE:
            if plays or (named_trump and rec.trump is not None):
                raise LogError(f"{hand}, move {k}: a call after the play began", at)
            if m & 15 == 14:
                raise LogError(f"{hand}, move {k}: {code:#04x} is not a move (14 is no call)",
                               at)
            if len(rec.calls) == 64:
                raise LogError(f"{hand} has more than 64 calls", at)
            rec.calls.append(_CALL_PAIRS[m])
        elif m >= TRUMP_MOVE:
            if not named_trump:
                raise LogError(f"{hand}, move {k}: a trump named by a move, but in these "
                               "rules the trump is not named", at)
            if rec.trump is not None or plays:
                raise LogError(f"{hand}, move {k}: a trump named after the trump or the "
                               "first card", at)
            rec.trump = m - TRUMP_MOVE
        else:
            if len(plays) == 52:
                raise LogError(f"{hand} has more than 52 cards", at)
            plays.append(m - CARD_MOVE)
        k += 1
    rec.plays = bytes(plays)


def move_run(data: bytes, pos: int) -> int:
    """Where the run of moves starting at ``pos`` stops (``pos`` itself: no move there).
    No record starts with a byte a move may start with."""
    m = MOVE_RUN.match(data, pos)
    return pos if m is None else m.end()


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


def _decode_header(data: list[Any], offset: int, limits: Limits = DEFAULT_LIMITS) -> Header:
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
        why = ("its deals are not bound to what the platform promised before play, so they "
               "prove nothing" if version < 2 else "its hands are one record each; version "
               f"{VERSION} is written move by move")
        raise LogError(f"format version {version} (protocol {PROTOCOLS.get(version, '?')}) is "
                       f"not read by this tool: {why}; only version {VERSION} "
                       f"({PROTOCOLS[VERSION]}, move by move) logs are read", offset)
    if len(data) == 13:  # a blind-dealt log says so in a 13th field
        if data[12] != DEALING_BLIND:
            raise sh.fail(f"dealing (field 12) must be {DEALING_BLIND!r}, not {_show(data[12])}; "
                          "a log dealt from the seeds has no 13th field")
    elif len(data) != 12:
        raise sh.fail(f"has {len(data)} fields, not 12 (13 for blind dealing)")
    (_, _, _, rules_raw, seats, match_id, commitment, batch, client_commitments,
     client_seeds, first_dealer, public_key) = data[:12]
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
    for what, text in [*(("a seat name", s[0]) for s in seats), ("the rules name", rules.name)]:
        _check_text(sh, what, text)
    hdr = Header(rules=rules, seats=[Seat(s[0], s[1]) for s in seats],
                 match_id=sh.bytes_(match_id, "match_id", 1, 64),
                 first_dealer=sh.int_(first_dealer, "first_dealer", 0, 3),
                 version=version, rules_raw=rules_raw, blind=len(data) == 13)
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


def _incomplete(data: bytes) -> bool:
    """Whether ``data`` is the start of a msgpack value that stops before its end."""
    unpacker = msgpack.Unpacker(None, raw=False, max_bin_len=4096, max_str_len=4096,
                                max_array_len=4096, max_map_len=256, max_ext_len=0)
    unpacker.feed(data)
    try:
        unpacker.unpack()
    except msgpack.OutOfData:
        return True
    except Exception:  # anything else: not a torn value
        return False
    return False


def torn_tail(head: bytes, zeros: int, pos: int) -> LogCutShort | None:
    """The cut at ``pos`` when the rest of the file — ``head`` then ``zeros`` zero bytes —
    is a torn value, zeros, or a torn value followed by zeros (what a crash or a power
    loss leaves); else ``None``."""
    if not head:
        return LogCutShort(f"cut at byte {pos}: the rest of the file ({zeros:,} bytes) is "
                           "zeros, not records", pos)
    if overlong_claim(head + bytes(min(zeros, 16)), 0, DEFAULT_LIMITS) is not None \
            or not _incomplete(head):
        return None
    if not zeros:
        return LogCutShort(f"cut at byte {pos}: the stream ends inside a record or move "
                           f"({len(head)} bytes of it)", pos)
    return LogCutShort(f"cut at byte {pos}: a torn record ({len(head)} bytes) then "
                       f"{zeros:,} bytes of zeros", pos)


class _Parser:
    """One pass over a log's values, as :class:`RecordReader` reads them."""

    def __init__(self, source: bytes | BinaryIO, limits: Limits = DEFAULT_LIMITS) -> None:
        self.reader = RecordReader(source, limits)
        self.limits = limits
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
        except CapExceeded:
            raise
        except LogError as e:
            if e.offset is None or (self.header is None and need_header):
                raise
            rest = self.reader.tail(e.offset)
            cut = None if rest is None else torn_tail(rest[0], rest[1], e.offset)
            if cut is None or rest is None:
                raise
            self._cut_at(cut, e.offset + len(rest[0]), rest[1])
            return
        if self.reader.cut_short is not None:
            at = self.reader.cut_short.offset or 0
            n = self.reader.size
            self.cut = LogCutShort(f"cut at byte {at}: the stream ends inside a record or move "
                                   f"({n - at} bytes of it)", at)
            self.pos = at
        self.zero_tail = self.reader.size - len(self.reader.data.rstrip(b"\0"))

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
                self._undo(kind)
                cut = LogCutShort(f"cut at byte {start}: a record running into a zero-filled "
                                  f"tail ({before + zeros:,} bytes of zeros)", start)
        self.cut, self.pos = cut, cut.offset or 0

    def _zeros_before(self, at: int) -> int:
        """How many zero bytes end the data before ``at``."""
        data = self.reader.data[:at]
        return len(data) - len(data.rstrip(b"\0"))

    def _undo(self, kind: int) -> None:
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
        else:
            raise LogError("log cut short inside its header: not readable", 0)

    def _blind_record(self, kind: int, obj: list[Any], pos: int,
                      hand: HandRecord | None) -> None:
        """A blind record, a play's proof or a keys record, where the stream may hold it."""
        name = RECORD_NAMES[kind]
        if not self.blind:
            raise LogError(f"a {name} record in a log whose header does not say dealing: "
                           "blind", pos)
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
                _add_moves(hand, obj, pos, self.named_trump)
                self.last = (pos, r.end, -1)
                continue
            if self.header is None and need_header and not (
                    type(obj) is list and len(obj) >= 2 and obj[0] == HEADER and obj[1] == MAGIC):
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
                                   "open: its claims record is missing", pos)
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


def parse_log(data: bytes | BinaryIO, path: str | None = None,
              limits: Limits = DEFAULT_LIMITS) -> ParsedLog:
    """Read a whole log from bytes or a binary stream, value by value, within ``limits``.
    Raises :class:`LogError` for anything unreadable (:class:`CapExceeded` for a cap).

    A stream that stops inside a value, or runs into a zero-filled tail, is returned
    with ``cut_short`` set; the whole values before it are all there.
    """
    try:
        return _parse(data, limits)
    except LogError as e:
        e.path = path
        raise


def _parse(source: bytes | BinaryIO, limits: Limits) -> ParsedLog:
    if isinstance(source, bytes) and len(source) <= limits.max_bytes:
        from .fastread import fast_parse  # a log in the common form, in one pass

        log = fast_parse(source, limits)
        if log is not None:
            return log
    return _parse_carefully(source, limits)


def _parse_carefully(source: bytes | BinaryIO, limits: Limits) -> ParsedLog:
    p = _Parser(source, limits)
    p.run()
    if p.reader.size == 0:
        raise LogError("empty file, not a tarneeb log", 0)
    if p.header is None:  # the stream was cut inside the header
        raise LogError("log cut short inside its header (cut at byte "
                       f"{p.cut.offset if p.cut is not None else p.pos}): not readable", 0)
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
    A file larger than ``limits.max_bytes`` is refused before it is read."""
    try:
        with open(path, "rb") as f:
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


__all__ = [
    "ABANDON_CAUSES",
    "CALL_MOVE",
    "CARD_MOVE",
    "CLAIMS",
    "DEAL",
    "END",
    "HEADER",
    "MAGIC",
    "PASS_CODE",
    "PROTOCOLS",
    "SIGNATURE",
    "TIMER_MOVE",
    "TRUMP_MOVE",
    "VERSION",
    "Abandonment",
    "BatchProof",
    "CapExceeded",
    "EndRecord",
    "HandRecord",
    "Header",
    "Limits",
    "LogCutShort",
    "LogError",
    "ParsedLog",
    "RecordedDeal",
    "Seat",
    "SignatureRecord",
    "decode_hand",
    "decode_record",
    "encode_hand",
    "encode_move",
    "encode_record",
    "hand_moves",
    "move_run",
    "parse_log",
    "read_log",
    "record_to_list",
    "torn_tail",
]
