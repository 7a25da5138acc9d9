"""``tarneeb regress``: drive another engine through recorded matches.

>>> import typer
>>> app = typer.Typer()
>>> register(app)
>>> [c.name or c.callback.__name__ for c in app.registered_commands]
['regress']
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from tarneeb.audit.encoding import json_shown, shown
from tarneeb.replay.log.stream import DEFAULT_LIMITS, Limits
from tarneeb.testing.protocol import DEFAULT_TIME_LIMIT

from .common import STDIO, expand_logs, output_file, refuse_to_replace_listed, write_output
from .options import ENGINES

if TYPE_CHECKING:
    from tarneeb.testing.regress.report import MatchReport


def _error(message: str) -> typer.Exit:
    typer.echo(f"tarneeb: error: {shown(message)}", err=True)
    return typer.Exit(2)


def stdin_paths(data: bytes) -> list[str] | None:
    """What ``-`` stands for, from the bytes on standard input: the paths it lists (one a
    line, or a JSON list of strings), or None for a log (a log is never UTF-8 text: its
    first byte is a msgpack array's). Raises ValueError for a JSON list that is not one of
    paths.

    >>> stdin_paths(b"a.tlog\\nlogs/\\n\\n"), stdin_paths(b' ["a.tlog"] ')
    (['a.tlog', 'logs/'], ['a.tlog'])
    >>> stdin_paths(bytes([0x9c, 0x00])) is None
    True
    """
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if "\0" in text:
        return None
    if text.lstrip().startswith("["):
        try:
            listed = json.loads(text)
        except ValueError as e:
            raise ValueError(f"standard input is not a JSON list of paths: {e}") from None
        if not isinstance(listed, list) or not all(isinstance(p, str) for p in listed):
            raise ValueError("standard input must be a JSON list of paths (strings)")
        return listed
    return [line.strip() for line in text.splitlines() if line.strip()]


def _stdin_args(args: list[str], limits: Limits) -> tuple[list[str], bytes | None]:
    """``args`` with ``-`` replaced by the paths standard input lists, or kept with the
    log it holds (read once, within ``--max-bytes``)."""
    if STDIO not in args:
        return args, None
    if args.count(STDIO) > 1:
        raise _error("- (standard input) can be given once: it is read once")
    data = sys.stdin.buffer.read(limits.max_bytes + 1)
    try:
        listed = stdin_paths(data)
    except ValueError as e:
        raise _error(str(e)) from None
    if listed is None:
        return args, data
    if STDIO in listed:
        raise _error("standard input lists -: it holds the paths of logs or one log")
    i = args.index(STDIO)
    return args[:i] + listed + args[i + 1:], None


def corpus() -> Path:
    """The directory of the recorded-match corpus installed with the package."""
    from importlib.resources import files

    return Path(str(files("tarneeb.corpus")))


def register(app: typer.Typer) -> None:
    """Add the ``regress`` command to ``app``."""

    @app.command(rich_help_panel=ENGINES)
    def regress(
        engine: Annotated[str | None, typer.Option(
            "--engine", metavar="MODULE:FACTORY",
            help="The engine under test, in Python: a factory returning an object with the "
                 "tarneeb.testing.Engine methods (see docs/ENGINES.md), e.g. "
                 "tarneeb.testing.adapters:reference.", show_default=False)] = None,
        engine_cmd: Annotated[str | None, typer.Option(
            "--engine-cmd", metavar='"CMD ARGS..."',
            help="The engine under test, in any language: a command that speaks the line "
                 "protocol tarneeb-engine on its standard input and output (see "
                 "docs/ENGINES.md), e.g. \"npx tarneeb-engine\" or \"python -m "
                 "tarneeb.testing.engine_server\".", show_default=False)] = None,
        fresh_process: Annotated[bool, typer.Option(
            "--engine-cmd-per-match",
            help="With --engine-cmd: start the command afresh for every match (by default "
                 "one process serves match after match, and is restarted after a "
                 "failure).")] = False,
        paths: Annotated[list[str] | None, typer.Argument(
            metavar="LOG...", help="Match logs: *.tlog files, directories holding them, "
                                   "quoted globs, or - for standard input (a log, or the "
                                   "paths of logs: one a line or a JSON list); none: the "
                                   "corpus installed with tarneeb (fixtures/matches).",
            show_default=False)] = None,
        time_limit: Annotated[float, typer.Option(
            "--time-limit", min=0.01,
            help="Seconds each match may take (--engine); with --engine-cmd, seconds each "
                 "call may take, from the request sent to its answer.")] = DEFAULT_TIME_LIMIT,
        match_time_limit: Annotated[float | None, typer.Option(
            "--match-time-limit", min=0.01, metavar="SECONDS",
            help="With --engine-cmd: also a guard on each whole match (default: none beyond "
                 "the calls').", show_default=False)] = None,
        as_json: Annotated[bool, typer.Option("--json", help="The reports as JSON.")] = False,
        junit_xml: Annotated[str | None, typer.Option(
            "--junit-xml", metavar="FILE",
            help="Also write the reports as JUnit XML, for CI systems (- for stdout).")
        ] = None,
        max_bytes: Annotated[int, typer.Option(
            "--max-bytes", min=1, help="Take no log larger than this many bytes.")
        ] = DEFAULT_LIMITS.max_bytes,
        max_records: Annotated[int, typer.Option(
            "--max-records", min=1, help="Take no log of more records than this.")
        ] = DEFAULT_LIMITS.max_records,
        max_hands: Annotated[int, typer.Option(
            "--max-hands", min=1, help="Take no match of more dealing attempts than this.")
        ] = DEFAULT_LIMITS.max_hands,
    ) -> None:
        """Test another engine on recorded matches: where each differs.

        Every recorded match is replayed on the engine; per match, the report says where
        it first disagrees (legal moves, a trick winner, a hand score, the totals, the
        winner).

        Exit code: 0 every match agrees, 1 a disagreement or engine failure,
        2 bad input (an engine that cannot be imported, a missing path, an unreadable log).
        """
        from tarneeb.testing.regress.command import EngineCommand, EngineStartError
        from tarneeb.testing.regress.run import RegressInputError, regress_paths
        from tarneeb.testing.regress.runner import EngineLoadError

        if (engine is None) == (engine_cmd is None):
            raise _error("name the engine under test with --engine MODULE:FACTORY (Python) or "
                         "--engine-cmd \"CMD ARGS...\" (any language), one of them")
        under_test: str | EngineCommand
        if engine_cmd is not None:
            try:
                under_test = EngineCommand(engine_cmd, reuse=not fresh_process,
                                           match_limit=match_time_limit)
            except (EngineStartError, ValueError) as e:
                raise _error(f"--engine-cmd: {e}") from None
        else:
            if match_time_limit is not None:
                raise _error("--match-time-limit goes with --engine-cmd (a Python engine's "
                             "--time-limit is per match already)")
            assert engine is not None  # one of the two options is given (checked above)
            under_test = engine
        xml_out = junit_xml == STDIO  # the XML has standard output: the lines go to stderr
        if xml_out and as_json:
            raise _error("--json and --junit-xml - both write standard output: give "
                         "--junit-xml a file")
        if os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())  # MODULE may be a file in the current directory

        def show(report: MatchReport) -> None:
            if not as_json:
                typer.echo(shown(report.line()), err=report.status == "unreadable" or xml_out)

        limits = Limits(max_bytes=max_bytes, max_records=max_records, max_hands=max_hands)
        args, piped = _stdin_args([str(p) for p in paths or [str(corpus())]], limits)
        logs = expand_logs(args)
        if junit_xml is not None:  # a file that cannot be one refused now, not after the run
            output_file(junit_xml)
            refuse_to_replace_listed(junit_xml, logs)
        try:
            run = regress_paths(under_test, logs, time_limit, on_report=show,
                                limits=limits, stdin=piped)
        except (RegressInputError, EngineLoadError) as e:
            raise _error(str(e)) from None
        if junit_xml is not None:
            from tarneeb.testing.regress.junit import junit_xml as to_junit

            write_output(junit_xml, to_junit(run, engine if engine is not None
                                             else f"--engine-cmd {engine_cmd}"))
        if as_json:
            typer.echo(json_shown(json.dumps(run.to_json(), ensure_ascii=False, indent=1)))
        else:  # an engine's answers quoted in it are shown escaped, line by line
            typer.echo("\n".join(map(shown, run.summary().split("\n"))), err=xml_out)
        if run.nothing_compared is not None:  # said after the summary, exit 2
            typer.echo(f"tarneeb: error: {run.nothing_compared}", err=True)
        raise typer.Exit(run.exit_code)


__all__ = ["register"]
