"""Observations grouped by key and by match with numpy: a chunk's
:class:`~tarneeb.audit.fairness.Tally` and its snapshot after each match, for tallies
made over per-row columns at once (:mod:`tarneeb.replay.archive.battery.columns`).

A test adds its observations as arrays: the match of each row and an integer code per
row, which a function turns into the tally's key (:meth:`Streams.count`,
:meth:`Streams.total`); :meth:`Streams.tally` gives the tally (keys in the order the
matches first touched them) and the snapshots
(:func:`~tarneeb.replay.archive.seen.snapshot`'s format).

>>> import numpy as np
>>> s = Streams(2)
>>> s.count(np.array([0, 1, 1]), np.array([3, 3, 4]), lambda c: ("fit", ("x",), c))
>>> t, shares = s.tally([0, 1])
>>> dict(t.counts), [list(a) for a, _ in shares]
({('fit', ('x',), 3): 2, ('fit', ('x',), 4): 1}, [[1], [2, 1]])
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from tarneeb.audit.fairness.tally import Tally

Int = npt.NDArray[np.int64]
Key = tuple[Any, ...]
KeyOf = Callable[[int], Key]


def _unique(code: Int) -> tuple[Int, Int]:
    """``np.unique(code, return_inverse=True)`` for small whole numbers, without a sort."""
    top = int(code.max())
    if int(code.min()) < 0 or top >= 1 << 20:
        uniq, inv = np.unique(code, return_inverse=True)
        return uniq, inv.reshape(-1)
    present = np.bincount(code, minlength=top + 1) > 0
    uniq = np.flatnonzero(present)
    rank = np.cumsum(present) - 1
    return uniq, rank[code]


class Streams:
    """Observations grouped by key and by match: a row of per-match counts (or sums) per
    key, for the tally and its snapshots."""

    def __init__(self, matches: int) -> None:
        self.m = matches
        self.keys: tuple[list[Key], list[Key]] = ([], [])
        self.rows: tuple[list[Int], list[Int]] = ([], [])
        self.direct_rows: tuple[dict[Key, dict[int, int]], dict[Key, dict[int, int]]] = ({}, {})
        self.sparse: tuple[list[Key], list[Int]] = ([], [])
        # the codes of the last call and their _unique: a count and its sums often come
        # with the same array of codes (the same object: arrays are not changed here)
        self.last: tuple[Int, list[int], Int] | None = None

    def _add(self, which: int, match: Int, code: Int | None, key: KeyOf,
             values: Int | None) -> None:
        if not len(match):
            return
        if code is None:  # one key
            codes, flat = [0], match
        else:
            if self.last is not None and self.last[0] is code:
                codes, inv = self.last[1], self.last[2]
            else:
                uniq, inv = _unique(code)
                codes = uniq.tolist()
                self.last = (code, codes, inv)
            flat = inv * self.m + match
        k = len(codes)
        if values is None:
            mat = np.bincount(flat, minlength=k * self.m).astype(np.int64, copy=False)
        else:  # exact: a chunk's sums are far below 2**53
            mat = np.rint(np.bincount(flat, weights=values.astype(np.float64),
                                      minlength=k * self.m)).astype(np.int64)
        self.keys[which].extend([key(c) for c in codes])
        self.rows[which].append(mat.reshape(k, self.m))

    def count(self, match: Int, code: Int | None, key: KeyOf) -> None:
        """One count a row under ``key(code)`` (``code`` None: ``key(0)`` for every row)."""
        self._add(0, match, code, key, None)

    def total(self, match: Int, code: Int | None, key: KeyOf, values: Int) -> None:
        """``values`` summed under ``key(code)``."""
        self._add(1, match, code, key, values)

    def both(self, match: Int, code: Int | None, key: KeyOf, values: Int,
             sums: Callable[[Key], Key] = lambda k: k) -> None:
        """One count a row under ``key(code)`` and ``values`` summed under the same key
        (or ``sums(key)``)."""
        self.count(match, code, key)
        self.total(match, code, lambda c: sums(key(c)), values)

    def direct(self, which: int, key: Key, match: int, value: int) -> None:
        """One entry of a match, added as is (``which`` 0: a count, 1: a sum)."""
        row = self.direct_rows[which].setdefault(key, {})
        row[match] = row.get(match, 0) + value

    def single(self, keys: list[Key], match: Int) -> None:
        """A count of one under each of ``keys`` (one a row, at its ``match``), keys that
        no stream gives and that mostly occur once (every deal, for repeats)."""
        self.sparse[0].extend(keys)
        self.sparse[1].append(match)

    def tally(self, shared: Sequence[int]) -> tuple[Tally, list[Any]]:
        """The tally, and its snapshot after each match ``shared`` lists (in order)."""
        out = Tally()
        ends: list[tuple[Int, Int, Int, Int]] = []
        sparse_keys = self.sparse[0]
        sparse_match = (np.concatenate(self.sparse[1]) if self.sparse[1]
                        else np.zeros(0, dtype=np.int64))
        if len(set(sparse_keys)) < len(sparse_keys):  # a key twice: added up as the others
            for k, j in zip(sparse_keys, sparse_match.tolist(), strict=True):
                self.direct(0, k, j, 1)
            sparse_keys, sparse_match = [], np.zeros(0, dtype=np.int64)
        for which, into in ((0, out.counts), (1, out.sums)):
            keys = list(self.keys[which])
            rows = list(self.rows[which])
            direct = self.direct_rows[which]
            if direct:
                d = np.zeros((len(direct), self.m), dtype=np.int64)
                for i, row in enumerate(direct.values()):
                    for j, v in row.items():
                        d[i, j] = v
                keys.extend(direct)
                rows.append(d)
            mat = np.concatenate(rows) if rows else np.zeros((0, self.m), dtype=np.int64)
            if len(set(keys)) < len(keys):  # one key from two streams: added together
                index: dict[Key, int] = {}
                where = np.array([index.setdefault(k, len(index)) for k in keys])
                merged = np.zeros((len(index), self.m), dtype=np.int64)
                np.add.at(merged, where, mat)
                keys, mat = list(index), merged
            nonzero = mat != 0
            keep = np.flatnonzero(nonzero.any(axis=1))
            cum = np.cumsum(mat[keep], axis=1)
            firsts = [nonzero[keep].argmax(axis=1)]
            values = [cum[:, -1] if self.m else np.zeros(0, dtype=np.int64)]
            every = [keys[i] for i in keep.tolist()]
            if which == 0 and sparse_keys:
                firsts.append(sparse_match)
                values.append(np.ones(len(sparse_match), dtype=np.int64))
                every.extend(sparse_keys)
            first = np.concatenate(firsts)
            order = np.argsort(first, kind="stable")
            into.update(dict(zip([every[i] for i in order.tolist()],
                                 np.concatenate(values)[order].tolist(), strict=True)))
            # per match, the values of the dense keys then of the single ones, as they stand
            by_match = np.ascontiguousarray(cum.T)
            ends.append((first[order], order, by_match, values[1] if len(values) > 1
                         else np.zeros(0, dtype=np.int64)))
        # per match: its keys so far (a prefix of the tally's order) and their values
        cuts = [np.searchsorted(first, shared, side="right").tolist() for first, *_ in ends]
        parts = (ends[0][1:], ends[1][1:])
        return out, [LazySnapshot(parts, j, (a, b))
                     for j, a, b in zip(shared, cuts[0], cuts[1], strict=True)]


class LazySnapshot:
    """A chunk's tally as it stood after one of its matches, in
    :func:`~tarneeb.replay.archive.seen.snapshot`'s format (``[0]`` the counts, ``[1]`` the
    sums), made from the chunk's running totals only when read: the summary reads a
    match's only when it takes a repeated match out (its snapshot and the one before it),
    so most are never made. All of a chunk's share its arrays."""

    __slots__ = ("_cuts", "_j", "_parts")

    def __init__(self, parts: tuple[tuple[Int, Int, Int], tuple[Int, Int, Int]], j: int,
                 cuts: tuple[int, int]) -> None:
        self._parts, self._j, self._cuts = parts, j, cuts

    def __getitem__(self, k: int) -> array[int]:
        if k not in (0, 1):
            raise IndexError(k)
        order, by_match, single = self._parts[k]
        values = np.concatenate([by_match[self._j], single]) if len(by_match) else single
        a = array("q")
        a.frombytes(values.take(order[:self._cuts[k]]).tobytes())
        return a

    def __len__(self) -> int:
        return 2

    def __iter__(self) -> Iterator[array[int]]:
        return iter((self[0], self[1]))

    def __eq__(self, other: object) -> bool:
        if isinstance(other, LazySnapshot | tuple):
            return tuple(self) == tuple(other)
        return NotImplemented


__all__ = ["Int", "Key", "KeyOf", "LazySnapshot", "Streams"]
