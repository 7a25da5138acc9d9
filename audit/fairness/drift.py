"""Splits by time: the drift of deal quality over the archive's order, and the luck each
player carries from one of their matches to the next.

Read from the matches' rows (:func:`tarneeb.audit.fairness.state.decode`): only matches
with a place in a season (its series and index) have an order; the archive's order is
the seasons' (by their root) and within each the leaves'. Each deal's value is the
four seats' points, ``ref`` the distribution of one hand's.

* **Drift** (:func:`drift_tests`): a series per deal, standardised by its exact mean
  and variance: seats 1 and 3's points (their side's luck) and the computer seats'
  points (in deals with both labels). The statistic is the largest absolute CUSUM of the
  series about its own mean, over ``√n``: the largest excursion of the sums' bridge.
  Under a fair shuffle the deals are independent and the bridge tends to a Brownian
  bridge, whose largest absolute value has Kolmogorov's distribution; a walk in discrete
  steps reaches less than the continuous bridge, so the tail (``scipy.special.
  kolmogorov``) errs on the safe side. A level shift of the whole archive is the other
  tests' business: this one looks at a change within it (a platform that starts to
  favour, or stops).
* **Serial balance** (:func:`balance_test`): each named player's matches in order, their
  side's luck in each (its points against their exact mean, over their exact standard
  deviation), and the sum over every player of the products of consecutive matches'
  luck, over ``√pairs``: a platform that makes up for a bad match with a good one (or
  lets a streak run) moves it. One match's luck counts for its four players, so the
  products are not independent: the p-value is Monte Carlo, each match's luck drawn again
  from its exact distribution (the ``n``-fold sum of a side's points), by Besag and
  Clifford's rule, two-sided.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping
from typing import Any

from tarneeb.audit.fairness.exact import DrawSum
from tarneeb.audit.fairness.tests import StatResult, sequential_p

CUSUM = "CUSUM (Kolmogorov tail)"
BALANCE = "serial balance"
MIN_DRIFT = 200  # deals a drift series needs
MIN_BALANCE = 30  # pairs of a player's consecutive matches the balance test needs
BALANCE_MORE = 20_000  # simulated samples at most (the least p-value 5e-5)


def cusum(x: Any) -> tuple[float, int]:
    """The largest absolute CUSUM of standardised ``x`` about its mean, over ``√n``, and
    where it is reached (the deals before it).

    >>> cusum([1.0, 1.0, -1.0, -1.0])
    (1.0, 2)
    """
    import numpy as np
    x = np.asarray(x, dtype=float)
    n = len(x)
    bridge = np.cumsum(x) - np.arange(1, n + 1) / n * x.sum()
    at = int(np.argmax(np.abs(bridge)))
    return float(abs(bridge[at]) / math.sqrt(n)), at + 1


def _placed(d: Mapping[str, Any]) -> Any:
    """The deals of matches with a place, in the archive's order."""
    import numpy as np
    return np.flatnonzero(d["index"][d["match"]] >= 0) if len(d["match"]) else \
        np.zeros(0, dtype=np.int64)


def drift_tests(measure: str, ref: DrawSum, d: Mapping[str, Any]) -> list[StatResult]:
    """The drift of seats 1 and 3's points and of the computer seats' points."""
    import numpy as np
    from scipy import special
    at = _placed(d)
    values = d["values"][at]
    var, cov = ref.variance, ref.covariance(ref.draws)
    out = []
    team = (values[:, 0] + values[:, 2] - 2 * ref.mean) / math.sqrt(2 * var + 2 * cov)
    computer = d["computer"][d["match"][at]] if len(at) else np.zeros(0, dtype=np.int64)
    k = np.bitwise_count(np.where(computer > 0, computer, 0).astype(np.uint8)).astype(float)
    mixed = (computer > 0) & (computer < 15)
    held = sum(np.where(computer >> s & 1, values[:, s], 0) for s in range(4))
    label = (held - k * ref.mean)[mixed] / np.sqrt((k * var + k * (k - 1) * cov)[mixed])
    for group, x in (("seats 1+3", team), ("computer seats", label)):
        r = StatResult((measure, "archive order", group), CUSUM, len(x), None, None, None,
                       ["largest CUSUM, standardised"], [], [0.0])
        if len(x) >= MIN_DRIFT:
            stat, where = cusum(x)
            r.statistic, r.p_value = stat, float(min(1.0, special.kolmogorov(stat)))
            r.observed = [stat]
            r.categories = [f"largest CUSUM, standardised (after deal {where:,})"]
            # a step of delta standard deviations halfway gives a bridge of delta·n/4:
            # the CUSUM's scale of a step (the power sentence's unit)
            r.std_error = 4 / math.sqrt(len(x))
        out.append(r)
    return out


def balance_test(measure: str, ref: DrawSum, d: Mapping[str, Any]) -> StatResult:
    """Each player's side's luck in consecutive matches (see the module)."""
    import numpy as np

    from tarneeb.audit.fairness.tests import _k_fold
    team_ref = DrawSum(ref.population, 2 * ref.draws, 2)
    deals = d["deals"]
    ms = len(deals)
    totals = np.zeros(ms)
    if len(d["match"]):
        np.add.at(totals, d["match"], d["values"][:, 0] + d["values"][:, 2])
    scale = np.sqrt(np.maximum(deals, 1) * team_ref.variance)
    z = (totals - deals * team_ref.mean) / scale
    first, second, sign = [], [], []
    last: dict[str, tuple[int, int]] = {}
    for m in range(ms):
        if d["index"][m] < 0 or not deals[m]:
            continue
        for seat, name in enumerate(d["names"][m]):
            side = 1 if seat % 2 == 0 else -1
            if name in last:
                pm, ps = last[name]
                first.append(pm)
                second.append(m)
                sign.append(ps * side)
            last[name] = (m, side)
    pairs = len(first)
    test = (measure, "successive matches", "each player's side")
    r = StatResult(test, BALANCE, pairs, None, None, None,
                   ["lag-1 covariance of a player's side's luck"], [], [0.0])
    if pairs < MIN_BALANCE:
        return r
    f, s, g = (np.array(a, dtype=np.int64) for a in (first, second, sign))
    stat = float((g * z[f] * z[s]).sum()) / math.sqrt(pairs)
    r.statistic, r.observed, r.std_error = stat, [stat / math.sqrt(pairs)], 1 / math.sqrt(pairs)
    used = np.union1d(f, s)
    pmf = team_ref.pmf()
    lo = min(pmf)
    table = tuple(sorted(pmf.items()))
    cdfs = {int(n): np.cumsum(_k_fold(table, int(n))) for n in np.unique(deals[used])}
    seed = hashlib.sha256(repr((test, f.tolist(), s.tolist(), g.tolist(),
                                totals.tolist())).encode()).digest()
    rng = np.random.default_rng(int.from_bytes(seed[:8], "big"))
    cut = abs(stat) * math.sqrt(pairs) * (1 - 1e-9) - 1e-12
    rows = max(1, (1 << 20) // ms)

    def exceed(draws: int) -> Any:
        out = []
        for done in range(0, draws, rows):
            m = min(rows, draws - done)
            sims = np.zeros((m, ms))
            for n, cdf in cdfs.items():
                at = used[deals[used] == n]
                drawn = np.searchsorted(cdf, rng.random((m, len(at))) * cdf[-1], side="right")
                sims[:, at] = (np.minimum(drawn, len(cdf) - 1) + n * lo - n * team_ref.mean) \
                    / math.sqrt(n * team_ref.variance)
            out.append(np.abs((g * sims[:, f] * sims[:, s]).sum(axis=1)) >= cut)
        return np.concatenate(out)

    r.p_value, r.p_method = sequential_p(exceed, BALANCE_MORE), "Monte Carlo"
    return r


__all__ = ["BALANCE", "CUSUM", "MIN_BALANCE", "MIN_DRIFT", "balance_test", "cusum",
           "drift_tests"]
