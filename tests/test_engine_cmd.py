"""An engine as a command over the line protocol: the reference and broken servers, and
engines that crash, hang, print garbage or break the protocol (tiny scripts in tmp_path)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from tarneeb.cli.entry import main
from tarneeb.testing import EngineCommand, EngineLoadError, Runner, regress_paths
from tarneeb.testing.regress.command import PROTOCOL, EngineStartError
from tarneeb.testing.regress.pipes import MAX_LINE

REPO = Path(__file__).resolve().parent.parent
FIXTURES = REPO / "fixtures" / "matches"
SERVER = [sys.executable, "-m", "tarneeb.testing.engine_server"]
BROKEN = [*SERVER, "--factory", "tarneeb.testing.adapters:broken_trump"]
TWO = [FIXTURES / "eram41-01.tlog", FIXTURES / "house-classic31-01.tlog"]  # a long, a short

# The reference server, with one misbehaviour at the 100th move of each match (argv[1]).
FAKE = textwrap.dedent('''
    import json, sys, time
    from tarneeb.testing.engine_server import REFERENCE, Server
    from tarneeb.testing.regress.runner import load_factory

    mode = sys.argv[1]
    once = len(sys.argv) > 2  # misbehave in the first process only (a marker file)
    if once:
        import os
        if os.path.exists(sys.argv[2]):
            mode = "behave"
        open(sys.argv[2], "a").close()
    server = Server(load_factory(REFERENCE), "fake engine 0.1")
    applied = 0
    for line in sys.stdin:
        request = json.loads(line)
        answer = server.answer(request)
        if answer is None:
            break
        cmd = request["cmd"]
        if mode == "slow" and cmd != "hello":
            time.sleep(0.005)  # every answer a little late: a slow engine, never a hung one
        if cmd == "hello" and mode == "version":
            answer["version"] = 2
        if cmd == "hello" and mode == "silent":
            time.sleep(600)
        if cmd == "new_match":
            applied = 0
            matches = globals().get("matches", 0) + 1
        if cmd == "apply":
            applied += 1
        if applied == 100 and cmd == "legal_actions" and matches == 1:
            if mode == "crash":
                print("Error: boom in legal_actions", file=sys.stderr)
                sys.exit(3)
            if mode == "hang":
                print("thinking...", file=sys.stderr, flush=True)
                time.sleep(600)
            if mode == "garbage":
                print("hello from the engine", flush=True)
                continue
            if mode == "wrong-id":
                answer["id"] += 1
            if mode == "no-field":
                answer = {"id": answer["id"], "moves": answer["actions"]}
            if mode == "error":
                answer = {"id": answer["id"], "error": "no moves today"}
            if mode == "card-99":
                answer["actions"] = [99]
        print(json.dumps(answer), flush=True)
''')


@pytest.fixture(scope="module")
def fake(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("engines") / "fake_engine.py"
    path.write_text(FAKE)
    return path


def _cmd(fake: Path, mode: str, *more: str) -> list[str]:
    return [sys.executable, str(fake), mode, *more]


def _key(run):  # type: ignore[no-untyped-def]
    return [(Path(r.name).name, r.status, r.hands, r.moves,
             r.first.to_json() if r.first else None) for r in run.reports]


# ---------------------------------------------------------------------- the reference engines

def test_the_reference_server_agrees_with_every_corpus_log_as_in_process() -> None:
    cmd = EngineCommand(SERVER)
    over_protocol = regress_paths(cmd, [FIXTURES], time_limit=30)
    in_process = regress_paths("tarneeb.testing.adapters:reference", [FIXTURES], time_limit=None)
    assert over_protocol.count("agree") == over_protocol.matches == 44
    assert _key(over_protocol) == _key(in_process)
    assert cmd.processes_started == 1  # one process served every match


def test_the_broken_server_is_caught_on_every_log_exactly_as_in_process() -> None:
    over_protocol = regress_paths(EngineCommand(BROKEN), [FIXTURES], time_limit=30)
    in_process = regress_paths("tarneeb.testing.adapters:broken_trump", [FIXTURES],
                               time_limit=None)
    assert over_protocol.count("disagree") == 44
    assert {r.first.kind for r in over_protocol.reports} == {"trick-winner"}
    assert _key(over_protocol) == _key(in_process)


def test_a_fresh_process_per_match_and_the_handshake() -> None:
    cmd = EngineCommand(SERVER, reuse=False)
    run = regress_paths(cmd, TWO, time_limit=30)
    assert [r.status for r in run.reports] == ["agree", "agree"]
    assert cmd.processes_started == 2
    assert cmd.engine_name == ("tarneeb reference engine "
                               "(tarneeb.testing.adapters:reference)")


def test_the_server_answers_the_protocol_by_hand() -> None:
    requests = [
        {"id": 1, "cmd": "hello", "protocol": PROTOCOL, "versions": [1]},
        {"id": 2, "cmd": "new_match", "rules": {"name": "qahwa41"}, "first_dealer": 3},
        {"id": 3, "cmd": "deal", "hands": [list(range(s * 13, s * 13 + 13)) for s in range(4)],
         "thirteenth": 51},
        {"id": 4, "cmd": "to_move"}, {"id": 5, "cmd": "legal_actions"},
        {"id": 6, "cmd": "apply", "action": 54}, {"id": 7, "cmd": "to_move"},
        {"id": 8, "cmd": "hand_scores"}, {"id": 9, "cmd": "apply", "action": 3},
        {"id": 10, "cmd": "deal", "hands": [[0, 0]], "thirteenth": None}, {"id": 11, "cmd": "quit"},
    ]
    out = subprocess.run(SERVER, input="".join(json.dumps(r) + "\n" for r in requests),
                         capture_output=True, text=True, timeout=60, check=True).stdout
    answers = [json.loads(line) for line in out.splitlines()]
    assert [a["id"] for a in answers] == list(range(1, 11))
    assert answers[0]["version"] == 1 and answers[0]["protocol"] == PROTOCOL
    assert answers[1] == {"id": 2, "ok": True} == {**answers[2], "id": 2}
    assert answers[3] == {"id": 4, "seat": 0}
    assert answers[4] == {"id": 5, "actions": list(range(54, 66))}
    assert answers[6] == {"id": 7, "seat": 1} and answers[7] == {"id": 8, "scores": None}
    assert "error" in answers[8] and "error" in answers[9]  # not legal now; not a hand


# ---------------------------------------------------------------------- engines that fail

@pytest.mark.parametrize(("mode", "kind", "words"), [
    ("crash", "crashed", ["the engine's process died (exit code 3) in legal_actions()",
                          'its last lines on stderr: "Error: boom in legal_actions"']),
    ("hang", "timeout", ["no answer within the time limit of 3 s a call: the engine was in "
                         "legal_actions()", 'its last lines on stderr: "thinking..."']),
    ("garbage", "garbage", ["legal_actions(): the engine answered a line that is not JSON: "
                            "'hello from the engine'", "it wrote nothing to stderr"]),
    ("wrong-id", "protocol", ["legal_actions(): the engine answered with id"]),
    ("no-field", "garbage", ["which has no 'actions'"]),
    ("error", "raised", ["legal_actions() answered the error 'no moves today'"]),
    ("card-99", "garbage", ["legal_actions() answered [99]"]),
])
def test_an_engine_that_fails_fails_its_match_and_the_next_gets_a_fresh_one(
        fake: Path, tmp_path: Path, mode: str, kind: str, words: list[str]) -> None:
    cmd = EngineCommand(_cmd(fake, mode, str(tmp_path / "once")))
    t0 = time.perf_counter()
    run = regress_paths(cmd, TWO, time_limit=3 if mode == "hang" else 30)
    assert time.perf_counter() - t0 < 30
    failed, after = run.reports
    assert failed.status == "engine-failure" and failed.first.kind == kind
    for w in words:
        assert w in failed.first.message, failed.line()
    assert failed.first.hand is not None and failed.first.move is not None
    assert after.status == "agree", after.line()  # the run goes on
    # A process that broke the line protocol is replaced; one that answered an error or a
    # wrong value in a well-formed answer serves the next match.
    assert cmd.processes_started == (1 if mode in ("error", "card-99") else 2)


def test_the_time_limit_is_per_call_and_the_match_guard_names_the_call(fake: Path) -> None:
    """A slow engine answers every call well within the limit: it agrees, though the whole
    match takes longer than that limit; the match guard, when asked for, stops it."""
    slow = EngineCommand(_cmd(fake, "slow"))
    run = regress_paths(slow, [TWO[1]], time_limit=2)
    assert [r.status for r in run.reports] == ["agree"], run.reports[0].line()
    assert run.reports[0].seconds > 2  # the match took longer than the limit: no call did
    guarded = EngineCommand(_cmd(fake, "slow"), match_limit=0.5)
    run = regress_paths(guarded, [TWO[1]], time_limit=2)
    failed = run.reports[0]
    assert failed.status == "engine-failure" and failed.first.kind == "timeout"
    assert failed.first.message.startswith("the match's time limit of 0.5 s ran out: the "
                                           "engine was in ")
    assert re.match(r"[a-z_]+\(\d*\); ", failed.first.message.split("the engine was in ")[1])


def test_an_engine_on_another_protocol_version_or_silent_does_not_start(fake: Path) -> None:
    with pytest.raises(EngineLoadError, match="the engine speaks protocol 'tarneeb-engine' "
                                              "version 2; tarneeb speaks 'tarneeb-engine' "
                                              "version 1"):
        Runner(EngineCommand(_cmd(fake, "version"))).start()
    t0 = time.perf_counter()
    with pytest.raises(EngineLoadError, match="no answer to the handshake within 1 s"):
        Runner(EngineCommand(_cmd(fake, "silent")), startup_limit=1).start()
    assert time.perf_counter() - t0 < 10
    with pytest.raises(EngineStartError, match="cannot run the engine command"):
        EngineCommand("no-such-engine-xyz --fast").start()
    with pytest.raises(EngineLoadError, match=r"died \(exit code 1\).*No module named"):
        Runner(EngineCommand([sys.executable, "-c", "import no_such_module_xyz"])).start()


# ---------------------------------------------------------------------- the command

def _tarneeb(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as e:
        main(list(argv))
    out, err = capsys.readouterr()
    return int(e.value.code or 0), out, err


def test_regress_engine_cmd_prints_one_clear_line_per_failure(
        fake: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = " ".join(_cmd(fake, "crash"))
    code, out, err = _tarneeb(capsys, "regress", "--engine-cmd", argv, "--time-limit", "5",
                              *map(str, TWO))
    assert code == 1, out + err
    lines = [line for line in out.splitlines() if "ENGINE FAILED" in line]
    assert len(lines) == 2 and "Traceback" not in out + err
    assert "the engine's process died (exit code 3) in legal_actions()" in lines[0]
    assert '"Error: boom in legal_actions"' in lines[0]
    assert "2 engine failures" in out


def test_regress_engine_cmd_match_time_limit(fake: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    argv = " ".join(_cmd(fake, "slow"))
    code, out, err = _tarneeb(capsys, "regress", "--engine-cmd", argv, "--time-limit", "5",
                              "--match-time-limit", "0.2", str(TWO[1]))
    assert code == 1, out + err
    lines = [line for line in out.splitlines() if "ENGINE FAILED" in line]
    assert len(lines) == 1 and "Traceback" not in out + err
    assert "the match's time limit of 0.2 s ran out: the engine was in " in lines[0]


def test_regress_engine_cmd_reference_and_usage_errors(
        capsys: pytest.CaptureFixture[str]) -> None:
    server = " ".join(SERVER)
    code, out, err = _tarneeb(capsys, "regress", "--engine-cmd", server, "--json", str(TWO[0]))
    assert code == 0, out + err
    assert json.loads(out)["summary"]["agree"] == 1
    for args, words in [([], "one of them"),
                        (["--engine", "x:y", "--engine-cmd", server], "one of them"),
                        (["--engine-cmd", "no-such-engine-xyz"], "cannot run the engine command"),
                        (["--engine-cmd", "'unclosed"], "--engine-cmd: No closing quotation"),
                        (["--engine", "tarneeb.testing.adapters:reference",
                          "--match-time-limit", "5"], "--match-time-limit goes with --engine-cmd")]:
        code, out, err = _tarneeb(capsys, "regress", *args, str(TWO[0]))
        assert code == 2, out + err
        assert words in err and "Traceback" not in out + err


def test_the_server_answers_a_request_it_cannot_read_and_serves_on() -> None:
    """A request nested deeper than Python's JSON reader goes ended the server in a
    traceback; a line without an end was read whole, however long: each gets an error
    answer, and the next request its own."""
    hello = json.dumps({"id": 1, "cmd": "hello", "protocol": PROTOCOL, "versions": [1]})
    sent = "[" * 100_000 + "\n" + "x" * (MAX_LINE + 10) + "\n" + hello + "\n"
    done = subprocess.run(SERVER, input=sent, capture_output=True, text=True, timeout=60,
                          check=False)
    assert done.returncode == 0 and "Traceback" not in done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert answers[0] == {"id": None, "error": "a request is one JSON object on one line"}
    assert answers[1] == {"id": None,
                          "error": f"a request line is longer than {MAX_LINE:,} characters"}
    assert answers[2]["id"] == 1 and answers[2]["protocol"] == PROTOCOL
