"""A log's share of the fairness tallies as bytes: what the archive state keeps of its
figures (state format 5, :mod:`~tarneeb.replay.archive.state`).

A share (:class:`~tarneeb.audit.fairness.Tally`, one match's observations) is written as
the pairs of key number and value most matches share, the values drawn for the repeat
tests (a deal in 13 bytes) and the keys of the match alone; what its deals give (the card
positions' cells, the counts of the tests by position, the points of the match-state
row) is left out when it is exactly what they give, checked when written, and counted
again when read with the format's own functions
(:mod:`~tarneeb.replay.archive.shares.dealt`, fixed with the format, whatever the tally's
code becomes). The state's totals are written without the values drawn and the match's
own keys, which the state reads back from the shares it counts.

>>> from tarneeb.audit.fairness import Tally
>>> t = Tally(); t.counts[("fit", ("x",), None, 3)] += 2
>>> keys = []
>>> def key_id(k):
...     keys.append(k) if k not in keys else None
...     return keys.index(k) + 1
>>> dict(unpack_share(pack_share(t, key_id), lambda i: keys[i - 1]).counts) == dict(t.counts)
True
"""

from __future__ import annotations

import itertools
import zlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from tarneeb.audit.fairness import Tally
from tarneeb.audit.fairness.codec import CodecError, pack_value, unpack_value
from tarneeb.audit.fairness.exact import TestId
from tarneeb.replay.archive.shares.dealt import (
    _DEAL,
    _M52,
    _MEASURES,
    _by_hand,
    _by_position,
    _derived_positions,
    _hand_values,
    _in_order,
    _points,
    _positions,
    _row_of,
    deal_array_of_planes,
    deal_of_planes,
    deal_planes,
)
from tarneeb.replay.archive.shares.keys import _SPECIAL, _drawn, _own

if TYPE_CHECKING:
    from tarneeb.audit.fairness.anytime.recall import DealsSeen
    from tarneeb.replay.archive.shares.columns import ShareColumns


_NAMED = 2  # in a share's own keys: a row of the match-state tests with its names numbered


def _own_entry(key: tuple[Any, ...], sums: int, value: int, key_id: Any) -> tuple[Any, ...]:
    """A match's own key as written: 0 (counts) or 1 (sums), the number of its first
    three labels, the rest, and its value; a row of the match-state tests (its season,
    leaf, four players' names, ...) with the names as numbers of keys ``("text", name)``,
    which many matches share (``_NAMED``)."""
    rest = key[3:]
    row = rest[0] if len(rest) == 1 else None
    if key[0] == "rows" and isinstance(row, tuple) and len(row) > 2 \
            and isinstance(row[2], tuple) and all(isinstance(n, str) for n in row[2]):
        return (_NAMED, key_id(key[:3]),
                ((*row[:2], tuple(key_id(("text", n)) for n in row[2]), *row[3:]),), value)
    return (sums, key_id(key[:3]), rest, value)


_ROWED = 3  # in a share's own keys: that row, its points read from its deals (_in_order)
_IN_ORDER = -26  # the width written for a match's deals in the order of its row, 13 bytes each
_PLANES = -13  # the width written for deals kept as two bit planes, 13 bytes each


def _rowed(own: list[Any], deals: dict[int, list[tuple[bytes, int]]],
           points: list[int] | None = None) -> tuple[int, bytes] | None:
    """When a match's row of the match-state tests (among ``own``, its names numbered) is
    what its deals (``deals``: one test's) give in some order: that entry of ``own``
    written again without the row's points (``_ROWED``), and the deals' test and the deals
    in that order, 13 bytes each; else None and ``own`` as it was. ``points``: the deals'
    points, made before."""
    named = [e for e in own if e[0] == _NAMED]
    if len(deals) != 1 or len(named) != 1 or named[0][3] != 1:
        return None
    row = named[0][2][0]
    (test, values), = deals.items()
    found = _in_order(values, row[4], points) if len(row) == 5 and isinstance(row[4], bytes) \
        else None
    planes = [deal_planes(d) for d in found[0]] if found is not None else [None]
    if found is None or not all(p is not None for p in planes):
        return None
    own[own.index(named[0])] = (_ROWED, named[0][1], ((*row[:4], found[1]),), 1)
    return test, b"".join(p for p in planes if p is not None)


_NONE: dict[int, tuple[Any, int]] = {}  # no key objects looked up before


def pack_share(share: Tally, key_id: Any, whole: bool = True,
               ids: dict[Any, int] | None = None,
               objects: dict[int, tuple[Any, int]] | None = None,
               columns: ShareColumns | None = None) -> bytes:
    """A share of the tallies as bytes (state format 5), its keys numbered by ``key_id`` (a
    key written once for the whole state):

    * the pairs (key number, value) of the observations most matches share, sorted and
      written as differences so most take one byte, compressed with zlib; but the card
      positions' cells, and the counts of the tests by position that a hand's points,
      void suits or (format 5) suit pattern give (:func:`_by_position`), when its deals
      give them (counted again when read; the tests by position named by one key);
    * the values drawn (the repeat tests'), per test's key number and width, those drawn
      once as one string (a hand's 52-bit mask in 8 bytes; a deal in 13, the position of
      each card in two bit planes, :func:`deal_planes`) and those drawn more often with
      their counts, left out of the compression (random bytes do not shrink);
    * the keys of this match alone (:func:`_own`), as the number of their first three
      labels and the rest; a row of the match-state tests with its players' names as
      numbers, and with per deal only its dealer and state when its deals, written in the
      row's order, give its points (:func:`_in_order`).

    ``whole=False`` (the state's totals) writes the first part alone: the state reads the
    values drawn and the match's own keys back from the shares it counts. ``ids``: the
    numbers ``key_id`` gave so far, looked up first (a call a key costs more); ``objects``:
    per key object's ``id``, the object and its number, looked up before that (the shares
    of one chunk's matches share their key objects, and a key's hash is made anew at each
    look-up: its ``id`` is not; the object is held, so its ``id`` is its own);
    ``columns``: the share as its chunk's columns
    (:class:`~tarneeb.replay.archive.shares.columns.ShareColumns`), from which its keys are
    read and its pairs made when ``ids`` numbers every key they write (the same bytes)."""
    view = columns.view(ids) if whole and columns is not None and ids is not None else None
    drawn: dict[tuple[int, int], list[tuple[Any, int]]] = {}
    deals: dict[int, list[tuple[bytes, int]]] = {}
    own: list[Any] = []
    for k, n in (() if not whole else share.counts.items() if view is None
                 else view.drawn()):
        if k[0] == "repeat" and len(k) == 5:  # (_drawn) by width: 8 for a hand's mask, a
            width = len(k[4]) if isinstance(k[4], bytes) else 0  # deal's bytes their length
            test = key_id(k[:4])
            drawn.setdefault((test, width), []).append((k[4], n))
            if width == _DEAL:
                deals.setdefault(test, []).append((k[4], n))
    positions = None
    by_position: dict[tuple[Any, ...], tuple[int, int]] = {}
    points: list[int] | None = None  # the deals' points, made before
    if whole and len(deals) == 1:
        dealt = next(iter(deals.values()))
        if view is None:
            positions = _derived_positions([(k, n) for k, n in share.counts.items()
                                            if k[0] == "placed"], share.sums.items(), dealt)
            by_position = _by_position(share.counts.items(), dealt)
        else:  # (what the deals give made a chunk at a time)
            facts, at, times = view.dealt()
            cells = view.cells()
            positions = (facts.positions(view.placed(0), *cells, at, times) if cells is not None
                         else _derived_positions(view.placed(0), view.placed(1), dealt))
            by_position = _by_position(view.seated(), dealt, facts.hand_values(at, times))
            points = [facts.points[i] for i in at]
    parts = None if view is None else view.numbered(by_position, positions is not None)
    if view is not None and parts is not None:
        for sums in (0, 1):
            own += (_own_entry(k, sums, v, key_id) for k, v in view.own(sums))
    else:
        parts = _numbered(share, key_id, whole, ids, objects, by_position, positions, own)
    packed = zlib.compress(pack_value(tuple(parts)))
    if not whole:
        return pack_value((packed,))
    rowed = _rowed(own, deals, points)
    written: list[tuple[Any, ...]] = []
    for (test, width), values in sorted(drawn.items()):
        if rowed is not None and (test, width) == (rowed[0], _DEAL):
            written.append((test, _IN_ORDER, rowed[1], ()))
            continue
        values.sort()
        once = [d for d, n in values if n == 1]
        planes = [deal_planes(d) for d in once] if width == _DEAL else []
        if planes and all(p is not None for p in planes):
            width, once = _PLANES, [p for p in planes if p is not None]
        written.append((test, width, b"".join(d if width else d.to_bytes(8, "big")
                                              for d in once),
                        tuple(x for d, n in values if n != 1 for x in (d, n))))
    return pack_value((packed, tuple(written), positions is not None,
                       tuple(sorted(own, key=repr)),
                       key_id(("by position", tuple(sorted(
                           ((k, *w) for k, w in by_position.items()), key=repr))))
                       if by_position else None))


def _numbered(share: Tally, key_id: Any, whole: bool, ids: dict[Any, int] | None,
              objects: dict[int, tuple[Any, int]] | None,
              by_position: dict[tuple[Any, ...], tuple[int, int]], positions: TestId | None,
              own: list[Any]) -> list[Any]:
    """:func:`pack_share`'s pairs (key number, value) of the share's counts and sums, as
    differences and values; its own keys into ``own``."""
    known = (ids if ids is not None else {}).get
    by_object = objects.get if objects is not None else _NONE.get
    parts: list[Any] = []
    # the tests by position's tests: a key's test looked up first (the hash of its
    # reference, a Python call, asked of the few keys of those tests alone)
    seated = {k[1] for k in by_position}
    for sums, items in enumerate((share.counts, share.sums)):
        pairs = []
        for k, v in items.items():
            if k[0] not in _SPECIAL:  # (most keys: one test, not three, a key)
                if sums or not seated or len(k) < 3 or k[1] not in seated \
                        or k[:3] not in by_position:
                    hit = by_object(id(k))
                    if hit is None or hit[0] is not k:
                        hit = (k, known(k) or key_id(k))
                        if objects is not None:
                            objects[id(k)] = hit
                    pairs.append((hit[1], v))
                continue
            if _drawn(k) or (sums and positions is not None and k[0] == "placed"):
                continue
            if _own(k, bool(sums)):
                if whole:
                    own.append(_own_entry(k, sums, v, key_id))
                continue
            pairs.append((key_id(k), v))
        pairs.sort()
        numbers = [i for i, _ in pairs]
        deltas = [numbers[0]] + [b - a for a, b in itertools.pairwise(numbers)] if pairs else []
        parts.append((tuple(deltas), tuple(v for _, v in pairs)))
    return parts


def unpack_share(data: bytes, key_of: Any, whole: bool = True, into: Tally | None = None
                 ) -> Tally:
    """The share :func:`pack_share` wrote, ``key_of`` turning key numbers back into keys;
    ``whole=False``: only the values drawn and the match's own keys (what the state's
    totals leave to the shares), added to ``into`` when given. Shares of state formats 2
    (once out of its zlib: two lists, the values drawn among the keys) and 3 (no own keys,
    deals of 20 bytes) too."""
    t = Tally() if into is None else into
    try:
        parts = unpack_value(data)
        drawn: Any = ()
        own: Any = ()
        by_position: Any = None
        positions = False
        if isinstance(parts[0], bytes):  # formats 3 (two parts) and 4 (four; totals one)
            tail: tuple[Any, ...] = ((), False, (), None)
            packed, drawn, positions, own, by_position = (*tuple(parts),
                                                          *tail[len(parts) - 1:])
            parts = unpack_value(zlib.decompress(packed)) if whole else (((), ()),) * 2
        for (deltas, values), target in zip(parts, (t.counts, t.sums), strict=True):
            i = 0
            for d, v in zip(deltas, values, strict=True):
                i += d
                target[key_of(i)] += v
        deals: list[tuple[bytes, int]] = []
        ordered: list[int] = []  # the points of the deals in the order of the row (_IN_ORDER)
        for test, width, once, more in drawn:
            prefix = key_of(test)
            step = 8 if width == 0 else 13 if width in (_PLANES, _IN_ORDER) else width
            if not (width in (0, _PLANES, _IN_ORDER) or 0 < width <= 64) or len(once) % step:
                raise CodecError(f"values drawn of a length not {step} bytes each")
            if width == _IN_ORDER:  # (each deal's planes read once: its points too)
                counts = t.counts
                for j in range(0, len(once), step):
                    y = int.from_bytes(once[j:j + step], "big")
                    low, high = y & _M52, y >> 52
                    both = low & high
                    piece = ((low ^ both) | (high ^ both) << 52 | both << 104).to_bytes(
                        _DEAL, "big")
                    ordered.append(_points(low, high))
                    counts[(*prefix, piece)] += 1
                    deals.append((piece, 1))
                continue
            for j in range(0, len(once), step):
                piece = once[j:j + step]
                if width == _PLANES:
                    piece = deal_of_planes(piece)
                if width in (_PLANES, _DEAL):
                    deals.append((piece, 1))
                t.counts[(*prefix, piece if width else int.from_bytes(piece, "big"))] += 1
            for d, n in zip(more[0::2], more[1::2], strict=True):
                t.counts[(*prefix, d)] += n
                if width in (_PLANES, _DEAL):
                    deals.append((d, n))
        for sums, prefix, rest, v in own:
            if sums in (_NAMED, _ROWED):  # a row whose players' names are numbered keys
                row = rest[0]
                names = tuple(key_of(i) for i in row[2])
                if not all(isinstance(n, tuple) and len(n) == 2 and n[0] == "text"
                           for n in names):
                    raise CodecError("a row's names are not words")
                if sums == _ROWED:  # and its points read from its deals
                    row = (*row[:4], _row_of(ordered, row[4]))
                rest = ((*row[:2], tuple(n[1] for n in names), *row[3:]),)
            (t.sums if sums == 1 else t.counts)[(*key_of(prefix), *rest)] += v
        if by_position is not None and whole:  # one key for the tests (the same each match)
            label, tests = key_of(by_position)
            if label != "by position":
                raise CodecError(f"key {by_position} is not a share's tests by position")
            values = _hand_values(deals)
            for prefix, what, position in tests:
                if what not in _MEASURES or position not in (0, 1, 2, 3):
                    raise CodecError(f"no measure {what} of a hand at position {position}")
                for value, n in _by_hand(values, what, position).items():
                    t.counts[(*prefix, value)] += n
        if positions and whole:
            (placed,) = [k for k in t.counts if k[0] == "placed"]
            for (g, card), n in _positions(deals).items():
                t.sums[("placed", placed[1], g, card)] = n
    except (TypeError, ValueError, zlib.error) as e:
        if isinstance(e, CodecError):
            raise
        raise CodecError(f"not a share of a tally: {e}") from None
    return t


def share_deals(data: bytes, key_of: Any, planes: list[bytes] | None = None) -> list[bytes]:
    """The deals (20 bytes each, as often as drawn) a share :func:`pack_share` wrote keeps
    as values drawn of a repeat test that keeps every deal (sampled 1): what
    :func:`unpack_share` gives as those keys' last labels, read without making the share
    (an incremental run needs every deal the state counts, and none of the rest). With
    ``planes``, the deals written as bit planes are added to it as they are (13 bytes
    each; :func:`deals_of_planes` makes them deals), not to the list returned."""
    out: list[bytes] = []
    try:
        parts = unpack_value(data)
        if not isinstance(parts[0], bytes) or len(parts) < 2:  # totals, or format 2
            raise CodecError("not a share of format 3 or later")
        for test, width, once, more in parts[1]:
            prefix = key_of(test)
            if not (isinstance(prefix, tuple) and len(prefix) == 4 and prefix[0] == "repeat"
                    and prefix[3] == 1):
                continue
            if width in (_PLANES, _IN_ORDER):
                if not isinstance(once, bytes) or len(once) % 13:
                    raise CodecError("values drawn of a length not 13 bytes each")
                if planes is not None:
                    planes.append(once)
                else:
                    out.extend(deal_of_planes(once[j:j + 13]) for j in range(0, len(once), 13))
            elif width == _DEAL:
                if not isinstance(once, bytes) or len(once) % _DEAL:
                    raise CodecError(f"values drawn of a length not {_DEAL} bytes each")
                out.extend(once[j:j + _DEAL] for j in range(0, len(once), _DEAL))
            for d, n in zip(more[0::2], more[1::2], strict=True):
                if isinstance(d, bytes) and len(d) == _DEAL:
                    out.extend([d] * n)
    except (TypeError, ValueError, IndexError) as e:
        if isinstance(e, CodecError):
            raise
        raise CodecError(f"not a share of a tally: {e}") from None
    return out




class DamagedShare(CodecError):
    """The share of the log at ``path`` cannot be read (``why``)."""

    def __init__(self, path: str, why: CodecError) -> None:
        super().__init__(f"{path}: {why}")
        self.path, self.why = path, why


def deals_seen(rows: Iterable[tuple[str, bytes]], key_of: Any) -> DealsSeen:
    """Every deal the shares of ``rows`` (a log's path, its share's bytes) keep
    (:func:`share_deals`), each once, with how often
    (:class:`~tarneeb.audit.fairness.anytime.recall.DealsSeen`); :class:`DamagedShare` names
    a share that cannot be read."""
    import numpy as np

    from tarneeb.audit.fairness.anytime.recall import DEAL, DealsSeen

    planes: list[bytes] = []  # (deals written as bit planes: made 4,096 shares at once)
    whole: list[bytes] = []
    made = [np.zeros(0, dtype=DEAL)]
    for j, (path, figures) in enumerate(rows, 1):
        try:
            whole += share_deals(figures, key_of, planes)
        except CodecError as e:
            raise DamagedShare(path, e) from None
        if not j % 4096:
            made, planes = [*made, deal_array_of_planes(b"".join(planes))], []
    deals = np.concatenate((*made, deal_array_of_planes(b"".join(planes)),
                            np.frombuffer(b"".join(whole), dtype=DEAL)))
    del made, planes, whole  # (the parts let go before the deals are sorted)
    return DealsSeen.of(deals)


__all__ = ["DamagedShare", "deals_seen", "pack_share", "share_deals", "unpack_share"]
