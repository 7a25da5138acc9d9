"""Where items land: the item × group table of random permutations (cards × positions).

Each sample (a deal) places every one of ``N`` items in one of a few groups of fixed
sizes (the 52 cards in the four hands, 13 each): a uniform permutation puts each item
in group ``g`` with probability ``size_g / N``, whatever the item. A biased shuffle
(one that leaves cards near where they started, or swaps each card with any other
instead of a later one) puts some items in some groups more often than that.

The **placement test** sums the samples' tables and compares the total with its
expectation ``n * size_g / N`` by Pearson's statistic ``X²``. One sample's table is a
random table with fixed margins (each item once, each group its size), whose
covariance is ``N / (N - 1)`` times the multinomial one; the sum of ``n`` independent
ones is, by the central limit theorem, normal with that covariance, so
``X² * (N - 1) / N`` is chi-square with ``(items - 1)(groups - 1)`` degrees of freedom
(153 for 52 cards in four hands). Its exact mean is that; simulated at 10 to 300
deals, its tail at 5 %, 1 % and 0.1 % is at or under nominal (conservative at 10
deals), so the test needs every cell to expect 5 (20 deals) and no more.

The detectable bias is given in the reader's unit: one item's share of one group, in
percentage points (the item's other groups making up for it in proportion, the other
items for the group): such a shift ``δ`` has noncentrality ``n δ² / (π (1 - π))``,
``π = size_g / N``, for the scaled statistic.

>>> import random
>>> rng = random.Random(4)
>>> cells = {}
>>> for _ in range(200):
...     deck = rng.sample(range(8), 8)
...     for pos, item in enumerate(deck):
...         cells[(pos % 2, item)] = cells.get((pos % 2, item), 0) + 1
>>> r = placement_test(("cards", "position", "a|b"), (4, 4), tuple("abcdefgh"), 200, cells)
>>> r.df, r.p_value > 0.01, r.detectable_unit
(7, True, '')
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from tarneeb.audit.fairness.exact import TestId
from tarneeb.audit.fairness.tests import MIN_EXPECTED, StatResult

PLACEMENT = "placement chi-square"
SHOWN = 8  # cells the result names (the furthest from expected, by standardised residual)


def placement_test(test: TestId, sizes: Sequence[int], items: Sequence[str], n: int,
                   cells: Mapping[tuple[int, int], int]) -> StatResult:
    """``cells[(group, item)]``: how many of the ``n`` samples placed ``item`` (its index
    in ``items``) in ``group`` (its index in ``sizes``, named by ``test``'s last label,
    joined by ``|``)."""
    from scipy import special
    groups = test[-1].split("|")
    big = sum(sizes)
    share = [s / big for s in sizes]
    result = StatResult(test, PLACEMENT, n, None, None, None)
    if n < 1 or big < 2 or min(share) * n < MIN_EXPECTED:
        return result
    x2 = 0.0
    cellwise: list[tuple[float, int, int, int]] = []
    for g, pi in enumerate(share):
        e = n * pi
        for i in range(len(items)):
            o = cells.get((g, i), 0)
            x2 += (o - e) ** 2 / e
            cellwise.append(((o - e) / math.sqrt(e * (1 - pi)), g, i, o))
    scaled = x2 * (big - 1) / big
    df = (len(items) - 1) * (len(sizes) - 1)
    result.statistic, result.df = scaled, df
    result.p_value = float(special.chdtrc(df, scaled))
    worst = sorted(cellwise, key=lambda c: (-abs(c[0]), c[1], c[2]))[:SHOWN]
    result.categories = [f"{items[i]} at {groups[g]}" for _, g, i, _ in worst]
    result.observed = [100 * o / n for _, _, _, o in worst]  # per cent of the samples
    result.expected = [100 * share[g] for _, g, _, _ in worst]
    # the standard error of one cell's share, in percentage points (the least precise)
    result.std_error = 100 * max(math.sqrt(p * (1 - p) / n) for p in share)
    result.unit_noncentrality = n / max(p * (1 - p) for p in share) / 100 ** 2
    return result


__all__ = ["PLACEMENT", "placement_test"]
