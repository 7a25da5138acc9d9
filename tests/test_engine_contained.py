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
                             engine_cmd, "--time-limit", "60", str(SHORT)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        end = time.monotonic() + 30
        while not marks.exists() or not marks.read_text():
            assert time.monotonic() < end and proc.poll() is None
            time.sleep(0.05)
        engine, child = _marks(marks)
        time.sleep(0.3)  # in to_move, hanging
        assert child in _running(engine)
        proc.send_signal(signal.SIGINT)
        proc.wait(15)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode != 0
    assert b"Traceback" not in (proc.stderr.read() if proc.stderr else b"")
    assert _gone(engine) == []
