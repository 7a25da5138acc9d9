"""The examples in the docstrings of tarneeb.audit run."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["", ".encoding", ".errors", ".merkle", ".seeds", ".derive", ".signing", ".receipt",
           ".vectors", ".fairness"]


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name):
    module = importlib.import_module("tarneeb.audit" + name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0
