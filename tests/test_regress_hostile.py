"""Engines that answer badly, in ways of their own: values no reading of them expects,
exceptions that cannot be shown, text meant for a terminal, errors to deferred requests,
lines built to be slow to read. Each fails its match with one safe line, and nothing
else: no traceback, no hang, no blame on the next match, no control character out."""

from __future__ import annotations

import re
import sys
import textwrap
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tarneeb.replay.rules.actions import describe_action
from tarneeb.testing import EngineCommand, regress_paths
from tarneeb.testing.adapters import ReferenceEngine
from tarneeb.testing.regress.command import _STRING, EngineStartError
from tarneeb.testing.regress.driver import compare, run_script
from tarneeb.testing.regress.junit import junit_xml
from tarneeb.testing.regress.report import Disagreement, MatchReport, RegressRun
from tarneeb.testing.regress.scripts import MatchScript, prepare

REPO = Path(__file__).resolve().parent.parent
SHORT = REPO / "fixtures" / "matches" / "house-classic31-01.tlog"
SHORT2 = REPO / "fixtures" / "matches" / "house-classic31-after-13.tlog"
# what no message may hold: C0 and C1 controls, DEL, line separators, bidi controls,
# lone surrogates; and no XML report the two characters XML 1.0 refuses besides
UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
                    "\ud800-\udfff]")
NOT_XML = re.compile(f"{UNSAFE.pattern}|[\ufffe\uffff]")
NASTY = "bad\x1b[2J\x01\x9b\u202e\ufffe\ud800\nsecond line"


def _script() -> MatchScript:
    script = prepare(SHORT.read_bytes(), SHORT.name)
    assert isinstance(script, MatchScript)
    return script


# ---------------------------------------------------------------------- Python engines

class _Unhashable(ReferenceEngine):
    def legal_actions(self) -> Any:
        return [[54], {"a": 1}]


class _Unshowable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no text")


class _RaisesUnshowable(ReferenceEngine):
    def apply(self, action: int) -> None:
        raise _Unshowable


class _RaisesNasty(ReferenceEngine):
    def apply(self, action: int) -> None:
        raise ValueError(NASTY)


class _NastyRepr:
    def __repr__(self) -> str:
        return NASTY


class _AnswersNastyRepr(ReferenceEngine):
    def to_move(self) -> Any:
        return _NastyRepr()


class _Interrupts(ReferenceEngine):
    def apply(self, action: int) -> None:
        raise KeyboardInterrupt("the engine's own")


def test_legal_actions_of_unhashable_items_are_garbage_not_a_crash() -> None:
    found = compare(_Unhashable(), _script())
    assert found is not None and found.kind == "garbage", found
    assert found.message.startswith("legal_actions() answered [[54], {'a': 1}], not a ")


@pytest.mark.parametrize("engine", [_RaisesUnshowable, _RaisesNasty, _AnswersNastyRepr])
def test_what_an_engine_raises_or_answers_is_shown_safely(engine: type) -> None:
    found = compare(engine(), _script())
    assert found is not None and found.engine_failure, found
    for text in (found.message, found.engine or "", str(found), found.said()):
        assert UNSAFE.search(text) is None, text
    if engine is _RaisesUnshowable:
        assert "raised _Unshowable: <a _Unshowable that cannot be shown>" in found.message
    else:
        assert "bad\\x1b[2J\\x01\\x9b\\u202e" in found.message


def test_a_keyboard_interrupt_is_the_engines_own_only_in_a_worker() -> None:
    report = run_script(_Interrupts, _script(), isolated=True)
    assert report.status == "engine-failure" and report.first is not None
    assert report.first.kind == "raised" and "KeyboardInterrupt" in report.first.message
    with pytest.raises(KeyboardInterrupt):  # in this process: Ctrl-C, which must stop the run
        run_script(_Interrupts, _script())


# ---------------------------------------------------------------------- over the protocol

# The reference server, misbehaving as argv[1] says, in its first match only.
ENGINE = textwrap.dedent('''
    import json, os, sys
    from tarneeb.testing.engine_server import REFERENCE, Server
    from tarneeb.testing.regress.runner import load_factory

    mode = sys.argv[1]
    server = Server(load_factory(REFERENCE), "fake engine 0.1")
    applied = matches = 0
    for line in sys.stdin:
        request = json.loads(line)
        answer = server.answer(request)
        if answer is None:
            break
        cmd = request["cmd"]
        if cmd == "hello" and mode == "refuse":
            answer = {"id": answer["id"], "error": "no\\x1b[2J\\u202e\\nthanks"}
        if cmd == "hello" and mode == "name":
            answer["engine"] = "fake\\x1b[31m\\u202e\\x9b"
        matches += cmd == "new_match"
        applied = 0 if cmd == "new_match" else applied + (cmd == "apply")
        if matches == 1 and applied == 20:
            if mode == "apply-error" and cmd == "apply":
                answer = {"id": answer["id"], "error": "no such card"}
            if mode == "float-id" and cmd == "to_move":
                answer["id"] = float(answer["id"])
            if mode == "true-id" and cmd == "to_move" and answer["id"] == 1:
                answer["id"] = True
            if mode == "stderr" and cmd == "to_move":
                os.write(2, "died \\x1b[31m\\u202e\\x9b2J\\x85 here\\n".encode())
                sys.exit(3)
        print(json.dumps(answer), flush=True)
''')


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("engines") / "hostile_engine.py"
    path.write_text(ENGINE)
    return path


def _cmd(engine: Path, mode: str) -> list[str]:
    return [sys.executable, str(engine), mode]


def test_an_error_to_a_deferred_apply_fails_that_match_and_the_process_serves_on(
        engine: Path) -> None:
    cmd = EngineCommand(_cmd(engine, "apply-error"))
    run = regress_paths(cmd, [SHORT, SHORT2], time_limit=30)
    failed, after = run.reports
    assert failed.status == "engine-failure" and failed.first is not None
    assert failed.first.kind == "raised"
    assert "answered the error 'no such card'" in failed.first.message
    # its place is the apply's, not the place of the call after it (when the answer was read)
    applied = re.match(r"apply\((\d+)\) answered", failed.first.message)
    assert applied is not None and failed.first.move == describe_action(int(applied[1]))
    # the answer owed to the request sent after that apply is not taken for the next
    # match's first answer
    assert after.status == "agree", after.line()
    assert cmd.processes_started == 1


def test_an_id_that_is_not_an_integer_breaks_the_protocol(engine: Path) -> None:
    run = regress_paths(EngineCommand(_cmd(engine, "float-id")), [SHORT], time_limit=30)
    first = run.reports[0].first
    assert first is not None and first.kind == "protocol", run.reports[0].line()
    assert re.search(r"answered with id \d+\.0 to request \d+", first.message)


def test_the_engines_last_lines_on_stderr_are_shown_safely(engine: Path) -> None:
    run = regress_paths(EngineCommand(_cmd(engine, "stderr")), [SHORT], time_limit=30)
    first = run.reports[0].first
    assert first is not None and first.kind == "crashed", run.reports[0].line()
    assert "its last lines on stderr: " in first.message
    assert UNSAFE.search(first.message) is None, first.message
    assert "died \\u001b[31m\\u202e\\u009b2J\\u0085 here" in first.message


def test_a_refused_handshake_and_an_engine_name_are_shown_safely(engine: Path) -> None:
    with pytest.raises(EngineStartError) as e:
        EngineCommand(_cmd(engine, "refuse")).start()
    assert "the engine refused it: 'no\\x1b[2J\\u202e\\nthanks'" in str(e.value)
    assert UNSAFE.search(str(e.value)) is None
    with EngineCommand(_cmd(engine, "name")) as cmd:
        assert cmd.engine_name is not None and UNSAFE.search(cmd.engine_name) is None
        assert cmd.engine_name == "fake\\x1b[31m\\u202e\\x9b"


def test_an_open_string_in_an_answer_is_read_once_to_the_end_of_the_line() -> None:
    """The depth of an answer is read outside its strings. A string left open (escaped
    quotes to the end) must be read once, not again from each quote inside it: a search
    that fails starts again further on, and a line of them took time by its square."""
    line = b'{"id":1,"error":"' + b'\\"' * 50
    assert [m.span() for m in _STRING.finditer(line)] == [(1, 5), (8, 15), (16, len(line))]


# ---------------------------------------------------------------------- JUnit

def test_junit_xml_holds_hostile_text_as_well_formed_escapes() -> None:
    first = Disagreement("raised", f"apply(3) raised ValueError: {NASTY}", 0, 1, 2, "4♣",
                         engine=NASTY)
    run = RegressRun([
        MatchReport(f"logs/a{NASTY}.tlog", "engine-failure", "eram41", 3, 40, 0.1, first),
        MatchReport("b\x01.tlog", "skipped", "eram41", reason=f"not clean: {NASTY}"),
        MatchReport("c\x0b.tlog", "unreadable", reason=NASTY),
    ], 0.3)
    xml = junit_xml(run, f"--engine-cmd {NASTY}")
    root = ET.fromstring(xml)  # well-formed XML 1.0
    texts = [root.itertext(), *(e.attrib.values() for e in root.iter())]
    for values in texts:
        for text in values:
            assert NOT_XML.search(text.replace("\n", "")) is None, text
    case = root.find("testsuite/testcase")
    assert case is not None and "a bad\\x1b[2J" not in case.attrib["name"]
    assert case.attrib["name"].startswith("logs/abad\\x1b[2J\\x01\\x9b\\u202e\\ufffe\\ud800")
