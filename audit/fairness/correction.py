"""Many tests, one error rate: the multiple-testing correction over an archive's tests,
in families by threat."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

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


FAMILIES = ("marginals", "match state", "splits", "partners", "shuffle")
_FAMILY = {"match state": "match state", "first deal": "match state", "key": "splits",
           "rule set": "splits",
           "player": "splits", "serial": "splits", "consecutive matches": "splits",
           "archive order": "splits", "successive matches": "splits",
           "team": "partners", "named by declarer": "partners", "partners": "partners",
           "computer vs human": "marginals"}
_SHUFFLE_MEASURES = {"card position", "repeated hands", "repeated deals", "deck order",
                     "near-repeated hands"}


def family_of(test: tuple[Any, ...]) -> str:
    """The threat a test looks for (its family), by its measure and what it is grouped by
    (``test[1]``): the shuffle's residue (card positions, repeated hands and deals, the
    deck's order); the match state (state-adaptive dealing, the first deal of a match);
    splits (by signing key, rule set, player by name, order); partners and teams; and
    the marginal distributions (the whole archive, each seat, computer and human seats,
    the first dealer). The continuous audit's e-value groups its tests in the same
    families.

    >>> family_of(("high-card points", "match state", "side behind"))
    'match state'
    >>> family_of(("trumps", "seat", "dealer"))
    'marginals'
    """
    if test and test[0] in _SHUFFLE_MEASURES:
        return "shuffle"
    return _FAMILY.get(test[1] if len(test) > 1 else "", "marginals")


def family_weights(results: Sequence[StatResult]) -> dict[str, float]:
    """Each family's share of the archive's ``alpha``: in proportion to the square root of
    its number of tests, over the families with at least one test. Equal shares per test
    (plain Holm) let the broad family of marginal distributions (some fifty tests) drown
    one strong, targeted signal in a family of four; equal shares per family would cost
    the broad family five times its level. The square root sits between: a family of
    four tests gets about three times the level per test that plain Holm gives it, the
    broad one loses a factor of about two. Which families are tested, and how many
    tests each has, depend on the archive's size and make-up, not on its deals: the
    weights are fixed before any p-value is seen."""
    sizes = Counter(family_of(r.test) for r in results if r.tested)
    total = sum(math.sqrt(m) for m in sizes.values())
    return {f: math.sqrt(sizes[f]) / total for f in FAMILIES if f in sizes}


def weighted_holm(results: Sequence[StatResult], weights: Sequence[float],
                  alpha: float = DEFAULT_ALPHA) -> None:
    """Holm's weighted step-down procedure (Holm 1979): the tests ordered by ``p / w``;
    the ``j``-th rejected while ``p_j / w_j <= alpha / W_j``, ``W_j`` the weight of
    the tests not rejected before it. Family-wise error at most ``alpha`` under any
    dependence (the weights add up to at most 1); equal weights give :func:`holm`.
    ``p_adjusted`` is the least ``alpha`` at which the test is rejected.

    >>> rs = [StatResult(("t", str(i)), "G-test", 10, 1.0, 1, p) for i, p in
    ...       enumerate([0.01, 0.04, 0.03, 0.005])]
    >>> weighted_holm(rs, [0.25] * 4, 0.05); [(r.p_adjusted, r.flagged) for r in rs]
    [(0.03, True), (0.06, False), (0.06, False), (0.02, True)]
    """
    tested = sorted(((r.p_value / w if w > 0 else math.inf, w, r)
                     for r, w in zip(results, weights, strict=True) if r.p_value is not None),
                    key=lambda t: t[0])
    left = sum(w for _, w, _ in tested)
    running = 0.0
    for ratio, w, r in tested:
        running = max(running, min(1.0, ratio * left))
        r.p_adjusted = running
        r.flagged = running <= alpha
        left -= w


def correct_all(results: Sequence[StatResult], alpha: float = DEFAULT_ALPHA,
                power: float = 0.8, detectable: bool = True) -> None:
    """Families by threat (:func:`family_of`), weighted (:func:`family_weights`), each
    test a weight of its family's share over the family's number of tests, and Holm's
    weighted step-down procedure over them all (:func:`weighted_holm`): a fair archive
    is flagged anywhere with probability at most ``alpha``, and a strong signal in a
    small family is divided by little more than its family's tests. Each test's
    detectable bias is at its level in the procedure's first step (``alpha`` times its
    weight)."""
    shares = family_weights(results)
    sizes = Counter(family_of(r.test) for r in results if r.tested)
    weights = []
    for r in results:
        r.family = family_of(r.test)
        weights.append(shares[r.family] / sizes[r.family] if r.tested else 0.0)
    weighted_holm(results, weights, alpha)
    if detectable:
        for r, w in zip(results, weights, strict=True):
            if r.tested:
                detectable_bias(r, alpha * w, power)


__all__ = ["DEFAULT_ALPHA", "FAMILIES", "correct_all", "family_of",
           "family_weights", "holm", "weighted_holm"]
