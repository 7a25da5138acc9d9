"""The tests: a G-test of counts against exact expected counts, z-tests of means.

Each turns the counts of a :class:`~tarneeb.audit.fairness.tally.Tally` for one test into a
:class:`StatResult`. scipy (the distributions of the test statistics) is imported where a
test is computed, so a worker that only tallies never loads it.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tarneeb.audit.fairness.exact import TestId, Value

MIN_EXPECTED = 5.0  # a G-test category expects at least this many (merged until it does)
# a G-test whose smallest bin expects fewer than this gets a Monte Carlo p-value: the
# chi-square approximation is liberal on sparse bins (a 52-card test at 5 expected per
# card flags 8 % of fair samples at a nominal 5 %)
MC_BELOW = 10.0
EXACT_UP_TO = 2_000  # a z-test of this many observations or fewer gets its exact p-value
MC_DRAWS = 500  # first round of simulated samples
MC_HEAD = 50  # of which first looked at (see monte_carlo_p)
MC_UP_TO = 20_000  # observations: a larger sample's bins are dense enough for the chi-square
SMALL_STRATUM = 2_000  # a stratum this small is drawn one observation at a time (faster)
MC_MORE = 100_000  # simulated at most, until MC_HITS samples reach the statistic
MC_HITS = 10


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
    unit_noncentrality: float | None = None  # joint tests: that of a shift of 1 per hand
    p_method: str = "asymptotic"  # or "Monte Carlo" (a G-test of sparse bins)
    share: bool = False  # a z-test of a 0/1 value: observed, expected and detectable in per cent
    family: str = ""  # the threat it belongs to (set by the correction: see correction.py)

    @property
    def tested(self) -> bool:
        return self.p_value is not None

    def to_json(self) -> dict[str, Any]:
        return {"test": list(self.test), "method": self.method, "n": self.n,
                "statistic": self.statistic, "df": self.df, "p_value": self.p_value,
                "p_adjusted": self.p_adjusted, "flagged": self.flagged,
                "detectable": self.detectable, "detectable_unit": self.detectable_unit,
                "categories": self.categories, "observed": self.observed,
                "expected": self.expected, "std_error": self.std_error,
                "p_method": self.p_method, "family": self.family}



def _sorted_refs(counts: dict[Any, int]) -> list[Any]:
    return sorted(counts, key=repr)


def _g_test(test: TestId, counts: dict[tuple[Any, Value], int]) -> StatResult:
    from scipy import special
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
    cats: list[str] = []
    obs: list[float] = []
    exp: list[float] = []
    for group in bins:
        cats.append(str(group[0]) if len(group) == 1 else f"{group[0]}…{group[-1]}")
        obs.append(float(sum(observed[v] for v in group)))
        exp.append(sum(expected[v] for v in group))
    if len(bins) < 2:
        return StatResult(test, "G-test", n, None, None, None, cats, obs, exp)
    total = sum(exp)
    exp = [e * n / total for e in exp]  # rounding: scipy wants equal totals
    g = 2 * sum(o * math.log(o / e) for o, e in zip(obs, exp, strict=True) if o)
    p = special.chdtrc(len(bins) - 1, g)  # the chi-square tail: scipy.stats, without its cost
    out = StatResult(test, "G-test", n, float(g), len(bins) - 1, float(p), cats, obs, exp)
    if min(exp) < MC_BELOW and n <= MC_UP_TO:
        strata = []
        for ref in _sorted_refs(refs):
            pmf = ref.pmf()
            strata.append((refs[ref], [sum(pmf.get(v, 0.0) for v in group) for group in bins]))
        out.p_value = monte_carlo_p(float(g), exp, strata, repr((test, sorted(
            counts.items(), key=repr))).encode())
        out.p_method = "Monte Carlo"
    return out


def monte_carlo_p(g: float, expected: Sequence[float],
                  strata: Sequence[tuple[int, Sequence[float]]], seed: bytes) -> float:
    """The probability that a sample drawn under the null has a G statistic at least ``g``.

    Samples are simulated exactly as the observations arose: per stratum (a reference
    distribution), its number of observations drawn from its bin probabilities, the
    strata added (a mixture of multinomials is not one multinomial). The simulation is
    seeded from ``seed`` (the test and its counts), so the p-value is the same on every
    run given the data. The p-value is Besag and Clifford's sequential one
    (:func:`sequential_p`).
    """
    import hashlib

    import numpy as np
    rng = np.random.default_rng(int.from_bytes(hashlib.sha256(seed).digest()[:8], "big"))
    exp = np.asarray(expected)

    n = sum(k for k, _ in strata)
    xlogx = np.zeros(n + 1)
    xlogx[1:] = np.arange(1, n + 1) * np.log(np.arange(1, n + 1))
    log_exp = np.log(exp)
    cut = g / 2 - 1e-9 * max(1.0, g)

    bins = len(exp)
    # the batch: per stratum its samples' counts, or its uniforms and cumulative
    # probabilities (binned as they are looked at), drawn so far; the samples made so far
    # (the batch's full shape); how many
    batch: dict[str, Any] = {"raw": [], "sims": np.zeros((0, bins), dtype=np.int64),
                             "done": 0, "first": True}
    # one stratum's random numbers are drawn as they are looked at: one stream, read in
    # order, gives the same numbers however it is cut (uniforms; a multinomial draw a
    # sample); with more, the batch's are drawn at once, stratum by stratum, as ever
    lazy = len(strata) == 1

    def draw(rows: int) -> list[tuple[Any, Any]]:  # every stratum's numbers, in turn
        raw: list[tuple[Any, Any]] = []
        for k, probs in strata:
            p = np.asarray(probs, dtype=float)
            if k > SMALL_STRATUM:
                raw.append((None, rng.multinomial(k, p / p.sum(), size=rows)))
            else:
                raw.append((np.cumsum(p / p.sum()), rng.random((rows, k))))
        return raw

    def exceed(draws: int) -> Any:
        if batch["done"] == len(batch["sims"]):  # a new batch (the first: all of it)
            rows = MC_DRAWS if batch["first"] and draws == MC_HEAD else draws
            batch.update(raw=[] if lazy else draw(rows), done=0, first=False,
                         sims=np.zeros((rows, bins), dtype=np.int64))
        lo, hi, sims = batch["done"], batch["done"] + draws, batch["sims"]
        for cdf, values in draw(draws) if lazy else batch["raw"]:
            part = values if lazy else values[lo:hi]
            sims[lo:hi] += part if cdf is None else _bin_counts(cdf, part)
        batch["done"] = hi
        # G / 2 of each sample, over the whole batch's rows (those not made yet are 0 and
        # unread): each row's value is what the batch at once gives, to the last bit
        half_g = xlogx[sims].sum(axis=1) - sims @ log_exp
        return half_g[lo:hi] >= cut

    # the first batch is looked at after MC_HEAD samples (the rest of its numbers drawn
    # or binned only if the rule goes on): most fair tests stop there
    return sequential_p(exceed, head=MC_HEAD)


def sequential_p(exceed: Callable[[int], Any], most: int = MC_MORE,
                 head: int = MC_DRAWS) -> float:
    """Besag and Clifford's (1991) sequential Monte Carlo p-value. ``exceed(m)`` simulates
    ``m`` more samples under the null, independent of all before, and says of each in
    order whether it reaches the observed statistic. Samples are drawn until the
    ``MC_HITS``-th reaches it, at sample ``L``: the p-value is ``MC_HITS / L``; or, if
    fewer (``h``) reach it in ``most`` samples, ``(h + 1) / (most + 1)``. Both are
    valid (``P(p <= u) <= u`` under the null, for every ``u``): the count is taken at the
    exact sample where the rule stops, not at the end of the batch it was simulated in
    (the batches, 500 then twice as many each time, are only for speed). ``head``: the
    first batch asked for in two parts, its first ``head`` samples and the rest, so that
    a p-value the rule finds among them costs only those; for an ``exceed`` whose samples
    are the same however they are asked for (drawn one after another from one stream),
    the p-value is the same as with one batch."""
    import numpy as np
    seen = found = 0
    step = MC_DRAWS
    while seen < most:
        step = min(step, most - seen)
        for part in (head, step - head) if seen == 0 and 0 < head < step else (step,):
            hit = np.flatnonzero(np.asarray(exceed(part)))
            if found + len(hit) >= MC_HITS:
                return MC_HITS / (seen + int(hit[MC_HITS - found - 1]) + 1)
            found += len(hit)
            seen += part
        step *= 2
    return (found + 1) / (most + 1)


CELL_BITS = (12, 16)  # [0, 1) cut into 2**bits cells to look a draw's bin up


def _bin_counts(cdf: Any, draws: Any) -> Any:
    """Per row of ``draws`` (uniforms in [0, 1)), how many fall in each bin of ``cdf``:
    the bin of ``u`` is the number of the cumulative probabilities at most ``u`` (the last
    bin also takes any ``u`` past ``cdf[-1]``, which rounding can leave below 1).

    Looked up in a table, not searched: [0, 1) is cut into ``M`` equal cells (a power of
    two, so a draw's cell, ``⌊u·M⌋``, is exact); in a cell that no bin's end falls inside,
    every draw has the bin of the cell's lower edge, and in one that one end falls inside,
    that bin or the next, as the draw is below the end or not. The draws' bins are then
    counted per row (one ``bincount``). A cell with two ends inside it (two bins of
    probability under ``1/M``) takes a finer table, and failing that the rows are sorted
    and searched (:func:`_sorted_bin_counts`). The counts are those of each draw looked up
    by itself, to the last one."""
    import numpy as np

    rows, k = draws.shape
    ends = np.asarray(cdf[:-1], dtype=float)  # the upper end of every bin but the last
    bins = len(ends) + 1
    for bits in CELL_BITS if rows * k and draws.max() < 1.0 else ():  # in [0, 1)
        m = 1 << bits
        scaled = ends * m  # exact: a power of two
        cell = np.floor(scaled)
        inside = (scaled != cell) & (cell < m)  # an end strictly inside a cell of [0, 1)
        at = cell[inside].astype(np.int64)
        if len(at) != len(np.unique(at)):
            continue
        base = np.searchsorted(ends, np.arange(m) / m, side="right")  # ends <= lower edge
        edge = np.full(m, 2.0)  # no end inside: no draw reaches it
        edge[at] = ends[inside]
        where = (draws * m).astype(np.int64)
        which = base[where] + (draws >= edge[where])
        which += (bins * np.arange(rows, dtype=np.int64))[:, None]
        return np.bincount(which.ravel(), minlength=rows * bins).reshape(rows, bins)
    return _sorted_bin_counts(ends, draws)


def _sorted_bin_counts(ends: Any, draws: Any) -> Any:
    """:func:`_bin_counts` by sorting each row and a binary search of each row for each of
    the bins' upper ends (``ends``) at once."""
    import numpy as np

    rows, k = draws.shape
    ordered = np.sort(draws, axis=1).ravel()
    before = (k * np.arange(rows))[:, None] - 1  # where each row starts, less one
    below = np.zeros((rows, len(ends)), dtype=np.int64)  # draws < end, per row and end
    step = 1 << (k.bit_length() - 1) if k else 0
    while step:  # the largest count whose last draw is below the end, a bit at a time
        more = below + step
        less = np.take(ordered, before + np.minimum(more, k)) < ends
        below = np.where((more <= k) & less, more, below)
        step >>= 1
    upto = np.concatenate([below, np.full((rows, 1), k, dtype=np.int64)], axis=1)
    return np.diff(upto, axis=1, prepend=0)


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
    from scipy import special
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
    # a value that is 0 or 1 (the first dealer a computer seat): its mean is a share, said
    # in per cent, and its detectable bias in percentage points
    share = all(getattr(r, "population", ()) and {v for v, _ in r.population} <= {0, 1}
                and getattr(r, "draws", 0) == 1 for r, _, _ in strata)
    scale = 100.0 if share else 1.0
    out = StatResult(test, "z-test of the mean", n, z, None, float(2 * special.ndtr(-abs(z))),
                     ["share" if share else "mean per hand"], [scale * observed / units],
                     [scale * expected / units],
                     std_error=scale * math.sqrt(variance) / units, share=share)
    if n <= EXACT_UP_TO:
        out.p_value, out.p_method = exact_sum_p([(r, k) for r, k, _ in strata],
                                                round(observed)), "exact"
    return out


FFT_FROM = 64  # arrays this long and longer are convolved by FFT (direct is quadratic)


def convolve(a: Any, b: Any) -> Any:
    """The distribution of the sum of two independent whole-number variables, ``a`` and
    ``b`` their probabilities from their least values on. Short arrays directly; longer
    ones by FFT (scipy.fft, not scipy.signal, whose import costs seconds): cost
    ``n log n`` against ``n²``. The FFT's rounding is absolute, about 1e-16 of the
    largest probability per entry: the slightly negative entries it leaves in the far
    tails are set to 0, and a tail probability is right to about 1e-13 (absolute), far
    below any level a p-value is compared to."""
    import numpy as np
    if min(len(a), len(b)) < FFT_FROM:
        return np.convolve(a, b)
    from scipy import fft
    n = len(a) + len(b) - 1
    size = fft.next_fast_len(n, real=True)
    out = fft.irfft(fft.rfft(a, size) * fft.rfft(b, size), size)[:n]
    return np.clip(out, 0.0, None)


@functools.lru_cache(maxsize=64)
def _k_fold(pmf: tuple[tuple[int, float], ...], k: int) -> Any:
    """The distribution of the sum of ``k`` independent draws from ``pmf`` (value,
    probability), from its least value on: the k-fold convolution, by squaring (each
    product by :func:`convolve`). Kept for the next test of as many observations of the
    same reference (an audit's tests of one size, a calibration's many samples), which
    would compute the same array again."""
    import numpy as np
    lo = pmf[0][0]
    one = np.zeros(pmf[-1][0] - lo + 1)
    for v, p in pmf:
        one[v - lo] = p
    power = np.ones(1)
    while k:
        if k & 1:
            power = convolve(power, one)
        k >>= 1
        if k:
            one = convolve(one, one)
    power.flags.writeable = False
    return power


def exact_sum_p(strata: Sequence[tuple[Any, int]], total: int) -> float:
    """The exact two-sided p-value of the sum ``total`` of independent observations, ``k``
    of each reference (a pmf on whole numbers): twice the smaller tail, at most 1. The
    normal approximation is liberal in the tails of a skewed sum (voids: 5 % of hands)."""
    import numpy as np
    dist = np.ones(1)
    for ref, k in strata:
        pmf = ref.pmf()
        lo = min(pmf)
        dist = convolve(dist, _k_fold(tuple(sorted(pmf.items())), k))
        total -= lo * next(kk for r, kk in strata if r is ref)
    if total < 0 or total >= len(dist):
        return 0.0
    return float(min(1.0, 2 * min(dist[:total + 1].sum(), dist[total:].sum())))


def _paired_test(test: TestId, counts: dict[tuple[Any, ...], int],
                 sums: Counter[tuple[Any, ...]]) -> StatResult:
    from scipy import special
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
    return StatResult(test, "paired z-test", n, z, None, float(2 * special.ndtr(-abs(z))),
                      ["mean difference"], [observed / n], [expected / n],
                      std_error=math.sqrt(variance) / n)



__all__ = [
    "EXACT_UP_TO",
    "MC_BELOW",
    "MIN_EXPECTED",
    "StatResult",
    "bias_flagged",
    "describe_test",
    "exact_sum_p",
    "monte_carlo_p",
    "sequential_p",
]


def bias_flagged(fairness: dict[str, list[StatResult]]) -> list[str]:
    """The tests flagged after correction, as ``origin: measure by group``."""
    return [f"{origin}: {describe_test(r)}" for origin, rs in fairness.items() for r in rs
            if r.flagged]


def describe_test(r: StatResult) -> str:
    """A test in words.

    >>> describe_test(StatResult(("trumps", "seat", "dealer"), "G-test", 1, 0, 1, 1.0))
    'trumps, seat dealer (G-test)'
    """
    measure, by, group = (*r.test, "", "")[:3]
    where = "all deals" if by == "all" else f"{by} {group}"
    return f"{measure}, {where} ({r.method})"
