"""pytest plugin of :mod:`tarneeb.testing`: replay recorded matches against another engine.

>>> # pytest --tarneeb-logs fixtures/matches --tarneeb-engine mypkg.adapter:make_engine
"""

from __future__ import annotations

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    """The ``--tarneeb-logs`` and ``--tarneeb-engine`` options."""
    group = parser.getgroup("tarneeb", "regress another Tarneeb engine against recorded matches")
    group.addoption("--tarneeb-logs", action="append", default=[], metavar="DIR",
                    help="a directory of *.tlog match logs: one test per match")
    group.addoption("--tarneeb-engine", default=None, metavar="MODULE:FACTORY",
                    help="the engine under test: a factory returning a tarneeb.testing.Engine")
