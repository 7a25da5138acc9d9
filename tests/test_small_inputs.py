"""Small input files read small: TOML nested too deep or holding too long a number, a
receipt's endless number, a huge (sparse) file and a FIFO given as a key, keys, receipt,
rules, season or JSON log file: each one line and exit 2, read no further than its limit,
never a traceback and never a wait."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_runner import run

from tarneeb.audit.jsontext import JsonTextError, read_json
from tarneeb.replay.server.simulate import play_logged_match

LOG = play_logged_match("eram41", seed=b"small-inputs")
SEED = "00" * 32
CLIENT = "11" * 16
DEEP_ARRAY = "x = " + "[" * 5000 + "\n"
DEEP_TABLE = "x = " + "{a = " * 3000 + "1" + "}" * 3000 + "\n"
LONG_NUMBER = 'base = "classic"\ntarget = ' + "9" * 5000 + "\n"
SPARSE = 100 * 1024 * 1024
SMALL_FILE_BYTES = 1024 * 1024  # what a keys, rules, season or PEM file may hold


@pytest.fixture(autouse=True)
def _no_user_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))


def one_line(code: int, err: str) -> str:
    assert code == 2, err
    assert "Traceback" not in err
    assert len(err.splitlines()) == 1 and err.startswith("tarneeb: error: "), err
    return err


def uses_of(path: str, tmp_path: Path) -> list[list[str]]:
    """Every command that reads the TOML file ``path``."""
    log = tmp_path / "m.tlog"
    log.write_bytes(LOG)
    return [["play", "-o", str(tmp_path / "o.tlog"), "--rules-file", path],
            ["rules", path],
            ["rules", "diff", "classic", path],
            ["deal", "-s", SEED, "-m", "x", *["-c", CLIENT] * 4, "-r", path],
            ["verify", "--keys", path, str(log)]]


@pytest.mark.parametrize(("text", "said"), [
    (DEEP_ARRAY, "nested too deeply"), (DEEP_TABLE, "nested too deeply"),
    (LONG_NUMBER, "a number too long to read (more than 4300 digits)")])
def test_toml_too_deep_or_too_long_is_one_line(text: str, said: str, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    for argv in uses_of(str(path), tmp_path):
        err = one_line(*run(capsys, *argv)[::2])
        assert f"{path}: " in err and said in err, (argv, err)


def test_the_default_keys_file_too_deep(tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    keys = tmp_path / "config" / "tarneeb" / "keys.toml"
    keys.parent.mkdir(parents=True)
    keys.write_text(DEEP_ARRAY)
    log = tmp_path / "m.tlog"
    log.write_bytes(LOG)
    err = one_line(*run(capsys, "verify", str(log))[::2])
    assert f"{keys}: arrays or tables nested too deeply" in err


@pytest.mark.parametrize(("option", "said"), [
    ("tie=" + "[" * 3000, "option tie: arrays or tables nested too deeply"),
    ("target=" + "9" * 5000, "option target: a number too long to read")])
def test_an_option_too_deep_or_too_long(option: str, said: str, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "play", "--rules", "classic", "--option", option,
                       "-o", str(tmp_path / "o.tlog"))
    assert said in one_line(code, err)


def test_a_receipt_with_a_number_of_5000_digits(tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    number = "9" * 5000
    with pytest.raises(JsonTextError, match=f"^the number {number}: a receipt's numbers"):
        read_json(f'{{"n": {number}}}'.encode(), "a receipt", 65536)
    with pytest.raises(JsonTextError, match=r"^the number -9{20}: "):
        read_json(b"[-" + b"9" * 20 + b"]", "a receipt")
    receipt = tmp_path / "r.json"
    receipt.write_text(f'{{"format": "tarneeb-receipt", "n": {number}}}')
    log = tmp_path / "m.tlog"
    log.write_bytes(LOG)
    err = one_line(*run(capsys, "verify", str(log), "--receipt", str(receipt))[::2])
    assert "r.json: not a receipt: the number 999" in err


def file_uses(path: str, tmp_path: Path) -> list[tuple[list[str], str]]:
    """Every command that reads the small file ``path``, and what it may hold."""
    log = tmp_path / "m.tlog"
    log.write_bytes(LOG)
    out = str(tmp_path / "o.tlog")
    small = f"more than the {SMALL_FILE_BYTES:,} it may hold"
    return [(["verify", "--key", path, str(log)], small),
            (["verify", "--keys", path, str(log)], small),
            (["verify", str(log), "--receipt", path], "more than the 65,536 it may hold"),
            (["play", "-o", out, "--rules-file", path], small),
            (["play", "-o", out, "--rules", "eram41", "--season", path], small),
            (["play", "-o", out, "--rules", "eram41", "--key", path], small),
            (["pubkey", path], small),
            (["commit", "-n", "2", "--key", path], small),
            (["import", path, "-o", out, "--max-bytes", "1000000"],
             "more than the 8,000,000 it may hold: refused without reading it; a JSON log "
             "holds at most eight times --max-bytes")]


def test_a_huge_sparse_file_is_refused_unread(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    big = tmp_path / "big.toml"
    big.touch()
    os.truncate(big, SPARSE)
    for argv, said in file_uses(str(big), tmp_path):
        start = time.monotonic()
        err = one_line(*run(capsys, *argv)[::2])
        assert time.monotonic() - start < 5, argv
        assert f"{big}: cannot read" in err and said in err, (argv, err)
        assert "refused without reading it" in err


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_waiting(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.toml"
    os.mkfifo(fifo)
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "config")}
    for argv, _ in [*file_uses(str(fifo), tmp_path), (["rules", str(fifo)], "")]:
        try:
            done = subprocess.run([sys.executable, "-m", "tarneeb", *argv], env=env,
                                  stdin=subprocess.DEVNULL, capture_output=True, text=True,
                                  timeout=30, check=False)
        except subprocess.TimeoutExpired:
            pytest.fail(f"tarneeb {' '.join(argv)} waits on a FIFO")
        err = one_line(done.returncode, done.stderr)
        assert "a FIFO (named pipe), not a regular file: refused without reading it" in err


def test_a_season_on_standard_input_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(
        io.BytesIO(b" " * (SMALL_FILE_BYTES + 10) + b"{}")))
    code, _, err = run(capsys, "play", "-o", str(tmp_path / "o.tlog"), "--rules", "eram41",
                       "--season", "-")
    assert f"<stdin>: more than the {SMALL_FILE_BYTES:,} bytes it may hold" in one_line(code, err)


def test_read_small_file(tmp_path: Path) -> None:
    from tarneeb.audit.encoding import SMALL_FILE_BYTES as limit
    from tarneeb.audit.encoding import read_small_file

    assert limit == SMALL_FILE_BYTES
    path = tmp_path / "k.toml"
    path.write_bytes(b"a = 1\n")
    assert read_small_file(path, 6) == b"a = 1\n"
    with pytest.raises(OSError, match="7 bytes, more than the 6 it may hold"):
        path.write_bytes(b"a = 12\n")
        read_small_file(path, 6)
    with pytest.raises(IsADirectoryError):
        read_small_file(tmp_path)


def test_a_rules_name_with_a_terminal_escape_is_refused_in_one_line(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A rules file's name or about line with a control character (a terminal's title set
    by ESC ] 0; … BEL) is refused where the file is read, as a log refuses such a name:
    it was a traceback for play and rules, and raw escapes on the terminal for deal."""
    rules = tmp_path / "esc.toml"
    rules.write_text('name = "\\u001b]0;title\\u0007x"\nbase = "eram41"\n', "utf-8")
    for argv in (["play", "--rules-file", str(rules), "-o", str(tmp_path / "e.tlog"),
                  "--seed", "a"], ["rules", str(rules)]):
        code, out, err = run(capsys, *argv)
        assert code == 2 and err.count("\n") == 1 and "U+001B" in err
        assert "\x1b" not in out + err and "\x07" not in out + err


@pytest.mark.parametrize("argv, said", [
    (["play", "--seed", "a", "--option", "fixed_trump=Z"], "option fixed_trump: not a suit"),
    (["audit", "-j", "2147483647", "."], "--jobs"),
])
def test_an_option_out_of_its_range_is_one_line(
        argv: list[str], said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A trump that is no suit, a number of jobs past what a machine has (past 2**31: an
    overflow in the process pool): one line, exit 2, not a traceback."""
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, *argv, "-o", str(tmp_path / "p.tlog")) \
        if argv[0] == "play" else run(capsys, *argv)
    assert code == 2 and said in err and "Traceback" not in err


def test_dump_refuses_a_fifo_unopened(tmp_path: Path) -> None:
    """``dump`` reads a log as the other readers do: a FIFO no one writes to is refused
    without being opened (it waited forever)."""
    fifo = tmp_path / "f.tlog"
    os.mkfifo(fifo)
    done = subprocess.run([sys.executable, "-m", "tarneeb.cli.entry", "dump", str(fifo)],
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2 and "not a regular file" in done.stderr


@pytest.mark.parametrize("options, said", [
    # a control character in a name given as an option: a traceback where the log was
    # read back, no log written
    (['name="x\\u001b[31m"'], "option name: holds the character U+001B"),
    # a table given as an option: "not iterable" in Python's words
    (["name='c'", "min_total_steps=5"], "min_total_steps must be a list of [score, value]"),
    # a shipped variant's name on other rules: tarneeb wrote the log it would not for a
    # preset (the verifiers only noted it)
    (["target=1"], "rules named house400 differ from the house400 shipped with tarneeb in "
                   "target"),
    (["name='eram41'"], "rules named eram41 differ from eram41"),
])
def test_a_shipped_variants_options_are_checked_as_a_rules_files_are(
        options: list[str], said: str, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["play", "--rules", "house400", "--seed", "a", "-o", str(tmp_path / "v.tlog")]
    for o in options:
        argv += ["--option", o]
    code, _, err = run(capsys, *argv)
    assert code == 2 and said in err and err.count("\n") == 1, err
    assert not (tmp_path / "v.tlog").exists()


def test_tables_given_as_options_are_read_as_a_rules_file_reads_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Lists were handed to the rules as lists, which they refused ("values must list 12
    whole numbers" for 12 of them), and ``values_high = []`` was no second table only in a
    rules file."""
    from tarneeb.replay.log import parse_log

    out = tmp_path / "t.tlog"
    code, _, err = run(capsys, "play", "--rules", "house400", "--seed", "a", "-o", str(out),
                       "--option", "name='club'",
                       "--option", "values=[2,3,4,5,6,7,8,9,10,11,12,13]",
                       "--option", "min_bid_steps=[[30,3]]", "--option", "values_high=[]")
    assert code == 0, err
    rules = parse_log(out.read_bytes()).header.rules
    assert rules.values == tuple(range(2, 14)) and rules.min_bid_steps == ((30, 3),)
    assert rules.values_high is None
    code, out_text, err = run(capsys, "deal", "--rules", "house400", "--server-seed",
                              "00" * 32, "--match-id-text", "m1",
                              *[x for _ in range(4) for x in ("-c", "11" * 16)])
    assert code == 0 and "trump" in out_text.lower(), err
