"""A score test of chosen items against the chance each had, estimated by sampling.

Each observation is one choice: ``x`` (1 when the item chosen turned out a success),
and ``hits`` of ``samples`` independent draws from the chooser's own reference
distribution on which that item was a success. Under the null hypothesis the
success is independent of the chooser's choice given what the chooser knew, so
``E[x] = p`` and ``hits / samples`` estimates ``p`` without bias, independently of
``x``: ``x - hits/samples`` has mean 0 and variance ``p(1-p)(1 + 1/samples)``, of which
``hits (samples - hits) / samples**2 * (samples + 1) / (samples - 1)`` is an unbiased
estimate. Summed over many choices (a martingale: each term has mean 0 given
everything before it), the standardised sum is close to a standard normal; the test
is one-sided (more successes than the chooser's information explains).

Observations go into a :class:`ScoreTally` of integers, merged by addition in any
order to the same result, as :class:`~tarneeb.audit.fairness.Tally` is.

>>> t = ScoreTally()
>>> for x, hits in [(1, 4), (1, 9), (0, 5), (1, 2)] * 25:
...     t.add(x, hits, 10)
>>> r = t.result()
>>> r.n, round(r.excess, 3), round(r.z, 2), r.p_value < 1e-6
(100, 0.25, 5.26, True)
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class ScoreResult:
    """``n`` choices, their mean excess of successes over the estimated chance (the
    effect size), the standardised sum ``z`` and its one-sided p-value."""

    n: int
    excess: float
    z: float
    p_value: float


@dataclass(slots=True)
class ScoreTally:
    """Integer sums per number of samples: choices, ``x * samples - hits`` and
    ``hits * (samples - hits)``."""

    sums: dict[int, list[int]] = field(default_factory=dict)

    def add(self, x: int, hits: int, samples: int) -> None:
        if samples < 2 or not 0 <= hits <= samples or x not in (0, 1):
            raise ValueError(f"not a scored choice: x={x}, hits={hits}, samples={samples}")
        s = self.sums.setdefault(samples, [0, 0, 0])
        s[0] += 1
        s[1] += x * samples - hits
        s[2] += hits * (samples - hits)

    def merge(self, other: ScoreTally) -> None:
        for k, (n, e, v) in other.sums.items():
            s = self.sums.setdefault(k, [0, 0, 0])
            s[0] += n
            s[1] += e
            s[2] += v

    @property
    def n(self) -> int:
        return sum(s[0] for s in self.sums.values())

    def result(self) -> ScoreResult:
        n = self.n
        excess = sum(e / k for k, (_, e, _) in self.sums.items())
        var = sum(v / (k * k) * (k + 1) / (k - 1) for k, (_, _, v) in self.sums.items())
        if n == 0 or var <= 0:
            return ScoreResult(n, 0.0 if n == 0 else excess / n, 0.0, 1.0)
        z = excess / math.sqrt(var)
        return ScoreResult(n, excess / n, z, 0.5 * math.erfc(z / math.sqrt(2)))


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


__all__ = ["ScoreResult", "ScoreTally", "holm_flags"]
