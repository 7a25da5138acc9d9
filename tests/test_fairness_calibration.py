"""One error rate for the whole verdict: fair archives of any mix are flagged at most at alpha.

Archives of deals made in process (:mod:`tarneeb.testing.dealsim`: no logs, the same
measures and results as an audit's), proven and recorded deals mixed, every rule set,
every test of both origins corrected as one family."""

from __future__ import annotations

import random

from scipy import stats

from tarneeb.replay.archive.audit import bias_flagged, fairness_results
from tarneeb.testing.dealsim import synthetic_archive

ARCHIVES = 200


def test_fair_mixed_archives_are_flagged_at_most_at_alpha() -> None:
    """200 fair archives of 6 matches (proven and recorded at random): the number flagged
    anywhere is within the binomial(200, 5 %) bound a fair procedure keeps (P < 0.3 %)."""
    bound = int(stats.binom.isf(0.003, ARCHIVES, 0.05))
    flagged = 0
    mixed = 0
    for seed in range(ARCHIVES):
        tallies = synthetic_archive(random.Random(seed), 6, 8)
        mixed += len(tallies) == 2
        flagged += bool(bias_flagged(fairness_results(tallies, 0.05, detectable=False)))
    assert mixed > ARCHIVES // 2  # most archives have both origins, tested as one family
    assert flagged <= bound


def test_one_family_over_both_origins() -> None:
    """The correction counts the tests of both origins together: a p-value is multiplied
    by the number of tests of the whole archive, not of its origin alone."""
    tallies = synthetic_archive(random.Random(7), 12, 10)
    results = fairness_results(tallies, 0.05, detectable=False)
    tested = [r for rs in results.values() for r in rs if r.tested]
    assert set(results) == {"proven", "recorded"}
    smallest = min(tested, key=lambda r: r.p_value or 0.0)
    assert smallest.p_adjusted == min(1.0, len(tested) * (smallest.p_value or 0.0))


def test_no_test_counted_twice() -> None:
    """The computer and the human seats' means are one test (the paired one), and the
    seats' sums, which add up to the deck's, are one joint test of 3 degrees of freedom."""
    results = fairness_results(synthetic_archive(random.Random(3), 12, 10), 0.05,
                               detectable=False)
    for rs in results.values():
        means = [r.test for r in rs if r.method == "z-test of the mean"
                 and r.test[0] == "high-card points"]
        assert not [t for t in means if t[1] in ("label", "seat")]
        joint = [r for r in rs if r.test[:2] == ("high-card points", "seat")
                 and r.method == "joint chi-square"]
        assert len(joint) == 1 and joint[0].df == 3
        team = [r for r in rs if r.test[:2] == ("high-card points", "team")]
        assert len(team) == 1 and team[0].df == 1
