"""The values an archive's repeat tests count (every deal, a sample of the hands), kept
compactly for the whole archive: a deal is 20 bytes in a numpy array, not a dictionary
entry.

A chunk's :class:`~tarneeb.audit.fairness.Tally` holds each value drawn as a key of its
counts (``("repeat", test, population, sampled, value)``: about 150 bytes a deal once
merged). The archive summary moves them, chunk by chunk, into a :class:`Repeats`: per
test, the values drawn (one drawn ``k`` times is there ``k`` times) appended to numpy
arrays of fixed width (bytes of one length, or whole numbers below 2**64), ``BATCH``
values at a time, so the whole archive is kept (the tests look at every deal: no sample)
at 20 bytes a deal and nothing is sorted while the logs are read. :meth:`Repeats.totals`
gives each test's values drawn and pairs of equal values, which is all
:func:`~tarneeb.audit.fairness.joint.repeats_test` needs, counted in passes of at most
about ``AT_ONCE`` values (each pass sorts the values of one slice of a hash), and the
deals as :class:`~tarneeb.audit.fairness.nearrepeat.Deals` for the tests of near-repeats
and partners' fit; :meth:`Repeats.values` gives the distinct values and their counts
(numpy arrays, all at once).

>>> r = Repeats()
>>> for v in (b"a" * 20, b"b" * 20, b"a" * 20):
...     _ = r.add(("repeated deals",), 1e28, 1, v, 1)
>>> r.totals()[("repeated deals",)][2:4]
(3, 1)
"""

from __future__ import annotations

import tempfile
from array import array
from collections.abc import Hashable, Iterator
from typing import Any, ClassVar

import numpy as np
import numpy.typing as npt

from tarneeb.audit.fairness.nearrepeat import BLOCK, DEAL_BYTES, Deals, sorted_pairs, unpack_hands
from tarneeb.audit.fairness.state import DEAL_ROW
from tarneeb.replay.archive.paths import AuditFault, temp_fault

BATCH = 1 << 12  # values gathered (as Python objects) before they go into an array
AT_ONCE = 1 << 18  # values sorted at once when the equal pairs are counted (5 MB of deals)
SPILL = 1 << 14  # values a test holds in memory (330 KB of deals) before they go to disk
ROWS_HELD = 1 << 10  # matches' rows a test holds in memory (about 120 KB) before they do
_MIX = np.uint64(0x9E3779B97F4A7C15)  # a multiplicative hash (Fibonacci), public


class Spill:
    """Fixed-width records appended to a temporary file (the system's temporary directory,
    removed by the system when the file is closed or the process ends, however it ends:
    it has no name) and read back in order, a bounded number at a time. Written
    sequentially and read with plain file reads, not mapped: what has gone to disk is not
    resident."""

    __slots__ = ("dtype", "file", "items")

    def __init__(self, dtype: np.dtype[Any]) -> None:
        self.dtype = dtype
        self.file: Any = None
        self.items = 0

    def write(self, a: npt.NDArray[Any]) -> None:
        """Append ``a``'s records: all of them, or none (:class:`~tarneeb.replay.archive.\
paths.AuditFault` when the file cannot be written, a full disk)."""
        try:
            if self.file is None:
                # open till close() (or the process ends): no context manager can span it
                self.file = tempfile.TemporaryFile(prefix="tarneeb-")  # noqa: SIM115
            # after the last whole record: what a failed write left is written over
            self.file.seek(self.items * self.dtype.itemsize)
            self.file.write(np.ascontiguousarray(a, dtype=self.dtype).tobytes())
            self.file.flush()
        except OSError as e:
            raise temp_fault("files", e) from e
        self.items += len(a)

    def chunks(self, size: int) -> Iterator[npt.NDArray[Any]]:
        """The records in the order written, ``size`` at a time (the last fewer)."""
        if self.file is None:
            return
        done = 0
        while done < self.items:
            n = min(size, self.items - done)
            try:
                self.file.seek(done * self.dtype.itemsize)
                raw = self.file.read(n * self.dtype.itemsize)
            except OSError as e:
                raise temp_fault("files", e) from e
            if len(raw) != n * self.dtype.itemsize:
                raise temp_fault("files", OSError("a temporary file was cut short"))
            yield np.frombuffer(raw, dtype=self.dtype)
            done += n

    def read(self) -> bytes:
        """Every record's bytes, in the order written."""
        return b"".join(a.tobytes() for a in self.chunks(max(1, AT_ONCE * 20
                                                                // self.dtype.itemsize)))

    def close(self) -> None:
        if self.file is not None:
            self.file.close()
            self.file = None
            self.items = 0


class _Held:
    """A test's matches as columns (``COLUMNS``: arrays, or the bytes ``blob``) held in
    memory, moved to temporary files (:class:`Spill`) past ``ROWS_HELD`` matches, and
    read back whole."""

    __slots__ = ("disk",)
    COLUMNS: ClassVar[tuple[str, ...]] = ()

    def __init__(self) -> None:
        self.disk: dict[str, Spill] | None = None  # per column, what went to disk

    def _spill(self) -> None:
        """Move the columns to their files, in the order of the matches: all of them, or
        none (the files as they were, the columns kept)."""
        if self.disk is None:
            self.disk = {c: Spill(np.dtype(np.uint8)) for c in self.COLUMNS}
        before = {c: self.disk[c].items for c in self.COLUMNS}
        try:
            for c in self.COLUMNS:
                self.disk[c].write(np.frombuffer(getattr(self, c), dtype=np.uint8))
        except AuditFault:
            for c in self.COLUMNS:  # what was written of this batch is written over next time
                self.disk[c].items = before[c]
            raise
        for c in self.COLUMNS:
            setattr(self, c, bytearray() if c == "blob" else array(getattr(self, c).typecode))

    def _column(self, c: str) -> Any:
        """The column ``c`` whole: what went to disk, then what is held."""
        held = getattr(self, c)
        if self.disk is None:
            return held
        data = self.disk[c].read() + bytes(held)
        return bytearray(data) if c == "blob" else array(held.typecode, data)

    def close(self) -> None:
        for spill in (self.disk or {}).values():
            spill.close()
        self.disk = None


class _Values:
    """One test's values drawn: the first ones in a temporary file (:class:`Spill`, once
    more than ``SPILL`` are held), then arrays of them, then new ones pending."""

    __slots__ = ("arrays", "dtype", "pending", "spill", "width")

    def __init__(self, first: bytes | int) -> None:
        self.dtype = np.dtype(f"V{len(first)}") if isinstance(first, bytes) else np.dtype(
            np.uint64)
        self.width = len(first) if isinstance(first, bytes) else -1  # -1: whole numbers
        self.arrays: list[npt.NDArray[Any]] = []
        self.pending: list[Any] = []
        self.spill = Spill(self.dtype)

    def fits(self, value: Any) -> bool:
        if self.width >= 0:
            return isinstance(value, bytes) and len(value) == self.width
        return isinstance(value, int) and 0 <= value < 1 << 64

    def add(self, value: bytes | int, n: int) -> None:
        pending = self.pending
        if n == 1:
            pending.append(value)
        else:
            pending.extend([value] * n)
        if len(pending) >= BATCH:
            self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        if self.dtype.kind == "V":
            new = np.frombuffer(b"".join(self.pending), dtype=self.dtype)
        else:
            new = np.array(self.pending, dtype=np.uint64)
        self.pending = []
        self.arrays.append(new)
        if sum(len(a) for a in self.arrays) > SPILL:  # to disk: the memory stays bounded
            self.spill.write(np.concatenate(self.arrays))  # all or none
            self.arrays = []

    def drawn(self) -> int:
        self.flush()
        return self.spill.items + sum(len(a) for a in self.arrays)

    def chunks(self, size: int) -> Iterator[npt.NDArray[Any]]:
        """The values drawn, in the order drawn, at most ``size`` at a time."""
        self.flush()
        yield from self.spill.chunks(size)
        for a in self.arrays:
            for at in range(0, len(a), size):
                yield a[at:at + size]

    def _hash(self, values: npt.NDArray[Any]) -> npt.NDArray[np.uint64]:
        """A 64-bit hash of each value (equal values, equal hashes)."""
        if self.dtype.kind != "V":
            return values * _MIX
        width = self.dtype.itemsize
        raw = np.ascontiguousarray(values).view(np.uint8).reshape(-1, width)
        h = np.zeros(len(values), dtype=np.uint64)
        for at in range(0, width, 8):
            word = np.zeros((len(values), 8), dtype=np.uint8)
            word[:, :min(8, width - at)] = raw[:, at:at + 8]
            h = (h ^ word.view(np.uint64).ravel()) * _MIX
        return h

    def pairs(self) -> int:
        """The pairs of equal values drawn: the values sorted a slice of their hash at a
        time (all at once up to ``AT_ONCE`` of them), read ``AT_ONCE`` at a time."""
        passes = -(-self.drawn() // AT_ONCE)
        if passes <= 1:
            parts = list(self.chunks(AT_ONCE))
            return sorted_pairs(np.concatenate(parts)) if parts else 0
        out = 0
        for p in range(passes):
            kept = [a[self._hash(a) % np.uint64(passes) == np.uint64(p)]
                    for a in self.chunks(AT_ONCE)]
            out += sorted_pairs(np.concatenate(kept))
        return out

    def deals(self) -> Deals | None:
        """The values as :class:`~tarneeb.audit.fairness.nearrepeat.Deals` (None if they
        are not deals), read from here a block at a time."""
        self.flush()
        if self.dtype.kind != "V" or self.dtype.itemsize != DEAL_BYTES:
            return None
        if self.spill.file is None:
            return Deals(self.arrays)
        return _ReadDeals(self)

    def close(self) -> None:
        self.spill.close()


class _ReadDeals(Deals):
    """:class:`~tarneeb.audit.fairness.nearrepeat.Deals` read from a test's values
    (partly in a temporary file) a block at a time, in the order drawn."""

    __slots__ = ("values",)

    def __init__(self, values: _Values) -> None:
        super().__init__([])
        self.values = values

    def __len__(self) -> int:
        return self.values.drawn()

    def hands(self, block: int | None = None) -> Iterator[npt.NDArray[np.uint64]]:
        for a in self.values.chunks(block or BLOCK):
            yield unpack_hands(a)

    def sorted_hands(self) -> npt.NDArray[np.uint64]:
        parts = list(self.values.chunks(BLOCK))
        return Deals(parts).sorted_hands()


class Rows(_Held):
    """One test's matches' rows (``("rows", test, ref, row)`` keys of a tally, the row
    ``(series, index, names, computer seats, deals)``: :func:`~tarneeb.audit.fairness.\
state.decode`), kept in flat arrays: about 60 bytes a match and 5 a deal, where a
    tally's key and its tuples take about 460 bytes a match. A row added ``n`` times is
    here ``n`` times, as :func:`~tarneeb.audit.fairness.state.decode` expands it. Past
    ``ROWS_HELD`` matches the arrays go to temporary files (:class:`Spill`), read back
    whole when the tests read the rows; only the distinct names stay in memory."""

    __slots__ = ("blob", "computer", "deals", "index", "name_ids", "names", "ref", "series")
    COLUMNS = ("series", "index", "names", "computer", "deals", "blob")

    def __init__(self, ref: Any) -> None:
        super().__init__()
        self.ref = ref
        self.series = array("Q")
        self.index = array("q")
        self.names = array("l")  # into name_ids' order (as many as matches at most)
        self.name_ids: dict[tuple[str, ...], int] = {}
        self.computer = array("q")
        self.deals = array("q")
        self.blob = bytearray()

    def _whole(self) -> Rows:
        """These rows with every array whole in memory (the files read back)."""
        if self.disk is None:
            return self
        whole = Rows(self.ref)
        whole.name_ids = self.name_ids
        for c in self.COLUMNS:
            setattr(whole, c, self._column(c))
        return whole

    @staticmethod
    def fits(row: Any) -> bool:
        """A row of the form kept (anything else stays in the tally)."""
        return (type(row) is tuple and len(row) == 5 and type(row[0]) is int
                and 0 <= row[0] < 1 << 64 and type(row[1]) is int
                and -(1 << 63) <= row[1] < 1 << 63 and type(row[2]) is tuple
                and all(type(x) is str for x in row[2]) and type(row[3]) is int
                and -(1 << 63) <= row[3] < 1 << 63 and type(row[4]) is bytes
                and len(row[4]) % DEAL_ROW == 0)

    def add(self, row: tuple[Any, ...], n: int) -> None:
        names = self.name_ids.setdefault(row[2], len(self.name_ids))
        for _ in range(n):
            self.series.append(row[0])
            self.index.append(row[1])
            self.names.append(names)
            self.computer.append(row[3])
            self.deals.append(len(row[4]) // DEAL_ROW)
            self.blob += row[4]
        if len(self.series) >= ROWS_HELD:
            self._spill()

    def _row(self, i: int, names: list[tuple[str, ...]], starts: Any) -> tuple[Any, ...]:
        return (self.series[i], self.index[i], names[self.names[i]], self.computer[i],
                bytes(self.blob[DEAL_ROW * starts[i]:DEAL_ROW * starts[i + 1]]))

    def _order(self) -> tuple[list[int], list[tuple[str, ...]], Any]:
        """The rows in :func:`~tarneeb.audit.fairness.state.decode`'s order (matches
        with no place after, then by series and index, ties by the row's repr), the
        names by id, and each row's first deal."""
        names = list(self.name_ids)
        starts = np.concatenate(([0], np.cumsum(np.frombuffer(self.deals, dtype=np.int64))))
        series = np.frombuffer(self.series, dtype=np.uint64)
        index = np.frombuffer(self.index, dtype=np.int64)
        order = np.lexsort((index, series, index < 0)).tolist()
        out: list[int] = []
        at = 0
        while at < len(order):  # runs of equal series and index: by the row's repr
            end = at + 1
            while end < len(order) and series[order[end]] == series[order[at]] \
                    and index[order[end]] == index[order[at]]:
                end += 1
            run = order[at:end]
            if len(run) > 1:
                run.sort(key=lambda i: repr(self._row(i, names, starts)))
            out.extend(run)
            at = end
        return out, names, starts

    def decoded(self) -> dict[str, Any]:
        """The rows as :func:`~tarneeb.audit.fairness.state.decode` gives them."""
        return self._whole()._decoded()

    def _decoded(self) -> dict[str, Any]:
        from tarneeb.audit.fairness.state import decoded
        order, names, starts = self._order()
        blob = b"".join(self.blob[DEAL_ROW * starts[i]:DEAL_ROW * starts[i + 1]]
                        for i in order)
        return decoded(blob, np.frombuffer(self.deals, dtype=np.int64)[order].copy(),
                       [self.series[i] for i in order],
                       np.frombuffer(self.index, dtype=np.int64)[order].copy(),
                       [names[self.names[i]] for i in order],
                       np.frombuffer(self.computer, dtype=np.int64)[order].copy())

    def counts(self) -> dict[tuple[Any, ...], int]:
        """The rows as a tally's counts of the test hold them: ``(ref, row) -> copies``."""
        return self._whole()._counts()

    def _counts(self) -> dict[tuple[Any, ...], int]:
        names = list(self.name_ids)
        starts = np.concatenate(([0], np.cumsum(np.frombuffer(self.deals, dtype=np.int64))))
        out: dict[tuple[Any, ...], int] = {}
        for i in range(len(self.series)):
            key = (self.ref, self._row(i, names, starts))
            out[key] = out.get(key, 0) + 1
        return out


class Ordered(_Held):
    """One lag test's entries (``("ordered", test, ref, series, index)`` sums of a tally,
    a match's packed total at its place in a season), kept in flat arrays: 24 bytes a
    match where a tally's key, its tuple and its numbers take about 230; past
    ``ROWS_HELD`` of them in temporary files (:class:`Spill`), read back whole."""

    __slots__ = ("index", "ref", "series", "value")
    COLUMNS = ("series", "index", "value")

    def __init__(self, ref: Any) -> None:
        super().__init__()
        self.ref = ref
        self.series = array("Q")
        self.index = array("q")
        self.value = array("q")

    @staticmethod
    def fits(series: Any, index: Any, value: Any) -> bool:
        return (type(series) is int and 0 <= series < 1 << 64 and type(index) is int
                and -(1 << 63) <= index < 1 << 63 and type(value) is int
                and -(1 << 63) <= value < 1 << 63)

    def add(self, series: int, index: int, value: int) -> None:
        self.series.append(series)
        self.index.append(index)
        self.value.append(value)
        if len(self.series) >= ROWS_HELD:
            self._spill()

    def entries(self) -> dict[tuple[int, int], int]:
        """``(series, index) -> value``, added up as a tally's sums add them."""
        cols = [self._column(c) for c in self.COLUMNS]
        out: dict[tuple[int, int], int] = {}
        for key_value in zip(zip(cols[0], cols[1], strict=True), cols[2], strict=True):
            key, value = key_value
            out[key] = out.get(key, 0) + value
        return out


class Repeats:
    """Per repeat test (its test id, population and sample rate), the values drawn; per
    test of the matches' rows, the rows (:class:`Rows`); per lag test, its entries
    (:class:`Ordered`). Each keeps a bounded part in memory, the rest in temporary files:
    what the audit holds in memory does not grow with the archive."""

    def __init__(self) -> None:
        self.tests: dict[tuple[Any, float, int], _Values] = {}
        self.rows: dict[Any, Rows] = {}
        self.ordered: dict[Any, Ordered] = {}

    def add_ordered(self, test: Hashable, ref: Any, series: Any, index: Any,
                    value: Any) -> bool:
        """Keep a lag test's entry; False (nothing kept) for one not of the form kept, or
        under another reference than the test's first."""
        if not Ordered.fits(series, index, value):
            return False
        held = self.ordered.get(test)
        if held is None:
            held = self.ordered[test] = Ordered(ref)
        if held.ref != ref:
            return False
        held.add(series, index, value)
        return True

    def add_row(self, test: Hashable, ref: Any, row: Any, n: int) -> bool:
        """Keep a match's row ``n`` times more; False (nothing kept) for a row not of the
        form kept, or under another reference than the test's first."""
        held = self.rows.get(test)
        if held is None:
            if not Rows.fits(row):
                return False
            held = self.rows[test] = Rows(ref)
        if held.ref != ref or not Rows.fits(row):
            return False
        held.add(row, n)
        return True

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
        return self._add(held, value, n)

    @staticmethod
    def _add(held: _Values, value: Any, n: int) -> bool:
        if not held.fits(value):
            return False
        held.add(value, n)
        return True

    def totals(self) -> dict[Any, tuple[float, int, int, int, Any]]:
        """Per test: population, sample rate, values drawn, pairs of equal values, and a
        function that gives the values drawn as :class:`~tarneeb.audit.fairness.\
nearrepeat.Deals` when they are deals (None otherwise): the tests that need every
        deal's hands, near-repeats and the partners' fit, read them."""
        out = {}
        for (test, population, sampled), held in self.tests.items():
            out[test] = (population, sampled, held.drawn(), held.pairs(), held.deals)
        return out

    def values(self, test: Hashable) -> tuple[npt.NDArray[Any], npt.NDArray[np.int64]]:
        """A test's distinct values (sorted) and how often each was drawn (made whole
        when called)."""
        for (t, _, _), held in self.tests.items():
            if t == test:
                parts = list(held.chunks(AT_ONCE))
                if not parts:
                    return np.zeros(0, dtype=held.dtype), np.zeros(0, dtype=np.int64)
                values, counts = np.unique(np.concatenate(parts), return_counts=True)
                return values, counts.astype(np.int64)
        raise KeyError(test)

    def close(self) -> None:
        """Close the temporary files (the system removes them: they have no name)."""
        for values in self.tests.values():
            values.close()
        for rows in self.rows.values():
            rows.close()
        for ordered in self.ordered.values():
            ordered.close()

    def nbytes(self) -> int:
        """The bytes the arrays hold (the pending values not counted)."""
        return sum(a.nbytes for h in self.tests.values() for a in h.arrays)


def keep_repeats(stores: dict[str, Any], origin: str, share: Any) -> Any:
    """Move the values ``share`` (a chunk's tally) adds to the repeat tests into
    ``stores[origin]``, a :class:`Repeats`; the rest of ``share`` (and any value of another
    kind than its test's, which the tally keeps), a new tally, for the caller to merge
    (``share`` is left as it was). A value kept or not is so every time (its type and
    length decide), so kept apart before the merge or after it, the counts are the same.
    The matches' rows (``("rows", test, ref, row)``) go into the store's :class:`Rows`
    the same way (a row of another form, or under another reference, stays in the tally,
    and :meth:`~tarneeb.audit.fairness.Tally.results` puts the two together)."""
    from tarneeb.audit.fairness import Tally

    store = stores.get(origin)
    if store is None:
        store = stores[origin] = Repeats()
    rest = Tally()
    sums = rest.sums
    for key, v in share.sums.items():
        if not (key[0] == "ordered" and len(key) == 5 and v
                and store.add_ordered(key[1], key[2], key[3], key[4], v)):
            sums[key] = v
    counts = rest.counts
    # the values of one test come one after another: its store is looked up once a run
    test: Any = None
    held: _Values | None = None
    held_key: tuple[Any, ...] = ()
    for key, n in share.counts.items():
        kind = key[0]
        if kind == "repeat" and n:
            if held is not None and key[1] is test and key[2] == held_key[1] \
                    and key[3] == held_key[2]:
                kept = store._add(held, key[4], n)
            else:
                kept = store.add(key[1], key[2], key[3], key[4], n)
                held_key = (key[1], key[2], key[3])
                test, held = key[1], store.tests.get(held_key)
            if not kept:
                counts[key] = n
        elif kind == "rows" and len(key) == 4 and n > 0:
            if not store.add_row(key[1], key[2], key[3], n):
                counts[key] = n
        else:
            counts[key] = n
    return rest


__all__ = ["AT_ONCE", "BATCH", "Ordered", "Repeats", "Rows", "keep_repeats"]
