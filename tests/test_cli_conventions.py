"""The conventions of a command-line tool: --version, python -m, - for stdin and stdout,
directories and globs, the user's umask, and a fast start for a plain verify."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from test_cli import run

from tarneeb.cli.app import app
from tarneeb.cli.flags import FAST, FLAGS
from tarneeb.cli.verify_cmd import parse_fast

ROOT = Path(__file__).resolve().parent.parent
MATCHES = ROOT / "fixtures" / "matches"
ALTERED = ROOT / "fixtures" / "altered"


def tarneeb(*argv: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "tarneeb", *argv], input=stdin,
                          capture_output=True, check=False, cwd=ROOT)


def test_version_and_python_dash_m() -> None:
    from importlib.metadata import version

    import tarneeb as package

    done = tarneeb("--version")
    assert done.returncode == 0
    # the version, and which path verifies: the compiled core or pure Python
    from tarneeb.replay.rules.compiled import path_in_use

    assert done.stdout.decode().strip() == f"tarneeb {package.__version__} ({path_in_use()})"
    assert version("tarneeb") == package.__version__  # the installed metadata says the same


def test_verify_reads_stdin_and_export_writes_stdout() -> None:
    log = (MATCHES / "classic-01.tlog").read_bytes()
    done = tarneeb("verify", "-", stdin=log)
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().startswith("<stdin>: clean")
    done = tarneeb("export", "-", "-o", "-", stdin=log)
    assert done.returncode == 0 and json.loads(done.stdout)["format"] == "tarneeb-log-json"
    back = tarneeb("import", "-", "-o", "-", stdin=done.stdout)
    assert back.returncode == 0 and back.stdout == log
    bad = tarneeb("verify", "-", stdin=b"not a log")
    assert bad.returncode == 2 and bad.stderr.decode().startswith("tarneeb: error: <stdin>: byte 0")


def test_verify_directories_and_globs(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "verify", "--json", str(MATCHES))
    paths = [v["path"] for v in json.loads(out)]
    assert code == 0 and paths == sorted(str(p) for p in MATCHES.glob("*.tlog"))
    code, out, _ = run(capsys, "verify", "--json", str(ALTERED / "renege-*.tlog"))
    verdicts = json.loads(out)
    assert code == 1 and len(verdicts) == 2
    assert all(v["findings"][0]["kind"] == "renege" for v in verdicts)
    code, _, err = run(capsys, "verify", str(MATCHES / "nothing-*.tlog"))
    assert code == 2 and "no file matches this pattern" in err
    code, _, err = run(capsys, "verify", str(ROOT / "docs"))
    assert code == 2 and "no *.tlog match logs in this directory" in err


def test_written_files_follow_the_umask(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = os.umask(0o022)
    try:
        log, exported = tmp_path / "m.tlog", tmp_path / "m.json"
        assert run(capsys, "play", "--rules", "eram41", "-o", str(log))[0] == 0
        assert run(capsys, "export", str(log), "-o", str(exported))[0] == 0
        assert run(capsys, "keygen", str(tmp_path / "k.pem"))[0] == 0
    finally:
        os.umask(old)
    for published in (log, exported, tmp_path / "k.pub.pem"):
        assert stat.S_IMODE(published.stat().st_mode) == 0o644, published
    assert stat.S_IMODE((tmp_path / "k.pem").stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_the_fast_parser_and_the_typer_command_read_one_table() -> None:
    """Each option of the fast parser is the typer command's option of the same row of
    cli/flags.FLAGS: the same name, parameter, value or switch, metavar and help."""
    command = typer.main.get_command(app).commands["verify"]  # type: ignore[attr-defined]
    params = {opt: p for p in command.params for opt in getattr(p, "opts", [])}
    for name, flag in FLAGS.items():
        p = params[name]
        assert (p.name, p.is_flag, p.help) == (flag.dest, not flag.takes_value, flag.help)
        if flag.takes_value:
            assert p.metavar == flag.metavar
    for name in FAST:
        flag = FLAGS[name]
        argv = ["verify", name] + (["v"] if flag.takes_value else []) + ["log.tlog"]
        assert parse_fast(argv)[flag.dest] == ("v" if flag.takes_value else True)
    assert parse_fast(["verify", "--receipt", "r.json", "a"]) is None  # typer's alone
    assert parse_fast(["verify", "--help"]) is None
    assert parse_fast(["verify", "--key"]) is None
    assert parse_fast(["verify", "--json", "--json", "a"]) is None
    assert parse_fast(["verify"]) is None
    assert parse_fast(["verify", "--root", "ab", "-"]) == {
        "logs": ["-"], "as_json": False, "key": None, "keys": None, "root": "ab"}


def test_fast_and_typer_paths_agree(capsys: pytest.CaptureFixture[str]) -> None:
    from tarneeb.cli.app import run as typer_run

    argv = ["verify", "--json", str(MATCHES / "eram41-01.tlog"),
            str(ALTERED / "renege-eram41.tlog")]
    fast = run(capsys, *argv)
    with pytest.raises(SystemExit) as e:
        typer_run(argv)
    out, err = capsys.readouterr()
    assert fast == (e.value.code, out, err)


def test_plain_verify_loads_neither_typer_nor_multiprocessing() -> None:
    code = ("import sys\nfrom tarneeb.cli.entry import main\n"
            f"try:\n    main(['verify', {str(MATCHES / 'classic-01.tlog')!r}])\n"
            "except SystemExit as e:\n    assert e.code == 0\n"
            "print(sorted(m for m in ('typer', 'rich', 'multiprocessing', 'hypothesis') "
            "if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True)
    assert done.stdout.decode().strip().splitlines()[-1] == "[]"


def test_help_names_values_the_usual_way(capsys: pytest.CaptureFixture[str]) -> None:
    """Usage lines read ``LOG...`` and options ``--rules NAME``: no ``{SEED}``, no
    ``<list[str]>`` Python types, for every command (new ones included)."""
    from tarneeb.cli.app import plain_help

    group = plain_help(typer.main.get_command(app))
    names = sorted(group.commands)  # type: ignore[attr-defined]
    assert {"verify", "show", "play", "deal", "verify-seed", "regress"} <= set(names)
    for name in names:
        code, out, _ = run(capsys, name, "--help")
        assert code == 0, name
        usage = out.splitlines()[0]
        assert "{" not in usage and "``" not in out, (name, out)
        assert not re.search(r"<[a-z][\w\[\], |]*>", out), (name, out)  # <list[str]>, <path>
    code, out, _ = run(capsys, "verify-seed", "--help")
    assert out.startswith("Usage: tarneeb verify-seed [OPTIONS] SEED [COMMITMENT]")
    code, out, _ = run(capsys, "play", "--help")
    assert "--option KEY=VALUE" in out and "--rules NAME" in out


def test_rules_offers_its_choices(capsys: pytest.CaptureFixture[str]) -> None:
    from tarneeb.cli.app import RULE_SETS
    from tarneeb.replay.rules.ruleset import PRESETS

    assert tuple(PRESETS) == RULE_SETS
    code, _, err = run(capsys, "play", "--rules", "nine", "-o", "x")
    assert code == 2 and all(name in err for name in PRESETS)
    env = {**os.environ, "_TARNEEB_COMPLETE": "complete_bash",
           "COMP_WORDS": "tarneeb play --rules s", "COMP_CWORD": "3"}
    script = str(Path(sys.executable).parent / "tarneeb")  # completion keys on the program name
    done = subprocess.run([script], env=env, capture_output=True, check=False)
    assert done.stdout.decode().split() == ["sahrat41", "sahrat400"], done
    env["COMP_WORDS"] = "tarneeb deal --rules c"
    done = subprocess.run([script], env=env, capture_output=True, check=False)
    assert done.stdout.decode().split() == ["classic"], done


def test_verify_regress_and_audit_take_a_directory_by_one_rule(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A directory stands for every *.tlog in it and in its subdirectories, a directory's
    own logs by name, then each subdirectory's: the same logs, in the same order, for
    verify, regress and audit."""
    import shutil

    from tarneeb.replay.archive.paths import expand_paths

    top = tmp_path / "logs"
    sources = sorted(MATCHES.glob("*.tlog"))
    for name, source in zip(("b.tlog", "a.tlog", "2026/01/c.tlog", "2026/d.tlog",
                             "notes/e.txt"), sources, strict=False):
        (top / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, top / name)
    want = [str(top / n) for n in ("a.tlog", "b.tlog", "2026/d.tlog", "2026/01/c.tlog")]
    code, out, _ = run(capsys, "verify", "--json", str(top))
    assert code == 0 and [v["path"] for v in json.loads(out)] == want
    code, out, _ = run(capsys, "regress", "--engine", "tarneeb.testing.adapters:reference",
                       "--json", str(top))
    assert code == 0 and [m["name"] for m in json.loads(out)["matches"]] == want
    assert list(expand_paths([str(top)])) == want
    code, out, _ = run(capsys, "audit", "--json", "-j", "1", str(top))
    assert code in (0, 3) and json.loads(out)["logs"] == len(want)
    (top / "empty").mkdir()
    for command in (["verify"], ["regress", "--engine", "tarneeb.testing.adapters:reference"]):
        code, _, err = run(capsys, *command, str(top / "empty"))
        assert code == 2 and "no *.tlog match logs in this directory or its subdirectories" \
            in err, command


def test_dash_h_is_help(capsys: pytest.CaptureFixture[str]) -> None:
    for command in ([], ["verify"], ["audit"], ["rules"]):
        long = run(capsys, *command, "--help")
        assert run(capsys, *command, "-h") == long and long[0] == 0 and "Usage:" in long[1]


def test_the_command_list_is_grouped_and_each_summary_is_a_whole_sentence(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """``tarneeb --help`` at 80 columns lists the commands in their groups, each with the
    first line of its docstring, a whole sentence: none cut short with '...'."""
    from tarneeb.cli.app import plain_help
    from tarneeb.cli.options import PANELS

    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run(capsys, "--help")
    assert code == 0 and "..." not in out.split("Check matches:", 1)[1]
    assert all(len(line) <= 80 for line in out.splitlines())
    headings = [line[:-1] for line in out.splitlines() if line.endswith(":") and
                not line.startswith(" ") and line not in ("Options:",)]
    assert headings == list(PANELS)
    group = plain_help(typer.main.get_command(app))
    listed = {line.split()[0]: line.split(None, 1)[1] for line in out.splitlines()
              if line.startswith("  ") and not line.lstrip().startswith("-")
              and line.split()[0] in group.commands}  # type: ignore[attr-defined]
    assert set(listed) == set(group.commands)  # type: ignore[attr-defined]
    for name, command in group.commands.items():  # type: ignore[attr-defined]
        first = (command.help or "").strip().splitlines()[0]
        assert first.endswith(".") and listed[name] == first, name
        assert getattr(command, "rich_help_panel", None) in PANELS, name


def test_a_bad_rules_name_lists_the_choices_in_one_line(
        capsys: pytest.CaptureFixture[str]) -> None:
    from tarneeb.cli.app import VARIANTS

    code, out, err = run(capsys, "play", "--rules", "nine", "-o", "x.tlog")
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert "Value error" not in err
    assert "'nine' is no rule set (choose from eram41, qahwa41, sahrat41, sahrat400, classic, " \
           "a shipped variant: " in err and all(v in err for v in VARIANTS)
    assert "or a rules file with --rules-file)" in err
