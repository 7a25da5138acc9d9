"""One value of a match log read back: a record from its msgpack array, a hand's moves
from their bytes, each field checked.

Logs are untrusted input: every decoder here raises :class:`LogError` naming the
record, the field and what it must be, at the record's byte offset. The common
forms take a short way (one test for the whole record or run of moves); anything
else goes through the checks that say what is wrong.
:mod:`tarneeb.replay.log.parse` drives these over a whole log.

>>> decode_record([2, 1, None, None], offset=40)
EndRecord(winner=1, server_seed=None, abandoned=None)
>>> try:
...     decode_record([2, 2, None, None], offset=40)
... except LogError as e:
...     print(e)
byte 40: end record: winner must be a whole number 0-1 or nil, not 2
"""

from __future__ import annotations

import functools
import re
from typing import Any, Literal, overload

import msgpack

from tarneeb.audit.encoding import unsafe_character
from tarneeb.replay.log.records import (
    ABANDON_CAUSES,
    CALL_MOVE,
    CARD_MOVE,
    CLAIMS,
    DEAL,
    DEALING_BLIND,
    END,
    HEADER,
    MAGIC,
    MAX_REASON,
    PROTOCOLS,
    RULE_FIELDS,
    SIGNATURE,
    TRUMP_MOVE,
    VERSION,
    Abandonment,
    BatchProof,
    EndRecord,
    HandRecord,
    Header,
    RecordedDeal,
    Seat,
    SignatureRecord,
    _pack,
)
from tarneeb.replay.log.stream import DEFAULT_LIMITS, MOVE_RUN, Limits, LogError
from tarneeb.replay.rules.ruleset import RulesError, RuleSet


class _Shape:
    """Checks one record's fields, raising LogError that names the field."""

    def __init__(self, kind: str, offset: int) -> None:
        self.kind, self.offset = kind, offset

    def fail(self, what: str) -> LogError:
        return LogError(f"{self.kind} record: {what}", self.offset)

    @overload
    def int_(self, v: Any, name: str, lo: int, hi: int, nil: Literal[False] = False) -> int: ...
    @overload
    def int_(self, v: Any, name: str, lo: int, hi: int, nil: bool) -> int | None: ...

    def int_(self, v: Any, name: str, lo: int, hi: int, nil: bool = False) -> int | None:
        if v is None and nil:
            return None
        if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
            raise self.fail(f"{name} must be a whole number {lo}-{hi}"
                            + (" or nil" if nil else "") + f", not {_show(v)}")
        return v

    @overload
    def bytes_(self, v: Any, name: str, lo: int, hi: int, nil: Literal[False] = False
               ) -> bytes: ...
    @overload
    def bytes_(self, v: Any, name: str, lo: int, hi: int, nil: bool) -> bytes | None: ...

    def bytes_(self, v: Any, name: str, lo: int, hi: int, nil: bool = False) -> bytes | None:
        if v is None and nil:
            return None
        if not isinstance(v, bytes) or not lo <= len(v) <= hi:
            size = f"{lo}" if lo == hi else f"{lo}-{hi}"
            raise self.fail(f"{name} must be {size} bytes" + (" or nil" if nil else "")
                            + f", not {_show(v)}")
        return v

    @overload
    def ints(self, v: Any, name: str, n: int, lo: int, hi: int,
             nil: Literal[False] = False) -> list[int]: ...
    @overload
    def ints(self, v: Any, name: str, n: int, lo: int, hi: int,
             nil: bool) -> list[int] | None: ...

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
    tricks = sh.ints(data[2], "tricks", 4, 0, 13, nil=True)
    scores = sh.ints(data[3], "scores", 4, -SCORE_LIMIT, SCORE_LIMIT, nil=True)
    totals = sh.ints(data[4], "totals", 4, -SCORE_LIMIT, SCORE_LIMIT)
    if data[1] is not None:
        if named_trump:
            raise sh.fail("the trump is named by a move in these rules, so the claims "
                          "record's trump must be nil")
        rec.trump = data[1]
    rec.tricks, rec.scores, rec.totals = tricks, scores, totals
    rec.closed = True


# the common run: calls, at most one trump move, cards, none of them the timer's
_PLAIN_RUN = re.compile(rb"([\x40-\x7f]*)([\x38-\x3b]?)([\x01-\x34]*)")
_CALL_PAIRS = tuple(((b >> 4) & 3, b & 15) for b in range(256))
_CALL_OK = bytes(b for b in range(64, 128) if b & 15 != 14)
_CARDS = bytes.maketrans(bytes(range(1, 53)), bytes(range(52)))


def _add_moves(rec: HandRecord, run: bytes, offset: int, named_trump: bool) -> None:
    """Put a run of move bytes (starting at ``offset``) on the open hand ``rec``."""
    if rec.closed:
        raise LogError(f"a move after hand {rec.deal_number + 1}'s claims record", offset,
                       deal=rec.deal_number)
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
    """The moves of ``run`` put on ``rec`` one by one, each checked; on the first that is
    wrong ``rec`` is left as it was and :class:`LogError` names that move's byte."""
    k = len(rec.calls) + (rec.trump is not None and named_trump) + len(rec.plays)
    calls, trump, timer = list(rec.calls), rec.trump, rec.timer
    plays = bytearray(rec.plays)
    n = rec.deal_number
    hand = f"hand {n + 1}"  # as people count: the first is hand 1
    i = 0
    while i < len(run):
        at = offset + i
        code = run[i]
        if code == 0xcc:
            code = run[i + 1]
            i += 1
            timer |= 1 << k
        i += 1
        m = code & 0x7f
        if m >= CALL_MOVE:
            if plays or (named_trump and trump is not None):
                raise LogError(f"{hand}, move {k}: a call after the play began", at, deal=n)
            if m & 15 == 14:
                raise LogError(f"{hand}, move {k}: {code:#04x} is not a move (14 is no call)",
                               at, deal=n)
            if len(calls) == 64:
                raise LogError(f"{hand} has more than 64 calls", at, deal=n)
            calls.append(_CALL_PAIRS[m])
        elif m >= TRUMP_MOVE:
            if not named_trump:
                raise LogError(f"{hand}, move {k}: a trump named by a move, but in these "
                               "rules the trump is not named", at, deal=n)
            if trump is not None or plays:
                raise LogError(f"{hand}, move {k}: a trump named after the trump or the "
                               "first card", at, deal=n)
            trump = m - TRUMP_MOVE
        else:
            if len(plays) == 52:
                raise LogError(f"{hand} has more than 52 cards", at, deal=n)
            plays.append(m - CARD_MOVE)
        k += 1
    rec.calls, rec.trump, rec.timer, rec.plays = calls, trump, timer, bytes(plays)


def move_run(data: bytes, pos: int) -> int:
    """Where the run of moves starting at ``pos`` stops (``pos`` itself: no move there).
    No record starts with a byte a move may start with."""
    m = MOVE_RUN.match(data, pos)
    return pos if m is None else m.end()


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
    if rules.values is None:  # no bid could be scored: refused as a table that is no list
        raise sh.fail("rules: values must be a list of 12 numbers (bids 2 to 13)")
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


__all__ = ["SCORE_LIMIT", "decode_record", "move_run"]
