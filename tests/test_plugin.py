"""The pytest plugin: ``--tarneeb-logs DIR --tarneeb-engine MODULE:FACTORY``."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

import pytest

import tarneeb.testing.regress.run  # noqa: F401  (imported before pytester's in-process runs)
from tarneeb.replay.server.simulate import play_logged_match

pytest_plugins = ["pytester"]

REFERENCE = "tarneeb.testing.adapters:reference"
BROKEN = "tarneeb.testing.adapters:broken_trump"
SERVER = shlex.join([sys.executable, "-m", "tarneeb.testing.engine_server"])


@pytest.fixture
def logs(pytester: pytest.Pytester) -> Path:
    d = pytester.path / "logs"
    d.mkdir()
    for name in ("eram41", "classic"):
        (d / f"{name}.tlog").write_bytes(play_logged_match(name, seed=f"plugin/{name}".encode()))
    return d


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest("-p", "no:cacheprovider", *args)


def test_one_passing_item_per_match(pytester: pytest.Pytester, logs: Path) -> None:
    result = _run(pytester, "--tarneeb-logs", "logs", "--tarneeb-engine", REFERENCE, "-v")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["*logs/classic.tlog::regress PASSED*",
                                 "*logs/eram41.tlog::regress PASSED*"])


def test_a_broken_engine_fails_with_the_first_disagreement(pytester: pytest.Pytester,
                                                           logs: Path) -> None:
    result = _run(pytester, "--tarneeb-logs", str(logs), "--tarneeb-engine", BROKEN)
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines([
        "*tarneeb regress classic.tlog*",
        ("classic.tlog: DISAGREES at hand *, trick *: trick * won by seat * per the recording, "
         "by seat * per the engine"),
        "*tarneeb regress eram41.tlog*",
        "eram41.tlog: DISAGREES at hand *, trick *",
    ])
    assert "Traceback" not in result.stdout.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED


def test_logs_run_beside_ordinary_tests_and_unclean_logs_are_skipped(
        pytester: pytest.Pytester, logs: Path) -> None:
    pytester.makepyfile(test_ordinary="def test_one():\n    assert True\n")
    data = bytearray((logs / "eram41.tlog").read_bytes())
    data[-5] ^= 1
    (logs / "tampered.tlog").write_bytes(bytes(data))
    result = _run(pytester, "--tarneeb-logs", "logs", "--tarneeb-engine", REFERENCE, "-rs", ".")
    result.assert_outcomes(passed=3, skipped=1)
    result.stdout.fnmatch_lines(["*SKIPPED*the log is not clean*"])


def test_a_single_log_file_and_collect_only(pytester: pytest.Pytester, logs: Path) -> None:
    result = _run(pytester, "--tarneeb-logs", "logs/eram41.tlog", "--tarneeb-engine",
                  "no_such_module_xyz:make", "--co", "-q")
    result.stdout.fnmatch_lines(["logs/eram41.tlog::regress", "1 test collected*"])


def test_time_limit_and_a_looping_engine(pytester: pytest.Pytester, logs: Path) -> None:
    pytester.makepyfile(looping_engine=(
        "from tarneeb.testing.adapters import ReferenceEngine\n"
        "class Loops(ReferenceEngine):\n"
        "    def winner(self):\n"
        "        while True:\n"
        "            pass\n"))
    pytester.syspathinsert()
    result = _run(pytester, "--tarneeb-logs", "logs", "--tarneeb-engine",
                  "looping_engine:Loops", "--tarneeb-time-limit", "0.5")
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*ENGINE FAILED at hand 1: no answer within the time limit of "
                                 "0.5 s: the engine was in winner()*"])


@pytest.mark.parametrize(("args", "words"), [
    (["--tarneeb-logs", "logs"], "*--tarneeb-logs needs --tarneeb-engine*"),
    (["--tarneeb-engine", REFERENCE, "--tarneeb-engine-cmd", "x"], "*give one of them*"),
    (["--tarneeb-engine-cmd", "no-such-engine-xyz"], "*cannot run the engine command*"),
    (["--tarneeb-logs", "missing", "--tarneeb-engine", REFERENCE], "*no such file*"),
    (["--tarneeb-logs", "logs", "--tarneeb-engine", "no_such_module_xyz:make"],
     "*cannot import the engine module*"),
    # a limit of nan was no limit: an engine that hangs hung the run
    (["--tarneeb-logs", "logs", "--tarneeb-engine", REFERENCE, "--tarneeb-time-limit", "nan"],
     "*--tarneeb-time-limit: 'nan': give a number of seconds of at least 0.01*"),
])
def test_usage_errors(pytester: pytest.Pytester, logs: Path, args: list[str],
                      words: str) -> None:
    result = _run(pytester, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([words])


def test_without_the_options_the_plugin_stays_out_of_the_way(pytester: pytest.Pytester,
                                                             logs: Path) -> None:
    pytester.makepyfile(test_ordinary="def test_one():\n    assert True\n")
    result = _run(pytester)
    result.assert_outcomes(passed=1)
    help_text = _run(pytester, "--help").stdout.str()
    assert "--tarneeb-logs=DIR" in help_text and "--tarneeb-engine=MODULE:FACTORY" in help_text


def test_without_logs_the_installed_corpus_is_collected(pytester: pytest.Pytester) -> None:
    result = _run(pytester, "--tarneeb-engine", REFERENCE, "--co", "-q")
    result.stdout.fnmatch_lines(["*eram41-01.tlog::regress", "44 tests collected*"])


PROPERTY_TEST = """
from hypothesis import Phase, given, settings
from tarneeb.testing import assert_agrees, matches

@settings(max_examples=2, deadline=None, database=None, phases=[Phase.generate])
@given(matches("qahwa41", steered_hands=1))
def test_engine_agrees_with_the_rules(tarneeb_engine, match):
    assert_agrees(tarneeb_engine, match)
"""


def test_an_engine_command_gets_the_logs_and_the_property_tests(
        pytester: pytest.Pytester, logs: Path) -> None:
    pytester.makepyfile(test_properties=PROPERTY_TEST)
    # a pytest of its own, as a team's CI runs it (hypothesis is not reloaded in-process)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--tarneeb-logs", "logs",
                                           "--tarneeb-engine-cmd", SERVER, ".")
    result.assert_outcomes(passed=3)
    broken = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--tarneeb-logs", "logs",
                                           "--tarneeb-engine-cmd", f"{SERVER} --factory {BROKEN}",
                                           ".")
    broken.assert_outcomes(failed=3)
    broken.stdout.fnmatch_lines(["classic.tlog: DISAGREES at hand *, trick *",
                                 "eram41.tlog: DISAGREES at hand *, trick *",
                                 "*AssertionError: qahwa41 match*won by seat * per the rules, "
                                 "by seat * per the engine*"])


def test_a_run_whose_recorded_matches_were_all_skipped_fails(pytester: pytest.Pytester,
                                                              logs: Path) -> None:
    # logs that are none of them clean test nothing: a CI job must not go green on them
    for f in logs.iterdir():
        data = bytearray(f.read_bytes())
        data[-5] ^= 1
        f.write_bytes(bytes(data))
    pytester.makepyfile(test_ordinary="def test_one():\n    assert True\n")
    result = _run(pytester, "--tarneeb-logs", "logs", "--tarneeb-engine", REFERENCE, ".")
    result.assert_outcomes(passed=1, skipped=2)
    result.stdout.fnmatch_lines(["*no match compared: every recorded match (2) was skipped*"])
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    # one clean log among them is a comparison: the run passes
    (logs / "clean.tlog").write_bytes(play_logged_match("qahwa41", seed=b"plugin/clean"))
    again = _run(pytester, "--tarneeb-logs", "logs", "--tarneeb-engine", REFERENCE, ".")
    again.assert_outcomes(passed=2, skipped=2)
    assert again.ret == pytest.ExitCode.OK


def test_a_log_in_a_directory_pytest_does_not_enter_is_not_passed_over(
        pytester: pytest.Pytester, logs: Path) -> None:
    """pytest enters no directory its norecursedirs names (build, .*, node_modules): a log
    there never ran, and the run passed on the team's other tests."""
    pytester.makepyfile(test_ordinary="def test_one():\n    assert True\n")
    (logs / "build").mkdir()
    (logs / "build" / "m.tlog").write_bytes((logs / "eram41.tlog").read_bytes())
    result = _run(pytester, "--tarneeb-logs", "logs", "--tarneeb-engine", REFERENCE, ".")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*1 log(s) not collected by pytest*build*m.tlog*"])


def test_every_match_skipped_is_no_pass_under_xdist(pytester: pytest.Pytester,
                                                    logs: Path) -> None:
    """The counts of matches run and skipped were kept where the items ran: in xdist's
    workers, so the run in which every match was skipped exited 0."""
    pytest.importorskip("xdist")
    from tarneeb.testing.alterations import alter

    for p in logs.iterdir():
        p.write_bytes(alter("change-bid", p.read_bytes())[0])  # no log is a reference now
    result = _run(pytester, "-n", "1", "--tarneeb-logs", "logs", "--tarneeb-engine", REFERENCE)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stdout.fnmatch_lines(["*no match compared*"])
