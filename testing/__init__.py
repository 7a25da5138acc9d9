"""Regression-test another Tarneeb engine against recorded matches, or property-test it.

* :class:`Engine` — the protocol an engine implements (``docs/ENGINES.md``);
* :func:`regress_log`, :func:`regress_paths`, :class:`Runner` — drive an engine
  through logs, each match in a worker process with a time limit;
* :class:`EngineCommand` — an engine in any language, as a command speaking the line
  protocol (``docs/ENGINES.md``); a factory the functions above and below take;
* :func:`compare`, :func:`assert_agrees` — drive an engine through one
  :class:`MatchScript` in this process;
* :func:`rule_sets`, :func:`deals`, :func:`matches`, :func:`logs`,
  :func:`edited_logs` — hypothesis strategies (hypothesis is needed for these only);
* :func:`save_example`, :func:`match_log` — keep a generated (failing) example as a
  ``.tlog`` log for the corpus.

Names are imported on first use, so ``import tarneeb.testing`` stays cheap (the
pytest plugin imports it in every pytest run).

>>> from tarneeb.testing import compare, matches
>>> compare.__module__, matches.__module__
('tarneeb.testing.regress.driver', 'tarneeb.testing.strategies')
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tarneeb import _lazy_exports

_EXPORTS = {
    "protocol": ("Engine", "EngineFactory", "bid", "card", "trump"),
    "regress.scripts": ("DealScript", "MatchScript", "ScriptError", "prepare",
                      "script_from_history"),
    "regress.report": ("Disagreement", "MatchReport", "RegressRun"),
    "regress.driver": ("assert_agrees", "compare", "run_script"),
    "regress.runner": ("EngineLoadError", "Runner", "load_factory", "regress_log"),
    "regress.run": ("RegressInputError", "collect_logs", "regress_paths"),
    "strategies": ("Deal", "deals", "edited_logs", "logs", "matches", "rule_sets"),
    "adapters": ("BrokenTrumpEngine", "ReferenceEngine"),
    "regress.command": ("EngineCommand",),
    "examples": ("match_log", "save_example"),
}

if TYPE_CHECKING:
    from tarneeb.testing.adapters import BrokenTrumpEngine, ReferenceEngine
    from tarneeb.testing.examples import match_log, save_example
    from tarneeb.testing.protocol import Engine, EngineFactory, bid, card, trump
    from tarneeb.testing.regress.command import EngineCommand
    from tarneeb.testing.regress.driver import assert_agrees, compare, run_script
    from tarneeb.testing.regress.report import Disagreement, MatchReport, RegressRun
    from tarneeb.testing.regress.run import RegressInputError, collect_logs, regress_paths
    from tarneeb.testing.regress.runner import EngineLoadError, Runner, load_factory, regress_log
    from tarneeb.testing.regress.scripts import (
        DealScript,
        MatchScript,
        ScriptError,
        prepare,
        script_from_history,
    )
    from tarneeb.testing.strategies import Deal, deals, edited_logs, logs, matches, rule_sets


__getattr__, __dir__ = _lazy_exports(
    __name__, {f".{module}": names for module, names in _EXPORTS.items()})


__all__ = [
    "BrokenTrumpEngine", "Deal", "DealScript", "Disagreement", "Engine", "EngineCommand",
    "EngineFactory",
    "EngineLoadError", "MatchReport", "MatchScript", "ReferenceEngine", "RegressInputError",
    "RegressRun", "Runner", "ScriptError", "assert_agrees", "bid", "card", "collect_logs",
    "compare", "deals", "edited_logs", "load_factory", "logs", "match_log", "matches", "prepare",
    "regress_log", "regress_paths", "rule_sets", "run_script", "save_example",
    "script_from_history", "trump",
]
