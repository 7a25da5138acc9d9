"""docs/API.md lists the public API, each name with one line: what ``import tarneeb``,
``tarneeb.audit`` and ``tarneeb.testing`` give. The page and the modules' ``__all__``
agree, so a name cannot be added, dropped or renamed without the page saying so."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parent.parent / "docs" / "API.md"
MODULES = ("tarneeb", "tarneeb.audit", "tarneeb.testing")


def sections(page: Path = PAGE) -> dict[str, list[str]]:
    """The names each ``## `module``` section of the page lists, in order."""
    out: dict[str, list[str]] = {}
    current = None
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            heading = re.match(r"^## `([\w.]+)`", line)
            current = heading.group(1) if heading else None
            if current is not None:
                out[current] = []
        elif current is not None and (row := re.match(r"^\| `(\w+)", line)):
            out[current].append(row.group(1))
    return out


def test_the_page_has_a_section_for_each_public_module() -> None:
    assert sorted(sections()) == sorted(MODULES)


@pytest.mark.parametrize("module", MODULES)
def test_the_page_lists_each_public_name_once(module: str) -> None:
    listed = sections()[module]
    assert len(listed) == len(set(listed)), "a name listed twice"
    assert sorted(listed) == sorted(importlib.import_module(module).__all__)


@pytest.mark.parametrize("module", MODULES)
def test_every_listed_name_is_there(module: str) -> None:
    m = importlib.import_module(module)
    missing = [n for n in sections()[module] if not hasattr(m, n)]
    assert missing == []


def test_the_check_reads_a_section(tmp_path: Path) -> None:
    page = tmp_path / "API.md"
    page.write_text("# API\n\n## `tarneeb.audit`\n\n| name | what it is |\n|---|---|\n"
                    "| `sign(key, data)` | signs |\n| `Season` | seeds |\n\n## Notes\n"
                    "| `x` | not a section of a module |\n", encoding="utf-8")
    assert sections(page) == {"tarneeb.audit": ["sign", "Season"]}
