"""Power: the smallest bias each test would have detected, in the units a reader uses."""

from __future__ import annotations

import math

from tarneeb.audit.fairness.tests import StatResult

DEFAULT_POWER = 0.8


def detectable_w(n: int, df: int, alpha: float, power: float = DEFAULT_POWER) -> float:
    """The smallest Cohen's w a G-test (or chi-square test) of ``n`` samples with ``df``
    degrees of freedom flags with probability ``power`` at level ``alpha``
    (noncentral chi-square with noncentrality ``n * w**2``).

    >>> round(detectable_w(1000, 3, 0.05), 4)     # Cohen's tables: lambda 10.90, w 0.104
    0.1044
    """
    return math.sqrt(detectable_noncentrality(df, alpha, power) / n)


def detectable_shift(sd_of_total: float, units: float, alpha: float,
                     power: float = DEFAULT_POWER) -> float:
    """The smallest shift of the mean per unit a two-sided z-test flags with ``power``.

    >>> round(detectable_shift(10.0, 100, 0.05), 4)
    0.2802
    """
    from scipy import special  # the normal quantiles; scipy.stats costs an audit a second

    z = -special.ndtri(alpha / 2) - special.ndtri(1 - power)  # norm.isf(q) is -ndtri(q)
    return float(z * sd_of_total / units)


def detectable_noncentrality(df: int, alpha: float, power: float = DEFAULT_POWER) -> float:
    """The noncentrality at which a chi-square test with ``df`` degrees of freedom at level
    ``alpha`` has ``power``.

    >>> round(detectable_noncentrality(3, 0.05), 2)     # Cohen's tables: 10.90
    10.9
    """
    from scipy import special  # scipy.stats and scipy.optimize cost an audit a second

    crit = special.chdtri(df, alpha)  # chi2.isf(alpha, df)
    # the noncentrality where the noncentral chi-square's CDF at crit is 1 - power
    return float(special.chndtrinc(crit, df, 1 - power))


# tests of one value's shift, and the unit its detectable shift is in
_SHIFT_UNITS = {"serial balance": "correlation of a player's successive matches",
                "lag-1 correlation": "correlation", "covariate z-test": "slope per hand"}


def detectable_bias(r: StatResult, alpha: float, power: float = DEFAULT_POWER) -> None:
    """Set ``r.detectable`` (and its unit): the smallest bias ``r``'s test flags with
    ``power`` at level ``alpha`` (the level of Holm's first step)."""
    if r.method == "G-test":
        if r.df:
            r.detectable = detectable_w(r.n, r.df, alpha, power)
            r.detectable_unit = "Cohen's w"
        return
    if r.method == "joint chi-square":
        if r.df and r.unit_noncentrality:
            r.detectable = math.sqrt(detectable_noncentrality(r.df, alpha, power)
                                     / r.unit_noncentrality)
            r.detectable_unit = "mean shift per hand"
        return
    if r.method == "placement chi-square":  # one card's share of one position
        if r.df and r.unit_noncentrality:
            r.detectable = math.sqrt(detectable_noncentrality(r.df, alpha, power)
                                     / r.unit_noncentrality)
            r.detectable_unit = "percentage points (one card at one position)"
        return
    if r.method in ("max z over members", "max z over states"):  # Bonferroni, a median one
        alpha = alpha / max(r.df or 1, 1)
        r.detectable = detectable_shift(r.std_error or 0.0, 1, alpha, power)
        r.detectable_unit = "mean shift per hand"
        return
    if r.method == "repeats (Poisson)" and r.df == 1 and r.n > 1:  # every draw kept
        # the birthday bound: a seed space of S seeds gives C(n, 2) / S equal pairs on
        # average; the smallest pair count significant at alpha, then the S that reaches
        # it with probability power (P(Poisson(mu) >= k) is gammainc(k, mu))
        from scipy import special
        mean0 = r.expected[0] if r.expected else 0.0
        k = 1
        while mean0 > 0 and float(special.gammainc(k, mean0)) > alpha:
            k += 1
        mu = float(special.gammaincinv(k, power)) - mean0
        r.detectable = r.n * (r.n - 1) / 2 / mu if mu > 0 else None
        r.detectable_unit = "seeds or fewer (a seed space so small repeats deals)"
        return
    if r.method == "repeats (Poisson)":  # one kept pair flags: the hands dealt again it takes
        r.detectable = math.ceil(math.log(1 - power) / math.log(1 - 1 / (r.df or 1))) \
            if (r.df or 1) > 1 else 1.0
        r.detectable_unit = "hands dealt again"
        return
    if r.method == "near repeats (Poisson)":  # the pairs sharing 12 cards that flag
        from scipy import special
        mean0 = r.expected[0] if r.expected else 0.0
        k = 1
        while mean0 > 0 and float(special.gammainc(k, mean0)) > alpha:
            k += 1
        r.detectable = float(k)
        r.detectable_unit = "pairs of hands sharing 12 or 13 cards"
        return
    if r.method == "CUSUM (Kolmogorov tail)":  # a step halfway, in standard deviations
        from scipy import special
        if r.std_error:
            r.detectable = (float(special.kolmogi(alpha)) - special.ndtri(1 - power)) \
                * r.std_error
            r.detectable_unit = "step halfway (standard deviations of a deal's value)"
        return
    if r.method in _SHIFT_UNITS:  # a z-test of one value: its shift in that value's unit
        r.detectable = detectable_shift(r.std_error or 0.0, 1, alpha, power)
        r.detectable_unit = _SHIFT_UNITS[r.method]
        return
    if r.method == "Bernstein bound":  # the shift of the mean the bound flags at alpha
        if r.std_error:
            sd, b = r.std_error * math.sqrt(r.n), 38.0
            var = r.n * sd * sd
            # smallest t with 2 exp(-t²/(2(var + b t/3))) <= alpha, then 80 % of the
            # sums beyond it: t plus the normal quantile of the sum's own spread
            c = math.log(2 / alpha)
            t = (2 * b * c / 3 + math.sqrt((2 * b * c / 3) ** 2 + 8 * c * var)) / 2
            from scipy import special
            r.detectable = (t - special.ndtri(1 - power) * math.sqrt(var)) / r.n
            r.detectable_unit = "pairs per deal"
        return
    # the standard error of the mean is the sd of the total over the units
    r.detectable = detectable_shift(r.std_error or 0.0, 1, alpha, power)
    r.detectable_unit = ("percentage points" if r.share else "mean shift per hand"
                         if r.method.startswith("z-test") else "difference per deal")



__all__ = ["DEFAULT_POWER", "detectable_bias", "detectable_noncentrality", "detectable_shift",
           "detectable_w"]
