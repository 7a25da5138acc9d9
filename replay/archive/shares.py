"""A log's share of the fairness tallies as bytes: what the archive state keeps of its
figures (state format 5, :mod:`~tarneeb.replay.archive.state`).

A share (:class:`~tarneeb.audit.fairness.Tally`, one match's observations) is written as
the pairs of key number and value most matches share, the values drawn for the repeat
tests (a deal in 13 bytes) and the keys of the match alone; what its deals give (the card
positions' cells, the counts of the tests by position, the points of the match-state
row) is left out when it is exactly what they give, checked when written, and counted
again when read with this module's own functions (fixed with the format, whatever the
tally's code becomes). The state's totals are written without the values drawn and the
match's own keys, which the state reads back from the shares it counts.

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
from collections import Counter
from collections.abc import Iterable
from typing import Any

from tarneeb.audit.fairness import Tally
from tarneeb.audit.fairness.codec import CodecError, pack_value, unpack_value
from tarneeb.audit.fairness.exact import TestId


def _drawn(key: tuple[Any, ...]) -> bool:
    """A key of a value drawn (the repeat tests': one a deal or hand, the value last)."""
    return key[0] == "repeat" and len(key) == 5


def _own(key: tuple[Any, ...], sums: bool) -> bool:
    """A key of one match alone (its row of the match-state tests, its place in a season
    for the lag test): kept in that match's share only, neither among the state's keys
    nor in its totals (the state adds those of the shares counted back at each run)."""
    return (key[0] == "ordered" and len(key) == 5) if sums else \
        (key[0] == "rows" and len(key) == 4)


_SPECIAL = frozenset(("repeat", "rows", "ordered", "placed"))  # kinds of key written apart
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


_M52 = (1 << 52) - 1


_ROWED = 3  # in a share's own keys: that row, its points read from its deals (_in_order)
_IN_ORDER = -26  # the width written for a match's deals in the order of its row, 13 bytes each


# a suit's honours (cards 13 * suit + 9 to 12: jack, queen, king, ace, 1 to 4 points) by
# position (two bits each: the low bit's 4 honours, then the high bit's, as a deal's bit
# planes give them), to the points they bring each position, a byte a position: a
# share's row is read with these, fixed with the format (a row they do not give is
# written whole)
_HONOURS = tuple(sum((i + 1) << (8 * ((lo >> i & 1) | (hi >> i & 1) << 1)) for i in range(4))
                 for hi in range(16) for lo in range(16))


def _points(low: int, high: int) -> int:
    """The high-card points of a deal's positions (the dealer 0, then in dealing order), a
    byte each, from its two bit planes (:func:`deal_planes`)."""
    return (_HONOURS[(low >> 9 & 15) | (high >> 5 & 240)]
            + _HONOURS[(low >> 22 & 15) | (high >> 18 & 240)]
            + _HONOURS[(low >> 35 & 15) | (high >> 31 & 240)]
            + _HONOURS[(low >> 48 & 15) | (high >> 44 & 240)])


def _deal_points(deal: bytes) -> int:
    """:func:`_points` of a deal's 20 bytes (three hands, disjoint)."""
    x = int.from_bytes(deal, "big")
    a, b, c = x & _M52, x >> 52 & _M52, x >> 104
    return _points(a | c, b | c)


def _row_of(points: list[int], marks: bytes) -> bytes:
    """A match's row of the match-state tests from its deals' points (:func:`_points`) in
    order and per deal a byte: the dealer's seat (bits 6-7) and the state (bits 0-5); per
    deal the four seats' points, then the state
    (:func:`~tarneeb.replay.archive.measures.tally_match`'s row)."""
    out = bytearray()
    for p, mark in zip(points, marks, strict=True):
        r = mark >> 6
        out += bytes((p >> (8 * (-r & 3)) & 255, p >> (8 * ((1 - r) & 3)) & 255,
                      p >> (8 * ((2 - r) & 3)) & 255, p >> (8 * ((3 - r) & 3)) & 255,
                      mark & 63))
    return bytes(out)


def _in_order(deals: list[tuple[bytes, int]], row: bytes) -> tuple[list[bytes], bytes] | None:
    """The match's deals (with their counts) in the order of its row, and per deal its
    dealer and state in a byte, when its row is exactly what they give (then the row's
    points are not written: :func:`_row_of` makes them again); else None."""
    left = dict(deals)
    by_seats: dict[bytes, list[tuple[bytes, int]]] = {}  # the seats' points a deal may give
    points = {d: _deal_points(d) for d in left}
    for d in left:
        p = points[d].to_bytes(4, "little")  # a byte a position, the dealer first
        for r in range(4):  # the dealer at seat r: seat s holds position s - r
            by_seats.setdefault(p[-r:] + p[:-r] if r else p, []).append((d, r))
    order, marks = [], bytearray()
    for j in range(0, len(row), 5):
        state = row[j + 4] if j + 4 < len(row) else 64
        found = next(((d, r) for d, r in by_seats.get(row[j:j + 4], ()) if left[d]), None)
        if found is None or state >= 64:
            return None
        left[found[0]] -= 1
        order.append(found[0])
        marks.append(found[1] << 6 | state)
    if any(left.values()) or len(row) % 5 \
            or _row_of([points[d] for d in order], bytes(marks)) != row:
        return None
    return order, bytes(marks)


_DEAL = 20  # a deal as the repeated-deals tally draws it: three 52-bit hands in 20 bytes
_PLANES = -13  # the width written for deals kept as two bit planes, 13 bytes each


def deal_planes(deal: bytes) -> bytes | None:
    """A deal's 20 bytes (its first three hands in dealing order, 52-bit masks) as 13: per
    card its position (the dealer 0, then 1, 2, 3) in two planes of 52 bits; None when
    the bytes are not three disjoint hands (kept as they are).

    >>> d = ((1 << 13) - 1 | ((1 << 13) - 1) << 65 | ((1 << 13) - 1) << 130).to_bytes(20, "big")
    >>> len(deal_planes(d)), deal_of_planes(deal_planes(d)) == d
    (13, True)
    >>> deal_planes(bytes(19) + b"\\x01" + bytes(0)) is not None, deal_planes(b"\\xff" * 20)
    (True, None)
    """
    x = int.from_bytes(deal, "big")
    a, b, c = x & _M52, x >> 52 & _M52, x >> 104
    if len(deal) != _DEAL or c >> 52 or a & b or a & c or b & c:
        return None
    return ((a | c) | (b | c) << 52).to_bytes(13, "big")


def deal_of_planes(planes: bytes) -> bytes:
    """The deal's 20 bytes again (:func:`deal_planes`)."""
    y = int.from_bytes(planes, "big")
    low, high = y & _M52, y >> 52
    c = low & high
    return ((low ^ c) | (high ^ c) << 52 | c << 104).to_bytes(_DEAL, "big")


def _positions(deals: Iterable[tuple[bytes, int]]) -> Counter[tuple[int, int]]:
    """How often each card (0-51) lies in each position (0 the dealer, then in dealing
    order) over ``deals`` (20 bytes each, with their counts): a match's card positions."""
    cells: Counter[tuple[int, int]] = Counter()
    for deal, n in deals:
        x = int.from_bytes(deal, "big")
        hands = (x & _M52, x >> 52 & _M52, x >> 104)
        for g, mask in enumerate((_M52 ^ (hands[0] | hands[1] | hands[2]), *hands)):
            while mask:
                low = mask & -mask
                cells[(g, low.bit_length() - 1)] += n
                mask ^= low
    return cells


_FIELD = 16  # bits a card of a column's counts in :func:`_derived_positions`
_SPREAD = tuple(sum(1 << (_FIELD * i) for i in range(8) if b >> i & 1) for b in range(256))


_spread = tuple(s.to_bytes(2 * 8, "little") for s in _SPREAD).__getitem__  # as bytes


def _column(mask: int) -> int:
    """A mask (52 bits, or more) as counters of ``_FIELD`` bits (1 for each card in it),
    its bytes spread in C."""
    return int.from_bytes(b"".join(map(_spread, mask.to_bytes(
        (mask.bit_length() + 7) // 8, "little"))), "little")


def _derived_positions(share: Tally, deals: list[tuple[bytes, int]]) -> TestId | None:
    """The card positions' test when the share's cells are exactly those its deals give
    (then they are not written: :func:`unpack_share` counts them again), else None. The
    cells of a position and the deals' cards there are compared as one integer each."""
    placed = [k for k in share.counts if k[0] == "placed"]
    n = sum(n for _, n in deals)
    if len(placed) != 1 or share.counts[placed[0]] != n or n >> _FIELD:
        return None
    test = placed[0][1]
    given = [0, 0, 0, 0]
    for k, v in share.sums.items():
        if k[0] == "placed":
            if k[1] != test or k[2] not in (0, 1, 2, 3) or not 0 <= k[3] < 52 \
                    or not 0 < v < 1 << _FIELD:
                return None
            given[k[2]] += v << (_FIELD * k[3])
    # a deal's three hands as one column (of its 160 bits: a, b, then c with any bits
    # past 52), summed over the deals of three hands (hands[0]) and the others'
    hands, rest, three = [0, 0], 0, 0  # the others' cards in none; the deals of three
    for deal, times in deals:
        x = int.from_bytes(deal, "big")
        a, b, c = x & _M52, x >> 52 & _M52, x >> 104
        odd = bool(a & b or a & c or b & c or c >> 52)
        hands[odd] += times * _column(x)
        if odd:
            rest += times * _column(_M52 ^ (a | b | c))
        else:  # the dealer's cards: the rest of the deck (n < 2 ** _FIELD: no borrows)
            three += times
    low, both = (1 << _HAND) - 1, hands[0] + hands[1]
    counted = [rest + three * _DECK - (hands[0] & low) - (hands[0] >> _HAND & low)
               - (hands[0] >> 2 * _HAND), both & low, both >> _HAND & low, both >> 2 * _HAND]
    return test if counted == given else None


_DECK = _column(_M52)  # every card once
_HAND = 52 * _FIELD  # the bits of a hand's column


_AT = {"dealer": 0, "dealer+1": 1, "dealer+2": 2, "dealer+3": 3}  # a position's label


def _hand_values(deals: list[tuple[bytes, int]]
                 ) -> list[tuple[int, int, int, tuple[str, ...]]]:
    """Per deal (20 bytes, with its count): its count, and per position (the dealer 0,
    then in dealing order) a byte of its hand's high-card points, one of its void suits,
    and (format 5) its suit pattern, the suits' lengths largest first joined by "-" (the
    format's own functions)."""
    out = []
    for deal, n in deals:
        x = int.from_bytes(deal, "big")
        a, b, c = x & _M52, x >> 52 & _M52, x >> 104
        voids = 0
        patterns = []
        for position, hand in enumerate((_M52 ^ (a | b | c), a, b, c)):
            suits = ((hand & 0x1FFF).bit_count(), (hand >> 13 & 0x1FFF).bit_count(),
                     (hand >> 26 & 0x1FFF).bit_count(), (hand >> 39).bit_count())
            shape = _SHAPES.get(suits)
            if shape is None:  # not 13 cards
                lengths = sorted(suits, reverse=True)
                shape = lengths.count(0), "-".join(map(str, lengths))
            voids += shape[0] << (8 * position)
            patterns.append(shape[1])
        out.append((n, _points(a | c, b | c), voids, tuple(patterns)))
    return out


# the suit patterns' names, made once (a hand of 13 cards has 39 patterns; a longer or
# shorter hand, a damaged share's, is named when met)
_PATTERN: dict[tuple[int, ...], str] = {(a, b, c, 13 - a - b - c): f"{a}-{b}-{c}-{13 - a - b - c}"
            for a in range(14) for b in range(a + 1) for c in range(b + 1)
            if 0 <= 13 - a - b - c <= c}


# per 13-card hand's suit lengths in suit order, its void suits and its pattern's name
_SHAPES = {(a, b, c, 13 - a - b - c): (
    (a, b, c, 13 - a - b - c).count(0),
    _PATTERN[tuple(sorted((a, b, c, 13 - a - b - c), reverse=True))])
    for a in range(14) for b in range(14 - a) for c in range(14 - a - b)}


_MEASURES = (0, 1, 2)  # what a hand by position gives: points, void suits, suit pattern


def _by_hand(values: list[tuple[int, int, int, tuple[str, ...]]], what: int,
             position: int) -> dict[Any, int]:
    """How often the hand at ``position`` had each value of ``what`` (0 its high-card
    points, 1 its void suits, 2 its suit pattern) over the deals of :func:`_hand_values`."""
    out: dict[Any, int] = {}
    shift = 8 * position
    for n, points, voids, patterns in values:
        value = patterns[position] if what == 2 else (voids if what else points) >> shift & 255
        out[value] = out.get(value, 0) + n
    return out


def _by_position(share: Tally, deals: list[tuple[bytes, int]]
                 ) -> dict[tuple[Any, ...], tuple[int, int]]:
    """The share's tests by position (``(kind, (measure, "seat", position), reference)``,
    one reference a test) whose counts are exactly those its deals give by
    :func:`_by_hand`, with what and where: those counts are not written
    (:func:`unpack_share` counts them again)."""
    found: dict[tuple[str, Any], dict[Any, dict[Any, int]]] = {}
    for k, n in share.counts.items():
        if (k[0] == "fit" or k[0] == "fit+mean") and type(k[-1]) in (int, str) and len(k) == 4:
            test = k[1]
            if type(test) is tuple and len(test) == 3 and test[1] == "seat" and test[2] in _AT:
                found.setdefault((k[0], test), {}).setdefault(k[2], {})[k[3]] = n
    out: dict[tuple[Any, ...], tuple[int, int]] = {}
    values = _hand_values(deals) if found else []
    given: dict[tuple[int, int], dict[Any, int]] = {}  # _by_hand's, each made once
    for (kind, test), refs in found.items():
        if len(refs) == 1:
            (ref, counts), = refs.items()
            for what in _MEASURES:
                at = (what, _AT[test[2]])
                if at not in given:
                    given[at] = _by_hand(values, *at)
                if given[at] == counts:
                    out[(kind, test, ref)] = at
                    break
    return out


def _rowed(own: list[Any], deals: dict[int, list[tuple[bytes, int]]]
           ) -> tuple[int, bytes] | None:
    """When a match's row of the match-state tests (among ``own``, its names numbered) is
    what its deals (``deals``: one test's) give in some order: that entry of ``own``
    written again without the row's points (``_ROWED``), and the deals' test and the deals
    in that order, 13 bytes each; else None and ``own`` as it was."""
    named = [e for e in own if e[0] == _NAMED]
    if len(deals) != 1 or len(named) != 1 or named[0][3] != 1:
        return None
    row = named[0][2][0]
    (test, values), = deals.items()
    found = _in_order(values, row[4]) if len(row) == 5 and isinstance(row[4], bytes) else None
    planes = [deal_planes(d) for d in found[0]] if found is not None else [None]
    if found is None or not all(p is not None for p in planes):
        return None
    own[own.index(named[0])] = (_ROWED, named[0][1], ((*row[:4], found[1]),), 1)
    return test, b"".join(p for p in planes if p is not None)


_NONE: dict[int, tuple[Any, int]] = {}  # no key objects looked up before


def pack_share(share: Tally, key_id: Any, whole: bool = True,
               ids: dict[Any, int] | None = None,
               objects: dict[int, tuple[Any, int]] | None = None) -> bytes:
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
    look-up: its ``id`` is not; the object is held, so its ``id`` is its own)."""
    known = (ids if ids is not None else {}).get
    by_object = objects.get if objects is not None else _NONE.get
    parts: list[Any] = []
    drawn: dict[tuple[int, int], list[tuple[Any, int]]] = {}
    deals: dict[int, list[tuple[bytes, int]]] = {}
    own: list[Any] = []
    for k, n in share.counts.items() if whole else ():
        if k[0] == "repeat" and len(k) == 5:  # (_drawn) by width: 8 for a hand's mask, a
            width = len(k[4]) if isinstance(k[4], bytes) else 0  # deal's bytes their length
            test = key_id(k[:4])
            drawn.setdefault((test, width), []).append((k[4], n))
            if width == _DEAL:
                deals.setdefault(test, []).append((k[4], n))
    positions = None
    by_position: dict[tuple[Any, ...], tuple[int, int]] = {}
    if whole and len(deals) == 1:
        positions = _derived_positions(share, next(iter(deals.values())))
        by_position = _by_position(share, next(iter(deals.values())))
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
    packed = zlib.compress(pack_value(tuple(parts)))
    if not whole:
        return pack_value((packed,))
    rowed = _rowed(own, deals)
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


def deals_of_planes(planes: bytes) -> list[bytes]:
    """:func:`deal_of_planes` of each 13 bytes of ``planes``, at once with numpy (the
    archive extra; one at a time without it).

    >>> hands = [sum(1 << card for card in range(13 * i, 13 * i + 13)) for i in range(4)]
    >>> deals = [(a | b << 52 | c << 104).to_bytes(20, "big")
    ...          for a, b, c in (hands[:3], hands[3:0:-1], hands[1:])]
    >>> deals_of_planes(b"".join(deal_planes(d) or b"" for d in deals)) == deals
    True
    """
    try:  # each deal's 20 bytes as one bytes object (numpy's void items: no byte stripped)
        out: list[bytes] = deal_array_of_planes(planes).tolist()
        return out
    except ImportError:  # pragma: no cover - numpy not installed
        return [deal_of_planes(planes[j:j + 13]) for j in range(0, len(planes), 13)]


def deal_array_of_planes(planes: bytes) -> Any:
    """:func:`deals_of_planes` as a numpy array of 20-byte values (``V20``)."""
    import numpy as np
    n = len(planes) // 13
    padded = np.zeros((n, 16), dtype=np.uint8)  # the 104 bits as two words, big-endian
    padded[:, 3:] = np.frombuffer(planes, dtype=np.uint8, count=13 * n).reshape(n, 13)
    words = padded.view(">u8").astype(np.uint64)
    m52 = np.uint64(_M52)
    low = words[:, 1] & m52
    high = ((words[:, 0] << np.uint64(12)) | (words[:, 1] >> np.uint64(52))) & m52
    c = low & high
    a, b = low ^ c, high ^ c
    out = np.empty((n, 3), dtype=">u8")  # 24 bytes: the deal's 160 bits after 32 zero bits
    out[:, 0] = c >> np.uint64(24)
    out[:, 1] = ((c & np.uint64((1 << 24) - 1)) << np.uint64(40)) | (b >> np.uint64(12))
    out[:, 2] = ((b & np.uint64(0xFFF)) << np.uint64(52)) | a
    return np.ascontiguousarray(out.view(np.uint8).reshape(n, 24)[:, 4:]).view(f"V{_DEAL}").ravel()


__all__ = ["deal_array_of_planes", "deal_of_planes", "deal_planes", "deals_of_planes",
           "pack_share", "share_deals", "unpack_share"]
