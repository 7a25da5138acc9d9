"""A new user's first minutes: counts said in words (``1 byte``, ``1 finding``), one
message where one is due, help that says what is true."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_runner import run

from tarneeb.replay.log import parse_log
from tarneeb.replay.verify.replayer import verify_bytes

FIXTURES = Path(__file__).parent.parent / "fixtures"


def test_a_log_cut_one_byte_into_a_record_says_1_byte() -> None:
    data = (FIXTURES / "matches" / "classic-01.tlog").read_bytes()
    at = parse_log(data).offsets[3]
    v = verify_bytes(data[:at + 1], "cut.tlog")
    cut = [f.message for f in v.findings if f.kind == "cut-short"]
    assert cut and "(1 byte of it)" in cut[0], cut


def test_one_finding_is_not_findings(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "verify", str(FIXTURES / "altered" / "broken-signature-eram41.tlog"))
    assert code == 1 and ": 1 finding, " in out and "(s)" not in out


def test_audit_of_a_directory_without_logs_says_so_once(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys, "audit", "--jobs", "1", str(tmp_path))
    assert code == 2 and out == "" and err.count("\n") == 1 and "no logs found" in err


def test_verifier_help_says_the_page_checks_blind_logs(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "verifier", "--help")
    assert code == 0 and "not checked" not in out and "dealt blind included" in " ".join(
        out.split())


def test_play_without_rules_plays_the_default_and_names_it(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    log = tmp_path / "m.tlog"
    code, out, err = run(capsys, "play", "-o", str(log))
    assert code == 0 and err == ""
    assert f"wrote {log}: classic," in out and "classic, the default rule set" in out
    assert parse_log(log.read_bytes()).header.rules.name == "classic"


def test_a_clean_verify_first_line_is_short_and_the_advice_is_below_once(
        capsys: pytest.CaptureFixture[str]) -> None:
    log = FIXTURES / "matches" / "classic-01.tlog"
    code, out, _ = run(capsys, "verify", str(log))
    first, *rest = out.splitlines()
    assert code == 0 and first == f"{log}: clean, 12 hands, signed by key b3eae4d01154f4ca, " \
        "not pinned"
    assert out.count("NOT PINNED") == 1 and "NOT PINNED" in rest[1]
    assert rest[0] == "  12 dealing attempts replayed, 11 played, deals proven by the " \
        "committed seeds"


def test_verify_reads_a_logs_json_form_as_the_page_does(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    for name in ("classic-01.tlog", "../altered/renege-classic.tlog"):
        log, doc = FIXTURES / "matches" / name, tmp_path / "m.json"
        code = run(capsys, "export", str(log), "-o", str(doc))[0]
        assert code == 0
        want = run(capsys, "verify", "--json", str(log))
        got = run(capsys, "verify", "--json", str(doc))
        assert got[0] == want[0] and got[0] in (0, 1)
        assert json.loads(got[1])[0]["findings"] == json.loads(want[1])[0]["findings"]
    other = tmp_path / "other.json"
    other.write_text('{"a": 1}')
    code, _, err = run(capsys, "verify", str(other))
    assert code == 2 and "not a tarneeb log" in err and "nor a log's JSON form" in err


def test_import_and_export_swapped_say_so(capsys: pytest.CaptureFixture[str],
                                          tmp_path: Path) -> None:
    log, doc = FIXTURES / "matches" / "classic-01.tlog", tmp_path / "m.json"
    assert run(capsys, "export", str(log), "-o", str(doc))[0] == 0
    code, _, err = run(capsys, "import", str(log), "-o", str(tmp_path / "x.tlog"))
    assert code == 2 and "it is a log, not its JSON form: tarneeb export" in err
    code, _, err = run(capsys, "export", str(doc))
    assert code == 2 and "it is a log's JSON form already: tarneeb import" in err
