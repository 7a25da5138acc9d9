"""Many tests, one error rate: the multiple-testing correction over an archive's tests."""

from __future__ import annotations

from collections.abc import Sequence

from tarneeb.audit.fairness.power import detectable_bias
from tarneeb.audit.fairness.tests import StatResult

DEFAULT_ALPHA = 0.05


def holm(results: Sequence[StatResult], alpha: float = DEFAULT_ALPHA) -> None:
    """Holm's step-down correction: sets ``p_adjusted`` and ``flagged`` on every tested result.

    (Six lines; statsmodels, which has it, is a large dependency for this alone.)

    >>> rs = [StatResult(("t", str(i)), "G-test", 10, 1.0, 1, p) for i, p in
    ...       enumerate([0.01, 0.04, 0.03, 0.005])]
    >>> holm(rs, 0.05); [(r.p_adjusted, r.flagged) for r in rs]
    [(0.03, True), (0.06, False), (0.06, False), (0.02, True)]
    """
    tested = sorted(((r.p_value, r) for r in results if r.p_value is not None),
                    key=lambda pr: pr[0])
    m = len(tested)
    running = 0.0
    for i, (p, r) in enumerate(tested):
        running = max(running, min(1.0, (m - i) * p))
        r.p_adjusted = running
        r.flagged = running <= alpha


def correct_all(results: Sequence[StatResult], alpha: float = DEFAULT_ALPHA,
                power: float = 0.8, detectable: bool = True) -> None:
    """One family: Holm over every test of ``results`` (all the archive's, whatever their
    origin), then each test's detectable bias at the level of Holm's first step
    (``alpha`` over the number of tests): a fair archive is flagged anywhere with
    probability at most ``alpha``."""
    holm(results, alpha)
    m = sum(1 for r in results if r.tested)
    if detectable:
        for r in results:
            if r.tested:
                detectable_bias(r, alpha / max(m, 1), power)


__all__ = ["DEFAULT_ALPHA", "correct_all", "holm"]
