"""Nothing from outside the program reaches the terminal as a control character: file
names holding terminal escapes, carriage returns, C1 controls, DEL and bidi controls are
printed escaped by every command, and in ``--json`` only as JSON escapes."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_runner import run

from tarneeb.audit.encoding import json_shown, shown

FIXTURE = Path(__file__).parent.parent / "fixtures" / "matches" / "classic-01.tlog"

# (the character(s) in a name, how the text shows them)
HOSTILE = [("\x1b[2J", "\\x1b[2J"), ("\x1b[1A\x1b[2K", "\\x1b[1A\\x1b[2K"),
           ("\x1b[8m", "\\x1b[8m"), ("\r", "\\r"), ("\x7f", "\\x7f"), ("\x9b", "\\x9b"),
           ("\u202e", "\\u202e"), ("\u2066", "\\u2066")]
# what may not reach the terminal raw (a newline ends a line the program wrote)
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


@pytest.fixture
def hostile(tmp_path: Path) -> Path:
    d = tmp_path / "logs"
    d.mkdir()
    data = FIXTURE.read_bytes()
    for i, (c, _) in enumerate(HOSTILE):
        (d / f"m{i}{c}x.tlog").write_bytes(data)
    return d


def _names(d: Path) -> list[str]:
    return [str(d / f"m{i}{c}x.tlog") for i, (c, _) in enumerate(HOSTILE)]


def test_shown_escapes_each_control_and_leaves_text() -> None:
    for c, escaped in HOSTILE:
        assert shown(f"a{c}b") == f"a{escaped}b"
    assert shown("لاعب الشمال ♠") == "لاعب الشمال ♠"
    assert shown("a\nb\udcffc") == "a\\nb\\xffc"  # a new line, a byte that is not UTF-8
    doc = json.dumps(["a\x1b\x85\u202eb"], ensure_ascii=False)
    assert not RAW.search(json_shown(doc)) and json.loads(json_shown(doc)) == ["a\x1b\x85\u202eb"]


@pytest.mark.parametrize("one", [True, False])
def test_verify_prints_file_names_escaped(capsys: pytest.CaptureFixture[str], hostile: Path,
                                           one: bool) -> None:
    names = _names(hostile)
    for args in ([names[0]], names) if one else ([*names],):
        code, out, err = run(capsys, "verify", *args)
        assert code == 0
        assert not RAW.search(out + err), out
        for i, (_, escaped) in enumerate(HOSTILE[:len(args)]):
            assert f"m{i}{escaped}x.tlog: clean" in out
    code, out, err = run(capsys, "verify", str(hostile / "gone\x1b[2J.tlog"))
    assert code == 2 and not RAW.search(out + err) and "gone\\x1b[2J.tlog" in err


def test_verify_json_escapes_as_json_only(capsys: pytest.CaptureFixture[str],
                                          hostile: Path) -> None:
    code, out, err = run(capsys, "verify", "--json", *_names(hostile))
    assert code == 0 and not RAW.search(out + err)
    assert [v["path"] for v in json.loads(out)] == _names(hostile)


def test_audit_prints_file_names_escaped(capsys: pytest.CaptureFixture[str],
                                         hostile: Path) -> None:
    code, out, err = run(capsys, "audit", "--jobs", "1", str(hostile))
    assert code == 0 and not RAW.search(out + err), out
    for i, (_, escaped) in enumerate(HOSTILE[1:], 1):  # each a copy of the first
        assert f"m{i}{escaped}x.tlog: a copy of" in out
    code, out, err = run(capsys, "audit", "--jobs", "1", "--json", str(hostile))
    assert code == 0 and not RAW.search(out + err)
    assert set(_names(hostile)[1:]) <= {r["path"] for r in json.loads(out)["first_repeats"]}


@pytest.mark.parametrize("argv", [
    ["verify", "--keys", "{bad}"], ["verify", "--key", "{bad}"], ["verify", "--receipt", "{bad}"],
    ["rules", "{bad}"], ["regress", "--engine", "{bad}"], ["export", "{bad}"], ["deal", "{bad}"],
    ["show", "{bad}"], ["audit", "{bad}"]])
def test_every_command_escapes_a_hostile_name_in_its_error(
        capsys: pytest.CaptureFixture[str], tmp_path: Path, argv: list[str]) -> None:
    bad = str(tmp_path / "x\x1b[2J\r\u202ey")
    args = [a.replace("{bad}", bad) for a in argv]
    if argv[0] == "verify":
        args.append(str(FIXTURE))
    code, out, err = run(capsys, *args)
    assert code == 2 and not RAW.search(out + err), err
    assert "x\\x1b[2J\\r\\u202ey" in err


def test_regress_shows_an_engines_stderr_escaped(capsys: pytest.CaptureFixture[str],
                                                 tmp_path: Path) -> None:
    engine = tmp_path / "engine.sh"
    engine.write_text("#!/bin/sh\nprintf 'oops\\033[2J\\r\\302\\233 \\342\\200\\256gone\\n' >&2\n"
                      "exit 3\n")
    engine.chmod(0o755)
    code, out, err = run(capsys, "regress", "--engine-cmd", str(engine), str(FIXTURE))
    assert code == 2 and "oops" in err and not RAW.search(out + err), err
