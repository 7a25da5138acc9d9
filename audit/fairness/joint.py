"""Tests of several sums at once, of many members, and of a sum against a covariate.

* the **joint test** of the totals of disjoint draws from one deck (the four seats'
  points of a deal, the two teams'): the deviations of the totals from their exact
  means, against their exact covariance (draws without replacement from one
  population are negatively correlated, and the totals of all four hands are fixed),
  a quadratic form that is chi-square with as many degrees of freedom as the
  covariance has rank: no sum is counted twice;
* the **max test** over members (players by name): each member's mean against its
  exact mean and variance, the most extreme kept and its p-value multiplied by the
  number of members (Bonferroni: valid whatever the dependence between members);
* the **covariate test** (deals against the state of the match): the sum of the
  centred covariate times the value, whose exact variance given the covariates is
  the value's variance times the covariate's sum of squares about its mean (the
  values of independent deals do not depend on the state before them).
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from tarneeb.audit.fairness.exact import DrawSum, TestId
from tarneeb.audit.fairness.tests import StatResult

MIN_MEMBER = 30  # observations a member needs to be tested (the normal tail is then fair)
JOINT = "joint chi-square"
MAX = "max z over members"
COVARIATE = "covariate z-test"
REPEATS = "repeats (Poisson)"
ORDERED = "lag-1 correlation"
BOUNDED = "Bernstein bound"
MIN_BOUNDED = 20  # observations a bounded test needs
MIN_PAIRS = 30  # consecutive pairs the lag test needs
LAG_MORE = 20_000  # simulated samples at most (the least p-value 1/20,001)
LAG_CELLS = 1 << 20  # simulated totals held at once (memory stays flat)
PACK = 20  # bits of an ordered entry that hold its number of deals


def _covariance(refs: tuple[DrawSum, ...]) -> list[list[float]]:
    """The exact covariance of the sums of disjoint draws from one population."""
    k = len(refs)
    return [[refs[i].variance if i == j else refs[i].covariance(refs[j].draws)
             for j in range(k)] for i in range(k)]


def joint_test(test: TestId, groups: tuple[str, ...], counts: dict[tuple[Any, ...], int],
               sums: Counter[tuple[Any, ...]]) -> StatResult:
    """``counts``: deals per tuple of references (one per group); ``sums`` per group."""
    import numpy as np
    from scipy import special
    k = len(groups)
    d = np.zeros(k)
    cov = np.zeros((k, k))
    units = np.zeros(k)
    expected = np.zeros(k)
    n = 0
    for (refs,), c in sorted(counts.items(), key=lambda kv: repr(kv[0])):
        n += c
        for i, ref in enumerate(refs):
            d[i] += sums[("joint", test, refs, i)] - c * ref.mean
            expected[i] += c * ref.mean
            units[i] += c * ref.units
        cov += c * np.array(_covariance(refs))
    observed = (d + expected) / np.maximum(units, 1)
    result = StatResult(test, JOINT, n, None, None, None, list(groups),
                        [float(x) for x in observed],
                        [float(x) for x in expected / np.maximum(units, 1)])
    if n < 2:
        return result
    pinv = np.linalg.pinv(cov, hermitian=True)
    df = int(np.linalg.matrix_rank(cov, hermitian=True))
    if df == 0:
        return result
    q = max(0.0, float(d @ pinv @ d))  # rounding can make a zero a tiny negative
    result.statistic, result.df, result.p_value = q, df, float(special.chdtrc(df, q))
    # the noncentrality of a shift of one unit per hand in one group, the others making
    # up for it in proportion to their hands (as the deck forces them to): the least
    # sensitive group's
    shifts = []
    for i in range(k):
        rest = units.sum() - units[i]
        delta = -units[i] * units / rest if rest > 0 else np.zeros(k)
        delta[i] = units[i]
        shifts.append(float(delta @ pinv @ delta))
    result.unit_noncentrality = min(shifts)
    return result


def max_test(test: TestId, members: dict[str, list[tuple[Any, int, int]]],
             min_member: int = MIN_MEMBER) -> StatResult:
    """``members``: per member, (reference, observations, sum) per reference."""
    from scipy import special
    zs: list[tuple[float, str, int, float, float, float]] = []
    for name, strata in members.items():
        n = sum(k for _, k, _ in strata)
        if n < min_member:
            continue
        obs = sum(t for _, _, t in strata)
        exp = sum(k * r.mean for r, k, _ in strata)
        var = sum(k * r.variance for r, k, _ in strata)
        units = sum(k * r.units for r, k, _ in strata)
        if var > 0:
            zs.append(((obs - exp) / math.sqrt(var), name, n, obs / units, exp / units,
                       math.sqrt(var) / units))
    total = sum(sum(k for _, k, _ in s) for s in members.values())
    if not zs:
        return StatResult(test, MAX, total, None, None, None)
    z, name, n, mean, expected, _ = max(zs, key=lambda x: (abs(x[0]), x[1]))
    p = min(1.0, len(zs) * float(2 * special.ndtr(-abs(z))))
    ses = sorted(x[5] for x in zs)
    r = StatResult(test, MAX, n, z, len(zs), p, [name], [mean], [expected],
                   std_error=ses[len(ses) // 2])  # the median member's
    return r


def covariate_test(test: TestId, strata: list[tuple[Any, int, int, int, int, int]]) -> StatResult:
    """``strata``: (reference, n, sum x, sum x², sum y, sum x·y) per reference."""
    from scipy import special
    s = var = 0.0
    n = 0
    slope_num = slope_den = 0.0
    for ref, k, sx, sxx, sy, sxy in strata:
        n += k
        if k == 0:
            continue
        centred = sxy - sx * sy / k  # sum (x - mean x) y
        ssx = sxx - sx * sx / k
        s += centred
        var += ref.variance * ssx
        slope_num += centred / ref.units
        slope_den += ssx
    if n < 3 or var <= 0:
        return StatResult(test, COVARIATE, n, None, None, None)
    z = s / math.sqrt(var)
    slope = slope_num / slope_den
    return StatResult(test, COVARIATE, n, z, None, float(2 * special.ndtr(-abs(z))),
                      ["slope per hand"], [slope], [0.0],
                      std_error=math.sqrt(var) / slope_den / strata[0][0].units)


def repeats_test(test: TestId, counts: dict[tuple[Any, ...], int], population: float,
                 sampled: int) -> StatResult:
    """Items drawn again: ``counts`` per item value (one of ``population`` equally likely
    values each draw), of the draws kept by a sample of one value in ``sampled``. The
    pairs of equal draws kept are Poisson with the exact mean
    ``C(kept, 2) * sampled / population`` (two draws are equal with probability
    ``1 / population``, and both kept then with probability ``1 / sampled``, against
    ``1 / sampled**2`` for any two): any pair at all, when the mean is 10⁻⁶, is a finding."""
    return repeats_result(test, sum(counts.values()),
                          sum(c * (c - 1) // 2 for c in counts.values()), population, sampled)


def repeats_result(test: TestId, kept: int, pairs: int, population: float,
                   sampled: int) -> StatResult:
    """:func:`repeats_test` from its two figures: the draws kept and their equal pairs."""
    from scipy import special
    mean = kept * (kept - 1) / 2 * sampled / population
    r = StatResult(test, REPEATS, kept, float(pairs), sampled, None, ["equal pairs"],
                   [float(pairs)], [mean])
    if kept < 2:
        return r
    # P(Poisson(mean) >= pairs): the regularised lower incomplete gamma
    r.p_value = 1.0 if pairs == 0 else float(special.gammainc(pairs, mean))
    return r


def lag_test(test: TestId, ref: DrawSum, entries: dict[tuple[Any, int], int]) -> StatResult:
    """Consecutive members of series (matches at consecutive leaves of one season):
    ``entries[(series, index)]`` packs a member's total (its sum of ``n`` draws of
    ``ref``) and ``n`` as ``total << PACK | n``. Each member's total is standardised by
    its exact mean and variance (``z``); the statistic is the sum of the products of
    consecutive ``z`` over the ``P`` pairs, divided by ``√P`` (mean 0 and variance 1
    under independence). Its tail is not taken as normal (a sum of products is
    heavy-tailed: with 30 pairs the normal tail rejects 3 times too often at 1e-3):
    the p-value is Monte Carlo, each member's total drawn again from its exact
    distribution (the ``n``-fold sum of ``ref``), by Besag and Clifford's sequential
    rule (:func:`~tarneeb.audit.fairness.tests.sequential_p`), two-sided, seeded from
    the test and its entries so that it is the same on every run, at most ``LAG_MORE``
    samples (the least p-value 5e-5, below any level the test is held to in an
    audit's families). The result is the lag-1 correlation."""
    import hashlib

    import numpy as np

    from tarneeb.audit.fairness.tests import _k_fold, sequential_p
    keys = sorted((k for k, v in entries.items() if v & ((1 << PACK) - 1)), key=repr)
    index = {k: i for i, k in enumerate(keys)}
    ns = np.array([entries[k] & ((1 << PACK) - 1) for k in keys], dtype=np.int64)
    totals = np.array([entries[k] >> PACK for k in keys], dtype=float)
    scale = np.sqrt(ns * ref.variance) if len(keys) else np.zeros(0)
    zs = (totals - ns * ref.mean) / np.where(scale > 0, scale, 1.0)
    first = np.array([index[k] for k in keys if (k[0], k[1] + 1) in index], dtype=np.int64)
    second = np.array([index[(k[0], k[1] + 1)] for k in keys if (k[0], k[1] + 1) in index],
                      dtype=np.int64)
    pairs = len(first)
    products = zs[first] * zs[second]
    r = StatResult(test, ORDERED, pairs, None, None, None,
                   ["lag-1 covariance of the standardised totals"],
                   [float(products.sum()) / pairs if pairs else 0.0], [0.0])
    if pairs < MIN_PAIRS or ref.variance <= 0:
        return r
    z = float(products.sum()) / math.sqrt(pairs)
    r.statistic, r.std_error = z, 1 / math.sqrt(pairs)
    used = np.union1d(first, second)
    pmf = ref.pmf()
    lo = min(pmf)
    table = tuple(sorted(pmf.items()))
    cdfs = {int(n): np.cumsum(_k_fold(table, int(n))) for n in np.unique(ns[used])}
    seed = hashlib.sha256(repr((test, sorted(entries.items(), key=repr))).encode()).digest()
    rng = np.random.default_rng(int.from_bytes(seed[:8], "big"))
    cut = abs(z) * math.sqrt(pairs) * (1 - 1e-9) - 1e-12

    rows = max(1, LAG_CELLS // len(keys))

    def exceed(draws: int) -> Any:
        out = []
        for done in range(0, draws, rows):
            m = min(rows, draws - done)
            sims = np.zeros((m, len(keys)))
            for n, cdf in cdfs.items():
                at = used[ns[used] == n]
                drawn = np.searchsorted(cdf, rng.random((m, len(at))) * cdf[-1], side="right")
                sims[:, at] = (np.minimum(drawn, len(cdf) - 1) + n * lo - n * ref.mean) \
                    / math.sqrt(n * ref.variance)
            out.append(np.abs((sims[:, first] * sims[:, second]).sum(axis=1)) >= cut)
        return np.concatenate(out)

    r.p_value = sequential_p(exceed, LAG_MORE)
    r.p_method = "Monte Carlo"
    return r


def bounded_test(test: TestId, ref: Any, n: int, total: int) -> StatResult:
    """The sum ``total`` of ``n`` independent observations of ``ref``, each between 0 and
    ``ref.most``, against its exact mean and variance, by Bernstein's inequality: with
    ``b`` the largest deviation one observation can make from its mean and ``t`` the
    sum's deviation, ``P(|S - ES| >= t) <= 2 exp(-t² / (2 (n σ² + b t / 3)))`` whatever
    the observations' distribution (a bound, so the p-value is conservative: no exact
    or simulated tail of the observation is needed)."""
    mean, var = n * ref.mean, n * ref.variance
    r = StatResult(test, BOUNDED, n, None, None, None, ["mean per deal"],
                   [total / n if n else 0.0], [ref.mean],
                   std_error=math.sqrt(ref.variance / n) if n else None)
    if n < MIN_BOUNDED or var <= 0:
        return r
    t = abs(total - mean)
    b = max(ref.mean, ref.most - ref.mean)
    r.statistic = (total - mean) / math.sqrt(var)
    r.p_value = min(1.0, 2 * math.exp(-t * t / (2 * (var + b * t / 3))))
    return r


__all__ = [
    "BOUNDED",
    "COVARIATE",
    "JOINT",
    "MAX",
    "MIN_BOUNDED",
    "MIN_MEMBER",
    "MIN_PAIRS",
    "ORDERED",
    "PACK",
    "REPEATS",
    "bounded_test",
    "covariate_test",
    "joint_test",
    "lag_test",
    "max_test",
    "repeats_test",
]
