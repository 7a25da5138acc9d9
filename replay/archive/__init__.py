"""The archive audit: every log of an archive verified, summed up in one verdict.

:mod:`~tarneeb.replay.archive.audit` (a chunk's audit and the summary), :mod:`~.run`
(running chunks: one process, a pool, Dask; faults), :mod:`~.paths` (which files),
:mod:`~.seen` (each match once), :mod:`~.claims` (what two matches may not share: a
season leaf, a match id, an outcome), :mod:`~.endings` (abandoned matches),
:mod:`~.battery` (deals as measures for the fairness statistics), :mod:`~.tables`
(Parquet), :mod:`~.words` (the verdict in words).

May import: :mod:`tarneeb.replay.verify`, :mod:`tarneeb.replay.log`,
:mod:`tarneeb.replay.rules`, :mod:`tarneeb.audit`.
"""
