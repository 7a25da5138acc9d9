"""pytest plugin of :mod:`tarneeb.testing`: one test per recorded match, against your engine.

Installed with the package (entry point ``pytest11``), it does nothing unless
asked::

    pytest --tarneeb-logs fixtures/matches --tarneeb-engine mypkg.adapter:make_engine

Each ``*.tlog`` of each ``--tarneeb-logs`` directory (or file) becomes one test
item, ``<path>::regress``. It passes when the engine agrees with the recording
everywhere, fails with the first disagreement (or the engine's failure) as its
message, and is skipped when the log is not clean (no reference). A run whose
recorded matches were all skipped compared nothing: it fails (exit 4, a usage error, as
``tarneeb regress`` exits 2), so that a CI job never goes green on logs that test nothing.
``--tarneeb-time-limit`` bounds each match (default 10 s; with
``--tarneeb-engine-cmd``, each call over the protocol); the matches run in
one worker process, replaced after a timeout or a crash. An engine in another
language is a command speaking the line protocol (``docs/ENGINES.md``)::

    pytest --tarneeb-engine-cmd "npx tarneeb-engine"

Without ``--tarneeb-logs``, the corpus installed with tarneeb is the logs. The
session fixture ``tarneeb_engine`` is the engine under test as a factory, for
property tests (``assert_agrees(tarneeb_engine, match)``).

>>> TarneebMismatch("hand 0, trick 3: ...").args[0]
'hand 0, trick 3: ...'
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

PLUGIN_NAME = "tarneeb-regress"


class TarneebMismatch(Exception):
    """A match where the engine under test departs from the recording."""


def _seconds(text: str) -> float:
    """A time limit: a number of seconds of at least 0.01, as ``tarneeb regress`` takes it
    (``nan`` turned the limit off: an engine that hangs hung the run)."""
    import argparse
    import math

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not (math.isfinite(value) and value >= 0.01):
        raise argparse.ArgumentTypeError(f"{text!r}: give a number of seconds of at least "
                                         "0.01")
    return value


def pytest_addoption(parser: pytest.Parser) -> None:
    """The ``--tarneeb-logs``, ``--tarneeb-engine`` and ``--tarneeb-time-limit`` options."""
    group = parser.getgroup("tarneeb", "regress another Tarneeb engine against recorded matches")
    group.addoption("--tarneeb-logs", action="append", default=[], metavar="DIR",
                    help="a directory of *.tlog match logs (or one log): one test per match; "
                         "repeatable")
    group.addoption("--tarneeb-engine", default=None, metavar="MODULE:FACTORY",
                    help="the engine under test: a factory returning an object with the "
                         "tarneeb.testing.Engine methods")
    group.addoption("--tarneeb-engine-cmd", default=None, metavar="CMD",
                    help="the engine under test, in any language: a command speaking the "
                         "line protocol tarneeb-engine on stdin and stdout (quoted: "
                         "\"npx tarneeb-engine\")")
    group.addoption("--tarneeb-time-limit", type=_seconds, default=10.0, metavar="SECONDS",
                    help="seconds each match may take (default 10); with "
                         "--tarneeb-engine-cmd, seconds each call may take")


def installed_corpus() -> str:
    """The directory of the recorded-match corpus installed with the package."""
    from importlib.resources import files

    return str(files("tarneeb.corpus"))


def pytest_configure(config: pytest.Config) -> None:
    logs = config.getoption("tarneeb_logs")
    engine: Any = config.getoption("tarneeb_engine")
    command = config.getoption("tarneeb_engine_cmd")
    if not logs and engine is None and command is None:
        return
    if engine is not None and command is not None:
        raise pytest.UsageError("--tarneeb-engine and --tarneeb-engine-cmd name the engine "
                                "under test: give one of them")
    if engine is None and command is None:
        raise pytest.UsageError("--tarneeb-logs needs --tarneeb-engine MODULE:FACTORY "
                                "or --tarneeb-engine-cmd CMD (the engine under test)")
    if command is not None:
        from tarneeb.testing.regress.command import EngineCommand, EngineStartError

        try:
            engine = EngineCommand(command, config.getoption("tarneeb_time_limit"))
        except (EngineStartError, ValueError) as e:
            raise pytest.UsageError(f"--tarneeb-engine-cmd: {e}") from None
    config.pluginmanager.register(RegressSession(config, logs or [installed_corpus()], engine),
                                  PLUGIN_NAME)


@pytest.fixture(scope="session")
def tarneeb_engine(request: pytest.FixtureRequest) -> Any:
    """The engine under test as a factory (``--tarneeb-engine`` or ``--tarneeb-engine-cmd``),
    for property tests: ``assert_agrees(tarneeb_engine, match)``. An engine command's process
    is the one the recorded matches use."""
    session = request.config.pluginmanager.get_plugin(PLUGIN_NAME)
    if session is None:
        raise pytest.UsageError("the tarneeb_engine fixture needs --tarneeb-engine "
                                "MODULE:FACTORY or --tarneeb-engine-cmd CMD")
    if isinstance(session.engine, str):
        from tarneeb.testing.regress.runner import load_factory

        return load_factory(session.engine)
    return session.engine


class RegressSession:
    """The plugin's state for one pytest run: the log files and the engine's runner."""

    def __init__(self, config: pytest.Config, logs: list[str], engine: Any) -> None:
        from tarneeb.testing.regress.run import RegressInputError, collect_logs

        self.config = config
        self.engine = engine
        self.time_limit: float = config.getoption("tarneeb_time_limit")
        try:
            self.files = collect_logs(logs)
        except RegressInputError as e:
            raise pytest.UsageError(f"--tarneeb-logs: {e}") from None
        self.wanted = {f.resolve() for f in self.files}
        self._runner: Any = None
        self.ran = self.skipped = 0  # the recorded matches run, and those skipped
        self.collected: set[Path] = set()  # the wanted logs pytest collected
        for arg in logs:  # collect the logs along with whatever else pytest collects
            if arg not in config.args:
                config.args.append(arg)
        if os.getcwd() not in sys.path:
            sys.path.insert(0, os.getcwd())  # MODULE may live in the current directory

    def runner(self) -> Any:
        """The engine's runner, started on first use."""
        if self._runner is None:
            from tarneeb.testing.regress.runner import Runner

            self._runner = Runner(self.engine, self.time_limit)
        return self._runner

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        from tarneeb.testing.regress.runner import EngineLoadError

        if self.config.getoption("collectonly"):
            return
        try:
            self.runner().start()
        except EngineLoadError as e:
            option = "--tarneeb-engine" if isinstance(self.engine, str) else "--tarneeb-engine-cmd"
            raise pytest.UsageError(f"{option}: {e}") from None

    def pytest_collect_file(self, file_path: Path, parent: pytest.Collector) -> Any:
        if file_path.suffix == ".tlog" and file_path.resolve() in self.wanted:
            self.collected.add(file_path.resolve())
            return TarneebLogFile.from_parent(parent, path=file_path, owner=self)
        return None

    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Every log named is an item: pytest enters no directory its ``norecursedirs``
        names (``build``, ``.*``, ``node_modules``, ...), and a log there never ran while
        the run passed. (Under pytest-xdist the workers collect, and each checks.)"""
        if getattr(self.config.option, "dist", "no") != "no" \
                and not hasattr(self.config, "workerinput"):
            return
        missing = sorted(self.wanted - self.collected)
        if missing:
            shown = ", ".join(str(p) for p in missing[:3]) + (
                f" and {len(missing) - 3} more" if len(missing) > 3 else "")
            raise pytest.UsageError(
                f"--tarneeb-logs: {len(missing)} log(s) not collected by pytest, which does "
                f"not enter directories its norecursedirs names ({shown}): name their "
                "directory in norecursedirs' place, or move them")

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Count the recorded matches run and skipped from their reports (under
        pytest-xdist the workers run them, and only their reports reach this process)."""
        if report.when != "call" or not report.nodeid.endswith(".tlog::regress"):
            return
        self.ran += 1
        self.skipped += bool(report.skipped)

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.ran and self.skipped == self.ran and exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.USAGE_ERROR

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.ran and self.skipped == self.ran:
            terminalreporter.write_line(
                f"tarneeb: no match compared: every recorded match ({self.ran}) was skipped "
                "(not clean: no reference)", red=True)

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if self._runner is not None:
            self._runner.close()


class TarneebLogFile(pytest.File):
    """A ``*.tlog`` file: one match, one item."""

    def __init__(self, *, owner: RegressSession, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.owner = owner

    def collect(self) -> list[pytest.Item]:
        return [TarneebMatchItem.from_parent(self, name="regress", log_path=self.path,
                                             owner=self.owner)]


class TarneebMatchItem(pytest.Item):
    """One recorded match replayed on the engine under test."""

    def __init__(self, *, log_path: Path, owner: RegressSession, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.log_path = log_path
        self.owner = owner

    def runtest(self) -> None:
        try:
            data = self.log_path.read_bytes()
        except OSError as e:
            raise TarneebMismatch(f"{self.name}: cannot read: {e.strerror or e}") from None
        report = self.owner.runner().run_log(data, self.log_path.name)
        self.user_properties.append(("tarneeb", report.to_json()))
        if report.status == "skipped":
            pytest.skip(report.reason or "not a reference")
        if not report.ok:
            raise TarneebMismatch(report.line())

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException],
                     style: Any = None) -> Any:
        if isinstance(excinfo.value, TarneebMismatch):
            return str(excinfo.value)
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, int | None, str]:
        return self.log_path, None, f"tarneeb regress {self.log_path.name}"


__all__ = ["RegressSession", "TarneebLogFile", "TarneebMatchItem", "TarneebMismatch",
           "pytest_addoption", "pytest_configure", "tarneeb_engine"]
