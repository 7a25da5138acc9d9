"""Partners' fit: a hand fitted to the partner's (suit lengths, honours) beyond what each
seat's own distribution shows.

The input is every deal's four hands in dealing order (:func:`~tarneeb.audit.fairness.\
nearrepeat.hands_of`: 52-bit masks, card ``13·suit + rank``, rank 12 the ace): hands 0
and 2 are partners, and hands 1 and 3.

**The exact null, given the hands.** Under a uniform shuffle the four hands of a deal
are dealt to the four seats in a uniformly random order, whatever they hold: given the
four hands (unordered), which two of them are partners is one of the three pairings
``{0,2}{1,3}``, ``{0,1}{2,3}``, ``{0,3}{1,2}``, each with probability 1/3, independently
from deal to deal. A fit statistic ``g`` of a pairing (the sum over both partnerships)
is then, per deal, its value for the pairing dealt less the mean of its three values:
mean 0, variance the three values' variance, bounded by the largest of their three
deviations; and the deals' terms are independent. Each seat's marginal distribution,
the deck's composition and the hands themselves are held fixed: only the pairing
is tested, so a platform that favours a seat or a team does not move it.

* **Suit fit**: ``Σ_suits ℓ_a·ℓ_b`` for partners ``a`` and ``b`` (their lengths in a suit
  multiplied: large when their long suits are the same).
* **Honour fit**: ``Σ_suits (h_a·ℓ_b + h_b·ℓ_a)``, ``h`` a hand's honours (A K Q J) in the
  suit: honours sitting in the partner's long suits.

The p-value is Monte Carlo up to :data:`MC_UP_TO` deals: each deal's pairing drawn
again at random, the dealt one's place taken by one of the three, by Besag and
Clifford's sequential rule (:func:`~tarneeb.audit.fairness.tests.sequential_p`, 20,000
samples at most, the least p-value 5e-5), two-sided: exact in law, seeded from the
values so that an archive gives the same p-value every time. Beyond that size (where
power is not wanting and a sample costs its deals) the tail is Bernstein's inequality
for a sum of independent bounded terms (``2·exp(-t²/(2(V + M·t/3)))``, ``V`` the
terms' variances summed and ``M`` their largest bound): valid at every size, and
conservative. Which one is used depends on the number of deals alone.

The sums the test needs (the dealt pairing's total, the variances, the largest bound,
each three times or nine times over so that they are whole numbers: exact, whatever
order the deals come in) are added up a block of deals at a time (:class:`Sums`); the
values of every deal are held only up to :data:`MC_UP_TO` deals, for the Monte Carlo.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Iterator
from typing import Any

from tarneeb.audit.fairness.tests import StatResult, sequential_p

PAIRING = "pairing (three pairings)"
MC_UP_TO = 5_000  # deals up to which the p-value is Monte Carlo (Bernstein's bound beyond)
MC_MORE = 20_000  # simulated samples at most
MC_CELLS = 1 << 20  # simulated values held at once
MIN_FIT = 50  # deals the fit tests need
PAIRINGS = (((0, 2), (1, 3)), ((0, 1), (2, 3)), ((0, 3), (1, 2)))  # the first is dealt
SUIT = 0x1FFF
HONOURS = 0xF << 9  # J Q K A of a suit (ranks 9-12)
SUIT_FIT = ("suit fit", "partners", "suit lengths")
HONOUR_FIT = ("honour fit", "partners", "honours in the partner's suits")


def _counts(hands: Any, mask: int) -> Any:
    """Per deal, hand and suit, the cards of ``mask`` (within a suit) held (deals x 4 x 4)."""
    import numpy as np
    h = np.asarray(hands, dtype=np.uint64)
    return np.stack([np.bitwise_count(h >> np.uint64(13 * s) & np.uint64(mask))
                     for s in range(4)], axis=-1).astype(np.int64)


def pairing_values(hands: Any) -> tuple[Any, Any]:
    """Per deal, the suit fit and the honour fit of each of the three pairings
    (deals x 3 each), the dealt pairing first."""
    import numpy as np
    lengths = _counts(hands, SUIT)
    honours = _counts(hands, HONOURS)
    fit = np.zeros((len(lengths), 3), dtype=np.int64)
    hon = np.zeros((len(lengths), 3), dtype=np.int64)
    for k, pairing in enumerate(PAIRINGS):
        for a, b in pairing:
            fit[:, k] += (lengths[:, a] * lengths[:, b]).sum(axis=1)
            hon[:, k] += (honours[:, a] * lengths[:, b] + honours[:, b] * lengths[:, a]
                          ).sum(axis=1)
    return fit, hon


def bernstein_p(total: float, variance: float, bound: float) -> float:
    """Bernstein's two-sided tail for a sum of independent centred terms.

    >>> round(bernstein_p(30.0, 100.0, 2.0), 6)
    0.047035
    """
    if variance <= 0:
        return 1.0 if total == 0 else 0.0
    t = abs(total)
    return min(1.0, 2 * math.exp(-t * t / (2 * (variance + bound * t / 3))))


class Sums:
    """What the test reads of the deals' values (deals x 3, the dealt pairing first), in
    whole numbers: with ``r`` a deal's three values summed and ``d_k = 3·v_k - r`` (three
    times pairing ``k``'s deviation from the deal's mean), the deals, ``Σ v_0``, ``Σ r``,
    ``Σ d_0``, ``Σ_k d_k²`` and the largest ``|d_k|``. Blocks of deals add up in any order
    to the same sums.

    >>> import numpy as np
    >>> s = Sums(); s.add(np.array([[3, 1, 2], [0, 0, 0]])); s.add(np.array([[1, 1, 4]]))
    >>> (s.deals, s.first, s.total, s.dealt, s.squares, s.largest)
    (3, 4, 12, 0, 72, 6)
    """

    __slots__ = ("deals", "dealt", "first", "largest", "squares", "total")

    def __init__(self) -> None:
        self.deals = self.first = self.total = self.dealt = self.squares = self.largest = 0

    def add(self, values: Any) -> None:
        import numpy as np
        v = np.asarray(values, dtype=np.int64)
        if not len(v):
            return
        r = v.sum(axis=1)
        d = 3 * v - r[:, None]
        self.deals += len(v)
        self.first += int(v[:, 0].sum())
        self.total += int(r.sum())
        self.dealt += int(d[:, 0].sum())
        self.squares += int((d * d).sum())
        self.largest = max(self.largest, int(np.abs(d).max()))


def pairing_test(test: tuple[str, str, str], values: Any) -> StatResult:
    """The dealt pairing's value against the three pairings', over the deals (``values``
    deals x 3, every deal's)."""
    sums = Sums()
    sums.add(values)
    return pairing_result(test, sums, values)


def pairing_result(test: tuple[str, str, str], sums: Sums, values: Any = None) -> StatResult:
    """:func:`pairing_test` from the deals' :class:`Sums`; ``values`` (deals x 3, every
    deal's, in the deals' order) are needed up to :data:`MC_UP_TO` deals, for the Monte
    Carlo p-value, and not read beyond."""
    import numpy as np
    n = sums.deals
    r = StatResult(test, PAIRING, n, None, None, None, ["dealt pairing, per deal"])
    if n < MIN_FIT:
        return r
    total = sums.dealt / 3
    variance = sums.squares / 27  # Σ over deals of the three deviations' mean square
    bound = sums.largest / 3
    r.statistic = total / math.sqrt(variance) if variance > 0 else 0.0
    r.p_value = bernstein_p(total, variance, bound)
    if n <= MC_UP_TO and variance > 0:
        if values is None or len(values) != n:
            raise ValueError(f"the Monte Carlo p-value of {test} needs every deal's values")
        mean = values.mean(axis=1)
        dev = values - mean[:, None]
        seed = hashlib.sha256(repr((test, values.tolist())).encode()).digest()
        rng = np.random.default_rng(int.from_bytes(seed[:8], "big"))
        cut = abs(total) - 1e-9 * (1 + abs(total))
        rows = max(1, MC_CELLS // n)
        at = np.arange(n)

        def exceed(draws: int) -> Any:
            out = []
            for done in range(0, draws, rows):
                pick = rng.integers(0, 3, (min(rows, draws - done), n))
                out.append(np.abs(dev[at, pick].sum(axis=1)) >= cut)
            return np.concatenate(out)

        r.p_value, r.p_method = sequential_p(exceed, MC_MORE), "Monte Carlo"
    r.observed, r.expected = [sums.first / n], [sums.total / (3 * n)]
    r.std_error = math.sqrt(variance) / n
    return r


def fit_tests(hands: Any) -> list[StatResult]:
    """The suit fit and the honour fit of partners (see the module): ``hands`` every
    deal's four hands (deals x 4)."""
    fit, hon = pairing_values(hands)
    return [pairing_test(SUIT_FIT, fit), pairing_test(HONOUR_FIT, hon)]


def fit_tests_by_block(deals: int, blocks: Callable[[], Iterator[Any]],
                       whole: Callable[[], Any]) -> list[StatResult]:
    """:func:`fit_tests` of ``deals`` deals: beyond :data:`MC_UP_TO` of them, their hands
    read a block at a time from ``blocks()`` (deals x 4 each) into :class:`Sums`; up to
    it, ``whole()`` gives every deal's hands at once, in a fixed order (the Monte Carlo
    is seeded from the values in that order)."""
    if deals <= MC_UP_TO:
        return fit_tests(whole())
    sums = (Sums(), Sums())
    for block in blocks():
        for s, v in zip(sums, pairing_values(block), strict=True):
            s.add(v)
    return [pairing_result(SUIT_FIT, sums[0]), pairing_result(HONOUR_FIT, sums[1])]


__all__ = ["HONOUR_FIT", "PAIRING", "SUIT_FIT", "Sums", "bernstein_p", "fit_tests",
           "fit_tests_by_block", "pairing_result", "pairing_test", "pairing_values"]
