"""For CI: regress --junit-xml, and a failing hypothesis example kept as a corpus log."""

from __future__ import annotations

import doctest
import importlib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from hypothesis import Phase, given, settings
from test_cli import run

from tarneeb.replay.verify.replayer import verify_file
from tarneeb.testing import assert_agrees, matches, regress_paths, save_example
from tarneeb.testing.adapters import broken_trump

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


@pytest.mark.parametrize("module", ["tarneeb.testing.regress.junit", "tarneeb.testing.examples",
                                    "tarneeb.cli.common", "tarneeb.cli.verify_cmd",
                                    "tarneeb.cli.options"])
def test_doctests(module: str) -> None:
    assert doctest.testmod(importlib.import_module(module)).failed == 0


def test_regress_junit_xml(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "out" / "regress.xml"
    report.parent.mkdir()
    logs = [str(FIXTURES / "matches" / n) for n in ("eram41-01.tlog", "classic-01.tlog")]
    skipped = str(FIXTURES / "altered" / "renege-eram41.tlog")
    code, out, _ = run(capsys, "regress", "--engine", "tarneeb.testing.adapters:broken_trump",
                       "--junit-xml", str(report), *logs, skipped)
    assert code == 1 and "DISAGREES" in out
    suites = ET.parse(report).getroot()
    assert suites.tag == "testsuites"
    assert {k: suites.get(k) for k in ("tests", "failures", "errors", "skipped")} == {
        "tests": "3", "failures": "2", "errors": "0", "skipped": "1"}
    cases = suites.findall("testsuite/testcase")
    assert [c.get("name") for c in cases] == [*logs, skipped]
    failure = cases[0].find("failure")
    assert failure is not None and failure.get("type") == "trick-winner"
    assert "hand: " in (failure.text or "") and cases[2].find("skipped") is not None
    code, _, _ = run(capsys, "regress", "--engine", "tarneeb.testing.adapters:reference",
                     "--junit-xml", str(report), *logs)
    suites = ET.parse(report).getroot()
    assert code == 0 and suites.get("failures") == "0" and not suites.findall(".//failure")


def test_a_failing_example_joins_the_corpus(tmp_path: Path) -> None:
    """The recipe of docs/ENGINES.md: save the example where the property fails."""
    kept = tmp_path / "corpus" / "broken-trump.tlog"

    # shrinking is hypothesis's (its last run is the shrunk example); skipped to stay fast
    @settings(max_examples=20, deadline=None, database=None,
              phases=(Phase.explicit, Phase.generate))
    @given(matches("eram41"))
    def test_engine(match):  # type: ignore[no-untyped-def]
        try:
            assert_agrees(broken_trump, match)
        except AssertionError:
            save_example(match, kept)
            raise

    with pytest.raises(AssertionError):
        test_engine()
    verdict = verify_file(str(kept))
    assert verdict.clean and verdict.recorded == verdict.hands > 0
    assert regress_paths("tarneeb.testing.adapters:reference", [kept]).exit_code == 0
    failing = regress_paths("tarneeb.testing.adapters:broken_trump", [kept])
    assert failing.exit_code == 1 and failing.reports[0].status == "disagree"
