"""Fixtures shared by the test modules."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tarneeb.report.browser import Chromium

if TYPE_CHECKING:
    from base_install import BaseInstall

# The modules whose tests take longest, longest first: the two verifiers over blind logs,
# Node servers killed and resumed (tens of seconds of CPU each), then those holding one long
# test (a wheel built and installed, a calibration over many archives, a page printed in the
# browser, the demo, a Dask cluster, the engine command's time limits). They run before the
# rest: pytest-xdist (`make test`) hands each worker a contiguous half of the run and an idle
# one takes tests from the other's end, so with the long ones first the run ends on short
# tests, both cores busy to the last, rather than one core on a long test while the other
# waits.
LONG_FIRST = ["test_js_conformance", "test_js_resume", "test_packaging",
              "test_fairness_calibration", "test_archive_print", "test_dealstats",
              "test_hand_numbers", "test_archive", "test_limits", "test_plugin",
              "test_engine_cmd", "test_js_shuffle_argument", "test_cli_one_language",
              "test_readme_tour", "test_js_engine", "test_fairplay", "test_compiled",
              "test_alterations", "test_verifier_page", "test_blind_log"]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(LONG_FIRST)}

    def place(item: pytest.Item) -> int:
        module = getattr(item, "module", None)
        name = module.__name__.rsplit(".", 1)[-1] if module is not None else ""
        return rank.get(name, len(rank))

    items.sort(key=place)  # stable: the order within a module and among the rest kept


@pytest.fixture(scope="session")
def chromium() -> Iterator[Chromium]:
    """One headless Chromium for the session's page tests: ``chromium.open(path)``."""
    with Chromium() as browser:
        yield browser


@pytest.fixture(scope="session")
def base_install(tmp_path_factory: pytest.TempPathFactory) -> BaseInstall:
    """The wheel, built once for the run (all its test processes), installed in a fresh
    environment with the base dependencies alone: tests/base_install.py."""
    from base_install import base_install as make

    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the run's, shared by its workers
    return make(shared)
