"""The end of a log that stops unsigned: which of its last values are judged as play.

A power loss keeps every byte an ``fsync`` covered; after them the file may hold zeros,
or whatever the disk held before: bytes that were never written. They may read as
whole values — a move is one byte, and garbage finishes a record cut in half — and
nothing in a value says who wrote it: only the signature covers a log, and a log cut
short has none. So the last values of a log that **ends open** — no signature record,
and it stops before its end record, or its bytes stop being whole values after it —
are read as what they may be: the *open end*, from its last deal record (or its end
record, or its last keys record, whichever comes last) to where the reading stopped.

They are replayed like the rest of the log. The first of them whose replay makes a
finding that values can make (a rule broken, a claim that does not add up, a deal
record of the wrong number, an end record whose seed does not match its commitment —
anything but the log being cut, unsigned or not replayable) starts the unreadable part
instead: the log is judged up to the value before it, and the verdict says
``unreadable from byte N`` (a ``cut-short`` finding, never clean). A log that is signed,
or whole to its end record, is judged whole. ``docs/FORMAT.md`` § "A log cut short"
states the rule.

>>> from tarneeb.replay.log.parse import parse_log
>>> from tarneeb.replay.server.simulate import play_logged_match
>>> data = play_logged_match("eram41", seed=b"logtail doc")
>>> log = parse_log(data)
>>> open_end(log) is None  # signed: judged whole
True
>>> cut = parse_log(data[:log.offsets[3] + 9])  # a crash in hand 4's bidding
>>> open_end(cut) == log.offsets[3]
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from tarneeb.replay.log.parse import parse_log
from tarneeb.replay.log.records import BLIND, PROOF, ParsedLog
from tarneeb.replay.log.stream import LogUnreadable, Moves, RecordReader
from tarneeb.replay.verify.findings import Finding, Verdict

# the findings that say what a log lacks, not what a value in it says
NOT_FAULTS = frozenset({"cut-short", "unsigned", "not-replayed", "seed-not-revealed"})


def open_end(log: ParsedLog) -> int | None:
    """Where the open end of ``log`` starts: the byte of its last deal, end or keys record
    when the log ends open (unsigned, and cut before its end record or damaged after it);
    ``None`` for a log that is signed, or whole to its end record, or has no such record."""
    if log.signature is not None or (log.end is not None and log.cut_short is None):
        return None
    starts = [*log.offsets[-1:], *log.key_offsets[-1:]]
    if log.end_offset is not None:
        starts.append(log.end_offset)
    return max(starts, default=None)


def value_ends(data: bytes, start: int) -> list[int]:
    """The byte after each value of ``data`` from ``start`` (a record's start) on: each move
    is a value of its own; a blind record goes with its deal record, and a proof record
    with its card, as a writer writes them (no end falls between them)."""
    ends: list[int] = []
    for r in RecordReader(memoryview(data)[start:]):
        if type(r.value) is Moves:
            i = 0
            while i < len(r.raw):
                i += 2 if r.raw[i] == 0xcc else 1
                ends.append(start + r.offset + i)
            continue
        if isinstance(r.value, list) and r.value and r.value[0] in (BLIND, PROOF) and ends:
            ends.pop()  # no end between a deal and its blind record, a card and its proof
        ends.append(start + r.end)
    return ends


def cut_at(log: ParsedLog, at: int, why: str) -> ParsedLog:
    """``log`` read up to byte ``at`` (the end of one of its values), unreadable from there
    for the reason ``why``."""
    trimmed = parse_log(log.signed_bytes[:at])
    trimmed.cut_short = LogUnreadable(at, why)
    trimmed.size, trimmed.zero_tail = log.size, log.zero_tail
    return trimmed


def _key(f: Finding) -> tuple[object, ...]:
    return (f.kind, f.hand, f.trick, f.seat, f.card, f.message)


def _faults(v: Verdict) -> Counter[tuple[object, ...]]:
    """The findings of ``v`` that values make, counted."""
    return Counter(_key(f) for f in v.findings if f.kind not in NOT_FAULTS)


def judge_open_end(log: ParsedLog, verify: Callable[[ParsedLog], Verdict]
                   ) -> tuple[ParsedLog, Verdict]:
    """Judge ``log`` with ``verify``; when it ends open, its open end only as far as its
    values do not make a finding of their own (see the module's docstring). Returns the
    log as judged (cut where its open end stops being consistent) and its verdict."""
    start = open_end(log)
    verdict = verify(log)
    if start is None or not _faults(verdict):
        return log, verdict
    before = _faults(verify(cut_at(log, start, "")))
    if not _faults(verdict) - before:  # every finding is made before the open end
        return log, verdict
    ends = [start, *value_ends(log.signed_bytes, start)]
    good, bad = 0, len(ends) - 1  # ends[good] makes no finding of its own, ends[bad] does
    made: list[Finding] = []
    while bad - good > 1:
        mid = (good + bad) // 2
        v = verify(cut_at(log, ends[mid], ""))
        extra = _faults(v) - before
        if extra:
            bad, made = mid, [f for f in v.findings if _key(f) in extra]
        else:
            good = mid
    if not made:  # the whole log was the first to make one
        made = [f for f in verdict.findings if _key(f) in _faults(verdict) - before]
    at = ends[good]
    why = (f"read as play, the value there would make a finding ({made[0]}); the last "
           "values of a log that ends unsigned may be bytes a power loss left, so they are "
           "not judged")
    judged = cut_at(log, at, why)
    return judged, verify(judged)


__all__ = ["NOT_FAULTS", "cut_at", "judge_open_end", "open_end", "value_ends"]
