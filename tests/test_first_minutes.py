"""A new user's first minutes: counts said in words (``1 byte``, ``1 finding``), one
message where one is due, help that says what is true."""

from __future__ import annotations

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
    assert code == 1 and ": 1 finding " in out and "(s)" not in out


def test_audit_of_a_directory_without_logs_says_so_once(
        capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    code, out, err = run(capsys, "audit", "--jobs", "1", str(tmp_path))
    assert code == 2 and out == "" and err.count("\n") == 1 and "no logs found" in err


def test_verifier_help_says_the_page_checks_blind_logs(
        capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "verifier", "--help")
    assert code == 0 and "not checked" not in out and "dealt blind included" in " ".join(
        out.split())
