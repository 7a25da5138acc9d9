"""A match's share as the columns of its chunk's tally, so that writing it
(:func:`~tarneeb.replay.archive.shares.pack_share`) asks about a chunk's key once, not
once a match.

A chunk's tally (:mod:`~tarneeb.replay.archive.battery.columns`) has a few thousand keys, and each
match's share touches a few hundred of them: the share is, per part (counts, sums), the
positions among the chunk's keys of those it touched, in order, and their values
(:class:`ShareColumns`). What writing a share asks of a key (is it a value drawn, a card
position's cell, a test by position, a key of the match alone, and its number in the
state) is asked once a chunk (:class:`ChunkKeys`); a share's pairs (key number, value)
are then made with numpy, the same pairs, in the same order, as from its
:class:`~tarneeb.audit.fairness.Tally`.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Iterator
from typing import Any

from tarneeb.audit.fairness import Tally
from tarneeb.audit.fairness.tally import add_values
from tarneeb.replay.archive.shares.dealt import _DEAL, DealFacts
from tarneeb.replay.archive.shares.keys import (
    DRAWN,
    KINDS,
    NUMBERED,
    OWN,
    PLACED,
    SEATED,
    _drawn,
    _own,
    kind_of,
)

# (numpy: loaded when a share is first made of columns, as the chunk's snapshots need it)


@functools.cache
def _written() -> Any:
    """Per kind of key (:mod:`~tarneeb.replay.archive.shares.keys`), whether it is written
    numbered (some of those, not always), looked up by a share's kinds at once."""
    import numpy as np
    return np.isin(np.arange(len(KINDS)), NUMBERED)


class ChunkKeys:
    """A chunk's tally's keys, per part (counts, sums) in its order, what each is to a
    share's writing (:func:`~tarneeb.replay.archive.shares.keys.kind_of`) and its number
    in the state (0: none yet), made once a chunk (and a key's number looked up again when
    a share needs it and has none)."""

    def __init__(self, counts: list[Any], sums: list[Any]) -> None:
        self.keys = (counts, sums)
        self.kinds: tuple[Any, Any] = (None, None)
        self.numbers: tuple[Any, Any] = (None, None)
        self._ids: dict[Any, int] | None = None
        self._facts: tuple[DealFacts, Any] | None = None
        self._cells: tuple[Any, Any, list[Any]] | None = None

    def facts(self) -> tuple[DealFacts, Any]:
        """What the chunk's deals give (:class:`DealFacts`: every deal drawn once of a
        key of the counts, 20 bytes), and per key its deal's place among them (-1: none)."""
        import numpy as np
        if self._facts is None:
            self.classify()
            keys = self.keys[0]
            drawn = [i for i in np.flatnonzero(self.kinds[0] == DRAWN).tolist()
                     if isinstance(keys[i][4], bytes) and len(keys[i][4]) == _DEAL]
            place = np.full(len(keys), -1, dtype=np.intp)
            place[drawn] = np.arange(len(drawn))
            self._facts = DealFacts([keys[i][4] for i in drawn]), place
        return self._facts

    def cells(self) -> tuple[Any, Any, list[Any]]:
        """Per key of the sums, the card position's cell it is (``52 position + card``;
        -1: not of kind ``placed``, or not a position 0 to 3 and a card 0 to 51 as whole
        numbers) and its test's number among the tests (-1 for none)."""
        import numpy as np
        if self._cells is None:
            self.classify()
            where = np.full(len(self.keys[1]), -1, dtype=np.intp)
            number = np.full(len(self.keys[1]), -1, dtype=np.intp)
            tests: dict[Any, int] = {}
            for i in np.flatnonzero(self.kinds[1] == PLACED).tolist():
                k = self.keys[1][i]
                if len(k) >= 4 and type(k[2]) is int and type(k[3]) is int \
                        and 0 <= k[2] < 4 and 0 <= k[3] < 52:
                    where[i] = 52 * k[2] + k[3]
                    number[i] = tests.setdefault(k[1], len(tests))
            self._cells = where, number, list(tests)
        return self._cells

    def classify(self, ids: dict[Any, int] | None = None) -> None:
        """Each key's kind, and with ``ids`` (the state's numbers) its number."""
        if self.kinds[0] is None:
            self.kinds = (self._kinds(0), self._kinds(1))
        if ids is not None and self._ids is not ids:
            self._ids = ids
            self.numbers = (self._numbers(0, ids), self._numbers(1, ids))

    def _kinds(self, part: int) -> Any:
        import numpy as np
        return np.array([kind_of(k, bool(part)) for k in self.keys[part]], dtype=np.int8)

    def _numbers(self, part: int, ids: dict[Any, int]) -> Any:
        import numpy as np
        return np.array([ids.get(k, 0) for k in self.keys[part]], dtype=np.int64)


class ShareColumns:
    """A match's share: per part (counts, sums), the positions among its chunk's keys
    (:class:`ChunkKeys`) of those it touched, increasing, and their values."""

    def __init__(self, chunk: ChunkKeys, at: tuple[Any, Any], values: tuple[Any, Any]) -> None:
        self.chunk, self.at, self.values = chunk, at, values

    def tally(self) -> Tally:
        """The share as a :class:`~tarneeb.audit.fairness.Tally` (its keys in the chunk's
        order)."""
        t = Tally()
        for p, into in enumerate((t.counts, t.sums)):
            into.update(dict(zip(map(self.chunk.keys[p].__getitem__, self.at[p].tolist()),
                                 self.values[p].tolist(), strict=True)))
        return t

    def view(self, ids: dict[Any, int]) -> ShareView:
        """The share as :func:`~tarneeb.replay.archive.shares.pack_share` writes it, its
        keys numbered by ``ids`` (the state's numbers)."""
        chunk = self.chunk
        chunk.classify(ids)
        return ShareView(self, ids, [chunk.kinds[p][self.at[p]] for p in (0, 1)],
                         [chunk.numbers[p][self.at[p]] for p in (0, 1)])


class ShareView:
    """A share's keys, their kinds and numbers (:meth:`ShareColumns.view`)."""

    def __init__(self, columns: ShareColumns, ids: dict[Any, int], kinds: list[Any],
                 numbers: list[Any]) -> None:
        self.columns, self.ids, self.kinds, self.numbers = columns, ids, kinds, numbers

    def _items(self, part: int, kind: int) -> Iterator[tuple[Any, int]]:
        """The (key, value) of ``part`` of ``kind``, in the chunk's order."""
        import numpy as np
        which = np.flatnonzero(self.kinds[part] == kind)
        keys = self.columns.chunk.keys[part]
        return zip(map(keys.__getitem__, self.columns.at[part][which].tolist()),
                   self.columns.values[part][which].tolist(), strict=True)

    def drawn(self) -> Iterator[tuple[Any, int]]:
        return self._items(0, DRAWN)

    def placed(self, part: int) -> list[tuple[Any, int]]:
        return list(self._items(part, PLACED))

    def dealt(self) -> tuple[DealFacts, list[int], list[int]]:
        """What the share's deals give (its values drawn of 20 bytes, in order): the
        chunk's :class:`DealFacts`, the deals' places among them, and how often each was
        drawn."""
        import numpy as np
        facts, place = self.columns.chunk.facts()
        which = np.flatnonzero(self.kinds[0] == DRAWN)
        at = place[self.columns.at[0][which]]
        mine = at >= 0
        return facts, at[mine].tolist(), self.columns.values[0][which][mine].tolist()

    def cells(self) -> tuple[Any, Any, list[Any]] | None:
        """The share's card positions' cells (its sums of kind ``placed``): their places
        (``52 position + card``), values and tests (each once); None when one is not a
        position 0 to 3 and a card 0 to 51 as whole numbers."""
        import numpy as np
        where, number, tests = self.columns.chunk.cells()
        placed = self.kinds[1] == PLACED
        mine = self.columns.at[1][placed]
        if (where[mine] < 0).any():
            return None
        return (where[mine], self.columns.values[1][placed],
                [tests[t] for t in np.unique(number[mine]).tolist()])

    def seated(self) -> Iterator[tuple[Any, int]]:
        return self._items(0, SEATED)

    def own(self, part: int) -> Iterator[tuple[Any, int]]:
        return self._items(part, OWN)

    def numbered(self, by_position: dict[tuple[Any, ...], Any], derived: bool
                 ) -> list[Any] | None:
        """Per part, the pairs (key number, value) written, sorted by number, as
        differences and values: every key written numbered but the counts of the tests
        ``by_position`` gives and, when ``derived``, the cells of the card positions.
        None when a key written has no number yet (then the share is written from its
        tally, which numbers its keys in its order)."""
        import numpy as np
        out = []
        for p in (0, 1):
            kinds, numbers, at = self.kinds[p], self.numbers[p], self.columns.at[p]
            keys = self.columns.chunk.keys[p]
            take = _written()[kinds]
            if p and derived:
                take &= kinds != PLACED
            if not p and by_position:
                seats = np.flatnonzero(kinds == SEATED)
                take[np.array([j for j, i in zip(seats.tolist(), at[seats].tolist(), strict=True)
                               if keys[i][:3] in by_position], dtype=np.intp)] = False
            missing = np.flatnonzero(take & (numbers == 0))
            if len(missing):  # numbered since the chunk's keys were: looked up again
                again = np.array([self.ids.get(keys[i], 0) for i in at[missing].tolist()],
                                 dtype=np.int64)
                numbers[missing] = self.columns.chunk.numbers[p][at[missing]] = again
                if not again.all():
                    return None
            written = numbers[take]
            order = np.argsort(written)
            out.append((tuple(np.diff(written[order], prepend=0).tolist()),
                        tuple(self.columns.values[p][take][order].tolist())))
        return out


class ShareSum:
    """The sum of shares, added to a tally as :meth:`Tally.merge` of each in turn would
    add it (the same sums, new keys in the same order). A share made of its chunk's
    columns (:class:`ShareColumns`) is added to its chunk's columns (numpy), the order
    in which its keys were first met kept as the match that first met each; another is
    added up per key object: the shares of a chunk share their key objects, whose ids
    are hashed without calling the keys' own hashing (a run adds hundreds of shares of a
    few hundred keys). The objects are held: an id stays its own. Each way's sums go to a
    tally by key when a share comes the other way or of another chunk, or past ``bound``
    key objects (the next chunks' objects are others: a first run would hold every
    chunk's); with ``totals``, only the keys the state's totals keep
    (:func:`~tarneeb.replay.archive.shares.pack_share`'s ``whole=False``: not the values
    drawn, one a deal, nor a match's own keys, which the shares keep)."""

    __slots__ = ("_added", "_bound", "_chunk", "_counts", "_first", "_keys", "_shares",
                 "_summed", "_sums", "_totals")

    def __init__(self, totals: bool = False, bound: int = 20_000) -> None:
        self._counts: dict[int, int] = {}
        self._sums: dict[int, int] = {}
        self._keys: dict[int, Any] = {}
        self._summed = Tally()  # what was let go, by key
        self._totals, self._bound = totals, bound
        # the chunk whose columns are summed, per part the sums and the share that first
        # met each key (-1: none), and the shares added so
        self._chunk: ChunkKeys | None = None
        self._first: list[Any] = []
        self._added: list[Any] = []
        self._shares = 0

    def add(self, share: Tally, columns: ShareColumns | None = None) -> None:
        """Add ``share`` (with ``columns``, its chunk's columns: the same share)."""
        if columns is not None:
            self._add_columns(columns)
            return
        self._let_go_columns()
        for mine, theirs in ((self._counts, share.counts), (self._sums, share.sums)):
            ids = list(map(id, theirs))
            self._keys.update(zip(ids, theirs, strict=True))
            add_values(mine, ids, theirs.values())
        if len(self._keys) > self._bound:
            self._let_go()

    def _add_columns(self, columns: ShareColumns) -> None:
        import numpy as np
        if columns.chunk is not self._chunk:
            self._let_go_columns()
            self._let_go()
            self._chunk, self._shares = columns.chunk, 0
            self._added = [np.zeros(len(k), dtype=np.int64) for k in columns.chunk.keys]
            self._first = [np.full(len(k), -1, dtype=np.int64) for k in columns.chunk.keys]
        for p in (0, 1):
            at, first = columns.at[p], self._first[p]
            self._added[p][at] += columns.values[p]  # (a share's keys: each once)
            first[at[first[at] < 0]] = self._shares
        self._shares += 1

    def _let_go_columns(self) -> None:
        """The chunk's columns summed, added by key in the order first met."""
        import numpy as np
        if self._chunk is None:
            return
        chunk, self._chunk = self._chunk, None
        chunk.classify()
        for p, into in enumerate((self._summed.counts, self._summed.sums)):
            first = self._first[p]
            met = np.flatnonzero(first >= 0)
            if self._totals:  # (not the values drawn, nor the match's own keys)
                kinds = chunk.kinds[p][met]
                met = met[(kinds != DRAWN) & (kinds != OWN)]
            met = met[np.argsort(first[met], kind="stable")]  # (in the chunk's order first)
            add_values(into, map(chunk.keys[p].__getitem__, met.tolist()),
                       self._added[p][met].tolist())
        self._added, self._first = [], []

    def _let_go(self) -> None:
        keys = self._keys.__getitem__
        for sums, (mine, into) in enumerate(((self._counts, self._summed.counts),
                                             (self._sums, self._summed.sums))):
            objects = list(map(keys, mine))
            values: Iterable[int] = mine.values()
            if self._totals:
                kept = [not (_drawn(k) or _own(k, bool(sums))) for k in objects]
                objects = list(itertools.compress(objects, kept))
                values = itertools.compress(values, kept)
            # in the order first met (a key met as two objects adds twice)
            add_values(into, objects, values)
            mine.clear()
        self._keys.clear()

    def add_to(self, out: Tally) -> None:
        self._let_go_columns()
        self._let_go()
        out.merge(self._summed)
