"""The compiled core, when it is built and not turned off.

``tarneeb.replay.rules._core`` is a C extension that setuptools builds at install time
when a C compiler is there (``setup.py``; it is optional: without one the install goes
on). It replays a log's hands in their common form and confirms their claims, and
gives up at the first thing out of the ordinary; :mod:`tarneeb.replay.verify.compiled`
then hands the log to the pure-Python replayer, which is the definition of a verdict
and the only path that makes findings. Both give the same verdict on every log
(``tests/test_compiled.py``).

The environment variable ``TARNEEB_PURE`` (any value but empty or ``0``) turns the
compiled core off for the process; it is read once, when this module is loaded.

>>> path_in_use() in ("compiled core", "pure Python", "pure Python, TARNEEB_PURE is set")
True
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from types import ModuleType

PURE_VARIABLE = "TARNEEB_PURE"


def _load() -> tuple[ModuleType | None, str]:
    if os.environ.get(PURE_VARIABLE, "") not in ("", "0"):
        return None, f"pure Python, {PURE_VARIABLE} is set"
    try:
        from tarneeb.replay.rules import _core
    except ImportError:  # not built (no compiler at install time)
        return None, "pure Python"
    return _core, "compiled core"


CORE, _PATH = _load()


def path_in_use() -> str:
    """Which path verifies logs in this process: ``"compiled core"`` or ``"pure Python"``
    (``"pure Python, TARNEEB_PURE is set"`` when the core is turned off)."""
    return _PATH


@contextlib.contextmanager
def pure_python() -> Iterator[None]:
    """Within the block, logs are verified by the pure-Python path alone (as with
    ``TARNEEB_PURE=1``), whether or not the core is built: for tests of both paths.

    >>> from tarneeb.replay.rules import compiled
    >>> with pure_python():
    ...     compiled.CORE is None
    True
    """
    global CORE
    saved, CORE = CORE, None
    try:
        yield
    finally:
        CORE = saved


__all__ = ["CORE", "PURE_VARIABLE", "path_in_use", "pure_python"]
