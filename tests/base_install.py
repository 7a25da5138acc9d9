"""The package as a user installs it from a wheel: the wheel built once (offline, without
build isolation, from a copy of the source tree: setuptools' ``build_wheel`` as pip calls
it), and installed into a fresh virtual environment with the base dependencies alone (no
extra, no source tree, no Node.js).

There is no network: the fresh environment gets the distributions the wheel requires
(``Requires-Dist`` without extras, and theirs, with their markers) from this test
environment, linked into its ``site-packages``, and pip installs the wheel with
``--no-index``, so a requirement missing from that closure, or a dependency the package
imports but does not declare, fails the install or the commands run there. Shared by the
test processes of a run (``pytest -n``): the first builds, the others wait and reuse it.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import subprocess
import sys
import venv
import zipfile
from dataclasses import dataclass
from importlib.metadata import Distribution, distribution
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class BaseInstall:
    wheel: Path
    printed: str  # what build_wheel printed
    bin: Path  # the fresh environment's bin/: python, tarneeb

    def names(self) -> set[str]:
        with zipfile.ZipFile(self.wheel) as z:
            return set(z.namelist())


def _ignore(folder: str, names: list[str]) -> set[str]:
    """What a copy of the source tree leaves out: what a build writes, the environments, and
    js/node_modules (the page, js/dist/verify.html, is copied: built, as in an sdist)."""
    skip = {".venv", ".git", "__pycache__", ".ruff_cache", ".mypy_cache", ".pytest_cache",
            ".hypothesis"}
    here = Path(folder)
    if here == ROOT:
        skip |= {"build", "dist"}
    if here == ROOT / "js":
        skip |= {"node_modules"}
    return {n for n in names if n in skip or n.endswith(".egg-info") or n.endswith(".so")}


def copy_source(to: Path) -> Path:
    shutil.copytree(ROOT, to, ignore=_ignore, symlinks=True)
    return to


def build(source: Path, out: Path, hook: str = "build_wheel",
          env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """setuptools' ``hook`` run in ``source`` as pip runs it; the wheel's name is the last
    line of stdout."""
    out.mkdir(parents=True, exist_ok=True)
    code = f"import setuptools.build_meta as b; print(b.{hook}({str(out)!r}))"
    return subprocess.run([sys.executable, "-W", "always", "-c", code], cwd=source,
                          capture_output=True, text=True, check=False, env=env)


def _closure(requirements: list[str]) -> dict[str, Distribution]:
    """Every installed distribution ``requirements`` need, theirs included (markers and
    extras followed)."""
    found: dict[str, Distribution] = {}
    seen: set[tuple[str, str]] = set()
    todo = [(r, "") for r in requirements]
    while todo:
        text, extra = todo.pop()
        req = Requirement(text)
        if req.marker is not None and not req.marker.evaluate({"extra": extra}):
            continue
        name = re.sub(r"[-_.]+", "-", req.name).lower()
        dist = found.setdefault(name, distribution(req.name))
        for wanted in ("", *req.extras):
            if (name, wanted) not in seen:
                seen.add((name, wanted))
                todo += [(r, wanted) for r in dist.requires or []]
    return found


def _link(dists: dict[str, Distribution], site: Path) -> None:
    """Link each distribution's top-level files and folders into ``site``."""
    for dist in dists.values():
        tops = {f.parts[0] for f in dist.files or []} - {"..", "__pycache__"}
        for top in tops:
            target = Path(str(dist.locate_file(top)))
            link = site / top
            if target.exists() and not link.exists():
                link.symlink_to(target)


def _make(root: Path) -> BaseInstall:
    source = copy_source(root / "source")
    run = build(source, root / "out")
    assert run.returncode == 0, run.stdout + run.stderr
    wheel = root / "out" / run.stdout.strip().splitlines()[-1]
    env_dir = root / "env"
    venv.EnvBuilder(with_pip=False, symlinks=True).create(env_dir)
    site = next(env_dir.glob("lib/python3*/site-packages"))
    with zipfile.ZipFile(wheel) as z:
        meta = next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))
        requires = [v for k, v in (line.split(": ", 1) for line in
                                   z.read(meta).decode().splitlines() if ": " in line)
                    if k == "Requires-Dist"]
    base = [r for r in requires if "extra ==" not in r]
    _link(_closure(base), site)
    install = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(env_dir / "bin" / "python"), "install",
         "--no-index", "--no-cache-dir", "--quiet", str(wheel)],
        capture_output=True, text=True, check=False)
    assert install.returncode == 0, install.stdout + install.stderr
    shutil.rmtree(source)
    return BaseInstall(wheel, run.stdout + run.stderr, env_dir / "bin")


def base_install(shared: Path) -> BaseInstall:
    """The wheel and the fresh environment, made once under ``shared``."""
    root = shared / "base-install"
    root.mkdir(parents=True, exist_ok=True)
    with open(root / ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = root / "done"
        if done.exists():
            wheel, printed = done.read_text(encoding="utf-8").split("\n", 1)
            return BaseInstall(Path(wheel), printed, root / "env" / "bin")
        made = _make(root)
        done.write_text(f"{made.wheel}\n{made.printed}", encoding="utf-8")
        return made


def clean_env(home: Path, bin_dir: Path) -> dict[str, str]:
    """An environment for the installed command: its bin/ first on a PATH without this test
    environment's, a fresh HOME, nothing pointing at the source tree."""
    path = [p for p in os.environ.get("PATH", "").split(os.pathsep)
            if p and Path(p).resolve() != Path(sys.executable).parent.resolve()]
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTHON", "TARNEEB_", "VIRTUAL_ENV"))}
    return {**env, "PATH": os.pathsep.join([str(bin_dir), *path]), "HOME": str(home),
            "XDG_CONFIG_HOME": str(home / ".config")}
