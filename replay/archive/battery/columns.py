"""The deal measures of :mod:`~tarneeb.replay.archive.battery.measures`, tallied a chunk at a time
with numpy: the same :class:`~tarneeb.audit.fairness.Tally` counts and sums, at a small
part of the cost.

:func:`~tarneeb.replay.archive.battery.measures.tally_match` adds each observation of each deal
to the tally one by one (about a hundred dictionary updates a deal). Here a match's deals
are only *recorded* (:meth:`DealColumns.add_match`); at the end of a chunk
:meth:`DealColumns.finish` turns them into **per-deal columns** (numpy arrays, one row a
deal) and every test's observations are counted over the whole chunk at once: the tally
``tally_match`` would have built, key for key (``tests/test_archive_columns.py``), and a
snapshot of it after each match (:func:`~tarneeb.replay.archive.seen.snapshot`'s format),
so the summary can still take a repeated match's share out again.

The interface, for a new family of tests:

* a per-deal value is a column of ``_Columns`` (``masks`` ``(n, 4)`` uint64, the
  seats' 52-bit hands; ``dealer``, ``thirteenth`` (-1: none), ``trump`` (-1: none),
  ``number`` (the deal's place in its match, from 1), ``totals`` ``(n, 2)`` the teams'
  scores before it, ``scores`` ``(n, 4)`` the seats', ``match`` the match's index in
  the chunk) or one derived from them once (``hcp``, ``aces``, ``lengths``, ``voids``,
  ``pattern``, ``trumps``, ``(n, 4)`` each); a per-match value (rules, labels, names,
  key) is an array indexed by match, broadcast with ``cols.match``. A new per-deal
  input is one more value in :meth:`DealColumns.add_match`'s row (``NUMBERS``) and one
  more column in ``_Columns``;
* a test's observations are added to a :class:`~tarneeb.audit.fairness.streams.Streams`:
  ``count`` (one count per row of a selection, under a key made from a code per row),
  ``total`` (a value summed), ``direct`` and ``single`` for per-match entries and one-off
  keys; the key is the :class:`~tarneeb.audit.fairness.Tally` key the test reads.

Without numpy (no ``archive`` extra) the audit keeps ``tally_match``, a match at a time.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from tarneeb.audit.fairness import DrawSum, Tally
from tarneeb.audit.fairness.joint import PACK
from tarneeb.audit.fairness.streams import Int, Key, KeyOf, Streams
from tarneeb.replay.archive.battery.measures import (
    _ALL_CARDS,
    _ALL_RANKS,
    _ALL_SEATS,
    _ALL_SUITS,
    _CARD_NAMES,
    _CONSECUTIVE,
    _DEALS,
    _FINGERPRINT,
    _HANDS,
    _HCP_HAND,
    _KEEP,
    _NEXT_SEAT,
    _PATTERN,
    _POSITIONS_TEST,
    _RANK_POPULATION,
    _ROWS,
    _TEAM_HCP,
    _VOIDS,
    ACES,
    DECK_ORDER,
    FIRST_DEALER,
    HCP,
    HCP_POPULATION,
    KINGS,
    LABELS,
    LONG,
    PATTERN,
    PLAYER_IN_RULE_SET,
    POSITIONS,
    RANK_NAMES,
    REPEAT_SAMPLE,
    REPEATED,
    REPEATED_DEALS,
    REVEALED,
    REVEALED_RANK,
    SUIT_SIZES,
    TABLE_SEATS,
    TEAMS,
    TRUMP_SUIT,
    TRUMPS,
    VOIDS,
    _class_ref,
    _paired_ref,
    _pattern_name,
    _sum_ref,
    _trump_population,
    after_deal,
    in_rule_set,
    is_deal,
)
from tarneeb.replay.archive.battery.trumpcols import TRUMP_POPS as _POPS
from tarneeb.replay.archive.battery.trumpcols import (
    _part,
    honour_columns,
    joint_honours,
    joint_trumps,
    paired_drawn,
)
from tarneeb.replay.rules.cards import FULL_DECK, SUIT_MASKS, SUIT_NAMES, card_name
from tarneeb.replay.rules.ruleset import RuleSet
from tarneeb.replay.verify.compiled import LazyHistory
from tarneeb.replay.verify.coredeals import deals_in, with_core

_U64 = np.uint64
_SUIT_MASKS = np.array(SUIT_MASKS, dtype=_U64)
_RANKS = [np.uint64(sum(1 << (13 * s + r) for s in range(4))) for r in range(13)]
_BYTE_COUNTS = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)


def popcount(a: npt.NDArray[np.uint64]) -> Int:
    """The number of bits set in each element of a uint64 array."""
    if hasattr(np, "bitwise_count"):  # numpy 2
        out: Int = np.bitwise_count(a).astype(np.int64)
        return out
    b = np.ascontiguousarray(a).view(np.uint8).reshape(*a.shape, 8)
    out = _BYTE_COUNTS[b].sum(axis=-1)
    return out


def _pop_code(rules: RuleSet) -> int:
    pop = _trump_population(rules)
    return 0 if pop is None else _POPS.index(pop)


@dataclass
class _Match:
    rules: RuleSet
    labels: int  # computer seats as bits (-1: no labels)
    key: str
    names: tuple[str, ...] | None
    leaf: tuple[bytes, int] | None
    deals: int


class DealColumns:
    """The deals of a chunk's matches, recorded as they are verified, then tallied
    together (:meth:`finish`)."""

    def __init__(self) -> None:
        self.matches: list[_Match] = []
        self.masks: list[int] = []  # four a deal
        self.deal: list[int] = []  # per deal: match, dealer, thirteenth, trump, number,
        # team totals (2), seat scores (4), declarer, named trump, the deal before won by
        # (0 neither, 1 seats 1 and 3, 2 the others): NUMBERS values
        self.core: list[tuple[int, bytes, RuleSet]] = []  # core-confirmed: index, output, rules

    NUMBERS = 14

    def add_core(self, rules: RuleSet, computer: Sequence[bool], key: str | None,
                 rows: bytes, names: Sequence[str] | None = None,
                 leaf: tuple[bytes, int] | None = None) -> int:
        """:meth:`add_match` of a match the core confirmed, from its output (decoded later)."""
        self.core.append((len(self.matches), rows, rules))
        return self._match(rules, computer, key, names, leaf, deals_in(rows))

    def _match(self, rules: RuleSet, computer: Sequence[bool], key: str | None,
               names: Sequence[str] | None, leaf: tuple[bytes, int] | None, deals: int) -> int:
        labels = sum(1 << s for s in range(4) if computer[s]) if len(computer) == 4 else -1
        self.matches.append(_Match(rules, labels, key or "unsigned",
                                   _interned(names) if names is not None and len(names) == 4
                                   else None, leaf, deals))
        return deals

    def add_match(self, rules: RuleSet, computer: Sequence[bool], key: str | None,
                  hands: Sequence[Any], names: Sequence[str] | None = None,
                  leaf: tuple[bytes, int] | None = None) -> int:
        """Record one match's deals, as :func:`~tarneeb.replay.archive.battery.measures.tally_match`
        takes them; returns the number of deals recorded."""
        index = len(self.matches)
        totals = (0, 0)
        scores: Sequence[int] = (0, 0, 0, 0)
        deals = 0
        won = 0  # the deal before: 1 won by seats 1 and 3, 2 by the others, 0 neither
        named = rules.trump == "named"
        masks, deal = self.masks, self.deal
        for hand in hands:
            m = hand.hands
            if not (len(m) == 4 and m[0] | m[1] | m[2] | m[3] == FULL_DECK  # 52 cards,
                    and m[0].bit_count() == m[1].bit_count() == m[2].bit_count()
                    == m[3].bit_count() == 13) and not is_deal(m):  # so 13 each, once
                continue
            deals += 1
            d = hand.dealer
            thirteenth = hand.thirteenth
            trump = rules.trump_for_deal(thirteenth)
            declarer = suit = -1
            if named and getattr(hand, "declarer", None) is not None \
                    and getattr(hand, "trump", None) is not None \
                    and not getattr(hand, "cancelled", False):
                declarer, suit = hand.declarer, hand.trump
            masks.extend(m)
            deal.extend((index, d, -1 if thirteenth is None else thirteenth,
                         -1 if trump is None else trump, deals, *totals, *scores,
                         declarer, suit, won))
            totals, scores, won = after_deal(hand, totals, scores)
        return self._match(rules, computer, key, names, leaf, deals)

    def finish(self) -> tuple[Tally, list[Any]]:
        """The tally of every match recorded, and the snapshot after each match that has
        deals (in order: :func:`~tarneeb.replay.archive.seen.snapshot`'s)."""
        shared = [i for i, m in enumerate(self.matches) if m.deals]
        s = Streams(len(self.matches))
        if self.deal or self.core:
            c = _Columns(self, *with_core(
                np.array(self.deal, dtype=np.int64).reshape(-1, DealColumns.NUMBERS),
                np.array(self.masks, dtype=_U64).reshape(-1, 4), self.core))
            _tally_columns(s, c)
            _per_match(s, c, self.matches)
        return s.tally(shared)


class ChunkTallies:
    """Per origin (proven, recorded), the deals of a chunk's matches, recorded as each
    log is verified and tallied at the chunk's end (:meth:`finish`)."""

    def __init__(self) -> None:
        self.columns: dict[str, DealColumns] = {}
        self.rows: list[tuple[int, str]] = []  # the rows whose match has deals, and origin

    def add(self, row: int, origin: str, v: Any, key: str | None,
            leaf: tuple[bytes, int] | None) -> None:
        """The deals of the verdict ``v`` (the log at ``row``), under signing ``key``."""
        # a log the compiled core confirmed gives its deals as the core's output
        cols = self.columns.setdefault(origin, DealColumns())
        rows = v.history.rows if isinstance(v.history, LazyHistory) else None
        if (cols.add_core(v.rules, v.computer, key, rows, v.names, leaf) if rows is not None
                else cols.add_match(v.rules, v.computer, key, v.history, v.names, leaf)):
            self.rows.append((row, origin))

    def finish(self, tallies: dict[str, Tally], shares: list[Any]) -> None:
        """Each origin's tally into ``tallies``, each row's snapshot into ``shares``."""
        for origin, cols in self.columns.items():
            tallies[origin], snaps = cols.finish()
            for (row, _), snap in zip((r for r in self.rows if r[1] == origin), snaps,
                                      strict=True):
                shares[row] = snap


class _Columns:
    """Per-deal columns, and what is derived from them."""

    def __init__(self, d: DealColumns, nums: Int, masks: npt.NDArray[np.uint64],
                 deal_bytes: list[bytes]) -> None:
        self.n = len(nums)
        self.masks = masks
        (self.match, self.dealer, self.thirteenth, self.trump, self.number) = nums[:, :5].T
        self.totals, self.scores = nums[:, 5:7], nums[:, 7:11]
        self.declarer, self.named, self.won = nums[:, 11], nums[:, 12], nums[:, 13]
        self.deal_bytes = deal_bytes
        ms = d.matches
        index: dict[RuleSet, int] = {}  # two rule sets may share a name; equal ones, one
        by_id: dict[int, int] = {}  # a match's rules found by identity first
        rid = np.array([by_id[id(m.rules)] if id(m.rules) in by_id else by_id.setdefault(
            id(m.rules), index.setdefault(m.rules, len(index))) for m in ms])[self.match]
        distinct = list(index)
        self.rule_names = sorted({r.name for r in distinct})
        self.rule_id = np.array([self.rule_names.index(r.name) for r in distinct],
                                dtype=np.int64)[rid]
        self.reveals = np.array([r.reveals_card for r in distinct])[rid]
        pops = np.array([_pop_code(r) for r in distinct], dtype=np.int64)[rid]
        self.pop = np.where(self.trump >= 0, pops, 0)
        self.target = np.array([r.target for r in distinct], dtype=np.int64)[rid]
        keys = sorted({m.key for m in ms})
        self.key_names = keys
        self.key_id = np.array([keys.index(m.key) for m in ms], dtype=np.int64)[self.match]
        self.labels = np.array([m.labels for m in ms], dtype=np.int64)[self.match]
        names: dict[str, int] = {}
        per_seat = np.array([[names.setdefault(x, len(names)) for x in m.names]
                             if m.names is not None else [-1] * 4 for m in ms],
                            dtype=np.int64).reshape(-1, 4)
        self.player_names = list(names)
        self.names = per_seat[self.match]
        # derived, per deal and seat
        hands = self.masks
        self.hcp: Int = (4 * popcount(hands & _RANKS[12]) + 3 * popcount(hands & _RANKS[11])
                         + 2 * popcount(hands & _RANKS[10]) + popcount(hands & _RANKS[9]))
        self.aces, self.kings = popcount(hands & _RANKS[12]), popcount(hands & _RANKS[11])
        self.lengths = np.stack([popcount(hands & _SUIT_MASKS[s]) for s in range(4)], axis=-1)
        self.voids = (self.lengths == 0).sum(axis=-1)
        self.long = (self.lengths >= 5).sum(axis=-1)
        srt = -np.sort(-self.lengths, axis=-1)
        self.pattern = _PATTERN_INDEX[((srt[..., 0] * 14 + srt[..., 1]) * 14 + srt[..., 2]) * 14
                                      + srt[..., 3]]
        suit = _SUIT_MASKS[np.maximum(self.trump, 0)]
        self.trumps = np.where(self.trump[:, None] >= 0, popcount(hands & suit[:, None]), 0)
        self.trumps[self.pop == 3, self.dealer[self.pop == 3]] -= 1  # a trump shown: left out
        self.honour_code, self.honours = honour_columns(hands, self.trump, self.pop,
                                                        self.thirteenth, self.dealer)
        self.rows = np.arange(self.n)


def _patterns() -> tuple[npt.NDArray[np.int64], list[str]]:
    """The suit patterns of a hand (4 lengths, largest first, adding up to 13), each by
    its index: a table from the lengths (base 14) to it, and the names."""
    shapes = [(a, b, c, 13 - a - b - c) for a in range(14) for b in range(a + 1)
              for c in range(b + 1) if 0 <= 13 - a - b - c <= c]
    index = np.full(14 ** 4, -1, dtype=np.int64)
    index[[((a * 14 + b) * 14 + c) * 14 + e for a, b, c, e in shapes]] = range(len(shapes))
    return index, [_pattern_name(shape) for shape in shapes]


_PATTERN_INDEX, _PATTERN_NAMES = _patterns()


def _const(key: Key) -> KeyOf:
    return lambda _: key


def _paired_of(pop: tuple[tuple[int, int], ...]) -> Callable[[int], Any]:
    return lambda kc: _paired_ref(pop, 13 * kc, kc, 13 * (4 - kc), 4 - kc)


def _one_hand(s: Streams, c: _Columns, rows: Int, seats: Int, gid: Int,
              groups: Sequence[tuple[str, str]], with_mean: bool, voids: bool) -> None:
    """``one_hand`` of measures.py for the deals ``rows``, seat ``seats`` each, under
    ``groups[gid]``; ``voids``: the voids too (a fit, or fit and mean with the mean)."""
    kind = "fit+mean" if with_mean else "fit"
    match = c.match[rows]
    h = c.hcp[rows, seats]
    s.count(match, gid * 64 + h,
            lambda k: (kind, (HCP, *groups[k >> 6]), _HCP_HAND, k & 63))
    s.count(match, gid * 64 + c.pattern[rows, seats],
            lambda k: ("fit", (PATTERN, *groups[k >> 6]), _PATTERN, _PATTERN_NAMES[k & 63]))
    if voids:
        s.count(match, gid * 8 + c.voids[rows, seats],
                lambda k: (kind, (VOIDS, *groups[k >> 3]), _VOIDS, k & 7))
    pop = c.pop[rows]
    t = pop > 0
    if t.any():
        known = (c.reveals[rows] & (c.dealer[rows] == seats)).astype(np.int64)
        code = ((gid * 4 + pop) * 2 + known) * 16 + c.trumps[rows, seats]
        s.count(match[t], code[t],
                lambda k: (kind, (TRUMPS, *groups[k // 128]),
                           _sum_ref(_POPS[k // 32 % 4], 13 - (k >> 4 & 1), 1), k & 15))


def _joint(s: Streams, c: _Columns, group: tuple[str, str],
           split: Callable[[Int], list[Int]], dealer_part: Int, k: int,
           classes: Sequence[str]) -> None:
    """``sums`` of measures.py: ``split`` turns a per-seat column (``(n, 4)``) into the
    sums of each part (the positions, the table seats, the teams), ``dealer_part`` the
    part holding the dealer, ``k`` the seats in a part."""
    measures: list[tuple[str, Any, Int]] = [
        (HCP, _sum_ref(HCP_POPULATION, 13 * k, k), c.hcp),
        (ACES, _sum_ref(_RANK_POPULATION, 13 * k, k), c.aces),
        (KINGS, _sum_ref(_RANK_POPULATION, 13 * k, k), c.kings),
    ]
    for measure in classes:
        at_least = 0 if measure == VOIDS else 5
        measures.append((measure, _class_ref(SUIT_SIZES, 13, at_least, k),
                         c.voids if measure == VOIDS else c.long))
    for measure, ref, col in measures:
        test = (measure, *group)
        per_part = split(col)
        refs = (ref,) * len(per_part)
        s.count(c.match, None, _const(("joint", test, refs)))
        for i, v in enumerate(per_part):
            s.total(c.match, None, _const(("joint", test, refs, i)), v)
        if measure == HCP:  # trumps come after the points, aces and kings
            joint_trumps(s, c, group, split, dealer_part, k)
            joint_honours(s, c, group, split, dealer_part, k)


def _paired(s: Streams, c: _Columns, rows: Int, group: tuple[str, str]) -> None:
    """Computer against human seats in the deals ``rows`` (both labels present)."""
    comp = (c.labels[rows, None] >> np.arange(4)) & 1  # (r, 4): seat is a computer seat
    kc = comp.sum(axis=1)
    match = c.match[rows]
    dealer_comp = comp[np.arange(len(rows)), c.dealer[rows]]
    for measure, col, pop in ((HCP, c.hcp, HCP_POPULATION), (ACES, c.aces, _RANK_POPULATION),
                              (KINGS, c.kings, _RANK_POPULATION)):
        vx = (col[rows] * comp).sum(axis=1)
        vy = col[rows].sum(axis=1) - vx
        _pairs(s, match, kc, group, measure, vx, vy, _paired_of(pop))
        if measure == HCP:  # the trumps and trump honours after the points
            paired_drawn(s, c, rows, comp, kc, dealer_comp, group, _pairs)


def _pairs(s: Streams, match: Int, code: Int, group: tuple[str, str], measure: str,
           vx: Int, vy: Int, ref: Callable[[int], Any]) -> None:
    test = (measure, *group)
    s.count(match, code, lambda k: ("paired", test, ref(k)))
    s.total(match, code, lambda k: ("paired-x", test, ref(k)), vx)
    s.total(match, code, lambda k: ("paired-y", test, ref(k)), vy)


def _covariate(s: Streams, match: Int, test: Key, x: Int, y: Int) -> None:
    s.count(match, None, _const(("covariate", test, _TEAM_HCP)))
    for what, v in (("x", x), ("xx", x * x), ("y", y), ("xy", x * y)):
        s.total(match, None, _const(("covariate-" + what, test, _TEAM_HCP)), v)


def _tally_columns(s: Streams, c: _Columns) -> None:
    """Every per-deal observation of ``tally_match``, over all the deals at once."""
    n, rows, d = c.n, c.rows, c.dealer
    # the revealed card, its rank, the trump suit
    r = np.flatnonzero(c.reveals & (c.thirteenth >= 0) & (c.trump >= 0))
    if len(r):
        match, t = c.match[r], c.thirteenth[r]
        s.count(match, t, lambda k: ("fit", (REVEALED, "all", "all"), _ALL_CARDS,
                                     card_name(k)))
        s.count(match, t % 13, lambda k: ("fit", (REVEALED_RANK, "all", "all"), _ALL_RANKS,
                                          RANK_NAMES[k]))
        s.count(match, c.trump[r], lambda k: ("fit", (TRUMP_SUIT, "all", "all"), _ALL_SUITS,
                                              SUIT_NAMES[k]))
        s.count(match, c.key_id[r] * 52 + t, lambda k: (
            "fit", (REVEALED, "key", c.key_names[k // 52]), _ALL_CARDS, card_name(k % 52)))
    # each hand by its seat relative to the dealer
    seats = np.tile(np.arange(4), n)
    deal4 = np.repeat(rows, 4)
    position = (seats - d[deal4]) & 3
    position_groups = [("seat", p) for p in POSITIONS]
    _one_hand(s, c, deal4, seats, position, position_groups, False, False)
    s.count(c.match[deal4], position * 8 + c.voids[deal4, seats],
            lambda k: ("fit+mean", (VOIDS, *position_groups[k >> 3]), _VOIDS, k & 7))
    # the first hand dealt, by key and by rule set
    first = (d + 1) & 3
    _one_hand(s, c, rows, first, c.key_id, [("key", k) for k in c.key_names], True, True)
    _one_hand(s, c, rows, first, c.rule_id, [("rule set", k) for k in c.rule_names], True,
              True)
    # joint tests of the four positions, the four table seats, the two teams
    by_position = (d[:, None] + np.arange(4)) & 3  # the seats, from the dealer's

    def positions(col: Int) -> list[Int]:
        at = col[rows[:, None], by_position]
        return [at[:, p] for p in range(4)]

    _joint(s, c, ("seat", "|".join(POSITIONS)), positions, np.zeros(n, dtype=np.int64), 1,
           (LONG,))
    _joint(s, c, ("table seat", "|".join(TABLE_SEATS)), lambda col: [col[:, p] for p in
                                                                     range(4)],
           d, 1, (VOIDS, LONG))
    _joint(s, c, ("team", "|".join(TEAMS)), lambda col: [col[:, 0] + col[:, 2],
                                                         col[:, 1] + col[:, 3]],
           d & 1, 2, (VOIDS, LONG))
    # every deal, for repeats; the deck's order
    test = (REPEATED_DEALS, "all", "every deal")
    s.single([("repeat", test, _DEALS, 1, value) for value in c.deal_bytes], c.match)
    m = c.masks
    nxt = np.zeros(n, dtype=np.int64)
    for q in range(4):
        nxt += popcount(m[:, q] & (m[:, (q + 1) & 3] >> _U64(1)))
    s.both(c.match, None, lambda _: ("bounded", (DECK_ORDER, "all",
                                                 "card c+1 to the seat after card c's"),
                                     _NEXT_SEAT), nxt)
    # a sample of the hands, by a fingerprint of their cards
    kept = np.argwhere(m * _U64(_FINGERPRINT) < _U64(_KEEP))
    s.single([("repeat", (REPEATED, "all", "13-card hands"), _HANDS, REPEAT_SAMPLE, v)
              for v in m[kept[:, 0], kept[:, 1]].tolist()], c.match[kept[:, 0]])
    # seat labels: each label's first hand in dealing order, and computer against human
    lab = np.flatnonzero(c.labels >= 0)
    if len(lab):
        order = (d[lab, None] + np.array([1, 2, 3, 0])) & 3  # seats in dealing order
        comp = (c.labels[lab, None] >> order) & 1
        label_groups = [("label", LABELS[0]), ("label", LABELS[1])]
        for g, want in ((0, 1), (1, 0)):
            has = (comp == want).any(axis=1)
            seat = order[np.arange(len(lab)), (comp == want).argmax(axis=1)]
            _one_hand(s, c, lab[has], seat[has], np.full(int(has.sum()), g, dtype=np.int64),
                      label_groups, False, True)
        both = lab[(c.labels[lab] > 0) & (c.labels[lab] < 15)]
        _paired(s, c, both, ("computer vs human", "per hand"))
        _paired(s, c, both[c.number[both] == 1], ("first deal", "computer vs human"))
    # the trump named by the declarer: the other hands' length in it
    nt = np.flatnonzero(c.declarer >= 0)
    if len(nt):
        suit = _SUIT_MASKS[c.named[nt]]
        decl = c.declarer[nt]
        own = popcount(m[nt, decl] & suit)
        test3 = (TRUMPS, "named by declarer", "left|partner|right")

        def refs(k: int) -> tuple[Any, ...]:
            return (_sum_ref(((1, 13 - k), (0, 26 + k)), 13, 1),) * 3

        s.count(c.match[nt], own, lambda k: ("joint", test3, refs(k)))
        for i, dd in enumerate((1, 2, 3)):
            v = popcount(m[nt, (decl + dd) & 3] & suit)
            s.total(c.match[nt], own, _part(lambda k: ("joint", test3, refs(k)), i), v)
    # the match's state before the deal
    points = c.hcp[:, 0] + c.hcp[:, 2]
    diff = c.totals[:, 1] - c.totals[:, 0]
    sign = np.sign(diff)
    cut = -(-3 * c.target // 4)
    near0 = np.maximum(c.scores[:, 0], c.scores[:, 2]) >= cut
    near1 = np.maximum(c.scores[:, 1], c.scores[:, 3]) >= cut
    for name, x in (("side behind", sign), ("score difference", diff),
                    ("side behind by hand number", sign * c.number),
                    ("close to the target", near0.astype(np.int64) - near1)):
        _covariate(s, c.match, (HCP, "match state", name), x, points)
    later = np.flatnonzero(c.number > 1)  # the deal before is the row before
    _covariate(s, c.match[later], (HCP, "serial", "previous deal"), points[later - 1],
               points[later])
    # each player by name
    named = c.names[deal4, seats]
    p = named >= 0
    s.both(c.match[deal4][p], named[p], lambda k: ("member", (HCP, "player", "by name"),
                                                    c.player_names[k], _HCP_HAND),
           c.hcp[deal4, seats][p])
    rule_sets = len(c.rule_names)  # and by name in each rule set apart
    s.both(c.match[deal4][p], named[p] * rule_sets + c.rule_id[deal4][p],
           lambda k: ("member", PLAYER_IN_RULE_SET, in_rule_set(
               c.player_names[k // rule_sets], c.rule_names[k % rule_sets]), _HCP_HAND),
           c.hcp[deal4, seats][p])
    # each card's position relative to the dealer, per match
    held = np.take_along_axis(m, by_position, axis=1)  # (n, 4): the positions' hands
    bits = np.unpackbits(held.astype("<u8").view(np.uint8).reshape(n, 4, 8), axis=-1,
                         bitorder="little")[..., :52].reshape(n, 208)  # 0/1 bytes
    starts = np.flatnonzero(np.diff(c.match, prepend=-1))  # a match's deals are together
    flat = np.zeros((s.m, 208), dtype=np.int64)
    words = bits.astype(np.uint32).view(np.uint64)  # 32-bit lanes (sums < 2**32: no carry)
    flat[c.match[starts]] = np.add.reduceat(words, starts, axis=0).view(np.uint32)
    if flat.any():
        cell_code = np.repeat(np.arange(208), s.m)
        match_of = np.tile(np.arange(s.m), 208)
        v = flat.T.reshape(-1)
        nz = v > 0
        s.total(match_of[nz], cell_code[nz],
                lambda k: ("placed", _POSITIONS_TEST, k // 52, k % 52), v[nz])


def _interned(names: Sequence[str]) -> tuple[str, ...]:
    """The names, each one string however many logs name it (the summary keeps a match's
    names in its row: one copy, not one a log)."""
    return tuple(sys.intern(n) if type(n) is str else n for n in names)


def _per_match(s: Streams, c: _Columns, matches: Sequence[_Match]) -> None:
    """A match's entries made once: its first dealer (its first deal's), its deals' count
    for the card positions, its points and deals for the luck of consecutive matches."""
    f = np.flatnonzero(c.number == 1)
    match, dealer = c.match[f], c.dealer[f]
    s.count(match, dealer, lambda k: ("fit", (FIRST_DEALER, "all", "all"), _ALL_SEATS, k))
    s.count(match, c.key_id[f] * 4 + dealer, lambda k: (
        "fit", (FIRST_DEALER, "key", c.key_names[k >> 2]), _ALL_SEATS, k & 3))
    labels = c.labels[f]
    kc = popcount(np.maximum(labels, 0).astype(_U64))
    some = (labels >= 0) & (kc > 0) & (kc < 4)
    if some.any():
        s.both(match[some], kc[some], lambda k: (
            "mean", (FIRST_DEALER, "label", "computer"), DrawSum(((1, k), (0, 4 - k)), 1)),
            (labels[some] >> dealer[some]) & 1)
    points = np.bincount(c.match, weights=c.hcp[:, 0] + c.hcp[:, 2], minlength=s.m)
    # per deal, the seats' points and seats 1 and 3's state before it (measures._row)
    t0, t1 = c.totals[:, 0], c.totals[:, 1]
    state = (np.where(t1 > t0, 1, np.where(t0 > t1, 2, 0))
             | np.where(2 * np.maximum(t0, t1) >= c.target, 4, 0) | 8 * c.won
             | np.where(c.number == 1, 32, 0))
    rows = np.concatenate((c.hcp, state[:, None]), axis=1).astype(np.uint8).tobytes()
    first = 0
    for j, m in enumerate(matches):
        if not m.deals:
            continue
        s.direct(0, ("placed", _POSITIONS_TEST, SUIT_SIZES, _CARD_NAMES), j, m.deals)
        leaf = (int.from_bytes(m.leaf[0][:8], "big"), m.leaf[1]) if m.leaf is not None \
            else (0, -1)
        s.direct(0, ("rows", _ROWS, _HCP_HAND, (*leaf, m.names or (), m.labels, rows[
            5 * first:5 * (first + m.deals)])), j, 1)
        first += m.deals
        if m.leaf is not None:
            s.direct(0, ("ordered", _CONSECUTIVE, _TEAM_HCP), j, 1)
            s.direct(1, ("ordered", _CONSECUTIVE, _TEAM_HCP, leaf[0], m.leaf[1]), j,
                     (int(points[j]) << PACK) + m.deals)


__all__ = ["ChunkTallies", "DealColumns", "popcount"]
