"""The archive audit as a monitor: ``tarneeb audit PATHS --state FILE``.

A run lists the archive as a full audit does, and for each log asks the state
(:mod:`~tarneeb.replay.archive.state`) what it knew: a log of the same size,
modification time, change time (``st_ctime``, which no program sets back: a log
rewritten with its modification time set back has a new one) and inode as when it was
read (under the same trust) is taken from the state. A log of the same size whose times
moved, or whose change time was too recent to tell a later change by (``RACY_NS``), or
every log with ``checksum``, is read and its SHA-256 compared: the same bytes are taken
from the state (``checked``). Any other is read and judged (with ``--jobs`` or
``--scheduler`` as a full audit), and one the state judged with other bytes is
**changed**: it gets a ``changed-log`` finding (kept in the state: a platform that
rewrites history stays flagged), unless it was not whole or not readable when judged
and the bytes judged then (before where its reader stopped) are the start of those judged
now: a log still being written when it was judged has **grown** (judged again, said, no
finding). Each match's first versions, by which a rewrite is found under any path, are
kept by :mod:`~tarneeb.replay.archive.changes`. The records, read or kept, are
put back together in the order of the listing (:mod:`~tarneeb.replay.archive.records`)
and folded as a full audit folds its chunks, so the verdict, the counts, the findings and ``--json``
are those of a full audit of every log.

With ``--no-stats`` a run keeps the logs' verdicts, findings and counts and tallies no
deal (the evidence stands still); a later run with the statistics reads them again. With
``--play`` each clean log's fair-play record (:class:`~tarneeb.replay.fairplay.MatchPlay`,
with the options it was analysed with) is kept too: a run analyses only logs new, changed
or not analysed before, and folds every record in the order of the listing.
The state knows each log by its absolute path
(:func:`~tarneeb.replay.archive.paths.absolute_path`), whatever directory a run is in. A
log the state knows that the listing no longer gives, or gives as a file that cannot be
read (a FIFO, a dangling link, not allowed), is **lost**: a finding naming it (exit 1,
``--skip-unreadable`` or not), run after run, unless ``--removed PATTERN`` (a glob on the
path, or the path: a pattern that is a path the state knows names that log alone, whatever
glob characters its name has) says it was removed on purpose; then it is reported as
removed and forgotten.

The evidence (:mod:`tarneeb.audit.fairness.anytime`) advances once per match, the first
time the state sees its log whole (a log that stops before its end record waits: it may
grow; a copy or another log of a match seen before adds nothing), so however often one
looks, the chance a fair archive is ever flagged stays at most ``alpha``."""

from __future__ import annotations

import collections
import datetime
import hashlib
import os
import time
from collections.abc import Generator, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tarneeb.audit.fairness import StatResult, Tally
from tarneeb.audit.fairness.anytime import Evidence, fixed_sample_only
from tarneeb.audit.fairness.codec import CodecError
from tarneeb.audit.seal import Sealer, SealKeyError
from tarneeb.replay.archive.audit import (
    CHUNK,
    ONE_JOB_CHUNK,
    ArchiveSummary,
    Chunk,
    FindingRow,
    run_chunks,
)
from tarneeb.replay.archive.changes import (
    CHANGED_KIND,
    Stamp,
    bytes_now,
    grew,
    note_versions,
    on_purpose,
    stat_of,
    versions,
    whole,
)
from tarneeb.replay.archive.paths import absolute_path, stored_path
from tarneeb.replay.archive.records import LogRecord, chunk_of, records_of, unfinished
from tarneeb.replay.archive.shares.columns import ShareSum
from tarneeb.replay.archive.state import Known, State, StateError
from tarneeb.replay.verify.trust import NOTHING, Trust

if TYPE_CHECKING:  # the fair-play analysis is loaded when asked for (--play)
    from tarneeb.replay.fairplay import MatchPlay, PlayOptions

LOST_KIND = "lost-log"
MONITOR_KINDS = {
    CHANGED_KIND: "the log's bytes differ from those the archive's state judged before: "
                  "it was judged again, and a log rewritten after the fact is a finding",
    LOST_KIND: "a log the archive's state judged before is not in the archive any more, "
               "or cannot be read (--removed says a log was removed on purpose)",
}


# a log whose modification or change time is this close to the run's start (or later) may
# change again within the same tick of the file system's clock (a few milliseconds;
# seconds on some network file systems) and keep its times: the next run checks its bytes
RACY_NS = 2_000_000_000

def settled(st: Stamp, began: int) -> int | None:
    """The change time a state keeps of a log stamped ``st`` in a run begun at ``began``
    (``time.time_ns()``): None when the log changed too close to it (``RACY_NS``), so that
    the next run checks its bytes."""
    return None if max(st[1], st[2]) >= began - RACY_NS and st[2] else st[2]


def _cwd() -> str | None:
    """The working directory (None: removed; paths are then kept as given)."""
    try:
        return os.getcwd()
    except OSError:
        return None


class Monitor:
    """One run of an audit with a state: :meth:`chunks` to fold with :meth:`fold`, then
    :meth:`finish`, which commits the state (or :meth:`close`, which leaves it as it was)."""

    def __init__(self, state_path: str, alpha: float, trust: Trust = NOTHING,
                 removed: Sequence[str] = (), stats: bool = True,
                 play: PlayOptions | None = None, tallies: bool = True,
                 checksum: bool = False, key_file: Path | None = None) -> None:
        try:  # the state key (default: the user's, made when missing)
            self.sealer = Sealer.of(state_path, key_file)
        except SealKeyError as e:
            raise StateError(str(e)) from None
        try:
            self.state = State(state_path, alpha, trust, self.sealer.key)
        except StateError as e:  # a state sealed before, and the key gone since: said
            if self.sealer.made is None:
                raise
            raise StateError(f"{e}; the state key {self.sealer.made} was missing, and a new "
                             "one was made just now") from None
        refused = self.sealer.set_back(state_path) if self.state.retrust == "no seal" else None
        if refused is not None:  # (format 6 or older, where a sealed run is noted)
            self.state.close()
            raise StateError(refused)
        # an older copy of the state put back: its last run noted, said (None: not older)
        self.older = self.sealer.older(self.state.run - 1, self.state.sealed)
        self.checksum = checksum  # every log's bytes checked, whatever its times say
        # whether the summary's tallies are made whole (the fixed-sample battery, the
        # report): else only the state's totals are, from its table and what changed
        self.tallies = tallies
        # a pattern is matched against the absolute paths as given and made absolute too
        cwd = _cwd()
        self.alpha, self.trust = alpha, trust
        self.removed_patterns = [(p, absolute_path(p, cwd)) for p in dict.fromkeys(removed)]
        self.stats, self.play = stats, play
        # what makes a kept fair-play record one this run would make (not the Monte Carlo
        # seed: each run draws its own, and a record kept is as good as a new one)
        self.play_key = None
        if play is not None:
            from tarneeb.replay.fairplay import ANALYSIS

            self.play_key = (play.samples, play.per_match, ANALYSIS)
        try:
            blob = self.state.evidence()
            self.evidence = Evidence.from_bytes(blob) if blob is not None else Evidence()
        except CodecError as e:
            self.state.close()
            raise StateError(f"{state_path}: its evidence is damaged ({e})") from None
        self.evidence.earlier = self._earlier_deals
        self._matches_before = self.evidence.matches
        self.listed: set[str] = set()
        # per chunk yielded and not folded yet, per row: its path, and whether its share
        # was left in the state
        self._rows: collections.deque[list[LogRecord]] = collections.deque()
        self._paths: collections.deque[list[str]] = collections.deque()
        self._counted: dict[str, bool] = {}  # the paths whose shares count now: kept or not
        self._minus: list[tuple[str, Tally]] = []  # counted shares of logs read again
        # without ``tallies``: per origin, the shares of the logs read now that count (the
        # chunks carry no tallies: the summary's are not made)
        self._added: dict[str, ShareSum] = {}
        self._put: set[str] = set()  # the logs written anew this run
        # waiting: the matches whose logs stop before their end record (advanced when whole)
        self.audited = self.kept = self.checked = self.waiting = 0
        self.rewritten = 0  # logs of a match whose first version had other bytes
        self._plan: list[tuple[str, Stamp | None, bool, Known | None]] = []
        self._digests: set[bytes] | None = None
        self.began = time.time_ns()
        self.grown: list[str] = []  # logs whose bytes judged before are the start of now's
        self.changed, self.lost, self.removed = list[str](), list[str](), list[str]()
        self._unread: set[str] = set()  # logs the state knew, listed now but not read

    def chunks(self, listed: Iterable[str], jobs: int | None = None, scheduler: Any = None,
               chunk_size: int = CHUNK) -> Iterator[Chunk]:
        """The archive's chunks, in the order of ``listed``: the logs the state knows as
        they were, taken from it; the others judged now."""
        # per log listed: its stamp now, whether it is taken from the state, what the
        # state knew of it
        plan: list[tuple[str, Stamp | None, bool, Known | None]] = []
        # the state knows each log by its absolute path: whatever the directory the run is
        # in, or however the archive is named
        cwd = _cwd()
        paths = [absolute_path(p, cwd) for p in listed]
        for j in range(0, len(paths), 500):  # what the state knows: a query 500 logs
            part = paths[j:j + 500]
            knew = self.state.known_as_of(part, self.play is not None)
            for path in part:
                if path in self.listed:  # the same path twice: a full audit reads it twice
                    plan.append((path, None, False, None))
                    continue
                self.listed.add(path)
                st, known = stat_of(path), knew.get(path)
                plan.append((path, st, self._keep(path, st, known), known))
        self._plan, self._digests = plan, None  # (the logs listed, for _present)
        # closed below, not left to the garbage collector: taken one log at a time, it never
        # runs to its end, and a Ctrl-C as it lets its worker pool go would be an exception
        # the collector prints and ignores (a traceback, and the run saved as if not stopped)
        judged = run_chunks((p for p, _, keep, _ in plan if not keep), self.trust, jobs,
                            scheduler, chunk_size, self.play, self.stats)
        fresh = (r for c in judged for r in records_of(c))
        if chunk_size == CHUNK:  # folded in larger chunks than the workers read: fewer
            chunk_size = ONE_JOB_CHUNK  # advances of the evidence, each over more matches
        batch: list[LogRecord] = []
        paths, sizes = [], []  # (sizes: of the bytes judged)
        kept: dict[str, LogRecord] = {}
        for i, (path, st, keep, known) in enumerate(plan):
            if not i % 500:  # the records of the logs kept: a query 500 logs
                kept = self.state.load_kept([p for p, _, k, _ in plan[i:i + 500] if k])
            if keep:  # its share stays in the state: the totals hold it
                record = kept[path]
                if self.play is not None:
                    record.play = self._kept_play(path)
                self.kept += 1
            else:
                record = next(fresh)
                self.audited += 1
                self._judged(path, st, record, known)
            batch.append(record)
            paths.append(path)
            sizes.append(record.size if record.size is not None  # (judged: set by _judged)
                         else known.size if known is not None else 0)
            if len(batch) == chunk_size:
                yield self._chunk(batch, paths, sizes)
                batch, paths, sizes = [], [], []
        if isinstance(judged, Generator):  # (a generator, declared an iterator)
            judged.close()
        if batch:
            yield self._chunk(batch, paths, sizes)

    def _present(self, digest: bytes) -> bool:
        """Whether a log of SHA-256 ``digest`` is listed now (as the state knew it; the set
        made when first asked: a log of a match with two versions is rare)."""
        if self._digests is None:
            self._digests = {k.digest for _, _, keep, k in self._plan  # (kept: the same
                             if keep and k is not None and k.digest is not None}  # bytes)
        return digest in self._digests

    def _chunk(self, batch: list[LogRecord], paths: list[str], sizes: list[int]) -> Chunk:
        """The chunk of ``batch`` (at ``paths``, of ``sizes`` bytes judged), kept to fold;
        the first versions of its matches kept, and a log of a match whose first version
        had other bytes given its finding (made again each run)."""
        first = note_versions(self.state, batch, paths, sizes, self.trust)
        self.rewritten += len(versions(batch, first, self._present))
        self._rows.append(batch)
        self._paths.append(paths)
        return chunk_of(batch, self.tallies)

    def _keep(self, path: str, st: Stamp | None, known: Known | None) -> bool:
        """Whether the log at ``path`` (stamped ``st``) is taken from the state, which knew
        it as ``known`` (None: not known): its stamp the same, or its bytes (a log of the
        same size whose times moved, or that changed too close to the run that read it,
        or with ``checksum``); the stamp kept then is now's."""
        if st is None or known is None or self.state.retrust or not self._read_enough(
                known.tallied, known.play) or st[0] != known.size:
            return False
        if not self.checksum and st[2] >= 0 and st[1:] == (known.mtime, known.ctime,
                                                            known.inode):
            return True
        data = bytes_now(path, self.trust)
        if known.digest is None or data is None or hashlib.sha256(data).digest() != known.digest:
            return False
        self.checked += 1
        ctime = settled(st, self.began)
        if (st[1], ctime, st[3]) != (known.mtime, known.ctime, known.inode):
            self.state.restamp(path, st[1], ctime, st[3])
        return True

    def _earlier_deals(self) -> Iterable[bytes]:
        """Every deal (its 20-byte value) the state's totals hold, each once (numpy arrays,
        :class:`~tarneeb.audit.fairness.anytime.recall.DealsSeen`): the hands seen before
        this run, for the near-repeats e-process (which keeps those it has seen, and takes
        them in whatever order), and the repeated deals' digests left out of its bytes."""
        return self.state.counted_deals()

    def _read_enough(self, tallied: bool, play_key: Any) -> bool:
        """Whether a log read so (its deals ``tallied``, its play analysed with the options
        ``play_key``) was read as this run reads: its deals tallied if this run tests them,
        its play analysed alike if this run analyses play."""
        return (tallied or not self.stats) and (self.play is None or play_key == self.play_key)

    def _kept_play(self, path: str) -> MatchPlay | None:
        from tarneeb.replay.fairplay import MatchPlay

        data = self.state.play(path)
        try:
            return None if data is None else MatchPlay.from_json(data)
        except ValueError as e:
            raise StateError(f"{self.state.path}: the fair-play record of {path} is damaged "
                             f"({e})") from None

    def _judged(self, path: str, st: Stamp | None, record: LogRecord,
                known: Known | None) -> None:
        """A log read now, which the state knew as ``known`` (None: not known): a change
        since the state judged it is a finding (and one found before stays); kept in the
        state unless it was not read at all."""
        if record.not_read or st is None:  # one the state judged is lost (finish)
            if known is not None:
                self._unread.add(path)
            return
        # the size of the bytes judged, which the digest is of (a log still being written
        # may have grown since it was listed: no change time kept, its bytes checked next)
        if record.size is None:
            record.size = st[0]
        size = record.size
        old: list[FindingRow] = []  # its changed-log findings
        if known is not None:
            before = self.state.load(path, share=False)
            if path in self._was_counted():  # its old share leaves the totals
                old_share = self.state.share(path)
                if old_share is not None:
                    self._minus.append(old_share)
            old = [f for f in before.findings if f.kind == CHANGED_KIND]
            before_digest, digest = known.digest, record.row.sha256
            if before_digest is not None and digest is not None \
                    and before_digest.hex() != digest:
                # a log being written when judged: not signed, or not readable, yet
                if not whole(before) and grew(path, before, known.size, before_digest,
                                              (size, digest), self.trust):
                    self.grown.append(path)
                else:
                    old.append(FindingRow(
                        path, CHANGED_KIND, "the log's bytes changed since the archive's "
                        f"state judged it (run {self._run_of(path)}): judged again as it is "
                        "now", None, None, None, None, None))
                    self.changed.append(path)
        if old:
            record.findings.extend(old)
            record.row.add_findings(len(old))
        play = None
        if self.play_key is not None:
            play = (self.play_key, None if record.play is None else record.play.to_json())
        self.state.put(path, (size, st[1], settled(st, self.began) if size == st[0] else None,
                              st[3]), record, self.stats, play)
        self._put.add(path)

    def _run_of(self, path: str) -> int:
        row = self.state.db.execute("SELECT run FROM logs WHERE path = ?",
                                    (stored_path(path),)).fetchone()
        return int(row[0]) if row else 0

    def _was_counted(self) -> set[str]:
        """The paths whose shares the state's totals held when the run began."""
        if self._old_counted is None:
            self._old_counted = self.state.counted()
        return self._old_counted

    _old_counted: set[str] | None = None

    def fold(self, summary: ArchiveSummary, chunk: Chunk) -> None:
        """Fold ``chunk`` into ``summary``; each match the state sees whole for the first
        time advances the evidence. The shares left in the state are added at the end
        (:meth:`settle`)."""
        self._was_counted()  # before any log read again is written anew
        records, paths = self._rows.popleft(), self._paths.popleft()
        summary.add(chunk)  # (the values drawn kept compactly, as a full audit keeps them)
        shares: list[Tally | None] = []
        identities: list[bytes] = []
        seen: set[bytes] = set()
        known = self.state.in_history_of(chunk.identities) if self.stats else set()
        for i, m in enumerate(chunk.matches):
            path, share_kept = paths[i], records[i].share_kept
            identity = chunk.identities[i]
            wait = m.duplicate is None and self.stats and identity is not None \
                and identity not in known and unfinished(records[i])
            self.waiting += wait
            if m.duplicate is not None or (records[i].share is None and not share_kept):
                continue
            self._counted[path] = share_kept
            fresh = records[i].share
            if not self.tallies and fresh is not None:
                self._added.setdefault(m.deals, ShareSum(totals=True)).add(
                    fresh, records[i].columns)
            if wait or not self.stats or identity is None or identity in seen \
                    or identity in known:
                continue
            seen.add(identity)
            if share_kept:  # the first log of its match now, not before (rare)
                found = self.state.share(path)
                shares.append(found[1] if found is not None else None)
            else:
                shares.append(records[i].share)
            identities.append(identity)
        if not shares:
            return
        # each test over the chunk's new matches at once, as one match at a time would
        # (numpy's: loaded by a run that has new matches)
        from tarneeb.audit.fairness.anytime.batch import advance_many

        first = self.evidence.matches
        try:
            after = advance_many(self.evidence, shares, self.alpha)
        except CodecError as e:  # the deals it saw, made again, are not those it saw
            raise StateError(f"{self.state.path}: its evidence is damaged ({e})") from None
        for k, (identity, log_e) in enumerate(zip(identities, after, strict=True)):
            self.state.add_history(identity, first + k + 1, log_e)

    def settle(self, summary: ArchiveSummary) -> None:
        """Add to ``summary``'s tallies the shares the state kept: its totals, less the
        shares that count no more (logs gone, read again, now a repeat), plus those of
        logs kept that count now and did not before. Without ``tallies`` the summary's
        are emptied, and the state's totals are its table with what changed (the values
        drawn and the keys of one match alone stay in the shares: none is read)."""
        totals = self.state.totals() if self.tallies else self.state.totals_table()
        for origin, added in self._added.items():
            added.add_to(totals.setdefault(origin, Tally()))
        old = self._was_counted()
        minus = list(self._minus)
        for path in old:
            if path not in self._counted and path not in self._put:
                found = self.state.share(path)
                if found is not None:
                    minus.append(found)
        plus = [found for path, kept in self._counted.items() if kept and path not in old
                if (found := self.state.share(path)) is not None]
        for origin, share in plus:
            totals.setdefault(origin, Tally()).merge(share)
        for origin, share in minus:
            _subtract(totals.setdefault(origin, Tally()), share)
        if self.tallies:  # (the run's new shares are in the summary's, from its chunks)
            for origin, t in totals.items():
                if t and summary.compact_repeats:  # (the values drawn as the chunks')
                    from tarneeb.replay.archive.battery.repeats import keep_repeats
                    t = keep_repeats(summary.repeats, origin, t)
                if t:
                    summary.tallies.setdefault(origin, Tally()).merge(t)
            totals = summary.tallies  # (those kept apart: none the totals keep)
        else:  # (they are in the totals, with the table)
            summary.tallies = {}
        now = set(self._counted)
        self.state.set_counted(old - now, False)
        self.state.set_counted(now - old, True)
        self.state.set_counted(now & old & self._put, True)  # written anew, uncounted
        self.state.set_totals(totals)

    def finish(self, summary: ArchiveSummary) -> None:
        """The tallies settled, the logs lost and removed, the evidence into ``summary``;
        the state saved (``summary.monitor["not_noted"]``: why its run was not noted)."""
        # a run that advanced no match, and changed no log counted, leaves the evidence's
        # bytes as they are (the deals left out of them made again by the next advance)
        same = (self.evidence.matches == self._matches_before and not self._put
                and self.evidence.read_version in (3, -3)
                and set(self._counted) == self._was_counted()
                and all(p in self.listed for p in self.state.paths() if self.listed))
        if not same:
            try:  # from the deals counted before this run: before settle changes them
                self.evidence.recover()
            except CodecError as e:
                raise StateError(f"{self.state.path}: its evidence is damaged ({e})") from None
        self.settle(summary)
        # an archive that lists nothing at all (a file system not mounted) loses and
        # removes nothing: the run ends on "no logs found"
        knew = list(self.state.paths()) if self.listed else []
        named = on_purpose(self.removed_patterns, knew)
        for path in knew:
            if path in self.listed and path not in self._unread:
                continue
            if named(path):
                self.removed.append(path)
                self.state.forget(path)
            else:
                self.lost.append(path)
        summary.lost = len(self.lost)
        if self.lost:
            summary.findings_by_kind[LOST_KIND] += len(self.lost)
        # --no-stats: no evidence, and no exit code 3, as a full audit without statistics
        summary.evidence = self.evidence.to_json(self.alpha) if self.stats else None
        summary.monitor = {
            "file": self.state.path, "run": self.state.run, "audited": self.audited,
            "kept": self.kept, "checked": self.checked, "changed": self.changed[:20],
            "changed_count": len(self.changed), "grown": self.grown[:20],
            "grown_count": len(self.grown), "waiting": self.waiting, "lost": self.lost[:20],
            "rewritten": self.rewritten,
            "removed": self.removed[:20], "removed_count": len(self.removed),
            # judged_again: why every log was (or None)
            "judged_again": self.state.retrust, "older_than_run": self.older,
            **({"run_noted_in": str(self.sealer.record)} if self.older else {})}
        # the deals the shares counted now keep are left out of the evidence's bytes:
        # the next run's _earlier_deals gives them back (the hands seen let go first)
        if not same:
            self.evidence.let_go()
            self.state.set_evidence(self.evidence.to_bytes(self.state.counted_deals(
                began=False)))
        at = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        summary.monitor["not_noted"] = self.sealer.note(self.state.run, self.state.commit(at, {
            "logs": summary.logs, "audited": self.audited, "changed": len(self.changed),
            "lost": len(self.lost), "removed": len(self.removed),
            "exit_code": summary.verdict_code(None)}))

    def history(self) -> list[float]:
        return self.state.history()

    def close(self) -> None:
        self.state.close()


def state_json(summary: ArchiveSummary, doc: dict[str, Any]) -> None:
    """The state's part of ``--json`` (``doc``, the summary's): the logs lost, what the run
    read, the evidence; ``bias_flagged`` becomes the evidence's (the tests with the most
    evidence, once it crossed) and this look's fixed-sample flags, when its battery ran
    (``--fixed-sample``), are reported apart."""
    doc["lost"] = summary.lost
    doc["state"] = summary.monitor
    doc["evidence"] = ev = summary.evidence
    if "bias_flagged" in doc:  # the battery was run (--fixed-sample): its flags apart
        doc["fixed_sample_flagged"] = doc["bias_flagged"]
    if ev is not None:
        doc["bias_flagged"] = ([f"evidence: {' '.join(map(str, t['test']))}"
                                for t in ev["strongest"]] if ev["flagged"] else [])


def note_fixed_sample_only(summary: ArchiveSummary, monitor: Monitor,
                           fairness: dict[str, list[StatResult]] | None) -> None:
    """Name in the evidence's part of the summary the tests of this look's fixed-sample
    battery that the continuous evidence does not cover (``fixed_sample_only``): a test
    the battery gains with no e-process is said, never silently absent. ``fairness``
    None: the battery was not run this time (``--fixed-sample`` runs it), said as None."""
    if summary.evidence is None:
        return
    if fairness is None:
        summary.evidence["fixed_sample_only"] = None
        return
    tests = list(dict.fromkeys(r.test for rs in fairness.values() for r in rs))
    summary.evidence["fixed_sample_only"] = [
        list(t) for t in fixed_sample_only(tests, monitor.evidence)]


def _subtract(total: Tally, share: Tally) -> None:
    """``total`` less ``share`` (whose observations it holds); counts that reach 0 go."""
    for mine, theirs in ((total.counts, share.counts), (total.sums, share.sums)):
        for k, v in theirs.items():
            left = mine[k] - v
            if left:
                mine[k] = left
            else:
                del mine[k]


__all__ = [
    "CHANGED_KIND",
    "LOST_KIND",
    "MONITOR_KINDS",
    "RACY_NS",
    "Monitor",
    "bytes_now",
    "grew",
    "note_fixed_sample_only",
    "settled",
    "stat_of",
    "state_json",
]
