"""The folders say what the parts are: no module of the package past 600 lines
(it would hold two jobs), no folder of more than about 15 modules, no name prefix
repeated across a folder (a subpackage waiting to be made), and every subpackage says
in its docstring what it is and what it may import."""

from __future__ import annotations

import ast
import re
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("tarneeb", "audit", "replay", "testing", "cli", "report")
FOLDERS = sorted({p.parent for top in PACKAGES for p in (ROOT / top).rglob("*.py")})
MODULES = sorted(p for top in PACKAGES for p in (ROOT / top).rglob("*.py"))


def rel(p: Path) -> str:
    return str(p.relative_to(ROOT))


@pytest.mark.parametrize("module", MODULES, ids=rel)
def test_no_module_holds_two_jobs(module: Path) -> None:
    assert len(module.read_text(encoding="utf-8").splitlines()) <= 600


@pytest.mark.parametrize("folder", FOLDERS, ids=rel)
def test_no_folder_is_a_crowd_and_no_prefix_repeats(folder: Path) -> None:
    names = [p.stem for p in folder.glob("*.py") if p.stem != "__init__"]
    assert len(names) <= 15
    prefixes = Counter(n.split("_")[0] for n in names if "_" in n)
    for n in names:  # "blind" and "blind_vectors" share a prefix too
        if "_" not in n and prefixes.get(n):
            prefixes[n] += 1
    assert {p: c for p, c in prefixes.items() if c > 1} == {}


@pytest.mark.parametrize("init", sorted(f / "__init__.py" for f in FOLDERS
                                        if f.parent != ROOT and (f / "__init__.py").exists()),
                         ids=rel)
def test_every_subpackage_says_what_it_is_and_may_import(init: Path) -> None:
    doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
    assert doc, "no docstring"
    assert re.search(r"[Mm]ay import|imports nothing", doc), \
        "the docstring does not say what the part may import"


def test_the_readme_reads_in_five_minutes() -> None:
    """The README keeps to what a newcomer needs (the two commands, what it is for, a tour,
    where each doc is); detail and figures live in docs/."""
    readme = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 300
    assert readme.index("make demo") < readme.index("## What it is for")
