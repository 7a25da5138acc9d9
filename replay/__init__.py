"""The rules and the logs: everything that knows the game.

Its parts, each a subpackage, and the one way their imports run (a part imports only
the parts after it, and :mod:`tarneeb.audit`):

* :mod:`tarneeb.replay.archive` — many logs to one verdict, with fairness statistics;
* :mod:`tarneeb.replay.fairplay` — the card play tested for seats that see hidden cards;
* :mod:`tarneeb.replay.server` — what a platform's server runs: the recorder, simulated
  matches, the seats of a blind deal;
* :mod:`tarneeb.replay.verify` — the judge: the replayer, provenance, findings, the verdict;
* :mod:`tarneeb.replay.log` — the byte format: reading, writing, JSON, the annotated dump;
* :mod:`tarneeb.replay.rules` — the game as data: cards, rule sets, the engine, players.

:mod:`tarneeb.replay.vectors` writes the test vectors of all of them. ``tests/test_layering.py``
holds them to it.
"""
