"""What an archive could hide from ``tarneeb audit``: special files, directories that
cannot be listed, files gone mid-run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tarneeb.cli.entry import main
from tarneeb.replay.archive import paths as archive_paths
from tarneeb.replay.server.simulate import play_logged_match


@pytest.fixture(autouse=True)
def own_config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "empty-config"))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    with pytest.raises(SystemExit) as e:
        main(list(argv))
    out, err = capsys.readouterr()
    return int(e.value.code or 0), out, err


def tarneeb(*argv: str) -> subprocess.CompletedProcess[str]:
    """The command in a process of its own, stopped after 60 s (a hang fails the test)."""
    return subprocess.run([sys.executable, "-m", "tarneeb.cli.entry", *argv],
                          capture_output=True, text=True, timeout=60)


@pytest.fixture(scope="module")
def logs() -> list[bytes]:
    """Three matches; the first alone shows no evidence of bias (exit 0, not 3)."""
    return [play_logged_match("qahwa41", seed=b"hides %d" % i) for i in (1, 0, 2)]


def test_a_fifo_is_refused_unopened_by_verify_and_audit(
        tmp_path: Path, logs: list[bytes], capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "a.tlog").write_bytes(logs[0])
    fifo = tmp_path / "b.tlog"
    os.mkfifo(fifo)  # nobody writes to it: opening it for reading would wait forever
    done = tarneeb("verify", str(fifo))
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert f"{fifo}: cannot read: a FIFO (named pipe), not a regular file" in done.stderr
    done = tarneeb("audit", "-j", "1", "--json", str(tmp_path))
    assert done.returncode == 2, done.stderr
    doc = json.loads(done.stdout)
    assert (doc["logs"], doc["clean"], doc["unreadable"], doc["not_read"]) == (2, 1, 1, 1)
    assert any(f"{fifo}: cannot read: a FIFO" in e for e in doc["first_unreadable"])
    code, out, _ = run(capsys, "audit", "-j", "1", "--skip-unreadable", str(tmp_path))
    assert code == 0 and f"unreadable: {fifo}: cannot read: a FIFO" in out  # skipped, named
    assert not out.startswith("All")


@pytest.fixture
def hidden(tmp_path: Path, logs: list[bytes], monkeypatch: pytest.MonkeyPatch) -> Path:
    """An archive with a subdirectory that cannot be listed (os.scandir refuses it, as
    it would a user without the right: root may list anything) and a log removed between
    the listing and the reading."""
    top = tmp_path / "archive"
    for name, data in (("a.tlog", logs[0]), ("closed/b.tlog", logs[1]),
                       ("gone.tlog", logs[2])):
        (top / name).parent.mkdir(parents=True, exist_ok=True)
        (top / name).write_bytes(data)
    real_scandir, real_logs_under = os.scandir, archive_paths.logs_under

    def scandir(path: str | os.PathLike[str] = ".") -> object:
        if Path(path) == top / "closed":
            raise PermissionError(13, "Permission denied", str(path))
        return real_scandir(path)

    def logs_under(*args: object, **kw: object) -> Iterator[str]:
        for p in real_logs_under(*args, **kw):  # type: ignore[arg-type]
            yield p
            if p.endswith("gone.tlog"):  # listed, then removed before it is read
                os.remove(p)

    monkeypatch.setattr(os, "scandir", scandir)
    monkeypatch.setattr(archive_paths, "logs_under", logs_under)
    return top


def test_an_unlisted_directory_and_a_vanished_file_are_named(
        hidden: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "audit", "-j", "1", "--json", str(hidden))
    doc = json.loads(out)
    assert code == 2 and doc["exit_code"] == 2 and err == ""
    assert (doc["logs"], doc["clean"], doc["not_read"], doc["unlisted"]) == (2, 1, 1, 1)
    assert doc["first_unlisted"] == [f"{hidden / 'closed'}: cannot list: Permission denied"]
    assert any(f"{hidden / 'gone.tlog'}: cannot read: No such file" in e
               for e in doc["first_unreadable"])


def test_skip_unreadable_leaves_the_exit_code_to_the_rest_and_names_them(
        hidden: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (hidden / "gone.tlog").write_bytes((hidden / "a.tlog").read_bytes())  # a copy, then gone
    code, out, _ = run(capsys, "audit", "-j", "1", "--skip-unreadable", str(hidden))
    assert code == 0
    first = out.splitlines()[0]
    assert not first.startswith("All") and "1 directory could not be listed" in first
    assert f"not listed: {hidden / 'closed'}: cannot list: Permission denied" in out
    assert f"unreadable: {hidden / 'gone.tlog'}: cannot read" in out
    assert "--skip-unreadable: the exit code is what the rest makes it" in out


def test_bytes_that_are_not_a_log_are_never_skipped(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], logs: list[bytes]) -> None:
    (tmp_path / "a.tlog").write_bytes(logs[0])
    (tmp_path / "b.tlog").write_bytes(b"not a log")
    code, out, _ = run(capsys, "audit", "-j", "1", "--skip-unreadable", str(tmp_path))
    assert code == 2 and "b.tlog" in out


def test_verify_ends_on_a_directory_it_cannot_list(
        hidden: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "verify", str(hidden))
    assert code == 2 and err == f"tarneeb: error: {hidden / 'closed'}: cannot list: " \
        "Permission denied\n"
