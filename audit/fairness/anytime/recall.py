"""The deals seen before a run, held compactly: what the evidence asks of them.

The continuous audit's evidence keeps the repeated deals' digests, not the deals
(:meth:`Evidence.to_bytes <tarneeb.audit.fairness.anytime.evidence.Evidence.to_bytes>`
leaves out those the archive's state gives back), and its near-repeats bet asks about
the hands of every deal seen before: both are made again, once a run, from every deal
the state counts, a few hundred thousand in a large archive. :class:`DealsSeen` holds
them as numpy arrays, about 36 bytes a deal: each distinct deal once (by its
:func:`~tarneeb.audit.fairness.tally.draw_digest`, 8 bytes), sorted by digest, with its
20 bytes and how often it was given, so that a run's deals after it are those before
it less and plus the deals of the logs that changed (:meth:`DealsSeen.changed`), not
all read again. Iterated, it gives its deals (bytes), as any other iterable of deals
the evidence takes. The repeat test's digests made again are kept as the array they are
made in (:class:`DigestList`, the list the test extends), and asked as a set over it
(:class:`SortedDigests`): no Python number a deal.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator
from typing import Any, cast

import numpy as np
import numpy.typing as npt

from tarneeb.audit.fairness.nearrepeat import DEAL_BYTES
from tarneeb.audit.fairness.tally import digest_bytes, draw_digests

_BLOCK = 1 << 16  # deals hashed at once (their digests' bytes, 0.5 MB, let go after)
DEAL = np.dtype(f"V{DEAL_BYTES}")


def deal_digests(deals: npt.NDArray[Any]) -> npt.NDArray[np.uint64]:
    """:func:`~tarneeb.audit.fairness.tally.draw_digest` of each deal of ``deals`` (an
    array of :data:`DEAL`), the same numbers, made a block at a time (no object kept a
    deal)."""
    out = np.empty(len(deals), dtype=np.uint64)
    size = deals.dtype.itemsize
    for lo in range(0, len(deals), _BLOCK):
        data = np.ascontiguousarray(deals[lo:lo + _BLOCK]).tobytes()
        got = digest_bytes(data[j:j + size] for j in range(0, len(data), size))
        out[lo:lo + len(got) // 8] = np.frombuffer(got, dtype=">u8") >> np.uint64(1)
    return out


def as_digests(values: Iterable[Any]) -> npt.NDArray[np.uint64] | None:
    """``values`` as an array of digests (uint64), None when one is not a whole number
    below 2**63 (read from bytes, it may be anything: the caller compares them as they
    are)."""
    if isinstance(values, DigestList):  # (its array as it is, and those added since)
        more = as_digests(values.more)
        return None if more is None else np.concatenate((values.base, more))
    given = values if isinstance(values, list) else list(values)
    if given and (set(map(type, given)) != {int} or min(given) < 0 or max(given) >= 1 << 63):
        return None  # (checked by loops in C: a run checks a few hundred thousand)
    return np.array(given, dtype=np.uint64)


def repeat_digests(tests: list[list[Any]]) -> npt.NDArray[np.uint64]:
    """The digests of repeat tests (``tests``, each its list), each once, sorted, as an
    array; those that are not whole numbers below 2**63 left out (read from bytes: no
    deal's digest is such)."""
    arrays = [np.zeros(0, dtype=np.uint64)]
    for values in tests:
        got = as_digests(values)
        if got is None:
            got = as_digests([d for d in values if type(d) is int and 0 <= d < 1 << 63])
        arrays.append(np.zeros(0, dtype=np.uint64) if got is None else got)
    return distinct(np.concatenate(arrays))


def left_out(values: list[Any], given: npt.NDArray[np.uint64]
             ) -> tuple[tuple[Any, ...], tuple[Any, ...], int, int]:
    """A repeat test's digests ``values`` against those of the deals the caller will give
    back (``given``: sorted, each once): those it will not give and those it will give
    not seen (each sorted), the count and the sum modulo 2**64 of the set."""
    mine = as_digests(values)
    if mine is None:  # some not such numbers: as they are
        seen, back = set(values), set(given.tolist())
        return (tuple(sorted(seen - back)), tuple(sorted(back - seen)), len(seen),
                sum(seen) % 2 ** 64)
    mine = distinct(mine)
    return (tuple(minus(mine, given).tolist()), tuple(minus(given, mine).tolist()), len(mine),
            int(mine.sum(dtype=np.uint64)))  # (numpy's sum of uint64: modulo 2**64)


def distinct(a: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """``a``'s values sorted, each once: ``numpy.unique``'s, by a sort (numpy's own holds
    several times the array's size in memory for a while)."""
    out = np.sort(a)
    return out[np.concatenate(([True], out[1:] != out[:-1]))] if len(out) else out


def among(a: npt.NDArray[np.uint64], b: npt.NDArray[np.uint64]) -> npt.NDArray[np.bool_]:
    """Whether each of ``a`` is in ``b`` (sorted), found by bisection (``numpy.isin`` and
    ``numpy.setdiff1d`` sort both again, in arrays of their joint size)."""
    if not len(b):
        return np.zeros(len(a), dtype=bool)
    found: npt.NDArray[np.bool_] = b[np.minimum(np.searchsorted(b, a), len(b) - 1)] == a
    return found


def minus(a: npt.NDArray[np.uint64], b: npt.NDArray[np.uint64]) -> npt.NDArray[np.uint64]:
    """Those of ``a`` not in ``b`` (sorted), in their order."""
    out: npt.NDArray[np.uint64] = a[~among(a, b)]
    return out


class DigestList:
    """A repeat test's digests seen, as the list it keeps (``extend``, iterated in order,
    its length): those made again from the deals the state gives back as a sorted array
    (``base``: 8 bytes each, not a Python number and its place in a list; or, :func:`held`,
    those seen so far in their order), those added since after them (``more``)."""

    __slots__ = ("base", "more")

    def __init__(self, base: npt.NDArray[np.uint64]) -> None:
        self.base, self.more = base, list[Any]()

    def extend(self, values: Iterable[Any]) -> None:
        self.more.extend(values)

    def __len__(self) -> int:
        return len(self.base) + len(self.more)

    def __iter__(self) -> Iterator[Any]:
        for lo in range(0, len(self.base), _BLOCK):
            yield from self.base[lo:lo + _BLOCK].tolist()
        yield from self.more


class SortedDigests:
    """The digests a repeat test has seen, as the set its bet asks (``in``, ``len``,
    ``update``), over the test's own list of them (``values``, a list or a
    :class:`DigestList`): its first values, sorted (those made again from the deals the
    state gives back; or ``ordered``, a sorted copy of the array's), looked up by
    bisection, and those added since in a Python set: no second copy of a few hundred
    thousand numbers. The list is only ever extended (its first part stays as it is)."""

    __slots__ = ("_more", "_n", "_sorted", "_values")

    def __init__(self, values: list[Any] | DigestList,
                 ordered: npt.NDArray[np.uint64] | None = None) -> None:
        self._values, self._n, self._more = values, len(values), set[Any]()
        self._sorted = values.base if ordered is None and isinstance(values, DigestList) \
            else ordered

    def __contains__(self, d: object) -> bool:
        if d in self._more:
            return True
        if self._sorted is not None:  # (its array: a digest is below 2**63)
            base = self._sorted
            if type(d) is not int or not 0 <= d < 1 << 63:
                return False
            at = int(base.searchsorted(np.uint64(d)))
            return at < len(base) and int(base[at]) == d
        values = cast(list[Any], self._values)  # (a DigestList has its array)
        try:
            i = bisect.bisect_left(values, d, 0, self._n)
        except TypeError:  # (not a number: none of them)
            return False
        return i < self._n and bool(values[i] == d)

    def __len__(self) -> int:
        return self._n + len(self._more)

    def update(self, values: Iterable[Any]) -> None:
        self._more.update([d for d in values if d not in self])

    def missing(self, values: list[Any]) -> list[Any]:
        """Those of ``values`` not in the set, in their order (the array asked at once);
        :meth:`add` takes them (each once) as they are."""
        if self._sorted is None or as_digests(values) is None:
            return [d for d in values if d not in self]
        found = among(np.array(values, dtype=np.uint64), self._sorted).tolist()
        more = self._more
        return [d for d, f in zip(values, found, strict=True) if not f and d not in more]

    def add(self, values: list[Any]) -> None:
        self._more.update(values)


_HELD = 1 << 15  # digests a repeat test holds as Python numbers, at least, before arrays


def held(seen: list[Any] | DigestList, known: Any) -> tuple[DigestList, SortedDigests] | None:
    """A repeat test's digests (``seen``, its list, each once, and ``known``, the set its
    bet asks of them) as arrays once those held as Python numbers (about 90 bytes each,
    with the set's) pass :data:`_HELD` and an eighth of those in arrays (each number then
    sorted again a few times): the same list in the same order (:class:`DigestList`) and
    set (:class:`SortedDigests` over it and a sorted copy), 16 bytes a digest. None: left
    as they are (fewer, not all such numbers, or not each once)."""
    base = seen.base if isinstance(seen, DigestList) else np.zeros(0, dtype=np.uint64)
    more = seen.more if isinstance(seen, DigestList) else seen
    if len(more) <= max(_HELD, len(base) // 8):
        return None
    got = as_digests(more)
    if got is None:
        return None
    ordered = known._sorted if isinstance(known, SortedDigests) else None
    if ordered is None or len(ordered) != len(base):  # (no sorted copy of the array's)
        ordered = np.sort(base)
    ordered = np.concatenate((ordered, np.sort(got)))
    ordered.sort(kind="stable")  # (two sorted runs: merged)
    if len(ordered) > 1 and not (ordered[1:] != ordered[:-1]).all():
        return None  # (one twice, read from bytes: the set's length is not the list's)
    values = DigestList(np.concatenate((base, got)))
    return values, SortedDigests(values, ordered)


class DealsSeen:
    """Deals, each distinct one once: ``digests`` (sorted, uint64), ``deals`` (their
    values, :data:`DEAL` or, for values of other sizes, objects) and ``counts`` (how
    often each was given, int64)."""

    __slots__ = ("counts", "deals", "digests")

    def __init__(self, digests: npt.NDArray[np.uint64], deals: npt.NDArray[Any],
                 counts: npt.NDArray[np.int64]) -> None:
        self.digests, self.deals, self.counts = digests, deals, counts

    @classmethod
    def of(cls, values: Iterable[bytes] | npt.NDArray[Any]) -> DealsSeen:
        """The deals of ``values`` (an array of :data:`DEAL`, or any values drawn), each
        once, the first given of a digest, with how often each digest was given."""
        if isinstance(values, DealsSeen):
            return values
        if isinstance(values, np.ndarray) and values.dtype == DEAL:
            deals, digests = values, deal_digests(values)
        else:
            given = list(values)
            digests = np.array(draw_digests(given), dtype=np.uint64)
            if all(isinstance(v, bytes) and len(v) == DEAL_BYTES for v in given):
                deals = np.frombuffer(b"".join(given), dtype=DEAL)
            else:
                deals = np.empty(len(given), dtype=object)
                deals[:] = given
        # numpy.unique's values, first places and counts, by a stable sort (numpy's own
        # holds several times the digests' size in memory for a while)
        order = np.argsort(digests, kind="stable")
        digests = digests[order]
        keep = np.concatenate(([True], digests[1:] != digests[:-1])) if len(order) else \
            np.zeros(0, dtype=bool)
        counts = np.diff(np.append(np.flatnonzero(keep), len(order)))
        return cls(digests[keep], deals[order[keep]], counts.astype(np.int64))

    def __len__(self) -> int:
        return len(self.digests)

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.deals.tolist())

    def deals_among(self, digests: npt.NDArray[np.uint64]) -> npt.NDArray[Any]:
        """Those of the deals whose digests are among ``digests`` (as :data:`DEAL`)."""
        chosen = self.deals[among(self.digests, digests)]
        if chosen.dtype != DEAL:
            chosen = np.frombuffer(b"".join(chosen.tolist()), dtype=DEAL)
        return chosen

    def changed(self, less: DealsSeen, more: DealsSeen) -> DealsSeen | None:
        """These deals, less ``less`` and plus ``more`` (counted as often as given: a deal
        two logs gave stays when one goes); None when ``less`` takes away a deal not here
        (or more often than it was given)."""
        at = np.searchsorted(self.digests, less.digests)
        if len(less) and (at[-1] >= len(self) or not np.array_equal(self.digests[at],
                                                                     less.digests)):
            return None
        counts = self.counts.copy()
        counts[at] -= less.counts
        if (counts < 0).any():
            return None
        at = np.searchsorted(self.digests, more.digests)
        there = at < len(self)
        there[there] = self.digests[at[there]] == more.digests[there]
        counts[at[there]] += more.counts[there]
        deals = self.deals
        if deals.dtype != more.deals.dtype:
            deals, more = deals.astype(object), DealsSeen(
                more.digests, more.deals.astype(object), more.counts)
        new = ~there
        digests = np.insert(self.digests, at[new], more.digests[new])
        deals = np.insert(deals, at[new], more.deals[new])
        counts = np.insert(counts, at[new], more.counts[new])
        kept = counts > 0
        return DealsSeen(digests[kept], deals[kept], counts[kept])


__all__ = [
    "DEAL",
    "DealsSeen",
    "DigestList",
    "SortedDigests",
    "among",
    "as_digests",
    "deal_digests",
    "distinct",
    "held",
    "left_out",
    "minus",
    "repeat_digests",
]
