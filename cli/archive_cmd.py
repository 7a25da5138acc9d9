"""``tarneeb audit``: a whole archive of logs to one verdict, with fairness statistics.

A plain command line (``audit [-j N] [--json] [--no-stats] [--state FILE] [--checksum]
PATH...``) runs without typer (:func:`fast_path`); :func:`register` adds the typer
command, which does the same (:func:`run`).

>>> import typer
>>> app = typer.Typer()
>>> register(app)
>>> [c.name for c in app.registered_commands]
['audit']
"""

# no ``from __future__ import annotations``: the typer command's annotations are read
# where it is defined, in register(), so that typer is loaded there and only there
import contextlib
import functools
import gc
import json
import os
import sqlite3
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ParamSpec

from . import verify_cmd
from .common import OutputError, console, fail, holds_a_log, output_file, output_name, put_output

if TYPE_CHECKING:
    import typer
    from rich.console import Console

    from tarneeb.replay.archive.audit import ArchiveSummary
    from tarneeb.replay.fairplay import MatchPlay

MAX_JOBS = 1024  # local processes: more is no machine's, and past 2**31 a traceback
DEFAULT_ALPHA = 0.05  # tarneeb.audit.fairness.DEFAULT_ALPHA, without importing scipy's user


def _progress(paths: list[str], chunks: Iterator[Any], err: "Console") -> Iterator[Any]:
    """A progress bar on the terminal (stderr), counting logs."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    from tarneeb.replay.archive.audit import expand_paths

    total = None if "-" in paths else sum(1 for _ in expand_paths(paths, onerror=_ignore))
    with Progress(TextColumn("auditing"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("logs"), TimeRemainingColumn(), console=err,
                  transient=True) as bar:
        task = bar.add_task("audit", total=total)
        for chunk in chunks:
            bar.advance(task, len(chunk.matches))
            yield chunk


def _ignore(error: OSError) -> None:
    """A directory the progress bar's count cannot list (the audit's own listing says so)."""


# the thread counts of the BLAS numpy may be built on (OpenBLAS, numpy's and scipy's wheels;
# MKL; Apple's Accelerate)
BLAS_THREADS = ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "VECLIB_MAXIMUM_THREADS")


def _stderr_may_be_terminal() -> bool:
    """False when rich's console could not find stderr a terminal (``Console.is_terminal``:
    ``TTY_COMPATIBLE=1``, a non-empty ``FORCE_COLOR`` or a tty), so that an audit written
    to a pipe or a file does not import rich (a twentieth of what the statistics add)."""
    if os.environ.get("TTY_COMPATIBLE") == "1" or os.environ.get("FORCE_COLOR"):
        return True
    try:
        return sys.stderr is not None and sys.stderr.isatty()
    except ValueError:  # closed
        return False


def one_blas_thread() -> None:
    """One BLAS thread in the audit's processes (this one, and the local workers, which
    inherit its environment), unless the environment says otherwise: the statistics'
    matrix products are small, and a job is one process per core, so a BLAS's own threads
    only spin against the other jobs. Read by the BLAS when numpy is first imported, so
    set before it is (a no-op when it was)."""
    for name in BLAS_THREADS:
        os.environ.setdefault(name, "1")


def load_auditor(argv: list[str]) -> None:
    """Import what a plain ``audit`` command line (:func:`parse_fast`; nothing for
    another) runs with, so that :func:`tarneeb.cli.entry.main` loads it with the cyclic
    collector held off and then frozen, as a verify's (an incremental run's collections
    0.027 -> 0.019 s: its passes no more go over the modules' objects). The logs'
    verification and tallies only when this process reads them (one job), the monitor
    with ``--state``; numpy (the statistics') only with the statistics, after
    :func:`one_blas_thread`."""
    parsed = parse_fast(argv)
    if parsed is None:
        return
    one_blas_thread()
    here = (parsed["jobs"] or os.cpu_count() or 1) == 1  # (as run_chunks counts the jobs)
    state, stats = "state" in parsed, not parsed["no_stats"]
    import tarneeb.replay.archive.audit

    if here:
        import tarneeb.replay.verify.hands
    if state:
        import tarneeb.replay.archive.monitor
    # numpy's, with the statistics (without numpy, the archive extra, the audit says so
    # where it needs it, or tallies match by match)
    with contextlib.suppress(ImportError):
        if here and stats:
            import tarneeb.replay.archive.battery.columns
        if state and stats:
            import tarneeb.audit.fairness.anytime.batch  # noqa: F401


def parse_fast(argv: list[str]) -> dict[str, Any] | None:
    """The arguments of a plain ``audit [-j N] [--json] [--no-stats] [--state FILE]
    [--checksum] PATH...``, or None to leave it to typer (whose parsing costs an audit of a
    few hundred logs a tenth of its time, and an incremental run with a state a quarter):
    anything else, ``--help``, a flag twice or a bad number goes to typer, which gives the
    help and the usage errors.

    >>> parse_fast(["audit", "-j", "1", "--no-stats", "a", "--", "-b"])
    {'paths': ['a', '-b'], 'jobs': 1, 'as_json': False, 'no_stats': True, 'checksum': False}
    >>> str(parse_fast(["audit", "--state", "s.db", "a"])["state"])
    's.db'
    >>> parse_fast(["audit", "-j", "0", "a"]) is None, parse_fast(["audit", "--x", "a"])
    (True, None)
    >>> parse_fast(["audit", "--state", "--json", "a"]) is None
    True
    """
    if argv[:1] != ["audit"]:
        return None
    parsed: dict[str, Any] = {"paths": [], "jobs": None, "as_json": False, "no_stats": False,
                              "checksum": False}
    switches = {"--json": "as_json", "--no-stats": "no_stats", "--checksum": "checksum"}
    tokens = iter(argv[1:])
    only_paths = False
    for token in tokens:
        if only_paths or token == "-" or not token.startswith("-"):
            parsed["paths"].append(token)
        elif token == "--":
            only_paths = True
        elif token in switches and not parsed[switches[token]]:
            parsed[switches[token]] = True
        elif token == "--state" and "state" not in parsed:
            value = next(tokens, "")
            if not value or value.startswith("-"):  # typer says what is wrong
                return None
            parsed["state"] = value
        elif token in ("-j", "--jobs") and parsed["jobs"] is None:
            value = next(tokens, "")
            if not value.isascii() or not value.isdigit() or not 1 <= int(value) <= MAX_JOBS:
                return None
            parsed["jobs"] = int(value)
        else:
            return None
    return parsed if parsed["paths"] else None


def alpha_value(text: str) -> float:
    """``--alpha``'s value: a number from 1e-9 to 0.5 (not a NaN, which no range holds).

    >>> alpha_value("0.01")
    0.01
    """
    import math

    import typer

    try:
        value = float(text)
    except ValueError:
        raise typer.BadParameter(f"{text!r} is not a number") from None
    if not math.isfinite(value) or not 1e-9 <= value <= 0.5:
        raise typer.BadParameter(f"{text!r} is not a number from 1e-9 to 0.5")
    return value


def fast_path(argv: list[str]) -> int | None:
    """Run a plain audit (:func:`parse_fast`) as the typer command would, without loading
    typer (whose import costs an audit of a few hundred logs a tenth of what the audit adds
    to verifying them); its exit code, or None when typer must parse the command line."""
    parsed = parse_fast(argv)
    if parsed is None:
        return None
    return run(**parsed)


def register(app: "typer.Typer") -> None:
    """Add the ``audit`` command to ``app`` (typer is loaded here, not by a plain audit:
    this module has no ``from __future__ import annotations``, so the options'
    annotations are read here, where typer is)."""
    import typer

    from .options import CHECK, PinKey, PinKeys, PinRoot, option

    @app.command("audit", rich_help_panel=CHECK)
    def audit(
        paths: Annotated[list[str], typer.Argument(
            help="Logs: files, directories (searched recursively for *.tlog), glob "
                 "patterns, URLs of an object store (with fsspec), or - to read one path "
                 "a line from standard input.", show_default=False)],
        jobs: Annotated[int | None, typer.Option(
            "--jobs", "-j", min=1, max=MAX_JOBS,
            help=f"Local processes (default: every core; at most {MAX_JOBS:,}).",
            show_default=False)] = None,
        scheduler: Annotated[str | None, typer.Option(
            "--scheduler", metavar="ADDRESS",
            help="Run on a Dask cluster, e.g. tcp://scheduler:8786, or local:N for one of "
                 "N worker processes on this machine started for the run (pip install "
                 "'tarneeb[cluster]'); the workers must be able to read the logs.")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="The summary as JSON.")] = False,
        tables: Annotated[Path | None, typer.Option(
            "--tables", metavar="DIR",
            help="Write DIR/matches.parquet (one row per log) and DIR/findings.parquet "
                 "(one row per finding).")] = None,
        key: PinKey = None,
        keys: PinKeys = None,
        root: PinRoot = None,
        report: Annotated[str | None, typer.Option(
            "--report", metavar="FILE",
            help="Write a self-contained HTML report (pip install 'tarneeb[report]').")] = None,
        skip_unreadable: Annotated[bool, typer.Option(
            "--skip-unreadable",
            help="Files that cannot be read at all (gone, not allowed, not a regular "
                 "file) and directories that cannot be listed leave the exit code as the "
                 "rest makes it; they are still counted and named.")] = False,
        alpha: Annotated[float, typer.Option(
            parser=alpha_value, metavar="FLOAT",
            help="Family-wise error rate of the fairness tests, from 1e-9 to 0.5.")
        ] = DEFAULT_ALPHA,
        state: Annotated[str | None, typer.Option(
            "--state", metavar="FILE",
            help="Keep what the audit learns in FILE (SQLite; made when missing): the next "
                 "run reads only new or changed logs, reports changed and lost logs, and "
                 "tests fairness with evidence valid however often one looks "
                 "(docs/ARCHIVE.md).")] = None,
        removed: Annotated[list[str] | None, typer.Option(
            "--removed", metavar="PATTERN",
            help="With --state: logs gone from the archive on purpose (a path or a glob "
                 "pattern, repeatable): reported as removed, not as lost.")] = None,
        checksum: Annotated[bool, typer.Option(
            "--checksum",
            help="With --state: read every log the state knew and compare its SHA-256, "
                 "whatever its size and times say (a log that changed is judged again "
                 "and is a finding).")] = False,
        state_key: Annotated[str | None, typer.Option(
            "--state-key", metavar="KEYFILE",
            help="With --state: the key FILE is sealed with (made when missing); default: "
                 "state.key in the user's config directory. A FILE changed by anyone "
                 "else, or sealed with another key, is refused.")] = None,
        require_proof: Annotated[bool, option("--require-proof")] = False,
        play: Annotated[bool, typer.Option(
            "--play",
            help="Fair play: test whether players, seat labels or partnerships choose "
                 "cards as if they saw hidden cards (double-dummy analysis with DDS; pip "
                 "install 'tarneeb[play]'; docs/FAIRPLAY.md).")] = False,
        play_sample: Annotated[int | None, typer.Option(
            "--play-sample", metavar="N", min=1,
            help="With --play, a quick look: at most N hands per player (and per "
                 "match) analysed.")] = None,
        no_stats: Annotated[bool, typer.Option(
            "--no-stats",
            help="Verification, findings and counts only: no fairness statistics of the "
                 "deals (exit code 3 then comes from --play alone).")] = False,
        fixed_sample: Annotated[bool, typer.Option(
            "--fixed-sample",
            help="With --state: run the fixed-sample battery over the whole archive too "
                 "(reported only; the verdict on bias is the evidence's). Without --state "
                 "it always runs.")] = False,
    ) -> None:
        """Verify every log of an archive; test its deals for fairness.

        Each match counts once: a copy of a log (the same bytes) is listed and left out
        of the statistics; another log of the same match with other bytes is a finding.
        The keys are pinned as for verify: the summary names, per key, the platform
        that signed, and counts the logs under keys not pinned apart.

        Exit code: 0 every log clean and no evidence of bias; 1 findings; 2 a log
        unreadable (a file not read or a directory not listed, unless
        --skip-unreadable) or bad input; 3 every log clean but the statistics show
        evidence of bias.
        """
        raise typer.Exit(run(
            paths, jobs, scheduler, as_json, tables, key, keys, root, report,
            skip_unreadable, alpha, state, removed, require_proof, play, play_sample,
            no_stats, fixed_sample, checksum, state_key))


# new objects between two passes of the cyclic garbage collector during an audit (Python's
# default: 700). An audit keeps many small objects for its whole run (the tallies' keys, a
# row per match), which the default's passes go over again and again (a twentieth of what
# the statistics add to verifying the logs), and makes almost no cyclic garbage (reference
# counting frees the rest): with passes this much rarer its peak memory is the same
AUDIT_GC_THRESHOLD = 50_000
_P = ParamSpec("_P")


def _rarer_collections(f: Callable[_P, int]) -> Callable[_P, int]:
    """``f`` run with the cyclic garbage collector's first threshold at
    :data:`AUDIT_GC_THRESHOLD` (unless it is higher, or 0: collection off), put back as it
    was after."""
    @functools.wraps(f)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> int:
        before = gc.get_threshold()
        if before[0]:
            gc.set_threshold(max(before[0], AUDIT_GC_THRESHOLD), *before[1:])
        try:
            return f(*args, **kwargs)
        finally:
            gc.set_threshold(*before)
    return wrapper


@_rarer_collections
def run(paths: list[str], jobs: int | None = None, scheduler: str | None = None,
        as_json: bool = False, tables: Path | None = None, key: Path | None = None,
        keys: Path | None = None, root: str | None = None, report: str | None = None,
        skip_unreadable: bool = False, alpha: float = DEFAULT_ALPHA,
        state: str | None = None, removed: list[str] | None = None,
        require_proof: bool = False, play: bool = False, play_sample: int | None = None,
        no_stats: bool = False, fixed_sample: bool = False, checksum: bool = False,
        state_key: str | None = None) -> int:
    """The ``audit`` command (:func:`register` gives its options and help): its output,
    and its exit code."""
    one_blas_thread()
    from tarneeb.replay.archive.audit import (
        ArchiveError,
        ArchiveSummary,
        AuditFault,
        expand_paths,
        run_chunks,
    )

    for named in (state, state_key):  # a file's name, refused before the audit runs
        if named is not None:
            output_name(named)
    if report is not None:  # (and the report's kind of file: it is written at the end)
        output_file(report)
    if report == "-":  # (the summary is written there)
        fail("--report -: the audit's summary goes to standard output: give the report a file")
    if report is not None and holds_a_log(report):  # not one of the logs it reads (a
        from .common import refuse_to_replace_listed  # report of before is listed no more)

        refuse_to_replace_listed(report, expand_paths(p for p in paths if p != "-"))
    trust = verify_cmd.trust_of(key, keys, root, require_proof=require_proof)
    play_options = _play_options(play or play_sample is not None, play_sample)
    played = None
    if play_options is not None:  # the fair-play modules are loaded when asked for
        from tarneeb.replay.fairplay.summary import PlaySummary

        played = PlaySummary(cap=play_sample)
    pending: list[MatchPlay] = []  # the matches' fair-play records, added when all are read
    writer = None
    monitor = None
    history: list[float] | None = None  # with --state: the evidence after each match
    summary = ArchiveSummary(skip_unreadable=skip_unreadable)
    # faults, one line each, said after the summary (which says what was done)
    errors: list[str] = []

    def cannot_write(e: OSError) -> None:
        from tarneeb.replay.archive.tables import write_error

        errors.append(f"{tables}: cannot write the tables: {write_error(e)} (no "
                      "tables written)")

    try:
        if tables is not None:
            from tarneeb.replay.archive.tables import TableWriter

            writer = TableWriter(tables)
        listed = expand_paths(paths, onerror=summary.add_unlisted)
        alone = "--removed" if removed else "--checksum" if checksum else "--state-key"
        if (removed or checksum or state_key) and state is None:
            raise ArchiveError(f"{alone} goes with --state")
        if state is not None:
            from tarneeb.replay.archive.monitor import Monitor

            monitor = Monitor(str(state), alpha, trust, removed or (), not no_stats,
                              play_options, tallies=fixed_sample or report is not None,
                              checksum=checksum,
                              key_file=None if state_key is None else Path(state_key))
            chunks = monitor.chunks(listed, jobs, scheduler)
        else:
            chunks = run_chunks(listed, trust, jobs, scheduler, play=play_options,
                                stats=not no_stats)
        if _stderr_may_be_terminal() and console(stderr=True).is_terminal \
                and os.environ.get("TERM") != "dumb":
            chunks = _progress(paths, chunks, console(stderr=True))
        try:
            for chunk in chunks:
                if monitor is not None:
                    monitor.fold(summary, chunk)
                else:
                    summary.add(chunk)
                if played is not None:  # each match once, as the fairness tallies, and
                    # clean still once the archive's own findings are added (a leaf, a match
                    # id or an outcome another log shares; a log changed since the state)
                    pending.extend(mp for m, mp in zip(chunk.matches, chunk.play, strict=True)
                                   if mp is not None and m.duplicate is None
                                   and m.verdict == "clean")
                if writer is not None:
                    try:
                        writer.add(chunk)
                    except OSError as e:  # a full disk: the audit goes on without them
                        cannot_write(e)
                        writer.abort()
                        writer = None
        except AuditFault as e:  # the summary so far is given, and says it stops there
            summary.stopped = str(e)
            errors.append(str(e))
        if played is not None:  # clean logs only: not those another log of the match
            # contradicts (a conflicting-log finding, found when the later one is read),
            # nor those a later log's claims gave a finding (a leaf or match id it shares)
            conflicting = {p for first, later in summary.conflicts.items()
                           for p in (first, *later)} | set(summary.amends)
            for mp in pending:
                if mp.path not in conflicting:
                    played.add(mp)
        if writer is not None:
            try:
                writer.close(summary.conflicts, summary.amends)  # earlier logs amended
                writer = None
            except OSError as e:
                cannot_write(e)
        if monitor is not None and not summary.stopped:
            monitor.finish(summary)
            history = monitor.history()
        elif monitor is not None:  # a run stopped part way: said, not saved
            monitor.settle(summary)
    except ArchiveError as e:
        fail(str(e))
    except sqlite3.Error as e:  # a state file whose tables are not a state's
        fail(f"{state}: not an audit state of this version ({e})")
    finally:
        if writer is not None:
            writer.abort()
        if monitor is not None:
            monitor.close()
    # with --state the verdict on bias is the evidence's: the fixed-sample battery over
    # the whole archive (the bulk of a small run's cost) runs when asked, or for a report
    battery = not no_stats and (state is None or fixed_sample or report is not None)
    try:
        fairness = summary.fairness(alpha) if battery else {}
    except ImportError:  # scipy: the [archive] extra
        console(stderr=True).print("tarneeb: note: no fairness statistics: they need scipy "
                  "(pip install 'tarneeb[archive]')", markup=False)
        fairness = {}
    except AuditFault as e:  # its temporary files, read back, failed
        fail(str(e))
    if monitor is not None:  # the battery's tests the evidence does not cover, named
        from tarneeb.replay.archive.monitor import note_fixed_sample_only

        note_fixed_sample_only(summary, monitor, fairness if battery else None)
    # with a state the archive is looked at again and again: each look's test must stay
    # valid over all of them (an honest player flagged some day only by looking daily)
    play_results = None if played is None else played.results(alpha,
                                                               anytime=monitor is not None)
    if report is not None and summary.logs:
        try:
            from tarneeb.report.archive import archive_page
        except ImportError as e:
            fail(f"--report needs matplotlib: pip install 'tarneeb[report]' ({e})")
        page = archive_page(summary, fairness, alpha, ", ".join(paths), history=history,
                            play=play_results)
        try:  # (written as every command's output is: a device or FIFO written through)
            put_output(report, page.encode("utf-8"))
        except OutputError as e:  # said after the summary, which is not lost
            errors.append(str(e))
    if as_json:
        doc = summary.to_json(fairness if battery else None)
        if monitor is not None:
            from tarneeb.replay.archive.monitor import state_json

            state_json(summary, doc)
        if played is not None and play_results is not None:
            doc["fairplay"] = played.to_json(play_results)
            doc["exit_code"] = _exit_code(summary.verdict_code(fairness), play_results)
        if errors or summary.logs == 0:  # the run ends in one line, exit 2: a file kept of
            doc["exit_code"] = 2  # its JSON says so (it said 0 of an archive not mounted)
        from tarneeb.audit.encoding import json_shown

        sys.stdout.write(json_shown(json.dumps(doc, ensure_ascii=False, indent=1)) + "\n")
    elif summary.logs or summary.first_unlisted or errors:
        _print_summary(summary, fairness, alpha)  # (no logs at all: said once, below)
        if no_stats:
            console().print("No fairness statistics (--no-stats): the deals were not "
                            "tested" + (", and exit code 3 is given by the fair-play "
                                        "analysis alone." if played is not None else
                                        ", and exit code 3 is never given."), markup=False)
        if played is not None and play_results is not None:
            from tarneeb.replay.fairplay.summary import play_lines

            for line in play_lines(played, play_results, alpha):
                console().print(line, markup=False)
    for line in errors[:-1]:
        console(stderr=True).print(f"tarneeb: error: {line}", markup=False)
    if errors:
        fail(errors[-1])
    if summary.logs == 0:
        fail("no logs found in " + ", ".join(paths))
    return _exit_code(summary.verdict_code(fairness), play_results)


def _play_options(wanted: bool, per_match: int | None) -> Any:
    """The fair-play analysis's options (a fresh secret Monte Carlo seed), or None; one line
    and exit 2 when endplay is not installed."""
    if not wanted:
        return None
    import secrets
    import uuid

    from tarneeb.replay.fairplay import INSTALL, PlayOptions, available

    if not available():
        fail(INSTALL)
    return PlayOptions(secrets.token_bytes(16), per_match=per_match, run=uuid.uuid4().hex)


def _exit_code(code: int, play_results: Any) -> int:
    """The audit's exit code with the fair-play analysis's: 3 on a significant group (a
    player not named among them) when the logs and the fairness statistics leave 0."""
    from tarneeb.replay.archive.audit import EXIT_BIAS

    if code == 0 and play_results and any(r.significant for r in play_results):
        return EXIT_BIAS
    return code


def _print_summary(summary: "ArchiveSummary", fairness: dict[str, Any], alpha: float,
                   ) -> None:
    from tarneeb.replay.archive.words import key_counts, verdict_lines

    lines = list(verdict_lines(summary, fairness, alpha))

    def counts(title: str, c: dict[str, int]) -> None:
        if c:
            lines.append(f"{title}: " + ", ".join(f"{k} {v:,}" for k, v in
                                                  sorted(c.items(), key=lambda kv: -kv[1])))

    counts("findings by kind", summary.findings_by_kind)
    counts("matches by rule set", summary.by_rules)
    counts("matches by signing key", dict(key_counts(summary)))
    lines.extend(f"  findings: {path}" for path in summary.first_with_findings)
    lines.extend(f"  unreadable: {error}" for error in summary.first_unreadable)
    lines.extend(f"  not listed: {error}" for error in summary.first_unlisted)
    lines.extend(f"  {repeat}" for repeat in summary.first_repeats)
    if not sys.stdout.isatty():  # a pipe or a file: plain text, without loading rich
        from tarneeb.audit.encoding import shown

        sys.stdout.write("".join(shown(line) + "\n" for line in lines))
        return
    out = console()
    for line in lines:
        out.print(line, markup=False)


__all__ = ["fast_path", "parse_fast", "register", "run"]
