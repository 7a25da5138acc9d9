"""Hostile conditions the command meets: each ends in one line and its documented exit
code, never a traceback, and leaves what was written before as it was."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_runner import run

from tarneeb.replay.archive import monitor
from tarneeb.testing.archive import write_archive


@pytest.fixture(autouse=True)
def own_config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "empty-config"))


def test_ctrl_c_as_an_incremental_audit_lets_its_workers_go_ends_it_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A Ctrl-C that lands as ``audit --state`` shuts its worker pool down, after the
    last log is read (``pool.shutdown`` waits on a lock: a Ctrl-C there raises), is the
    command's: exit 130 and one line, the state as it was. It was raised in the garbage
    collector's close of the pool's generator, which the state's run never ran to its
    end: printed as an ignored exception with its traceback, and the run went on to save
    the state and exit 0, as if no one had pressed it."""
    logs = tmp_path / "logs"
    write_archive(logs, 3, seed=b"hostile")
    state = str(tmp_path / "audit.state")
    real = monitor.run_chunks

    def interrupted_at_shutdown(*args: Any, **kwargs: Any) -> Iterator[Any]:
        try:
            yield from real(*args, **kwargs)
        finally:  # where the pool is shut down, however the generator ends
            raise KeyboardInterrupt

    monkeypatch.setattr(monitor, "run_chunks", interrupted_at_shutdown)
    code, out, err = run(capsys, "audit", "-j", "1", "--no-stats", str(logs), "--state", state)
    assert (code, err) == (130, "tarneeb: interrupted\n")
    monkeypatch.undo()
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "empty-config"))
    code, out, err = run(capsys, "audit", "-j", "1", "--no-stats", "--json", str(logs),
                         "--state", state)
    assert code == 0 and err == ""
    assert '"audited": 3' in out  # the interrupted run saved nothing: every log read now


@pytest.mark.parametrize("kind", ["fifo", "device", "large"])
def test_a_state_key_that_is_no_small_regular_file_is_refused_unread(
        kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``--state-key`` naming a FIFO no one writes to waited forever, and ``/dev/zero`` (or
    a huge file) was read whole into memory: refused in one line instead, as every other
    file the command reads."""
    logs = tmp_path / "logs"
    write_archive(logs, 1, seed=b"hostile")
    if kind == "fifo":
        key = tmp_path / "key.fifo"
        os.mkfifo(key)
    elif kind == "device":
        key = Path(os.devnull)
    else:
        key = tmp_path / "huge.key"
        with key.open("wb") as f:
            f.truncate(64 << 20)  # (sparse: 64 MiB of zeros, nothing on disk)
    state = tmp_path / "audit.state"
    code, out, err = run(capsys, "audit", "-j", "1", "--no-stats", str(logs),
                         "--state", str(state), "--state-key", str(key))
    assert code == 2 and out == ""
    assert err.startswith(f"tarneeb: error: {key}: cannot read the state key: ")
    assert err.count("\n") == 1


def test_an_output_that_is_the_input_is_refused_and_left_as_it_was(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``report m.tlog -o m.tlog`` put the page in the log's place, and ``play --key k.pem
    -o k.pem`` the log in the private key's: the only copy of each, lost. Refused now, in
    one line, with both files as they were."""
    key = tmp_path / "k.pem"
    assert run(capsys, "keygen", str(key))[0] == 0
    log = tmp_path / "m.tlog"
    assert run(capsys, "play", "--seed", "same", "--key", str(key), "-o", str(log))[0] == 0
    data, secret = log.read_bytes(), key.read_bytes()
    for argv in (("report", str(log), "-o", str(log)),
                 ("report", str(log), "-o", str(tmp_path / "." / "m.tlog")),
                 ("play", "--seed", "same", "--key", str(key), "-o", str(key)),
                 ("export", str(log), "-o", str(log)),
                 ("import", str(log), "--sign", str(key), "-o", str(key))):
        code, out, err = run(capsys, *argv)
        assert code == 2 and out == "" and err.count("\n") == 1, argv
        assert "which this command reads" in err
        assert log.read_bytes() == data and key.read_bytes() == secret


def test_a_report_or_junit_file_named_as_a_log_read_is_refused(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``audit DIR --report DIR/m.tlog`` and ``regress DIR --junit-xml DIR/m.tlog`` wrote
    their page over a log they had just read (exit 0): refused before anything is read, the
    log as it was; a report that is no log of the archive is written over as before (a daily
    audit's report of yesterday)."""
    logs = tmp_path / "logs"
    write_archive(logs, 2, seed=b"hostile outputs")
    victim = sorted(logs.iterdir())[0]
    data = victim.read_bytes()
    for argv in (("audit", str(logs), "--report", str(victim)),
                 ("regress", "--engine", "tarneeb.testing.adapters:ReferenceEngine", str(logs),
                  "--junit-xml", str(victim))):
        code, _out, err = run(capsys, *argv)
        assert code == 2 and "which this command reads" in err, (argv, err)
        assert victim.read_bytes() == data
    page = tmp_path / "report.html"
    page.write_text("yesterday's", encoding="utf-8")
    assert run(capsys, "audit", str(logs), "--report", str(page))[0] == 0
    assert page.read_text(encoding="utf-8") != "yesterday's"


def test_dump_refuses_a_negative_count_of_hands(capsys: pytest.CaptureFixture[str]) -> None:
    """``dump --hands -1`` showed the header alone and exit 0, as if the log held no hand."""
    log = Path(__file__).resolve().parent.parent / "fixtures" / "matches" / "classic-timer.tlog"
    code, out, err = run(capsys, "dump", str(log), "--hands", "-1")
    assert code == 2 and out == "" and "--hands" in err and err.count("\n") == 1


@pytest.mark.parametrize("target", ["dir", "missing/report.html"])
def test_an_audit_report_that_cannot_be_written_is_refused_before_the_audit(
        capsys: Any, tmp_path: Path, target: str) -> None:
    """A directory, or a path into no directory, as ``--report``: one line before any log is
    read (it was said after the whole archive had been audited)."""
    (tmp_path / "dir").mkdir()
    logs = tmp_path / "logs"
    write_archive(logs, 2)
    code, out, err = run(capsys, "audit", str(logs), "--report", str(tmp_path / target))
    assert code == 2 and out == "" and err.count("\n") == 1 and "cannot write" in err


@pytest.mark.parametrize("value", ["nan", "inf", "-0.1", "0", "0.6", "five"])
def test_an_alpha_outside_its_range_is_refused_in_words_that_fit_it(
        capsys: Any, tmp_path: Path, value: str) -> None:
    """``--alpha nan`` was refused as "should be less than or equal to 0.5", which a NaN
    is not above: the line now names the value and the range it must be in."""
    logs = tmp_path / "logs"
    write_archive(logs, 1)
    code, out, err = run(capsys, "audit", str(logs), "--alpha", value)
    assert code == 2 and out == "" and err.count("\n") == 1
    assert f"'{value}' is not a number" in err
    assert ("from 1e-9 to 0.5" in err) is (value != "five")
    assert run(capsys, "audit", str(logs), "--alpha", "1e-9", "--no-stats")[0] == 0


def test_dump_names_what_the_reader_refuses_past_what_it_annotates(tmp_path, capsys):
    """A record after the signature, and bytes past a log's end that read as one: ``dump``
    showed them as records and exited 0, where every reader finds the log unreadable from
    there; the reader's word is named (exit 2), the dump shown whole."""
    from pathlib import Path

    from cli_runner import run

    log = Path(__file__).resolve().parent.parent / "fixtures" / "matches" / "classic-01.tlog"
    data = log.read_bytes()
    bad = tmp_path / "append.tlog"
    bad.write_bytes(data + bytes([0x91, 0x02]))
    code, out, err = run(capsys, "dump", str(bad))
    assert code == 2 and "a record follows the signature" in err and out, err
    assert run(capsys, "dump", str(log))[0] == 0
