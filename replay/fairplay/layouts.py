"""What a seat knows at a decision, and layouts of the hidden cards drawn from it.

A seat about to play knows its own cards, every card played so far and by whom,
the suits each other seat has shown void in (it did not follow), and the dealer's
revealed card where the rules reveal one. :func:`infoset` gathers that from a
played hand; :func:`sample_layouts` draws layouts of the cards it cannot see,
uniformly among those that agree with it: exactly, by counting the ways each split
of every suit among the other seats can be made (a small dynamic programme over
suits), so no layout is favoured by the order in which cards are placed.

The audit's reference layouts (:func:`shape_layouts`) are drawn uniformly among those
that agree with the information *and* give each hidden hand the real layout's number of
cards in each suit (its shape): the bids, the choice of trump and most of what the
other seats' play tells an honest player depend on shape, and conditioning on it
makes them drop out of the null (docs/FAIRPLAY.md, "The null"). With ``points`` each
hidden hand keeps its real high-card points too (ace 4, king 3, queen 2, jack 1): the
bids show strength as well as shape. The draw stays exact and uniform among the layouts
with those lengths and points: the honours of each suit are placed by enumeration
(weighted by the ways to deal the suit's other cards), and the suits' point vectors
combined two by two, so only the honours' places are counted, never the layouts.
``keep`` holds seats' real cards fixed as well (the partnership statistic: the
partner's hand known).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import product
from math import comb

from tarneeb.replay.rules.cards import SUIT_MASKS, Card, Mask
from tarneeb.replay.rules.scoring import Hand


@dataclass(frozen=True, slots=True)
class InfoSet:
    """What ``seat`` knows before the play at index ``index`` of a hand."""

    seat: int
    index: int  # plays made before this decision
    own: Mask  # the seat's cards still held
    hidden: Mask  # cards unplayed, in no hand the seat can see
    counts: tuple[int, int, int, int]  # cards still held per seat
    voids: tuple[int, int, int, int]  # per seat: bit s set when it showed void in suit s
    known: tuple[Mask, Mask, Mask, Mask]  # per seat: unplayed cards known to be there
    leader: int  # who led the current trick
    trick: tuple[Card, ...]  # the cards in it so far


def leaders_of(hand: Hand) -> list[int]:
    """The seat that leads each trick begun or about to begin (a hand under way too)."""
    first = hand.declarer if hand.declarer is not None else (hand.dealer + 1) & 3
    return [first, *hand.trick_winners]


def infoset(hand: Hand, index: int, reveals: bool, sees: tuple[int, ...] = ()) -> InfoSet:
    """The information set of the seat to play at ``index`` of ``hand`` (a played hand:
    its 52 plays). ``sees``: other seats whose cards it also sees (a partner who shows
    his hand: for the analysis of a partnership that shares hands)."""
    leaders = leaders_of(hand)
    trick_no, pos = divmod(index, 4)
    leader = leaders[trick_no]
    seat = (leader + pos) & 3
    held = list(hand.hands)
    voids = [0, 0, 0, 0]
    for i in range(index):
        t, p = divmod(i, 4)
        s = (leaders[t] + p) & 3
        c = hand.plays[i]
        held[s] &= ~(1 << c)
        if p:
            led = hand.plays[4 * t] // 13
            if c // 13 != led:
                voids[s] |= 1 << led
    known = [0, 0, 0, 0]
    known[seat] = held[seat]
    for s in sees:
        known[s] = held[s]
    if reveals and hand.thirteenth is not None and held[hand.dealer] >> hand.thirteenth & 1:
        known[hand.dealer] |= 1 << hand.thirteenth
    unseen = 0
    for s in range(4):
        unseen |= held[s] & ~known[s]
    return InfoSet(seat, index, held[seat], unseen,
                   (held[0].bit_count(), held[1].bit_count(), held[2].bit_count(),
                    held[3].bit_count()),
                   (voids[0], voids[1], voids[2], voids[3]),
                   (known[0], known[1], known[2], known[3]),
                   leader, tuple(hand.plays[4 * trick_no:index]))


def actual_hands(hand: Hand, index: int) -> tuple[Mask, Mask, Mask, Mask]:
    """The cards each seat really held before play ``index``."""
    leaders = leaders_of(hand)
    held = list(hand.hands)
    for i in range(index):
        t, p = divmod(i, 4)
        held[(leaders[t] + p) & 3] &= ~(1 << hand.plays[i])
    return held[0], held[1], held[2], held[3]


@lru_cache(maxsize=65536)
def _splits(total: int, allowed: tuple[bool, ...], caps: tuple[int, ...],
            ) -> tuple[tuple[tuple[int, ...], int], ...]:
    """Every way to split ``total`` cards of a suit among the seats ``allowed`` (at most
    three), within ``caps``, each with the number of ways to deal the cards so."""
    n = len(caps)
    top = [min(total, c) if a else 0 for c, a in zip(caps, allowed, strict=True)]
    out: list[tuple[tuple[int, ...], int]] = []
    if n == 1:
        if total <= top[0]:
            out.append(((total,), 1))
    elif n == 2:
        for a in range(top[0] + 1):
            if total - a <= top[1]:
                out.append(((a, total - a), comb(total, a)))
    elif n == 3:
        for a in range(top[0] + 1):
            ca = comb(total, a)
            for b in range(min(top[1], total - a) + 1):
                c = total - a - b
                if c <= top[2]:
                    out.append(((a, b, c), ca * comb(total - a, b)))
    elif total == 0:
        out.append(((), 1))
    return tuple(out)


class NoLayout(ValueError):
    """No layout agrees with the information set (a log the replayer would refuse)."""


def sample_layouts(info: InfoSet, k: int, rng: random.Random,
                   ) -> list[tuple[Mask, Mask, Mask, Mask]]:
    """``k`` layouts (the four hands of unplayed cards), uniform among those agreeing
    with ``info``."""
    seats = [s for s in range(4) if info.counts[s] > info.known[s].bit_count()]
    caps0 = tuple(info.counts[s] - info.known[s].bit_count() for s in seats)
    suit_cards = [info.hidden & SUIT_MASKS[x] for x in range(4)]
    totals = [m.bit_count() for m in suit_cards]
    allowed = [tuple(not info.voids[s] >> x & 1 for s in seats) for x in range(4)]
    tables: dict[tuple[int, tuple[int, ...]], tuple[list[tuple[int, ...]], list[int]]] = {}

    def table(x: int, caps: tuple[int, ...]) -> tuple[list[tuple[int, ...]], list[int]]:
        """The splits of suit ``x`` that leave a completable rest, and their weights."""
        key = (x, caps)
        got = tables.get(key)
        if got is None:
            splits: list[tuple[int, ...]] = []
            weights: list[int] = []
            for split, ways in _splits(totals[x], allowed[x], caps):
                rest = tuple(c - a for c, a in zip(caps, split, strict=True))
                w = ways * (count(x + 1, rest) if x < 3 else int(not any(rest)))
                if w:
                    splits.append(split)
                    weights.append(w)
            got = tables[key] = (splits, weights)
        return got

    def count(x: int, caps: tuple[int, ...]) -> int:
        return sum(table(x, caps)[1])

    if count(0, caps0) == 0:
        raise NoLayout("no layout of the hidden cards agrees with the play")
    cards_of = [[c for c in range(13 * x, 13 * x + 13) if suit_cards[x] >> c & 1]
                for x in range(4)]
    out = []
    for _ in range(k):
        hands = list(info.known)
        caps = caps0
        for x in range(4):
            splits, weights = table(x, caps)
            split = splits[_pick(weights, rng)]
            caps = tuple(c - a for c, a in zip(caps, split, strict=True))
            cards = cards_of[x][:]
            rng.shuffle(cards)
            _hand_out(hands, cards, seats, split)
        out.append((hands[0], hands[1], hands[2], hands[3]))
    return out


POINTS = {12: 4, 11: 3, 10: 2, 9: 1}  # rank (2 is 0, ace 12) → high-card points


def hcp(mask: Mask) -> int:
    """High-card points of the cards in ``mask``: ace 4, king 3, queen 2, jack 1."""
    return sum(p * sum(mask >> (13 * x + r) & 1 for x in range(4)) for r, p in POINTS.items())


def shape_layouts(info: InfoSet, actual: Sequence[Mask], k: int, rng: random.Random,
                  keep: Sequence[int] = (), points: bool = False,
                  ) -> list[tuple[Mask, Mask, Mask, Mask]]:
    """``k`` layouts uniform among those agreeing with ``info`` in which every seat holds
    as many hidden cards of each suit as in ``actual`` (the real layout), and the seats in
    ``keep`` hold their real cards; with ``points``, every seat also holds as many
    high-card points among the hidden cards as in ``actual``."""
    base = list(info.known)
    for s in keep:
        base[s] |= actual[s] & info.hidden
    free = [s for s in range(4) if s not in keep]
    deal = []
    for x in range(4):
        cards = [c for c in range(13 * x, 13 * x + 13) if info.hidden >> c & 1
                 and not any(actual[s] >> c & 1 for s in keep)]
        counts = [(actual[s] & info.hidden & SUIT_MASKS[x]).bit_count() for s in free]
        if sum(counts) != len(cards):
            raise NoLayout("the real layout does not hold the hidden cards")
        deal.append((cards, counts))
    if points and k:
        # only the seats with hidden cards to receive (not the one deciding)
        live = [i for i, s in enumerate(free) if any(counts[i] for _, counts in deal)]
        if len(live) > 1:
            target = tuple(hcp(actual[free[i]] & info.hidden) for i in live)
            return _points_layouts(base, [free[i] for i in live],
                                   [(cards, [counts[i] for i in live]) for cards, counts in deal],
                                   target, k, rng)
    return _plain(base, free, deal, k, rng)


def _plain(base: list[Mask], free: Sequence[int], deal: Sequence[tuple[list[int], list[int]]],
           k: int, rng: random.Random) -> list[tuple[Mask, Mask, Mask, Mask]]:
    """``k`` layouts: each suit's ``deal`` (cards, counts per free seat) shuffled out."""
    out = []
    for _ in range(k):
        hands = base[:]
        for cards, counts in deal:
            if len(cards) > 1:
                cards = cards[:]
                rng.shuffle(cards)
            _hand_out(hands, cards, free, counts)
        out.append((hands[0], hands[1], hands[2], hands[3]))
    return out


Vec = tuple[int, ...]  # high-card points per free seat
_Table = dict[Vec, tuple[int, list[tuple[Vec, int]]]]  # points → (ways, [(part, ways)])


def _suit_table(cards: Sequence[int], counts: Sequence[int]) -> _Table:
    """Every placement of a suit's honours among the free seats (``owners``: the seat index
    of each honour), grouped by the points it gives each seat, with the ways to deal the
    suit's other cards around it."""
    honours = [c for c in cards if c % 13 in POINTS]
    spots = len(cards) - len(honours)
    n = len(counts)
    out: _Table = {}
    for owners in product(range(n), repeat=len(honours)):
        rest = list(counts)
        pts = [0] * n
        for c, s in zip(honours, owners, strict=True):
            rest[s] -= 1
            pts[s] += POINTS[c % 13]
        if min(rest, default=0) < 0:
            continue
        ways, left = 1, spots
        for r in rest:
            ways *= comb(left, r)
            left -= r
        vec = tuple(pts)
        total, parts = out.get(vec, (0, []))
        parts.append((owners, ways))
        out[vec] = (total + ways, parts)
    return out


def _joined(a: _Table, b: _Table) -> _Table:
    """Two suits' (or pairs') tables as one: each points vector with the ways to make it
    from the two, and its parts ``(the first's vector, ways)``."""
    out: _Table = {}
    for u, (wu, _) in a.items():
        for v, (wv, _) in b.items():
            vec = tuple(x + y for x, y in zip(u, v, strict=True))
            total, parts = out.get(vec, (0, []))
            parts.append((u, wu * wv))
            out[vec] = (total + wu * wv, parts)
    return out


def _points_layouts(base: list[Mask], free: Sequence[int],
                    deal: Sequence[tuple[list[int], list[int]]], target: Vec, k: int,
                    rng: random.Random) -> list[tuple[Mask, Mask, Mask, Mask]]:
    """``k`` layouts uniform among those that deal each suit's cards with its counts per
    free seat and give the free seats ``target`` points in all."""
    tables = [_suit_table(cards, counts) for cards, counts in deal]
    low, high = _joined(tables[0], tables[1]), _joined(tables[2], tables[3])
    firsts: list[Vec] = []
    weights: list[int] = []
    for u, (wu, _) in low.items():
        rest = tuple(t - x for t, x in zip(target, u, strict=True))
        got = high.get(rest)
        if got is not None:
            firsts.append(u)
            weights.append(wu * got[0])
    if not weights:
        raise NoLayout("the real layout does not hold the hidden cards")
    return [_one(tables, low, high, base, free, deal, target, firsts[_pick(weights, rng)], rng)
            for _ in range(k)]


def _one(tables: Sequence[_Table], low: _Table, high: _Table, base: list[Mask],
         free: Sequence[int], deal: Sequence[tuple[list[int], list[int]]], target: Vec,
         u: Vec, rng: random.Random) -> tuple[Mask, Mask, Mask, Mask]:
    """One layout whose first two suits give the free seats ``u`` points."""
    v = tuple(t - x for t, x in zip(target, u, strict=True))
    vecs: list[Vec] = []
    for pair, total in ((0, u), (2, v)):
        joined = low if pair == 0 else high
        parts = joined[total][1]
        first = parts[_pick([w for _, w in parts], rng)][0]
        vecs += [first, tuple(t - x for t, x in zip(total, first, strict=True))]
    hands = base[:]
    for x, (cards, counts) in enumerate(deal):
        parts = tables[x][vecs[x]][1]
        owners = parts[_pick([w for _, w in parts], rng)][0]
        rest = list(counts)
        spots = [c for c in cards if c % 13 not in POINTS]
        for c, s in zip((c for c in cards if c % 13 in POINTS), owners, strict=True):
            hands[free[s]] |= 1 << c
            rest[s] -= 1
        rng.shuffle(spots)
        _hand_out(hands, spots, free, rest)
    return hands[0], hands[1], hands[2], hands[3]


def _hand_out(hands: list[Mask], cards: Sequence[int], seats: Sequence[int],
              counts: Sequence[int]) -> None:
    """Give ``seats`` (in order) the next ``counts`` of ``cards`` each, into ``hands``."""
    start = 0
    for s, a in zip(seats, counts, strict=True):
        for c in cards[start:start + a]:
            hands[s] |= 1 << c
        start += a


def _pick(weights: list[int], rng: random.Random) -> int:
    """An index drawn with probability proportional to its (integer) weight, exactly."""
    r = rng.randrange(sum(weights))
    for i, w in enumerate(weights):
        if r < w:
            return i
        r -= w
    raise AssertionError("unreachable")


__all__ = ["POINTS", "InfoSet", "NoLayout", "actual_hands", "hcp", "infoset", "leaders_of",
           "sample_layouts", "shape_layouts"]
