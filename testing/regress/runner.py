"""Running an engine's matches each in a worker process with a time limit.

A :class:`Runner` loads the engine (``MODULE:FACTORY``, see :func:`load_factory`) in a
worker process (``spawn``), reused while the engine behaves and replaced after a
timeout or a crash; an engine that loops past the time limit or kills its process
fails that match, and the run goes on. :func:`regress_log` checks one log that way.
"""

from __future__ import annotations

import contextlib
import importlib
import multiprocessing
import multiprocessing.connection
import multiprocessing.heap
import multiprocessing.sharedctypes
import multiprocessing.spawn
import multiprocessing.util
import os
import signal
import sys
import time
import types
from collections.abc import Iterator, Sequence
from typing import Any

from tarneeb.replay.log import ParsedLog
from tarneeb.replay.rules.actions import describe_action
from tarneeb.testing.protocol import DEFAULT_TIME_LIMIT, EngineFactory
from tarneeb.testing.regress.command import EngineCommand, EngineStartError
from tarneeb.testing.regress.driver import METHODS, _said, run_script
from tarneeb.testing.regress.referee import WITH_VERIFIER, RefereeGuard, referee_changed
from tarneeb.testing.regress.report import Disagreement, MatchReport
from tarneeb.testing.regress.scripts import MatchScript, ScriptError, prepare

if sys.platform != "win32":  # the spawn machinery, imported with this module (see below)
    import multiprocessing.popen_spawn_posix
    import multiprocessing.resource_tracker

# The multiprocessing submodules above are imported here rather than on first use, so
# that they live exactly as long as this module: a test runner that drops modules
# imported during a run (pytester) would otherwise leave the package pointing at one
# copy of multiprocessing.heap and sys.modules at another, and pickling fails.

STARTUP_LIMIT = 60.0  # starting the worker and importing the engine's module


class EngineLoadError(ValueError):
    """``MODULE:FACTORY`` does not name an importable factory (bad input, exit code 2)."""


def load_factory(spec: str) -> EngineFactory:
    """The factory named by ``MODULE:FACTORY`` (``FACTORY`` may be dotted, ``pkg.mod:Cls.make``).

    >>> load_factory("tarneeb.testing.adapters:reference").__name__
    'reference'
    """
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name.strip() or not attr.strip():
        raise EngineLoadError(f"an engine is named MODULE:FACTORY (for example "
                              f"tarneeb.testing.adapters:reference), not {spec!r}")
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as e:
        raise EngineLoadError(f"cannot import the engine module {module_name!r}: "
                              f"{_said(e)}") from None
    except (Exception, SystemExit) as e:
        raise EngineLoadError(f"importing the engine module {module_name!r} raised "
                              f"{type(e).__name__}: {_said(e)}") from None
    for part in attr.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise EngineLoadError(f"the module {module_name!r} has no {attr!r}") from None
    if not callable(obj):
        raise EngineLoadError(f"{spec} is not callable: it must return an engine")
    factory: EngineFactory = obj
    return factory


# ---------------------------------------------------------------------- isolation

def _worker_main(conn: Any, engine: str | EngineFactory, progress: Any) -> None:
    """The worker process: load the factory, then run match scripts until told to stop.

    The engine's prints go to stderr, so the caller's stdout (``--json``) stays clean.
    The worker is a session of its own, before the engine is imported: its process group
    is the engine and every process it starts, killed whole on every way out
    (:meth:`Runner._kill`), and Ctrl-C at the terminal reaches the caller alone.
    """
    if sys.platform != "win32":
        os.setsid()
    with contextlib.suppress(OSError, ValueError):
        sys.stdout.flush()
        os.dup2(2, 1)
    sys.stdout = sys.stderr
    guard = RefereeGuard()  # the referee as it is before the engine's code runs
    try:
        factory = load_factory(engine) if isinstance(engine, str) else engine
    except EngineLoadError as e:
        conn.send(("error", str(e)))
        return
    changed = guard.changed()
    if changed is not None:
        conn.send(("error", referee_changed(changed)))
        return
    conn.send(("ready", None))
    while True:
        try:
            script = conn.recv()
        except (EOFError, OSError):
            return
        if script is None:
            return
        try:
            try:
                report = run_script(factory, script, progress, isolated=True)
            except ScriptError as e:
                conn.send(("script-error", str(e)))
                continue
            changed = guard.changed()
            if changed is not None:  # its report is no check: the worker goes with it
                conn.send(("referee", referee_changed(changed)))
                return
            conn.send(("report", report))
        except OSError:  # the engine closed the pipe's descriptor: the caller sees the
            # worker end (and not the pipe's own traceback as it is let go)
            with contextlib.suppress(OSError, ValueError):
                sys.stderr.flush()
            os._exit(1)


@contextlib.contextmanager
def _main_module_hidden() -> Iterator[None]:
    """Start a spawn worker without re-running the caller's ``__main__`` in it.

    The worker needs nothing from ``__main__`` (its target and the engine are
    imported by name), and a script without an ``if __name__ == "__main__"``
    guard would otherwise run again inside it.
    """
    saved = sys.modules.get("__main__")
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        if saved is not None:
            sys.modules["__main__"] = saved


def _method_at(progress: Sequence[int]) -> str:
    code = progress[3]
    name = ("factory", *METHODS)[code] if 0 <= code <= len(METHODS) else None
    return "the engine factory" if name == "factory" else f"{name}()" if name else "the engine"


class Runner:
    """Runs matches of one engine, each in a worker process with a time limit.

    ``engine`` is ``"MODULE:FACTORY"`` or a factory importable by name (a
    module-level function or class), or an :class:`~tarneeb.testing.regress.command.EngineCommand`
    (an engine in any language, over the line protocol: its process is the isolation, so
    the driver runs in this process and every read from the engine has the match's
    deadline). ``time_limit=None`` runs in this process with no limit and no isolation
    (fast, for engines you trust).

    >>> from tarneeb.replay.rules.ruleset import preset
    >>> with Runner("tarneeb.testing.adapters:reference", time_limit=None) as r:
    ...     r.run(MatchScript(preset("eram41"), 0, (), "empty")).status
    'agree'
    """

    def __init__(self, engine: str | EngineFactory | EngineCommand,
                 time_limit: float | None = DEFAULT_TIME_LIMIT,
                 startup_limit: float = STARTUP_LIMIT) -> None:
        self.engine = engine
        self.time_limit = time_limit
        self.startup_limit = startup_limit
        self.workers_started = 0
        self._factory: EngineFactory | None = None
        self._proc: Any = None
        self._conn: Any = None
        self._ctx = multiprocessing.get_context("spawn")
        self._progress: Any = None
        self._guard: RefereeGuard | None = None  # in this process: the referee as it was

    # -- lifecycle
    def start(self) -> None:
        """Load the engine (in the worker when isolated); :class:`EngineLoadError` if it fails."""
        if isinstance(self.engine, EngineCommand):
            self.engine.time_limit = self.time_limit
            self.engine.startup_limit = min(self.engine.startup_limit, self.startup_limit)
            try:
                self.engine.start()
            except EngineStartError as e:
                raise EngineLoadError(str(e)) from None
            return
        if self.time_limit is None:
            if self._factory is None:
                self._guard = RefereeGuard(WITH_VERIFIER)  # (the logs read here too)
                self._factory = (load_factory(self.engine) if isinstance(self.engine, str)
                                 else self.engine)
                self._check_referee()
            return
        if self._proc is not None:
            return
        if self._progress is None:
            self._progress = self._ctx.RawArray("i", 5)
        parent, child = self._ctx.Pipe()
        proc = self._ctx.Process(target=_worker_main, args=(child, self.engine, self._progress),
                                 name="tarneeb-regress-worker", daemon=True)
        from_main = getattr(self.engine, "__module__", None) == "__main__" or (
            isinstance(self.engine, str) and self.engine.startswith("__main__:"))
        with contextlib.nullcontext() if from_main else _main_module_hidden():
            proc.start()
        child.close()
        self._proc, self._conn = proc, parent
        self.workers_started += 1
        try:
            ready = parent.poll(self.startup_limit)
            kind, detail = parent.recv() if ready else ("error", None)
        except (EOFError, OSError):
            kind, detail = "error", None
        if kind != "ready":
            self._kill()
            if detail is None:
                detail = (f"the engine's worker did not start within {self.startup_limit:g} s "
                          f"(importing {self.engine!r})" if not ready else
                          f"the engine's worker died while importing {self.engine!r}")
            raise EngineLoadError(detail)

    def _check_referee(self) -> None:
        """In this process: an engine that changed the referee ends the run
        (:class:`EngineLoadError`), as no answer of it can be checked from then on."""
        changed = None if self._guard is None else self._guard.changed()
        if changed is not None:
            raise EngineLoadError(referee_changed(changed))

    def finish(self) -> str | None:
        """Stop an engine command's process after the run's last match: what it wrote
        unasked after that match's last answer (:meth:`EngineCommand.finish`), if anything.
        Engines loaded in Python have no output of their own to read: None."""
        if isinstance(self.engine, EngineCommand):
            return self.engine.finish()
        return None

    def close(self) -> None:
        """Stop the worker (politely, then by force)."""
        if isinstance(self.engine, EngineCommand):
            self.engine.close()
            return
        proc, conn = self._proc, self._conn
        if proc is None:
            return
        with contextlib.suppress(OSError, BrokenPipeError):
            conn.send(None)
        proc.join(1.0)
        self._kill()

    def _kill(self) -> None:
        """Stop the worker and every process the engine started in it (its process group,
        killed even when the worker has exited: a process it started may live on, and the
        group's number is not given to another process while any member lives)."""
        proc, conn = self._proc, self._conn
        self._proc = self._conn = None
        if proc is not None:
            if sys.platform != "win32" and proc.pid is not None:
                with contextlib.suppress(OSError):  # no such group: none started, all gone
                    os.killpg(proc.pid, signal.SIGKILL)
            if proc.is_alive():  # (killed before it made its session)
                proc.kill()
            proc.join(5.0)
        if conn is not None:
            conn.close()

    def __enter__(self) -> Runner:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- matches
    def run_log(self, log: bytes | ParsedLog, name: str = "<log>") -> MatchReport:
        """Check one log: skipped or unreadable when it is no reference."""
        t0 = time.perf_counter()
        script = prepare(log, name)
        report = script if isinstance(script, MatchReport) else self.run(script)
        report.seconds = time.perf_counter() - t0
        return report

    def run(self, script: MatchScript) -> MatchReport:
        """Check one match script."""
        t0 = time.perf_counter()
        if isinstance(self.engine, EngineCommand):
            self.start()
            report = run_script(self.engine, script)
        elif self.time_limit is None:
            self.start()
            if self._factory is None:  # (start() loads it)
                raise EngineLoadError("the engine was not loaded")
            report = run_script(self._factory, script)
            self._check_referee()
        else:
            report = self._run_isolated(script)
        report.seconds = time.perf_counter() - t0
        return report

    def _run_isolated(self, script: MatchScript) -> MatchReport:
        self.start()
        conn, proc, progress = self._conn, self._proc, self._progress
        progress[:] = [-1, -1, -1, -1, -1]
        base = MatchReport(script.name, "engine-failure", script.rules.name, script.hands,
                           script.moves)
        try:
            conn.send(script)
            answered = self._answer(conn, proc)
            if answered:
                kind, report = conn.recv()
                if kind == "report" and isinstance(report, MatchReport):
                    return report
                if kind == "script-error":
                    raise ScriptError(report)
                if kind == "referee":  # the engine changed the referee while it played
                    self._kill()
                    base.first = Disagreement("protocol", str(report))
                    return base
                raise EOFError
        except (EOFError, OSError, BrokenPipeError):
            proc.join(1.0)
            code = proc.exitcode
            self._kill()
            base.first = self._located(
                "crashed", f"the engine's process died (exit code {code}) in "
                f"{_method_at(progress)}", progress)
            return base
        self._kill()
        base.first = self._located(
            "timeout", f"no answer within the time limit of {self.time_limit:g} s: the engine "
            f"was in {_method_at(progress)}", progress)
        return base

    def _answer(self, conn: Any, proc: Any) -> bool:
        """Whether the worker answered within the time limit; :class:`EOFError` as soon as
        it is gone. A process the engine started inherits the worker's ends of its pipes
        (the answer's and the one whose closing tells the worker's end), so the worker's
        death is seen by its process, looked at every 50 ms, not by the pipes."""
        end = time.monotonic() + (self.time_limit or 0.0)
        while True:
            if conn.poll(max(0.0, min(0.05, end - time.monotonic()))):
                return True
            if not proc.is_alive():
                if conn.poll(0):
                    return True
                raise EOFError
            if time.monotonic() >= end:
                return False

    @staticmethod
    def _located(kind: str, message: str, progress: Sequence[int]) -> Disagreement:
        hand, trick, seat, _, move = (None if x < 0 else x for x in progress[:5])
        return Disagreement(kind, message, hand, trick, seat,
                            describe_action(move) if move is not None else None)


def regress_log(engine: str | EngineFactory | EngineCommand, log: bytes | ParsedLog,
                time_limit: float | None = DEFAULT_TIME_LIMIT, name: str = "<log>") -> MatchReport:
    """Check one log against an engine (a one-off worker; use :class:`Runner` for many).

    ``time_limit=None`` runs the engine in this process, without a limit.
    """
    with Runner(engine, time_limit) as runner:
        return runner.run_log(log, name)
