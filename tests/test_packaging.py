"""What a package index shows: the license, its file, project URLs, classifiers, and a
changelog entry for the version being built; what the wheel and the sdist carry, and the
wheel installed alone (tests/base_install.py)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tomllib
from importlib.metadata import metadata, version
from pathlib import Path
from typing import TYPE_CHECKING

from base_install import build, clean_env, copy_source

if TYPE_CHECKING:
    from base_install import BaseInstall

ROOT = Path(__file__).resolve().parent.parent


def test_metadata_a_package_index_shows() -> None:
    meta = metadata("tarneeb")
    assert meta["License-Expression"] == "MIT" and meta.get_all("License-File") == ["LICENSE"]
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL") or [])
    assert {"Homepage", "Source", "Issues", "Changelog", "Documentation"} <= set(urls)
    assert all(u.startswith("https://") for u in urls.values())
    classifiers = meta.get_all("Classifier") or []
    assert "Typing :: Typed" in classifiers and "Environment :: Console" in classifiers
    py = [c.rsplit(" :: ", 1)[1] for c in classifiers if re.fullmatch(r".*Python :: 3\.\d+", c)]
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert min(py) == pyproject["project"]["requires-python"].removeprefix(">=")


def test_license_and_changelog() -> None:
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("MIT License")
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## \[{re.escape(version('tarneeb'))}\]", changelog, re.M)


def test_setting_up_installs_no_system_package() -> None:
    """``make`` sets the project up with pip alone: blind dealing's libsodium comes inside
    the rbcl wheel, so no system package is installed (nor root needed) to set up."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    found = re.search(r"^\$\(STAMP\):.*\n((?:\t.*\n|#.*\n)+)", makefile, re.M)
    assert found is not None
    recipe = found.group(1)
    assert "pip install" in recipe
    assert not re.search(r"apt-get|apt |ldconfig|sudo", recipe), recipe
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extras = pyproject["project"]["optional-dependencies"]
    assert not any(d.startswith("pysodium") for e in extras.values() for d in e)


def _names(wheel: Path) -> set[str]:
    import zipfile

    with zipfile.ZipFile(wheel) as z:
        return set(z.namelist())


def test_installing_prints_no_package_warning(tmp_path: Path, base_install: BaseInstall) -> None:
    """``pip install .`` and ``pip install -e .`` print no setuptools warning (a data
    folder that Python could import, left out of ``packages``, made ~40 lines each), and
    the wheel holds every data file the package reads, the verifier page included."""
    printed, names = base_install.printed, base_install.names()
    assert "would be ignored" not in printed and "Warning" not in printed, printed
    for name in ("tarneeb/log.schema.json", "tarneeb/replay/rules/rulefiles/house400.toml",
                 "tarneeb/report/templates/match.html", "tarneeb/report/templates/report.css",
                 "tarneeb/corpus/qahwa5-blind.tlog", "tarneeb/verify.html"):
        assert name in names, name
    corpus = {p.name for p in (ROOT / "fixtures" / "matches").glob("*.tlog")}
    assert {n.rsplit("/", 1)[1] for n in names if n.startswith("tarneeb/corpus/")
            and n.endswith(".tlog")} == corpus
    rulefiles = {p.name for p in (ROOT / "replay" / "rules" / "rulefiles").glob("*.toml")}
    assert {n.rsplit("/", 1)[1] for n in names if "/rulefiles/" in n} == rulefiles
    for package in ("tarneeb", "audit", "replay", "cli", "testing", "report", "corpus"):
        name = "tarneeb/py.typed" if package == "tarneeb" else f"tarneeb/{package}/py.typed"
        assert name in names, name
    run = build(copy_source(tmp_path / "source"), tmp_path / "out", "build_editable")
    assert run.returncode == 0, run.stderr
    printed = run.stdout + run.stderr
    assert "would be ignored" not in printed and "Warning" not in printed, printed


def test_the_installed_wheel_writes_the_verifier_page(tmp_path: Path,
                                                     base_install: BaseInstall) -> None:
    """Installed from the wheel alone (no source tree, no Node.js), ``tarneeb verifier``
    writes the page the wheel carries."""
    page = (ROOT / "js" / "dist" / "verify.html").read_bytes()
    run = subprocess.run([str(base_install.bin / "tarneeb"), "verifier", "-o", "verify.html"],
                         cwd=tmp_path, env=clean_env(tmp_path, base_install.bin),
                         capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 0, run.stderr
    assert (tmp_path / "verify.html").read_bytes() == page


def test_the_sdist_carries_the_page_and_a_build_without_it_or_node_says_so(
        tmp_path: Path) -> None:
    """The sdist holds the built page (a wheel built from it needs no Node.js); with neither
    the page nor Node.js, building a wheel fails in one line saying what to install."""
    import tarfile

    source = copy_source(tmp_path / "source")
    run = build(source, tmp_path / "sdist", "build_sdist")
    assert run.returncode == 0, run.stderr
    with tarfile.open(tmp_path / "sdist" / run.stdout.strip().splitlines()[-1]) as sdist:
        assert any(n.endswith("/js/dist/verify.html") for n in sdist.getnames())
    (source / "js" / "dist" / "verify.html").unlink()
    no_node = tmp_path / "bin"
    no_node.mkdir()
    (no_node / "python3").symlink_to(sys.executable)
    run = build(source, tmp_path / "wheel", env={**os.environ, "PATH": str(no_node)})
    assert run.returncode != 0
    assert "the verifier page" in run.stderr and "Node.js" in run.stderr, run.stderr[-2000:]
    assert not list((tmp_path / "wheel").glob("*.whl"))


def test_a_missing_module_of_a_command_is_one_line_naming_its_install() -> None:
    """A module a command imports that is not installed ends it in one line saying what
    installs it (exit 2), not in a traceback."""
    code = ("import sys; sys.modules['rbcl'] = None\n"
            "from tarneeb.cli.entry import main; main(sys.argv[1:])")
    blind = ROOT / "fixtures" / "matches" / "qahwa5-blind.tlog"
    run = subprocess.run([sys.executable, "-c", code, "verify", str(blind)],
                         capture_output=True, text=True, timeout=60, check=False)
    assert run.returncode == 2, run.stderr
    assert run.stderr == ("tarneeb: error: this needs the rbcl package, which is not "
                          "installed: pip install rbcl (a dependency of tarneeb: the install "
                          "is incomplete)\n")


def _imported_distributions() -> dict[str, set[str]]:
    """Each third-party distribution the package imports (outside ``TYPE_CHECKING``), with
    the files that import it."""
    import ast
    import sys
    from importlib.metadata import packages_distributions

    dists = packages_distributions()
    found: dict[str, set[str]] = {}

    def visit(node: ast.AST, path: Path) -> None:
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for child in node.orelse:
                visit(child, path)
            return
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        for name in names:
            top = name.split(".")[0]
            if top in sys.stdlib_module_names or top == "tarneeb":
                continue
            assert top in dists, f"{path}: {top} is installed by no distribution"
            for dist in dists[top]:
                found.setdefault(_canonical(dist), set()).add(str(path.relative_to(ROOT)))
        for child in ast.iter_child_nodes(node):
            visit(child, path)

    for folder in ("tarneeb", "audit", "replay", "cli", "testing", "report", "fixtures/matches"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            visit(ast.parse(path.read_text(encoding="utf-8"), str(path)), path)
    return found


def _canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_every_imported_distribution_is_declared() -> None:
    """What the package imports is declared in pyproject.toml, by itself: a dependency of a
    dependency (rich through typer) may go any day. The core's in ``dependencies``; an
    optional part's (scipy, rbcl, hypothesis, ...) in an extra."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]

    def names(requirements: list[str]) -> set[str]:
        return {_canonical(re.match(r"[A-Za-z0-9._-]+", r).group()) for r in requirements}

    required = names(project["dependencies"])
    optional = set().union(*map(names, project["optional-dependencies"].values()))
    imported = _imported_distributions()
    undeclared = {d: sorted(f) for d, f in imported.items() if d not in required | optional}
    assert undeclared == {}
    assert {"rich", "typer", "cryptography", "msgpack", "markupsafe"} <= required
    assert {"rbcl", "scipy", "hypothesis", "distributed"} <= set(imported)


def test_every_optional_module_imported_names_its_install() -> None:
    """Each distribution the package imports that the base install does not carry has the
    line saying what installs it (tarneeb.cli.entry.INSTALLS)."""
    from tarneeb.cli.entry import INSTALLS

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    required = {_canonical(re.match(r"[A-Za-z0-9._-]+", r).group())
                for r in project["dependencies"]}
    optional = set(_imported_distributions()) - required
    assert optional and optional <= set(INSTALLS), optional - set(INSTALLS)
