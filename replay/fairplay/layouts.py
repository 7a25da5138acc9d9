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
makes them drop out of the null (docs/FAIRPLAY.md, "The null"). ``keep`` holds seats'
real cards fixed as well (the partnership statistic: the partner's hand known).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
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


def shape_layouts(info: InfoSet, actual: Sequence[Mask], k: int, rng: random.Random,
                  keep: Sequence[int] = ()) -> list[tuple[Mask, Mask, Mask, Mask]]:
    """``k`` layouts uniform among those agreeing with ``info`` in which every seat holds
    as many hidden cards of each suit as in ``actual`` (the real layout), and the seats in
    ``keep`` hold their real cards."""
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


__all__ = ["InfoSet", "NoLayout", "actual_hands", "infoset", "leaders_of", "sample_layouts",
           "shape_layouts"]
