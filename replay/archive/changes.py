"""How a run of the archive audit with a state tells a log's change
(:mod:`~tarneeb.replay.archive.monitor`): what its file says of it now (its stamp, or an
object store's version), its bytes read again (a log that only grew), and the logs the
user removed on purpose; and a log of a match the state first saw with other bytes (its
first version, :func:`note_versions`) whatever its path: a version of it rewritten
(:func:`versions`).

>>> matches = on_purpose([("*.tlog", "/srv/logs/*.tlog")], ["/srv/logs/*.tlog", "/srv/logs/a.tlog"])
>>> matches("/srv/logs/*.tlog"), matches("/srv/logs/a.tlog")
(True, False)
"""

from __future__ import annotations

import fnmatch
import hashlib
import os
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING, NamedTuple

from tarneeb.replay.archive.paths import query_parts, read_url, whole_file
from tarneeb.replay.archive.records import LogRecord
from tarneeb.replay.archive.seen import FindingRow
from tarneeb.replay.verify.ending import stopped_at
from tarneeb.replay.verify.trust import Trust

if TYPE_CHECKING:
    from tarneeb.replay.archive.state import State

CHANGED_KIND = "changed-log"


# a log's size, modification time, change time (nanoseconds) and inode (another file at
# the path, a symbolic link pointed elsewhere, whatever its times: another inode)
Stamp = tuple[int, int, int, int]
# what an object store (fsspec's ``info``) says of an object's version, each that it gives:
# its ETag or hash (a new one with new bytes), its generation, its times (a local file's
# ``created`` is its change time, which a rewrite moves whatever its ``mtime`` says)
_VERSION_TAGS = ("ETag", "etag", "md5Hash", "crc32c", "generation", "VersionId",
                 "version_id", "mtime", "LastModified", "last_modified", "updated",
                 "created", "ino")
# those that change whenever the bytes do (a hash of them, a number the store gives each
# write); a store that gives none (only times: SFTP, FTP, in seconds and set back at will)
# has each log's bytes checked at every run, as --checksum does
_CONTENT_TAGS = ("ETag", "etag", "md5Hash", "crc32c", "generation", "VersionId", "version_id")


def stat_of(path: str) -> Stamp | None:
    """A log's size, modification time, change time (nanoseconds) and inode, or None when
    it cannot be asked. For a URL: its size, a number made from the store's ``_VERSION_TAGS``,
    its change time (``created`` for file://; 0 for a store whose tags change with the
    bytes; -1: none do, the bytes are checked by every run), and 0."""
    if "://" in path:
        try:
            import fsspec

            fs, p = fsspec.core.url_to_fs(path)
            info = fs.info(p)
        except (ImportError, OSError, ValueError):
            return None
        tag = repr([(k, str(info[k])) for k in _VERSION_TAGS if info.get(k) is not None])
        change = 0 if any(info.get(k) is not None for k in _CONTENT_TAGS) else -1
        if change and info.get("ino") and isinstance(info.get("created"), (int, float)):
            change = int(info["created"] * 1e9)
        return int(info.get("size") or 0), int.from_bytes(
            hashlib.sha256(tag.encode()).digest()[:7], "big"), change, 0
    try:
        st = os.stat(path)
    except (OSError, ValueError):  # (ValueError: a NUL byte in the path, read from stdin)
        return None
    return st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino


def bytes_now(path: str, trust: Trust) -> bytes | None:
    """The bytes of the log at ``path`` as a run reads them (within the caps of
    ``trust``); None when they cannot be read (over the cap, gone: the audit says why
    when it judges the log)."""
    try:
        return read_url(path, trust.limits) if "://" in path else \
            whole_file(path, trust.limits)
    except OSError:
        return None


def judged_bytes(path: str, size: int, judged: str, trust: Trust) -> bytes | None:
    """The ``size`` bytes of the log at ``path`` that a run judged (SHA-256 ``judged``,
    hex), read again: None when its start is not those bytes any more (rewritten since),
    or it cannot be read. A log still being written may have grown again meanwhile."""
    data = bytes_now(path, trust)
    if data is None or len(data) < size or hashlib.sha256(data[:size]).hexdigest() != judged:
        return None
    return data[:size]


def grew(path: str, before: LogRecord, size: int, digest: bytes, judged: tuple[int, str],
         trust: Trust) -> bool:
    """Whether the log at ``path``, judged now (``judged``: the size and SHA-256, hex, of
    the bytes judged), only grew since the state judged its first ``size`` bytes, of
    SHA-256 ``digest``, as ``before``: the bytes judged now begin with those, and are more;
    or with those before where its reader then stopped (its ``start``: a tail a power loss
    left, zeros or torn, is cut off by the recorder's resume; of a record kept by a state
    before format 11, which has none, those bytes, the rest zeros). A log still being
    written when a run read it (not :func:`whole` yet) is appended to, not rewritten."""
    data = judged_bytes(path, *judged, trust)
    if data is None:
        return False
    if len(data) > size and hashlib.sha256(data[:size]).digest() == digest:
        return True
    cut = stopped_at(before.findings, size)
    if cut is None or cut >= min(size, len(data)):
        return False
    if before.start is not None:
        return hashlib.sha256(data[:cut]).digest() == before.start
    return hashlib.sha256(data[:cut] + bytes(size - cut)).digest() == digest


def on_purpose(patterns: Sequence[tuple[str, str]], knew: Sequence[str]
               ) -> Callable[[str], bool]:
    """Whether a path the state knows (among ``knew``) is one ``--removed`` names
    (``patterns``: each as given and made absolute). A pattern that is a path the state
    knows, in either form, names that log alone (a name with glob characters removes no
    other log); another is a glob (``fnmatch``: its ``*`` matches ``/`` too)."""
    known = set(knew)
    exact = {q for pair in patterns for q in pair if q in known}
    globs = [q for pair in patterns if not known.intersection(pair) for q in dict.fromkeys(pair)]
    return lambda path: path in exact or any(fnmatch.fnmatchcase(path, p) for p in globs)


def whole(record: LogRecord) -> bool:
    """Whether the log ``record`` judged is whole: read, with its end record and signed (no
    ``unsigned`` finding, nor a ``cut-short`` one before the end record): a version of its
    match, not one being written. A signed log is whole whatever else it is found to be
    (a match it says ends unfinished, a tail past its signature): no log grows past its
    signature."""
    return record.row.verdict != "unreadable" and stopped_at(record.findings, 0) is None


class Version(NamedTuple):
    """A match's first version, a row of the state's ``versions``: the ``size`` first
    bytes, of SHA-256 ``digest``, of its log, ``whole`` or not yet, and the ``run`` that
    first saw the match."""

    size: int
    digest: bytes
    whole: bool
    run: int


class Versions:
    """The first versions of one match, with what is asked of them kept at hand (a run may
    see many versions of one match: each asked once, not each against every other)."""

    __slots__ = ("all", "digests", "earliest", "listed", "whole")
    all: list[Version]
    digests: set[bytes]
    whole: bool  # whether any is whole
    earliest: int | None  # the run that first saw the match (None: none yet)
    listed: bool | None  # whether a log of one is listed (None: not asked)

    def __init__(self) -> None:
        self.clear()

    def add(self, v: Version) -> None:
        self.all.append(v)
        self.digests.add(v.digest)
        self.whole |= v.whole
        self.earliest = v.run if self.earliest is None else min(self.earliest, v.run)
        self.listed = None

    def clear(self) -> None:
        self.all, self.digests = [], set()
        self.whole, self.earliest, self.listed = False, None, None


def versions_of(state: State, matches: Iterable[bytes]) -> dict[bytes, Versions]:
    """Per match of ``matches`` with any, the first versions ``state`` keeps."""
    out: dict[bytes, Versions] = {}
    for part in query_parts(list(set(matches))):
        for m, *v in state.db.execute("SELECT match, size, digest, whole, run FROM versions "
                                      "WHERE match IN (" + ", ".join("?" * len(part)) + ")",
                                      part):
            out.setdefault(m, Versions()).add(Version(v[0], v[1], bool(v[2]), v[3]))
    return out


# what a log is a version of (:func:`matches_of`), as its finding names it
_WHAT = ("this match", "this match id under its key", "this server seed")


def matches_of(record: LogRecord) -> list[tuple[bytes, int]]:
    """What a log is a version of, each with its place in ``_WHAT``: its match
    (:func:`~tarneeb.replay.archive.seen.match_identity`), its match id under its key (a
    match dealt again under the same id, with other seeds, is another version of it), its
    server commitment or season leaf (one seed, one sequence of deals, for one match:
    :class:`~tarneeb.replay.archive.claims.Claim`)."""
    c = record.claim
    return [(m, i) for i, m in enumerate((record.identity, c.match if c else None,
                                          c.leaf if c else None)) if m]


def _seen(record: LogRecord, path: str, size: int, trust: Trust) -> Version | None:
    """The version of its match a log judged (``size`` bytes at ``path``) is: its bytes
    when it is whole; else those before the place its reader stopped (a zero-filled or
    unreadable tail, which a recorder's resume cuts off, is no part of it: ``start``, made
    where it was read, or for a log kept in the state read again); None when they cannot
    be (changed since it was judged)."""
    cut = stopped_at(record.findings, size)
    if cut is None:
        return Version(size, bytes.fromhex(record.row.sha256 or ""), True, 0)
    cut = min(cut, size)
    if record.start is not None:
        return Version(cut, record.start, False, 0)
    data = judged_bytes(path, size, record.row.sha256 or "", trust)
    if data is None:
        return None
    return Version(cut, hashlib.sha256(data[:cut]).digest(), False, 0)


def _begins(data: bytes | None, first: Version) -> bool:
    """Whether the bytes ``data`` a run judged (None: not read again) begin with those of
    ``first``, a version not whole, and have more."""
    return data is not None and len(data) > first.size and \
        hashlib.sha256(data[:first.size]).digest() == first.digest


def note_versions(state: State, records: Sequence[LogRecord], paths: Sequence[str],
                  sizes: Sequence[int], trust: Trust) -> dict[bytes, Versions]:
    """Keep the first versions of the matches of ``records`` (a chunk's, read now or kept,
    at ``paths``, of ``sizes`` bytes judged, :func:`matches_of`): of a match the state has
    none of, the log's (whole or not yet, :func:`_seen`); in the run that first saw it,
    every other (the match came in two versions: which is the match as played no run can
    tell, and a later log of other bytes than all is a version of its own). A log that
    begins with a first version not whole yet takes its place while the match has no whole
    one. The first versions of their matches, by match."""
    first = versions_of(state, (m for r in records for m, _ in matches_of(r)))
    for r, path, size in zip(records, paths, sizes, strict=True):
        if r.not_read or r.row.sha256 is None or r.row.verdict == "unreadable":
            continue
        mine: Version | None = None
        data: list[bytes | None] = []  # (its bytes read again once, when asked)
        for match, _ in matches_of(r):
            known = first.setdefault(match, Versions())
            if mine is None:
                mine = _seen(r, path, size, trust)
                if mine is None:
                    break
            if mine.digest in known.digests:
                continue
            if known.all and not known.whole and all(v.size < mine.size for v in known.all):
                if not data:
                    data.append(judged_bytes(path, size, r.row.sha256 or "", trust))
                begins = all(_begins(data[0], v) for v in known.all)
            else:
                begins = False
            if begins:  # (it begins with every version seen, none whole: their match,
                for old in known.all:  # further on)
                    state.db.execute("DELETE FROM versions WHERE match = ? AND digest = ?",
                                     (match, old.digest))
                new = mine._replace(run=min(v.run for v in known.all))
                known.clear()
            elif known.earliest in (None, state.run):  # (none yet, or in the first run)
                new = mine._replace(run=state.run)
            else:  # (another version: a finding, versions())
                continue
            known.add(new)
            state.db.execute("INSERT INTO versions VALUES (?, ?, ?, ?, ?)",
                             (match, new.digest, new.size, new.whole, new.run))
    return first


def versions(records: Sequence[LogRecord], first: dict[bytes, Versions],
             present: Callable[[bytes], bool]) -> list[LogRecord]:
    """Those of ``records`` (a chunk's, read now or kept; the first versions of their
    matches ``first``, :func:`note_versions`) whose match the state first saw with other
    bytes, none of them in the archive now (``present``: whether a log of that SHA-256 is
    listed; else the two are a ``conflicting-log``, ``reused-match-id`` or ``reused-leaf``
    pair, as a full audit says), each given a ``changed-log`` finding (made again at each
    run, not kept: a version of the match rewritten, whatever its path); not a log that
    is not whole yet (``cut-short``, ``unsigned``: a finding of its own), nor one with a
    ``changed-log`` finding already."""
    other = []
    for r in records:
        if r.row.sha256 is None or not whole(r) or any(
                f.kind == CHANGED_KIND for f in r.findings):
            continue
        for match, what in matches_of(r):
            known = first.get(match)
            if known is None or not known.all or bytes.fromhex(r.row.sha256) in known.digests:
                continue
            if known.listed is None:
                known.listed = any(present(d) for d in known.digests)
            if known.listed:
                continue
            r.findings.append(FindingRow(
                r.row.path, CHANGED_KIND, f"the archive's state judged {_WHAT[what]} first "
                f"from a log with other bytes (SHA-256 {known.all[0].digest.hex()[:16]}…): a "
                "version of it rewritten", None, None, None, None, None))
            r.row.add_findings(1)
            other.append(r)
            break
    return other


__all__ = ["Stamp", "Version", "Versions", "bytes_now", "grew", "judged_bytes",
           "matches_of", "note_versions", "on_purpose", "stat_of", "versions",
           "versions_of", "whole"]
