"""The judge: a log re-run against its rules, its seeds and its signature, to a verdict.

:mod:`~tarneeb.replay.verify.replayer` (the replayer), :mod:`~.provenance` (signature,
seeds, season), :mod:`~.ending`,
:mod:`~.blind` (blind-dealing checks), :mod:`~.receipt`, :mod:`~.findings` (findings
and the :class:`~tarneeb.replay.verify.findings.Verdict`), :mod:`~.trust` (what the user
trusts, as one value), :mod:`~.narrate` and :mod:`~.people` (saying it to people).

May import: :mod:`tarneeb.replay.log`, :mod:`tarneeb.replay.rules`, :mod:`tarneeb.audit`.
"""
