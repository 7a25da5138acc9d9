"""Each match once: the archive audit's copies and conflicting logs.

A log copied twice, or one match kept under two names, would count twice in the
statistics, which inflates the sample and can fake or hide a bias. The audit knows a
log by the SHA-256 of its bytes and a match by what its log's header binds it to: the
match id, the signing key the log names and the server commitment
(:func:`match_identity`). In the order of the paths, the first log of a match counts;
a later log with the same bytes is a **copy** (listed, left out of the statistics);
a later log of the same match with other bytes is **conflicting**: two different logs
of one match, at most one of them the match as played, which is a finding
(``conflicting-log``) and is never merged silently.

Workers send a snapshot of their chunk's tally after each match (:func:`snapshot`), so
the client can take a repeated match's deals out again (:func:`without`); the client
keeps per match two digests and the path of its first log (:class:`Seen`), nothing
else.

>>> seen = Seen()
>>> a, b = bytes(32), bytes([1]) * 32
>>> seen.check(b"match 1", a, "a.tlog"), seen.check(b"match 1", a, "copy.tlog")
(None, ('copy', 'a.tlog'))
>>> seen.check(b"match 1", b, "other.tlog"), len(seen)
(('conflicting', 'a.tlog'), 1)
"""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tarneeb.audit.fairness import Tally

if TYPE_CHECKING:
    from .logformat import Header

COPY = "copy"  # the same bytes as an earlier log
CONFLICTING = "conflicting"  # the same match as an earlier log, other bytes: a finding
CONFLICT_KIND = "conflicting-log"
# kinds of finding the archive audit adds to those of one log (tarneeb.replay.findings.KINDS)
ARCHIVE_KINDS = {
    CONFLICT_KIND: "another log in the archive records the same match (match id, signing "
                   "key and server commitment) with other bytes: at most one of them is the "
                   "match as played",
}
_MATCH_TAG = b"tarneeb archive match identity\x00"


def content_digest(data: bytes) -> bytes:
    """The SHA-256 of a log's bytes: two logs with the same digest are copies."""
    return hashlib.sha256(data).digest()


def match_identity(header: Header) -> bytes:
    """What makes two logs the same match: a digest of the match id, the key the log
    names (none: empty) and the server commitment (none: empty), each length-prefixed."""
    h = hashlib.sha256(_MATCH_TAG)
    for part in (header.match_id, header.public_key or b"", header.server_commitment or b""):
        h.update(len(part).to_bytes(4, "big") + part)
    return h.digest()


def conflict_message(first: str) -> str:
    """The finding's sentence on a later log of a match already read."""
    return (f"{first} is another log of this match (the same match id, signing key and "
            "server commitment) with other bytes: at most one of them is the match as "
            "played, and only the first counts in the statistics")


class Seen:
    """The logs read so far, by match: the first log's content digest and path."""

    __slots__ = ("_first",)

    def __init__(self) -> None:
        self._first: dict[bytes, bytes] = {}  # identity -> content digest + first path

    def __len__(self) -> int:
        return len(self._first)

    def check(self, identity: bytes | None, digest: bytes | None,
              path: str) -> tuple[str, str] | None:
        """None for the first log of its match (remembered); else ``(COPY or CONFLICTING,
        the first log's path)``. ``identity`` is the match's (None: the log has no header
        to tell, so its bytes stand for it); a log with neither is always first."""
        key = identity if identity is not None else digest
        if key is None:
            return None
        first = self._first.get(key)
        if first is None:
            self._first[key] = (digest or bytes(32)) + path.encode("utf-8", "surrogateescape")
            return None
        same = digest is not None and first[:32] == digest
        return (COPY if same else CONFLICTING,
                first[32:].decode("utf-8", "surrogateescape"))


Snapshot = tuple["array[int]", "array[int]"]


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


__all__ = [
    "ARCHIVE_KINDS",
    "CONFLICTING",
    "CONFLICT_KIND",
    "COPY",
    "Seen",
    "Snapshot",
    "conflict_message",
    "content_digest",
    "match_identity",
    "snapshot",
    "without",
]
