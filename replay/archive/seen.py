"""Each match once: the archive audit's copies and conflicting logs.

A log copied twice, or one match kept under two names, would count twice in the
statistics, which inflates the sample and can fake or hide a bias. The audit knows a
log by the SHA-256 of its bytes and a match by what its log's header binds it to
(:func:`match_identity`): the match id and the server commitment, which is unique to
one match whatever key signed the log; a log without a commitment by its match id
and the signing key it names. In the order of the paths, the first log of a match
counts; a later log with the same bytes is a **copy** (listed, left out of the
statistics); a later log of the same match with other bytes is **conflicting**: two
different logs of one match, at most one of them the match as played (a platform
that signed two histories, a log changed after the fact, or a platform's match
signed again under another key). Both logs get a finding (``conflicting-log``), each
naming the other, and so does every copy of the first log; nothing is merged silently.

Workers send a snapshot of their chunk's tally after each match (:func:`snapshot`), so
the client can take a repeated match's deals out again (:func:`without`); the client
keeps per match two digests, a byte of state, a count of copies and the path of its
first log (:class:`Seen`; past ``FREEZE`` matches in a table on disk), nothing else.
The findings these give a log are rows of the per-finding table (:class:`FindingRow`).

>>> seen = Seen()
>>> a, b = bytes(32), bytes([1]) * 32
>>> seen.check(b"match 1", a, "a.tlog", clean=True), seen.check(b"match 1", a, "copy.tlog")
(None, ('copy', 'a.tlog', 0, False))
>>> seen.check(b"match 1", b, "other.tlog"), seen.check(b"match 1", b, "third.tlog")
(('conflicting', 'a.tlog', 1, True), ('conflicting', 'a.tlog', 1, False))
>>> len(seen)
1
"""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from tarneeb.audit.fairness import Tally
from tarneeb.replay.archive.claims import CLAIM_KINDS, FREEZE, Stored

if TYPE_CHECKING:
    from tarneeb.replay.log import Header

COPY = "copy"  # the same bytes as an earlier log
CONFLICTING = "conflicting"  # the same match as an earlier log, other bytes: a finding
CONFLICT_KIND = "conflicting-log"
# kinds of finding the archive audit adds to those of one log (tarneeb.replay.verify.findings.KINDS)
ARCHIVE_KINDS = {
    CONFLICT_KIND: "another log in the archive records the same match (match id and server "
                   "commitment, whatever key signed it; without a commitment, match id and "
                   "signing key) with other bytes: at most one of them is the match as "
                   "played, and both logs (and the first one's copies) get this finding",
    **CLAIM_KINDS,
}
_MATCH_TAG = b"tarneeb archive match identity\x00"


def content_digest(data: bytes) -> bytes:
    """The SHA-256 of a log's bytes: two logs with the same digest are copies."""
    return hashlib.sha256(data).digest()


def match_identity(header: Header) -> bytes:
    """What makes two logs the same match: a digest of the match id and the server
    commitment, each length-prefixed; without a commitment, of the match id and the key
    the log names (none: empty). A commitment binds one match's seed, so one match id
    and commitment under two keys is two versions of one match (a platform's match
    signed again by someone else), not two matches.

    >>> from dataclasses import replace
    >>> from tarneeb.replay.log.records import Header
    >>> one = Header(rules=None, seats=[], match_id=b"m1", first_dealer=0,
    ...              server_commitment=b"c" * 32, public_key=b"k" * 32)
    >>> match_identity(one) == match_identity(replace(one, public_key=b"x" * 32))
    True
    >>> match_identity(one) == match_identity(replace(one, server_commitment=None))
    False
    """
    h = hashlib.sha256(_MATCH_TAG)
    if header.server_commitment:
        parts = (b"commitment", header.match_id, header.server_commitment)
    else:
        parts = (b"key", header.match_id, header.public_key or b"")
    for part in parts:
        h.update(len(part).to_bytes(4, "big") + part)
    return h.digest()


def conflict_message(other: str, first: bool = False, copy_of: str | None = None) -> str:
    """The finding's sentence on a log of a match that ``other`` also records: on a
    later log (``other`` read first), on the first log (``first``, ``other`` read
    after it), or on a copy of the first log (``copy_of``, ``other`` a later log).

    >>> conflict_message("b.tlog", first=True)  # doctest: +ELLIPSIS
    'b.tlog is another log of this match ... and this one, read first, counts in the statistics'
    >>> conflict_message("b.tlog", copy_of="a.tlog")  # doctest: +ELLIPSIS
    'b.tlog is ... this one is a copy of a.tlog, which counts in the statistics'
    """
    which = ("this one, read first, counts in the statistics" if first else
             f"this one is a copy of {copy_of}, which counts in the statistics"
             if copy_of is not None else "only the first counts in the statistics")
    return (f"{other} is another log of this match (the same match id and server "
            "commitment, or without a commitment the same match id and signing key) with "
            f"other bytes: at most one of them is the match as played, and {which}")


@dataclass
class Repeat:
    """A log that repeats a match already read: a copy, or a conflicting log."""

    path: str
    kind: str  # copy, conflicting
    first: str  # the first log of the match

    def __str__(self) -> str:
        what = "a copy of" if self.kind == COPY else "conflicts with"
        return f"{self.path}: {what} {self.first}"


_CLEAN = 1  # the state byte: the first log of the match was clean and is not flagged yet
# where each part lies in what Seen keeps per match: the first log's digest (32 bytes), the
# state byte, the copies of the first log read so far (4 bytes), then the first log's path
_STATE, _COPIES, _PATH = 32, 33, 37


class Seen:
    """The logs read so far, by match: the first log's content digest, whether it was
    clean (until a conflict flags it), how many copies of it were read, and its path.
    The most recent matches (at most ``FREEZE``) are in a dict, the others in a table on
    disk (:class:`~tarneeb.replay.archive.claims.Stored`): what an archive leaves in
    memory does not grow with it."""

    __slots__ = ("_first", "_old")

    def __init__(self) -> None:
        self._first: dict[bytes, bytes] = {}  # identity -> digest, state, copies, path
        self._old = Stored(("digest", "state", "copies", "path"))

    def __len__(self) -> int:
        return len(self._first) + len(self._old)

    def _entry(self, key: bytes) -> bytes | None:
        """What is kept of the match ``key``, in the dict's form (None: not read)."""
        first = self._first.get(key)
        if first is not None:
            return first
        old = self._old.get(key)
        if old is None:
            return None
        digest, state, copies, path = old
        return bytes(digest) + bytes([state]) + int(copies).to_bytes(4, "big") + bytes(path)

    def _store(self, key: bytes, first: bytes) -> None:
        """Write back the state and copies of a match read before."""
        if key in self._first:
            self._first[key] = first
            return
        self._old.set(key, "state", first[_STATE])
        self._old.set(key, "copies", int.from_bytes(first[_COPIES:_PATH], "big"))

    def _freeze(self) -> None:
        """Move the dict's matches into the table."""
        self._old.add([(k, v[:_STATE], v[_STATE], int.from_bytes(v[_COPIES:_PATH], "big"),
                        v[_PATH:]) for k, v in self._first.items()])
        self._first.clear()

    def disk_bytes(self) -> int:
        """The bytes the matches moved to disk take there."""
        return self._old.disk_bytes()

    def close(self) -> None:
        self._old.close()

    def check(self, identity: bytes | None, digest: bytes | None, path: str,
              clean: bool = False) -> tuple[str, str, int, bool] | None:
        """None for the first log of its match (remembered, with ``clean``: its verdict);
        else ``(COPY or CONFLICTING, the first log's path, the copies of the first log
        read before this log, whether this conflict turns the first log and those copies
        from clean to findings)``, the last True once per match at most. ``identity`` is
        the match's (None: the log has no header to tell, so its bytes stand for it); a
        log with neither is always first."""
        key = identity if identity is not None else digest
        if key is None:
            return None
        first = self._entry(key)
        if first is None:
            self._first[key] = ((digest or bytes(32)) + bytes([_CLEAN if clean else 0])
                                + bytes(4) + path.encode("utf-8", "surrogateescape"))
            if len(self._first) >= FREEZE:
                self._freeze()
            return None
        path_first = first[_PATH:].decode("utf-8", "surrogateescape")
        copies = int.from_bytes(first[_COPIES:_PATH], "big")
        if digest is not None and first[:_STATE] == digest:
            self._store(key, first[:_COPIES] + (copies + 1).to_bytes(4, "big") + first[_PATH:])
            return COPY, path_first, copies, False
        was_clean = bool(first[_STATE] & _CLEAN)
        if was_clean:
            self._store(key, first[:_STATE] + bytes([first[_STATE] & ~_CLEAN])
                        + first[_COPIES:])
        return CONFLICTING, path_first, copies, was_clean

    def flag(self, identity: bytes) -> tuple[str, int, bool]:
        """A finding on the first log of the match ``identity`` (read already): its path,
        the copies of it read so far, and whether it was clean till now (then no more)."""
        first = self._entry(identity)
        if first is None:
            raise KeyError(identity)
        was_clean = bool(first[_STATE] & _CLEAN)
        if was_clean:
            self._store(identity, first[:_STATE] + bytes([first[_STATE] & ~_CLEAN])
                        + first[_COPIES:])
        return (first[_PATH:].decode("utf-8", "surrogateescape"),
                int.from_bytes(first[_COPIES:_PATH], "big"), was_clean)


class Snapshot(Protocol):
    """A tally's counts (``[0]``) and sums (``[1]``) as they stood, in the order of its
    keys: :func:`snapshot`'s pair, or one made only when read
    (:class:`~tarneeb.audit.fairness.streams.LazySnapshot`)."""

    def __getitem__(self, k: int, /) -> array[int]: ...


def snapshot(tally: Tally) -> Snapshot:
    """A tally's counts and sums as they stand, in the order of its keys: after each
    match a worker takes one of its chunk's tally, and two in a row are that match's
    share of it. A dict keeps its keys in the order they came, so a key a later match
    adds comes after every key of the snapshot before; taking one costs a copy of the
    values, not a tally per match.

    >>> from tarneeb.audit.fairness import DrawEmpty
    >>> ref = DrawEmpty((13, 13, 13, 13), 13)
    >>> total = Tally()
    >>> total.fit(("voids",), ref, 0); first = snapshot(total)
    >>> total.fit(("voids",), ref, 2); total.mean(("voids",), ref, 1); second = snapshot(total)
    >>> total.fit(("voids",), ref, 0); third = snapshot(total)
    >>> left = without(total, [(second, first)])  # the second match taken out
    >>> sorted(left.counts.values()), dict(left.sums)
    ([2], {})
    >>> without(total, [(first, None), (second, first), (third, second)]).counts
    Counter()
    """
    return array("q", tally.counts.values()), array("q", tally.sums.values())


def without(total: Tally, shares: Sequence[tuple[Snapshot, Snapshot | None]]) -> Tally:
    """``total`` (a chunk's tally) less the share of some of its matches, each given as
    the snapshot after it and the one before it (None: it was the chunk's first): the
    differences are taken on the values alone, so no key is looked up per match."""
    if not shares:
        return total
    out = Tally()
    for k, (into, items) in enumerate(((out.counts, total.counts), (out.sums, total.sums))):
        values = list(items.values())
        for after, before in shares:
            then = before[k] if before is not None else ()
            for i, n in enumerate(after[k]):
                values[i] -= n - then[i] if i < len(then) else n
        into.update({key: v for key, v in zip(items, values, strict=True) if v})
    return out


# ------------------------------------------------------------ findings --

@dataclass
class FindingRow:
    """One row of the per-finding table."""

    path: str
    kind: str
    message: str
    hand: int | None
    trick: int | None
    seat: int | None
    card: str | None
    offset: int | None


def conflict_row(path: str, message: str) -> FindingRow:
    """A ``conflicting-log`` finding: on the whole log, so no hand, trick, seat or card."""
    return archive_row(path, CONFLICT_KIND, message)


def archive_row(path: str, kind: str, message: str) -> FindingRow:
    """A finding of the archive on a whole log: no hand, trick, seat or card."""
    return FindingRow(path, kind, message, None, None, None, None, None)


def copied(row: FindingRow, path: str, first: str) -> FindingRow:
    """A finding of the first log of a match (``first``) on a copy of it at ``path``."""
    return archive_row(path, row.kind, f"{row.message} (this log is a copy of {first})")


def first_log_finding(first: str, later: str) -> FindingRow:
    """The ``conflicting-log`` finding on the first log of a match, naming a later log."""
    return conflict_row(first, conflict_message(later, first=True))


def copy_finding(path: str, first: str, later: str) -> FindingRow:
    """The ``conflicting-log`` finding on a copy of the first log of a match, naming a
    later log."""
    return conflict_row(path, conflict_message(later, copy_of=first))


__all__ = [
    "ARCHIVE_KINDS",
    "CONFLICTING",
    "CONFLICT_KIND",
    "COPY",
    "FindingRow",
    "Repeat",
    "Seen",
    "Snapshot",
    "archive_row",
    "conflict_message",
    "conflict_row",
    "content_digest",
    "copied",
    "copy_finding",
    "first_log_finding",
    "match_identity",
    "snapshot",
    "without",
]
