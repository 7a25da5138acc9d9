"""Fairness statistics: observed deals against their exact distribution under a uniform shuffle.

This package knows no rules and no cards. It knows *draws*: ``draws`` items taken at
random, without replacement, from a population of items that carry a value or
belong to a class. A 13-card hand is such a draw from the 52 cards; its high-card
points are the sum of the values (ace 4, king 3, queen 2, jack 1, others 0), its
number of trumps the count of one class, its suit-length pattern the sorted class
counts. The exact distribution of each is computed by counting (hypergeometric and
multivariate hypergeometric terms, with integer arithmetic), never simulated.

Observations go into a :class:`Tally`: integer counts only, so tallies made on
different processes or machines merge by addition into exactly the same result,
whatever the order. :meth:`Tally.results` then runs, for every test:

* a G-test (likelihood ratio) of the observed counts against the exact expected
  counts, with categories merged until each expects at least 5;
* a z-test of the observed mean against the exact mean and variance (sums of draws);
* a paired z-test of the difference between two disjoint draws of the same sample
  (e.g. the computer seats' hands against the human seats' hands of one deal);

then Holm's step-down correction over all of them, and for each the smallest bias
the sample could have detected (80 % power at the level the first Holm step uses):
Cohen's *w* for a G-test, a shift of the mean for a z-test.

Its modules: :mod:`~tarneeb.audit.fairness.exact` (the exact distributions),
:mod:`~.tests` (the tests and their results), :mod:`~.tally` (observations grouped by
test), :mod:`~.correction` (one error rate over many tests), :mod:`~.power` (what each
test could have detected), :mod:`~.joint` (several sums at once, members, covariates,
repeats, lags), :mod:`~.placement` (where items land: an item × group table).

It may import nothing of tarneeb but itself.

>>> hcp = DrawSum(((4, 4), (3, 4), (2, 4), (1, 4), (0, 36)), 13)  # high-card points
>>> round(hcp.mean, 6), round(hcp.variance, 4), round(hcp.pmf()[10], 4)
(10.0, 17.0588, 0.0941)
>>> t = Tally()
>>> for points in [10, 12, 7, 9, 14, 10, 11, 8] * 10:
...     t.fit(("hcp", "all"), hcp, points)
>>> [r.method for r in t.results()]
['G-test']
"""

from __future__ import annotations

from tarneeb.audit.fairness.correction import (
    DEFAULT_ALPHA,
    FAMILIES,
    correct_all,
    family_of,
    holm,
)
from tarneeb.audit.fairness.exact import (
    DrawClassCount,
    DrawEmpty,
    DrawPattern,
    DrawSum,
    NextSeat,
    PairedDraws,
    Reference,
    Uniform,
    pattern_name,
)
from tarneeb.audit.fairness.power import DEFAULT_POWER, detectable_shift, detectable_w
from tarneeb.audit.fairness.tally import Tally
from tarneeb.audit.fairness.tests import StatResult

__all__ = [
    "DEFAULT_ALPHA",
    "DEFAULT_POWER",
    "FAMILIES",
    "DrawClassCount",
    "DrawEmpty",
    "DrawPattern",
    "DrawSum",
    "NextSeat",
    "PairedDraws",
    "Reference",
    "StatResult",
    "Tally",
    "Uniform",
    "correct_all",
    "detectable_shift",
    "detectable_w",
    "family_of",
    "holm",
    "pattern_name",
]
