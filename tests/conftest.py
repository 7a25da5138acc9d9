"""Fixtures shared by the test modules."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

from tarneeb.report.browser import Chromium

if TYPE_CHECKING:
    from base_install import BaseInstall


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
