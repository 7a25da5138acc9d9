"""Drive another engine through recorded matches; report where it first disagrees.

A clean log (one the replayer finds no fault in) is a reference: its deals and
moves are fed to the engine under test through the
:class:`~tarneeb.testing.protocol.Engine` protocol while this project's engine
replays them alongside. Before every move the seat to move and the set of
legal actions must agree; after every trick the trick counts (so the trick
winner); after every hand the hand scores, the running totals and the winner.
The first difference ends the match's check and is reported with the hand
(deal number, from 0), the trick (1–13), the seat and the move.

An engine that raises, answers with the wrong type or an out-of-range value,
loops past the time limit or kills its process fails that match; the run goes
on. Matches run in a worker process (``spawn``), reused while the engine
behaves and replaced after a timeout or a crash.

This module runs an engine through every log under some paths
(:func:`regress_paths`). The parts live by job: :mod:`~tarneeb.testing.regress.scripts`
(what an engine is driven through), :mod:`~tarneeb.testing.regress.driver` (one match, in
this process), :mod:`~tarneeb.testing.regress.runner` (matches in a worker process with a time
limit) and :mod:`~tarneeb.testing.regress.report` (what a run reports); their names
are importable from here as well.

>>> from tarneeb.replay.server.simulate import play_logged_match
>>> log = play_logged_match("eram41", seed=b"regress doc")  # reproducible: not secret
>>> regress_log("tarneeb.testing.adapters:reference", log, time_limit=None).status
'agree'
>>> report = regress_log("tarneeb.testing.adapters:broken_trump", log, time_limit=None)
>>> report.status, report.first.kind
('disagree', 'trick-winner')
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path

from tarneeb.replay.archive.paths import ArchiveError, logs_under
from tarneeb.replay.log import LogError, parse_log, read_log
from tarneeb.replay.log.stream import DEFAULT_LIMITS, Limits
from tarneeb.testing.protocol import DEFAULT_TIME_LIMIT, EngineFactory
from tarneeb.testing.regress.command import EngineCommand
from tarneeb.testing.regress.driver import METHODS, assert_agrees, compare, run_script
from tarneeb.testing.regress.report import (
    DISAGREEMENTS,
    ENGINE_FAILURES,
    Disagreement,
    MatchReport,
    RegressRun,
    Status,
)
from tarneeb.testing.regress.runner import (
    STARTUP_LIMIT,
    EngineLoadError,
    Runner,
    load_factory,
    regress_log,
)
from tarneeb.testing.regress.scripts import (
    DealScript,
    MatchScript,
    ScriptError,
    hand_actions,
    prepare,
    script_from_history,
)

STDIN, STDIN_NAME = "-", "<stdin>"  # a path "-" is a log on standard input, so named


class RegressInputError(ValueError):
    """A path that is missing or holds no logs (bad input, exit code 2)."""


# ---------------------------------------------------------------------- many logs

def collect_logs(paths: Iterable[str | Path]) -> list[Path]:
    """The ``*.tlog`` files named: files as given, a directory's ``*.tlog`` files and its
    subdirectories' (:func:`tarneeb.replay.archive.paths.logs_under`, the rule ``verify``
    and ``audit`` follow too), ``-`` (a log on standard input) as it is.

    Raises :class:`RegressInputError` for a missing path or a directory without logs.
    """
    out: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if str(raw) == STDIN:
            out.append(p)
        elif p.is_dir():
            try:  # a subdirectory that cannot be listed is never skipped silently
                found = [Path(f) for f in logs_under(p)]
            except ArchiveError as e:
                raise RegressInputError(str(e)) from None
            if not found:
                raise RegressInputError(f"{p}: no *.tlog match logs in this directory or its "
                                        "subdirectories")
            out.extend(found)
        elif p.is_file() or os.path.lexists(p):  # a FIFO, a device, a broken link: unreadable
            out.append(p)
        else:
            raise RegressInputError(f"{p}: no such file or directory")
    if not out:
        raise RegressInputError("no match logs given")
    return out


def regress_paths(engine: str | EngineFactory | EngineCommand, paths: Iterable[str | Path],
                  time_limit: float | None = DEFAULT_TIME_LIMIT,
                  on_report: Callable[[MatchReport], None] | None = None,
                  limits: Limits = DEFAULT_LIMITS, stdin: bytes | None = None) -> RegressRun:
    """Check every log under ``paths``; ``on_report`` sees each report as it comes.
    Each log is read as a stream within ``limits`` (a larger one is unreadable). A path
    ``-`` is the log ``stdin`` holds (by default, standard input), named ``<stdin>``.

    Raises :class:`RegressInputError` (paths) or :class:`EngineLoadError` (engine)
    before any match runs.
    """
    files = collect_logs(paths)
    run = RegressRun()
    t0 = time.perf_counter()
    # an engine command's process serving on: the reports from the last match it ran are
    # shown once the next one runs, or once the process, stopped after the run, is seen
    # to have written nothing more after that match
    shared = isinstance(engine, EngineCommand) and engine.reuse
    held: list[MatchReport] = []
    with Runner(engine, time_limit) as runner:
        try:
            for path in files:
                piped = str(path) == STDIN
                name = STDIN_NAME if piped else str(path)
                try:
                    log = parse_log(sys.stdin.buffer if stdin is None else stdin, name,
                                    limits) if piped else read_log(name, limits)
                except LogError as e:
                    report = MatchReport(name, "unreadable", reason=str(e))
                else:
                    report = runner.run_log(log, name)
                run.reports.append(report)
                if report.compared and shared:  # the engine ran: the reports before go
                    _show(held, on_report)
                held.append(report)
                if not held[0].compared or not shared:  # nothing held for the engine
                    _show(held, on_report)
            stray = runner.finish()
            if stray is not None and held and held[0].status == "agree":
                held[0].status = "engine-failure"
                held[0].first = Disagreement("protocol", f"after the match: {stray}")
        finally:  # (a Ctrl-C: the reports made are shown still)
            _show(held, on_report)
    run.seconds = time.perf_counter() - t0
    return run


def _show(reports: list[MatchReport], on_report: Callable[[MatchReport], None] | None) -> None:
    """Pass ``reports`` to ``on_report`` (if any), emptying the list."""
    if on_report is not None:
        for report in reports:
            on_report(report)
    reports.clear()


__all__ = [
    "DEFAULT_TIME_LIMIT", "DISAGREEMENTS", "ENGINE_FAILURES", "METHODS", "STARTUP_LIMIT",
    "DealScript", "Disagreement", "EngineLoadError", "MatchReport", "MatchScript",
    "RegressInputError", "RegressRun", "Runner", "ScriptError", "Status", "assert_agrees",
    "collect_logs", "compare", "hand_actions", "load_factory", "prepare", "regress_log",
    "regress_paths", "run_script", "script_from_history",
]
