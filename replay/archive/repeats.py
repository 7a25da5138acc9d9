"""The values an archive's repeat tests count (every deal, a sample of the hands), kept
compactly for the whole archive: a deal is 20 bytes and a count, not a dictionary entry.

A chunk's :class:`~tarneeb.audit.fairness.Tally` holds each value drawn as a key of its
counts (``("repeat", test, population, sampled, value)``: about 150 bytes a deal once
merged). The archive summary moves them, chunk by chunk, into a :class:`Repeats`: per
test, the values in a numpy array of fixed width (bytes of one length, or whole numbers
below 2**64) with their counts, sorted and merged every ``BATCH`` values, so the whole
archive is kept (the tests look at every deal: no sample) at about 24 bytes a deal.
:meth:`Repeats.totals` gives each test's values drawn and pairs of equal values, which
is all :func:`~tarneeb.audit.fairness.joint.repeats_test` needs; :meth:`Repeats.values`
gives the distinct values and their counts (numpy arrays), for a test of near-repeats.

>>> r = Repeats()
>>> for v in (b"a" * 20, b"b" * 20, b"a" * 20):
...     _ = r.add(("repeated deals",), 1e28, 1, v, 1)
>>> r.totals()[("repeated deals",)][2:4]
(3, 1)
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import numpy.typing as npt

BATCH = 1 << 16  # values gathered before they are sorted into the array


class _Values:
    """One test's values: sorted distinct ones with their counts, and new ones pending."""

    __slots__ = ("counts", "dtype", "pending", "pending_counts", "values")

    def __init__(self, first: bytes | int) -> None:
        self.dtype = np.dtype(f"V{len(first)}") if isinstance(first, bytes) else np.dtype(
            np.uint64)
        self.values: npt.NDArray[Any] = np.zeros(0, dtype=self.dtype)
        self.counts: npt.NDArray[np.int64] = np.zeros(0, dtype=np.int64)
        self.pending: list[bytes | int] = []
        self.pending_counts: list[int] = []

    def fits(self, value: Any) -> bool:
        if self.dtype.kind == "V":
            return isinstance(value, bytes) and len(value) == self.dtype.itemsize
        return isinstance(value, int) and 0 <= value < 1 << 64

    def add(self, value: bytes | int, n: int) -> None:
        self.pending.append(value)
        self.pending_counts.append(n)
        if len(self.pending) >= BATCH:
            self.merge()

    def by_value(self) -> dict[Any, int]:
        """Each value (bytes, or an int) and its count."""
        self.merge()
        values = [v.tobytes() for v in self.values] if self.dtype.kind == "V" \
            else self.values.tolist()
        return dict(zip(values, self.counts.tolist(), strict=True))

    def merge(self) -> None:
        if not self.pending:
            return
        if self.dtype.kind == "V":
            new = np.frombuffer(b"".join(self.pending), dtype=self.dtype)  # type: ignore[arg-type]
        else:
            new = np.array(self.pending, dtype=np.uint64)
        values = np.concatenate((self.values, new))
        counts = np.concatenate((self.counts, np.array(self.pending_counts, dtype=np.int64)))
        self.pending, self.pending_counts = [], []
        order = np.argsort(values, kind="stable")
        values, counts = values[order], counts[order]
        starts = np.flatnonzero(np.concatenate(([True], values[1:] != values[:-1])))
        self.values, self.counts = values[starts], np.add.reduceat(counts, starts)


class Repeats:
    """Per repeat test (its test id, population and sample rate), the values drawn."""

    def __init__(self) -> None:
        self.tests: dict[tuple[Any, float, int], _Values] = {}

    def add(self, test: Hashable, population: float, sampled: int, value: Any,
            n: int) -> bool:
        """Count ``value`` ``n`` times more; False (nothing kept) for a value of another
        kind than the test's first (the caller keeps it in its tally)."""
        key = (test, population, sampled)
        held = self.tests.get(key)
        if held is None:
            if not isinstance(value, bytes | int) or isinstance(value, bool) \
                    or (isinstance(value, int) and not 0 <= value < 1 << 64):
                return False
            held = self.tests[key] = _Values(value)
        if not held.fits(value):
            return False
        held.add(value, n)
        return True

    def totals(self) -> dict[Any, tuple[float, int, int, int, Any]]:
        """Per test: population, sample rate, values drawn, pairs of equal values, and a
        function that gives each value's count as a dict (made when called: a test that
        needs every deal's hands, near-repeats and the partners' fit, reads them)."""
        out = {}
        for (test, population, sampled), held in self.tests.items():
            held.merge()
            c = held.counts
            out[test] = (population, sampled, int(c.sum()), int((c * (c - 1) // 2).sum()),
                         held.by_value)
        return out

    def values(self, test: Hashable) -> tuple[npt.NDArray[Any], npt.NDArray[np.int64]]:
        """A test's distinct values (sorted) and how often each was drawn."""
        for (t, _, _), held in self.tests.items():
            if t == test:
                held.merge()
                return held.values, held.counts
        raise KeyError(test)

    def nbytes(self) -> int:
        """The bytes the arrays hold (the pending values not counted)."""
        return sum(h.values.nbytes + h.counts.nbytes for h in self.tests.values())


def keep_repeats(stores: dict[str, Any], origin: str, share: Any) -> Any:
    """Move the values ``share`` (a chunk's tally) adds to the repeat tests into
    ``stores[origin]``, a :class:`Repeats`; the rest of ``share`` (and any value of another
    kind than its test's, which the tally keeps), a new tally, for the caller to merge
    (``share`` is left as it was). A value kept or not is so every time (its type and
    length decide), so kept apart before the merge or after it, the counts are the same."""
    from tarneeb.audit.fairness import Tally

    store = stores.get(origin)
    if store is None:
        store = stores[origin] = Repeats()
    rest = Tally()
    rest.sums = share.sums
    counts = rest.counts
    for key, n in share.counts.items():
        if key[0] != "repeat" or not n or not store.add(key[1], key[2], key[3], key[4], n):
            counts[key] = n
    return rest


__all__ = ["BATCH", "Repeats", "keep_repeats"]
