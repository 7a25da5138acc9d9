"""Near-repeats: hands that share 12 or 13 of their 13 cards with a hand of another deal,
over the whole archive.

The input is every deal of the archive, as its hands: 52-bit masks (bit ``c`` set when
the hand holds card ``c``), read from the repeated-deals tally (:func:`hands_of`: the
first three hands in dealing order packed in :data:`DEAL_BYTES` bytes, the fourth the
cards they leave).

**The count.** Two hands share 12 of their 13 cards exactly when, with one card taken
out of each, they are the same 12 cards: each hand gives its 13 *leave-one-out* keys
(itself less one card), and two hands with 12 cards in common share exactly one key,
two equal hands all 13. So the pairs sharing 12 or more are ``K - 12·E``, ``K`` the
pairs of equal keys and ``E`` the pairs of equal hands. The keys are counted by sorting
(numpy), in :data:`PARTS` passes over a hash of the key when they are many, so that
memory stays within a few times the hands'.

**Under a fair shuffle.** Two hands of different deals are independent and uniform over
the ``C(52, 13)`` hands: they share 12 or 13 cards with probability exactly
``(1 + 13·39) / C(52, 13)`` (one hand equal, or one of its cards swapped for one of the
39 it lacks); two hands of one deal share none. The expected count is that times the
pairs of hands of different deals; the count is Poisson in the limit of rare pairs
(Chen–Stein: two pairs are dependent only when they share a hand, and the chance of
both is of the second order), so the p-value is Poisson's upper tail, as for the
exact repeats. At 1,000 matches of 10 deals the mean is 0.64: a shuffle that reuses a
deck with a few cards moved makes tens of such pairs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from tarneeb.audit.fairness.exact import TestId
from tarneeb.audit.fairness.tests import StatResult

DEAL_BYTES = 20  # three 52-bit hands, packed (the repeated-deals tally's values)
NEAR = "near repeats (Poisson)"
HANDS = math.comb(52, 13)
SHARED = 1 + 13 * 39  # the hands sharing 12 or 13 cards with a given one
KEYS_AT_ONCE = 1 << 22  # leave-one-out keys sorted at once (32 MB)
TEST: TestId = ("near-repeated hands", "all", "12 or 13 of 13 cards")
_M52 = (1 << 52) - 1


def hands_of(by_value: Mapping[bytes, int]) -> Any:
    """Every deal's four hands (deals x 4, uint64), a deal dealt ``k`` times ``k`` times,
    in a fixed order."""
    import numpy as np
    out = []
    for value in sorted(by_value):
        v = int.from_bytes(value, "big")
        a, b, c = v & _M52, v >> 52 & _M52, v >> 104 & _M52
        out.extend([(a, b, c, _M52 ^ (a | b | c))] * by_value[value])
    return np.array(out, dtype=np.uint64).reshape(-1, 4)


def _pairs(counts: Any) -> int:
    return int((counts * (counts - 1) // 2).sum())


def near_pairs(hands: Any) -> tuple[int, int]:
    """``(pairs sharing 12 or 13 cards, pairs of equal hands)`` among ``hands`` (13-card
    masks, uint64).

    >>> import numpy as np
    >>> h = np.array([0x1FFF, 0x1FFF ^ 1 | 1 << 13, 0x1FFF << 13, 0x1FFF], dtype=np.uint64)
    >>> near_pairs(h)
    (3, 1)
    """
    import numpy as np
    hands = np.asarray(hands, dtype=np.uint64).ravel()
    n = len(hands)
    _, equal = np.unique(hands, return_counts=True)
    e = _pairs(equal)
    parts = max(1, -(-13 * n // KEYS_AT_ONCE))
    k = 0
    for part in range(parts):
        keys = []
        rest = hands.copy()
        for _ in range(13):
            low = rest & (~rest + np.uint64(1))  # the lowest card left
            rest ^= low
            key = hands ^ low
            if parts > 1:
                key = key[(key * np.uint64(0x9E3779B97F4A7C15) >> np.uint64(40))
                          % np.uint64(parts) == part]
            keys.append(key)
        _, c = np.unique(np.concatenate(keys), return_counts=True)
        k += _pairs(c)
    return k - 12 * e, e


def near_repeats_test(hands: Any) -> StatResult:
    """The pairs of hands of different deals that share 12 or 13 cards, against their
    exact mean under a fair shuffle (Poisson tail)."""
    from scipy import special
    deals = len(hands)
    n = 4 * deals
    near, equal = near_pairs(hands)
    mean = (n * (n - 1) // 2 - 6 * deals) * SHARED / HANDS
    r = StatResult(TEST, NEAR, n, float(near), None, None,
                   ["pairs sharing 12 or 13 cards"], [float(near)], [mean])
    if deals < 2:
        return r
    r.p_value = 1.0 if near == 0 else float(special.gammainc(near, mean))
    r.categories = [f"pairs sharing 12 or 13 cards ({equal:,} of them all 13)"]
    return r


def deal_tests(by_value: Mapping[Any, int]) -> list[StatResult]:
    """The tests that need every deal's hands: near-repeats, and the partners' fit
    (:mod:`tarneeb.audit.fairness.fit`)."""
    from tarneeb.audit.fairness.fit import fit_tests
    hands = hands_of(by_value)
    return [near_repeats_test(hands), *fit_tests(hands)]


__all__ = ["DEAL_BYTES", "NEAR", "deal_tests", "hands_of", "near_pairs", "near_repeats_test"]
