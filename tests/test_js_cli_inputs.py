"""`tarneeb-js verify` and `tarneeb-engine` given hostile inputs from outside: paths that
are no regular file (a FIFO, a device, a directory, a huge sparse file), names that are not
UTF-8, standard input, options written as `--key=FILE` or after `--`, option values that are
no whole number; request lines an engine server cannot echo, a reader that goes away. Each
gets the Python command's verdict, exit code and words, one line and never a stack trace."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.js_build import DIST, ROOT, built

LOG = sorted((ROOT / "fixtures" / "matches").glob("*.tlog"))[0]
OTHER = sorted((ROOT / "fixtures" / "matches").glob("*.tlog"))[1]
WAIT = 120  # seconds: a command that hangs fails the test instead of stopping the suite


@pytest.fixture(scope="module")
def node() -> str:
    return built("cli.js")


@pytest.fixture()
def env(tmp_path: Path) -> dict[str, str]:
    """No user keys file, which both verifiers would read."""
    return {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config"), "HOME": str(tmp_path)}


def _run(cmd: list[str | bytes], env: dict[str, str], cwd: Path,
         stdin: bytes | None = None) -> tuple[int, str, str]:
    proc = subprocess.run(cmd, input=stdin, capture_output=True, env=env, cwd=cwd, timeout=WAIT,
                          stdin=None if stdin is not None else subprocess.DEVNULL)
    return (proc.returncode, proc.stdout.decode("utf-8", "surrogateescape"),
            proc.stderr.decode("utf-8", "surrogateescape"))


def _both(node: str, env: dict[str, str], cwd: Path, args: list[str | bytes],
          stdin: bytes | None = None) -> tuple[tuple[int, str, str], tuple[int, str, str]]:
    """Both verifiers' exit code, standard output and error line (after ``error: ``)."""
    js = _run([node, str(DIST / "cli.js"), "verify", *args], env, cwd, stdin)
    py = _run([sys.executable, "-m", "tarneeb", "verify", *args], env, cwd, stdin)
    out = []
    for code, stdout, stderr in (js, py):
        lines = stderr.strip().splitlines()
        assert len(lines) <= 1 and "Traceback" not in stderr and "    at " not in stderr, stderr
        out.append((code, stdout, lines[0].split("error: ", 1)[1] if lines else ""))
    return out[0], out[1]


def test_a_fifo_or_a_device_is_refused_unread(node: str, env: dict[str, str],
                                              tmp_path: Path) -> None:
    """A FIFO no one writes to, as a log, a key, a keys file or a receipt, and /dev/zero:
    refused without reading (never a wait, never an endless read), in the same words."""
    fifo = tmp_path / "f.tlog"
    os.mkfifo(fifo)
    cases: list[list[str | bytes]] = [[str(fifo)], ["/dev/zero"], ["--json", str(fifo)]]
    cases += [[option, path, str(LOG)] for option in ("--key", "--keys", "--receipt")
              for path in (str(fifo), "/dev/zero")]
    for args in cases:
        js, py = _both(node, env, tmp_path, args)
        assert js == py, args
        assert js[0] == 2 and "not a regular file: refused without reading it" in (js[2] + js[1])


def test_a_huge_sparse_file_is_refused_by_its_size(node: str, env: dict[str, str],
                                                   tmp_path: Path) -> None:
    """A 3 GB file (sparse: nothing on the disk) as a log or a keys file is refused by its
    size, which the message gives as it is, unread; a log over --max-bytes too."""
    big = tmp_path / "big.tlog"
    with open(big, "wb") as f:
        f.truncate(3 * 1024**3)
    for args in ([str(big)], ["--json", str(big)], ["--keys", str(big), str(LOG)],
                 ["--receipt", str(big), str(LOG)], ["--max-bytes", "100", str(LOG)]):
        js, py = _both(node, env, tmp_path, args)
        assert js == py, args
        assert js[0] == 2
    js, _ = _both(node, env, tmp_path, [str(big)])
    assert "the log is 3,221,225,472 bytes: over the max_bytes cap of 16,777,216" in js[2]


def test_a_directory_stands_for_every_log_under_it(node: str, env: dict[str, str],
                                                   tmp_path: Path) -> None:
    """A directory's own logs by name, then each subdirectory's; one without logs ends the
    command in one line; a name that is not UTF-8 is read and shown as Python shows it."""
    top = tmp_path / "logs"
    (top / "sub" / "deeper").mkdir(parents=True)
    (top / "b").mkdir()
    (top / "empty").mkdir()
    (top / "z.tlog").write_bytes(LOG.read_bytes())
    (top / "b" / "a.tlog").write_bytes(OTHER.read_bytes())
    (top / "sub" / "deeper" / "c.tlog").write_bytes(LOG.read_bytes())
    (top / "sub" / "notes.txt").write_text("not a log")
    os.symlink(top / "sub", top / "link")
    odd = os.fsencode(top) + b"/\xff\xfe.tlog"
    with open(odd, "wb") as f:
        f.write(OTHER.read_bytes()[:-10])
    js, py = _both(node, env, tmp_path, ["--json", str(top)])
    assert js == py
    names = [v["path"] for v in json.loads(js[1])]
    assert [n.removeprefix(f"{top}/") for n in names] == [
        "z.tlog", "\udcff\udcfe.tlog", "b/a.tlog", "sub/deeper/c.tlog"]
    js, py = _both(node, env, tmp_path, [odd])
    assert js == py and "\\xff\\xfe.tlog" in js[1] + js[2]
    js, py = _both(node, env, tmp_path, [str(top / "empty")])
    assert js == py and js[0] == 2 and js[2].endswith(
        "no *.tlog match logs in this directory or its subdirectories")


def test_options_and_standard_input_as_the_python_command_takes_them(
        node: str, env: dict[str, str], tmp_path: Path) -> None:
    """`--max-bytes=N`, `--` before logs, `-` for standard input; a missing file in the C
    library's words; --max-bytes refused or taken as the Python command does."""
    data = LOG.read_bytes()
    from tarneeb.replay.log.jsonout import dumps

    form = dumps(data).encode("utf-8")  # a log's JSON form from standard input, as a file's
    for args, stdin in ((["--json", f"--max-bytes={len(data)}", "--", str(LOG)], None),
                        (["--json", "-"], data), (["--json", "-"], data[:-7]),
                        (["--json", "-"], form), (["-"], form), (["-"], b'{"a": 1}'),
                        (["--json", "-"], b" \n" + form[:-40]),
                        (["--json", "-"], b"\0" * 100),
                        (["--json", "missing.tlog"], None),
                        (["--json", str(LOG / "x.tlog")], None),
                        (["--json", "--max-bytes", " 1_000_000 ", str(LOG)], None),
                        (["--json", "--max-bytes", f"{len(data) - 1}.00", str(LOG)], None)):
        js, py = _both(node, env, tmp_path, list(args), stdin)
        assert js == py, args
        if stdin is form:  # (it was "not a tarneeb log", exit 2, in both)
            assert js[0] == 0, js
    for bad in ("1e9", "0x100000", "NaN", "", "-5", "0", "1.5"):
        js, py = _both(node, env, tmp_path, ["--max-bytes", bad, str(LOG)])
        assert js[0] == py[0] == 2 and js[1] == py[1] == "", bad


ENGINE = DIST / "engine-server.js"


def test_the_engine_server_answers_what_it_cannot_echo(node: str, tmp_path: Path) -> None:
    """A request whose id nests 100,000 deep is answered with an error, and the next one
    too: the server goes on, with no stack trace."""
    deep = "[" * 100_000 + "]" * 100_000
    lines = [f'{{"id":{deep},"cmd":"hello"}}', '{"id":2,"cmd":"totals"}', '{"cmd":"quit"}']
    proc = subprocess.run([node, str(ENGINE)], input="\n".join(lines) + "\n", text=True,
                          capture_output=True, timeout=WAIT)
    assert proc.returncode == 0 and proc.stderr == ""
    answers = [json.loads(line) for line in proc.stdout.splitlines()]
    assert answers == [{"id": None, "error": "a request's id is an integer"},
                       {"id": 2, "error": "new_match was not called"}]


def test_the_engine_server_stops_quietly_when_its_reader_goes(node: str) -> None:
    """Standard output closed by the reader before the answers: the server ends with exit 0
    and nothing on stderr (no unhandled EPIPE)."""
    read, write = os.pipe()
    os.close(read)
    try:
        proc = subprocess.run([node, str(ENGINE)], input=b'{"id":1,"cmd":"totals"}\n' * 1000,
                              stdout=write, stderr=subprocess.PIPE, timeout=WAIT)
    finally:
        os.close(write)
    assert proc.returncode == 0 and proc.stderr == b""


def test_the_engine_server_escapes_its_arguments(node: str) -> None:
    """An argument holding a terminal escape is shown escaped in the error line."""
    for args in (["\x1b]0;title\x07"], ["--planted-bug", "\x1b[2J"]):
        proc = subprocess.run([node, str(ENGINE), *args], capture_output=True, text=True,
                              timeout=WAIT, stdin=subprocess.DEVNULL)
        assert proc.returncode == 2 and "\x1b" not in proc.stderr and "\x07" not in proc.stderr
        assert "\\x1b" in proc.stderr


def test_the_engine_servers_answer_lines_they_cannot_read_alike(node: str) -> None:
    """A request nested deeper than a JSON reader goes, and a line past 1 MiB (read no
    further: it was held whole, however long), get the same error answers from the Node and
    the Python server, and the next request its own."""
    hello = json.dumps({"id": 1, "cmd": "hello", "protocol": "tarneeb-engine", "versions": [1]})
    sent = "[" * 100_000 + "\n" + "x" * ((1 << 20) + 10) + "\n" + hello + "\n"
    answers = []
    for cmd in ([node, str(ENGINE)], [sys.executable, "-m", "tarneeb.testing.engine_server"]):
        proc = subprocess.run(cmd, input=sent, text=True, capture_output=True, timeout=WAIT)
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
        got = [json.loads(line) for line in proc.stdout.splitlines()]
        assert got[2]["id"] == 1
        answers.append(got[:2])
    assert answers[0] == answers[1] == [
        {"id": None, "error": "a request is one JSON object on one line"},
        {"id": None, "error": "a request line is longer than 1,048,576 characters"}]
