"""tarneeb: verifiable deals and replay audits for the Tarneeb family of card games.

The library is in :mod:`tarneeb.audit` (seeds, commitments, deal derivation,
signatures), :mod:`tarneeb.replay` (rule sets, the engine, the log format, the
replayer) and :mod:`tarneeb.testing` (tools for other engines' tests); the
``tarneeb`` command is :mod:`tarneeb.cli`.
"""
