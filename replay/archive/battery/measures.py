"""Deals as measures for the fairness statistics (:mod:`tarneeb.audit.fairness`).

Here the cards and the rules meet the statistics: each dealing attempt a match
went through (the replayer's view, :class:`~tarneeb.replay.rules.engine.Hand`) gives,
per hand, its high-card points (A 4, K 3, Q 2, J 1), its number of trumps and its trump
honours' points (:mod:`~tarneeb.replay.archive.battery.honours`) where the deal fixes the trump,
its suit-length pattern and its voids; per deal, the
revealed card and the trump suit where the rules reveal one; per match, the first
dealer. Each observation goes to a :class:`~tarneeb.audit.fairness.Tally` with the
exact distribution it follows under a uniform shuffle, grouped three ways:

* by seat relative to the dealer (``dealer+1`` receives the first card, ``dealer``
  the last): one hand per deal in each group;
* by seat label (``computer`` / ``human``): the mean tests use every hand of that
  label (the exact variance of their total allows for their sharing one deck); the
  distribution tests use one hand per deal, the label's first in dealing order, so
  the hands tested are independent;
* by signing key and by rule set, on the first hand dealt (``dealer+1``), for keys (rule
  sets) with enough deals (see :func:`tested_keys`).

Computer against human seats: per deal with both, the points (and trumps) per
computer hand minus per human hand, against its exact mean and variance.

Where the rules reveal the dealer's 13th card and make its colour-mate trump, the
revealed card is known not to be a trump: the dealer's other 12 cards and the
other hands are drawn from the remaining 51 cards, 13 of them trumps, and the
references say so; where they make its own suit trump (``revealed``), the known card is
a trump, left out of the dealer's count, and the 51 others hold 12.

>>> from tarneeb.audit.fairness import Tally
>>> from tarneeb.replay.server.simulate import play_logged_match
>>> from tarneeb.replay.verify.replayer import verify_bytes
>>> v = verify_bytes(play_logged_match("eram41", seed=b"dealstats doc"))  # not secret
>>> t = Tally()
>>> tally_match(t, v.rules, v.computer, v.key_id, v.history) == len(v.history)  # deals added
True
>>> sorted({r.test[0] for r in t.results()})  # doctest: +NORMALIZE_WHITESPACE
['aces', 'card position', 'deck order', 'first dealer', 'high-card points', 'honour fit',
 'kings', 'long suits', 'near-repeated hands', 'repeated deals', 'repeated hands',
 'revealed card', 'revealed rank', 'suit fit', 'suit pattern', 'trump honours',
 'trump suit', 'trumps', 'voids']
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tarneeb.audit.fairness import (
    DEFAULT_ALPHA,
    DEFAULT_POWER,
    DrawClassCount,
    DrawEmpty,
    DrawPattern,
    DrawSum,
    NextSeat,
    PairedDraws,
    StatResult,
    Tally,
    Uniform,
    correct_all,
    pattern_name,
)
from tarneeb.replay.archive.battery.honours import (
    HONOUR_POPS,
    TRUMP_HONOURS,
    honour_code,
    honour_points,
    shown_value,
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
ACES, KINGS, REVEALED_RANK = "aces", "kings", "revealed rank"
REPEATED = "repeated hands"
LONG = "long suits"  # suits of 5 cards or more in a hand
CARD_POSITION = "card position"  # each card's hand, by seat relative to the dealer
REPEATED_DEALS = "repeated deals"  # every deal, its hands in dealing order from the dealer
DECK_ORDER = "deck order"  # cards next in the deck's own order dealt to seats in turn
# the deals of 52 cards to 4 hands (a float: a tally's key, which msgpack must carry)
_DEALS = float(math.factorial(52) // math.factorial(13) ** 4)
_NEXT_SEAT = NextSeat()
# one hand in REPEAT_SAMPLE is kept (by a fingerprint of its cards, so a hand dealt again
# is kept again): what counting repeats costs, about 60 bytes a match
REPEAT_SAMPLE = 64
_HANDS = 635_013_559_600  # C(52, 13): the 13-card hands
_FINGERPRINT = 0x9E3779B97F4A7C15  # a multiplicative hash (Fibonacci), public
_MASK64 = (1 << 64) - 1
_KEEP = (1 << 64) // REPEAT_SAMPLE
MEASURES = (HCP, ACES, KINGS, TRUMPS, TRUMP_HONOURS, PATTERN, VOIDS, REVEALED, REVEALED_RANK,
            TRUMP_SUIT, FIRST_DEALER, REPEATED, CARD_POSITION, LONG, REPEATED_DEALS, DECK_ORDER)
TABLE_SEATS = ("seat 1", "seat 2", "seat 3", "seat 4")  # absolute, as people count them
TEAMS = ("seats 1+3", "seats 2+4")
RANK_NAMES = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")

_RANK_MASKS = {rank: sum(1 << (13 * s + rank) for s in range(4)) for rank in range(13)}
_HONOURS = ((4, _RANK_MASKS[12]), (3, _RANK_MASKS[11]), (2, _RANK_MASKS[10]), (1, _RANK_MASKS[9]))
_ALL_CARDS = Uniform(tuple(card_name(c) for c in range(52)))
_ALL_SUITS = Uniform(SUIT_NAMES)
_ALL_RANKS = Uniform(RANK_NAMES)
_RANK_POPULATION = ((1, 4), (0, 48))  # the aces (or kings) among the 52 cards
_ALL_SEATS = Uniform((0, 1, 2, 3))
_CARD_NAMES = tuple(card_name(c) for c in range(52))
_FIELD = 32  # bits per card of a match's packed counts (a match has fewer deals than 2**32)
_SPREAD = tuple(sum(1 << (_FIELD * i) for i in range(8) if b >> i & 1) for b in range(256))
_POSITIONS_TEST = (CARD_POSITION, "seat", "|".join(POSITIONS))
_CONSECUTIVE = (HCP, "serial", "consecutive matches")


def deal_value(a: int, b: int, c: int) -> bytes:
    """A deal as the repeated deals' test keeps it: the 52-bit masks of its first three
    hands from the dealer's left (the fourth follows), in 20 bytes (msgpack's integers
    are 64-bit)."""
    return (a | b << 52 | c << 104).to_bytes(20, "big")


def _spread(mask: int) -> int:
    """A hand's 52-bit mask as 52 counters of ``_FIELD`` bits (1 for each card held), so
    that a match's deals add up per card in one integer per position."""
    out, shift = 0, 0
    while mask:
        out += _SPREAD[mask & 255] << shift
        mask >>= 8
        shift += 8 * _FIELD
    return out


def _placed(tally: Tally, deals: int, packed: list[int]) -> None:
    """A match's counts of each card in each position relative to the dealer, unpacked."""
    cells = {}
    full = (1 << _FIELD) - 1
    for g, v in enumerate(packed):
        for i in range(52):
            k = (v >> (_FIELD * i)) & full
            if k:
                cells[(g, i)] = k
    tally.placed(_POSITIONS_TEST, SUIT_SIZES, _CARD_NAMES, deals, cells)


def hcp(mask: int) -> int:
    """High-card points of a hand: ace 4, king 3, queen 2, jack 1.

    >>> from tarneeb.replay.rules.cards import mask_of, parse_card
    >>> hcp(mask_of([parse_card(c) for c in ["AS", "KH", "JD", "2C"]]))
    8
    """
    return sum(w * (mask & m).bit_count() for w, m in _HONOURS)


def suit_lengths(mask: int) -> tuple[int, int, int, int]:
    """The number of cards of each suit (♣ ♦ ♥ ♠)."""
    c, d, h, s = ((mask & m).bit_count() for m in SUIT_MASKS)
    return c, d, h, s


def is_deal(masks: Sequence[int]) -> bool:
    """Four hands of 13 cards that together hold the 52 cards once each
    (:func:`~tarneeb.replay.rules.cards.check_deal` finds nothing wrong)."""
    return check_deal(tuple(masks), 0, None, needs_thirteenth=False) is None


def _trump_population(rules: RuleSet) -> tuple[tuple[int, int], ...] | None:
    """The cards a hand's trumps are drawn from: ``None`` when the deal does not fix a trump."""
    if rules.trump == "fixed":
        return ((1, 13), (0, 39))
    if rules.trump == "revealed":
        return ((1, 12), (0, 39))  # the revealed card is known, and is a trump
    if rules.reveals_card:
        return ((1, 13), (0, 38))  # the revealed card is known, and is no trump
    return None


def after_deal(hand: Any, totals: tuple[int, int], scores: Sequence[int]
               ) -> tuple[tuple[int, int], Sequence[int], int]:
    """The match's state after ``hand``: the teams' totals (seats 1 and 3, seats 2 and 4),
    the seats' running totals, and who won the deal (1 seats 1 and 3, 2 the others, 0
    neither, or a deal without totals, which leaves the state as it was)."""
    after = getattr(hand, "totals", None)
    if after is None or len(after) != 4:
        return totals, scores, 0
    gained = (after[0] + after[2] - totals[0], after[1] + after[3] - totals[1])
    won = 1 if gained[0] > gained[1] else 2 if gained[1] > gained[0] else 0
    return (after[0] + after[2], after[1] + after[3]), after, won


def tally_match(tally: Tally, rules: RuleSet, computer: Sequence[bool], key: str | None,
                hands: Iterable[Any], names: Sequence[str] | None = None,
                leaf: tuple[bytes, int] | None = None) -> int:
    """Add the deals of one match (the engine's ``Hand`` records) to ``tally``; ``names``
    are the seats' player names (the log's header), for each player's luck across matches;
    ``leaf`` its season leaf (root, index), for the luck of consecutive matches.

    Returns the number of deals added.
    """
    labels = [LABELS[0] if c else LABELS[1] for c in computer] if len(computer) == 4 else None
    key_group = key or "unsigned"
    deals = 0
    totals = (0, 0)  # the teams' scores before the deal (seats 1 and 3, seats 2 and 4)
    scores: Sequence[int] = (0, 0, 0, 0)  # the seats' running totals before the deal
    previous: int | None = None  # the points of seats 1 and 3 in the deal before
    team_points = 0  # seats 1 and 3's points in every deal
    packed = [0, 0, 0, 0]  # per position relative to the dealer: each card's count, packed
    rows = bytearray()  # per deal: the seats' points and seats 1 and 3's state (_row)
    won = 0  # the deal before: 1 won by seats 1 and 3, 2 by the others, 0 neither or none
    for hand in hands:
        if not is_deal(hand.hands):  # an attempt the replayer could not deal (not replayed)
            continue
        if deals == 0:
            tally.fit((FIRST_DEALER, "all", "all"), _ALL_SEATS, hand.dealer)
            tally.fit((FIRST_DEALER, "key", key_group), _ALL_SEATS, hand.dealer)
            if labels is not None and 0 < labels.count(LABELS[0]) < 4:
                k = labels.count(LABELS[0])
                tally.mean((FIRST_DEALER, "label", "computer"), DrawSum(((1, k), (0, 4 - k)), 1),
                           int(labels[hand.dealer] == LABELS[0]))
        deals += 1
        for seat in range(4):
            packed[(seat - hand.dealer) & 3] += _spread(hand.hands[seat])
        deal = _DealTally(tally, rules, hand)
        deal.add(labels, key_group)
        deal.state(deals, totals, scores)
        if deals == 1 and labels is not None:  # a match's first deal: its labels apart
            deal.labels(labels, ("first deal", "computer vs human"), hands=False)
        points = hcp(hand.hands[0] | hand.hands[2])
        team_points += points
        if previous is not None:  # consecutive deals of a match are independent
            tally.covariate((HCP, "serial", "previous deal"), _TEAM_HCP, previous, points)
        previous = points
        if names is not None and len(names) == 4:
            deal.players(names)
        rows += _row(hand.hands, totals, won, deals, rules.target)
        totals, scores, won = after_deal(hand, totals, scores)
    if deals:
        _placed(tally, deals, packed)
        tally.rows(_ROWS, _HCP_HAND, (
            *((int.from_bytes(leaf[0][:8], "big"), leaf[1]) if leaf is not None else (0, -1)),
            tuple(names) if names is not None and len(names) == 4 else (),
            sum(1 << s for s in range(4) if computer[s]) if len(computer) == 4 else -1,
            bytes(rows)))
        if leaf is not None:  # seats 1 and 3's points in the match, against the next one's
            tally.ordered(_CONSECUTIVE, _TEAM_HCP, int.from_bytes(leaf[0][:8], "big"), leaf[1],
                          team_points, deals)
    return deals


_ROWS = (HCP, "match state", "players, seat labels and teams")
PLAYER_IN_RULE_SET = (HCP, "player", "by name and rule set")


def in_rule_set(name: str, rules: str) -> str:
    """A member of the test by name and rule set.

    >>> in_rule_set("Rami", "classic")
    'Rami (classic)'
    """
    return f"{name} ({rules})"


def _row(masks: Sequence[int], totals: tuple[int, int], won: int, number: int,
         target: int) -> bytes:
    """One deal for the tests of :mod:`tarneeb.audit.fairness.state` and
    :mod:`~tarneeb.audit.fairness.drift`: the four seats' points, then seats 1 and 3's
    state before it (bits: 1 behind, 2 ahead; 4 late, a side at half the target or more;
    8 and 16 the deal before won or lost by them; 32 the match's first deal)."""
    state = (1 if totals[1] > totals[0] else 2 if totals[0] > totals[1] else 0) \
        | (4 if 2 * max(totals) >= target else 0) | (8 * won) | (32 if number == 1 else 0)
    return bytes((*(hcp(m) for m in masks), state))


class _DealTally:
    """The observations of one deal."""

    def __init__(self, tally: Tally, rules: RuleSet, hand: Any) -> None:
        self.tally, self.rules, self.hand = tally, rules, hand
        self.masks, self.dealer, self.thirteenth = hand.hands, hand.dealer, hand.thirteenth
        self.trump = rules.trump_for_deal(hand.thirteenth)
        self.pop = _trump_population(rules) if self.trump is not None else None
        self.honours = honour_code(rules.trump, rules.reveals_card, self.trump, self.thirteenth)
        self.lengths = [suit_lengths(m) for m in self.masks]

    def add(self, labels: list[str] | None, key_group: str) -> None:
        tally, dealer = self.tally, self.dealer
        if self.rules.reveals_card and self.thirteenth is not None and self.trump is not None:
            card = card_name(self.thirteenth)
            tally.fit((REVEALED, "all", "all"), _ALL_CARDS, card)
            tally.fit((REVEALED_RANK, "all", "all"), _ALL_RANKS, RANK_NAMES[self.thirteenth % 13])
            tally.fit((TRUMP_SUIT, "all", "all"), _ALL_SUITS, SUIT_NAMES[self.trump])
            tally.fit((REVEALED, "key", key_group), _ALL_CARDS, card)
        for seat in range(4):
            self.one_hand(("seat", POSITIONS[(seat - dealer) & 3]), seat, False)
            tally.fit_and_mean((VOIDS, "seat", POSITIONS[(seat - dealer) & 3]), _VOIDS,
                               self.lengths[seat].count(0))
        self.one_hand(("key", key_group), (dealer + 1) & 3, True)
        self.one_hand(("rule set", self.rules.name), (dealer + 1) & 3, True)
        by_position = [(dealer + pos) & 3 for pos in range(4)]
        self.sums(("seat", "|".join(POSITIONS)), [(s,) for s in by_position], (LONG,))
        self.sums(("table seat", "|".join(TABLE_SEATS)), [(s,) for s in range(4)],
                  (VOIDS, LONG))
        self.sums(("team", "|".join(TEAMS)), [(0, 2), (1, 3)], (VOIDS, LONG))
        first = [self.masks[(dealer + 1 + i) & 3] for i in range(3)]  # the fourth follows
        tally.drawn((REPEATED_DEALS, "all", "every deal"), deal_value(*first), _DEALS, 1)
        m = self.masks
        tally.bounded((DECK_ORDER, "all", "card c+1 to the seat after card c's"), _NEXT_SEAT,
                      sum((m[s] & (m[(s + 1) & 3] >> 1)).bit_count() for s in range(4)))
        for mask in self.masks:  # a hand dealt again: kept when its fingerprint says so
            if (mask * _FINGERPRINT) & _MASK64 < _KEEP:
                tally.drawn((REPEATED, "all", "13-card hands"), mask, _HANDS, REPEAT_SAMPLE)
        if labels is not None:
            self.labels(labels)
        self.named_trump()

    def measures(self, seats: Sequence[int]) -> list[tuple[str, DrawSum, int]]:
        """The sums of ``seats``' hands together: points, aces, kings, trumps and the trump
        honours' points (where the deal fixes the trump)."""
        joined = 0
        for s in seats:
            joined |= self.masks[s]
        k = len(seats)
        out = [(HCP, _sum_ref(HCP_POPULATION, 13 * k, k), hcp(joined)),
               (ACES, _sum_ref(_RANK_POPULATION, 13 * k, k),
                (joined & _RANK_MASKS[12]).bit_count()),
               (KINGS, _sum_ref(_RANK_POPULATION, 13 * k, k),
                (joined & _RANK_MASKS[11]).bit_count())]
        t = self.trumps_of(seats, joined)
        if t is not None:
            out.append((TRUMPS, *t))
        if self.honours:
            known = 1 if self.rules.reveals_card and self.dealer in seats else 0
            out.append((TRUMP_HONOURS, _sum_ref(HONOUR_POPS[self.honours], 13 * k - known, k),
                        honour_points(joined, self.trump or 0)
                        - (shown_value(self.honours) if self.dealer in seats else 0)))
        return out

    def classes(self, seats: Sequence[int], which: Sequence[str]) -> list[tuple[str, Any, int]]:
        """The voids or long suits (5 cards or more) of ``seats``' hands, summed."""
        out = []
        for measure in which:
            at_least = 0 if measure == VOIDS else 5
            held = sum(1 for s in seats for k in self.lengths[s]
                       if (k == 0 if at_least == 0 else k >= at_least))
            out.append((measure, _class_ref(SUIT_SIZES, 13, at_least, len(seats)), held))
        return out

    def sums(self, group: tuple[str, str], parts: Sequence[Sequence[int]],
             classes: Sequence[str] = ()) -> None:
        """One joint test per measure of the sums of ``parts`` (disjoint sets of seats that
        hold the whole deck: the four seats, the two teams), and of ``classes`` (voids,
        long suits: their sums are not fixed, so the test has a degree more)."""
        per_part = [self.measures(p) + self.classes(p, classes) for p in parts]
        for i, (measure, _, _) in enumerate(per_part[0]):
            self.tally.joint((measure, *group), _joint_refs(*(m[i][1] for m in per_part)),
                             tuple(m[i][2] for m in per_part))

    def trumps_of(self, seats: Sequence[int], mask: int) -> tuple[DrawSum, int] | None:
        """The trumps among ``seats``' cards and their exact distribution."""
        if self.pop is None or self.trump is None:
            return None
        known = 1 if self.rules.reveals_card and self.dealer in seats else 0
        ref = _sum_ref(self.pop, 13 * len(seats) - known, len(seats))
        # the known card left out: a trump when the trump is its own suit (``revealed``)
        own = known if self.rules.trump == "revealed" else 0
        return ref, (mask & SUIT_MASKS[self.trump]).bit_count() - own

    def one_hand(self, group: tuple[str, str], seat: int, with_mean: bool) -> None:
        tally, mask = self.tally, self.masks[seat]
        numeric = tally.fit_and_mean if with_mean else tally.fit
        numeric((HCP, *group), _HCP_HAND, hcp(mask))
        lengths = self.lengths[seat]
        tally.fit((PATTERN, *group), _PATTERN, _pattern_name(lengths))
        if group[0] != "seat":  # by seat, the voids have a test of their mean too
            numeric((VOIDS, *group), _VOIDS, lengths.count(0))
        t = self.trumps_of((seat,), mask)
        if t is not None:
            numeric((TRUMPS, *group), t[0], t[1])

    def labels(self, labels: list[str],
               group: tuple[str, str] = ("computer vs human", "per hand"),
               hands: bool = True) -> None:
        """The distributions of a label's first hand (unless not ``hands``); computer
        against human seats, per hand, paired in one deal (one test: the deal's totals
        are fixed, so a test of each label's mean would be this test twice), under
        ``group`` (the first deal of each match is also tested apart: a platform that
        favours its computer seats where it matters most, or least noticed)."""
        by_label: dict[str, list[int]] = {}
        for pos in DEALING_ORDER:
            seat = (self.dealer + pos) & 3
            by_label.setdefault(labels[seat], []).append(seat)
        for label, seats in by_label.items() if hands else ():
            self.one_hand(("label", label), seats[0], False)
        if len(by_label) < 2:
            return
        computer, human = by_label["computer"], by_label["human"]
        kc, kh = len(computer), len(human)
        for (measure, x, vx), (_, y, vy) in zip(self.measures(computer), self.measures(human),
                                                  strict=True):
            pop = x.population
            self.tally.paired((measure, *group), _paired_ref(pop, x.draws, kc, y.draws, kh),
                              vx, vy)

    def state(self, number: int, totals: tuple[int, int], seats: Sequence[int]) -> None:
        """The points of the team of seats 1 and 3 against the match before the deal: who
        is behind (+1 when it is, -1 when ahead), the score difference, who is behind times
        the hand number (from 1), and who is within a quarter of the target (+1 seats 1
        and 3 alone, -1 the others alone, 0 both or neither). A fair deal does not depend
        on the state of the match."""
        diff = totals[1] - totals[0]  # how far seats 1 and 3 are behind
        points = hcp(self.masks[0] | self.masks[2])
        ref = _TEAM_HCP
        self.tally.covariate((HCP, "match state", "side behind"), ref,
                             (diff > 0) - (diff < 0), points)
        self.tally.covariate((HCP, "match state", "score difference"), ref, diff, points)
        # the side behind, the more as the match goes on (comebacks made late)
        self.tally.covariate((HCP, "match state", "side behind by hand number"), ref,
                             ((diff > 0) - (diff < 0)) * number, points)
        cut = -(-3 * self.rules.target // 4)  # within a quarter of the target
        # a seat on the target wins for its team (team scoring: both partners hold the
        # team's total)
        near = (max(seats[0], seats[2]) >= cut, max(seats[1], seats[3]) >= cut)
        self.tally.covariate((HCP, "match state", "close to the target"), ref,
                             near[0] - near[1], points)

    def players(self, names: Sequence[str]) -> None:
        """Each player's points per hand, by name across matches (max over players), and
        by name in each rule set apart (a player favoured at one game only)."""
        for seat in range(4):
            points = hcp(self.masks[seat])
            self.tally.member((HCP, "player", "by name"), names[seat], _HCP_HAND, points)
            self.tally.member(PLAYER_IN_RULE_SET, in_rule_set(names[seat], self.rules.name),
                              _HCP_HAND, points)

    def named_trump(self) -> None:
        """Classic: the declarer names trump on seeing their hand; the other hands' length
        in it, given the declarer's, is then hypergeometric (a platform that knows the
        suit a declarer will name cannot steer it to the partner or the opponents)."""
        h = self.hand
        if self.rules.trump != "named" or getattr(h, "declarer", None) is None \
                or getattr(h, "trump", None) is None or getattr(h, "cancelled", False):
            return
        suit = SUIT_MASKS[h.trump]
        own = (self.masks[h.declarer] & suit).bit_count()
        pop = ((1, 13 - own), (0, 26 + own))
        seats = [(h.declarer + d) & 3 for d in (1, 2, 3)]
        self.tally.joint((TRUMPS, "named by declarer", "left|partner|right"),
                         (_sum_ref(pop, 13, 1),) * 3,
                         tuple((self.masks[s] & suit).bit_count() for s in seats))


_sum_ref = functools.lru_cache(maxsize=256)(DrawSum)
_class_ref = functools.lru_cache(maxsize=16)(DrawClassCount)
_paired_ref = functools.lru_cache(maxsize=256)(PairedDraws)
_joint_refs = functools.lru_cache(maxsize=256)(lambda *refs: refs)


@functools.lru_cache(maxsize=1024)
def _pattern_name(lengths: tuple[int, ...]) -> str:
    return pattern_name(lengths)


_HCP_HAND = DrawSum(HCP_POPULATION, 13)
_TEAM_HCP = DrawSum(HCP_POPULATION, 26, 2)
_PATTERN = DrawPattern(SUIT_SIZES, 13)
_VOIDS = DrawEmpty(SUIT_SIZES, 13)



ORIGINS = ("proven", "recorded")  # how a match's deals came to be
MIN_KEY_DEALS = 100  # deals a signing key needs to be tested apart


def fairness_results(tallies: Mapping[str, Tally], alpha: float = DEFAULT_ALPHA,
                     power: float = DEFAULT_POWER, detectable: bool = True,
                     repeats: Mapping[str, Any] | None = None,
                     ) -> dict[str, list[StatResult]]:
    """Every test of every origin's tally (``ORIGINS`` order), corrected together in
    families by threat (each at its share of ``alpha``, Holm within:
    :func:`~tarneeb.audit.fairness.correction.correct_all`): exit code 3 fires with
    probability at most ``alpha`` on a fair archive, whatever its mix of proven and
    recorded deals. ``repeats``: per origin, the repeat tests' values kept apart
    (:class:`~tarneeb.replay.archive.battery.repeats.Repeats`)."""
    out: dict[str, list[StatResult]] = {}
    for origin in ORIGINS:
        tally = tallies.get(origin)
        if not tally:
            continue
        keys = {by: tested_keys(tally, by) for by in ("key", "rule set")}
        def tested(t: tuple[Any, ...], k: dict[str, Any] = keys) -> bool:
            return t[1] not in k or t[2] in k[t[1]]

        store = (repeats or {}).get(origin)
        out[origin] = tally.results(alpha, power, correct=False, select=tested,
                                    repeats=None if store is None else store.totals(),
                                    rows=None if store is None else store.rows,
                                    lags=None if store is None else store.ordered)
    correct_all([r for rs in out.values() for r in rs], alpha, power, detectable)
    return out


def tested_keys(tally: Tally, by: str = "key") -> set[str]:
    """The signing keys (``by="rule set"``: rule sets) tested apart: those with at least
    ``MIN_KEY_DEALS`` deals, when there are two or more (one is the whole archive, tested
    already). One with a handful of matches would only add tests, and take power."""
    deals: Counter[str] = Counter()
    for key, n in tally.counts.items():
        if key[0] in ("fit", "fit+mean") and key[1][:2] == (HCP, by):
            deals[key[1][2]] += n
    keys = {k for k, n in deals.items() if n >= MIN_KEY_DEALS}
    return keys if len(keys) > 1 else set()



__all__ = [
    "LABELS",
    "MEASURES",
    "MIN_KEY_DEALS",
    "ORIGINS",
    "POSITIONS",
    "TABLE_SEATS",
    "TEAMS",
    "fairness_results",
    "hcp",
    "is_deal",
    "suit_lengths",
    "tally_match",
    "tested_keys",
]
