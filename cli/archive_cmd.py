"""``tarneeb audit``: a whole archive of logs to one verdict, with fairness statistics.

>>> import typer
>>> app = typer.Typer()
>>> register(app)
>>> [c.name for c in app.registered_commands]
['audit']
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from . import archive_run
from .archive_run import (
    DEFAULT_ALPHA,
    _exit_code,
    _play_options,
    _progress,
    fast_path,
    parse_fast,
)
from .options import CHECK, PinKey, PinKeys, PinRoot, option


def register(app: typer.Typer) -> None:
    """Add the ``audit`` command to ``app``."""

    @app.command("audit", rich_help_panel=CHECK)
    def audit(
        paths: Annotated[list[str], typer.Argument(
            help="Logs: files, directories (searched recursively for *.tlog), glob "
                 "patterns, URLs of an object store (with fsspec), or - to read one path "
                 "a line from standard input.", show_default=False)],
        jobs: Annotated[int | None, typer.Option(
            "--jobs", "-j", min=1, help="Local processes (default: every core).",
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
        report: Annotated[Path | None, typer.Option(
            "--report", metavar="FILE",
            help="Write a self-contained HTML report (pip install 'tarneeb[report]').")] = None,
        skip_unreadable: Annotated[bool, typer.Option(
            "--skip-unreadable",
            help="Files that cannot be read at all (gone, not allowed, not a regular "
                 "file) and directories that cannot be listed leave the exit code as the "
                 "rest makes it; they are still counted and named.")] = False,
        alpha: Annotated[float, typer.Option(
            min=1e-9, max=0.5,
            help="Family-wise error rate of the fairness tests.")] = DEFAULT_ALPHA,
        state: Annotated[Path | None, typer.Option(
            "--state", metavar="FILE",
            help="Keep what the audit learns in FILE (SQLite; made when missing): the next "
                 "run reads only new or changed logs, reports changed and lost logs, and "
                 "tests fairness with evidence valid however often one looks "
                 "(docs/ARCHIVE.md).")] = None,
        removed: Annotated[list[str] | None, typer.Option(
            "--removed", metavar="PATTERN",
            help="With --state: logs gone from the archive on purpose (a path or a glob "
                 "pattern, repeatable): reported as removed, not as lost.")] = None,
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
            help="Verification, findings and counts only: no fairness statistics (exit "
                 "code 3 is then never given).")] = False,
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
        raise typer.Exit(archive_run.run(
            paths, jobs, scheduler, as_json, tables, key, keys, root, report,
            skip_unreadable, alpha, state, removed, require_proof, play, play_sample,
            no_stats))


# the fast path and the helpers tests call, where they were
__all__ = ["DEFAULT_ALPHA", "_exit_code", "_play_options", "_progress", "fast_path",
           "parse_fast", "register"]
