"""The referee an engine loaded into the same process is checked against, kept as it was.

An engine given as ``MODULE:FACTORY`` runs in the process that replays each match with
this project's engine (the referee): an adapter that patches a house rule into
tarneeb's own code (``tarneeb.replay.rules.engine.score_hand = …``) changes the referee
too, and every answer then agrees with it. :class:`RefereeGuard` notes, before the
engine is loaded, every name of the modules the referee is made of (the rules and the
driver; the verifier that makes a log a reference too where the logs are read in the
engine's process), each function's code and each
attribute of a class defined there, holding the objects (so that no identity is reused);
:meth:`RefereeGuard.changed` names the first that is no longer the object noted.

It is not a sandbox: code in the process can change anything (a list's contents, a
function's defaults, memory). It catches what an adapter does by assignment, which is
what adapting someone else's rules in Python looks like; an engine run as a program
(``--engine-cmd``) cannot touch the referee at all.

>>> guard = RefereeGuard()
>>> guard.changed() is None
True
>>> from tarneeb.replay.rules import scoring
>>> saved, scoring.score_hand = scoring.score_hand, lambda *a: None
>>> guard.changed()
'tarneeb.replay.rules.scoring.score_hand'
>>> scoring.score_hand = saved
>>> guard.changed() is None
True
"""

from __future__ import annotations

import contextlib
import importlib
import pkgutil
import sys
import types
from collections.abc import Callable
from typing import Any

# the packages the referee is made of (every module of each, imported before the note):
# the rules and the driver; with the verifier that makes a log a reference, where the
# engine runs in the process that reads the logs (no worker)
GUARDED = ("tarneeb.replay.rules", "tarneeb.testing.regress")
WITH_VERIFIER = (*GUARDED, "tarneeb.replay.verify")
_MISSING = object()


def _import_all(packages: tuple[str, ...]) -> None:
    """Every module of ``packages``, imported: one imported later, after the engine,
    could be changed before it is noted."""
    for package in packages:
        module = importlib.import_module(package)
        for info in pkgutil.walk_packages(module.__path__, package + "."):
            with contextlib.suppress(ImportError):  # (an optional part not installed)
                importlib.import_module(info.name)


def _entries(packages: tuple[str, ...]) -> list[tuple[str, Callable[[], Any], Any]]:
    """Per name of ``packages`` noted: what it is called, how to look it up now, and the
    object then."""
    out: list[tuple[str, Callable[[], Any], Any]] = []

    def note(label: str, space: Any, attr: str, value: Any, owner: str) -> None:
        out.append((f"{label}.{attr}", lambda: space.get(attr, _MISSING), value))
        if isinstance(value, types.FunctionType):
            out.append((f"{label}.{attr}.__code__", lambda: value.__code__, value.__code__))
        elif isinstance(value, type) and value.__module__ == owner:
            for inner_attr, inner in list(vars(value).items()):
                note(f"{label}.{attr}", vars(value), inner_attr, inner, "")

    guarded = [n for n in list(sys.modules)
               if any(n == p or n.startswith(p + ".") for p in packages)]
    for name in sorted(guarded):
        module = sys.modules.get(name)
        if module is None:
            continue
        space = vars(module)
        for attr, value in list(space.items()):
            note(name, space, attr, value, name)
    return out


class RefereeGuard:
    """The referee's parts as they are now; :meth:`changed` says whether they still are."""

    def __init__(self, packages: tuple[str, ...] = GUARDED) -> None:
        _import_all(packages)
        self._entries = _entries(packages)

    def changed(self) -> str | None:
        """The first part that is no longer the object noted (its dotted name), or None."""
        for label, now, then in self._entries:
            if now() is not then:
                return label
        return None


def referee_changed(part: str) -> str:
    """What a run says of an engine that changed the referee (``part``, by name)."""
    return (f"the engine changed tarneeb's own code that referees it ({part}): its answers "
            "would be checked against the rules it changed (house rules are a rules file's, "
            "recorded in each log); an engine that must patch tarneeb runs as a program "
            "(--engine-cmd), which cannot touch the referee")


__all__ = ["GUARDED", "WITH_VERIFIER", "RefereeGuard", "referee_changed"]
