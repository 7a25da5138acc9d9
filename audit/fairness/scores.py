"""A score test of choices against what the chooser's own information allowed, the
expectation estimated by sampling.

Each observation is one choice: an observed score ``y`` and ``samples`` independent
draws ``y_1 … y_k`` of the same score from the chooser's reference distribution (what
the chooser knew), drawn independently of the real outcome. Under the null hypothesis
(the choice depends on nothing the chooser did not know) ``y`` has the mean of the
draws' distribution, so ``y - mean(y_j)`` has mean 0 and variance ``σ²(1 + 1/k)``, of
which the draws' sample variance gives an unbiased estimate. Summed over many
choices (a martingale: each term has mean 0 given everything before it), the
standardised sum is close to a standard normal; the test is one-sided (higher
scores than the information explains).

Observations go into a :class:`ScoreTally`; tallies merge by addition (floating
sums: merged in another order they agree to rounding).

>>> t = ScoreTally()
>>> for y, draws in [(1, [1, 0, 0, 1]), (1, [1, 1, 1, 0]), (0, [0, 1, 0, 1])] * 40:
...     t.add(*score(y, draws))
>>> r = t.result()
>>> r.n, round(r.excess, 3), round(r.z, 2), r.p_value < 0.05
(120, 0.083, 1.48, False)
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
    """One choice's excess (``y`` minus the draws' mean) and its estimated variance."""
    k = len(draws)
    if k < 2:
        raise ValueError("a scored choice needs two draws or more")
    mean = sum(draws) / k
    s2 = sum((d - mean) ** 2 for d in draws) / (k - 1)
    return y - mean, s2 * (1 + 1 / k)


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


__all__ = ["ScoreResult", "ScoreTally", "holm_flags", "score"]
