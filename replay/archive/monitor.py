"""The archive audit as a monitor: ``tarneeb audit PATHS --state FILE``.

A run lists the archive as a full audit does, and for each log asks the state
(:mod:`~tarneeb.replay.archive.state`) what it knew: a log of the same size and
modification time as when it was read (under the same trust) is taken from the state;
any other is read and judged (with ``--jobs`` or ``--scheduler`` as a full audit), and
its content digest tells a log that was only touched from one **changed** since it
was judged, which gets a ``changed-log`` finding (kept in the state: a platform that
rewrites history stays flagged). The records, read or kept, are put back together
in the order of the listing (:mod:`~tarneeb.replay.archive.records`) and folded as a
full audit folds its chunks, so the verdict, the counts, the findings and ``--json``
are those of a full audit of every log.

A log the state knows that the listing no longer gives is **lost**: a finding naming it
(exit 1), run after run, unless ``--removed PATTERN`` (a glob on the path, or the path)
says it was removed on purpose; then it is reported as removed and forgotten.

The evidence (:mod:`tarneeb.audit.fairness.anytime`) advances once per match, the first
time the state sees the match (a copy or another log of a match seen before adds
nothing), so however often one looks, the chance a fair archive is ever flagged stays
at most ``alpha``.
"""

from __future__ import annotations

import datetime
import fnmatch
import hashlib
import os
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from tarneeb.audit.fairness.anytime import Evidence
from tarneeb.audit.fairness.codec import CodecError
from tarneeb.replay.archive.audit import CHUNK, ArchiveSummary, Chunk, FindingRow, run_chunks
from tarneeb.replay.archive.records import LogRecord, chunk_of, records_of, share_of
from tarneeb.replay.archive.state import State, StateError
from tarneeb.replay.verify.trust import NOTHING, Trust

CHANGED_KIND = "changed-log"
LOST_KIND = "lost-log"
MONITOR_KINDS = {
    CHANGED_KIND: "the log's bytes differ from those the archive's state judged before: "
                  "it was judged again, and a log rewritten after the fact is a finding",
    LOST_KIND: "a log the archive's state judged before is not in the archive any more "
               "(--removed says a log was removed on purpose)",
}


def stat_of(path: str) -> tuple[int, int] | None:
    """A log's size and modification time (nanoseconds; for a URL, a number made from
    the object's version tag or time), or None when it cannot be asked."""
    if "://" in path:
        try:
            import fsspec

            fs, p = fsspec.core.url_to_fs(path)
            info = fs.info(p)
        except (ImportError, OSError, ValueError):
            return None
        tag = next((str(info[k]) for k in ("ETag", "etag", "mtime", "LastModified",
                                           "last_modified", "updated", "created")
                    if info.get(k) is not None), "")
        return int(info.get("size") or 0), int.from_bytes(
            hashlib.sha256(tag.encode()).digest()[:7], "big")
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


class Monitor:
    """One run of an audit with a state: :meth:`chunks` to fold with :meth:`fold`, then
    :meth:`finish`, which commits the state (or :meth:`close`, which leaves it as it was)."""

    def __init__(self, state_path: str, alpha: float, trust: Trust = NOTHING,
                 removed: Sequence[str] = ()) -> None:
        self.state = State(state_path, alpha, trust)
        self.alpha, self.trust, self.removed_patterns = alpha, trust, list(removed)
        try:
            blob = self.state.evidence()
            self.evidence = Evidence.from_bytes(blob) if blob is not None else Evidence()
        except CodecError as e:
            self.state.close()
            raise StateError(f"{state_path}: its evidence is damaged ({e})") from None
        self.listed: set[str] = set()
        self.audited = self.kept = 0
        self.changed: list[str] = []
        self.lost: list[str] = []
        self.removed: list[str] = []

    def chunks(self, listed: Iterable[str], jobs: int | None = None, scheduler: Any = None,
               chunk_size: int = CHUNK) -> Iterator[Chunk]:
        """The archive's chunks, in the order of ``listed``: the logs the state knows as
        they were, taken from it; the others judged now."""
        plan: list[tuple[str, tuple[int, int] | None, bool]] = []
        for path in listed:
            if path in self.listed:  # the same path twice: a full audit reads it twice
                plan.append((path, None, False))
                continue
            self.listed.add(path)
            st = stat_of(path)
            known = self.state.known(path)
            keep = (st is not None and known is not None and not self.state.retrust
                    and (st[0], st[1]) == known[:2])
            plan.append((path, st, keep))
        fresh = (r for c in run_chunks((p for p, _, keep in plan if not keep), self.trust, jobs,
                                       scheduler, chunk_size) for r in records_of(c))
        batch: list[LogRecord] = []
        for path, st, keep in plan:
            if keep:
                record = self.state.load(path)
                self.kept += 1
            else:
                record = next(fresh)
                self.audited += 1
                self._judged(path, st, record)
            batch.append(record)
            if len(batch) == chunk_size:
                yield chunk_of(batch)
                batch = []
        if batch:
            yield chunk_of(batch)

    def _judged(self, path: str, st: tuple[int, int] | None, record: LogRecord) -> None:
        """A log read now: a change since the state judged it is a finding (and one found
        before stays); kept in the state unless it was not read at all."""
        if record.not_read or st is None:
            return
        known = self.state.known(path)
        if known is not None:
            before = self.state.load(path)
            old = [f for f in before.findings if f.kind == CHANGED_KIND]
            digest = record.row.sha256
            if known[2] is not None and digest is not None and known[2].hex() != digest:
                old.append(FindingRow(path, CHANGED_KIND, "the log's bytes changed since the "
                                      f"archive's state judged it (run {self._run_of(path)}): "
                                      "judged again as it is now", None, None, None, None,
                                      None))
                self.changed.append(path)
            if old:
                record.findings.extend(old)
                record.row.add_findings(len(old))
        self.state.put(path, st[0], st[1], record)

    def _run_of(self, path: str) -> int:
        row = self.state.db.execute("SELECT run FROM logs WHERE path = ?", (path,)).fetchone()
        return int(row[0]) if row else 0

    def fold(self, summary: ArchiveSummary, chunk: Chunk) -> None:
        """Fold ``chunk`` into ``summary``; each match the state sees for the first time
        advances the evidence."""
        summary.add(chunk)
        for i, m in enumerate(chunk.matches):
            identity = chunk.identities[i]
            if m.duplicate is not None or identity is None or chunk.shares[i] is None:
                continue
            if self.state.in_history(identity):
                continue
            share = records_of_share(chunk, i)
            self.state.add_history(identity, self.evidence.advance(share, self.alpha))

    def finish(self, summary: ArchiveSummary) -> None:
        """The logs lost and removed, the evidence into ``summary``; the state saved."""
        for path in self.state.paths():
            if path in self.listed:
                continue
            if any(fnmatch.fnmatchcase(path, p) or path == p for p in self.removed_patterns):
                self.removed.append(path)
                self.state.forget(path)
            else:
                self.lost.append(path)
        summary.lost = len(self.lost)
        if self.lost:
            summary.findings_by_kind[LOST_KIND] += len(self.lost)
        summary.evidence = self.evidence.to_json(self.alpha)
        summary.monitor = {
            "file": self.state.path, "run": self.state.run, "audited": self.audited,
            "kept": self.kept, "changed": self.changed[:20], "changed_count": len(self.changed),
            "lost": self.lost[:20], "removed": self.removed[:20],
            "removed_count": len(self.removed)}
        self.state.set_evidence(self.evidence.to_bytes())
        at = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        self.state.commit(at, {"logs": summary.logs, "audited": self.audited,
                               "changed": len(self.changed), "lost": len(self.lost),
                               "removed": len(self.removed),
                               "exit_code": summary.verdict_code(None)})

    def history(self) -> list[float]:
        return self.state.history()

    def close(self) -> None:
        self.state.close()


def records_of_share(chunk: Chunk, i: int) -> Any:
    """Row ``i``'s own share of ``chunk``'s tally (the difference of its snapshots)."""
    m = chunk.matches[i]
    before = next((chunk.shares[j] for j in range(i - 1, -1, -1)
                   if chunk.shares[j] is not None and chunk.matches[j].deals == m.deals), None)
    t = chunk.tallies[m.deals]
    return share_of((list(t.counts), list(t.sums)), chunk.shares[i], before)


__all__ = ["CHANGED_KIND", "LOST_KIND", "MONITOR_KINDS", "Monitor", "stat_of"]
