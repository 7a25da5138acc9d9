"""A score test of choices against what the chooser's own information allowed, the
expectation estimated by sampling.

Each observation is one choice: an observed score ``y`` and ``samples`` independent
draws ``y_1 … y_k`` of the same score from the chooser's reference distribution (what
the chooser knew), drawn independently of the real outcome. Under the null hypothesis
(the choice depends on nothing the chooser did not know) ``y`` has the mean of the
draws' distribution, so ``y - mean(y_j)`` has mean 0 and variance ``σ²(1 + 1/k)``, of
which the sample variance of the draws and ``y`` together gives an unbiased estimate.
Summed over many choices (a martingale: each term has mean 0 given everything before
it), the standardised sum is close to a standard normal; the test is one-sided (higher
scores than the information explains).

Observations go into a :class:`ScoreTally`; tallies merge by addition (floating
sums: merged in another order they agree to rounding).

**Looked at again and again** (an archive audited every day): :func:`mixture_log_e`
makes of the same sums an e-value, the one-sided normal mixture of the exponential
supermartingales ``exp(λ S − λ² V / 2)`` over a half-normal ``λ ≥ 0`` (Robbins; Howard,
Ramdas, McAuliffe and Sekhon 2021), so that under the null the chance it *ever* reaches
``1/α``, at any number of looks, is at most ``α`` (Ville's inequality), as far as the
standardised sum is normal; :func:`anytime_flags` holds a family of such groups, which
grows as groups reach the size to be tested, to ``α`` over every look.

>>> t = ScoreTally()
>>> for y, draws in [(1, [1, 0, 0, 1]), (1, [1, 1, 1, 0]), (0, [0, 1, 0, 1])] * 40:
...     t.add(*score(y, draws))
>>> r = t.result()
>>> r.n, round(r.excess, 3), round(r.z, 2), r.p_value < 0.05
(120, 0.083, 1.58, False)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class ScoreResult:
    """``n`` choices, their mean excess over the information's expectation (the effect
    size), the standardised sum ``z`` and its one-sided p-value."""

    n: int
    excess: float
    z: float
    p_value: float


def score(y: float, draws: Sequence[float]) -> tuple[float, float]:
    """One choice's excess (``y`` minus the draws' mean) and its estimated variance: the
    sample variance of the draws and ``y`` together (under the null ``y`` is one more
    draw, so it is unbiased for ``σ²``), times ``1 + 1/k``. The draws alone would say 0
    whenever they agree (two draws often do), and a ``y`` they never gave would add to the
    sum and nothing to its variance: far from normal sums, for a chooser whose choices are
    rarely the best ones."""
    k = len(draws)
    if k < 2:
        raise ValueError("a scored choice needs two draws or more")
    pooled = [*draws, y]
    mean = sum(pooled) / (k + 1)
    s2 = sum((d - mean) ** 2 for d in pooled) / k
    return y - sum(draws) / k, s2 * (1 + 1 / k)


@dataclass(slots=True)
class ScoreTally:
    """Choices, and the sums of their excesses and estimated variances."""

    n: int = 0
    excess: float = 0.0
    variance: float = 0.0

    def add(self, excess: float, variance: float) -> None:
        if not (math.isfinite(excess) and math.isfinite(variance)) or variance < 0:
            raise ValueError(f"not a scored choice: excess {excess}, variance {variance}")
        self.n += 1
        self.excess += excess
        self.variance += variance

    def merge(self, other: ScoreTally) -> None:
        self.n += other.n
        self.excess += other.excess
        self.variance += other.variance

    def result(self) -> ScoreResult:
        if self.n == 0 or self.variance <= 0:
            return ScoreResult(self.n, self.excess / self.n if self.n else 0.0, 0.0, 1.0)
        z = self.excess / math.sqrt(self.variance)
        return ScoreResult(self.n, self.excess / self.n, z, 0.5 * math.erfc(z / math.sqrt(2)))


# The mixture's prior precision: sd 1/sqrt(2) on λ, which asks within 3 % of the least z
# any one mixture would ask to reach e^9 at a variance of 10 to 300 (a player's figure over
# some 5 to 150 matches).
MIXTURE_RHO = 2.0
# Σ 1/(k (1 + ln k)²) over k = 1, 2, … (1.6344 to 10⁷, plus the tail's integral bound 0.0584):
# the family's k-th group gets 1/(FAMILY_SUM k (1 + ln k)²) of alpha, a budget of alpha in all
FAMILY_SUM = 1.6928


def mixture_log_e(excess: float, variance: float, rho: float = MIXTURE_RHO) -> float:
    """The natural log of the one-sided normal-mixture e-value of a sum of scores ``excess``
    with variance ``variance``: ``2 sqrt(ρ/(V+ρ)) exp(S²/(2(V+ρ))) Φ(S/sqrt(V+ρ))``, the
    mean over ``λ ~ half-normal(0, 1/ρ)`` of ``exp(λ S − λ² V / 2)``. 0 (an e-value of 1)
    with no variance: nothing observed.

    >>> round(mixture_log_e(0.0, 0.0), 6), round(mixture_log_e(30.0, 30.0), 2)
    (0.0, 13.37)
    >>> mixture_log_e(-30.0, 30.0) < mixture_log_e(0.0, 30.0) < 0
    True
    """
    if variance <= 0:
        return 0.0
    a = variance + rho
    x = excess / math.sqrt(a)
    if x > -35:  # log Φ(x) + x²/2, Φ as erfc keeps its precision in the lower tail
        tail = math.log(0.5 * math.erfc(-x / math.sqrt(2))) + x * x / 2
    else:  # Φ(x) ~ φ(x)/|x| there: the x²/2 cancels
        tail = -0.5 * math.log(2 * math.pi) - math.log(-x)
    return math.log(2) + 0.5 * math.log(rho / a) + tail


def family_threshold(k: int) -> float:
    """The e-value the family's groups must reach when ``k`` of them are tested:
    ``FAMILY_SUM k (1 + ln k)²`` (times ``1/alpha``). A group's rank among those tested, in
    the order they came to be, is at most ``k`` at every later look, so its threshold
    never falls below its rank's, and the ranks' shares of ``alpha`` add up to ``alpha``.

    >>> [round(family_threshold(k), 1) for k in (1, 2, 10)]
    [1.7, 9.7, 184.6]
    """
    return FAMILY_SUM * k * (1 + math.log(k)) ** 2


def anytime_flags(tallies: Sequence[ScoreTally], alpha: float,
                  ) -> list[tuple[float, float, bool]]:
    """A family of score tests valid however often it is looked at: per tally (each a
    group tested now), ``(log e-value, adjusted p, flagged)``, flagged when its e-value
    reaches :func:`family_threshold` of how many are tested, over ``alpha``; the adjusted
    p (the least ``alpha`` at which it would be flagged) is that threshold over its e-value.
    Under the null, the chance that any group is *ever* flagged, at any number of looks at
    any times, is at most ``alpha`` (Ville's inequality per group, and a union over the
    groups' ranks), as long as which groups are tested, and when, depends on how many
    choices they have, not on their scores, and no group stops being tested.

    >>> t = ScoreTally(400, 20.0, 30.0)  # z = 3.65
    >>> [(round(p, 3), f) for _, p, f in anytime_flags([t], 0.05)]
    [(0.007, True)]
    >>> {f for _, _, f in anytime_flags([t] * 40, 0.05)}  # forty groups: a higher bar
    {False}
    """
    if not tallies:
        return []
    bar = math.log(family_threshold(len(tallies)))
    out = []
    for t in tallies:
        log_e = mixture_log_e(t.excess, t.variance)
        out.append((log_e, min(1.0, math.exp(min(0.0, bar - log_e))),
                    log_e >= bar + math.log(1 / alpha)))
    return out


def holm_flags(p_values: Iterable[float], alpha: float) -> list[tuple[float, bool]]:
    """Holm's step-down correction of one-sided p-values: ``(p_adjusted, flagged)`` each,
    in the order given (one family: flagged anywhere with probability at most ``alpha``
    when every null holds)."""
    ps = list(p_values)
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    out = [(1.0, False)] * len(ps)
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(ps) - rank) * ps[i]))
        out[i] = (running, running <= alpha)
    return out


__all__ = ["FAMILY_SUM", "MIXTURE_RHO", "ScoreResult", "ScoreTally", "anytime_flags",
           "family_threshold", "holm_flags", "mixture_log_e", "score"]
