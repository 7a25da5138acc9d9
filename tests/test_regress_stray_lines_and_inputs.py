"""``tarneeb regress`` in an engine team's CI: an engine command's stray line after the
last answer of a match fails that match (never an "agree"), the JUnit XML written to
standard output is the only thing there, and logs that are no regular files (a FIFO, a
device, a loop of links) are reported unreadable while the others run."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tarneeb.testing import EngineCommand, regress_paths

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures" / "matches"
SHORT = FIXTURES / "house-classic31-01.tlog"  # 6 hands
TWO = [SHORT, FIXTURES / "classic-kaboot-made.tlog"]
REFERENCE = "tarneeb.testing.adapters:reference"

# The reference server; in a match of house-classic31 (SHORT), once the match is won, it
# writes one more line after its answer to winner() (in the same write: no race with the
# reader).
STRAY = textwrap.dedent('''
    import json, sys
    from tarneeb.testing.engine_server import REFERENCE, Server
    from tarneeb.testing.regress.runner import load_factory

    server = Server(load_factory(REFERENCE), "stray 0.1")
    odd = False
    for line in sys.stdin:
        request = json.loads(line)
        answer = server.answer(request)
        if answer is None:
            break
        if request["cmd"] == "new_match":
            odd = request["rules"]["name"] == "house-classic31"
        text = json.dumps(answer)
        if request["cmd"] == "winner" and answer.get("team") is not None and odd:
            text += "\\nGAME OVER"
        print(text, flush=True)
''')


@pytest.fixture(scope="module")
def stray(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("engines") / "stray_engine.py"
    path.write_text(STRAY)
    return path


def _cli(*argv: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "tarneeb", "regress", *argv], cwd=REPO,
                          input=stdin, capture_output=True, timeout=120, check=False)


@pytest.mark.parametrize("reuse", [True, False], ids=["one-process", "process-per-match"])
def test_a_line_written_after_a_matchs_last_answer_fails_that_match(stray: Path,
                                                                    reuse: bool) -> None:
    """Before: the match with the extra line was "ok" (exit 0 when it was the last, or
    with a process per match), and with one process the next match took the blame."""
    engine = EngineCommand([sys.executable, str(stray)], reuse=reuse)
    run = regress_paths(engine, TWO, time_limit=10)
    first, second = run.reports
    assert first.status == "engine-failure", first.line()
    assert first.first is not None and first.first.kind == "protocol"
    assert "GAME OVER" in first.line() and "winner()" in first.line()
    assert second.status == "agree", second.line()
    assert run.exit_code == 1


def test_junit_xml_on_standard_output_is_the_xml_alone() -> None:
    """Before: the match lines and the summary were printed around the XML on stdout, so
    ``regress --junit-xml - > report.xml`` wrote a file no CI could parse."""
    done = _cli("--engine", REFERENCE, "--junit-xml", "-", str(SHORT))
    assert done.returncode == 0, done.stderr
    root = ET.fromstring(done.stdout)
    assert root.get("tests") == "1" and root.get("failures") == "0"
    err = done.stderr.decode()
    assert f"{SHORT}: ok (" in err and "regress: 1 match" in err
    both = _cli("--engine", REFERENCE, "--junit-xml", "-", "--json", str(SHORT))
    assert both.returncode == 2 and both.stdout == b""
    assert both.stderr.decode().count("\n") == 1 and "standard output" in both.stderr.decode()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_log_that_is_no_regular_file_is_unreadable_and_the_others_run(
        tmp_path: Path) -> None:
    """Before: a FIFO (``regress <(curl …)``), ``/dev/null`` or a loop of links ended the
    whole run with "no such file or directory", a path that is there."""
    fifo = tmp_path / "piped.tlog"
    os.mkfifo(fifo)
    loop = tmp_path / "loop.tlog"
    loop.symlink_to(loop)
    run = regress_paths(REFERENCE, [fifo, os.devnull, loop, SHORT], time_limit=None)
    assert [r.status for r in run.reports] == ["unreadable"] * 3 + ["agree"]
    reasons = [r.reason or "" for r in run.reports[:3]]
    assert "FIFO" in reasons[0] and "character device" in reasons[1]
    assert "no such file" not in " ".join(reasons).lower()
    assert run.exit_code == 2
    done = _cli("--engine", REFERENCE, str(fifo), str(SHORT))
    assert done.returncode == 2
    assert f"{fifo}: unreadable: " in done.stderr.decode()
    assert f"{SHORT}: ok (" in done.stdout.decode()


@pytest.mark.parametrize("target", ["dir", "missing/r.xml", "file/r.xml"])
def test_a_junit_file_that_cannot_be_written_is_refused_before_any_match_runs(
        tmp_path: Path, target: str) -> None:
    """Before: a directory (or a path into no directory) as ``--junit-xml`` was refused
    only once every match had run, and the run's summary was never printed: a CI job
    learnt of a typo after its whole corpus."""
    (tmp_path / "dir").mkdir()
    (tmp_path / "file").write_text("x")
    done = _cli("--engine", REFERENCE, "--junit-xml", str(tmp_path / target), str(SHORT))
    assert done.returncode == 2 and done.stdout == b""
    err = done.stderr.decode()
    assert err.count("\n") == 1 and str(tmp_path / target) in err and "cannot write" in err
    assert not list(tmp_path.glob("**/*.xml"))


CLOSER = textwrap.dedent('''
    import os
    from tarneeb.testing.adapters import reference

    class Closer:
        def __init__(self):
            self.engine, self.moves = reference(), 0

        def __getattr__(self, name):
            return getattr(self.engine, name)

        def to_move(self, *args):
            self.moves += 1
            if self.moves == 5:  # every descriptor but the standard three closed
                os.closerange(3, 256)
            return self.engine.to_move(*args)

    def make():
        return Closer()
''')


def test_a_python_engine_that_closes_its_workers_pipe_fails_in_one_line(
        tmp_path: Path) -> None:
    """Before: the worker printed the pipe's traceback as it was let go."""
    (tmp_path / "closer.py").write_text(CLOSER)
    done = subprocess.run([sys.executable, "-m", "tarneeb", "regress", "--engine",
                           "closer:make", str(SHORT)], cwd=tmp_path, capture_output=True,
                          timeout=120, check=False)
    assert done.returncode == 1
    assert "ENGINE FAILED" in done.stdout.decode()
    assert b"Traceback" not in done.stderr and b"Error" not in done.stderr, done.stderr


# The reference server; after its answer to winner() once a match is won, it writes one
# more line a fifth of a second later (well past the moment the match ended).
LATE = STRAY.replace('''text += "\\nGAME OVER"''', '''print(text, flush=True)
        time.sleep(0.2)
        text = "GAME OVER"''').replace("import json, sys", "import json, sys, time")


def test_a_late_line_after_the_last_match_of_a_shared_process_fails_that_match(
        tmp_path: Path) -> None:
    """Before: an engine process serving every match that wrote a line more than 10 ms
    after its last answer of the run's last match was never read again: that match was
    "ok" and the run exited 0. The process is now stopped after the run and read to its
    end, and the last match it served takes the blame."""
    late = tmp_path / "late_engine.py"
    late.write_text(LATE)
    assert LATE != STRAY
    shown: list[str] = []
    engine = EngineCommand([sys.executable, str(late)], reuse=True)
    run = regress_paths(engine, [TWO[1], SHORT], time_limit=10,
                        on_report=lambda r: shown.append(r.line()))
    first, last = run.reports
    assert first.status == "agree", first.line()
    assert last.status == "engine-failure", last.line()
    assert last.first is not None and last.first.kind == "protocol"
    assert "after the match" in last.line() and "GAME OVER" in last.line()
    assert run.exit_code == 1
    # each report is shown once, as it stands in the end
    assert shown == [r.line() for r in run.reports]
    done = _cli("--engine-cmd", f"{sys.executable} {late}", str(TWO[1]), str(SHORT))
    assert done.returncode == 1, done.stderr
    assert "GAME OVER" in done.stdout.decode() + done.stderr.decode()


# The reference server with each answer written as MODE says (an engine's JSON writer).
WRITER = textwrap.dedent('''
    import json, sys
    from tarneeb.testing.engine_server import REFERENCE, Server
    from tarneeb.testing.regress.runner import load_factory

    MODE = sys.argv[1]
    late = False
    server = Server(load_factory(REFERENCE), "writer 0.1")
    for line in sys.stdin:
        request = json.loads(line)
        answer = server.answer(request)
        if answer is None:
            break
        text = json.dumps(answer)
        if MODE == "error-null":  # every answer with "error": null, as many writers put it
            text = text[:-1] + ', "error": null}'
        elif MODE == "seat-twice" and "seat" in answer and answer["seat"] is not None:
            # the right seat last: a reader that keeps the first field sees a wrong seat
            text = text[:-1] + f', "seat": {answer["seat"]}}}'
            text = text.replace('"seat": ', f'"seat": {(answer["seat"] + 1) % 4}, "seat": ', 1)
        elif MODE == "late" and request["cmd"] == "winner" and answer.get("team") is not None:
            late = True  # its line about the match won comes late: in the next match
        elif MODE == "late" and request["cmd"] == "deal" and late:
            late = False
            print(json.dumps({"debug": "match over"}), flush=True)
        print(text, flush=True)
''')


@pytest.mark.parametrize("mode", ["error-null", "seat-twice", "late"])
def test_how_an_engines_json_writer_writes_is_judged(tmp_path: Path, mode: str) -> None:
    """``"error": null`` on every answer is no error (it refused the handshake, exit 2); a
    field given twice is garbage, whichever comes last (the last was taken: a wrong seat
    first and the right one last agreed); a line with no id, written after a match's last
    answer and read as the next match's first, says it answers no request (it said "id
    None to request 5141")."""
    engine = tmp_path / "writer.py"
    engine.write_text(WRITER)
    run = regress_paths(EngineCommand([sys.executable, str(engine), mode], reuse=True),
                        TWO, time_limit=10)
    if mode == "error-null":
        assert run.exit_code == 0, [r.line() for r in run.reports]
        return
    assert run.exit_code == 1
    failed = next(r for r in run.reports if r.status == "engine-failure")
    assert failed.first is not None
    if mode == "seat-twice":
        assert failed.first.kind == "garbage" and "with the field 'seat' twice" in failed.line()
    else:
        assert failed.first.kind == "protocol" and "answers no request" in failed.line()
        assert "match over" in failed.line()


REFUSER = textwrap.dedent('''
    import json, sys
    from tarneeb.testing.engine_server import REFERENCE, Server
    from tarneeb.testing.regress.runner import load_factory

    server = Server(load_factory(REFERENCE), "refuser 0.1")
    for line in sys.stdin:
        request = json.loads(line)
        if request["cmd"] == "new_match":
            print(json.dumps({"id": request["id"], "error": "no new match"}), flush=True)
            continue
        answer = server.answer(request)
        if answer is None:
            break
        print(json.dumps(answer), flush=True)
''')


@pytest.mark.parametrize("reuse", [True, False], ids=["one-process", "process-per-match"])
def test_an_error_to_a_matchs_last_request_is_that_matchs(tmp_path: Path, reuse: bool) -> None:
    """A match with nothing after new_match (abandoned before its first deal, a clean log):
    the engine's error answer to new_match, whose answer is read at the next request, was
    never read, and the match was "ok"."""
    import tarneeb
    from tarneeb.replay.server.simulate import MatchSecrets

    secrets = MatchSecrets(b"no hand at all")
    log = tmp_path / "none.tlog"
    rec = tarneeb.MatchRecorder(log, rules="classic", seats=["A", "B", "C", "D"],
                                match_id=b"m-0", first_dealer=0,
                                public_key=tarneeb.public_key_raw(secrets.key.public_key()))
    rec.abandon("server-fault", None, "restarted", None)
    rec.sign(secrets.key)
    assert tarneeb.verify_file(log).clean
    (tmp_path / "refuser.py").write_text(REFUSER)
    engine = EngineCommand([sys.executable, str(tmp_path / "refuser.py")], reuse=reuse)
    run = regress_paths(engine, [log], time_limit=10)
    (report,) = run.reports
    assert report.status == "engine-failure" and "no new match" in report.line(), report.line()
    assert run.exit_code == 1
