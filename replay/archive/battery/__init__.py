"""The fairness battery's measures: what the archive audit measures of each deal, and how.

:mod:`~tarneeb.replay.archive.battery.measures` (deals as measures, match by match, and the
battery's results), :mod:`~.columns` (the same tallies a chunk of deals at a time, with
numpy; the trumps' and trump honours' tests in :mod:`~.trumpcols`), :mod:`~.honours` (the
trump honours' populations), :mod:`~.repeats` (the values the repeat tests keep, past a
bound in temporary files) and :mod:`~.covered` (what no test covers, in words).

May import: :mod:`tarneeb.replay.archive.paths`, :mod:`tarneeb.replay.rules`,
:mod:`tarneeb.audit`.
"""
