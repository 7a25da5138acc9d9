"""Evidence that stays valid however often one looks: the e-processes of ``audit --state``.

* :mod:`~tarneeb.audit.fairness.anytime.evidence`: the archive's e-processes, one per
  test of the fixed-sample battery, advanced one match at a time and combined by
  family (:class:`Evidence`), and the tests none covers (:func:`fixed_sample_only`);
* :mod:`~tarneeb.audit.fairness.anytime.threats`: the bets' arithmetic (exact ``ψ``, the
  variance proxy) and the bets of the tests that read every deal (state-adaptive
  dealing, drift, serial balance, partners' fit);
* :mod:`~tarneeb.audit.fairness.anytime.near`: the near-repeats bet, and the index of the
  hands seen before it asks;
* :mod:`~tarneeb.audit.fairness.anytime.batch`: a run's new matches advanced a test at a
  time (:func:`advance_many`), to the figures of one match at a time;
* :mod:`~tarneeb.audit.fairness.anytime.observe`: a match's tally as the e-processes read
  it (:func:`observations`), or many matches' at once, per test (``gather``).
* :mod:`~tarneeb.audit.fairness.anytime.recall`: the deals seen before a run, held as
  numpy arrays by digest (:class:`DealsSeen`), what the evidence asks of them.

Part of :mod:`tarneeb.audit.fairness`: it may import the rest of that package and
nothing of the other parts of tarneeb.
"""

from __future__ import annotations

from tarneeb.audit.fairness.anytime.evidence import (
    FAMILIES,
    STEPS,
    Evidence,
    family_of,
    fixed_sample_only,
    observations,
)

__all__ = ["FAMILIES", "STEPS", "Evidence", "family_of", "fixed_sample_only", "observations"]
