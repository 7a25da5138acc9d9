"""Driving another engine through recorded matches: ``tarneeb regress`` and its report.

:mod:`~tarneeb.testing.regress.run` (logs to matches), :mod:`~.scripts` (what an engine
is driven through), :mod:`~.driver` (one match, beside this project's engine),
:mod:`~.runner` (each match in a worker process with a time limit), :mod:`~.command` (an
engine in any language, run as a command over the line protocol; its pipes read in
:mod:`~.pipes`), :mod:`~.report` and
:mod:`~.junit` (what a run reports).

May import: :mod:`tarneeb.testing.protocol`, :mod:`tarneeb.testing.adapters`,
:mod:`tarneeb.replay`, :mod:`tarneeb.audit`.
"""
