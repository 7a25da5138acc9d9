"""What a platform's server runs: the recorder, simulated matches, blind-dealt seats.

:mod:`~tarneeb.replay.server.recorder` writes a match's log move by move from plain
values (``tarneeb.MatchRecorder``); :mod:`~.simulate` plays whole matches between
computer players and writes the signed log a platform would; :mod:`~.blind` plays a
match dealt blind, every seat holding its own key.

May import: :mod:`tarneeb.replay.verify`, :mod:`tarneeb.replay.log`,
:mod:`tarneeb.replay.rules`, :mod:`tarneeb.audit`.
"""
