"""The logs of an archive audit: paths, directories, glob patterns, standard input and
URLs of an object store, listed lazily; a log's bytes read from a URL.

:func:`logs_under` is the one rule by which ``verify``, ``regress`` and ``audit`` take a
directory: every ``*.tlog`` file in it and in its subdirectories, at any depth.

>>> import tempfile, pathlib
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> for name in ("b.tlog", "a.tlog", "notes.txt"):
...     _ = (d / name).write_bytes(b"")
>>> [pathlib.Path(p).name for p in expand_paths([str(d)])]
['a.tlog', 'b.tlog']
"""

from __future__ import annotations

import fnmatch
import glob
import hashlib
import itertools
import os
import sys
import zlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from tarneeb.replay.log.parse import open_regular
from tarneeb.replay.log.stream import DEFAULT_LIMITS, Limits, _regular_file_size
from tarneeb.replay.verify.trust import Trust

_GLOB = set("*?[")
LOG_SUFFIX = ".tlog"  # what a directory's logs are named


OnError = Callable[[OSError], None]


def expand_paths(args: Iterable[str], stdin: Iterable[str] | None = None,
                 onerror: OnError | None = None) -> Iterator[str]:
    """The logs named by ``args``, lazily: files as given, directories by
    :func:`logs_under`, glob patterns (``**`` included), and ``-`` for
    one path a line read from ``stdin``. A path that names nothing is yielded as it
    is, so the audit reports it as unreadable. URLs (``s3://bucket/logs``) are
    listed with fsspec, which the ``cluster`` extra installs. A directory that cannot
    be listed is given to ``onerror`` (an :class:`OSError` naming it, see
    :func:`listing_error`), or raises :class:`ArchiveError` without it.
    """
    for arg in args:
        if arg == "-":
            lines = stdin if stdin is not None else sys.stdin
            for line in lines:
                line = line.strip()
                if line:
                    yield from expand_paths([line], onerror=onerror)
            continue
        if "://" in arg:
            yield from _expand_url(arg)
        elif os.path.isdir(arg):
            yield from logs_under(arg, onerror)
        elif not os.path.exists(arg) and glob.has_magic(arg):
            found = sorted(set(pattern_matches(arg)))
            if not found:
                raise ArchiveError(f"{arg}: no file matches this pattern")
            taken: set[str] = set()  # the directories listed whole, by logs_under
            for p in found:
                if _under(p, taken):
                    continue  # listed already, with the directory it is in
                if os.path.isdir(p):
                    taken.add(os.path.normpath(p))
                    yield from logs_under(p, onerror)
                else:
                    yield p
        else:
            yield arg


def _under(path: str, directories: set[str]) -> bool:
    """Whether ``path`` is in one of ``directories`` (normalised), at any depth."""
    if not directories:
        return False
    head = os.path.normpath(path)
    while True:
        head, tail = os.path.split(head)
        if not tail:
            return False
        if head in directories or (not head and "." in directories):
            return True


def pattern_matches(pattern: str) -> Iterator[str]:
    """What the glob ``pattern`` matches, as ``glob.iglob(pattern, recursive=True)``
    gives it, but that ``**`` neither matches nor goes down into a symbolic link to a
    directory (as a directory's listing does not follow them): a link back up the tree
    made the pattern's matches endless.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> (d / "sub").mkdir(); _ = (d / "sub" / "a.tlog").write_bytes(b"")
    >>> (d / "sub" / "up").symlink_to(d)
    >>> sorted(pathlib.Path(p).relative_to(d).as_posix()
    ...        for p in pattern_matches(str(d / "**" / "*.tlog")))
    ['sub/a.tlog']
    """
    dirname, base = os.path.split(pattern)
    if not glob.has_magic(pattern):
        if os.path.lexists(pattern) if base else os.path.isdir(dirname):
            yield pattern
        return
    if not dirname:
        yield from _matches_in("", base)
        return
    heads: Iterable[str] = [dirname]
    if dirname != pattern and glob.has_magic(dirname):
        heads = pattern_matches(dirname)
        if dirname == "**":  # no directory at all: the current one
            heads = itertools.chain([""], heads)
    for head in heads:
        if not head or os.path.isdir(head):
            yield from _matches_in(head, base)


def _matches_in(dirname: str, base: str) -> Iterator[str]:
    """The names in ``dirname`` matching ``base`` (one part of a pattern), joined to it."""
    if base == "**":  # itself, then everything below but links to directories
        if dirname:
            yield os.path.join(dirname, "")
        for root, dirs, files in os.walk(dirname or os.curdir):
            dirs[:] = [d for d in dirs if not d.startswith(".")
                       and not os.path.islink(os.path.join(root, d))]
            rel = os.path.relpath(root, dirname or os.curdir)
            for name in dirs + [f for f in files if not f.startswith(".")]:
                joined = name if rel == os.curdir else os.path.join(rel, name)
                yield os.path.join(dirname, joined) if dirname else joined
        return
    if not glob.has_magic(base):
        if os.path.lexists(os.path.join(dirname, base)):
            yield os.path.join(dirname, base)
        return
    try:
        names = os.listdir(dirname or os.curdir)
    except OSError:
        return
    if not base.startswith("."):
        names = [n for n in names if not n.startswith(".")]
    for name in fnmatch.filter(names, base):
        yield os.path.join(dirname, name)


def logs_under(top: str | os.PathLike[str], onerror: OnError | None = None) -> Iterator[str]:
    """The logs of the directory ``top``, lazily: every ``*.tlog`` file in it and in its
    subdirectories at any depth, in a fixed order: a directory's own logs by name, then
    each subdirectory's, subdirectories by name. Symbolic links to directories are not
    followed (a link to a log file is a log). ``verify``, ``regress`` and ``audit`` all
    take a directory by this rule. A directory that cannot be listed (not allowed, gone)
    is never skipped silently: it goes to ``onerror``, or raises :class:`ArchiveError`
    (:func:`listing_error` says it in words).

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> for name in ("b.tlog", "sub/a.tlog", "a.tlog", "sub/deeper/c.tlog", "sub/c.txt"):
    ...     (d / name).parent.mkdir(parents=True, exist_ok=True)
    ...     _ = (d / name).write_bytes(b"")
    >>> [pathlib.Path(p).relative_to(d).as_posix() for p in logs_under(d)]
    ['a.tlog', 'b.tlog', 'sub/a.tlog', 'sub/deeper/c.tlog']
    """
    def refuse(e: OSError) -> None:
        raise ArchiveError(listing_error(e)) from None

    for root, dirs, files in os.walk(top, onerror=onerror or refuse):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(LOG_SUFFIX):
                yield os.path.join(root, name)


def _expand_url(url: str) -> Iterator[str]:
    protocol = url.split("://", 1)[0]
    for p in _fsspec_paths(url):
        yield p if "://" in p else f"{protocol}://{p}"


def _fsspec_paths(url: str) -> list[str]:
    try:
        from fsspec.core import url_to_fs
    except ImportError:
        raise ArchiveError(f"{url}: reading URLs needs fsspec (pip install "
                           "'tarneeb[cluster]')") from None
    try:  # (a protocol fsspec does not know, or whose package is not installed, say)
        fs, path = url_to_fs(url)
        if fs.isdir(path):
            found = sorted(p for p in fs.find(path) if p.endswith(LOG_SUFFIX))
        elif _GLOB & set(path):
            found = sorted(fs.glob(path))
        else:
            found = [path]
    except Exception as e:  # (a store's own errors, whatever their class: one line)
        why = e.strerror if isinstance(e, OSError) and e.strerror else \
            str(e) if isinstance(e, (ImportError, ValueError, OSError)) else \
            f"{type(e).__name__}: {e}"
        raise ArchiveError(f"{url}: cannot list: {why}") from None
    return found


def listing_error(e: OSError) -> str:
    """A directory that cannot be listed, in one line: ``DIR: cannot list: why``.

    >>> listing_error(PermissionError(13, "Permission denied", "logs/2026"))
    'logs/2026: cannot list: Permission denied'
    """
    return f"{e.filename}: cannot list: {e.strerror or e}"


class ArchiveError(ValueError):
    """Bad input to the archive audit as a whole (exit code 2)."""


class AuditFault(RuntimeError):
    """The audit stopped part way (a worker lost for good, the scheduler gone): what was
    folded in before it is a partial summary, which the command still gives (exit 2)."""


def temp_fault(what: str, e: Exception) -> AuditFault:
    """The audit stops (a partial summary, exit 2) when its temporary ``what`` (files, a
    database) in the system's temporary directory fail, a full disk: what it keeps of
    each match is no longer whole."""
    import tempfile
    return AuditFault(f"the audit's temporary {what} (in {tempfile.gettempdir()}) failed: {e}")


def read_url(url: str, limits: Limits = DEFAULT_LIMITS) -> bytes:
    """A log's bytes from an object store (fsspec), at most one byte past the cap, which
    the parser then refuses."""
    try:
        import fsspec
    except ImportError:
        raise OSError(f"reading {url} needs fsspec (pip install 'tarneeb[cluster]')") from None
    try:
        fs, path = fsspec.core.url_to_fs(url)
        kind = fs.info(path).get("type", "file")
        if kind != "file":  # (a FIFO behind file:// would be waited on for ever)
            raise OSError(f"not a regular file ({kind}): refused without reading it")
        with fs.open(path, "rb") as f:
            data: bytes = f.read(limits.max_bytes + 1)
            return data
    except OSError:
        raise
    except Exception as e:  # (an unreadable log, as a file's OSError is, whatever a
        raise OSError(f"{type(e).__name__}: {e}") from None  # store raises)


def whole_file(path: str, limits: Limits) -> bytes | None:
    """A regular file's bytes within the cap (at most one byte past it, which the parser
    refuses); None when it is over the cap, for :func:`verify_file` to say why. Raises
    :class:`OSError` when it cannot be opened or read, or is not a regular file (a FIFO,
    a device, a socket: refused without being opened for reading, :func:`open_regular`)."""
    with open_regular(path) as f:
        size = _regular_file_size(f)
        if size is None or size > limits.max_bytes:
            return None
        data = f.read(size + 1)
        if len(data) > size:  # it grew since: read on to the cap at most
            data += f.read(limits.max_bytes + 1 - len(data))
        return data


def query_parts(values: list[Any], size: int = 500) -> Iterator[list[Any]]:
    """``values`` in lists of ``size`` (the parameters of one query)."""
    for j in range(0, len(values), size):
        yield values[j:j + size]


def absolute_path(path: str, cwd: str | None = None) -> str:
    """A log's path as an audit state knows it: a local path made absolute against the
    working directory ``cwd`` (default: the process's), its ``.`` parts and repeated
    separators taken out, so that a run from another directory, or naming the archive
    otherwise (``logs``, ``./logs/``, ``/srv/logs``), finds the logs the state knew. A
    ``..`` part stays (through a link to a directory it leads elsewhere than the text
    says); a URL is kept as it is.

    >>> absolute_path("./logs//a.tlog", "/srv"), absolute_path("/srv/x/../a.tlog", "/")
    ('/srv/logs/a.tlog', '/srv/x/../a.tlog')
    >>> absolute_path("s3://bucket/a.tlog", "/srv")
    's3://bucket/a.tlog'
    """
    if "://" in path or path == "-":
        return path
    if os.name != "posix":  # (no links in the way of '..' worth the difference there)
        return os.path.abspath(path)
    if not path.startswith("/"):
        if cwd is None:
            try:
                cwd = os.getcwd()
            except OSError:  # (the working directory removed: the path as given)
                return path
        path = f"{cwd}/{path}"
    if "//" not in path and "/." not in path:  # (most paths: nothing to take out)
        return path
    return "/" + "/".join(p for p in path.split("/") if p not in ("", "."))


def stored_path(path: str) -> str | bytes:
    """A log's path as the state's ``logs`` table keeps it: its text, or, for a path that
    is not valid UTF-8 (a file name's bytes, which the listing gives as lone surrogates),
    a BLOB of its text in UTF-8 with each lone surrogate in its 3-byte form (Python's
    ``surrogatepass``), which :func:`listed_path` reads back to the same path.

    >>> stored_path("a/b.tlog"), stored_path("a/\\udcff.tlog")
    ('a/b.tlog', b'a/\\xed\\xb3\\xbf.tlog')
    >>> listed_path(stored_path("a/\\udcff.tlog")) == "a/\\udcff.tlog"
    True
    """
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        return path.encode("utf-8", "surrogatepass")
    return path


def listed_path(stored: str | bytes) -> str:
    """The path :func:`stored_path` kept as ``stored``."""
    try:
        return stored if isinstance(stored, str) else stored.decode("utf-8", "surrogatepass")
    except (AttributeError, UnicodeDecodeError):  # (an unsealed state's: format 6 or older)
        raise ArchiveError(f"a path kept in the audit state is damaged ({stored!r}): start "
                           "a new state, or put back a copy") from None


def path_at(path: str) -> int:
    """What the ``logs`` table is indexed by: 31 bits of the CRC-32 of the path (fixed with
    the format; two paths with one number are told apart by the path itself)."""
    try:  # (a file name's bytes, given as lone surrogates, are themselves)
        return zlib.crc32(path.encode("utf-8", "surrogateescape")) >> 1
    except UnicodeEncodeError:  # (other lone surrogates: a store's name, say, as \\ud800)
        return zlib.crc32(path.encode("utf-8", "surrogatepass")) >> 1


# what a log's share of the tallies holds: a state's shares made under another version
# lack a measure (2: the trump honours), so its logs are judged again
SHARES_VERSION = 2
# what a log's claims (:mod:`~tarneeb.replay.archive.claims`) are made of: a state's made
# under another version are made again (2: the server commitment whether or not a season
# holds it, where 1 took the season leaf: one seed at two leaves went unseen)
CLAIMS_VERSION = 2


def trust_digest(trust: Trust) -> str:
    """What the user trusts, and the tarneeb that judges, as a digest: the stored verdicts
    hold only under it (another release's verifier may judge a log otherwise, and another
    version of the shares measures other things)."""
    import dataclasses

    from tarneeb import __version__

    # every field of the trust (a field added later is in it too), the policy included
    # (``require_proof``: a deal not proven is a finding under it and not without)
    parts = []
    for f in dataclasses.fields(trust):
        value = getattr(trust, f.name)
        parts.append((f.name, sorted(value.items()) if isinstance(value, Mapping) else value))
    text = repr((parts, __version__, SHARES_VERSION, CLAIMS_VERSION))
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()


__all__ = [
    "LOG_SUFFIX",
    "ArchiveError",
    "AuditFault",
    "OnError",
    "absolute_path",
    "expand_paths",
    "listed_path",
    "listing_error",
    "logs_under",
    "path_at",
    "query_parts",
    "read_url",
    "stored_path",
    "trust_digest",
    "whole_file",
]
