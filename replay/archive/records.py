"""One log's part of a chunk, on its own: what the archive state keeps of a log.

A :class:`~tarneeb.replay.archive.audit.Chunk` is the audit of some logs, with one
tally for all of them; :func:`records_of` cuts it into a :class:`LogRecord` per log
(its row, its findings, what makes it the same match as another log, its claims, its
ending, and its own share of the tally, taken from the snapshots the worker made after
each match), and :func:`chunk_of` puts records back into a chunk that folds into an
:class:`~tarneeb.replay.archive.audit.ArchiveSummary` exactly as the chunk they came
from would. Records of logs read today and records kept from earlier runs mix freely:
that is how an audit with a state reads only the logs it has not seen.

A record cut before the summary folds its chunk in: the summary marks copies and
conflicts on the rows, which depend on the other logs of the archive.

>>> import tempfile, pathlib
>>> from tarneeb.replay.server.simulate import play_logged_match
>>> from tarneeb.replay.archive.audit import audit_chunk
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> paths = [str(d / f"m{i}.tlog") for i in range(2)]
>>> for i, p in enumerate(paths):
...     _ = pathlib.Path(p).write_bytes(play_logged_match("qahwa41", seed=b"rec%d" % i))
>>> chunk = audit_chunk(paths)
>>> again = chunk_of(records_of(chunk))
>>> dict(again.tallies["proven"].counts) == dict(chunk.tallies["proven"].counts)
True
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

from tarneeb.audit.fairness import Tally
from tarneeb.audit.fairness.codec import CodecError, pack_value, unpack_value
from tarneeb.replay.archive.audit import Chunk, FindingRow, MatchRow
from tarneeb.replay.archive.claims import Claim
from tarneeb.replay.archive.endings import Ending
from tarneeb.replay.archive.seen import snapshot
from tarneeb.replay.archive.shares import ChunkKeys, ShareColumns
from tarneeb.replay.verify.ending import no_end_record

if TYPE_CHECKING:  # the fair-play analysis is loaded when asked for (--play)
    from tarneeb.replay.fairplay import MatchPlay

_ROW_FIELDS = len(fields(MatchRow))
_FINDING_FIELDS = len(fields(FindingRow))


def _copy(row: MatchRow) -> MatchRow:
    """``copy.copy(row)``, made as it makes it (a new object with the same ``__dict__``)
    without its general steps: a run copies a row per log."""
    new = object.__new__(type(row))
    new.__dict__.update(row.__dict__)
    return new


def _fields(row: MatchRow | FindingRow) -> tuple[Any, ...]:
    """A flat dataclass's values, in order (``astuple`` copies deeply, and slowly)."""
    return tuple(getattr(row, f.name) for f in fields(row))


@dataclass
class LogRecord:
    """One log's audit: everything a chunk holds of it."""

    row: MatchRow
    findings: list[FindingRow]
    identity: bytes | None
    claim: Claim | None
    ending: Ending | None
    unpinned: bool  # signed by a key named in the log itself, not pinned by the user
    not_read: bool  # the file was not read at all (never kept in a state)
    share: Tally | None  # this match's observations (None: no deals tallied, or not loaded)
    # taken from a state without its share, which the state's totals hold already
    # (:mod:`~tarneeb.replay.archive.monitor`)
    share_kept: bool = False
    play: MatchPlay | None = None  # with --play: the fair-play analysis of a clean log
    # the share as its chunk's columns (read now): written to a state from them
    columns: ShareColumns | None = None
    # read now: how many bytes were judged (None: not read whole), which the state keeps
    # as the log's size (never in the record's bytes)
    size: int | None = None
    # of a log that is not whole, the SHA-256 of its bytes before where its reader stopped
    # (:func:`~tarneeb.replay.verify.ending.stopped_at`): what it says so far
    start: bytes | None = None


def records_of(chunk: Chunk) -> list[LogRecord]:
    """``chunk`` cut into one record per log, in order (before it is folded)."""
    keys = {o: ChunkKeys(list(t.counts), list(t.sums)) for o, t in chunk.tallies.items()}
    before: dict[str, Any] = {}
    not_read = set(chunk.not_read)
    played = len(chunk.play) == len(chunk.matches)  # with --play: a record a row
    out = []
    pos = 0
    for i, m in enumerate(chunk.matches):
        share = columns = None
        after = chunk.shares[i]
        if after is not None:
            columns = share_columns(keys[m.deals], after, before.get(m.deals))
            share = columns.tally()
            before[m.deals] = after
        out.append(LogRecord(
            _copy(m), list(chunk.findings[pos:pos + m.findings]),
            chunk.identities[i], chunk.claims[i] if chunk.claims else None,
            chunk.endings[i] if chunk.endings else None,
            bool(chunk.unpinned_rows[i]) if chunk.unpinned_rows else False, i in not_read,
            share, play=chunk.play[i] if played else None, columns=columns,
            size=chunk.sizes[i] if len(chunk.sizes) == len(chunk.matches) else None,
            start=chunk.starts[i] if len(chunk.starts) == len(chunk.matches) else None))
        pos += m.findings
    return out


def share_of(keys: tuple[list[Any], list[Any]], after: Any, before: Any) -> Tally:
    """A match's share of its chunk's tally: the snapshot after it less the one before it
    (None: it was the chunk's first), its keys named by ``keys``."""
    return share_columns(ChunkKeys(*keys), after, before).tally()


def share_columns(keys: ChunkKeys, after: Any, before: Any) -> ShareColumns:
    """A match's share of its chunk's tally as columns (numpy: a chunk's tally has
    thousands of keys, and a match adds to a few hundred): the snapshot after it less the
    one before it (None: it was the chunk's first), among the chunk's ``keys``."""
    import numpy as np
    at, values = [], []
    for k in (0, 1):
        now = np.array(after[k], dtype=np.int64)
        if before is not None and len(before[k]):
            now[:len(before[k])] -= np.asarray(before[k], dtype=np.int64)
        touched = np.flatnonzero(now)
        at.append(touched)
        values.append(now[touched])
    return ShareColumns(keys, (at[0], at[1]), (values[0], values[1]))


def unfinished(record: LogRecord) -> bool:
    """Whether ``record``'s log stops before its end record (a ``cut-short`` finding): its
    match may still be going on, its log to grow by more deals. Such a match advances the
    evidence when a run finds its log whole, with all its deals: once, as every match."""
    return no_end_record(record.findings)


def chunk_of(records: Iterable[LogRecord], tallies: bool = True) -> Chunk:
    """The chunk these records make, as the audit of their logs in this order would
    have sent it back; without ``tallies``, with no tallies (nor snapshots of them)."""
    out = Chunk()
    for r in records:
        if r.not_read:
            out.not_read.append(len(out.matches))
        out.matches.append(_copy(r.row))
        out.findings.extend(r.findings)
        out.identities.append(r.identity)
        out.claims.append(r.claim)
        out.endings.append(r.ending)
        out.unpinned += r.unpinned
        out.unpinned_rows.append(r.unpinned)
        out.play.append(r.play)
        snap = None
        if tallies and r.share is not None:
            tally = out.tallies.setdefault(r.row.deals, Tally())
            tally.merge(r.share)
            snap = snapshot(tally)
        elif tallies and r.row.deals != "none":
            out.tallies.setdefault(r.row.deals, Tally())
        out.shares.append(snap)
    return out


_WORDS = (1, 3, 4, 5, 7)  # a row's verdict, rule set, key, platform, origin of deals


def _is_hex(text: str) -> bool:
    """Whether ``text`` is what ``bytes.hex`` writes (lower case, pairs of digits)."""
    return len(text) % 2 == 0 and all(c in "0123456789abcdef" for c in text)


def pack_record(r: LogRecord, path: str, key_id: Any = None) -> bytes:
    """A record but its share (kept apart, see :mod:`~tarneeb.replay.archive.state`), and
    but its path and digest where they are ``path`` and the digest column's (the state
    keeps those in columns of their own: :func:`unpack_record` takes them back); with
    ``key_id``, the row's words that many logs share (verdict, rule set, key, platform,
    origin of deals) as the numbers of keys ``("text", word)``."""
    row = list(_fields(r.row))
    row[0] = None if row[0] == path else row[0]
    row[13] = None if r.row.sha256 is None else b""
    if isinstance(row[14], str) and _is_hex(row[14]):  # the match id's bytes, not its hex
        row[14] = bytes.fromhex(row[14])
    for i in _WORDS if key_id is not None else ():
        if isinstance(row[i], str):
            row[i] = key_id(("text", row[i]))
    findings = tuple((None if f[0] == path else f[0], *f[1:]) for f in map(_fields, r.findings))
    return pack_value((tuple(row), findings, r.identity,
                       None if r.claim is None else tuple(r.claim), r.ending, r.unpinned)
                      + (() if r.start is None else (r.start,)))


def unpack_record(data: bytes, share: Tally | None, path: str, digest: bytes | None,
                  share_kept: bool = False, key_of: Any = None,
                  words: dict[int, str] | None = None) -> LogRecord:
    """The record :func:`pack_record` wrote of the log at ``path`` whose bytes have
    ``digest`` (``key_of`` turning the numbers of its words back into words; ``words``:
    those found so far, kept by a caller that reads many records, most with the same
    words); :class:`CodecError` when it is not one."""
    found = {} if words is None else words
    try:
        row, findings, identity, claim, ending, unpinned, *start = unpack_value(data)
        if start and (len(start) > 1 or not isinstance(start[0], bytes)
                      or len(start[0]) != 32):
            raise CodecError("a record of another shape")
        if digest is not None and not isinstance(digest, bytes):  # (an unsealed state's)
            raise CodecError("a digest that is not bytes")
        if len(row) != _ROW_FIELDS or (findings and any(len(f) != _FINDING_FIELDS
                                                          for f in findings)):
            raise CodecError("a record of another shape")
        row = list(row)
        for i in _WORDS:
            if isinstance(row[i], int):
                word = found.get(row[i])
                if word is None:
                    word = _word(row[i], key_of)
                    found[row[i]] = word
                row[i] = word
        row = (path if row[0] is None else row[0], *row[1:13],
               None if row[13] is None or digest is None else digest.hex(),
               row[14].hex() if isinstance(row[14], bytes) else row[14], *row[15:])
        return LogRecord(MatchRow(*row),
                         [FindingRow(path if f[0] is None else f[0], *f[1:]) for f in findings],
                         identity, None if claim is None else Claim(*claim),
                         None if ending is None else tuple(ending),
                         bool(unpinned), False, share, share_kept,
                         start=start[0] if start else None)
    except (TypeError, ValueError) as e:
        if isinstance(e, CodecError):
            raise
        raise CodecError(f"not a record: {e}") from None


def _word(number: int, key_of: Any) -> str:
    """The word numbered ``number`` (a key ``("text", word)``)."""
    word = key_of(number) if key_of is not None else None
    if not (isinstance(word, tuple) and len(word) == 2 and word[0] == "text"
            and isinstance(word[1], str)):
        raise CodecError(f"no word numbered {number}")
    return word[1]


def record_origin(data: bytes, key_of: Any) -> str:
    """The origin of deals (proven, recorded, none) of the record :func:`pack_record`
    wrote, read alone."""
    try:
        origin = unpack_value(data)[0][7]
        if isinstance(origin, int):
            origin = key_of(origin)[1]
    except (TypeError, ValueError, IndexError) as e:
        if isinstance(e, CodecError):
            raise
        raise CodecError(f"not a record: {e}") from None
    if not isinstance(origin, str):
        raise CodecError("not a record: no origin of deals")
    return origin


__all__ = ["LogRecord", "chunk_of", "pack_record", "record_origin", "records_of", "share_of",
           "unpack_record"]
