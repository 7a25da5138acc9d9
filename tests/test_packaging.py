"""What a package index shows: the license, its file, project URLs, classifiers, and a
changelog entry for the version being built."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import metadata, version
from pathlib import Path

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


def _build(tmp_path: Path, hook: str) -> tuple[str, set[str]]:
    """Run setuptools' ``hook`` (build_wheel, build_editable) on a copy of the project, as
    pip does; return what it printed and the names in the wheel it made."""
    import shutil
    import subprocess
    import sys
    import zipfile

    source = tmp_path / "source"
    shutil.copytree(ROOT, source, ignore=shutil.ignore_patterns(
        ".venv", ".git", "build", "dist", "*.egg-info", "__pycache__", ".ruff_cache"))
    out = tmp_path / "out"
    out.mkdir()
    code = f"import setuptools.build_meta as b; print(b.{hook}({str(out)!r}))"
    run = subprocess.run([sys.executable, "-W", "always", "-c", code], cwd=source,
                         capture_output=True, text=True, check=True)
    wheel = out / run.stdout.strip().splitlines()[-1]
    with zipfile.ZipFile(wheel) as z:
        return run.stdout + run.stderr, set(z.namelist())


def test_installing_prints_no_package_warning(tmp_path: Path) -> None:
    """``pip install .`` and ``pip install -e .`` print no setuptools warning (a data
    folder that Python could import, left out of ``packages``, made ~40 lines each), and
    the wheel holds every data file the package reads."""
    printed, names = _build(tmp_path / "wheel", "build_wheel")
    assert "would be ignored" not in printed and "Warning" not in printed, printed
    for name in ("tarneeb/log.schema.json", "tarneeb/replay/rules/rulefiles/house400.toml",
                 "tarneeb/report/templates/match.html", "tarneeb/report/templates/report.css",
                 "tarneeb/corpus/qahwa5-blind.tlog"):
        assert name in names, name
    corpus = {p.name for p in (ROOT / "fixtures" / "matches").glob("*.tlog")}
    assert {n.rsplit("/", 1)[1] for n in names if n.startswith("tarneeb/corpus/")
            and n.endswith(".tlog")} == corpus
    rulefiles = {p.name for p in (ROOT / "replay" / "rules" / "rulefiles").glob("*.toml")}
    assert {n.rsplit("/", 1)[1] for n in names if "/rulefiles/" in n} == rulefiles
    for package in ("tarneeb", "audit", "replay", "cli", "testing", "report", "corpus"):
        name = "tarneeb/py.typed" if package == "tarneeb" else f"tarneeb/{package}/py.typed"
        assert name in names, name
    printed, _ = _build(tmp_path / "editable", "build_editable")
    assert "would be ignored" not in printed and "Warning" not in printed, printed


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
