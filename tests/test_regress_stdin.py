"""``tarneeb regress -``: standard input holds a log, or the paths of logs (one a line, or a
JSON list), as every other command that reads logs takes ``-``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tarneeb.cli.app import app
from tarneeb.replay.server.simulate import play_logged_match

REFERENCE = "tarneeb.testing.adapters:reference"
BROKEN = "tarneeb.testing.adapters:broken_trump"


@pytest.fixture(scope="module")
def logs(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    root = tmp_path_factory.mktemp("stdin-logs")
    out = []
    for rules in ("eram41", "classic"):
        path = root / f"{rules}.tlog"
        path.write_bytes(play_logged_match(rules, seed=b"regress stdin " + rules.encode()))
        out.append(path)
    return out


def regress(stdin: bytes, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["regress", *args], input=stdin)
    return result.exit_code, result.stdout, result.stderr


def test_a_log_on_standard_input(logs: list[Path]) -> None:
    code, out, err = regress(logs[0].read_bytes(), "--engine", REFERENCE, "-")
    assert (code, err) == (0, "")
    assert out.startswith("<stdin>: ok (eram41, ") and "regress: 1 match, " in out
    code, out, _ = regress(logs[0].read_bytes(), "--engine", BROKEN, "--json", "-")
    doc = json.loads(out)
    assert code == 1 and doc["matches"][0]["name"] == "<stdin>"
    assert doc["matches"][0]["status"] == "disagree"


@pytest.mark.parametrize("form", ["lines", "json"])
def test_paths_on_standard_input(logs: list[Path], form: str) -> None:
    """The paths go where ``-`` stands, and are taken as on the command line: a directory
    stands for its logs."""
    listed = [str(logs[1]), str(logs[0].parent)]
    text = "\n".join(listed) + "\n" if form == "lines" else json.dumps(listed)
    code, out, err = regress(text.encode(), "--engine", REFERENCE, "--json", "-")
    assert (code, err) == (0, "")
    names = [m["name"] for m in json.loads(out)["matches"]]
    assert names == [str(logs[1]), str(logs[1]), str(logs[0])]  # classic, then the directory


def test_what_standard_input_holds_that_is_neither_is_one_line(logs: list[Path]) -> None:
    code, _, err = regress(b"\x9c\x00garbage", "--engine", REFERENCE, "-")
    assert code == 2 and err.startswith("<stdin>: unreadable: ")
    for stdin, says in [(b'["a.tlog", 3]', "a JSON list of paths (strings)"),
                        (b"[not json", "a JSON list of paths"),
                        (b"", "no match logs given"),
                        (b"-\n", "lists -")]:
        code, _, err = regress(stdin, "--engine", REFERENCE, "-")
        assert code == 2 and err.count("\n") == 1 and says in err, (stdin, err)
    code, _, err = regress(logs[0].read_bytes(), "--engine", REFERENCE, "-", "-")
    assert code == 2 and "once" in err
