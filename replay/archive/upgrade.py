"""Taking up a state of formats 2 and 3 (:mod:`tarneeb.replay.archive.state`): every share
written again in format 4's packing, in the run's transaction. The later formats' changes
are columns added, done where the state is opened."""

from __future__ import annotations

import zlib
from typing import TYPE_CHECKING

from tarneeb.audit.fairness.codec import CodecError
from tarneeb.replay.archive.shares import pack_share, unpack_share

if TYPE_CHECKING:
    from tarneeb.replay.archive.state import State


def repack(state: State, version: int) -> None:
    """Formats 2 and 3 to 4, in the run's transaction: every share written again (format
    4's), the totals without what the shares give back, the keys no longer used gone."""
    from tarneeb.replay.archive.state import StateError

    def again(blob: bytes, whole: bool = True) -> bytes:
        old = unpack_share(zlib.decompress(blob) if version < 3 else blob, state.key_of)
        return pack_share(old, state.key_id, whole)

    state._all_keys()
    db = state.db
    try:
        logs = db.execute("SELECT rowid, figures FROM logs WHERE figures IS NOT NULL").fetchall()
        db.executemany("UPDATE logs SET figures = ? WHERE rowid = ?",
                       ((again(f), r) for r, f in logs))
        totals = db.execute("SELECT origin, tally FROM totals").fetchall()
        db.executemany("UPDATE totals SET tally = ? WHERE origin = ?",
                       ((again(t, whole=False), o) for o, t in totals))
    except (CodecError, zlib.error) as e:
        raise StateError(f"{state.path}: its tallies are damaged ({e})") from None
    unused = [j for j, k in state._keys.items() if isinstance(k, tuple) and (
        (k[0] == "repeat" and len(k) == 5) or (k[0] == "rows" and len(k) == 4)
        or (k[0] == "ordered" and len(k) == 5))]
    db.executemany("DELETE FROM keys WHERE id = ?", ((j,) for j in unused))
    for j in unused:
        del state._ids[state._keys.pop(j)]


__all__ = ["repack"]
