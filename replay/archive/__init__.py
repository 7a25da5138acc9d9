"""The archive audit: every log of an archive verified, summed up in one verdict.

:mod:`~tarneeb.replay.archive.audit` (the run and its summary), :mod:`~.paths` (which
files), :mod:`~.seen` (each match once), :mod:`~.measures` (deals as measures for the
fairness statistics), :mod:`~.tables` (Parquet), :mod:`~.words` (the verdict in words).

May import: :mod:`tarneeb.replay.verify`, :mod:`tarneeb.replay.log`,
:mod:`tarneeb.replay.rules`, :mod:`tarneeb.audit`.
"""
