"""Deals as measures for the fairness statistics (:mod:`tarneeb.audit.fairness`).

Here the cards and the rules meet the statistics: each dealing attempt a match
went through (the replayer's view, :class:`~tarneeb.replay.rules.engine.Hand`) gives,
per hand, its high-card points (A 4, K 3, Q 2, J 1), its number of trumps where
the deal fixes the trump, its suit-length pattern and its voids; per deal, the
revealed card and the trump suit where the rules reveal one; per match, the first
dealer. Each observation goes to a :class:`~tarneeb.audit.fairness.Tally` with the
exact distribution it follows under a uniform shuffle, grouped three ways:

* by seat relative to the dealer (``dealer+1`` receives the first card, ``dealer``
  the last): one hand per deal in each group;
* by seat label (``computer`` / ``human``): the mean tests use every hand of that
  label (the exact variance of their total allows for their sharing one deck); the
  distribution tests use one hand per deal, the label's first in dealing order, so
  the hands tested are independent;
* by signing key, on the first hand dealt (``dealer+1``), for keys with enough deals
  (see :meth:`tarneeb.replay.archive.audit.ArchiveSummary.fairness`).

Computer against human seats: per deal with both, the points (and trumps) per
computer hand minus per human hand, against its exact mean and variance.

Where the rules reveal the dealer's 13th card and make its colour-mate trump, the
revealed card is known not to be a trump: the dealer's other 12 cards and the
other hands are drawn from the remaining 51 cards, 13 of them trumps, and the
references say so.

>>> from tarneeb.audit.fairness import Tally
>>> from tarneeb.replay.server.simulate import play_logged_match
>>> from tarneeb.replay.verify.replayer import verify_bytes
>>> v = verify_bytes(play_logged_match("eram41", seed=b"dealstats doc"))  # not secret
>>> t = Tally()
>>> tally_match(t, v.rules, v.computer, v.key_id, v.history) == len(v.history)  # deals added
True
>>> sorted({r.test[0] for r in t.results()})  # doctest: +NORMALIZE_WHITESPACE
['first dealer', 'high-card points', 'revealed card', 'suit pattern', 'trump suit',
 'trumps', 'voids']
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import Any

from tarneeb.audit.fairness import (
    DrawEmpty,
    DrawPattern,
    DrawSum,
    PairedDraws,
    Tally,
    Uniform,
    pattern_name,
)
from tarneeb.replay.rules.cards import SUIT_MASKS, SUIT_NAMES, card_name, check_deal
from tarneeb.replay.rules.ruleset import RuleSet

HCP_POPULATION = ((4, 4), (3, 4), (2, 4), (1, 4), (0, 36))
SUIT_SIZES = (13, 13, 13, 13)
POSITIONS = ("dealer", "dealer+1", "dealer+2", "dealer+3")  # by (seat - dealer) % 4
DEALING_ORDER = (1, 2, 3, 0)  # positions, first card first
LABELS = ("computer", "human")

HCP, TRUMPS, PATTERN, VOIDS = "high-card points", "trumps", "suit pattern", "voids"
REVEALED, TRUMP_SUIT, FIRST_DEALER = "revealed card", "trump suit", "first dealer"
MEASURES = (HCP, TRUMPS, PATTERN, VOIDS, REVEALED, TRUMP_SUIT, FIRST_DEALER)

_RANK_MASKS = {rank: sum(1 << (13 * s + rank) for s in range(4)) for rank in range(13)}
_HONOURS = ((4, _RANK_MASKS[12]), (3, _RANK_MASKS[11]), (2, _RANK_MASKS[10]), (1, _RANK_MASKS[9]))
_ALL_CARDS = Uniform(tuple(card_name(c) for c in range(52)))
_ALL_SUITS = Uniform(SUIT_NAMES)
_ALL_SEATS = Uniform((0, 1, 2, 3))


def hcp(mask: int) -> int:
    """High-card points of a hand: ace 4, king 3, queen 2, jack 1.

    >>> from tarneeb.replay.rules.cards import mask_of, parse_card
    >>> hcp(mask_of([parse_card(c) for c in ["AS", "KH", "JD", "2C"]]))
    8
    """
    return sum(w * (mask & m).bit_count() for w, m in _HONOURS)


def suit_lengths(mask: int) -> tuple[int, int, int, int]:
    """The number of cards of each suit (♣ ♦ ♥ ♠)."""
    return tuple((mask & m).bit_count() for m in SUIT_MASKS)  # type: ignore[return-value]


def is_deal(masks: Sequence[int]) -> bool:
    """Four hands of 13 cards that together hold the 52 cards once each
    (:func:`~tarneeb.replay.rules.cards.check_deal` finds nothing wrong)."""
    return check_deal(tuple(masks), 0, None, needs_thirteenth=False) is None


def _trump_population(rules: RuleSet) -> tuple[tuple[int, int], ...] | None:
    """The cards a hand's trumps are drawn from: ``None`` when the deal does not fix a trump."""
    if rules.trump == "fixed":
        return ((1, 13), (0, 39))
    if rules.reveals_card:
        return ((1, 13), (0, 38))  # the revealed card is known, and is no trump
    return None


def tally_match(tally: Tally, rules: RuleSet, computer: Sequence[bool], key: str | None,
                hands: Iterable[Any]) -> int:
    """Add the deals of one match (the engine's ``Hand`` records) to ``tally``.

    Returns the number of deals added.
    """
    labels = [LABELS[0] if c else LABELS[1] for c in computer] if len(computer) == 4 else None
    key_group = key or "unsigned"
    deals = 0
    for hand in hands:
        if not is_deal(hand.hands):  # an attempt the replayer could not deal (not replayed)
            continue
        if deals == 0:
            tally.fit((FIRST_DEALER, "all", "all"), _ALL_SEATS, hand.dealer)
            tally.fit((FIRST_DEALER, "key", key_group), _ALL_SEATS, hand.dealer)
        deals += 1
        _DealTally(tally, rules, hand).add(labels, key_group)
    return deals


class _DealTally:
    """The observations of one deal."""

    def __init__(self, tally: Tally, rules: RuleSet, hand: Any) -> None:
        self.tally, self.rules = tally, rules
        self.masks, self.dealer, self.thirteenth = hand.hands, hand.dealer, hand.thirteenth
        self.trump = rules.trump_for_deal(hand.thirteenth)
        self.pop = _trump_population(rules) if self.trump is not None else None

    def add(self, labels: list[str] | None, key_group: str) -> None:
        tally, dealer = self.tally, self.dealer
        if self.rules.reveals_card and self.thirteenth is not None and self.trump is not None:
            card = card_name(self.thirteenth)
            tally.fit((REVEALED, "all", "all"), _ALL_CARDS, card)
            tally.fit((TRUMP_SUIT, "all", "all"), _ALL_SUITS, SUIT_NAMES[self.trump])
            tally.fit((REVEALED, "key", key_group), _ALL_CARDS, card)
        for seat in range(4):
            self.one_hand(("seat", POSITIONS[(seat - dealer) & 3]), seat, True)
        self.one_hand(("key", key_group), (dealer + 1) & 3, True)
        if labels is not None:
            self.labels(labels)

    def trumps_of(self, seats: Sequence[int], mask: int) -> tuple[DrawSum, int] | None:
        """The trumps among ``seats``' cards and their exact distribution."""
        if self.pop is None or self.trump is None:
            return None
        known = 1 if self.rules.reveals_card and self.dealer in seats else 0
        ref = DrawSum(self.pop, 13 * len(seats) - known, len(seats))
        return ref, (mask & SUIT_MASKS[self.trump]).bit_count()

    def one_hand(self, group: tuple[str, str], seat: int, with_mean: bool) -> None:
        tally, mask = self.tally, self.masks[seat]
        numeric = tally.fit_and_mean if with_mean else tally.fit
        numeric((HCP, *group), _HCP_HAND, hcp(mask))
        lengths = suit_lengths(mask)
        tally.fit((PATTERN, *group), _PATTERN, _pattern_name(lengths))
        numeric((VOIDS, *group), _VOIDS, lengths.count(0))
        t = self.trumps_of((seat,), mask)
        if t is not None:
            numeric((TRUMPS, *group), t[0], t[1])

    def labels(self, labels: list[str]) -> None:
        tally = self.tally
        by_label: dict[str, list[int]] = {}
        for pos in DEALING_ORDER:
            seat = (self.dealer + pos) & 3
            by_label.setdefault(labels[seat], []).append(seat)
        totals: dict[str, tuple[int, int, tuple[DrawSum, int] | None]] = {}
        for label, seats in by_label.items():
            self.one_hand(("label", label), seats[0], False)
            joined = 0
            for s in seats:
                joined |= self.masks[s]
            k = len(seats)
            points = hcp(joined)
            tally.mean((HCP, "label", label), DrawSum(HCP_POPULATION, 13 * k, k), points)
            t = self.trumps_of(seats, joined)
            if t is not None:
                tally.mean((TRUMPS, "label", label), t[0], t[1])
            totals[label] = (k, points, t)
        if len(totals) < 2:
            return
        (kc, pc, tc), (kh, ph, th) = totals["computer"], totals["human"]
        group = ("computer vs human", "per hand")
        tally.paired((HCP, *group), PairedDraws(HCP_POPULATION, 13 * kc, kc, 13 * kh, kh),
                     pc, ph)
        if tc is not None and th is not None and self.pop is not None:
            tally.paired((TRUMPS, *group),
                         PairedDraws(self.pop, tc[0].draws, kc, th[0].draws, kh), tc[1], th[1])


@functools.lru_cache(maxsize=1024)
def _pattern_name(lengths: tuple[int, ...]) -> str:
    return pattern_name(lengths)


_HCP_HAND = DrawSum(HCP_POPULATION, 13)
_PATTERN = DrawPattern(SUIT_SIZES, 13)
_VOIDS = DrawEmpty(SUIT_SIZES, 13)


__all__ = ["LABELS", "MEASURES", "POSITIONS", "hcp", "is_deal", "suit_lengths", "tally_match"]
