"""Observations grouped by test: integer counts that merge by addition, then every result.

Counts made on different processes or machines merge into exactly the same result,
whatever the order; :meth:`Tally.results` then runs every test, corrects them together
and computes each one's power.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from tarneeb.audit.fairness.correction import DEFAULT_ALPHA, holm
from tarneeb.audit.fairness.exact import DrawEmpty, DrawSum, PairedDraws, Reference, TestId, Value
from tarneeb.audit.fairness.power import DEFAULT_POWER, _detectable
from tarneeb.audit.fairness.tests import StatResult, _g_test, _mean_test, _paired_test


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



__all__ = ["Tally"]
