"""Imports run one way: cli -> testing -> replay -> audit, and cli -> report -> replay
(report and testing know nothing of each other). The fairness layer (tarneeb.audit)
imports nothing of the others, so it can be used, read and re-implemented without the
rules. Inside each package the subpackages have arrows of their own (ARCHITECTURE.md),
and no module imports itself back through others: there is no import circle, not even
through an import inside a function.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = {"tarneeb": "tarneeb", "audit": "tarneeb.audit", "replay": "tarneeb.replay",
           "testing": "tarneeb.testing", "cli": "tarneeb.cli", "report": "tarneeb.report"}
# what each package may import besides itself
ALLOWED = {
    "audit": set(),
    "replay": {"audit"},
    "report": {"audit", "replay"},
    "testing": {"audit", "replay"},
    "cli": {"audit", "replay", "report", "testing"},
}
LAYERS = tuple(ALLOWED)
# inside a package: what each part may import of its siblings (a part is a subpackage or
# a module; parts not named here may import any sibling)
PARTS = {
    "tarneeb.replay": {
        "rules": set(),
        "log": {"rules"},
        "verify": {"log", "rules"},
        "server": {"verify", "log", "rules"},
        "archive": {"fairplay", "verify", "log", "rules"},
        "fairplay": {"verify", "log", "rules"},
    },
    "tarneeb.testing": {
        "protocol": set(),
        "alterations": set(),
        "corpus": {"alterations"},
        "regress": {"protocol", "adapters"},
    },
    "tarneeb.audit": {
        "fairness": set(),
    },
}


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = [FOLDERS[rel.parts[0]], *rel.parts[1:]]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def all_modules() -> dict[str, Path]:
    return {module_name(p): p for folder in FOLDERS for p in sorted((ROOT / folder).rglob("*.py"))}


MODULES = all_modules()


def imports_of(name: str, path: Path) -> set[str]:
    """The tarneeb modules ``name`` imports, anywhere in it (in functions too): for ``from
    package import x``, the package and, where ``x`` is a module, that module."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")
                up = up[:len(up) - (node.level - 1)]
                base = ".".join(up) + (f".{node.module}" if node.module else "")
            out.add(base)
            out.update(f"{base}.{a.name}" for a in node.names)
    return {m for m in out if m in MODULES and m != name}


GRAPH = {name: imports_of(name, path) for name, path in MODULES.items()}


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
           for p in sorted((ROOT / layer).rglob("*.py"))}
    assert {k: v for k, v in bad.items() if v} == {}


def part_of(module: str, package: str) -> str | None:
    """The part of ``package`` that ``module`` is in (None for the package itself)."""
    if not module.startswith(package + "."):
        return None
    return module[len(package) + 1:].split(".")[0]


@pytest.mark.parametrize("package", sorted(PARTS))
def test_the_parts_of_a_package_import_one_way(package):
    rules = PARTS[package]
    bad = []
    for name, targets in GRAPH.items():
        part = part_of(name, package)
        if part not in rules:
            continue
        for target in targets:
            other = part_of(target, package)
            if other is not None and other != part and other not in rules[part]:
                bad.append(f"{name} imports {target}")
            if target == package:
                bad.append(f"{name} imports the package {package} itself")
    assert bad == []


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm,
    without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            for child in children:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        m = stack.pop()
                        on_stack.discard(m)
                        component.append(m)
                        if m == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
    return found


def test_no_import_circle():
    assert circles(GRAPH) == []


def test_the_circle_check_sees_a_circle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert circles(graph) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def test_a_module_importing_a_sibling_package_is_seen(tmp_path):
    f = ROOT / "replay" / "rules" / "cards.py"
    assert "tarneeb.replay.rules.cards" in MODULES
    assert imports_of("tarneeb.replay.rules.cards", f) <= set(MODULES)
    g = tmp_path / "m.py"
    g.write_text("from tarneeb.replay.log import parse\nfrom .x import y\n")
    assert imports_of("tarneeb.replay.rules.m", g) >= {"tarneeb.replay.log",
                                                        "tarneeb.replay.log.parse"}


def test_importing_audit_loads_no_other_package():
    code = ("import sys, tarneeb.audit, tarneeb.audit.vectors; "
            "print(sorted({m.split('.')[1] for m in sys.modules if m.startswith('tarneeb.')}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "['audit']"


def test_the_check_sees_an_import(tmp_path):
    f = tmp_path / "m.py"
    f.write_text("import tarneeb.replay.rules.cards\nfrom tarneeb.cli import app\n"
                 "from . import x\n")
    assert imported_packages(f) == {"replay", "cli"}


def bench_graph() -> dict[str, set[str]]:
    """The benchmark scripts (bench/, run from their folder, so they import each other by
    their plain names) and which of them each imports."""
    scripts = {p.stem: p for p in sorted((ROOT / "bench").glob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in scripts.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                found.update(a.name for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                found.add(node.module)
        graph[name] = {m for m in found if m in scripts and m != name}
    return graph


def test_no_import_circle_in_the_benchmarks():
    graph = bench_graph()
    assert graph["bench"]  # the driver imports the benchmarks: the graph is not empty
    assert circles(graph) == []


JS_IMPORT = re.compile(r"""(?:^|\n)\s*(?:import|export)\b[^;]*?\bfrom\s*["'](\.\.?/[^"']+)["']"""
                       r"""|\bimport\(\s*["'](\.\.?/[^"']+)["']\s*\)""")
# the TypeScript verifier's folders (js/src), lowest first: a module may import its own
# folder's and those below; the entry points at the top (index, cli, server,
# engine-server) any
JS_LAYERS = ("data", "text", "protocol", "rules", "log", "verify", "recorder")


def js_graph() -> dict[str, set[str]]:
    """The TypeScript verifier's modules (js/src) and which of them each imports, type-only
    imports included (a circle of types is still a circle a reader has to follow)."""
    src = ROOT / "js" / "src"
    modules = {p.relative_to(src).with_suffix("").as_posix(): p for p in sorted(src.rglob("*.ts"))}
    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        found = {a or b for a, b in JS_IMPORT.findall(path.read_text(encoding="utf-8"))}
        here = path.parent.relative_to(src)
        targets = {(here / f).with_suffix("").as_posix() for f in found}
        graph[name] = {os.path.normpath(t) for t in targets} & set(modules) - {name}
    return graph


def test_no_import_circle_in_the_typescript_verifier():
    graph = js_graph()
    assert graph["verify/replay"] and graph["cli"]  # the reader found the imports
    assert circles(graph) == []


def test_the_typescript_folders_import_downwards():
    graph = js_graph()
    layer = {name: JS_LAYERS.index(name.split("/")[0]) for name in graph if "/" in name}
    assert set(JS_LAYERS) == {name.split("/")[0] for name in layer}  # every folder read
    assert {name for name in graph if "/" not in name} == {"index", "cli", "server",
                                                           "engine-server"}
    against = sorted(f"{a} imports {b}" for a, deps in graph.items() if a in layer
                     for b in deps if b not in layer or layer[b] > layer[a])
    assert against == []


def test_the_typescript_import_reader_sees_each_form():
    text = ('import { a } from "./one.js";\nimport type { B } from "./two.js";\n'
            'export { c } from "./three.js";\nconst d = await import("./four.js");\n'
            'import {\n  e,\n} from "./five.js";\nimport { f } from "../text/six.js";\n')
    found = {a or b for a, b in JS_IMPORT.findall(text)}
    assert {Path(f).stem for f in found} == {"one", "two", "three", "four", "five", "six"}
