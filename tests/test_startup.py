"""A one-log ``tarneeb verify`` starts without the libraries it does not need.

An archive is often checked one ``tarneeb verify`` per log, so what the command imports
before it reads the log is paid once per log. These tests run the command as a user
does (``python -m tarneeb``, a fresh process) with ``-X importtime``, which names every
module the process imports, and fail when one of the heavy ones is among them: the
typer app, the report's templates, the archive's statistics, the test tools, blind
dealing's libsodium for a log not dealt blind. They time nothing (``make bench``
gives the start-up figure).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tarneeb.audit.signing import public_key_from_raw, public_key_pem
from tarneeb.replay.log import read_log

ROOT = Path(__file__).resolve().parent.parent
MATCHES = ROOT / "fixtures" / "matches"
ALTERED = ROOT / "fixtures" / "altered"

# never on the path of a plain verify: the CLI's typer app and its console, the report's
# templates, the archive's statistics and tables, the cluster, the test tools, blind
# dealing's libsodium, the rules-file writer
HEAVY = ("typer", "click", "rich", "jinja2", "markupsafe", "scipy", "numpy", "pyarrow",
         "dask", "distributed", "fsspec", "hypothesis", "pytest", "matplotlib", "playwright",
         "jsonschema", "rbcl", "nacl", "tomlkit", "multiprocessing", "concurrent",
         "confusable_homoglyphs")
# loaded only when a verify needs them: the Unicode data and the keys file's TOML (for a
# keys file), the rule files (for house rules not among the presets), receipts, the
# archive's directory walk, secrets (seeds are made, not checked, with it). (inspect and
# its stack come with dataclasses, which the records and the verdict are made with.)
ONLY_WHEN_NEEDED = ("unicodedata", "tomllib",
                    "importlib.resources", "tempfile", "shutil", "secrets", "random", "glob",
                    "tarneeb.audit.names", "tarneeb.audit.receipt", "tarneeb.replay.verify.receipt",
                    "tarneeb.replay.rules.house", "tarneeb.replay.rules.paths",
                    "tarneeb.replay.archive.paths", "tarneeb.cli.app")


def imported(*argv: str, env: dict[str, str] | None = None) -> tuple[int, set[str]]:
    """The exit code of ``tarneeb ARGV…`` run in a fresh process, and the modules it
    imported (as ``-X importtime`` names them)."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "tarneeb", *argv],
                          capture_output=True, text=True, cwd=ROOT, check=False,
                          env=env if env is not None else _plain_env())
    names = {line.rpartition("|")[2].strip() for line in done.stderr.splitlines()
             if line.startswith("import time:") and "|" in line}
    names.discard("imported package")
    assert names, done.stderr  # -X importtime gave its lines
    return done.returncode, names


def _plain_env(**more: str) -> dict[str, str]:
    """The environment of a user on Linux: a home with no keys file of tarneeb's."""
    env = {k: v for k, v in os.environ.items() if k != "XDG_CONFIG_HOME"}
    return {**env, **more}


def heavy_among(names: set[str], also: tuple[str, ...] = ()) -> list[str]:
    """The heavy modules (and those of ``also``) in ``names``, packages by their top."""
    tops = {n.split(".")[0] for n in names}
    return sorted({m for m in HEAVY if m in tops} | {m for m in also if m in names})


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A home directory without a keys file (the default ``--keys`` is then none)."""
    return tmp_path_factory.mktemp("home")


def test_a_clean_log_is_verified_without_the_heavy_modules(home: Path) -> None:
    code, names = imported("verify", str(MATCHES / "classic-01.tlog"),
                           env=_plain_env(HOME=str(home)))
    assert code == 0
    assert heavy_among(names, ONLY_WHEN_NEEDED) == []
    # what it does need is there: the check is of this command, not of an empty process
    assert {"msgpack", "cryptography.hazmat.primitives.asymmetric.ed25519",
            "tarneeb.replay.verify.replayer"} <= names


def test_a_log_with_a_finding_is_reported_without_them(home: Path) -> None:
    code, names = imported("verify", str(ALTERED / "renege-eram41.tlog"),
                           env=_plain_env(HOME=str(home)))
    assert code == 1
    assert heavy_among(names, ONLY_WHEN_NEEDED) == []


def test_json_and_several_logs_load_no_heavy_module(home: Path) -> None:
    code, names = imported("verify", "--json", str(MATCHES / "eram41-01.tlog"),
                           str(ALTERED / "broken-signature-eram41.tlog"),
                           str(MATCHES / "house400-01.tlog"), env=_plain_env(HOME=str(home)))
    assert code == 1
    # house400 is a shipped variant: its rule files are read, nothing heavier
    assert heavy_among(names, ("unicodedata", "tarneeb.cli.app")) == []
    assert "json" in names


def test_a_pinned_key_loads_no_heavy_module(home: Path, tmp_path: Path) -> None:
    log = MATCHES / "sahrat41-01.tlog"
    raw = read_log(str(log)).header.public_key
    assert raw is not None
    key = tmp_path / "platform.pub.pem"
    key.write_bytes(public_key_pem(public_key_from_raw(raw)))
    code, names = imported("verify", "--key", str(key), str(log),
                           env=_plain_env(HOME=str(home)))
    assert code == 0
    assert heavy_among(names, ONLY_WHEN_NEEDED) == []


def test_the_user_config_directory_is_found_without_platformdirs(home: Path) -> None:
    """On Linux the default keys file is looked for without loading platformdirs (its
    import costs more than the replay of a short match)."""
    if sys.platform != "linux":
        pytest.skip("the fast way is for Linux; elsewhere platformdirs names the folder")
    _, names = imported("verify", str(MATCHES / "classic-01.tlog"),
                        env=_plain_env(HOME=str(home)))
    assert "platformdirs" not in names


def test_a_blind_log_loads_libsodium_and_a_plain_one_does_not(home: Path) -> None:
    pytest.importorskip("rbcl")
    _, blind = imported("verify", str(MATCHES / "qahwa5-blind.tlog"),
                        env=_plain_env(HOME=str(home)))
    _, plain = imported("verify", str(MATCHES / "qahwa41-01.tlog"),
                        env=_plain_env(HOME=str(home)))
    assert "rbcl" in {n.split(".")[0] for n in blind}
    assert "rbcl" not in {n.split(".")[0] for n in plain}


def test_the_check_sees_a_heavy_module() -> None:
    """Anything else than a plain verify goes to typer: the check sees it load."""
    code, names = imported("verify", "--help")
    assert code == 0
    assert "typer" in heavy_among(names)


@pytest.mark.parametrize("xdg", [None, "", "/srv/conf", "/srv/conf/", "relative/conf", " /srv/c"])
@pytest.mark.parametrize("home_dir", ["/home/ana", "/home/ana/", "/", "relative", ""])
def test_the_default_keys_file_is_where_platformdirs_puts_it(
        monkeypatch: pytest.MonkeyPatch, xdg: str | None, home_dir: str) -> None:
    """The config folder found without platformdirs is the one it names, whatever the
    environment (where the quick way is unsure, platformdirs is asked)."""
    platformdirs = pytest.importorskip("platformdirs")
    from tarneeb.cli.verify_cmd import default_keys_path

    if xdg is None:
        monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    else:
        monkeypatch.setenv("XDG_CONFIG_HOME", xdg)
    monkeypatch.setenv("HOME", home_dir)
    expected = Path(platformdirs.user_config_dir("tarneeb", appauthor=False, roaming=True))
    assert default_keys_path() == expected / "keys.toml"


def test_importing_the_audit_package_loads_none_of_its_modules() -> None:
    """``tarneeb.audit`` loads a module on the first use of one of its names, so a
    verifier pays for the signature and seed code it uses, not for receipts or seasons."""
    code = ("import sys, tarneeb.audit\n"
            "before = sorted(m for m in sys.modules if m.startswith('tarneeb'))\n"
            "tarneeb.audit.verify\n"
            "print(before, sorted(m for m in sys.modules if m.startswith('tarneeb.audit.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT).stdout.strip()
    assert out == ("['tarneeb', 'tarneeb.audit'] ['tarneeb.audit.encoding', "
                   "'tarneeb.audit.errors', 'tarneeb.audit.signing']")


def test_the_archive_audit_starts_without_scipy_stats(tmp_path: Path, home: Path) -> None:
    """``tarneeb audit`` computes its tests' power with scipy.special alone: importing
    scipy.stats (and scipy.optimize) would cost a small archive's audit about half its
    CPU time."""
    pytest.importorskip("scipy")
    for name in ("classic-01.tlog", "eram41-01.tlog", "qahwa41-01.tlog"):
        (tmp_path / name).write_bytes((MATCHES / name).read_bytes())
    code, names = imported("audit", "-j", "1", str(tmp_path), env=_plain_env(HOME=str(home)))
    assert code == 0
    assert "scipy.special._ufuncs" in names  # the statistics were computed
    assert sorted({n.split(".")[1] for n in names if n.startswith("scipy.")}
                  & {"stats", "optimize"}) == []


def test_the_collector_is_on_again_for_the_commands_work() -> None:
    """The program's start holds the cyclic collector off only while the command's
    modules load (and freezes what they made): the command itself runs with it on. A
    process that runs a command line through ``main(argv)`` freezes nothing of its own."""
    def run(call: str) -> list[str]:
        code = ("import gc, sys\n"
                "from tarneeb.cli import verify_cmd\n"
                "seen = []\n"
                "real = verify_cmd.run\n"
                "verify_cmd.run = lambda *a, **k: seen.append(gc.isenabled()) or real(*a, **k)\n"
                "from tarneeb.cli.entry import main\n"
                f"sys.argv = ['tarneeb', 'verify', {str(MATCHES / 'classic-01.tlog')!r}]\n"
                "try:\n"
                f"    {call}\n"
                "except SystemExit as e:\n"
                "    print(seen, gc.isenabled(), gc.get_freeze_count() > 0, e.code)\n")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True, cwd=ROOT).stdout
        return out.splitlines()[-1].split()

    assert run("main()") == ["[True]", "True", "True", "0"]  # the program
    assert run("main(sys.argv[1:])") == ["[True]", "True", "False", "0"]  # a caller


def test_a_plain_audit_loads_its_modules_before_the_collector_runs(tmp_path: Path) -> None:
    """A plain ``audit`` (the command line typer is not needed for) loads at the program's
    start, with the collector held off and then frozen, the modules it runs with: the
    monitor with ``--state``, the logs' verification when it reads them in this process
    (one job), numpy with the statistics; and not those it does not run. Without numpy
    (the archive extra) it starts all the same."""
    def loaded(*argv: str, numpy: bool = True) -> list[str]:
        code = ("import gc, sys\n"
                "class Block:\n"
                "    def find_spec(self, name, path=None, target=None):\n"
                "        if name.split('.')[0] == 'numpy':\n"
                "            raise ModuleNotFoundError(name, name=name)\n"
                f"sys.meta_path[:0] = [] if {numpy} else [Block()]\n"
                "from tarneeb.cli import archive_cmd\n"
                "seen = []\n"
                "archive_cmd.run = lambda *a, **k: seen.extend((gc.isenabled(), "
                "gc.get_freeze_count() > 0, *(m in sys.modules for m in ("
                "'tarneeb.replay.archive.monitor', 'tarneeb.replay.verify.hands', "
                "'numpy')))) or 0\n"
                "from tarneeb.cli.entry import main\n"
                f"sys.argv = ['tarneeb', *{list(argv)!r}]\n"
                "try:\n"
                "    main()\n"
                "except SystemExit as e:\n"
                "    print(*seen, e.code)\n")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                             check=True, cwd=ROOT).stdout
        return out.splitlines()[-1].split()

    state = str(tmp_path / "audit.state")
    assert loaded("audit", "-j", "1", "--state", state, str(tmp_path)) == [
        "True", "True", "True", "True", "True", "0"]
    assert loaded("audit", "-j", "1", "--state", state, str(tmp_path), numpy=False) == [
        "True", "True", "True", "True", "False", "0"]
    assert loaded("audit", "-j", "1", "--no-stats", str(tmp_path)) == [
        "True", "True", "False", "True", "False", "0"]
    assert loaded("audit", "-j", "2", str(tmp_path)) == [
        "True", "True", "False", "False", "False", "0"]
