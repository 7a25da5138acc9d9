"""Taking up a state of an older format (:mod:`tarneeb.replay.archive.state`), in the
run's transaction: formats 2 and 3, every share written again in format 4's packing;
formats before 8, its logs' paths made absolute; the other formats' changes, columns
added or dropped (9's ``gone``), and (11) the table of first versions, with those format 10
kept in the history's ``digest``."""

from __future__ import annotations

import sqlite3
import zlib
from collections.abc import Callable
from typing import Any

from tarneeb.replay.archive.paths import absolute_path, listed_path, path_at, stored_path
from tarneeb.replay.archive.shares import pack_share, unpack_share


def take_up(state: Any, version: int, tables: bool, schema: str, columns: str,
            fmt: int) -> None:
    """The tables of ``state`` (a :class:`~tarneeb.replay.archive.state.State`), opened in
    format ``version`` (older than ``fmt``; ``tables``: it has any), brought to format
    ``fmt`` (its ``schema``; ``columns``, those of format 3's logs table) in the run's
    transaction. Raises :class:`~tarneeb.audit.fairness.codec.CodecError` or
    ``zlib.error`` on a damaged share."""
    if version == 1:  # format 1 read every log's deals and analysed no play
        state.db.execute("ALTER TABLE logs ADD COLUMN tallied INTEGER NOT NULL DEFAULT 1")
        state.db.execute("ALTER TABLE logs ADD COLUMN play BLOB")
    if version < 4:  # (3: a table with row ids: its rows of 1 KB stay in their page)
        # 4: the path's index is a 31-bit number made from it, not the path again
        state.db.create_function("path_at", 1, path_at, deterministic=True)
        state.db.execute(schema.split(";")[2].replace("logs", "logs4", 1))
        state.db.execute(f"INSERT INTO logs4 ({columns}, at) SELECT {columns}, "
                         "path_at(path) FROM logs "
                         "ORDER BY " + ("path" if version < 3 else "rowid"))
        state.db.execute("DROP TABLE logs")
        state.db.execute("ALTER TABLE logs4 RENAME TO logs")
        state.db.execute(schema.split(";")[3])
        state._all_keys()
        for j in repack(state.db, version, state.key_of, state.key_id, state._keys):
            del state._ids[state._keys.pop(j)]
    elif version < 6:
        state.db.execute("ALTER TABLE logs ADD COLUMN ctime INTEGER")
        state.db.execute("ALTER TABLE logs ADD COLUMN inode INTEGER")
    if version < 8 and tables:  # 8: the paths absolute, not as given
        absolute_keys(state.db)
    columns_now = {r[1] for r in state.db.execute("PRAGMA table_info(history)")}
    if version < 10 and tables and "gone" in columns_now:  # 9's: a log removed on purpose
        state.db.execute("ALTER TABLE history DROP COLUMN gone")
    if version < 11 and tables:  # 11: first versions of every match judged, apart
        state.db.execute(schema.split(";")[6].replace("TABLE", "TABLE IF NOT EXISTS", 1))
        if "digest" in columns_now:  # 10's: of the matches that advanced the evidence
            state.db.execute("INSERT INTO versions SELECT identity, digest, 0, 1, 0 FROM "
                             "history WHERE digest IS NOT NULL")
            state.db.execute("ALTER TABLE history DROP COLUMN digest")
    if version < fmt:
        state.db.execute("UPDATE meta SET value = ? WHERE key = 'format'", (str(fmt),))


def repack(db: sqlite3.Connection, version: int, key_of: Callable[[int], Any],
           key_id: Callable[..., int], keys: dict[int, Any]) -> list[int]:
    """Formats 2 and 3 to 4: every share written again (format 4's), the totals without
    what the shares give back, and the keys no longer used deleted (``keys``: every key by
    its number, read; their numbers returned). Raises
    :class:`~tarneeb.audit.fairness.codec.CodecError` or ``zlib.error`` on a damaged
    share."""
    def again(blob: bytes, whole: bool = True) -> bytes:
        old = unpack_share(zlib.decompress(blob) if version < 3 else blob, key_of)
        return pack_share(old, key_id, whole)

    logs = db.execute("SELECT rowid, figures FROM logs WHERE figures IS NOT NULL").fetchall()
    db.executemany("UPDATE logs SET figures = ? WHERE rowid = ?",
                   ((again(f), r) for r, f in logs))
    totals = db.execute("SELECT origin, tally FROM totals").fetchall()
    db.executemany("UPDATE totals SET tally = ? WHERE origin = ?",
                   ((again(t, whole=False), o) for o, t in totals))
    unused = [j for j, k in keys.items() if isinstance(k, tuple) and (
        (k[0] == "repeat" and len(k) == 5) or (k[0] == "rows" and len(k) == 4)
        or (k[0] == "ordered" and len(k) == 5))]
    db.executemany("DELETE FROM keys WHERE id = ?", ((j,) for j in unused))
    return unused


def absolute_keys(db: sqlite3.Connection) -> None:
    """Formats before 8 to 8: each log's path kept as it was given made absolute
    (:func:`~tarneeb.replay.archive.paths.absolute_path`) against this run's working
    directory, which a state's daily run shares with the runs before it. A path that would
    become one the state knows keeps its key: the same log known under two names (its
    older name then lost, a finding, until ``--removed`` names it)."""
    rows = db.execute("SELECT rowid, path FROM logs").fetchall()
    known = {listed_path(p) for _, p in rows}
    for rowid, stored in rows:
        path = listed_path(stored)
        new = absolute_path(path)
        if new != path and new not in known:
            known.add(new)
            db.execute("UPDATE logs SET path = ?, at = ? WHERE rowid = ?",
                       (stored_path(new), path_at(new), rowid))


__all__ = ["absolute_keys", "repack"]
