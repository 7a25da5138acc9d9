"""Scripted hands: a deal and a card play that give each seat exactly the tricks asked,
and plans of such hands that take a personal game to a given end of the match.

The ends of a match where both teams qualify at once, or a player on the target is held
back by a partner at exactly zero, need the four totals just so; random deals seldom
allow it. With the deals stacked (so: recorded in the log, never derived from seeds),
every hand can be scripted: each seat bids what the plan says and takes the tricks it
says. :func:`end_plan` finds such a plan; :func:`trick_deal` deals a hand for it.

>>> from tarneeb.replay.rules.ruleset import preset
>>> plan = end_plan(preset("sahrat41"), "both-qualify-decided")
>>> bids, tricks = plan[-1]  # the last hand: seats 0 and 1 both reach the target
>>> bids, tricks
((2, 3, 3, 3), (4, 3, 3, 3))
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Sequence

from tarneeb.replay.rules.actions import bid_action
from tarneeb.replay.rules.cards import CLUBS, by_seat, colour_mate, make_card, mask_of
from tarneeb.replay.rules.paths import all_paths, end_paths
from tarneeb.replay.rules.ruleset import RuleSet
from tarneeb.replay.rules.scoring import Hand, score_hand, totals_winner

Four = tuple[int, int, int, int]
ScriptedHand = tuple[Four, Four]  # the bids and the tricks, by seat
Choice = tuple[int, bool]  # a seat's bid, and whether it is made
MAX_HANDS = 30  # a plan longer than this is given up


def trump_of(rules: RuleSet) -> int:
    """The trump of a scripted hand: the fixed trump, or the colour-mate of clubs (the
    dealer's 13th card is a club), or clubs itself where the shown card's suit is trump."""
    if rules.trump == "fixed":
        return rules.fixed_trump
    return CLUBS if rules.trump == "revealed" else colour_mate(CLUBS)


@functools.cache
def trick_deal(tricks: Four, dealer: int, trump: int
               ) -> tuple[Four, int, tuple[Four, ...]]:
    """A deal where, played as scripted, seat ``s`` takes ``tricks[s]`` tricks: the four
    hands, the dealer's 13th card (a club, so that spades are trumps where the 13th card's
    colour-mate is), and by trick the card each seat plays.

    Each seat holds three cards of every suit and one more card: tricks 1-12 are three of
    each suit, everyone following, taken by the seat given that suit's highest card of
    the four; at trick 13 the seats play their last cards, one of each suit, and the one
    holding the trump takes it. Whoever leads, every card played is legal.

    >>> hands, thirteenth, cards = trick_deal((5, 0, 8, 0), 1, 2)
    >>> [h.bit_count() for h in hands], hands[1] >> thirteenth & 1, len(cards)
    ([13, 13, 13, 13], 1, 13)
    """
    winners = [s for s in range(4) for _ in range(tricks[s])]
    last = max(range(4), key=lambda s: (tricks[s], -s))  # takes trick 13 with the trump
    winners.remove(last)
    lasts = [last, *(s for s in range(4) if s != last)]
    suits = [trump, *(x for x in range(4) if x != trump)]  # their last cards' suits
    table: list[Four] = []
    for k, winner in enumerate(winners):
        suit = k // 3
        ranks = range(1 + 4 * (k % 3), 5 + 4 * (k % 3))  # rank 0 is a last card
        others = [s for s in range(4) if s != winner]
        seats = [*others, winner]  # the winner gets the highest
        row = [0, 0, 0, 0]
        for seat, rank in zip(seats, ranks, strict=True):
            row[seat] = make_card(rank, suit)
        table.append((row[0], row[1], row[2], row[3]))
    final = [0, 0, 0, 0]
    for seat, suit in zip(lasts, suits, strict=True):
        final[seat] = make_card(0, suit)
    table.append((final[0], final[1], final[2], final[3]))
    hands = by_seat(mask_of(row[s] for row in table) for s in range(4))
    thirteenth = next(row[dealer] for row in table if row[dealer] // 13 == CLUBS)
    return hands, thirteenth, tuple(table)


def _options(rules: RuleSet, total: int) -> list[Choice]:
    """A seat's choices: every bid it may make but 13 (a made 13 may win outright), made
    or failed."""
    return [(b, made) for b in range(rules.lowest_bid(total), 13) for made in (True, False)]


def _hand(rules: RuleSet, totals: Sequence[int], choices: Sequence[Choice]
          ) -> tuple[ScriptedHand, list[int]] | None:
    """The scripted hand of ``choices`` (the made seats take their bid, the first of them
    the tricks left over, the failed none), and the totals after it; ``None`` when the
    bids would cancel the hand or cannot be made together."""
    bids = [b for b, _ in choices]
    made = [s for s in range(4) if choices[s][1]]
    need = sum(bids[s] for s in made)
    if not made or need > 13 or sum(bids) < rules.lowest_total(max(totals)):
        return None
    tricks = [bids[s] if s in made else 0 for s in range(4)]
    tricks[made[0]] += 13 - need
    hand = Hand(0, 0, (0, 0, 0, 0), None, calls=[(s, bid_action(b)) for s, b in enumerate(bids)],
                tricks=tricks)
    after = [t + v for t, v in zip(totals, score_hand(rules, hand, list(totals)), strict=True)]
    return ((bids[0], bids[1], bids[2], bids[3]),
            (tricks[0], tricks[1], tricks[2], tricks[3])), after


def _last_hand(rules: RuleSet, totals: list[int], path: str, alike: bool
               ) -> tuple[ScriptedHand, list[int]] | None:
    """A hand from ``totals`` (seats 0 and 1 level, seats 2 and 3 level) that goes through
    ``path``, and the totals after it: seats 0 and 1 each make one of the three lowest
    bids that reach the target, and their partners bid at most 4 over their lowest; seats
    0 and 1 alike and their partners alike, or (not ``alike``) one pair not. A hand that
    is ``alike`` leaves the match going on, and the totals level."""
    x, y = totals[0], totals[2]
    leaders = sorted((c for c in _options(rules, x) if c[1] and x + rules.bid_value(c[0], x)
                      >= rules.target), key=lambda c: rules.bid_value(c[0], x))[:3]
    partners = [c for c in _options(rules, y) if c[0] <= rules.lowest_bid(y) + 4]
    shapes = itertools.chain(
        ((a, a, p, p) for a in leaders for p in partners),
        () if alike else ((a, b, p, p) for a in leaders for b in leaders for p in partners),
        () if alike else ((a, a, p, q) for a in leaders for p in partners for q in partners))
    for choices in shapes:
        hand = _hand(rules, totals, choices)
        if hand is None:
            continue
        winner = totals_winner(rules, hand[1])
        if path in end_paths(rules, hand[1], winner) and not (alike and winner is not None):
            return hand
    return None


@functools.cache
def big_bid_tour(rules: RuleSet) -> tuple[ScriptedHand, ...] | None:
    """Scripted hands from the first where seat 0 bids each of 9-13 and fails, then each
    of 9-12 and makes it, then makes a 13 (which may win outright); the others bid their
    lowest and make it when seat 0 fails, fail when it makes its bid. ``None`` when the
    rules would end the match before the 13 or cancel a hand.

    >>> from tarneeb.replay.rules.ruleset import preset
    >>> [bids[0] for bids, tricks in big_bid_tour(preset("eram41"))]
    [9, 10, 11, 12, 13, 9, 10, 11, 12, 13]
    """
    totals = [0, 0, 0, 0]
    plan: list[ScriptedHand] = []
    for bid, made in [*((b, False) for b in range(9, 14)), *((b, True) for b in range(9, 14))]:
        choices = [(bid, made), *((rules.lowest_bid(t), not made) for t in totals[1:])]
        hand = _hand(rules, totals, choices)
        if hand is None or ((bid, made) != (13, True)
                            and totals_winner(rules, hand[1]) is not None):
            return None
        plan.append(hand[0])
        totals = hand[1]
    return tuple(plan)


def going_on(rules: RuleSet) -> list[str]:
    """The ends of a match of ``rules`` that leave it going on, in the order a plan goes
    through them: a partner at zero holding back both players on the target (or, where a
    partner at zero does not, one below zero), both teams qualifying with the tie rule
    equal.

    >>> from tarneeb.replay.rules.ruleset import preset
    >>> going_on(preset("eram41"))
    ['partner-blocks-win:zero', 'both-qualify-equal']
    """
    paths = all_paths(rules)
    blocked = "partner-blocks-win:zero" if "partner-blocks-win:zero" in paths \
        else "partner-blocks-win"
    return [p for p in (blocked, "both-qualify-equal") if p in paths]


@functools.cache
def end_plan(rules: RuleSet, path: str) -> tuple[ScriptedHand, ...] | None:
    """Scripted hands from the first that end a match of ``rules`` through ``path`` (a
    path of :func:`~tarneeb.replay.rules.paths.end_paths`), after the ends that leave it going
    on (:func:`going_on`); ``None`` when none is found.

    Seats 0 and 1 climb alike, as fast as they can without reaching the target, while
    their partners keep near a small score (2, else higher: a partner may have to fail a
    bid on each of the last hands, where the table's lowest total is more than 13 tricks);
    then a hand goes through each end in turn.
    """
    stages = [p for p in going_on(rules) if p != path] + [path]
    for level in (2, 6, 10):
        totals, plan = [0, 0, 0, 0], []
        for stage in stages:
            got = _climb(rules, totals, stage, level, alike=stage != path)
            if got is None:
                break
            plan += got[0]
            totals = got[1]
        else:
            return tuple(plan)
    return None


def _climb(rules: RuleSet, totals: list[int], path: str, level: int, alike: bool
           ) -> tuple[list[ScriptedHand], list[int]] | None:
    """Hands from ``totals`` through ``path``: the climb, then :func:`_last_hand`."""
    plan: list[ScriptedHand] = []
    seen: set[tuple[int, ...]] = set()
    while len(plan) < MAX_HANDS:
        last = _last_hand(rules, totals, path, alike)
        if last is not None:
            return [*plan, last[0]], last[1]
        best: tuple[tuple[int, int], ScriptedHand, list[int]] | None = None
        for a in _options(rules, totals[0]):
            for p in _options(rules, totals[2]):
                hand = _hand(rules, totals, (a, a, p, p))
                if hand is None or max(hand[1]) >= rules.target:
                    continue
                key = (hand[1][0], -abs(hand[1][2] - level))  # climb; partners near level
                if best is None or key > best[0]:
                    best = (key, hand[0], hand[1])
        if best is None or tuple(best[2]) in seen:
            return None  # no way on
        seen.add(tuple(best[2]))
        plan.append(best[1])
        totals = best[2]
    return None


__all__ = ["MAX_HANDS", "ScriptedHand", "big_bid_tour", "end_plan", "going_on", "trick_deal",
           "trump_of"]
