"""What two matches may not share: a season leaf, a match id, an outcome.

Counting each match once (:mod:`~tarneeb.replay.archive.seen`) knows a match by its
match id and server commitment. Three things that make two logs look like two honest
matches are findings of the archive, on both logs (each naming the other):

- ``reused-leaf``: two matches (two match ids) with one **server commitment**, at one
  season leaf, at two, in two seasons or in none: one server seed, so one sequence of
  deals, used for two matches;
- ``reused-match-id``: one **match id** under one signing key with two server
  commitments (two season leaves): two matches under one name;
- ``conflicting-outcome``: two logs of one match id under one signing key that
  declare different **outcomes** (the winner, or the totals at the end).

A worker sends per log its :class:`Claim` (three short digests); the client keeps per
match one entry for its match id (the match's identity and outcome digest) and one
for its leaf or commitment (the identity alone): :class:`Claims`, the most recent in dicts,
the others in tables of SQLite's temporary database (:class:`Stored`).

>>> c = Claims()
>>> one, two, three = bytes(32), bytes([1]) * 32, bytes([2]) * 32
>>> c.check(one, Claim(b"leaf", b"id 1", b"won 0"))
[]
>>> c.check(two, Claim(b"leaf", b"id 2", b"won 0")) == [("reused-leaf", one)]
True
>>> [kind for kind, _ in c.check(three, Claim(b"other", b"id 1", b"won 1"))]
['reused-match-id', 'conflicting-outcome']
"""

from __future__ import annotations

import hashlib
import sqlite3
from typing import TYPE_CHECKING, Any, NamedTuple

from tarneeb.replay.archive.paths import AuditFault, temp_fault

if TYPE_CHECKING:
    from tarneeb.replay.log import EndRecord, Header, ParsedLog

REUSED_LEAF = "reused-leaf"
REUSED_ID = "reused-match-id"
OUTCOME = "conflicting-outcome"
CLAIM_KINDS = {
    REUSED_LEAF: "another match in the archive (another match id) has the same server "
                 "commitment (at the same season leaf, at another, or in no season): one "
                 "server seed, so one sequence of deals, used for two matches; both logs get "
                 "this finding",
    REUSED_ID: "another log in the archive has the same match id under the same signing key "
               "with another server commitment (another season leaf): two matches under one "
               "id; both logs get this finding",
    OUTCOME: "another log of the same match id under the same signing key declares another "
             "outcome (winner, or the totals at the end); both logs get this finding",
}
_WORDS = {
    REUSED_LEAF: "is a log of another match (another match id) with the same server "
                 "commitment: one server seed used for two matches",
    REUSED_ID: "has the same match id under the same signing key, with another server "
               "commitment (another season leaf): two matches under one id",
    OUTCOME: "records the same match id under the same signing key with another outcome "
             "(winner or final totals)",
}
_TAG = b"tarneeb archive claim\x00"
_DIGEST = 16  # bytes of the digests a claim is made of


class Claim(NamedTuple):
    """What a log claims: its season leaf or commitment, its match id (under its key), its
    outcome, each a short digest (``leaf`` None: no commitment)."""

    leaf: bytes | None
    match: bytes
    outcome: bytes


def _digest(*parts: bytes) -> bytes:
    h = hashlib.sha256(_TAG)
    for part in parts:
        h.update(len(part).to_bytes(4, "big") + part)
    return h.digest()[:_DIGEST]


def claim_of(log: ParsedLog) -> Claim:
    """The claims of a parsed log: its server commitment (in a season or not; the season
    leaf, root and index, of a header with none); the match id under the key
    the header names; the outcome: the end record's winner and the totals of the last
    hand closed (the log's own claims, which the replay checks)."""
    totals = next((r.totals for r in reversed(log.hands) if r.closed and r.totals), None)
    return claim_from(log.header, log.end, totals)


def claim_from(h: Header, end: EndRecord | None, totals: list[int] | None) -> Claim:
    """:func:`claim_of` from a log's header, its end record and the totals its last closed
    hand claims (``None``: no hand closed)."""
    # the server commitment, in a season or not: one seed at two leaves of a season, in
    # two seasons, or in one and alone, is one sequence of deals for two matches (two
    # matches at one leaf, their proofs good, have one commitment too)
    if h.server_commitment:
        leaf: bytes | None = _digest(b"commitment", h.server_commitment)
    elif h.batch is not None:  # (a leaf without a commitment: a finding of its own)
        leaf = _digest(b"leaf", h.batch.root, h.batch.index.to_bytes(8, "big"))
    else:
        leaf = None
    winner = -1 if end is None or end.winner is None else end.winner
    ended = b"" if end is None else (b"abandoned" if end.abandoned else b"won")
    outcome = _digest(ended, winner.to_bytes(1, "big", signed=True),
                      b",".join(str(t).encode() for t in totals or ()))
    return Claim(leaf, _digest(b"match", h.public_key or b"", h.match_id), outcome)


def claim_message(kind: str, other: str, earlier: bool) -> str:
    """The finding's sentence on a log that ``other`` contradicts (``earlier``: this log
    was read first).

    >>> claim_message("reused-leaf", "b.tlog", earlier=True)  # doctest: +ELLIPSIS
    'b.tlog, read after this log, is a log of another match ... used for two matches'
    """
    when = "read after this log" if earlier else "read before this log"
    return f"{other}, {when}, {_WORDS[kind]}"


FREEZE = 1 << 11  # entries a dict holds (at most) before they move into a table on disk
CACHE_KB = 256  # the pages of a table SQLite keeps in memory, per table


class Stored:
    """Entries moved out of a dict (unique keys, bytes): a table of SQLite's temporary
    database (a file in the system's temporary directory, ``TMPDIR``, with no name once
    open: the system removes it however the process ends), looked up by key. Its pages
    in memory are bounded (``CACHE_KB``), so what each match leaves for the whole archive
    does not grow in memory with it; a table is made when the first entries move (past
    ``FREEZE`` matches), so a small archive never opens one."""

    __slots__ = ("_broken", "_db", "_fields", "_n", "_select")

    def __init__(self, fields: tuple[str, ...]) -> None:
        self._fields = fields
        self._db: Any = None
        self._n = 0
        self._broken: AuditFault | None = None  # a failed write: the table is not whole
        self._select = f"SELECT {', '.join(fields)} FROM e WHERE k = ?"

    def __len__(self) -> int:
        return self._n

    def get(self, key: bytes) -> tuple[Any, ...] | None:
        """The fields of ``key``'s entry (None: none)."""
        if self._broken is not None:
            raise self._broken
        if self._db is None:
            return None
        try:
            row: tuple[Any, ...] | None = self._db.execute(self._select, (key,)).fetchone()
        except sqlite3.Error as e:
            raise self._fail(e) from e
        return row

    def set(self, key: bytes, field: str, value: Any) -> None:
        """Change one field of ``key``'s entry (there is one)."""
        if field not in self._fields:
            raise KeyError(field)
        if self._broken is not None:
            raise self._broken
        try:
            self._db.execute(f"UPDATE e SET {field} = ? WHERE k = ?", (value, key))
        except sqlite3.Error as e:
            raise self._fail(e) from e

    def add(self, entries: list[tuple[Any, ...]]) -> None:
        """More entries, each its key (none held already) and its fields."""
        if not entries:
            return
        if self._broken is not None:
            raise self._broken
        entries = sorted(entries)  # in the order of the keys: the pages touched in turn
        marks = ", ".join("?" * (1 + len(self._fields)))
        try:
            if self._db is None:
                self._db = self._open()
            self._db.execute("BEGIN")
            self._db.executemany(f"INSERT INTO e VALUES ({marks})", entries)
            self._db.execute("COMMIT")
        except sqlite3.Error as e:
            raise self._fail(e) from e
        self._n += len(entries)

    def _fail(self, e: sqlite3.Error) -> AuditFault:
        """The fault that stops the audit; without a journal (none is kept: it would hold
        a batch's pages) a failed write leaves the table not whole, so every later use
        of it fails too, never answering from part of it."""
        self._broken = temp_fault("database", e)
        return self._broken

    def _open(self) -> Any:
        import tempfile

        # "": SQLite's temporary database, deleted when closed; autocommit, one
        # transaction per batch of entries
        db = sqlite3.connect("", isolation_level=None, check_same_thread=False)
        # in Python's temporary directory (SQLite's own choice, without TMPDIR, may be
        # /var/tmp); a no-op where SQLite is built without the deprecated pragma
        where = tempfile.gettempdir().replace("'", "''")
        db.execute(f"PRAGMA temp_store_directory = '{where}'")
        db.execute(f"PRAGMA cache_size = -{CACHE_KB}")
        db.execute("PRAGMA journal_mode = OFF")
        db.execute(f"CREATE TABLE e (k BLOB PRIMARY KEY, {', '.join(self._fields)}) WITHOUT ROWID")
        return db

    def disk_bytes(self) -> int:
        """The bytes the table takes in its file (its pages)."""
        if self._db is None:
            return 0
        (pages,), (size,) = (self._db.execute(f"PRAGMA {what}").fetchone()
                             for what in ("page_count", "page_size"))
        return int(pages) * int(size)

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None


class Claims:
    """The leaves and match ids of the matches read so far: per match id (under its key)
    the identity of its first match and its outcome, per leaf the identity of its match.
    The most recent are in dicts, the others in tables on disk (:class:`Stored`)."""

    __slots__ = ("_ids", "_leaves", "_old_ids", "_old_leaves")

    def __init__(self) -> None:
        self._ids: dict[bytes, tuple[bytes, bytes]] = {}
        self._leaves: dict[bytes, bytes] = {}
        self._old_ids = Stored(("identity", "outcome"))
        self._old_leaves = Stored(("identity",))

    def _leaf(self, leaf: bytes, identity: bytes) -> bytes:
        """The identity of the first match at ``leaf`` (``identity`` if none before)."""
        other = self._leaves.get(leaf)
        if other is None:
            old = self._old_leaves.get(leaf)
            if old is not None:
                return bytes(old[0])
            other = self._leaves[leaf] = identity
        return other

    def _id(self, match: bytes, first: tuple[bytes, bytes]) -> tuple[bytes, bytes]:
        """The first match (identity, outcome) of the match id ``match``."""
        got = self._ids.get(match)
        if got is None:
            old = self._old_ids.get(match)
            if old is not None:
                return bytes(old[0]), bytes(old[1])
            got = self._ids[match] = first
        return got

    def _freeze(self) -> None:
        """Move the dicts' entries into the tables."""
        self._old_leaves.add([(k, v) for k, v in self._leaves.items()])
        self._old_ids.add([(k, *v) for k, v in self._ids.items()])
        self._leaves.clear()
        self._ids.clear()

    def disk_bytes(self) -> int:
        """The bytes the entries moved to disk take there."""
        return self._old_ids.disk_bytes() + self._old_leaves.disk_bytes()

    def close(self) -> None:
        self._old_ids.close()
        self._old_leaves.close()

    def check(self, identity: bytes, claim: Claim) -> list[tuple[str, bytes]]:
        """The findings a match's log makes with the matches read before it: ``(kind,
        the identity of the other match)``; the first of each is remembered. A log of a
        match read before (a copy, a conflicting log) has its identity, so makes none
        but an outcome of its own."""
        found = []
        if claim.leaf is not None:
            other = self._leaf(claim.leaf, identity)
            if other != identity:
                found.append((REUSED_LEAF, other))
        first = self._id(claim.match, (identity, claim.outcome))
        if first[0] != identity:
            found.append((REUSED_ID, first[0]))
        if first[1] != claim.outcome:
            found.append((OUTCOME, first[0]))
        if len(self._ids) + len(self._leaves) >= 2 * FREEZE:
            self._freeze()
        return found


__all__ = ["CLAIM_KINDS", "FREEZE", "OUTCOME", "REUSED_ID", "REUSED_LEAF", "Claim", "Claims",
           "Stored", "claim_from", "claim_message", "claim_of"]
