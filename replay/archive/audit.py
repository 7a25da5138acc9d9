"""The archive audit: every log of an archive verified, summed up in one verdict.

The work is cut into chunks of logs. Each chunk is verified where it runs (this
process, a pool of local processes, or the workers of a Dask cluster) and comes
back small: one row per log, one per finding, and the fairness tallies of its
deals (integer counts, :class:`~tarneeb.audit.fairness.Tally`, with a snapshot after
each match). The caller folds each chunk into an :class:`ArchiveSummary` and drops
it, so memory grows with the archive only by what counts each match once (two
digests, five bytes and a path a match, :mod:`~tarneeb.replay.archive.seen`); chunks come back
in the order the paths were given, so every way of running gives the same rows in
the same order and the same summary.

>>> import tempfile, pathlib
>>> from tarneeb.replay.server.simulate import play_logged_match
>>> d = pathlib.Path(tempfile.mkdtemp())
>>> for i in range(3):
...     _ = (d / f"m{i}.tlog").write_bytes(play_logged_match("qahwa41", seed=b"arch%d" % i))
>>> summary = ArchiveSummary()
>>> for chunk in run_chunks(expand_paths([str(d)]), jobs=1):
...     summary.add(chunk)
>>> summary.logs, summary.clean, summary.deals["proven"] > 0, summary.exit_code
(3, 3, True, 0)
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any

from tarneeb.audit.fairness import DEFAULT_ALPHA, DEFAULT_POWER, StatResult, Tally
from tarneeb.audit.fairness.correction import family_weights
from tarneeb.audit.fairness.tests import bias_flagged, describe_test
from tarneeb.replay.archive.battery.covered import not_tested_apart, uncovered
from tarneeb.replay.archive.battery.measures import ORIGINS, fairness_results, tally_match
from tarneeb.replay.archive.claims import Claim, Claims, claim_from, claim_message, claim_of
from tarneeb.replay.archive.endings import Abandonments, Ending, ending_of
from tarneeb.replay.archive.paths import (
    ArchiveError,
    AuditFault,
    expand_paths,
    listing_error,
    read_url,
    whole_file,
)
from tarneeb.replay.archive.run import chunks_of, run_dask, run_pool
from tarneeb.replay.archive.seen import (
    COPY,
    FindingRow,
    Repeat,
    Seen,
    Snapshot,
    archive_row,
    conflict_message,
    conflict_row,
    content_digest,
    copied,
    copy_finding,
    first_log_finding,
    match_identity,
    snapshot,
    without,
)
from tarneeb.replay.log import LogError, parse_log
from tarneeb.replay.verify.compiled import confirm
from tarneeb.replay.verify.ending import stopped_at
from tarneeb.replay.verify.replayer import verify_file, verify_log
from tarneeb.replay.verify.trust import NOTHING, Trust

if TYPE_CHECKING:  # the fair-play analysis is loaded when asked for (--play)
    from tarneeb.replay.fairplay import MatchPlay, PlayOptions

CHUNK = 32  # logs per unit of work
ONE_JOB_CHUNK = 128  # logs per chunk when the audit runs in this process alone
SIGNATURE_KINDS = frozenset({"broken-signature", "unsigned", "key-mismatch", "weak-key"})
# of those, the findings that say the signature does not verify under the key it was
# checked against (a key-mismatch alone: it verifies, under a key the user did not pin)
NOT_VERIFIED = frozenset({"broken-signature", "unsigned", "weak-key"})


# ------------------------------------------------------------------ one chunk --

@dataclass
class MatchRow:
    """One row of the per-match table: one log."""

    path: str
    verdict: str  # clean, findings, unreadable
    error: str | None
    rules: str | None
    key_id: str | None  # the key the signature was checked against (None: no key)
    platform: str | None  # the platform the user's keys name for that key
    key_pinned: bool  # that key was given by the user (--key, --keys), not taken from the log
    deals: str  # proven, recorded, none
    hands: int  # dealing attempts
    played: int
    findings: int
    computer_seats: int
    human_seats: int
    sha256: str | None = None  # of the log's bytes (None: not read)
    match_id: str | None = None  # the header's, in hex
    duplicate: str | None = None  # copy, conflicting (None: the first log of its match)
    duplicate_of: str | None = None  # the first log of its match, when it is not

    def add_findings(self, n: int) -> None:
        """Count ``n`` more findings on this log, which then is clean no more."""
        self.findings += n
        if self.verdict == "clean":
            self.verdict = "findings"


@dataclass
class Chunk:
    """What the audit of some logs sends back: rows and the tallies of their deals.

    ``identities`` (per match row: what makes it the same match as another log, see
    :mod:`~tarneeb.replay.archive.seen`) and ``shares`` (per match row: a snapshot of
    its origin's tally after its deals, None when it has none) let the summary count
    each match once."""

    matches: list[MatchRow] = field(default_factory=list)
    findings: list[FindingRow] = field(default_factory=list)
    tallies: dict[str, Tally] = field(default_factory=dict)
    unpinned: int = 0  # logs read, signed by a key the user did not pin
    identities: list[bytes | None] = field(default_factory=list)
    shares: list[Snapshot | None] = field(default_factory=list)
    not_read: list[int] = field(default_factory=list)  # rows of files not read at all
    claims: list[Claim | None] = field(default_factory=list)  # per match row (None: no header)
    endings: list[Ending | None] = field(default_factory=list)  # per row: its abandonment
    unpinned_rows: list[bool] = field(default_factory=list)  # per row: in ``unpinned``
    play: list[MatchPlay | None] = field(default_factory=list)  # per row, with --play
    # per row: how many bytes were read and judged (None: not read whole); a log still
    # being written may have grown since it was listed; and of a log not whole, the SHA-256
    # of those before where its reader stopped (``stopped_at``: what it says so far)
    sizes: list[int | None] = field(default_factory=list)
    starts: list[bytes | None] = field(default_factory=list)


def audit_chunk(paths: Sequence[str], trust: Trust = NOTHING,
                play: PlayOptions | None = None, stats: bool = True) -> Chunk:
    """Verify the logs at ``paths`` against what the user trusts (:class:`Trust`: a
    pinned key or keys file, the season root, receipts, the caps), as ``verify`` does,
    and tally their deals unless ``stats`` is false (runs on a worker: ``trust`` travels
    to it whole); with ``play``, analyse the card play of each clean log
    (:mod:`tarneeb.replay.fairplay`)."""
    out = Chunk()
    chunk_tallies = _chunk_tallies() if stats else None  # None: match by match
    for path in paths:
        identity = data = claim = ending = None
        limits = trust.limits
        try:
            data = read_url(path, limits) if "://" in path else whole_file(path, limits)
        except OSError as e:  # not read at all: gone, not allowed, not a regular file
            out.not_read.append(len(out.matches))
            _unreadable(out, path, f"{path}: cannot read: {e.strerror or e}")
            continue
        confirmed = confirm(data, path, trust) if data is not None else None
        if confirmed is not None:  # clean, confirmed by the compiled core
            v, log, totals = confirmed
            identity = match_identity(log.header)
            claim = claim_from(log.header, log.end, totals)
        elif data is None:
            v = verify_file(path, trust)
        else:
            try:
                log = parse_log(data, path, trust.limits)
            except LogError as e:
                _unreadable(out, path, str(e), content_digest(data), len(data))
                continue
            v = verify_log(log, path, trust)
            identity = match_identity(log.header)
            claim = claim_of(log)
            ending = ending_of(log)
        verdict = "unreadable" if v.error else ("clean" if v.clean else "findings")
        unpinned = v.error is None and not v.key_pinned and v.signature_verified
        out.unpinned += unpinned  # signed by a key named in the log itself: a log not signed is not
        deals = "none"
        share = None
        if v.history and v.error is None:
            # proven: every seed matched its commitment, and the platform's signature
            # ties those commitments to it; anything less counts as recorded
            signed = v.signature_verified and not any(f.kind in SIGNATURE_KINDS
                                                      for f in v.findings)
            deals = "proven" if v.deals_proven and signed else "recorded"
        if v.history and v.error is None and stats:
            tally = out.tallies.setdefault(deals, Tally())
            group = v.signer if v.key_pinned and v.signer is not None else v.key_id
            batch = log.header.batch if data is not None else None  # its season leaf
            leaf = None if batch is None else (batch.root, batch.index)
            if chunk_tallies is not None:  # with the chunk's other matches, at its end
                chunk_tallies.add(len(out.matches), deals, v, group, leaf)
            elif tally_match(tally, v.rules, v.computer, group, v.history, v.names, leaf):
                share = snapshot(tally)
        computers = sum(v.computer)
        out.matches.append(MatchRow(
            path, verdict, v.error, v.rules.name if v.rules is not None else None, v.key_id,
            v.signer, v.key_pinned, deals, v.hands, v.played, len(v.findings), computers,
            len(v.computer) - computers, content_digest(data).hex() if data else None,
            None if identity is None else log.header.match_id.hex()))
        out.sizes.append(None if data is None else len(data))
        cut = None if data is None else stopped_at(v.findings, len(data))
        out.starts.append(None if cut is None or data is None else content_digest(data[:cut]))
        out.identities.append(identity)
        out.claims.append(claim)
        out.endings.append(ending)
        out.shares.append(share)
        out.unpinned_rows.append(unpinned)
        if play is not None:
            from tarneeb.replay.fairplay import analyse_match

            out.play.append(analyse_match(path, content_digest(data), v.history, v.names,
                                          v.computer, v.rules.reveals_card, play)
                            if verdict == "clean" and data is not None else None)
        out.findings.extend(FindingRow(path, f.kind, f.message, f.hand, f.trick, f.seat, f.card,
                                       f.offset) for f in v.findings)
    if chunk_tallies is not None:
        chunk_tallies.finish(out.tallies, out.shares)
    return out


def _chunk_tallies() -> Any:
    """A chunk's tallies made at once with numpy (:mod:`~tarneeb.replay.archive.battery.columns`),
    or None without numpy (the archive extra): match by match (``tally_match``)."""
    try:
        from tarneeb.replay.archive.battery.columns import ChunkTallies
    except ImportError:  # pragma: no cover - numpy not installed
        return None
    return ChunkTallies()


def _unreadable(out: Chunk, path: str, error: str, digest: bytes | None = None,
                size: int | None = None) -> None:
    out.matches.append(MatchRow(path, "unreadable", error, None, None, None, False, "none",
                                0, 0, 0, 0, 0, digest.hex() if digest else None))
    out.sizes.append(size)
    out.starts.append(None)
    out.identities.append(None)
    out.claims.append(None)
    out.endings.append(None)
    out.shares.append(None)
    out.unpinned_rows.append(False)
    out.play.append(None)


# ------------------------------------------------------------------ running --

def run_chunks(paths: Iterable[str], trust: Trust = NOTHING, jobs: int | None = None,
               scheduler: Any = None, chunk_size: int = CHUNK,
               play: PlayOptions | None = None, stats: bool = True) -> Iterator[Chunk]:
    """Audit ``paths`` chunk by chunk, in order, against ``trust`` (:func:`audit_chunk`;
    ``stats`` false: no deal is tallied).

    ``jobs``: local processes (default: every core; 1 runs in this process).
    ``scheduler``: a Dask scheduler address (``tcp://host:8786``) or a
    ``distributed.Client``; the logs must be readable from the workers (a shared
    file system, or URLs of an object store they can reach). A worker lost for good
    raises :class:`AuditFault` (:mod:`~tarneeb.replay.archive.run`). ``play``: analyse
    the card play too, where the logs are audited.
    """
    jobs = jobs or os.cpu_count() or 1
    if scheduler is None and jobs == 1 and chunk_size == CHUNK:
        chunk_size = ONE_JOB_CHUNK  # in this process: the tallies' cost per chunk, fewer times
    chunks = chunks_of(paths, chunk_size)
    if scheduler is not None:
        yield from run_dask(audit_chunk, chunks, scheduler, (trust, play, stats))
        return
    if jobs == 1:
        for c in chunks:
            yield audit_chunk(c, trust, play, stats)
        return
    yield from run_pool(audit_chunk, chunks, jobs, (trust, play, stats))


# ------------------------------------------------------------------ the summary --

# an earlier log a later one gives a finding: its path, its copies read so far, whether it
# was clean till then, and the finding
_Earlier = tuple[str, int, bool, FindingRow]

MAX_LISTED = 20  # logs named in the summary per category (the tables have them all)
MAX_FINDINGS = 200  # findings kept for the report (the findings table has them all)
# the exit code of an audit whose logs are all readable and clean but whose deals show
# evidence of bias (0, 1 and 2 mean what they mean for verify: clean, findings, unreadable)
EXIT_BIAS = 3


@dataclass
class ArchiveSummary:
    """Counts over the whole archive; :meth:`add` folds in one chunk at a time.

    ``logs``, ``clean``, ``with_findings``, ``unreadable`` and the findings count every
    log read; the counts of matches (by rules, by key, deals, hands played) and the
    fairness tallies count each match once (``copies`` and ``conflicting`` logs left
    out, see :mod:`~tarneeb.replay.archive.seen`).

    A conflicting log's match has two logs, and both get a ``conflicting-log`` finding:
    the later one on its row as it is folded, the first one (whose row may have been
    folded and written long before) in the counts here at once, and on its rows by a
    pass at the end over ``conflicts`` (first log -> the later logs of its match), which
    :meth:`~tarneeb.replay.archive.tables.TableWriter.close` makes over the tables."""

    logs: int = 0
    clean: int = 0
    with_findings: int = 0
    unreadable: int = 0
    findings_by_kind: Counter[str] = field(default_factory=Counter)
    by_rules: Counter[str] = field(default_factory=Counter)
    by_key: Counter[str] = field(default_factory=Counter)
    deals: Counter[str] = field(default_factory=Counter)  # dealing attempts by origin
    matches_by_origin: Counter[str] = field(default_factory=Counter)
    # of those, the dealing attempts and matches of logs with a signature finding: not
    # shown to be the platform's at all
    deals_unsigned: int = 0
    matches_unsigned: int = 0
    played: int = 0
    first_unreadable: list[str] = field(default_factory=list)
    first_with_findings: list[str] = field(default_factory=list)
    first_findings: list[FindingRow] = field(default_factory=list)
    tallies: dict[str, Tally] = field(default_factory=dict)
    unpinned: int = 0  # logs read whose signing key was not pinned: anyone could make them
    # per key id: the platform the user's keys name for it, and whether it was pinned
    signers: dict[str, tuple[str | None, bool]] = field(default_factory=dict)
    copies: int = 0  # logs with the same bytes as a log read before
    conflicting: int = 0  # logs of a match read before, with other bytes (a finding)
    first_repeats: list[Repeat] = field(default_factory=list)
    conflicts: dict[str, list[str]] = field(default_factory=dict)
    not_read: int = 0  # of the unreadable: files not read at all (gone, not allowed, special)
    unlisted: int = 0  # directories that could not be listed: their logs are not here
    first_unlisted: list[str] = field(default_factory=list)
    # files not read and directories not listed leave the exit code as the rest makes it
    # (--skip-unreadable); they are counted and named all the same
    skip_unreadable: bool = False
    stopped: str | None = None  # why the audit stopped part way (None: it ran to the end)
    # per earlier log (its path): the findings later logs gave it (a season leaf, a match
    # id or an outcome two matches share), for the tables' pass at the end, as conflicts
    amends: dict[str, list[FindingRow]] = field(default_factory=dict)
    abandoned: Abandonments = field(default_factory=Abandonments)  # each match once
    # with a state (replay/archive/monitor.py): logs gone, the evidence, the run's figures
    lost: int = 0
    evidence: dict[str, Any] | None = None
    monitor: dict[str, Any] | None = None
    seen: Seen = field(default_factory=Seen, repr=False, compare=False)
    claims: Claims = field(default_factory=Claims, repr=False, compare=False)
    # per origin, the values the repeat tests count, out of the tallies and kept compactly
    # (replay/archive/battery/repeats.py; not with a state, which keeps its tallies whole)
    repeats: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    compact_repeats: bool = field(default=True, repr=False, compare=False)

    def add(self, chunk: Chunk) -> None:
        """Fold in ``chunk``. A log that repeats a match already read is marked on its row
        (``duplicate``, ``duplicate_of``; a conflicting one gets its finding, in
        ``chunk.findings`` too), so tables written from the chunk after this say so."""
        self.unpinned += chunk.unpinned
        flagged, earlier = self._mark_repeats(chunk)
        # a repeated match's deals are counted already: its share of the chunk's tally
        # (the snapshots after it and before it) is left out
        repeats: dict[str, list[tuple[Snapshot, Snapshot | None]]] = {
            o: [] for o in chunk.tallies}
        before: dict[str, Snapshot] = {}  # per origin, the snapshot after the last match
        for m, after in zip(chunk.matches, chunk.shares, strict=True):
            if after is not None:
                if m.duplicate is not None:
                    repeats[m.deals].append((after, before.get(m.deals)))
                before[m.deals] = after
        for origin, t in chunk.tallies.items():
            share = without(t, repeats[origin])
            if self.compact_repeats:  # numpy (the archive extra) keeps them compactly
                try:
                    from tarneeb.replay.archive.battery.repeats import keep_repeats
                except ImportError:  # pragma: no cover
                    self.compact_repeats = False
                else:  # taken out before the merge: the summary's tally never holds them
                    share = keep_repeats(self.repeats, origin, share)
            self.tallies.setdefault(origin, Tally()).merge(share)
        self.not_read += len(chunk.not_read)
        pos = 0  # each log's finding rows are together, in the order of the logs
        for i, m in enumerate(chunk.matches):
            self.logs += 1
            if m.verdict == "clean":
                self.clean += 1
            elif m.verdict == "findings":
                self.with_findings += 1
                if len(self.first_with_findings) < MAX_LISTED:
                    self.first_with_findings.append(m.path)
            else:
                self.unreadable += 1
                if len(self.first_unreadable) < MAX_LISTED:
                    self.first_unreadable.append(m.error or m.path)
            # a signature finding: the log is not shown to be signed by the platform's key;
            # one of NOT_VERIFIED: not by the key it was checked against either (one the
            # user pinned, or the one it names)
            kinds = set()
            for f in chunk.findings[pos:pos + m.findings]:
                self._count_finding(f)
                kinds.add(f.kind)
            pos += m.findings
            unsigned = not kinds.isdisjoint(SIGNATURE_KINDS)
            if i in flagged:  # right after it, whatever chunk each log came in
                self._flag_first(flagged[i], m.path)
            for path, copies, was_clean, row in earlier.get(i, ()):
                self._flag_earlier(path, copies, was_clean, row)
            if m.duplicate is not None:  # the match is counted already
                continue
            if m.verdict != "unreadable" or m.rules is not None:
                self.by_rules[m.rules or "unknown"] += 1
                key = None if not kinds.isdisjoint(NOT_VERIFIED) else m.key_id
                self.by_key[key or "no verified signature"] += 1
                if key is not None:
                    self.signers[key] = (m.platform, m.key_pinned)
            ending = chunk.endings[i] if chunk.endings else None
            if ending is not None:
                self.abandoned.add(ending)
            if m.deals != "none":
                self.deals[m.deals] += m.hands
                self.matches_by_origin[m.deals] += 1
                if unsigned:
                    self.deals_unsigned += m.hands
                    self.matches_unsigned += 1
            self.played += m.played

    def add_unlisted(self, error: OSError) -> None:
        """Count a directory that could not be listed (``error`` names it): the logs in it
        are not in the audit, which says so (for :func:`expand_paths`'s ``onerror``)."""
        self.unlisted += 1
        if len(self.first_unlisted) < MAX_LISTED:
            self.first_unlisted.append(listing_error(error))

    def _count_finding(self, f: FindingRow) -> None:
        self.findings_by_kind[f.kind] += 1
        if len(self.first_findings) < MAX_FINDINGS:
            self.first_findings.append(f)

    def _flag_first(self, first: tuple[str, int, bool], later: str) -> None:
        """The first log of a match, and the copies of it read so far, get a finding for a
        later log in conflict with it (their rows, maybe written already, are amended at
        the end from ``conflicts``; the copies' paths are not kept, so only counted)."""
        path, copies, was_clean = first
        self._flag_earlier(path, copies, was_clean, first_log_finding(path, later))

    def _flag_earlier(self, path: str, copies: int, was_clean: bool, row: FindingRow) -> None:
        """The finding ``row`` on the first log of a match read before, at ``path``, and on
        the ``copies`` of it read so far (counted only: their paths are not kept)."""
        self._count_finding(row)
        self.findings_by_kind[row.kind] += copies
        if was_clean:  # a copy's verdict is its first log's: the same bytes, replayed alike
            self.clean -= 1 + copies
            self.with_findings += 1 + copies
            if len(self.first_with_findings) < MAX_LISTED:
                self.first_with_findings.append(path)

    def _mark_repeats(self, chunk: Chunk) -> tuple[dict[int, tuple[str, int, bool]],
                                                    dict[int, list[_Earlier]]]:
        """Mark the chunk's repeats; per conflicting log (by index), the first log of its
        match, the copies of it read so far and whether they were clean till now; per log
        that shares a leaf, a match id or an outcome with a match read before
        (:mod:`~tarneeb.replay.archive.claims`), the same of that match's first log, and
        its finding. A copy of a first log so flagged gets its findings at once."""
        added: dict[int, list[FindingRow]] = {}
        flagged: dict[int, tuple[str, int, bool]] = {}
        earlier: dict[int, list[_Earlier]] = {}
        for i, m in enumerate(chunk.matches):
            digest = bytes.fromhex(m.sha256) if m.sha256 is not None else None
            identity = chunk.identities[i]
            repeat = self.seen.check(identity, digest, m.path, clean=m.verdict == "clean")
            claim = chunk.claims[i] if chunk.claims else None
            if identity is not None and claim is not None:
                for kind, other in self.claims.check(identity, claim):
                    path, copies, was_clean = self.seen.flag(other)
                    row = archive_row(path, kind, claim_message(kind, m.path, earlier=True))
                    self.amends.setdefault(path, []).append(row)
                    earlier.setdefault(i, []).append((path, copies, was_clean, row))
                    added.setdefault(i, []).append(
                        archive_row(m.path, kind, claim_message(kind, path, earlier=False)))
            if repeat is None:
                if i in added:
                    m.add_findings(len(added[i]))
                continue
            kind, first, copies, was_clean = repeat
            m.duplicate, m.duplicate_of = kind, first
            if m.duplicate == COPY:
                self.copies += 1
                added[i] = ([copy_finding(m.path, first, later)
                             for later in self.conflicts.get(first, ())]
                            + [copied(r, m.path, first) for r in self.amends.get(first, ())])
            else:
                self.conflicting += 1
                added[i] = [conflict_row(m.path, conflict_message(first)), *added.get(i, ())]
                self.conflicts.setdefault(first, []).append(m.path)
                flagged[i] = (first, copies, was_clean)
            if added[i]:
                m.add_findings(len(added[i]))
            if len(self.first_repeats) < MAX_LISTED:
                self.first_repeats.append(Repeat(m.path, kind, first))
        if any(added.values()):  # each log's finding rows stay together, in log order
            rows: list[FindingRow] = []
            pos = 0
            for i, m in enumerate(chunk.matches):
                extra = added.get(i, [])
                n = m.findings - len(extra)
                rows.extend(chunk.findings[pos:pos + n])
                pos += n
                rows.extend(extra)
            chunk.findings = rows
        return flagged, earlier

    @property
    def exit_code(self) -> int:
        """The logs' part of the exit code: 2 a log unreadable (a file not read at all, or a
        directory not listed, too, unless ``skip_unreadable``), 1 findings, 0 every log
        clean (:meth:`verdict_code` adds the statistics')."""
        if self.unreadable > self.not_read or self.stopped:  # bytes not a log: never skipped
            return 2
        if (self.not_read or self.unlisted) and not self.skip_unreadable:
            return 2
        return 1 if self.with_findings or self.lost else 0

    def verdict_code(self, fairness: dict[str, list[StatResult]] | None) -> int:
        """The audit's exit code: the logs' (:attr:`exit_code`) when a log is unreadable
        (2) or has findings (1); else ``EXIT_BIAS`` (3) when a fairness test is flagged,
        0 when none is (with a state, when the :attr:`evidence` has crossed). A script
        tells "a log is wrong" from "the statistics flag bias"."""
        if self.evidence is not None:
            return self.exit_code or (EXIT_BIAS if self.evidence["flagged"] else 0)
        return self.exit_code or (EXIT_BIAS if fairness and bias_flagged(fairness) else 0)

    def fairness(self, alpha: float = DEFAULT_ALPHA,
                 power: float = DEFAULT_POWER) -> dict[str, list[StatResult]]:
        """The statistics of each origin's deals (proven, recorded), reported apart but
        corrected together: the archive's tests in families by threat, so a fair archive
        of any mix is flagged with probability at most ``alpha`` (as
        :func:`fairness_results` says)."""
        return fairness_results(self.tallies, alpha, power, repeats=self.repeats)

    def groups(self) -> dict[str, list[str]]:
        """The archive's rule sets and keys, as the tests name them apart (a key by its
        platform's name when the user's keys name it, as pinned)."""
        return {"rule set": list(self.by_rules), "key": [
            str(self.signers[k][0]) if k in self.signers and self.signers[k][1]
            and self.signers[k][0] is not None else k
            for k in self.by_key if k != "no verified signature"]}

    def to_json(self, fairness: dict[str, list[StatResult]] | None = None) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "logs": self.logs, "clean": self.clean, "findings": self.with_findings,
            "unreadable": self.unreadable,
            "findings_by_kind": dict(sorted(self.findings_by_kind.items())),
            "matches_by_rules": dict(sorted(self.by_rules.items())),
            "matches_by_key": dict(sorted(self.by_key.items())),
            "deals": {o: self.deals.get(o, 0) for o in ORIGINS},
            "matches_by_deals": {o: self.matches_by_origin.get(o, 0) for o in ORIGINS},
            "signature_not_verified": {"deals": self.deals_unsigned,
                                       "matches": self.matches_unsigned},
            "played": self.played,
            "signing_keys": {k: {"platform": p, "pinned": pinned, "matches": self.by_key[k]}
                             for k, (p, pinned) in sorted(self.signers.items())},
            "unpinned": self.unpinned,
            "copies": self.copies,
            "conflicting": self.conflicting,
            "first_repeats": [asdict(r) for r in self.first_repeats],
            "abandoned": self.abandoned.to_json(),
            "first_unreadable": self.first_unreadable,
            "not_read": self.not_read,
            "unlisted": self.unlisted,
            "first_unlisted": self.first_unlisted,
            "skip_unreadable": self.skip_unreadable,
            "stopped": self.stopped,
            "first_with_findings": self.first_with_findings,
            "exit_code": self.verdict_code(fairness),
        }
        if fairness is not None:
            doc["fairness"] = {o: [r.to_json() for r in rs] for o, rs in fairness.items()}
            every = [r for rs in fairness.values() for r in rs if r.tested]
            doc["families"] = {f: {"tests": sum(r.family == f for r in every), "weight": w}
                               for f, w in family_weights(every).items()}
            doc["not_covered"] = uncovered(r.test for r in every)
            # per origin, the rule sets and keys too small to be tested apart (None: none)
            doc["not_tested_apart"] = {o: not_tested_apart([r for r in rs if r.tested],
                                                           self.groups()) or None
                                       for o, rs in fairness.items()}
            doc["bias_flagged"] = bias_flagged(fairness)
        return doc  # with a state, monitor.state_json adds the state's part


__all__ = ["EXIT_BIAS", "ORIGINS", "ArchiveError", "ArchiveSummary", "AuditFault", "Chunk",
           "FindingRow", "MatchRow", "Repeat", "audit_chunk", "bias_flagged", "copied",
           "copy_finding", "describe_test", "expand_paths", "fairness_results",
           "first_log_finding", "read_url", "run_chunks"]
