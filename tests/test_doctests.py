"""The examples in the docstrings of tarneeb.replay run, so they cannot go stale."""

from __future__ import annotations

import doctest
import importlib
import pkgutil
from pathlib import Path

import pytest

PACKAGES = ["tarneeb.replay", "tarneeb.audit", "tarneeb.report", "tarneeb.testing", "tarneeb.cli"]


def _modules() -> list[str]:
    """Every module of the packages and their subpackages (each package's ``__init__``
    too): a new module's examples run without being listed."""
    out = []
    for package in PACKAGES:
        pkg = importlib.import_module(package)
        out.append(package)
        out += [m.name for m in pkgutil.walk_packages(pkg.__path__, f"{package}.")
                if not m.name.endswith(".__main__")]
    return sorted(out)


MODULES = _modules()


def test_top_level_doctests() -> None:
    import tarneeb

    result = doctest.testmod(tarneeb, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted >= 2


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


BENCH = Path(__file__).resolve().parent.parent / "bench"


@pytest.mark.parametrize("name", ["bench_floor", "bench_stages", "bench_audit",
                                  "bench_startup", "bench_group", "bench_logs", "bench"])
def test_bench_doctests(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The benchmark's figures are computed by code whose examples run, so ``make bench``
    does not rot between runs."""
    monkeypatch.syspath_prepend(str(BENCH))
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted > 0
