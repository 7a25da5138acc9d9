"""Imports run one way: cli -> testing -> replay -> audit, and cli -> report -> replay
(report and testing know nothing of each other). The fairness layer
(tarneeb.audit) imports nothing of the others, so it can be used, read and
re-implemented without the rules."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# what each package may import besides itself
ALLOWED = {
    "audit": set(),
    "replay": {"audit"},
    "report": {"audit", "replay"},
    "testing": {"audit", "replay"},
    "cli": {"audit", "replay", "report", "testing"},
}
LAYERS = tuple(ALLOWED)


def imported_packages(path: Path) -> set[str]:
    """The tarneeb packages a module imports (absolute imports; relative ones stay inside)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return {n.split(".")[1] for n in names if n.startswith("tarneeb.") and n.count(".") >= 1}


@pytest.mark.parametrize("layer", LAYERS)
def test_imports_run_one_way(layer):
    allowed = ALLOWED[layer] | {layer}
    bad = {str(p.relative_to(ROOT)): sorted(imported_packages(p) - allowed)
           for p in sorted((ROOT / layer).glob("*.py"))}
    assert {k: v for k, v in bad.items() if v} == {}


def test_importing_audit_loads_no_other_package():
    code = ("import sys, tarneeb.audit, tarneeb.audit.vectors; "
            "print(sorted({m.split('.')[1] for m in sys.modules if m.startswith('tarneeb.')}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "['audit']"


def test_the_check_sees_an_import(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("import tarneeb.replay.cards\nfrom tarneeb.cli import app\nfrom . import x\n")
    assert imported_packages(f) == {"replay", "cli"}
