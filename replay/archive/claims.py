"""What two matches may not share: a season leaf, a match id, an outcome.

Counting each match once (:mod:`~tarneeb.replay.archive.seen`) knows a match by its
match id and server commitment. Three things that make two logs look like two honest
matches are findings of the archive, on both logs (each naming the other):

- ``reused-leaf``: two matches (two match ids) at one **season leaf** (the same
  season root and leaf index), or with one **server commitment**: one server seed,
  so one sequence of deals, used for two matches;
- ``reused-match-id``: one **match id** under one signing key with two server
  commitments (two season leaves): two matches under one name;
- ``conflicting-outcome``: two logs of one match id under one signing key that
  declare different **outcomes** (the winner, or the totals at the end).

A worker sends per log its :class:`Claim` (three short digests); the client keeps per
match one entry for its match id (the match's identity and outcome digest) and one
for its leaf or commitment (the identity alone, the same object as the one the
copies' check keeps): :class:`Claims`.

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

import functools
import hashlib
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    from tarneeb.replay.log import EndRecord, Header, ParsedLog

REUSED_LEAF = "reused-leaf"
REUSED_ID = "reused-match-id"
OUTCOME = "conflicting-outcome"
CLAIM_KINDS = {
    REUSED_LEAF: "another match in the archive (another match id) stands at the same season "
                 "leaf (season root and leaf index) or has the same server commitment: one "
                 "server seed, so one sequence of deals, used for two matches; both logs get "
                 "this finding",
    REUSED_ID: "another log in the archive has the same match id under the same signing key "
               "with another server commitment (another season leaf): two matches under one "
               "id; both logs get this finding",
    OUTCOME: "another log of the same match id under the same signing key declares another "
             "outcome (winner, or the totals at the end); both logs get this finding",
}
_WORDS = {
    REUSED_LEAF: "is a log of another match (another match id) at the same season leaf, or "
                 "with the same server commitment: one server seed used for two matches",
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
    """The claims of a parsed log: the season leaf (root, index) when the header places
    its commitment in a season, else the commitment itself; the match id under the key
    the header names; the outcome: the end record's winner and the totals of the last
    hand closed (the log's own claims, which the replay checks)."""
    totals = next((r.totals for r in reversed(log.hands) if r.closed and r.totals), None)
    return claim_from(log.header, log.end, totals)


def claim_from(h: Header, end: EndRecord | None, totals: list[int] | None) -> Claim:
    """:func:`claim_of` from a log's header, its end record and the totals its last closed
    hand claims (``None``: no hand closed)."""
    if h.batch is not None:
        leaf: bytes | None = _digest(b"leaf", h.batch.root, h.batch.index.to_bytes(8, "big"))
    elif h.server_commitment:
        leaf = _digest(b"commitment", h.server_commitment)
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


FREEZE = 1 << 11  # entries a dict holds (at least) before they move into sorted arrays


@functools.cache
def numpy_or_none() -> Any:
    """numpy, or None in the base install (no archive extra): then the dicts keep every
    entry, as they did before the arrays."""
    try:
        import numpy
    except ImportError:  # pragma: no cover - the archive extra is installed for the tests
        return None
    return numpy


class Frozen:
    """Entries moved out of a dict (keys of one width, unique): the keys sorted in a numpy
    array (``V`` width) and, in the same order, a column per field; looked up by binary
    search. About the bytes of the fields an entry, where a dict's entry, its key and its
    value as Python objects take a few hundred: what each match leaves for the whole
    archive stays small. numpy is imported when the first entries move (archives of
    thousands of matches), so a small audit without statistics never loads it."""

    __slots__ = ("cols", "keys")

    def __init__(self) -> None:
        self.keys: Any = None
        self.cols: dict[str, Any] = {}

    def __len__(self) -> int:
        return 0 if self.keys is None else len(self.keys)

    def find(self, key: bytes) -> int:
        """The entry of ``key`` (-1: none)."""
        if self.keys is None or len(key) != self.keys.dtype.itemsize:
            return -1
        import numpy as np
        probe = np.frombuffer(key, dtype=self.keys.dtype)
        i = int(np.searchsorted(self.keys, probe)[0])
        return i if i < len(self.keys) and self.keys[i].tobytes() == key else -1

    def add(self, keys: list[bytes], cols: dict[str, Any]) -> None:
        """More entries: their keys (none held already) and a column per field."""
        import numpy as np
        new = np.frombuffer(b"".join(keys), dtype=f"V{len(keys[0])}")
        if self.keys is not None:
            new = np.concatenate((self.keys, new))
            cols = {c: np.concatenate((self.cols[c], v)) for c, v in cols.items()}
        order = np.argsort(new, kind="stable")
        self.keys = new[order]
        self.cols = {c: v[order] for c, v in cols.items()}


class Claims:
    """The leaves and match ids of the matches read so far: per match id (under its key)
    the identity of its first match and its outcome, per leaf the identity of its match.
    The most recent are in dicts, the others in sorted arrays (:class:`Frozen`)."""

    __slots__ = ("_ids", "_leaves", "_old_ids", "_old_leaves")

    def __init__(self) -> None:
        self._ids: dict[bytes, tuple[bytes, bytes]] = {}
        self._leaves: dict[bytes, bytes] = {}
        self._old_ids = Frozen()
        self._old_leaves = Frozen()

    def _leaf(self, leaf: bytes, identity: bytes) -> bytes:
        """The identity of the first match at ``leaf`` (``identity`` if none before)."""
        other = self._leaves.get(leaf)
        if other is None:
            i = self._old_leaves.find(leaf)
            if i >= 0:
                return bytes(self._old_leaves.cols["identity"][i].tobytes())
            other = self._leaves[leaf] = identity
        return other

    def _id(self, match: bytes, first: tuple[bytes, bytes]) -> tuple[bytes, bytes]:
        """The first match (identity, outcome) of the match id ``match``."""
        got = self._ids.get(match)
        if got is None:
            i = self._old_ids.find(match)
            if i >= 0:
                cols = self._old_ids.cols
                return (bytes(cols["identity"][i].tobytes()),
                        bytes(cols["outcome"][i].tobytes()))
            got = self._ids[match] = first
        return got

    def _freeze(self) -> None:
        """Move the entries of the usual widths (16-byte digests, 32-byte identities)
        from the dicts into the sorted arrays."""
        np = numpy_or_none()
        if np is None:
            return
        for held, old, fields in ((self._leaves, self._old_leaves, ("identity",)),
                                  (self._ids, self._old_ids, ("identity", "outcome"))):
            width = {"identity": 32, "outcome": _DIGEST}
            moved = [(k, v if isinstance(v, tuple) else (v,)) for k, v in held.items()
                     if len(k) == _DIGEST and all(len(x) == width[f] for x, f in
                                                  zip(v if isinstance(v, tuple) else (v,),
                                                      fields, strict=True))]
            if not moved:
                continue
            old.add([k for k, _ in moved],
                     {f: np.frombuffer(b"".join(v[j] for _, v in moved), dtype=f"V{width[f]}")
                      for j, f in enumerate(fields)})
            for k, _ in moved:
                del held[k]

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
        if len(self._ids) + len(self._leaves) >= max(2 * FREEZE, len(self._old_ids) // 4):
            self._freeze()
        return found


__all__ = ["CLAIM_KINDS", "FREEZE", "OUTCOME", "REUSED_ID", "REUSED_LEAF", "Claim", "Claims",
           "Frozen", "claim_from", "claim_message", "claim_of", "numpy_or_none"]
