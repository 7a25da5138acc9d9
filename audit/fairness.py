"""Fairness statistics: observed deals against their exact distribution under a uniform shuffle.

This module knows no rules and no cards. It knows *draws*: ``draws`` items taken at
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

import functools
import math
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import product
from typing import Any

# scipy (the distributions of the test statistics: chi-square, noncentral chi-square, normal)
# is imported where a test is computed, so a worker that only tallies never loads it.

Value = Hashable
TestId = tuple[str, ...]
MIN_EXPECTED = 5.0  # a G-test category expects at least this many (merged until it does)
DEFAULT_ALPHA = 0.05
DEFAULT_POWER = 0.8


# ------------------------------------------------------------------ exact distributions --

def _pmf_from_counts(ways: dict[Any, int], total: int) -> dict[Any, float]:
    return {k: float(Fraction(w, total)) for k, w in ways.items() if w}


@dataclass(frozen=True, slots=True)
class DrawSum:
    """The sum of the values of ``draws`` items drawn without replacement.

    ``population`` is ``((value, how many items carry it), ...)``. With two values
    (1 and 0) this is the hypergeometric distribution. ``units`` is how many
    sampling units (hands) one draw stands for, so a mean shift is quoted per unit.

    >>> trumps = DrawSum(((1, 13), (0, 39)), 13)   # a suit's cards in a 13-card hand
    >>> round(trumps.pmf()[0], 5), trumps.mean
    (0.01279, 3.25)
    """

    population: tuple[tuple[int, int], ...]
    draws: int
    units: int = 1

    @property
    def size(self) -> int:
        return sum(c for _, c in self.population)

    @property
    def mean(self) -> float:
        return self.draws * self._item_mean

    @property
    def _item_mean(self) -> float:
        return sum(v * c for v, c in self.population) / self.size

    @property
    def _item_variance(self) -> float:
        m = self._item_mean
        return sum(c * (v - m) ** 2 for v, c in self.population) / self.size

    @property
    def variance(self) -> float:
        n, big = self.draws, self.size
        return n * self._item_variance * (big - n) / (big - 1) if big > 1 else 0.0

    def covariance(self, other_draws: int) -> float:
        """The covariance of this draw's sum with the sum of ``other_draws`` further,
        disjoint items from the same population."""
        big = self.size
        return -self.draws * other_draws * self._item_variance / (big - 1)

    def pmf(self) -> dict[int, float]:
        return _draw_sum_pmf(self.population, self.draws)

    def order(self) -> list[int]:
        return sorted(self.pmf())


@functools.lru_cache(maxsize=256)
def _draw_sum_pmf(population: tuple[tuple[int, int], ...], draws: int) -> dict[int, float]:
    # ways[(taken, total)]: the number of ways to take ``taken`` items summing to ``total``
    ways: dict[tuple[int, int], int] = {(0, 0): 1}
    for value, count in population:
        nxt: Counter[tuple[int, int]] = Counter()
        for (taken, total), w in ways.items():
            for k in range(min(count, draws - taken) + 1):
                nxt[(taken + k, total + k * value)] += w * math.comb(count, k)
        ways = dict(nxt)
    size = sum(c for _, c in population)
    by_sum: Counter[int] = Counter()
    for (taken, total), w in ways.items():
        if taken == draws:
            by_sum[total] += w
    return _pmf_from_counts(dict(sorted(by_sum.items())), math.comb(size, draws))


@functools.lru_cache(maxsize=64)
def _class_counts(class_sizes: tuple[int, ...], draws: int) -> dict[tuple[int, ...], int]:
    """How many ways each vector of per-class counts arises (multivariate hypergeometric)."""
    out: dict[tuple[int, ...], int] = {}
    for counts in product(*(range(min(s, draws) + 1) for s in class_sizes)):
        if sum(counts) == draws:
            out[counts] = math.prod(math.comb(s, k) for s, k in zip(class_sizes, counts,
                                                                     strict=True))
    return out


@dataclass(frozen=True, slots=True)
class DrawPattern:
    """The class counts of a draw, sorted from the largest: e.g. ``"4-3-3-3"``.

    >>> p = DrawPattern((13, 13, 13, 13), 13).pmf()
    >>> round(p["4-4-3-2"], 4), round(p["4-3-3-3"], 4), len(p)
    (0.2155, 0.1054, 39)
    """

    class_sizes: tuple[int, ...]
    draws: int
    units: int = 1

    def pmf(self) -> dict[str, float]:
        return _pattern_pmf(self.class_sizes, self.draws)

    def order(self) -> list[str]:
        """Most likely first (so the rare patterns are the ones merged together)."""
        pmf = self.pmf()
        return sorted(pmf, key=lambda k: (-pmf[k], k))


@functools.lru_cache(maxsize=32)
def _pattern_pmf(class_sizes: tuple[int, ...], draws: int) -> dict[str, float]:
    ways: Counter[str] = Counter()
    for counts, w in _class_counts(class_sizes, draws).items():
        ways[pattern_name(counts)] += w
    return _pmf_from_counts(dict(ways), math.comb(sum(class_sizes), draws))


def pattern_name(counts: Iterable[int]) -> str:
    """The pattern of class counts, largest first.

    >>> pattern_name([3, 5, 0, 5])
    '5-5-3-0'
    """
    return "-".join(str(c) for c in sorted(counts, reverse=True))


@dataclass(frozen=True, slots=True)
class DrawEmpty:
    """How many classes a draw leaves empty (voids, for suits in a hand).

    >>> {k: round(v, 4) for k, v in DrawEmpty((13, 13, 13, 13), 13).pmf().items()}
    {0: 0.9489, 1: 0.051, 2: 0.0001, 3: 0.0}
    """

    class_sizes: tuple[int, ...]
    draws: int
    units: int = 1

    def pmf(self) -> dict[int, float]:
        return _empty_pmf(self.class_sizes, self.draws)

    def order(self) -> list[int]:
        return sorted(self.pmf())

    @property
    def mean(self) -> float:
        return sum(k * p for k, p in self.pmf().items())

    @property
    def variance(self) -> float:
        m = self.mean
        return sum(p * (k - m) ** 2 for k, p in self.pmf().items())


@functools.lru_cache(maxsize=32)
def _empty_pmf(class_sizes: tuple[int, ...], draws: int) -> dict[int, float]:
    ways: Counter[int] = Counter()
    for counts, w in _class_counts(class_sizes, draws).items():
        ways[sum(1 for c in counts if c == 0)] += w
    return _pmf_from_counts(dict(sorted(ways.items())), math.comb(sum(class_sizes), draws))


@dataclass(frozen=True, slots=True)
class Uniform:
    """Every category equally likely (a card dealt last, a seat drawn to deal first).

    >>> Uniform(("a", "b")).pmf()
    {'a': 0.5, 'b': 0.5}
    """

    categories: tuple[Value, ...]
    units: int = 1

    def pmf(self) -> dict[Value, float]:
        p = 1 / len(self.categories)
        return dict.fromkeys(self.categories, p)

    def order(self) -> list[Value]:
        return list(self.categories)


@dataclass(frozen=True, slots=True)
class PairedDraws:
    """Two disjoint draws from one population: ``a`` items standing for ``ka`` units and
    ``b`` items for ``kb`` units; the statistic is ``sum_a / ka - sum_b / kb``, the
    difference of the per-unit means (e.g. points per computer hand minus points per
    human hand, in one deal).

    >>> d = PairedDraws(((4, 4), (3, 4), (2, 4), (1, 4), (0, 36)), 13, 1, 13, 1)
    >>> d.mean, round(d.variance, 3)   # two hands of one deal: 2V + 2V/3
    (0.0, 45.49)
    """

    population: tuple[tuple[int, int], ...]
    a: int
    ka: int
    b: int
    kb: int

    @property
    def mean(self) -> float:
        return DrawSum(self.population, self.a).mean / self.ka - \
            DrawSum(self.population, self.b).mean / self.kb

    @property
    def variance(self) -> float:
        x, y = DrawSum(self.population, self.a), DrawSum(self.population, self.b)
        return (x.variance / self.ka ** 2 + y.variance / self.kb ** 2
                - 2 * x.covariance(self.b) / (self.ka * self.kb))


Reference = DrawSum | DrawPattern | DrawEmpty | Uniform


# ------------------------------------------------------------------ tests --

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


class Tally:
    """Integer counts of observations, per test and per reference distribution.

    Every observation names its test (a tuple of labels, e.g. ``("hcp", "seat",
    "dealer")``) and the exact distribution it follows under a uniform shuffle,
    which may differ from one observation to the next (a mixture is fine: the
    expected counts add up). Tallies :meth:`merge` by adding counts, so the result
    does not depend on how the work was split.
    """

    __slots__ = ("counts", "sums")

    def __init__(self) -> None:
        self.counts: Counter[tuple[Any, ...]] = Counter()
        self.sums: Counter[tuple[Any, ...]] = Counter()  # integer sums for z-tests

    def fit(self, test: TestId, ref: Reference, value: Value) -> None:
        """One observation for a G-test of its distribution."""
        self.counts[("fit", test, ref, value)] += 1

    def fit_and_mean(self, test: TestId, ref: DrawSum | DrawEmpty, value: int) -> None:
        """One observation for both a G-test and a z-test of the mean (one count kept)."""
        self.counts[("fit+mean", test, ref, value)] += 1

    def mean(self, test: TestId, ref: DrawSum | DrawEmpty, value: int) -> None:
        """One observation for a z-test of the mean (``value`` a whole number)."""
        self.counts[("mean", test, ref)] += 1
        self.sums[("mean", test, ref)] += value

    def paired(self, test: TestId, ref: PairedDraws, x: int, y: int) -> None:
        """One pair of sums (``x`` of the ``a`` items, ``y`` of the ``b`` items)."""
        self.counts[("paired", test, ref)] += 1
        self.sums[("paired-x", test, ref)] += x
        self.sums[("paired-y", test, ref)] += y

    def merge(self, other: Tally) -> Tally:
        self.counts.update(other.counts)
        self.sums.update(other.sums)
        return self

    def __bool__(self) -> bool:
        return bool(self.counts)

    def tests(self) -> list[tuple[str, TestId]]:
        """The ``(kind, test)`` pairs observed: kind is fit, mean or paired."""
        return sorted({(k[0], k[1]) for k in self.counts}, key=repr)

    def results(self, alpha: float = DEFAULT_ALPHA, power: float = DEFAULT_POWER,
                select: Callable[[TestId], bool] | None = None,
                detectable: bool = True) -> list[StatResult]:
        """Every test (or those ``select`` keeps), Holm-corrected together at
        family-wise level ``alpha``; ``detectable=False`` skips the power calculation."""
        groups: dict[tuple[str, TestId], dict[Any, int]] = {}
        for key, n in self.counts.items():
            if select is not None and not select(key[1]):
                continue
            groups.setdefault((key[0], key[1]), {})[key[2:]] = n
        out: list[StatResult] = []
        for (kind, test), counts in sorted(groups.items(), key=lambda kv: repr(kv[0])):
            if kind in ("fit", "fit+mean"):
                out.append(_g_test(test, counts))
            if kind == "fit+mean":
                strata: Counter[Any] = Counter()
                totals: Counter[Any] = Counter()
                for (ref, value), k in counts.items():
                    strata[ref] += k
                    totals[ref] += k * value
                out.append(_mean_test(test, [(r, k, totals[r]) for r, k in strata.items()]))
            elif kind == "mean":
                out.append(_mean_test(test, [(ref, k, self.sums[("mean", test, ref)])
                                             for (ref,), k in counts.items()]))
            elif kind == "paired":
                out.append(_paired_test(test, counts, self.sums))
        holm(out, alpha)
        m = sum(1 for r in out if r.tested)
        for r in out:
            if r.tested and detectable:
                _detectable(r, alpha / max(m, 1), power)
        return out


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


def holm(results: Sequence[StatResult], alpha: float = DEFAULT_ALPHA) -> None:
    """Holm's step-down correction: sets ``p_adjusted`` and ``flagged`` on every tested result.

    (Six lines; statsmodels, which has it, is a large dependency for this alone.)

    >>> rs = [StatResult(("t", str(i)), "G-test", 10, 1.0, 1, p) for i, p in
    ...       enumerate([0.01, 0.04, 0.03, 0.005])]
    >>> holm(rs, 0.05); [(r.p_adjusted, r.flagged) for r in rs]
    [(0.03, True), (0.06, False), (0.06, False), (0.02, True)]
    """
    tested = sorted((r for r in results if r.p_value is not None), key=lambda r: r.p_value)
    m = len(tested)
    running = 0.0
    for i, r in enumerate(tested):
        running = max(running, min(1.0, (m - i) * r.p_value))  # type: ignore[operator]
        r.p_adjusted = running
        r.flagged = running <= alpha


def detectable_w(n: int, df: int, alpha: float, power: float = DEFAULT_POWER) -> float:
    """The smallest Cohen's w a G-test (or chi-square test) of ``n`` samples with ``df``
    degrees of freedom flags with probability ``power`` at level ``alpha``
    (noncentral chi-square with noncentrality ``n * w**2``).

    >>> round(detectable_w(1000, 3, 0.05), 4)     # Cohen's tables: lambda 10.90, w 0.104
    0.1044
    """
    from scipy import optimize, stats
    crit = stats.chi2.isf(alpha, df)

    def gap(nc: float) -> float:
        return float(stats.ncx2.sf(crit, df, nc)) - power

    hi = 1.0
    while gap(hi) < 0:
        hi *= 2
    return math.sqrt(optimize.brentq(gap, 1e-9, hi) / n)


def detectable_shift(sd_of_total: float, units: float, alpha: float,
                     power: float = DEFAULT_POWER) -> float:
    """The smallest shift of the mean per unit a two-sided z-test flags with ``power``.

    >>> round(detectable_shift(10.0, 100, 0.05), 4)
    0.2802
    """
    from scipy import stats
    z = stats.norm.isf(alpha / 2) + stats.norm.isf(1 - power)
    return float(z * sd_of_total / units)


def _detectable(r: StatResult, alpha: float, power: float) -> None:
    if r.method == "G-test":
        if r.df:
            r.detectable = detectable_w(r.n, r.df, alpha, power)
            r.detectable_unit = "Cohen's w"
        return
    # the standard error of the mean is the sd of the total over the units
    r.detectable = detectable_shift(r.std_error or 0.0, 1, alpha, power)
    r.detectable_unit = ("mean shift per hand" if r.method.startswith("z-test")
                         else "difference per deal")


__all__ = [
    "DEFAULT_ALPHA",
    "DEFAULT_POWER",
    "DrawEmpty",
    "DrawPattern",
    "DrawSum",
    "PairedDraws",
    "Reference",
    "StatResult",
    "Tally",
    "Uniform",
    "detectable_shift",
    "detectable_w",
    "holm",
    "pattern_name",
]
