"""Hostile input at the command line: each case ends in a verdict, or one error line
and exit 2, never a traceback; data is never read as markup; a closed pipe does not
change the exit code; keygen never writes through a symlink or leaves half a key pair."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from test_untrusted import assert_one_ending, cli

from tarneeb.audit.signing import load_private_key_file, load_public_key_file, public_key_raw
from tarneeb.replay.log import jsonform as logjson
from tarneeb.replay.server.simulate import play_logged_match

LOG = play_logged_match("eram41", seed=b"untrusted-cli")
SEED = "00" * 32
CLIENT = "11" * 16


def tarneeb(*argv: str | bytes, stdout: int | None = subprocess.PIPE
            ) -> subprocess.CompletedProcess[bytes]:
    """The command in its own process (argv may hold bytes that are not UTF-8)."""
    return subprocess.run([sys.executable, "-m", "tarneeb", *argv], stdout=stdout,
                          stderr=subprocess.PIPE, timeout=120, check=False)


@pytest.fixture
def log(tmp_path: Path) -> Path:
    path = tmp_path / "m.tlog"
    path.write_bytes(LOG)
    return path


# ------------------------------------------------------------------ import
def _json_doc() -> dict:
    return json.loads(logjson.dumps(LOG))


@pytest.mark.parametrize("case, says", [
    ("deep", "JSON nested deeper than a log is: over the max_depth cap of 8"),
    ("deep record", "record 0: nested deeper than a log is: over the max_depth cap of 8"),
    ("long list", "record 1: a list or object of 100,000 items, more than any field"),
    ("digits", "a number of 5000 digits: over the max_int_digits cap of 24"),
    ("seat name", "record 0 (header): a seat name of 300 characters: over the max_name cap"),
    ("huge name", "record 0: a text of 10,000,000 characters, more than any field of a log"),
    ("many records", "400 records: over the max_records cap of 300; raise it with --max-records"),
])
def test_import_bounds_what_comes_in(tmp_path: Path, case: str, says: str) -> None:
    doc = _json_doc()
    if case == "deep":
        text = '{"format": "tarneeb-log-json", "records": ' + "[" * 100_000 + "]" * 100_000 + "}"
    elif case == "deep record":
        doc["records"][0]["rules"]["values"] = json.loads("[" * 9 + "]" * 9)
        text = json.dumps(doc)
    elif case == "long list":
        doc["records"][1]["plays"] = ["2♣"] * 100_000
        text = json.dumps(doc)
    elif case == "digits":
        text = json.dumps(doc).replace('"deal_number": 0', '"deal_number": ' + "7" * 5000, 1)
    elif case in ("seat name", "huge name"):
        doc["records"][0]["seats"][0]["name"] = "n" * (300 if case == "seat name" else 10**7)
        text = json.dumps(doc)
    else:
        doc["records"][1:1] = [doc["records"][1]] * (400 - len(doc["records"]))
        text = json.dumps(doc)
    src, dst = tmp_path / "in.json", tmp_path / "out.tlog"
    src.write_text(text, encoding="utf-8")
    code, _, err = cli("import", "--max-records", "300", str(src), "-o", str(dst))
    assert_one_ending(code, err, (2,))
    assert says in err and not dst.exists()


def test_import_refuses_what_verify_would_not_read(tmp_path: Path) -> None:
    doc = _json_doc()
    doc["records"].insert(1, doc["records"][-2])  # the end record before the hands
    src, dst = tmp_path / "in.json", tmp_path / "out.tlog"
    src.write_text(json.dumps(doc), encoding="utf-8")
    code, _, err = cli("import", str(src), "-o", str(dst))
    assert_one_ending(code, err, (2,))
    assert "record 2 (hand): a deal record follows the end record" in err


# ------------------------------------------------------------------ deal -m
def test_deal_with_a_match_id_that_is_not_utf8() -> None:
    r = tarneeb("deal", "-s", SEED, *(["-c", CLIENT] * 4), "-m", b"cup\xff")
    assert r.returncode == 2 and r.stdout == b""
    assert r.stderr == (b"tarneeb: error: match id: not UTF-8 text; give an id that is not "
                        b"text as hex (--match-id-hex)\n")
    r = tarneeb("deal", "-s", SEED, *(["-c", CLIENT] * 4), "--match-id-hex", "637570ff")
    assert r.returncode == 0, r.stderr


# ------------------------------------------------------------------ no markup from data
def test_paths_and_names_are_never_markup(tmp_path: Path) -> None:
    (tmp_path / "x[").mkdir()
    odd = tmp_path / "x[" / "green].tlog"  # the path holds "[/green]"
    cup = tmp_path / "cup[final].tlog"
    for p in (odd, cup):
        p.write_bytes(LOG)
        code, out, err = cli("verify", "--max-hands", "1000", str(p))  # the typer path
        assert code == 0 and err == "" and out.startswith(f"{p}: clean, ")
        code, out, err = cli("verify", str(p))  # the fast path
        assert code == 0 and out.startswith(f"{p}: clean, ")
    doc = _json_doc()
    names = ["[/bold]", "[bold red]x[/]", ":thumbs_up: a\\", "[link=http://x]y[/link]"]
    for seat, name in enumerate(names):
        doc["records"][0]["seats"][seat]["name"] = name
    src, named = tmp_path / "n.json", tmp_path / "n.tlog"
    src.write_text(json.dumps(doc), encoding="utf-8")
    assert cli("import", str(src), "-o", str(named))[0] == 0
    code, out, err = cli("show", str(named))
    assert_one_ending(code, err)
    for seat, name in enumerate(names):
        assert f"{name} [computer], seat {seat + 1}, partner of {names[seat ^ 2]}" in out


# ------------------------------------------------------------------ closed pipe
@pytest.mark.parametrize("argv, logs", [
    (["verify"], 20), (["verify", "--json"], 20), (["verify", "--max-hands", "500"], 20),
    (["dump"], 1), (["export"], 1)])
def test_a_closed_pipe_leaves_the_verdict_exit_code(log: Path, argv: list[str],
                                                   logs: int) -> None:
    p = subprocess.Popen([sys.executable, "-m", "tarneeb", *argv, *[str(log)] * logs],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.stdout is not None and p.stderr is not None
    p.stdout.close()  # the reader is gone before the first line: `tarneeb verify LOG | true`
    err = p.stderr.read()
    assert p.wait(timeout=120) == 0, err
    assert err == b""


def test_a_closed_pipe_keeps_findings_exit_1(log: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.tlog"
    data = bytearray(LOG)
    data[-3] ^= 1
    bad.write_bytes(bytes(data))
    p = subprocess.Popen([sys.executable, "-m", "tarneeb", "verify", str(log), str(bad)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.stdout is not None
    p.stdout.close()
    assert p.wait(timeout=120) == 1


# ------------------------------------------------------------------ dump
def test_dump_bounds_depth_and_size(tmp_path: Path) -> None:
    deep, wide = tmp_path / "deep.tlog", tmp_path / "wide.tlog"
    deep.write_bytes(b"\x91" * 1000 + b"\x00")
    wide.write_bytes(b"\xdd" + (10**6).to_bytes(4, "big") + bytes(10**6))
    code, out, err = cli("dump", str(deep))
    assert_one_ending(code, err, (2,))
    assert err == (f"tarneeb: error: {deep}: byte 0: arrays or maps nested deeper: over the "
                   "max_depth cap of 8\n")
    code, out, err = cli("dump", str(wide))
    said = ("not readable from here on: not a tarneeb log (not msgpack: 1000000 exceeds "
            "max_array_len(4096))")
    assert out == f"000000  {said}\n"  # shown in place, and the exit code says it
    assert code == 2 and err == f"tarneeb: error: {wide}: {said} at offset 0x0\n"


# ------------------------------------------------------------------ keygen
def test_keygen_force_replaces_a_symlink_never_its_target(tmp_path: Path) -> None:
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    priv = tmp_path / "k.pem"
    priv.symlink_to(victim)
    code, _, err = cli("keygen", str(priv))  # without --force: refused, nothing written
    assert_one_ending(code, err, (2,))
    assert "file exists; use --force" in err and victim.read_text() == "keep me\n"
    assert cli("keygen", "--force", str(priv))[0] == 0
    assert victim.read_text() == "keep me\n"
    assert not priv.is_symlink() and stat.S_IMODE(priv.stat().st_mode) == 0o600
    pub = load_public_key_file(tmp_path / "k.pub.pem")
    assert public_key_raw(load_private_key_file(priv).public_key()) == public_key_raw(pub)
    dangling = tmp_path / "d.pem"
    dangling.symlink_to(tmp_path / "nowhere" / "x.pem")
    code, _, err = cli("keygen", str(dangling))
    assert code == 2 and "file exists" in err and not (tmp_path / "nowhere").exists()


def test_keygen_leaves_no_half_pair(tmp_path: Path) -> None:
    priv = tmp_path / "k.pem"
    code, _, err = cli("keygen", str(priv), "--public", str(tmp_path / "no" / "k.pub.pem"))
    assert_one_ending(code, err, (2,))
    assert not priv.exists() and os.listdir(tmp_path) == []
    assert cli("keygen", str(priv))[0] == 0  # a pair in place; replacing it fails half-way:
    before = priv.read_bytes()
    (tmp_path / "dir.pem").mkdir()  # the public key's place is a directory
    code, _, err = cli("keygen", "--force", str(priv), "--public", str(tmp_path / "dir.pem"))
    assert_one_ending(code, err, (2,))
    assert priv.read_bytes() == before  # the old private key is back
    assert sorted(os.listdir(tmp_path)) == ["dir.pem", "k.pem", "k.pub.pem"]


@pytest.mark.parametrize("command", ["verify", "dump"])
def test_hostile_standard_input(command: str) -> None:
    """``-`` reads standard input as a stream within the same caps."""
    r = subprocess.run([sys.executable, "-m", "tarneeb", command, "-"],
                       input=b"\x91" * 1000 + b"\x00", capture_output=True, timeout=120,
                       check=False)
    assert r.returncode == 2 and b"Traceback" not in r.stderr
    assert r.stderr == (b"tarneeb: error: <stdin>: byte 0: arrays or maps nested deeper: over "
                        b"the max_depth cap of 8\n")


@pytest.mark.parametrize("extra", [["-j", "1"], ["-j", "2"], ["-j", "1", "--state", "s"]])
def test_a_path_with_a_nul_byte_on_standard_input_is_a_log_not_read(
        extra: list[str], tmp_path: Path) -> None:
    """A path read from standard input may hold a NUL byte, which no file name holds: it
    was a traceback (os.stat's ValueError), in the worker too; it is a log not read."""
    r = subprocess.run([sys.executable, "-m", "tarneeb", "audit", "-", "--no-stats", *extra],
                       input=b"a\x00b.tlog\n", capture_output=True, timeout=120, check=False,
                       cwd=tmp_path, env={**os.environ, "XDG_CONFIG_HOME": str(tmp_path)})
    assert r.returncode == 2 and b"Traceback" not in r.stderr, r.stderr
    assert b"unreadable: " in r.stdout and b"a\\x00b.tlog: cannot read: no file name holds " \
        b"a NUL byte" in r.stdout and b"\x00" not in r.stdout


def test_an_archive_with_no_log_says_exit_2_in_its_json_too(tmp_path: Path) -> None:
    """A nightly audit's JSON is the file a platform keeps: of a directory with no log (a
    file system not mounted) it said exit_code 0 while the run ended on "no logs found",
    exit 2, and "the measures are )" for what no test looks for."""
    import json

    (tmp_path / "empty").mkdir()
    r = subprocess.run([sys.executable, "-m", "tarneeb", "audit", "empty", "--json", "-j", "1"],
                       capture_output=True, timeout=120, check=False, cwd=tmp_path,
                       env={**os.environ, "XDG_CONFIG_HOME": str(tmp_path)})
    doc = json.loads(r.stdout)
    assert r.returncode == 2 and doc["exit_code"] == 2 and b"no logs found" in r.stderr
    assert doc["not_covered"] == "No test ran: nothing is said of the deals."
