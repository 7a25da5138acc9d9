"""Where the commands write: ``-o`` naming no file, a FIFO, a device, a symbolic link or a
socket; output paths echoed escaped; standard input or output closed at start."""

from __future__ import annotations

import contextlib
import os
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_runner import run

ROOT = Path(__file__).resolve().parent.parent
LOG = ROOT / "fixtures" / "matches" / "classic-01.tlog"
ESC = "z\x1b]0;pwn\x07"


@pytest.fixture(autouse=True)
def _config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def tarneeb(*argv: str, close: int | None = None, cwd: Path = ROOT
            ) -> subprocess.CompletedProcess[bytes]:
    """``tarneeb ARGV`` in a process of its own, with descriptor ``close`` closed."""
    def closing() -> None:
        if close is not None:
            os.close(close)

    return subprocess.run([sys.executable, "-m", "tarneeb.cli.entry", *argv],
                          stdin=subprocess.DEVNULL, capture_output=True,
                          preexec_fn=closing, check=False, cwd=cwd)  # (closed after the dup)


def one_error(err: str | bytes, *words: str) -> None:
    text = err.decode() if isinstance(err, bytes) else err
    assert text.count("\n") == 1 and text.startswith("tarneeb: error: "), text
    assert "Traceback" not in text and all(w in text for w in words), text


def test_a_fifo_is_written_through_not_replaced(tmp_path: Path) -> None:
    fifo = tmp_path / "log.fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # there before the writer
    try:
        done = tarneeb("play", "--seed", "0" * 64, "-o", str(fifo))
        assert done.returncode == 0, done.stderr
        data = os.read(reader, 1 << 16)
    finally:
        os.close(reader)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert data.startswith(tarneeb("play", "--seed", "0" * 64, "-o", "-").stdout[:64])


def test_a_symlink_to_a_device_is_kept_and_written_through(tmp_path: Path, capsys) -> None:
    link = tmp_path / "null.tlog"
    link.symlink_to(os.devnull)
    code, _, err = run(capsys, "play", "-o", str(link))
    assert code == 0, err
    assert link.is_symlink() and stat.S_ISCHR(os.stat(link).st_mode)


def test_a_symlink_is_followed_its_file_replaced(tmp_path: Path, capsys) -> None:
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "match.tlog"
    target.write_bytes(b"old")
    link = tmp_path / "match.tlog"
    link.symlink_to(target)
    code, _, err = run(capsys, "export", str(LOG), "-o", str(link))
    assert code == 0, err
    assert link.is_symlink() and os.readlink(link) == str(target)
    assert target.read_bytes().startswith(b"{")
    assert [p.name for p in (tmp_path / "real").iterdir()] == ["match.tlog"]  # no .tmp left


def test_a_socket_is_refused_and_left(tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)  # (a short name: a socket's path is limited)
    with socket.socket(socket.AF_UNIX) as s:
        s.bind("s.tlog")
        code, out, err = run(capsys, "export", str(LOG), "-o", "s.tlog")
        assert code == 2 and out == ""
        one_error(err, "s.tlog", "socket")
        assert stat.S_ISSOCK(os.lstat("s.tlog").st_mode)


@pytest.mark.parametrize("target", [".", "/", "", "new/", "new/sub/"])
@pytest.mark.parametrize("argv", [["play", "-o"], ["export", str(LOG), "-o"],
                                  ["report", str(LOG), "-o"], ["verifier", "-o"],
                                  ["import", "JSON", "-o"], ["keygen"],
                                  ["keygen", "k.pem", "--public"],
                                  ["play", "-o", "x.tlog", "--receipt-out"],
                                  ["audit", str(LOG), "--report"], ["audit", str(LOG), "--state"],
                                  ["audit", str(LOG), "--state", "s.db", "--state-key"]])
def test_an_output_that_names_no_file_is_one_line(target, argv, tmp_path, capsys,
                                                  monkeypatch) -> None:
    """A name that is no file to write is refused before anything is written, with its
    slash: ``-o new/`` wrote a file ``new`` (the option's path lost its slash)."""
    monkeypatch.chdir(tmp_path)
    page = tmp_path / "page.html"
    page.write_text("<script></script><p data-verdict></p>")
    monkeypatch.setenv("TARNEEB_VERIFIER_PAGE", str(page))
    assert run(capsys, "export", str(LOG), "-o", "log.json")[0] == 0
    argv = ["log.json" if a == "JSON" else a for a in argv]
    code, out, err = run(capsys, *argv, target)
    assert code == 2 and out == ""
    one_error(err, "an empty output file name" if target == "" else f"{target}: names a directory")
    assert sorted(os.listdir(tmp_path)) == ["log.json", "page.html"]


def test_keygen_and_verifier_show_the_paths_escaped(tmp_path: Path, capsys, monkeypatch) -> None:
    page = tmp_path / "page.html"
    page.write_text("<script></script><p data-verdict></p>")
    monkeypatch.setenv("TARNEEB_VERIFIER_PAGE", str(page))
    code, out, err = run(capsys, "keygen", str(tmp_path / f"{ESC}.pem"))
    assert code == 0, err
    assert "\x1b" not in out and "\x07" not in out and "z\\x1b]0;pwn\\x07.pem" in out
    assert "z\\x1b]0;pwn\\x07.pub.pem" in out and (tmp_path / f"{ESC}.pub.pem").exists()
    code, out, err = run(capsys, "verifier", "-o", str(tmp_path / f"{ESC}.html"))
    assert code == 0, err
    assert "\x1b" not in out and "\x07" not in out and "z\\x1b]0;pwn\\x07.html" in out
    assert "file://" in out and "z%1B%5D0%3Bpwn%07.html" in out
    code, out, err = run(capsys, "play", "--json", "-o", str(tmp_path / "z\x9b.tlog"))
    assert code == 0 and "\x9b" not in out and "z\\u009b.tlog" in out


@pytest.mark.parametrize("argv", [["verify", str(LOG)], ["verify", "--json", str(LOG)],
                                  ["export", str(LOG)], ["audit", str(LOG)],
                                  ["report", "-o", "-", str(LOG)], ["play", "-o", "-"],
                                  ["commit"], ["commit", "--json"]])
def test_a_closed_stdout_is_one_line_and_exit_2(argv: list[str]) -> None:
    done = tarneeb(*argv, close=1)
    assert done.returncode == 2
    one_error(done.stderr, "standard output is closed")


def test_commit_with_stdout_closed_fails_before_it_makes_a_seed() -> None:
    done = tarneeb("commit", close=1)
    assert done.returncode != 0 and b"SECRET" not in done.stderr


@pytest.mark.parametrize("argv", [["verify", "-"], ["show", "-"], ["export", "-"],
                                  ["dump", "-"], ["import", "-", "-o", "x.tlog"],
                                  ["audit", "-"]])
def test_a_closed_stdin_read_as_dash_is_one_line_and_exit_2(argv, tmp_path) -> None:
    done = tarneeb(*argv, close=0, cwd=tmp_path)
    assert done.returncode == 2
    one_error(done.stderr, "standard input is closed")
    assert not (tmp_path / "x.tlog").exists()


def test_in_process_closed_streams(capsys, monkeypatch) -> None:
    monkeypatch.setattr(sys, "stdin", None)
    code, out, err = run(capsys, "export", "-")
    assert code == 2 and out == ""
    one_error(err, "standard input is closed")
    monkeypatch.setattr(sys, "stdout", None)
    with pytest.raises(SystemExit) as e:
        from tarneeb.cli.entry import main

        main(["pubkey", "none.pem"])
    assert e.value.code == 2
    one_error(capsys.readouterr().err, "standard output is closed")
    done = tarneeb("verify", str(LOG), close=0)  # a closed stdin never read: no error
    assert done.returncode == 0 and done.stderr == b""


def test_an_archive_report_is_written_through_a_fifo(tmp_path: Path) -> None:
    """``audit --report`` writes as every command's output does: a FIFO (or a device) is
    written through, not replaced by a regular file."""
    fifo = tmp_path / "report.fifo"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # there before the writer
    chunks = []
    try:
        with subprocess.Popen([sys.executable, "-m", "tarneeb.cli.entry", "audit", str(LOG),
                               "--report", str(fifo)], stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              cwd=ROOT) as audit:
            while True:  # read as it is written (the page is longer than a pipe holds)
                ended = audit.poll() is not None
                with contextlib.suppress(BlockingIOError):
                    while chunk := os.read(reader, 1 << 16):
                        chunks.append(chunk)
                if ended:
                    break
                time.sleep(0.01)
            assert audit.returncode == 0
    finally:
        os.close(reader)
    data = b"".join(chunks)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert data.lstrip().lower().startswith(b"<!doctype html>")


def test_an_archive_report_on_standard_output_is_refused(capsys) -> None:
    """``audit --report -`` would mix the page with the summary on standard output (it made
    a file named ``-``): one line, exit 2, before the audit runs."""
    code, out, err = run(capsys, "audit", str(LOG), "--report", "-")
    assert code == 2 and out == ""
    one_error(err, "--report -: the audit's summary goes to standard output")


@pytest.mark.parametrize("argv", [
    ["verify"], ["verify", "--json"],
    ["regress", "--engine", "tarneeb.testing.adapters:reference"]])
def test_an_empty_log_name_is_one_line(argv: list[str], capsys) -> None:
    """``verify ""`` verified every log under the current directory (``Path("")`` is
    ``.``): an empty name is refused in one line."""
    code, out, err = run(capsys, *argv, "")
    assert code == 2 and out == ""
    one_error(err, "an empty file name")
