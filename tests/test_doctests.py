"""The examples in the docstrings of tarneeb.replay run, so they cannot go stale."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["cards", "rules", "houserules", "actions", "engine", "scoring", "logformat", "logjson",
           "paths", "replayer", "simulate", "narrate", "annotate", "players", "logstream",
           "dealstats", "archive", "archive_seen", "archive_words", "logwriter", "recorder",
           "vectors", "ending"]


def test_top_level_doctests() -> None:
    import tarneeb

    result = doctest.testmod(tarneeb, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted >= 2


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(f"tarneeb.replay.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
