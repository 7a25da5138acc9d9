"""The TypeScript reference engine over the line protocol (``js/src/engine-server.ts``, the
bin ``tarneeb-engine``): it agrees with every corpus log through ``tarneeb regress
--engine-cmd``, and the copy with the planted bug ``broken-trump`` is caught."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from cli_runner import run
from js_build import DIST, JS, built

from tarneeb.testing import EngineCommand, regress_paths
from tarneeb.testing.regress.command import PROTOCOL

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures" / "matches"
SERVER = DIST / "engine-server.js"


@pytest.fixture(scope="module")
def node() -> str:
    return built("engine-server.js")


def test_the_package_names_the_command(node: str) -> None:
    package = json.loads((JS / "package.json").read_text(encoding="utf-8"))
    assert package["bin"]["tarneeb-engine"] == "./dist/src/engine-server.js"
    assert SERVER.read_text(encoding="utf-8").startswith("#!/usr/bin/env node")


def test_the_ts_engine_agrees_with_every_corpus_log(node: str) -> None:
    with EngineCommand([node, str(SERVER)], time_limit=30) as cmd:
        assert cmd.engine_name == "tarneeb-js reference engine"
        result = regress_paths(cmd, [FIXTURES], time_limit=30)
    reports = result.reports
    assert len(reports) == len(list(FIXTURES.glob("*.tlog")))
    assert [r.name for r in reports if r.status != "agree"] == []
    rules = {r.rules for r in reports}
    assert {"eram41", "qahwa41", "sahrat41", "sahrat400", "classic"} <= rules


def test_the_planted_bug_is_caught(node: str) -> None:
    result = regress_paths(EngineCommand([node, str(SERVER), "--planted-bug", "broken-trump"]),
                           [FIXTURES], time_limit=30)
    statuses = [r.status for r in result.reports]
    assert statuses and set(statuses) == {"disagree"}
    assert {r.first.kind for r in result.reports if r.first} == {"trick-winner"}


def test_regress_cli_over_the_ts_engine(node: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "regress", "--engine-cmd", f"{node} {SERVER}",
                         str(FIXTURES / "classic-timer.tlog"), str(FIXTURES / "sahrat400-01.tlog"))
    assert code == 0, out + err
    assert "2 agree, 0 disagree, 0 engine failures" in out
    code, out, err = run(capsys, "regress", "--engine-cmd",
                         f"{node} {SERVER} --planted-bug broken-trump",
                         str(FIXTURES / "sahrat400-01.tlog"))
    assert code == 1, out + err
    assert "DISAGREES at hand" in out and "per the engine" in out


def _session(node: str, *requests: dict, args: tuple[str, ...] = ()) -> list[dict]:
    lines = "".join(json.dumps(r) + "\n" for r in requests)
    out = subprocess.run([node, str(SERVER), *args], input=lines, capture_output=True,
                         text=True, timeout=60, check=True)
    return [json.loads(x) for x in out.stdout.splitlines()]


def test_requests_it_cannot_do_are_answered_errors(node: str) -> None:
    hello = {"id": 1, "cmd": "hello", "protocol": PROTOCOL, "versions": [1]}
    answers = _session(
        node, hello, {"id": 2, "cmd": "to_move"}, {"id": 3, "cmd": "bid"},
        {"id": 4, "cmd": "new_match", "rules": {"name": "x"}, "first_dealer": 0},
        {"id": 5, "cmd": "hello", "protocol": PROTOCOL, "versions": [7]})
    assert answers[0] == {"id": 1, "protocol": PROTOCOL, "version": 1,
                          "engine": "tarneeb-js reference engine"}
    assert answers[1] == {"id": 2, "error": "new_match was not called"}
    assert answers[2]["error"].startswith("unknown command")
    assert answers[3]["error"].startswith("rules this engine cannot play")
    assert "version 1" in answers[4]["error"]


def test_the_planted_bug_as_the_python_one(node: str) -> None:
    """The first trick of the Python adapters' doctest: seat 2, void in clubs, trumps."""
    from tarneeb.replay.rules.ruleset import preset

    suits = [list(range(13 * s, 13 * s + 13)) for s in range(4)]
    play = [{"id": 3 + k, "cmd": "apply", "action": a}
            for k, a in enumerate([54, 54, 54, 57, 0, 13, 26, 39])]
    requests = [{"id": 1, "cmd": "hello", "protocol": PROTOCOL, "versions": [1]},
                {"id": 2, "cmd": "new_match", "rules": preset("qahwa41").to_dict(),
                 "first_dealer": 3},
                {"id": 3, "cmd": "deal", "hands": suits, "thirteenth": 51}]
    play = [{**r, "id": r["id"] + 1} for r in play]
    requests += [*play, {"id": 12, "cmd": "tricks"}]
    assert _session(node, *requests)[-1] == {"id": 12, "tricks": [0, 0, 1, 0]}
    broken = _session(node, *requests, args=("--planted-bug", "broken-trump"))
    assert broken[-1] == {"id": 12, "tricks": [1, 0, 0, 0]}


def test_a_bad_argument_is_one_line(node: str) -> None:
    out = subprocess.run([node, str(SERVER), "--planted-bug", "nope"], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        "tarneeb-engine: error: --planted-bug takes broken-trump, not nope"]


PROPERTY_TEST = """
from hypothesis import Phase, given, settings
from tarneeb.testing import assert_agrees, matches


@settings(max_examples=3, deadline=None, database=None, phases=[Phase.generate])
@given(matches("sahrat41", steered_hands=1))
def test_engine_agrees_with_the_rules(tarneeb_engine, match):
    assert_agrees(tarneeb_engine, match)
"""


def test_a_typescript_teams_ci_step_the_plugin_over_the_ts_engine(
        node: str, pytester: pytest.Pytester) -> None:
    """ENGINES.md's CI step: the corpus and the hypothesis properties over the command."""
    logs = pytester.path / "logs"
    logs.mkdir()
    for name in ("classic-timer", "sahrat400-01"):
        (logs / f"{name}.tlog").write_bytes((FIXTURES / f"{name}.tlog").read_bytes())
    pytester.makepyfile(test_properties=PROPERTY_TEST)
    command = f"{node} {SERVER}"
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--tarneeb-logs", "logs",
                                           "--tarneeb-engine-cmd", command, ".")
    result.assert_outcomes(passed=3)
    broken = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--tarneeb-logs", "logs",
                                           "--tarneeb-engine-cmd",
                                           f"{command} --planted-bug broken-trump", ".")
    broken.assert_outcomes(failed=3)
    broken.stdout.fnmatch_lines(["*DISAGREES at hand *, trick *"])
