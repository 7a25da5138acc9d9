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
(numpy), in passes over the deals when they are many: pass ``p`` sorts the keys whose
*tag* is ``p``, at most about :data:`KEYS_AT_ONCE` of them, so that the memory the count
takes is bounded whatever the archive's size (the deals themselves, 20 bytes each in
numpy arrays, are read :data:`BLOCK` at a time). A key's tag is linear in its cards (the
exclusive or of a fixed tag per card), so a hand's keys of tag ``p`` are found without
making the others: the cards to take out are those whose tag is the hand's own tag
exclusive-or ``p``; equal keys have equal tags, so every pair is counted in one pass.

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
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from tarneeb.audit.fairness.exact import TestId
from tarneeb.audit.fairness.tests import StatResult

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

DEAL_BYTES = 20  # three 52-bit hands, packed (the repeated-deals tally's values)
NEAR = "near repeats (Poisson)"
HANDS = math.comb(52, 13)
SHARED = 1 + 13 * 39  # the hands sharing 12 or 13 cards with a given one
KEYS_AT_ONCE = 1 << 20  # leave-one-out keys sorted at once, about (8 MB)
BLOCK = 1 << 14  # deals decoded at once (their hands, 512 KB)
TEST: TestId = ("near-repeated hands", "all", "12 or 13 of 13 cards")
_M52 = (1 << 52) - 1
# each card's tag (16 bits of a multiplicative hash; a pass uses its low bits)
_TAGS = tuple((c + 1) * 0x9E3779B97F4A7C15 >> 48 & 0xFFFF for c in range(52))


class Deals:
    """Every deal drawn (one dealt ``k`` times is here ``k`` times), as :data:`DEAL_BYTES`-byte
    values in numpy arrays (``V20``): 20 bytes a deal, read :data:`BLOCK` deals at a time
    as their hands (:meth:`hands`)."""

    __slots__ = ("arrays",)

    def __init__(self, arrays: Sequence[npt.NDArray[Any]]) -> None:
        self.arrays = [a for a in arrays if len(a)]

    @classmethod
    def of(cls, by_value: Mapping[bytes, int]) -> Deals:
        """The deals of a tally's counts (value -> times drawn), in the values' order."""
        import numpy as np
        values = sorted(by_value)
        if not values:
            return cls([])
        one = np.frombuffer(b"".join(values), dtype=np.dtype(f"V{DEAL_BYTES}"))
        return cls([np.repeat(one, [by_value[v] for v in values])])

    def __len__(self) -> int:
        return sum(len(a) for a in self.arrays)

    def hands(self, block: int | None = None) -> Iterator[npt.NDArray[np.uint64]]:
        """The deals' hands, ``block`` deals at a time (:data:`BLOCK`; deals x 4, uint64)."""
        block = block or BLOCK
        for a in self.arrays:
            for at in range(0, len(a), block):
                yield unpack_hands(a[at:at + block])

    def sorted_hands(self) -> npt.NDArray[np.uint64]:
        """Every deal's hands at once (deals x 4), the deals in the order of their values
        (bytes' order): for a test that needs them all (a small archive's)."""
        import numpy as np
        if not self.arrays:
            return np.zeros((0, 4), dtype=np.uint64)
        return unpack_hands(np.sort(np.concatenate(self.arrays)))


def unpack_hands(values: npt.NDArray[Any]) -> npt.NDArray[np.uint64]:
    """Deals packed in :data:`DEAL_BYTES` bytes (big-endian: the first three hands in
    dealing order, 52 bits each from the lowest) as their four hands (deals x 4).

    >>> import numpy as np
    >>> v = np.frombuffer((1 | 2 << 52 | 4 << 104).to_bytes(20, "big"), dtype="V20")
    >>> [int(h) for h in unpack_hands(v)[0]] == [1, 2, 4, ((1 << 52) - 1) ^ 7]
    True
    """
    import numpy as np
    words = np.ascontiguousarray(values).view(np.dtype([("top", ">u4"), ("mid", ">u8"),
                                                        ("lo", ">u8")]))
    top = words["top"].astype(np.uint64)
    mid = words["mid"].astype(np.uint64)
    lo = words["lo"].astype(np.uint64)
    m52 = np.uint64(_M52)
    out = np.empty((len(values), 4), dtype=np.uint64)
    out[:, 0] = lo & m52
    out[:, 1] = (lo >> np.uint64(52) | mid << np.uint64(12)) & m52
    out[:, 2] = (mid >> np.uint64(40) | top << np.uint64(24)) & m52
    out[:, 3] = m52 ^ (out[:, 0] | out[:, 1] | out[:, 2])
    return out


def hands_of(by_value: Mapping[bytes, int]) -> Any:
    """Every deal's four hands (deals x 4, uint64), a deal dealt ``k`` times ``k`` times,
    in a fixed order (the values')."""
    return Deals.of(by_value).sorted_hands()


def sorted_pairs(values: npt.NDArray[Any]) -> int:
    """The pairs of equal items of ``values``, sorted (ascending) in place first.

    >>> import numpy as np
    >>> sorted_pairs(np.array([3, 1, 3, 2, 3, 1], dtype=np.uint64))
    4
    """
    import numpy as np
    # numpy's default sort of whole numbers is a vectorised quicksort where the processor
    # has the instructions for it (x86-simd-sort): faster than its radix sort ("stable")
    # on the few hundred thousand keys of an archive of thousands of logs; only equal
    # neighbours are counted, so the order among equal items does not matter
    values.sort(kind="stable" if values.dtype.kind == "V" else "quicksort")
    at = np.flatnonzero(values[1:] == values[:-1])  # few: the items equal to the one before
    if not len(at):
        return 0
    # runs of consecutive positions: a run of r equal neighbours is r + 1 equal items
    ends = np.flatnonzero(np.diff(at) != 1)
    runs = np.diff(np.concatenate(([-1], ends, [len(at) - 1]))) + 1
    return int((runs * (runs - 1) // 2).sum())


_MIX = 0x9E3779B97F4A7C15  # odd: the high half of its product mixes every bit of a key
_FILTER = 1 << 16  # the slots of the table that picks a candidate's hash (64 KB)


def _hashes(values: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint32]:
    """The items' 32-bit hashes (the high half of their product with :data:`_MIX`), made
    :data:`BLOCK` items at a time: 4 bytes an item, no more."""
    import numpy as np
    out = np.empty(len(values), dtype=np.uint32)
    for at in range(0, len(values), BLOCK):
        part = values[at:at + BLOCK] * np.uint64(_MIX)
        part >>= np.uint64(32)
        out[at:at + BLOCK] = part
    return out


def equal_pairs(values: npt.NDArray[np.uint64]) -> int:
    """The pairs of equal items of ``values`` (uint64; left as they are), as
    :func:`sorted_pairs` counts them, at about half its cost on many items: the 32-bit
    hashes are sorted (numpy sorts 32-bit items twice as fast as 64-bit ones), and only
    the items whose hash is shared (every equal pair, and the few pairs whose hashes
    collide, about ``n²/2³³``) are sorted whole and counted. Memory: 4 bytes an item.

    >>> import numpy as np
    >>> equal_pairs(np.array([3, 1, 3, 2, 3, 1, 1 << 40], dtype=np.uint64))
    4
    """
    import numpy as np
    if len(values) < 2:
        return 0
    h = _hashes(values)
    h.sort()
    shared = h[1:][h[1:] == h[:-1]]
    if not len(shared):  # no two hashes equal: no two items either
        return 0
    del h
    # the items whose hash is shared: a table of the hashes' low bits picks a few
    # candidates cheaply (a block at a time), then their hashes are looked up among the
    # shared ones
    table = np.zeros(_FILTER, dtype=bool)
    low = np.uint32(_FILTER - 1)
    table[shared & low] = True
    shared = np.unique(shared)
    picked = []
    for at in range(0, len(values), BLOCK):
        part = values[at:at + BLOCK]
        hp = _hashes(part)
        sel = np.flatnonzero(table[hp & low])
        hs = hp[sel]
        i = np.searchsorted(shared, hs)
        i[i == len(shared)] = 0
        picked.append(part[sel[shared[i] == hs]])
    return sorted_pairs(np.concatenate(picked))


class _Gather:
    """Arrays appended into one buffer (grown when needed), then taken whole."""

    def __init__(self, dtype: Any, size: int) -> None:
        import numpy as np
        self.buffer = np.empty(size, dtype=dtype)
        self.used = 0

    def add(self, items: npt.NDArray[Any]) -> None:
        import numpy as np
        end = self.used + len(items)
        if end > len(self.buffer):
            grown = np.empty(max(end, 2 * len(self.buffer)), dtype=self.buffer.dtype)
            grown[:self.used] = self.buffer[:self.used]
            self.buffer = grown
        self.buffer[self.used:end] = items
        self.used = end

    def take(self) -> npt.NDArray[Any]:
        out = self.buffer[:self.used]
        del self.buffer
        return out


def _near_pairs(blocks: Callable[[], Iterable[npt.NDArray[np.uint64]]], hands: int,
                ) -> tuple[int, int]:
    """:func:`near_pairs` of the hands ``blocks()`` gives (``hands`` of them): in passes
    of about :data:`KEYS_AT_ONCE` keys each, a pass reading every block again."""
    import numpy as np
    passes = 1
    while 13 * hands > passes * KEYS_AT_ONCE:
        passes *= 2
    tags = [t & (passes - 1) for t in _TAGS]
    # a hand's tag bit j is the parity of its cards with tag bit j (linear in the cards)
    bits = [np.uint64(sum(1 << c for c in range(52) if tags[c] >> j & 1))
            for j in range(passes.bit_length() - 1)]
    cards_of = np.array([sum(1 << c for c in range(52) if tags[c] == t)
                         for t in range(passes)], dtype=np.uint64)
    keys = equal = 0
    for p in range(passes):
        gathered = _Gather(np.uint64, 13 * hands // passes * 9 // 8 + 64)
        same = _Gather(np.uint64, hands // passes * 9 // 8 + 64)
        for h in blocks():
            h = h.ravel()
            tag = np.zeros(len(h), dtype=np.int64)
            for j, b in enumerate(bits):
                tag |= (np.bitwise_count(h & b) & np.uint8(1)).astype(np.int64) << j
            same.add(h[tag == p])
            take = h & cards_of[tag ^ p]  # the cards whose leave-one-out key has tag p
            at = np.flatnonzero(take)
            take, h = take[at], h[at]
            while len(take):
                low = take & (~take + np.uint64(1))
                gathered.add(h ^ low)
                take ^= low
                at = np.flatnonzero(take)
                take, h = take[at], h[at]
        equal += sorted_pairs(same.take())
        keys += equal_pairs(gathered.take())
    return keys - 12 * equal, equal


def near_pairs(hands: Any) -> tuple[int, int]:
    """``(pairs sharing 12 or 13 cards, pairs of equal hands)`` among ``hands`` (13-card
    masks, uint64).

    >>> import numpy as np
    >>> h = np.array([0x1FFF, 0x1FFF ^ 1 | 1 << 13, 0x1FFF << 13, 0x1FFF], dtype=np.uint64)
    >>> near_pairs(h)
    (3, 1)
    """
    import numpy as np
    flat = np.asarray(hands, dtype=np.uint64).ravel()
    return _near_pairs(lambda: [flat], len(flat))


def near_repeats_test(hands: Any) -> StatResult:
    """The pairs of hands of different deals that share 12 or 13 cards, against their
    exact mean under a fair shuffle (Poisson tail); ``hands`` every deal's (deals x 4),
    or the :class:`Deals`."""
    from scipy import special
    if isinstance(hands, Deals):
        deals = len(hands)
        near, equal = _near_pairs(hands.hands, 4 * deals)
    else:
        deals = len(hands)
        near, equal = near_pairs(hands)
    n = 4 * deals
    mean = (n * (n - 1) // 2 - 6 * deals) * SHARED / HANDS
    r = StatResult(TEST, NEAR, n, float(near), None, None,
                   ["pairs sharing 12 or 13 cards"], [float(near)], [mean])
    if deals < 2:
        return r
    r.p_value = 1.0 if near == 0 else float(special.gammainc(near, mean))
    r.categories = [f"pairs sharing 12 or 13 cards ({equal:,} of them all 13)"]
    return r


def deal_tests(deals: Mapping[Any, int] | Deals) -> list[StatResult]:
    """The tests that need every deal's hands: near-repeats, and the partners' fit
    (:mod:`tarneeb.audit.fairness.fit`); ``deals`` a tally's counts of the deals' values
    (value -> times drawn) or the :class:`Deals`."""
    from tarneeb.audit.fairness.fit import fit_tests_by_block
    d = deals if isinstance(deals, Deals) else Deals.of(deals)
    return [near_repeats_test(d), *fit_tests_by_block(len(d), d.hands, d.sorted_hands)]


__all__ = ["BLOCK", "DEAL_BYTES", "KEYS_AT_ONCE", "NEAR", "Deals", "deal_tests", "equal_pairs",
           "hands_of", "near_pairs", "near_repeats_test", "sorted_pairs", "unpack_hands"]
