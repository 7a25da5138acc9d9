"""The archive state: what ``tarneeb audit --state FILE`` learned, kept in SQLite.

SQLite, from the standard library: one file, no server, no new dependency, and transactions
that survive ``kill -9`` and power loss (a write-ahead log synced in full at each commit). One
run is one transaction: a run killed at any moment leaves the file as the last run that
finished left it. ``BEGIN IMMEDIATE`` at the start takes the file's write lock for the whole
run, so a second audit with the same file waits a little (``BUSY_WAIT``) and then refuses in
one line; it never sees half a run.

The tables (format ``FORMAT``, in ``meta``, with ``alpha``, fixed when the file is made,
``trust``, a digest of what the user trusted, and ``seal``, :meth:`State.seal`: a run trusts
nothing in a file whose seal is not its own) are described column by column in docs/ARCHIVE.md
("Auditing as the archive grows"): ``keys`` (each key of the tallies once,
:mod:`tarneeb.audit.fairness.codec`), ``logs`` (per log its size, time, SHA-256, verdict,
record, share, :func:`~tarneeb.replay.archive.shares.pack_share`, and whether it is counted in
``totals``; found by :func:`path_at`), ``totals`` (per origin of deals the sum of the shares
counted but what each keeps of its own, :meth:`State.totals`), ``history``, ``versions``
(:class:`Version`), ``evidence`` (:mod:`tarneeb.audit.fairness.anytime`) and ``runs``.
"""

from __future__ import annotations

import itertools
import sqlite3
import zlib
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from tarneeb.audit.fairness import Tally
from tarneeb.audit.fairness.codec import CodecError, pack_value, unpack_value
from tarneeb.audit.seal import database_digest, same_seal, seal
from tarneeb.replay.archive.paths import (
    ArchiveError,
    listed_path,
    path_at,
    query_parts,
    stored_path,
    trust_digest,
)
from tarneeb.replay.archive.records import (
    LogRecord,
    pack_record,
    record_origin,
    unpack_record,
)
from tarneeb.replay.archive.shares import DamagedShare, deals_seen, pack_share, unpack_share
from tarneeb.replay.verify.trust import Trust  # (trust_digest: of the paths module)

if TYPE_CHECKING:  # (numpy's: loaded when a run needs the deals)
    from tarneeb.audit.fairness.anytime.recall import DealsSeen

# taken up, each: 1 had no ``tallied`` and ``play`` columns (every log tallied, none played);
# 2 kept the values drawn whole, a key each, 3 them and a match's own keys in the totals, deals
# in 20 bytes, the cells written (shares and totals written again, keys no longer used gone);
# 4 left no suit pattern by position to the deals; 5 had no ``ctime``, ``inode``; 6 no seal;
# 7 kept the paths as given (made absolute against the working directory); 8 had no
# ``digest`` in the history, 9 a ``gone`` there instead (a log removed on purpose), 10 the
# first versions there (of the matches that advanced the evidence), not in ``versions``
FORMAT = 11
# a key written as the number of another (its prefix) and one more value: format 2's values
# drawn; from 4 every key of 3 labels or more (a long label is written once, not once a value)
_SAME_BUT = "@"
BUSY_WAIT = 5.0  # seconds a second audit of the same state waits for the first
_OBJECTS = 10_000  # key objects put() remembers the numbers of (a chunk's; others: not met again)
_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE keys (id INTEGER PRIMARY KEY, key BLOB NOT NULL);
CREATE TABLE logs (path TEXT NOT NULL, size INTEGER NOT NULL,
                   mtime INTEGER NOT NULL, digest BLOB, verdict TEXT NOT NULL,
                   findings INTEGER NOT NULL, record BLOB NOT NULL, figures BLOB,
                   run INTEGER NOT NULL, counted INTEGER NOT NULL,
                   tallied INTEGER NOT NULL DEFAULT 1, play BLOB, at INTEGER NOT NULL,
                   ctime INTEGER, inode INTEGER);
CREATE INDEX logs_at ON logs (at);
CREATE TABLE totals (origin TEXT PRIMARY KEY, tally BLOB NOT NULL);
CREATE TABLE history (identity BLOB PRIMARY KEY, seq INTEGER NOT NULL,
                      log_e REAL NOT NULL) WITHOUT ROWID;
CREATE TABLE versions (match BLOB NOT NULL, digest BLOB NOT NULL, size INTEGER NOT NULL,
                       whole INTEGER NOT NULL, run INTEGER NOT NULL,
                       PRIMARY KEY (match, digest)) WITHOUT ROWID;
CREATE TABLE evidence (id INTEGER PRIMARY KEY CHECK (id = 1), state BLOB NOT NULL);
CREATE TABLE runs (run INTEGER PRIMARY KEY, at TEXT NOT NULL, logs INTEGER NOT NULL,
                   audited INTEGER NOT NULL, changed INTEGER NOT NULL, lost INTEGER NOT NULL,
                   removed INTEGER NOT NULL, exit_code INTEGER NOT NULL);
"""


_COLUMNS = ("path, size, mtime, digest, verdict, findings, record, figures, run, counted, "
            "tallied, play")  # the columns of format 3's logs table, in order


class Known(NamedTuple):
    """What the state knew of a log when it last judged it or checked its bytes."""

    size: int
    mtime: int  # nanoseconds (for a URL, a number made from its version)
    ctime: int | None  # its change time (None: its bytes to be checked by the next run)
    inode: int | None
    digest: bytes | None  # the SHA-256 of its bytes
    tallied: bool  # whether its deals were tallied (not read with --no-stats)
    play: Any  # the fair-play options it was analysed with (None: not analysed)


class StateError(ArchiveError):
    """A state file that cannot be used: locked, of a newer format, not a state, damaged."""


class State:
    """An open state file, its write lock held and a transaction begun until
    :meth:`commit` (or :meth:`close` without it, which leaves the file as it was)."""

    def __init__(self, path: str, alpha: float, trust: Trust, key: bytes) -> None:
        self.path, self._key = path, key  # (key: the state key it is sealed with)
        try:
            self.db = sqlite3.connect(path, timeout=BUSY_WAIT, isolation_level=None)
            # a file made now: pages of 8 KB (rows of about 1 KB), the pages a run freed
            # given back at each commit (set before the journal mode writes the header)
            self.db.execute("PRAGMA page_size = 8192")
            self.db.execute("PRAGMA auto_vacuum = INCREMENTAL")
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=FULL")
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as e:
            raise StateError(self._why(e)) from None
        except sqlite3.DatabaseError as e:
            raise StateError(f"{path}: not an audit state ({e})") from None
        self._ids: dict[Any, int] = {}
        self._keys: dict[int, Any] = {}
        self._loaded = False
        self._low = 0
        # (path, record, figures) of logs counted when the run began, written anew since
        self._aside: list[tuple[str, bytes, bytes]] = []
        # counted_deals()'s first deals and rows read (rowids); since: the rows written,
        # those it read gone uncounted, whether flags changed or a row not read went aside
        self._began: tuple[DealsSeen, Any] | None = None
        self._after: set[int] = set()
        self._dropped: list[tuple[str, bytes]] = []
        self._flipped = self._unsure = False
        self._totals: dict[str, Tally] | None = None  # totals(), read once a run
        # pack_share's numbers of key objects met (the shares of a chunk share them),
        # emptied past _OBJECTS
        self._objects: dict[int, tuple[Any, int]] = {}
        try:
            self._open(alpha, trust)
        except sqlite3.DatabaseError as e:
            self.close()
            raise StateError(f"{path}: not an audit state ({e})") from None
        except StateError:
            self.close()
            raise

    def _why(self, e: sqlite3.Error) -> str:
        if "locked" in str(e) or "busy" in str(e):
            return (f"{self.path}: another audit is using this state (waited "
                    f"{BUSY_WAIT:g} s); run again when it ends")
        return f"{self.path}: cannot open the state: {e}"

    def _open(self, alpha: float, trust: Trust) -> None:
        tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master")}
        digest = trust_digest(trust)  # (a file made now: made under it, nothing to judge again)
        if not tables:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    self.db.execute(statement)
            self.db.executemany("INSERT INTO meta VALUES (?, ?)", [
                ("format", str(FORMAT)), ("alpha", repr(alpha)), ("trust", digest)])
        if "meta" not in tables and tables:
            raise StateError(f"{self.path}: not an audit state (no meta table)")
        meta = dict(self.db.execute("SELECT key, value FROM meta").fetchall())
        try:
            version = int(meta.get("format", ""))
        except ValueError:
            raise StateError(f"{self.path}: not an audit state (no format)") from None
        if version > FORMAT:
            raise StateError(f"{self.path}: state format {version} is newer than this "
                             f"tarneeb reads ({FORMAT}): upgrade tarneeb")
        if version < 1:
            raise StateError(f"{self.path}: unknown state format {version}")
        self.sealed = meta.get("seal", "")  # (as read: its last run's)
        # (the seal covers rows, not indexes: an index missing a row hides a log's past)
        check = [r[0] for r in self.db.execute("PRAGMA integrity_check(5)")]
        if tables and check != ["ok"]:
            raise StateError(f"{self.path}: damaged or changed outside tarneeb (SQLite's "
                             f"integrity check: {'; '.join(map(str, check))}): start a new "
                             "state, or put back a copy")
        # (a seal found is checked whatever the format says: one set back to 6 or older,
        # which had none, does not turn the check off)
        if tables and (version >= 7 or self.sealed) and not same_seal(self.sealed,
                                                                      self.seal()):
            raise StateError(f"{self.path}: its seal does not match its content (changed "
                             "outside tarneeb, damaged, or sealed with another state key): "
                             "start a new state, or give the key it was sealed with "
                             "(--state-key)")
        if version < FORMAT:  # its tables brought to this format, in the run's transaction
            from tarneeb.replay.archive.upgrade import take_up

            try:
                take_up(self, version, bool(tables), _SCHEMA, _COLUMNS, FORMAT)
            except (CodecError, zlib.error) as e:
                raise StateError(f"{self.path}: its tallies are damaged ({e})") from None
        try:  # (format 6 or older has no seal: its meta is untrusted)
            made = float(meta["alpha"])
        except (KeyError, ValueError, TypeError):
            raise StateError(f"{self.path}: not an audit state (no alpha)") from None
        if made != alpha:
            raise StateError(f"{self.path}: this state flags evidence at --alpha {made:g}, "
                             "fixed when it was made; a level chosen after looking is no "
                             "level (start a new state)")
        # why every log is judged again (None: it is not); format 6 or older: no seal
        self.retrust = ("no seal" if version < 7 else "another trust or release"
                        if meta.get("trust") != digest else None)
        self.db.execute("UPDATE meta SET value = ? WHERE key = 'trust'", (digest,))
        self.run = 1 + (self.db.execute("SELECT max(run) FROM runs").fetchone()[0] or 0)

    # ------------------------------------------------------------ keys of tallies --

    def _all_keys(self) -> None:
        """Every key, read at once when first needed (a run needs most of them; no index
        on the keys' bytes is kept, which would double their size)."""
        if self._loaded:
            return
        self._loaded = True
        written = dict(self.db.execute("SELECT id, key FROM keys").fetchall())

        def key(j: int, depth: int = 0) -> Any:
            if j not in self._keys:
                k = unpack_value(written[j])
                if isinstance(k, tuple) and len(k) == 3 and k[0] == _SAME_BUT:
                    if depth > 64:
                        raise CodecError("keys written as one another")
                    k = (*key(k[1], depth + 1), k[2])
                self._keys[j], self._ids[k] = k, j
            return self._keys[j]

        self._low = min(written, default=0)  # the lowest number of a prefix
        try:
            for j in sorted(written):
                key(j)
        except (CodecError, KeyError, TypeError) as e:
            raise StateError(f"{self.path}: a key of its tallies is damaged ({e})") from None

    def key_id(self, key: Any, prefix: bool = False) -> int:
        """The number of a tally's key (written now if it is new; a ``prefix`` of others
        alone below 0, so that the keys of the shares keep numbers close together)."""
        i = self._ids.get(key)
        if i is None and not self._loaded:  # (a call per key of every share: kept light)
            self._all_keys()
            i = self._ids.get(key)
        if i is None:
            written = key
            if isinstance(key, tuple) and len(key) >= 3:
                written = (_SAME_BUT, self.key_id(key[:-1], prefix=True), key[-1])
            at = None
            if prefix:
                at = self._low = min(0, self._low) - 1
            i = self._ids[key] = self.db.execute("INSERT INTO keys VALUES (?, ?)", (
                at, pack_value(written))).lastrowid or 0
            self._keys[i] = key
        return i

    def key_of(self, i: int) -> Any:
        """The key numbered ``i``."""
        self._all_keys()
        try:
            return self._keys[i]
        except KeyError:
            raise CodecError(f"no key number {i}") from None

    # ------------------------------------------------------------ logs --

    def known_as_of(self, paths: Sequence[str], play: bool = False) -> dict[str, Known]:
        """Per log of ``paths`` the state knows, what it knew of it (:class:`Known`; with
        ``play`` false, its fair-play options are not read); a query 500 logs."""
        out: dict[str, Known] = {}
        wanted = set(paths)
        for part in query_parts(list({path_at(p) for p in wanted})):
            for row in self.db.execute(
                    "SELECT path, size, mtime, ctime, inode, digest, tallied, "
                    + ("play" if play else "NULL") + " FROM logs WHERE at IN ("
                    + ", ".join("?" * len(part)) + ")", part):
                path = listed_path(row[0])
                if path in wanted:
                    options = None if row[7] is None else self._play(path, row[7])[0]
                    out[path] = Known(row[1], row[2], row[3], row[4], row[5],
                                      bool(row[6]), options)
        return out

    def play(self, path: str) -> Any:
        """The fair-play record kept of the log at ``path`` (None: none, or not analysed)."""
        row = self.db.execute("SELECT play FROM logs WHERE at = ? AND path = ?",
                              (path_at(path), stored_path(path))).fetchone()
        return None if row is None or row[0] is None else self._play(path, row[0])[1]

    def _play(self, path: str, blob: bytes) -> tuple[Any, Any]:
        try:
            options, record = unpack_value(zlib.decompress(blob))
            return tuple(options), record
        except (CodecError, zlib.error, TypeError, ValueError) as e:
            raise StateError(f"{self.path}: the fair-play record of {path} is damaged "
                             f"({e})") from None

    def load(self, path: str, share: bool = True) -> LogRecord:
        """The record of the log at ``path``; without ``share``, its share is left in the
        state (``share_kept``)."""
        record, figures, digest = self.db.execute(
            "SELECT record, figures, digest FROM logs WHERE at = ? AND path = ?",
            (path_at(path), stored_path(path))).fetchone()
        try:
            tally = self._share(figures) if share and figures is not None else None
            return unpack_record(record, tally, path, digest,
                                 share_kept=not share and figures is not None,
                                 key_of=self.key_of)
        except (CodecError, zlib.error) as e:
            raise StateError(f"{self.path}: the record of {path} is damaged ({e})") from None

    def load_kept(self, paths: Sequence[str]) -> dict[str, LogRecord]:
        """:meth:`load` of each of ``paths`` without its share (a query 500 logs)."""
        out: dict[str, LogRecord] = {}
        wanted, words = set(paths), dict[int, str]()  # (words: a few, each looked up once)
        for part in query_parts(list({path_at(p) for p in wanted})):
            for stored, record, figures, digest in self.db.execute(
                    "SELECT path, record, figures IS NOT NULL, digest FROM logs WHERE at IN ("
                    + ", ".join("?" * len(part)) + ")", part):
                path = listed_path(stored)
                if path not in wanted:
                    continue
                try:
                    out[path] = unpack_record(record, None, path, digest, bool(figures),
                                              self.key_of, words)
                except (CodecError, zlib.error) as e:
                    raise StateError(f"{self.path}: the record of {path} is damaged "
                                     f"({e})") from None
        return out

    def _share(self, figures: bytes) -> Tally:
        return unpack_share(figures, self.key_of)

    def share(self, path: str) -> tuple[str, Tally] | None:
        """The origin and share of the log at ``path`` (None: it has none)."""
        row = self.db.execute("SELECT figures, record FROM logs WHERE at = ? AND path = ?",
                              (path_at(path), stored_path(path))).fetchone()
        if row is None or row[0] is None:
            return None
        try:
            return record_origin(row[1], self.key_of), self._share(row[0])
        except (CodecError, zlib.error) as e:
            raise StateError(f"{self.path}: the record of {path} is damaged ({e})") from None

    def counted(self) -> set[str]:
        """The paths whose shares the totals hold."""
        return set(map(listed_path, (p for (p,) in self.db.execute(
            "SELECT path FROM logs WHERE counted = 1"))))

    def set_counted(self, paths: Iterable[str], value: bool) -> None:
        self._flipped = True
        self.db.executemany("UPDATE logs SET counted = ? WHERE at = ? AND path = ?",
                            ((int(value), path_at(p), stored_path(p)) for p in paths))

    def totals(self) -> dict[str, Tally]:
        """Per origin, the sum of the shares counted when the run began: the ``totals``
        table, plus what it leaves to the shares (the values drawn, the keys of one match
        alone), read back from the logs counted (and those written anew this run, kept
        aside by :meth:`put`). Read once a run: the same dict each call (what it holds
        does not change in a run; the caller that changes it, ``Monitor.settle``, is the
        last)."""
        if self._totals is not None:
            return self._totals
        out = self._totals = self.totals_table()
        rows = self.db.execute("SELECT path, record, figures FROM logs WHERE counted = 1 "
                               "AND figures IS NOT NULL ORDER BY rowid")
        for path, record, figures in [*rows, *self._aside]:
            try:
                origin = record_origin(record, self.key_of)
                if origin not in out:
                    out[origin] = Tally()
                unpack_share(figures, self.key_of, whole=False, into=out[origin])
            except (CodecError, zlib.error) as e:
                raise StateError(f"{self.path}: the record of {path} is damaged "
                                 f"({e})") from None
        return out

    def totals_table(self) -> dict[str, Tally]:
        """Per origin, the ``totals`` table alone: the sum of the shares counted but the
        values drawn and the keys of one match alone (what :meth:`totals` reads back from
        the shares). What a run that does not test the whole archive again adds to and
        takes from (``Monitor.settle``)."""
        out = {}
        for origin, blob in self.db.execute("SELECT origin, tally FROM totals"):
            try:
                out[origin] = self._share(blob)
            except (CodecError, zlib.error) as e:
                raise StateError(f"{self.path}: its totals are damaged ({e})") from None
        return out

    def counted_deals(self, began: bool = True) -> DealsSeen:
        """Every deal (20 bytes, :class:`~tarneeb.audit.fairness.anytime.recall.DealsSeen`)
        of the repeat tests that keep every deal, each once, in the shares counted when the
        run began (``began``; those written anew since, kept aside by :meth:`put`, too) or
        now (after ``Monitor.settle``): what :meth:`totals` holds, read without making any
        share (:func:`share_deals`). The first call's are kept: those of now are them less
        and plus the deals of the rows changed since (:meth:`_deals_now`)."""
        if self._began is not None and not (began and self._flipped):
            deals = self._began[0] if began else self._deals_now(*self._began)
            if deals is not None:
                return deals
        import numpy as np
        counted = "FROM logs WHERE counted = 1 AND figures IS NOT NULL ORDER BY rowid"
        deals = self._deals_in(itertools.chain(self.db.execute("SELECT path, figures " + counted),
                                               ((p, f) for p, _, f in self._aside if began)))
        if began and self._began is None and not self._flipped:  # (and the rows read)
            self._began = deals, np.array([r for (r,) in self.db.execute(
                "SELECT rowid " + counted)], dtype=np.int64)
        return deals

    def _deals_now(self, began: DealsSeen, ids: Any) -> DealsSeen | None:
        """The deals counted now: ``began`` (of the rows ``ids``, and aside) less those of
        the rows aside, gone uncounted, or of ``ids`` not counted now, plus those of the rows
        counted now but ``ids`` (rows written since are new); None: one not read went aside."""
        import numpy as np
        if self._unsure:
            return None
        now = np.array([r for (r,) in self.db.execute(
            "SELECT rowid FROM logs WHERE counted = 1 AND figures IS NOT NULL")], np.int64)
        same = np.setdiff1d(ids, np.array(list(self._after), dtype=np.int64))

        def rows(of: Any) -> Iterator[tuple[str, bytes]]:  # (those still here, with shares)
            for part in query_parts(of.tolist()):
                yield from self.db.execute("SELECT path, figures FROM logs WHERE figures IS "
                                           f"NOT NULL AND rowid IN ({', '.join('?' * len(part))})",
                                           part).fetchall()
        less = itertools.chain(((p, f) for p, _, f in self._aside), self._dropped,
                               rows(np.setdiff1d(same, now)))
        return began.changed(self._deals_in(less), self._deals_in(rows(np.setdiff1d(now, same))))

    def _deals_in(self, rows: Iterable[tuple[str, bytes]]) -> DealsSeen:
        """The deals the shares of ``rows`` (path, figures) keep, as :meth:`counted_deals`."""
        try:
            return deals_seen(rows, self.key_of)
        except DamagedShare as e:
            raise StateError(f"{self.path}: the record of {e.path} is damaged ({e.why})"
                             ) from None

    def set_totals(self, tallies: dict[str, Tally]) -> None:
        """The totals of the shares counted now (those the shares give back, left out)."""
        self._all_keys()
        self.db.execute("DELETE FROM totals")
        self.db.executemany("INSERT INTO totals VALUES (?, ?)", (
            (o, pack_share(t, self.key_id, whole=False, ids=self._ids))
            for o, t in tallies.items() if t))

    def _set_aside(self, path: str) -> None:
        """The log at ``path`` is written anew or forgotten: if its share was counted, its
        part the totals leave to it is kept aside for :meth:`totals` (and its deals leave
        :meth:`counted_deals`'s)."""
        row = self.db.execute("SELECT path, record, figures, rowid, counted FROM logs WHERE at = ? "
                              "AND path = ? AND figures IS NOT NULL",
                              (path_at(path), stored_path(path))).fetchone()
        if row is None:
            return
        ids = None if self._began is None else self._began[1]  # (rows counted_deals read,
        at = 0 if ids is None else int(ids.searchsorted(row[3]))  # in order)
        read = ids is not None and row[3] not in self._after and at < len(ids) \
            and ids[at] == row[3]
        if row[4]:
            self._aside.append(row[:3])
            self._unsure |= ids is not None and not read
        elif read:  # counted when read, not now: its deals leave those counted now
            self._dropped.append((row[0], row[2]))

    def put(self, path: str, stamp: tuple[int, int, int | None, int], record: LogRecord,
            tallied: bool = True, play: tuple[Any, Any] | None = None) -> None:
        """Keep the log at ``path``: its size, modification and change times and inode, its record,
        whether its deals were tallied, and with ``play`` the fair-play options it was
        analysed with and the fair-play module's record of it (None when it was not
        analysed: not clean)."""
        r = record.row
        self._all_keys()
        if len(self._objects) > _OBJECTS:
            self._objects.clear()
        figures = (None if record.share is None
                   else pack_share(record.share, self.key_id, ids=self._ids,
                                   objects=self._objects, columns=record.columns))
        played = None if play is None else zlib.compress(pack_value(play))
        self._set_aside(path)
        at, stored = path_at(path), stored_path(path)
        self.db.execute("DELETE FROM logs WHERE at = ? AND path = ?", (at, stored))
        written = self.db.execute(
            "INSERT INTO logs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?)",
            (stored, stamp[0], stamp[1], None if r.sha256 is None else bytes.fromhex(r.sha256),
             r.verdict, r.findings, pack_record(record, path, self.key_id), figures, self.run,
             int(tallied), played, at, stamp[2], stamp[3]))
        if self._began is not None:
            self._after.add(written.lastrowid or 0)

    def restamp(self, path: str, mtime: int, ctime: int | None, inode: int) -> None:
        """The times and inode of a log whose bytes were found the same (its size is)."""
        self.db.execute("UPDATE logs SET mtime = ?, ctime = ?, inode = ? WHERE at = ? AND "
                        "path = ?", (mtime, ctime, inode, path_at(path), stored_path(path)))

    def forget(self, path: str) -> None:
        self._set_aside(path)
        self.db.execute("DELETE FROM logs WHERE at = ? AND path = ?",
                        (path_at(path), stored_path(path)))

    def paths(self) -> Iterator[str]:
        yield from (listed_path(p) for (p,) in self.db.execute("SELECT path FROM logs ORDER "
                                                               "BY path").fetchall())

    # ------------------------------------------------------------ evidence --

    def in_history_of(self, identities: Iterable[bytes | None]) -> set[bytes]:
        """Those of ``identities`` the history holds (a query a few hundred)."""
        wanted = list({i for i in identities if i is not None})
        found: set[bytes] = set()
        for part in query_parts(wanted):
            found.update(r[0] for r in self.db.execute(
                "SELECT identity FROM history WHERE identity IN ("
                + ", ".join("?" * len(part)) + ")", part))
        return found

    def add_history(self, identity: bytes, seq: int, log_e: float) -> None:
        """The match ``identity`` advanced the evidence (the ``seq``-th), to ``log_e``."""
        self.db.execute("INSERT INTO history (identity, seq, log_e) VALUES (?, ?, ?)",
                        (identity, seq, log_e))

    def history(self) -> list[float]:
        """The log of the combined e-value after each match, in the order first seen."""
        out = [r[0] for r in self.db.execute("SELECT log_e FROM history ORDER BY seq")]
        if not all(type(x) is float for x in out):  # (a column of SQLite holds any type)
            raise StateError(f"{self.path}: its history is damaged (an e-value not a number)")
        return out

    def evidence(self) -> bytes | None:
        row = self.db.execute("SELECT state FROM evidence WHERE id = 1").fetchone()
        if row is None or isinstance(row[0], bytes):  # (an unsealed state's: anything)
            return None if row is None else row[0]
        raise CodecError(f"not evidence: a {type(row[0]).__name__}, not bytes")

    def set_evidence(self, blob: bytes) -> None:
        self.db.execute("INSERT OR REPLACE INTO evidence VALUES (1, ?)", (blob,))

    # ------------------------------------------------------------ the run --

    def commit(self, at: str, counts: dict[str, int]) -> str:
        """The run's row, then the run's whole work, at once; the seal it was saved with."""
        self.db.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (self.run, at, counts["logs"], counts["audited"], counts["changed"],
                         counts["lost"], counts["removed"], counts["exit_code"]))
        try:
            self._give_back()
            self.db.execute("INSERT OR REPLACE INTO meta VALUES ('seal', ?)", (
                sealed := self.seal(),))
            self.db.execute("COMMIT")
            return sealed
        except sqlite3.Error as e:
            raise StateError(f"{self.path}: cannot save the state: {e}") from None

    def seal(self) -> str:
        """The state's seal as it is now (every table but the seal's row)."""
        return seal(self._key, database_digest(self.db, ("meta", "key", "seal")))

    def _give_back(self) -> None:
        """The pages the run freed, given back (a file made in format 4 or later). Python's
        sqlite3 steps the pragma once, and a step frees one page: so one call a page."""
        if self.db.execute("PRAGMA auto_vacuum").fetchone()[0] != 2:
            return
        for _ in range(self.db.execute("PRAGMA freelist_count").fetchone()[0]):
            self.db.execute("PRAGMA incremental_vacuum(1)")

    def close(self) -> None:
        """Close; a run not committed leaves nothing (its transaction is rolled back)."""
        try:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
        finally:
            self.db.close()


__all__ = ["BUSY_WAIT", "FORMAT", "Known", "State", "StateError", "trust_digest"]
