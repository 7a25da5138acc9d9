"""What a match's deals give, as a share's bytes count it again: the card positions' cells,
the tests by position (a hand's points, void suits and suit pattern), the points of the
match-state row, and a deal's 20 bytes as 13 (two bit planes). Fixed with the state's
format (:mod:`~tarneeb.replay.archive.shares.packing`), whatever the tally's code becomes.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from tarneeb.audit.fairness.exact import TestId

_M52 = (1 << 52) - 1


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
    (:func:`~tarneeb.replay.archive.battery.measures.tally_match`'s row)."""
    out = bytearray()
    for p, mark in zip(points, marks, strict=True):
        r = mark >> 6
        out += bytes((p >> (8 * (-r & 3)) & 255, p >> (8 * ((1 - r) & 3)) & 255,
                      p >> (8 * ((2 - r) & 3)) & 255, p >> (8 * ((3 - r) & 3)) & 255,
                      mark & 63))
    return bytes(out)


def _in_order(deals: list[tuple[bytes, int]], row: bytes, made: list[int] | None = None
              ) -> tuple[list[bytes], bytes] | None:
    """The match's deals (with their counts) in the order of its row, and per deal its
    dealer and state in a byte, when its row is exactly what they give (then the row's
    points are not written: :func:`_row_of` makes them again); else None. ``made``: the
    deals' points (:func:`_deal_points`) made before, in order."""
    left = dict(deals)
    by_seats: dict[bytes, list[tuple[bytes, int]]] = {}  # the seats' points a deal may give
    points = ({d: _deal_points(d) for d in left} if made is None
              else dict(zip((d for d, _ in deals), made, strict=True)))
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


def _derived_positions(placed: list[tuple[Any, int]], cells: Iterable[tuple[Any, int]],
                       deals: list[tuple[bytes, int]]) -> TestId | None:
    """The card positions' test when a share's cells (``cells``: its sums of kind
    ``placed``; ``placed``: its counts of that kind) are exactly those its deals give
    (then they are not written: :func:`unpack_share` counts them again), else None. The
    cells of a position and the deals' cards there are compared as one integer each."""
    n = sum(n for _, n in deals)
    if len(placed) != 1 or placed[0][1] != n or n >> _FIELD:
        return None
    test = placed[0][0][1]
    given = [0, 0, 0, 0]
    for k, v in cells:
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


def _by_position(counts: Iterable[tuple[Any, int]], deals: list[tuple[bytes, int]],
                 made: list[tuple[int, int, int, tuple[str, ...]]] | None = None
                 ) -> dict[tuple[Any, ...], tuple[int, int]]:
    """A share's tests by position (``(kind, (measure, "seat", position), reference)``,
    one reference a test; among ``counts``, the share's counts or those that may be of
    such tests) whose counts are exactly those its deals give by :func:`_by_hand`, with
    what and where: those counts are not written (:func:`unpack_share` counts them again).
    ``made``: :func:`_hand_values` of ``deals``, made before."""
    found: dict[tuple[str, Any], dict[Any, dict[Any, int]]] = {}
    for k, n in counts:
        if (k[0] == "fit" or k[0] == "fit+mean") and type(k[-1]) in (int, str) and len(k) == 4:
            test = k[1]
            if type(test) is tuple and len(test) == 3 and test[1] == "seat" and test[2] in _AT:
                found.setdefault((k[0], test), {}).setdefault(k[2], {})[k[3]] = n
    out: dict[tuple[Any, ...], tuple[int, int]] = {}
    values = (_hand_values(deals) if made is None else made) if found else []
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


class DealFacts:
    """What the functions above make of many deals (20 bytes each), made at once with
    numpy, a chunk's deals at a time (the same numbers): per deal its points
    (:func:`_deal_points`), its void suits and suit patterns by position
    (:func:`_hand_values`), and its cards' positions (the dealer 0, then in dealing order:
    the rest of the deck, then the three hands), with whether a hand holds a card past the
    deck's 52 (no cell gives those)."""

    def __init__(self, deals: list[bytes]) -> None:
        import numpy as np
        self.deals, n = deals, len(deals)
        words = np.zeros((n, 24), dtype=np.uint8)  # the 160 bits after 32 zero bits
        words[:, 4:] = np.frombuffer(b"".join(deals), dtype=np.uint8).reshape(n, 20)
        w = words.view(">u8").astype(np.uint64)
        m52, u = np.uint64(_M52), np.uint64
        a = w[:, 2] & m52
        b = ((w[:, 2] >> u(52)) | (w[:, 1] << u(12))) & m52
        c = (w[:, 1] >> u(40)) | (w[:, 0] << u(24))
        hands = np.stack((m52 ^ (a | b | c), a, b, c), axis=1)
        self.past = (c >> u(52)) != 0
        cards = np.arange(52, dtype=np.uint64)
        self.cells = ((hands[:, :, None] >> cards) & u(1)).astype(np.uint8)  # deal, group, card
        # the suits' lengths (the last suit: every bit from card 39, as _hand_values counts)
        suits = np.stack([np.bitwise_count((hands >> u(13 * k)) & u(0x1FFF)) for k in range(3)]
                         + [np.bitwise_count(hands >> u(39))], axis=2).astype(np.int64)
        voids = (suits == 0).sum(axis=2) << (8 * np.arange(4))
        # the points as the two bit planes place them (a card of a and of b at 3)
        honours = np.array([13 * k + r for k in range(4) for r in range(9, 13)], dtype=np.uint64)
        low, high = a | c, b | c
        at = ((low[:, None] >> honours) & u(1)) | (((high[:, None] >> honours) & u(1)) << u(1))
        worth = np.tile(np.arange(1, 5, dtype=np.uint64), 4)
        self.points: list[int] = (worth << (u(8) * at)).sum(axis=1).tolist()
        self.voids: list[int] = voids.sum(axis=1).tolist()
        ranked = -np.sort(-suits, axis=2)
        codes = (ranked[:, :, 0] << 24) | (ranked[:, :, 1] << 16) | (ranked[:, :, 2] << 8) \
            | ranked[:, :, 3]
        names = {code: f"{code >> 24}-{code >> 16 & 255}-{code >> 8 & 255}-{code & 255}"
                 for code in np.unique(codes).tolist()}
        self.patterns: list[tuple[str, ...]] = [tuple(map(names.__getitem__, row))
                                                for row in codes.tolist()]

    def hand_values(self, at: list[int], times: list[int]
                    ) -> list[tuple[int, int, int, tuple[str, ...]]]:
        """:func:`_hand_values` of the deals ``at`` (their places among the facts'), drawn
        ``times`` each."""
        return [(n, self.points[i], self.voids[i], self.patterns[i])
                for i, n in zip(at, times, strict=True)]

    def positions(self, placed: list[tuple[Any, int]], where: Any, values: Any,
                  tests: Any, at: list[int], times: list[int]) -> TestId | None:
        """:func:`_derived_positions` of the deals ``at`` (drawn ``times`` each) for a
        share whose counts of kind ``placed`` are ``placed``, and whose cells are each a
        position 0 to 3 and a card 0 to 51, whole numbers: per cell its place
        (``52 position + card``) and its value, and the cells' tests (``tests``, each
        once)."""
        import numpy as np
        n = sum(times)
        if len(placed) != 1 or placed[0][1] != n or n >> _FIELD:
            return None
        test = placed[0][0][1]
        if any(t != test for t in tests) or ((values <= 0) | (values >> _FIELD != 0)).any():
            return None
        if self.past[at].any():  # a card past the deck's 52: no cell holds it
            return None
        given = np.zeros(4 * 52, dtype=np.int64)
        np.add.at(given, where, values)
        counted = np.tensordot(np.array(times, dtype=np.int64), self.cells[at], axes=1)
        return test if bool((counted.ravel() == given).all()) else None


__all__ = ["DealFacts", "deal_array_of_planes", "deal_of_planes", "deal_planes",
           "deals_of_planes"]
