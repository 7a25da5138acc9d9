"""Driving another engine through recorded matches: ``tarneeb regress`` and its report.

:mod:`~tarneeb.testing.regress.run` (logs to matches), :mod:`~.scripts` (what an engine
is driven through), :mod:`~.driver` (one match, beside this project's engine),
:mod:`~.runner` (each match in a worker process with a time limit), :mod:`~.report` and
:mod:`~.junit` (what a run reports).

May import: :mod:`tarneeb.testing.protocol`, :mod:`tarneeb.testing.adapters`,
:mod:`tarneeb.replay`, :mod:`tarneeb.audit`.
"""

from __future__ import annotations

from tarneeb.testing.regress.run import (
    DEFAULT_TIME_LIMIT,
    DISAGREEMENTS,
    ENGINE_FAILURES,
    METHODS,
    STARTUP_LIMIT,
    DealScript,
    Disagreement,
    EngineLoadError,
    MatchReport,
    MatchScript,
    RegressInputError,
    RegressRun,
    Runner,
    ScriptError,
    Status,
    assert_agrees,
    collect_logs,
    compare,
    hand_actions,
    load_factory,
    prepare,
    regress_log,
    regress_paths,
    run_script,
    script_from_history,
)

__all__ = ["DEFAULT_TIME_LIMIT", "DISAGREEMENTS", "ENGINE_FAILURES", "METHODS",
    "STARTUP_LIMIT", "DealScript", "Disagreement", "EngineLoadError", "MatchReport",
    "MatchScript", "RegressInputError", "RegressRun", "Runner", "ScriptError", "Status",
    "assert_agrees", "collect_logs", "compare", "hand_actions", "load_factory", "prepare",
    "regress_log", "regress_paths", "run_script", "script_from_history"]
