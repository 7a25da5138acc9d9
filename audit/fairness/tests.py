"""The tests: a G-test of counts against exact expected counts, z-tests of means.

Each turns the counts of a :class:`~tarneeb.audit.fairness.tally.Tally` for one test into a
:class:`StatResult`. scipy (the distributions of the test statistics) is imported where a
test is computed, so a worker that only tallies never loads it.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tarneeb.audit.fairness.exact import TestId, Value

MIN_EXPECTED = 5.0  # a G-test category expects at least this many (merged until it does)


@dataclass
class StatResult:
    """One test: what was observed, what a uniform shuffle gives, and what it proves.

    ``observed``/``expected`` are per category for a G-test (after merging rare
    categories; a merged one is named ``"a…b"``) and ``[mean]`` for a z-test.
    ``detectable`` is the smallest bias the sample would have flagged with
    ``power`` (Cohen's w for a G-test, a mean shift for a z-test), ``None`` when
    the sample is too small to test at all.
    """

    test: TestId
    method: str
    n: int  # samples (hands, deals or matches)
    statistic: float | None
    df: int | None
    p_value: float | None
    categories: list[str] = field(default_factory=list)
    observed: list[float] = field(default_factory=list)
    expected: list[float] = field(default_factory=list)
    detectable: float | None = None
    detectable_unit: str = ""
    p_adjusted: float | None = None
    flagged: bool = False
    std_error: float | None = None  # of the observed mean (z-tests)

    @property
    def tested(self) -> bool:
        return self.p_value is not None

    def to_json(self) -> dict[str, Any]:
        return {"test": list(self.test), "method": self.method, "n": self.n,
                "statistic": self.statistic, "df": self.df, "p_value": self.p_value,
                "p_adjusted": self.p_adjusted, "flagged": self.flagged,
                "detectable": self.detectable, "detectable_unit": self.detectable_unit,
                "categories": self.categories, "observed": self.observed,
                "expected": self.expected, "std_error": self.std_error}



def _sorted_refs(counts: dict[Any, int]) -> list[Any]:
    return sorted(counts, key=repr)


def _g_test(test: TestId, counts: dict[tuple[Any, Value], int]) -> StatResult:
    from scipy import stats
    refs: Counter[Any] = Counter()
    observed: Counter[Value] = Counter()
    for (ref, value), n in counts.items():
        refs[ref] += n
        observed[value] += n
    expected: Counter[Value] = Counter()
    order: list[Value] = []
    for ref in _sorted_refs(refs):
        for value in ref.order():
            if value not in expected:
                order.append(value)
            expected[value] += refs[ref] * ref.pmf()[value]
    n = sum(refs.values())
    impossible = [v for v in observed if v not in expected]
    if impossible:
        return StatResult(test, "G-test", n, math.inf, None, 0.0,
                          [str(v) for v in impossible], [observed[v] for v in impossible],
                          [0.0] * len(impossible))
    bins = _merge_bins(order, expected)
    cats, obs, exp = [], [], []
    for group in bins:
        cats.append(str(group[0]) if len(group) == 1 else f"{group[0]}…{group[-1]}")
        obs.append(float(sum(observed[v] for v in group)))
        exp.append(sum(expected[v] for v in group))
    if len(bins) < 2:
        return StatResult(test, "G-test", n, None, None, None, cats, obs, exp)
    total = sum(exp)
    exp = [e * n / total for e in exp]  # rounding: scipy wants equal totals
    g, p = stats.power_divergence(obs, exp, lambda_="log-likelihood")
    return StatResult(test, "G-test", n, float(g), len(bins) - 1, float(p), cats, obs, exp)


def _merge_bins(order: Sequence[Value], expected: Counter[Value]) -> list[list[Value]]:
    """Adjacent categories merged (in ``order``) until each bin expects ``MIN_EXPECTED``."""
    bins: list[list[Value]] = []
    current: list[Value] = []
    acc = 0.0
    for v in order:
        current.append(v)
        acc += expected[v]
        if acc >= MIN_EXPECTED:
            bins.append(current)
            current, acc = [], 0.0
    if current:
        if bins:
            bins[-1].extend(current)
        else:
            bins.append(current)
    return bins


def _mean_test(test: TestId, strata: list[tuple[Any, int, int]]) -> StatResult:
    """``strata``: (reference, observations, sum of their values) per reference."""
    from scipy import stats
    n = units = 0
    observed = expected = variance = 0.0
    for ref, k, total in sorted(strata, key=lambda x: repr(x[0])):
        n += k
        units += k * ref.units
        observed += total
        expected += k * ref.mean
        variance += k * ref.variance
    if n < 2 or variance <= 0:
        return StatResult(test, "z-test of the mean", n, None, None, None,
                          ["mean"], [observed / max(units, 1)], [expected / max(units, 1)])
    z = (observed - expected) / math.sqrt(variance)
    return StatResult(test, "z-test of the mean", n, z, None, float(2 * stats.norm.sf(abs(z))),
                      ["mean per hand"], [observed / units], [expected / units],
                      std_error=math.sqrt(variance) / units)


def _paired_test(test: TestId, counts: dict[tuple[Any, ...], int],
                 sums: Counter[tuple[Any, ...]]) -> StatResult:
    from scipy import stats
    n = 0
    observed = expected = variance = 0.0
    for (ref,), k in sorted(counts.items(), key=lambda kv: repr(kv[0])):
        n += k
        observed += sums[("paired-x", test, ref)] / ref.ka - sums[("paired-y", test, ref)] / ref.kb
        expected += k * ref.mean
        variance += k * ref.variance
    if n < 2 or variance <= 0:
        return StatResult(test, "paired z-test", n, None, None, None, ["difference"],
                          [observed / max(n, 1)], [expected / max(n, 1)])
    z = (observed - expected) / math.sqrt(variance)
    return StatResult(test, "paired z-test", n, z, None, float(2 * stats.norm.sf(abs(z))),
                      ["mean difference"], [observed / n], [expected / n],
                      std_error=math.sqrt(variance) / n)



__all__ = ["MIN_EXPECTED", "StatResult"]
