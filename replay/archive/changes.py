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
from collections.abc import Callable, Sequence

from tarneeb.replay.archive.audit import _whole_file
from tarneeb.replay.archive.paths import read_url
from tarneeb.replay.archive.records import LogRecord
from tarneeb.replay.archive.seen import FindingRow
from tarneeb.replay.archive.state import State, Version
from tarneeb.replay.verify.trust import Trust

CHANGED_KIND = "changed-log"

# a log judged with one of these findings was not signed yet (still being written, or cut
# short): it may grow, and only such a log's growth is not a change
UNSIGNED_KINDS = frozenset(("cut-short", "unsigned"))

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
            _whole_file(path, trust.limits)
    except OSError:
        return None


def extends(path: str, size: int, digest: bytes, judged: str, trust: Trust,
            longer: bool = False) -> bool:
    """Whether the log at ``path``, judged now with bytes of SHA-256 ``judged`` (hex),
    begins with the ``size`` bytes of SHA-256 ``digest`` judged before (``longer``: and
    has more): its bytes read again are those judged now, and begin with those (a log that
    changed again since it was judged now does not)."""
    data = bytes_now(path, trust)
    return (data is not None and len(data) >= size + longer
            and hashlib.sha256(data).hexdigest() == judged
            and hashlib.sha256(data[:size]).digest() == digest)


def grew(path: str, size: int, digest: bytes, judged: str, trust: Trust) -> bool:
    """Whether the log at ``path`` only grew since the state judged its first ``size``
    bytes (:func:`extends`, longer). A log still being written when a run read it (not
    signed yet: a finding, ``UNSIGNED_KINDS``) is appended to, not rewritten."""
    return extends(path, size, digest, judged, trust, longer=True)


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
    """Whether the log ``record`` judged is whole: read, signed and finished (no
    ``cut-short`` or ``unsigned`` finding): a version of its match, not one being written."""
    return record.row.verdict != "unreadable" and not any(
        f.kind in UNSIGNED_KINDS for f in record.findings)


def matches_of(record: LogRecord) -> list[bytes]:
    """What a log is a version of: its match (:func:`~tarneeb.replay.archive.seen.match_identity`)
    and its match id under its key (:class:`~tarneeb.replay.archive.claims.Claim`: a match
    dealt again under the same id, with other seeds, is another version of it)."""
    return [m for m in (record.identity, record.claim.match if record.claim else None) if m]


def note_versions(state: State, records: Sequence[LogRecord], paths: Sequence[str],
                  sizes: Sequence[int], trust: Trust) -> dict[bytes, Version]:
    """Keep the first version of each match of ``records`` (a chunk's, read now or kept, at
    ``paths``, of ``sizes`` bytes judged) the state has none of: the log's bytes, whole or
    not yet. A log that begins with a first version not whole yet (:func:`extends`) is its
    first version from now on; a whole log of other bytes in the run that first saw the
    match leaves it none (two versions came at once: which is the match as played no run
    can tell). The first versions of their matches, by :func:`matches_of`."""
    first = state.versions_of(m for r in records for m in matches_of(r))
    for r, path, size in zip(records, paths, sizes, strict=True):
        if r.not_read or r.row.sha256 is None or r.row.verdict == "unreadable":
            continue
        digest = bytes.fromhex(r.row.sha256)
        for match in matches_of(r):
            v = first.get(match)
            if v is None:
                new = Version(size, digest, whole(r), state.run)
            elif v.digest is None or v.digest == digest:
                continue
            elif not v.whole and size > v.size and extends(path, v.size, v.digest,
                                                           r.row.sha256, trust):
                new = Version(size, digest, whole(r), v.run)
            elif v.run == state.run and whole(r):
                new = Version(0, None, False, v.run)
            else:  # (another version: a finding, versions())
                continue
            first[match] = new
            state.set_version(match, new)
    return first


def versions(records: Sequence[LogRecord], first: dict[bytes, Version],
             present: Callable[[bytes], bool]) -> list[LogRecord]:
    """Those of ``records`` (a chunk's, read now or kept; the first versions of their
    matches ``first``, :func:`note_versions`) whose match the state first saw with other
    bytes that are not in the archive now (``present``: whether a log of that SHA-256 is
    listed; else the two are a ``conflicting-log`` or ``reused-match-id`` pair, as a full
    audit says), each given a ``changed-log`` finding (made again at each run, not kept: a
    version of the match rewritten, whatever its path); not a log that is not whole yet
    (``cut-short``, ``unsigned``: a finding of its own), nor one with a ``changed-log``
    finding already."""
    other = []
    for r in records:
        if r.row.sha256 is None or not whole(r) or any(
                f.kind == CHANGED_KIND for f in r.findings):
            continue
        for match in matches_of(r):
            v = first.get(match)
            if v is None or v.digest is None or v.digest.hex() == r.row.sha256 \
                    or present(v.digest):
                continue
            r.findings.append(FindingRow(
                r.row.path, CHANGED_KIND, "the archive's state judged this match first from "
                f"a log with other bytes (SHA-256 {v.digest.hex()[:16]}…): a version of it "
                "rewritten", None, None, None, None, None))
            r.row.add_findings(1)
            other.append(r)
            break
    return other


__all__ = ["UNSIGNED_KINDS", "Stamp", "bytes_now", "extends", "grew", "matches_of",
           "note_versions", "on_purpose", "stat_of", "versions", "whole"]
