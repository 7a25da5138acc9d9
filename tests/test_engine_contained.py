"""An engine command is contained: whatever it starts is killed with it, on every way out
(the time limit, a bad answer, its own exit, Ctrl-C, the end of the run), and an answer
too deep to read is refused as malformed, not blamed on the engine as an exception.

The engine here is a real one (the reference server) that starts a child holding its
standard output open (``sleep``) before it misbehaves; the tests look for any process of
its process group left running.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from cli_runner import as_a_terminal_starts_it

from tarneeb.testing import EngineCommand, regress_paths

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures" / "matches"
SHORT = FIXTURES / "house-classic31-01.tlog"

FORKING = textwrap.dedent('''
    import json, os, subprocess, sys, time
    from tarneeb.testing.engine_server import REFERENCE, Server
    from tarneeb.testing.regress.runner import load_factory

    mode, marks = sys.argv[1], sys.argv[2]
    server = Server(load_factory(REFERENCE), "forking engine")
    for line in sys.stdin:
        request = json.loads(line)
        answer = server.answer(request)
        if answer is None:
            break
        if request["cmd"] == "hello":  # a child that keeps our stdout open, and sleeps
            child = subprocess.Popen(["sleep", "60"])
            with open(marks, "w") as f:
                f.write(f"{os.getpid()} {child.pid}")
        if request["cmd"] == "to_move" and mode != "behave":
            if mode == "exit":
                os._exit(0)
            if mode == "hang":
                time.sleep(60)
            if mode == "deep":
                print(json.dumps({"id": request["id"]})[:-1] + ',"seat":'
                      + "[" * 100000 + "]" * 100000 + "}", flush=True)
                continue
        print(json.dumps(answer), flush=True)
''')


@pytest.fixture(scope="module")
def forking(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("contained") / "forking_engine.py"
    path.write_text(FORKING)
    return path


def _running(pgid: int) -> list[int]:
    """The processes of group ``pgid`` still running (a zombie has stopped)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()  # state, ppid, pgrp, ...
        if int(fields[2]) == pgid and fields[0] != "Z":
            out.append(int(entry.name))
    return out


def _marks(path: Path) -> tuple[int, int]:
    engine, child = map(int, path.read_text().split())
    return engine, child


def _marks_of(path: Path, proc: subprocess.Popen[bytes]) -> tuple[int, int]:
    """:func:`_marks` once the engine has written them (within 30 s, ``proc`` still up)."""
    end = time.monotonic() + 30
    while not path.exists() or not path.read_text():
        assert time.monotonic() < end and proc.poll() is None
        time.sleep(0.05)
    return _marks(path)


def _gone(pgid: int, within: float = 5.0) -> list[int]:
    end = time.monotonic() + within
    while (left := _running(pgid)) and time.monotonic() < end:
        time.sleep(0.05)
    return left


pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(),
                                reason="reads processes from /proc")


@pytest.mark.parametrize(("mode", "kind", "words"), [
    ("exit", "crashed", ["died (exit code 0) in to_move()",
                         "still held open by a process it started"]),
    ("hang", "timeout", ["no answer within the time limit of 1 s"]),
    ("deep", "garbage", ["malformed", "nested 100001 deep"]),
])
def test_a_failed_engine_goes_with_all_it_started(
        forking: Path, tmp_path: Path, mode: str, kind: str, words: list[str]) -> None:
    marks = tmp_path / "pids"
    cmd = EngineCommand([sys.executable, str(forking), mode, str(marks)], time_limit=1)
    t0 = time.monotonic()
    run = regress_paths(cmd, [SHORT], time_limit=1)
    failed = run.reports[0]
    assert failed.status == "engine-failure" and failed.first.kind == kind, failed.line()
    for w in words:
        assert w in failed.first.message, failed.line()
    assert "raised" not in failed.first.message and "RecursionError" not in failed.line()
    if mode == "exit":  # found out when the engine went, not at the time limit
        assert time.monotonic() - t0 < 5
    assert _gone(_marks(marks)[0]) == []


def test_the_end_of_the_run_stops_all_the_engine_started(forking: Path, tmp_path: Path) -> None:
    marks = tmp_path / "pids"
    run = regress_paths(EngineCommand([sys.executable, str(forking), "behave", str(marks)]),
                        [SHORT])
    assert [r.status for r in run.reports] == ["agree"], run.reports[0].line()
    assert _gone(_marks(marks)[0]) == []


def test_ctrl_c_stops_all_the_engine_started(forking: Path, tmp_path: Path) -> None:
    marks = tmp_path / "pids"
    engine_cmd = f"{sys.executable} {forking} hang {marks}"
    proc = subprocess.Popen([sys.executable, "-m", "tarneeb", "regress", "--engine-cmd",
                             engine_cmd, "--time-limit", "600", str(SHORT)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                            preexec_fn=as_a_terminal_starts_it)
    try:
        engine, child = _marks_of(marks, proc)
        time.sleep(0.3)  # in to_move, hanging
        assert child in _running(engine)
        proc.send_signal(signal.SIGINT)
        proc.wait(60)  # a loaded machine is slow; the engine alone would hang 600 s
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode != 0
    assert b"Traceback" not in (proc.stderr.read() if proc.stderr else b"")
    assert _gone(engine) == []


# A Python engine (--engine MODULE:FACTORY) runs in a worker process; one that starts a
# process which outlives its parent (a grandchild, re-parented away from the worker) must
# go with the worker all the same: the worker is a session of its own, killed as a group.
FORKING_PY = textwrap.dedent('''
    import os, time
    from tarneeb.testing.adapters import reference

    class Forking:
        def __init__(self, mode):
            self.engine, self.mode = reference(), mode

        def __getattr__(self, name):
            return getattr(self.engine, name)

        def to_move(self, *args):
            if self.mode == "exit":
                os._exit(0)
            if self.mode == "hang":
                time.sleep(60)
            if self.mode == "garbage":
                return "garbage"
            return self.engine.to_move(*args)

    def make():
        marks = os.environ["FORKING_MARKS"]
        if not os.path.exists(marks):  # a child that starts a grandchild, then exits
            r, w = os.pipe()
            child = os.fork()
            if child == 0:
                grandchild = os.fork()
                if grandchild == 0:
                    os.execvp("sleep", ["sleep", "60"])
                os.write(w, str(grandchild).encode())
                os._exit(0)
            os.waitpid(child, 0)
            with open(marks, "w") as f:
                f.write(f"{os.getpid()} {int(os.read(r, 32))}")
        return Forking(os.environ["FORKING_MODE"])
''')


@pytest.fixture
def forking_py(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    (tmp_path / "forking_py_engine.py").write_text(FORKING_PY)
    monkeypatch.syspath_prepend(str(tmp_path))  # the spawn worker gets sys.path
    marks = tmp_path / "pids"
    monkeypatch.setenv("FORKING_MARKS", str(marks))
    return marks


def _still_running(pid: int, within: float = 5.0) -> bool:
    """Whether process ``pid`` is still running after ``within`` seconds (looked at once
    at least; a zombie has stopped)."""
    end = time.monotonic() + within
    while True:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return False
        if state == "Z":
            return False
        if time.monotonic() >= end:
            return True
        time.sleep(0.05)


@pytest.mark.parametrize(("mode", "status", "kind"), [
    ("exit", "engine-failure", "crashed"),
    ("hang", "engine-failure", "timeout"),
    ("garbage", "engine-failure", "garbage"),
    ("behave", "agree", None),
])
def test_a_python_engine_goes_with_all_it_started(
        forking_py: Path, monkeypatch: pytest.MonkeyPatch, mode: str, status: str,
        kind: str | None) -> None:
    """Its own exit, the time limit, a bad answer, the end of the run: the worker, and the
    grandchild the engine started (which its own parent did not wait for), are gone."""
    monkeypatch.setenv("FORKING_MODE", mode)
    run = regress_paths("forking_py_engine:make", [SHORT], time_limit=2 if mode == "hang" else 30)
    report = run.reports[0]
    assert report.status == status, report.line()
    assert (report.first.kind if report.first else None) == kind, report.line()
    if mode == "exit":  # found out when the worker went, not at the time limit
        assert report.seconds < 10, report.line()
    worker, grandchild = _marks(forking_py)
    assert not _still_running(grandchild)
    assert _gone(worker) == []


def test_ctrl_c_stops_all_a_python_engine_started(forking_py: Path, tmp_path: Path) -> None:
    import os

    env = {**os.environ, "FORKING_MODE": "hang",
           "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen([sys.executable, "-m", "tarneeb", "regress", "--engine",
                             "forking_py_engine:make", "--time-limit", "600", str(SHORT)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env,
                            preexec_fn=as_a_terminal_starts_it)
    try:
        worker, grandchild = _marks_of(forking_py, proc)
        time.sleep(0.3)  # in to_move, hanging
        assert _still_running(grandchild, within=0)
        proc.send_signal(signal.SIGINT)
        proc.wait(60)  # a loaded machine is slow; the engine alone would hang 600 s
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode != 0
    assert not _still_running(grandchild)  # (before reading stderr, which it holds open)
    assert _gone(worker) == []
    assert b"Traceback" not in (proc.stderr.read() if proc.stderr else b"")
