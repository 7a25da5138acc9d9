"""The archive audit: every log of an archive verified, summed up in one verdict.

The work is cut into chunks of logs. Each chunk is verified where it runs (this
process, a pool of local processes, or the workers of a Dask cluster) and comes
back small: one row per match, one per finding, and the fairness tallies of its
deals (integer counts, :class:`~tarneeb.audit.fairness.Tally`). The caller folds
each chunk into an :class:`ArchiveSummary` and drops it, so memory does not grow
with the archive; chunks come back in the order the paths were given, so every
way of running gives the same rows in the same order and the same summary.

>>> import tempfile, pathlib
>>> from tarneeb.replay.simulate import play_logged_match
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

import collections
import glob
import os
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from tarneeb.audit.fairness import DEFAULT_ALPHA, DEFAULT_POWER, StatResult, Tally

from .dealstats import HCP, tally_match
from .logstream import DEFAULT_LIMITS, Limits
from .replayer import verify_bytes, verify_file

CHUNK = 32  # logs per unit of work
SIGNATURE_KINDS = frozenset({"broken-signature", "unsigned", "key-mismatch", "weak-key"})
ORIGINS = ("proven", "recorded")
_GLOB = set("*?[")


# ------------------------------------------------------------------ paths --

def expand_paths(args: Iterable[str], stdin: Iterable[str] | None = None) -> Iterator[str]:
    """The logs named by ``args``, lazily: files as given, directories recursively
    (their ``*.tlog`` files, sorted), glob patterns (``**`` included), and ``-`` for
    one path a line read from ``stdin``. A path that names nothing is yielded as it
    is, so the audit reports it as unreadable. URLs (``s3://bucket/logs``) are
    listed with fsspec, which the ``cluster`` extra installs.
    """
    for arg in args:
        if arg == "-":
            lines = stdin if stdin is not None else sys.stdin
            for line in lines:
                line = line.strip()
                if line:
                    yield from expand_paths([line])
            continue
        if "://" in arg:
            yield from _expand_url(arg)
        elif os.path.isdir(arg):
            yield from _walk(arg)
        elif not os.path.exists(arg) and glob.has_magic(arg):
            found = sorted(glob.iglob(arg, recursive=True))
            if not found:
                raise ArchiveError(f"{arg}: no file matches this pattern")
            for p in found:
                yield from (_walk(p) if os.path.isdir(p) else [p])
        else:
            yield arg


def _walk(top: str) -> Iterator[str]:
    for root, dirs, files in os.walk(top):
        dirs.sort()
        for name in sorted(files):
            if name.endswith(".tlog"):
                yield os.path.join(root, name)


def _expand_url(url: str) -> Iterator[str]:
    fs, _, found = _fsspec_paths(url)
    protocol = url.split("://", 1)[0]
    for p in found:
        yield p if "://" in p else f"{protocol}://{p}"
    del fs


def _fsspec_paths(url: str) -> tuple[Any, str, list[str]]:
    try:
        from fsspec.core import url_to_fs
    except ImportError:
        raise ArchiveError(f"{url}: reading URLs needs fsspec (pip install "
                           "'tarneeb[cluster]')") from None
    fs, path = url_to_fs(url)
    if fs.isdir(path):
        found = sorted(p for p in fs.find(path) if p.endswith(".tlog"))
    elif _GLOB & set(path):
        found = sorted(fs.glob(path))
    else:
        found = [path]
    return fs, path, found


class ArchiveError(ValueError):
    """Bad input to the archive audit as a whole (exit code 2)."""


def read_url(url: str, limits: Limits = DEFAULT_LIMITS) -> bytes:
    """A log's bytes from an object store (fsspec), at most one byte past the cap, which
    the parser then refuses."""
    try:
        import fsspec
    except ImportError:
        raise OSError(f"reading {url} needs fsspec (pip install 'tarneeb[cluster]')") from None
    with fsspec.open(url, "rb") as f:
        return f.read(limits.max_bytes + 1)  # type: ignore[no-any-return]


# ------------------------------------------------------------------ one chunk --

@dataclass
class MatchRow:
    """One row of the per-match table."""

    path: str
    verdict: str  # clean, findings, unreadable
    error: str | None
    rules: str | None
    key_id: str | None  # the key the signature was checked against (None: no key)
    deals: str  # proven, recorded, none
    hands: int  # dealing attempts
    played: int
    findings: int
    computer_seats: int
    human_seats: int


@dataclass
class FindingRow:
    """One row of the per-finding table."""

    path: str
    kind: str
    message: str
    hand: int | None
    trick: int | None
    seat: int | None
    card: str | None
    offset: int | None


@dataclass
class Chunk:
    """What the audit of some logs sends back: rows and the tallies of their deals."""

    matches: list[MatchRow] = field(default_factory=list)
    findings: list[FindingRow] = field(default_factory=list)
    tallies: dict[str, Tally] = field(default_factory=dict)
    unpinned: int = 0  # logs read whose signing key the user did not pin


def audit_chunk(paths: Sequence[str], public_key: bytes | None = None,
                root: bytes | None = None) -> Chunk:
    """Verify the logs at ``paths`` and tally their deals (runs on a worker)."""
    out = Chunk()
    for path in paths:
        if "://" in path:
            try:
                data = read_url(path)
            except OSError as e:
                out.matches.append(MatchRow(path, "unreadable", f"{path}: cannot read: "
                                            f"{e.strerror or e}", None, None, "none", 0, 0, 0,
                                            0, 0))
                continue
            v = verify_bytes(data, path, public_key, root=root)
        else:
            v = verify_file(path, public_key, root=root)
        verdict = "unreadable" if v.error else ("clean" if v.clean else "findings")
        if v.error is None and not v.key_pinned:
            out.unpinned += 1
        deals = "none"
        if v.history and v.error is None:
            # proven: every seed matched its commitment, and the platform's signature
            # ties those commitments to it; anything less counts as recorded
            signed = v.key_id is not None and not any(f.kind in SIGNATURE_KINDS
                                                      for f in v.findings)
            deals = "proven" if v.deals_proven and signed else "recorded"
            tally = out.tallies.setdefault(deals, Tally())
            tally_match(tally, v.rules, v.computer, v.key_id, v.history)
        computers = sum(v.computer)
        out.matches.append(MatchRow(
            path, verdict, v.error, v.rules.name if v.rules is not None else None, v.key_id,
            deals, v.hands, v.played, len(v.findings), computers,
            len(v.computer) - computers))
        out.findings.extend(FindingRow(path, f.kind, f.message, f.hand, f.trick, f.seat, f.card,
                                       f.offset) for f in v.findings)
    return out


# ------------------------------------------------------------------ running --

def _chunks(paths: Iterable[str], size: int) -> Iterator[list[str]]:
    batch: list[str] = []
    for p in paths:
        batch.append(p)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def _windowed(submit: Callable[[list[str]], Any], result: Callable[[Any], Chunk],
              chunks: Iterator[list[str]], window: int) -> Iterator[Chunk]:
    """At most ``window`` chunks in flight; results in submission order."""
    pending: collections.deque[Any] = collections.deque()
    for chunk in chunks:
        pending.append(submit(chunk))
        if len(pending) >= window:
            yield result(pending.popleft())
    while pending:
        yield result(pending.popleft())


def run_chunks(paths: Iterable[str], jobs: int | None = None, scheduler: Any = None,
               public_key: bytes | None = None, root: bytes | None = None,
               chunk_size: int = CHUNK) -> Iterator[Chunk]:
    """Audit ``paths`` chunk by chunk, in order.

    ``jobs``: local processes (default: every core; 1 runs in this process).
    ``scheduler``: a Dask scheduler address (``tcp://host:8786``) or a
    ``distributed.Client``; the logs must be readable from the workers (a shared
    file system, or URLs of an object store they can reach).
    """
    chunks = _chunks(paths, chunk_size)
    if scheduler is not None:
        yield from _run_dask(chunks, scheduler, public_key, root)
        return
    jobs = jobs or os.cpu_count() or 1
    if jobs == 1:
        for c in chunks:
            yield audit_chunk(c, public_key, root)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
        yield from _windowed(lambda c: pool.submit(audit_chunk, c, public_key, root),
                             lambda f: f.result(), chunks, 3 * jobs)


def _run_dask(chunks: Iterator[list[str]], scheduler: Any, public_key: bytes | None,
              root: bytes | None) -> Iterator[Chunk]:
    try:
        from distributed import Client
    except ImportError:
        raise ArchiveError("--scheduler needs dask.distributed: pip install "
                           "'tarneeb[cluster]'") from None
    own = not isinstance(scheduler, Client)
    try:
        client = Client(scheduler, timeout="20s") if own else scheduler
    except OSError as e:
        raise ArchiveError(f"cannot reach the Dask scheduler {scheduler}: {e}") from None
    try:
        threads = max(1, sum(client.nthreads().values()))
        yield from _windowed(
            lambda c: client.submit(audit_chunk, c, public_key, root, pure=False),
            lambda f: f.result(), chunks, 3 * threads)
    finally:
        if own:
            client.close()


# ------------------------------------------------------------------ the summary --

MAX_LISTED = 20  # logs named in the summary per category (the tables have them all)
MIN_KEY_DEALS = 100  # deals a signing key needs to be tested apart
MAX_FINDINGS = 200  # findings kept for the report (the findings table has them all)
# the exit code of an audit whose logs are all readable and clean but whose deals show
# evidence of bias (0, 1 and 2 mean what they mean for verify: clean, findings, unreadable)
EXIT_BIAS = 3


@dataclass
class ArchiveSummary:
    """Counts over the whole archive; :meth:`add` folds in one chunk at a time."""

    logs: int = 0
    clean: int = 0
    with_findings: int = 0
    unreadable: int = 0
    findings_by_kind: Counter[str] = field(default_factory=Counter)
    by_rules: Counter[str] = field(default_factory=Counter)
    by_key: Counter[str] = field(default_factory=Counter)
    deals: Counter[str] = field(default_factory=Counter)  # dealing attempts by origin
    matches_by_origin: Counter[str] = field(default_factory=Counter)
    played: int = 0
    first_unreadable: list[str] = field(default_factory=list)
    first_with_findings: list[str] = field(default_factory=list)
    first_findings: list[FindingRow] = field(default_factory=list)
    tallies: dict[str, Tally] = field(default_factory=dict)
    unpinned: int = 0  # logs read whose signing key was not pinned: anyone could make them

    def add(self, chunk: Chunk) -> None:
        self.unpinned += chunk.unpinned
        for m in chunk.matches:
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
            if m.verdict != "unreadable" or m.rules is not None:
                self.by_rules[m.rules or "unknown"] += 1
                self.by_key[m.key_id or "no verified signature"] += 1
            if m.deals != "none":
                self.deals[m.deals] += m.hands
                self.matches_by_origin[m.deals] += 1
            self.played += m.played
        for f in chunk.findings:
            self.findings_by_kind[f.kind] += 1
            if len(self.first_findings) < MAX_FINDINGS:
                self.first_findings.append(f)
        for origin, t in chunk.tallies.items():
            self.tallies.setdefault(origin, Tally()).merge(t)

    @property
    def exit_code(self) -> int:
        """The logs' part of the exit code: 2 a log unreadable, 1 findings, 0 every log
        clean (:meth:`verdict_code` adds the statistics')."""
        if self.unreadable:
            return 2
        return 1 if self.with_findings else 0

    def verdict_code(self, fairness: dict[str, list[StatResult]] | None) -> int:
        """The audit's exit code: the logs' (:attr:`exit_code`) when a log is unreadable
        (2) or has findings (1); else ``EXIT_BIAS`` (3) when a fairness test is flagged,
        0 when none is. A script tells "a log is wrong" from "the statistics flag bias"."""
        return self.exit_code or (EXIT_BIAS if fairness and bias_flagged(fairness) else 0)

    def fairness(self, alpha: float = DEFAULT_ALPHA,
                 power: float = DEFAULT_POWER) -> dict[str, list[StatResult]]:
        """The statistics of each origin's deals (proven, recorded), each origin corrected
        on its own: one family of tests for the implementation, one for the platform."""
        out = {}
        for origin in ORIGINS:
            tally = self.tallies.get(origin)
            if not tally:
                continue
            keys = tested_keys(tally)
            out[origin] = tally.results(alpha, power,
                                        select=lambda t, k=keys: t[1] != "key" or t[2] in k)
        return out

    def to_json(self, fairness: dict[str, list[StatResult]] | None = None) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "logs": self.logs, "clean": self.clean, "findings": self.with_findings,
            "unreadable": self.unreadable,
            "findings_by_kind": dict(sorted(self.findings_by_kind.items())),
            "matches_by_rules": dict(sorted(self.by_rules.items())),
            "matches_by_key": dict(sorted(self.by_key.items())),
            "deals": {o: self.deals.get(o, 0) for o in ORIGINS},
            "matches_by_deals": {o: self.matches_by_origin.get(o, 0) for o in ORIGINS},
            "played": self.played,
            "unpinned": self.unpinned,
            "first_unreadable": self.first_unreadable,
            "first_with_findings": self.first_with_findings,
            "exit_code": self.verdict_code(fairness),
        }
        if fairness is not None:
            doc["fairness"] = {o: [r.to_json() for r in rs] for o, rs in fairness.items()}
            doc["bias_flagged"] = bias_flagged(fairness)
        return doc


def tested_keys(tally: Tally) -> set[str]:
    """The signing keys tested apart: those with at least ``MIN_KEY_DEALS`` deals, when
    there are two or more such keys (one key is the whole archive, tested already). A
    key with a handful of matches would only add tests, and take power from the rest."""
    deals: Counter[str] = Counter()
    for key, n in tally.counts.items():
        if key[0] in ("fit", "fit+mean") and key[1][:2] == (HCP, "key"):
            deals[key[1][2]] += n
    keys = {k for k, n in deals.items() if n >= MIN_KEY_DEALS}
    return keys if len(keys) > 1 else set()


def bias_flagged(fairness: dict[str, list[StatResult]]) -> list[str]:
    """The tests flagged after correction, as ``origin: measure by group``."""
    return [f"{origin}: {describe_test(r)}" for origin, rs in fairness.items() for r in rs
            if r.flagged]


def describe_test(r: StatResult) -> str:
    """A test in words.

    >>> describe_test(StatResult(("trumps", "seat", "dealer"), "G-test", 1, 0, 1, 1.0))
    'trumps, seat dealer (G-test)'
    """
    measure, by, group = (*r.test, "", "")[:3]
    where = "all deals" if by == "all" else f"{by} {group}"
    return f"{measure}, {where} ({r.method})"


def row_dicts(rows: Iterable[MatchRow | FindingRow]) -> list[dict[str, Any]]:
    return [asdict(r) for r in rows]


__all__ = [
    "EXIT_BIAS", "ArchiveError", "ArchiveSummary", "Chunk", "FindingRow", "MatchRow", "audit_chunk",
    "bias_flagged", "describe_test", "expand_paths", "read_url", "run_chunks",
]


# ------------------------------------------------------------------ in words --

ORIGIN_WORDS = {
    "proven": ("deals proven by seeds or a blind transcript",
               "the platform could not steer them, so "
               "these statistics test the implementation of the shuffle"),
    "recorded": ("deals only recorded by the platform", "nothing proves how they were "
                 "dealt, so these statistics are the only evidence of their fairness"),
}


def format_p(p: float | None) -> str:
    """A p-value as a reader wants it: three figures, or a bound past what a float holds.

    >>> format_p(0.01234), format_p(3e-7), format_p(0.0), format_p(None)
    ('0.0123', '3.0e-07', '< 1e-15', 'not tested')
    """
    if p is None:
        return "not tested"
    if p < 1e-15:
        return "< 1e-15"
    return f"{p:.3g}" if p >= 1e-4 else f"{p:.1e}"


def count(n: int, noun: str) -> str:
    """A number of things, in words.

    >>> count(1, "match"), count(2_000, "log")
    ('1 match', '2,000 logs')
    """
    return f"{n:,} {noun}" if n == 1 else f"{n:,} {noun}{'es' if noun.endswith('ch') else 's'}"


def verdict_lines(summary: ArchiveSummary,
                  fairness: dict[str, list[StatResult]] | None = None,
                  alpha: float = DEFAULT_ALPHA) -> list[str]:
    """The verdict in plain words, most important first."""
    s = summary
    lines = []
    if s.logs == 0:
        return ["No logs were found."]
    if s.clean == s.logs:
        lines.append(("The log is clean" if s.logs == 1 else f"All {s.logs:,} logs are clean")
                     + ": every hand replays under the rules and every claim matches.")
    else:
        parts = []
        if s.with_findings:
            parts.append(f"{s.with_findings:,} " + ("has" if s.with_findings == 1 else "have")
                         + " findings")
        if s.unreadable:
            parts.append(f"{s.unreadable:,} could not be read")
        lines.append(f"{s.clean:,} of {count(s.logs, 'log')} "
                     + ("is" if s.clean == 1 else "are") + " clean; " + " and ".join(parts) + ".")
    if s.unpinned:  # as verify's first line says it of one log
        lines[0] += (f" {count(s.unpinned, 'log')} {'is' if s.unpinned == 1 else 'are'} signed "
                     "by a key named in the log itself, NOT PINNED: anyone could have made "
                     f"{'it' if s.unpinned == 1 else 'them'}, seeds and all, with a key of "
                     "their own (pin the platform's key: --key).")
    said = {}
    for origin in ORIGINS:
        deals = s.deals.get(origin, 0)
        matches = count(s.matches_by_origin.get(origin, 0), "match")
        said[origin] = f"{count(deals, 'deal')} ({matches}) {'is' if deals == 1 else 'are'}"
    lines.append(f"{said['proven']} proven by seeds or a blind transcript; "
                 f"{said['recorded']} only recorded "
                 "by the platform.")
    for origin, results in (fairness or {}).items():
        lines.append(fairness_sentence(origin, results, alpha))
    return lines


def fairness_sentence(origin: str, results: list[StatResult],
                      alpha: float = DEFAULT_ALPHA) -> str:
    """One origin's statistics in a sentence: flagged tests, or what could have been seen."""
    what, meaning = ORIGIN_WORDS[origin]
    tested = [r for r in results if r.tested]
    flagged = [r for r in tested if r.flagged]
    head = (f"Fairness of the {what} ({meaning}): {len(tested)} tests against the exact "
            f"distributions of a uniform shuffle, Holm-corrected at {alpha:.0%} family-wise")
    if flagged:
        worst = sorted(flagged, key=lambda r: r.p_value or 0.0)[:3]
        said = "; ".join(f"{describe_test(r)}: observed {_fmt_obs(r)} "
                         f"(p {_p_words(r.p_adjusted)} after correction)" for r in worst)
        more = f" and {len(flagged) - 3} more" if len(flagged) > 3 else ""
        return f"{head}: EVIDENCE OF BIAS in {len(flagged)} tests: {said}{more}."
    return f"{head}: no evidence of bias. {detectable_sentence(tested)}"


def _p_words(p: float | None) -> str:
    text = format_p(p)
    return text if text.startswith("<") else f"= {text}"


def _fmt_obs(r: StatResult) -> str:
    if r.method == "G-test":
        worst = max(range(len(r.observed)), key=lambda i: abs(r.observed[i] - r.expected[i]),
                    default=None)
        if worst is None:
            return "-"
        return (f"{r.observed[worst]:.0f} against {r.expected[worst]:.1f} expected "
                f"in category {r.categories[worst]}")
    return f"{r.observed[0]:.2f} against {r.expected[0]:.2f} expected"


def detectable_sentence(results: list[StatResult]) -> str:
    """What the sample would have caught (80 % power), in high-card points."""
    def worst(pred: Callable[[StatResult], bool]) -> float | None:
        xs = [r.detectable for r in results if pred(r) and r.detectable is not None]
        return max(xs) if xs else None

    seat = worst(lambda r: r.test[:2] == ("high-card points", "seat") and r.method != "G-test")
    label = worst(lambda r: r.test[:2] == ("high-card points", "label") and r.method != "G-test")
    paired = worst(lambda r: r.test[0] == "high-card points" and r.method == "paired z-test")
    w = worst(lambda r: r.method == "G-test" and r.test[1] == "seat")
    parts = []
    if seat is not None:
        parts.append(f"{seat:.2f} high-card points per hand at any seat relative to the dealer")
    if label is not None:
        parts.append(f"{label:.2f} per hand for computer or human seats")
    if paired is not None:
        parts.append(f"a difference of {paired:.2f} points between computer and human hands")
    if w is not None:
        parts.append(f"a departure of Cohen's w = {w:.2f} from any distribution of a hand")
    if not parts:
        return "Too few deals to test anything."
    return "The sample would have detected (80% power) a bias of " + "; ".join(parts) + "."


__all__ += ["detectable_sentence", "fairness_sentence", "format_p", "verdict_lines"]
