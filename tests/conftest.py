"""Fixtures shared by the test modules."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tarneeb.report.browser import Chromium


@pytest.fixture(scope="session")
def chromium() -> Iterator[Chromium]:
    """One headless Chromium for the session's page tests: ``chromium.open(path)``."""
    with Chromium() as browser:
        yield browser
