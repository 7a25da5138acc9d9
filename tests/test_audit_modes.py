"""``tarneeb audit`` gives one answer however it runs and whatever the archive's file
names are: the tables, the JSON and the exit code agree."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from cli_runner import run
from test_archive_state import audit, own_config_dir  # noqa: F401 (an autouse fixture)

from tarneeb.testing.archive import write_archive

SEED = b"test audit modes"


def test_tables_hold_file_names_that_are_not_utf8(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A log whose file name is not valid UTF-8 (any file system allows it) is a row of
    the tables, its name's bytes written as the report shows them; the first log of a
    conflict so named, and its copy, get their findings there as in the JSON. (The
    tables ended in a traceback, and were not written.)"""
    logs = tmp_path / "logs"
    paths = write_archive(logs, 3, seed=SEED)
    data = bytearray(paths[1].read_bytes())
    data[len(data) // 2] ^= 1
    (logs / "z-later.tlog").write_bytes(bytes(data))  # another log of match 1
    first = os.fsencode(logs) + b"/a\xff-first.tlog"
    os.rename(paths[1], first)
    shutil.copyfile(first, os.fsencode(logs) + b"/b\xfe-copy.tlog")
    out = tmp_path / "tables"
    code, doc, err = audit(capsys, str(logs), "--tables", str(out))
    assert code == 1 and err == ""
    matches = pq.read_table(out / "matches.parquet").to_pylist()
    findings = pq.read_table(out / "findings.parquet").to_pylist()
    named = {Path(r["path"]).name: r for r in matches}
    assert named["a\\xff-first.tlog"]["verdict"] == "findings"
    assert named["b\\xfe-copy.tlog"]["duplicate"] == "copy"
    assert named["b\\xfe-copy.tlog"]["verdict"] == "findings"
    assert sum(r["verdict"] == "clean" for r in matches) == doc["clean"] == 2
    assert sum(r["verdict"] == "findings" for r in matches) == doc["findings"]
    kinds: dict[str, int] = {}
    for r in findings:
        kinds[r["kind"]] = kinds.get(r["kind"], 0) + 1
    assert kinds == doc["findings_by_kind"]
    assert sum(r["findings"] for r in matches) == len(findings)


def test_a_pattern_lists_each_log_once_as_the_directory_does(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``DIR/**`` and ``DIR/**/*.tlog`` are the logs of ``DIR``, each once, whatever
    links to directories are in it (one back up the tree included): the same JSON, with
    or without a state. (``DIR/**`` listed each log once per directory above it, as a
    copy of itself; ``**`` went down every link, forty times round a loop, and without
    end round two.)"""
    logs = tmp_path / "logs"
    write_archive(logs, 3, seed=SEED)
    write_archive(logs / "sub", 2, seed=SEED + b" sub")
    (logs / "sub" / "up").symlink_to(logs)
    code, whole, _ = audit(capsys, str(logs))
    assert code == 0 and whole["logs"] == 5 and whole["copies"] == 0
    for i, pattern in enumerate((str(logs / "**"), str(logs / "**" / "*.tlog"))):
        assert audit(capsys, pattern) == (code, whole, "")
        state = str(tmp_path / f"{i}.state")
        for run_number, audited in ((1, 5), (2, 0)):
            got_code, doc, _ = audit(capsys, pattern, "--state", state)
            assert got_code == code and doc["logs"] == 5 and doc["copies"] == 0
            assert doc["state"]["run"] == run_number and doc["state"]["audited"] == audited


@pytest.mark.parametrize("address", ["garbage", "tcp://", "inproc://x", "ucx://x:1", ":"])
def test_a_scheduler_address_dask_cannot_parse_is_one_line(
        address: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An address Dask cannot make sense of is bad input: one line, exit 2 (it was a
    traceback)."""
    write_archive(tmp_path, 1, seed=SEED)
    code, out, err = run(capsys, "audit", str(tmp_path), "--scheduler", address)
    assert code == 2 and out == ""
    assert err.startswith(f"tarneeb: error: cannot reach the Dask scheduler {address}: ")
    assert err.count("\n") == 1
