"""The verifier's fast path: a whole hand's moves judged at once, with plain ints.

:class:`~tarneeb.replay.engine.MatchState` applies moves one at a time and says
why a move is illegal. A log that follows the rules needs none of that: these
functions take a hand's calls and cards in one go and either give what the hand
came to, or ``None`` at the first thing out of the ordinary, and the caller
replays the hand move by move to say what. Nothing here judges a move the
engine would judge differently: ``tests/test_fastplay.py`` plays both on
generated and altered logs.

>>> from tarneeb.replay.cards import deal_hands
>>> from tarneeb.replay.rules import preset
>>> hands = deal_hands(list(range(52)), dealer=3)  # seat 0 holds 0, 4, 8, …
>>> out = whole_hand(preset("qahwa41"), [0, 0, 0, 0], 3, hands, 3,
...                  [(0, 3), (1, 3), (2, 3), (3, 3)], None, b"")
>>> out is None  # the bids are legal and enough, but no card is played: not a whole hand
True
>>> whole_hand(preset("qahwa41"), [0, 0, 0, 0], 3, hands, 3,
...            [(0, 2), (1, 2), (2, 2), (3, 2)], None, b"")[0]  # 8 bid in all: cancelled
True
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import SUIT_MASKS
from .rules import RuleSet

PASS_CODE = 15  # a call's value: 0-13 a bid, 15 a pass (as in the log)
SUIT_OF = tuple(c // 13 for c in range(52))
BITS = tuple(1 << c for c in range(52))
ROTATIONS = tuple(((s + 1) & 3, (s + 2) & 3, (s + 3) & 3) for s in range(4))


def whole_tricks(hands: Sequence[int], cards: bytes | Sequence[int], seat: int,
                 trump: int | None, winners: list[int], tricks: list[int]
                 ) -> tuple[int, int, int]:
    """Play ``cards`` four at a time from whole tricks led by ``seat``, as long as every
    card is held by the seat to play and follows suit when it can.

    ``hands`` are the cards held before the first trick, four disjoint sets (not
    changed); each trick's
    winner is appended to ``winners`` and counted in ``tricks``. Returns the number of
    cards played (a multiple of 4), the set of them, and the seat to lead next.

    >>> winners, tricks = [], [0, 0, 0, 0]
    >>> whole_tricks([0b0001, 0b0010, 0b0100, 0b1000], bytes([0, 1, 2, 3]), 0, None,
    ...              winners, tricks)
    (4, 15, 3)
    >>> winners, tricks
    ([3], [0, 0, 0, 1])
    """
    su = SUIT_OF
    bits = BITS
    rotations = ROTATIONS
    suit_masks = SUIT_MASKS
    played = 0
    n = 0
    it = iter(cards)
    for c0, c1, c2, c3 in zip(it, it, it, it, strict=False):
        s1, s2, s3 = rotations[seat]
        b0, b1, b2, b3 = bits[c0], bits[c1], bits[c2], bits[c3]
        # held at the start and not played since (the hands are disjoint, so the four
        # cards are four different ones)
        if not (hands[seat] & b0 and hands[s1] & b1 and hands[s2] & b2 and hands[s3] & b3) \
                or (b0 | b1 | b2 | b3) & played:
            break
        led = su[c0]
        u1, u2, u3 = su[c1], su[c2], su[c3]
        if (u1 != led or u2 != led or u3 != led) and (
                (u1 != led and hands[s1] & ~played & suit_masks[led])
                or (u2 != led and hands[s2] & ~played & suit_masks[led])
                or (u3 != led and hands[s3] & ~played & suit_masks[led])):
            break
        played |= b0 | b1 | b2 | b3
        # the trick's winner, unrolled: the highest trump, else the highest of the led suit
        best, bs, winner = c0, led, seat
        if u1 == bs:
            if c1 > best:
                best, winner = c1, s1
        elif u1 == trump:
            best, bs, winner = c1, u1, s1
        if u2 == bs:
            if c2 > best:
                best, winner = c2, s2
        elif u2 == trump:
            best, bs, winner = c2, u2, s2
        if u3 == bs:
            if c3 > best:
                winner = s3
        elif u3 == trump:
            winner = s3
        tricks[winner] += 1
        winners.append(winner)
        seat = winner
        n += 4
    return n, played, seat


FULL_DECK = (1 << 52) - 1


def all_tricks(hands: Sequence[int], cards: bytes, seat: int, trump: int | None
               ) -> list[int] | None:
    """The winners of the 13 tricks that the 52 ``cards`` make, led by ``seat``, when every
    card is held by the seat to play, none is played twice and every one follows suit
    when it can; else ``None``.

    :func:`whole_tricks` for a whole hand, with less to do on each trick: that no card
    is played twice is checked once at the end (the 52 cards then make the whole deck),
    and the winner is found as a place in the trick.

    >>> hands = [sum(1 << c for c in range(13 * s, 13 * s + 13)) for s in range(4)]
    >>> plays = bytes(c for t in range(13) for c in (t, 13 + t, 26 + t, 39 + t))
    >>> all_tricks(hands, plays, 0, None) == [0] * 13  # seat 0 leads and wins every trick
    True
    >>> all_tricks(hands, plays[:48] + plays[44:48], 0, None) is None  # the last trick again
    True
    """
    su = SUIT_OF
    bits = BITS
    suit_masks = SUIT_MASKS
    a, b, c, d = hands
    rotated = ((a, b, c, d), (b, c, d, a), (c, d, a, b), (d, a, b, c))
    played = 0
    winners: list[int] = []
    append = winners.append
    it = iter(cards)
    for c0, c1, c2, c3 in zip(it, it, it, it, strict=True):
        b0, b1, b2, b3 = bits[c0], bits[c1], bits[c2], bits[c3]
        h0, h1, h2, h3 = rotated[seat]
        if not (h0 & b0 and h1 & b1 and h2 & b2 and h3 & b3):
            return None
        led = su[c0]
        u1, u2, u3 = su[c1], su[c2], su[c3]
        if u1 != led or u2 != led or u3 != led:
            # a card off the led suit: its seat must hold none of that suit still (the
            # cards played before this trick, from a hand dealt whole)
            left = suit_masks[led] & ~played
            if (u1 != led and h1 & left) or (u2 != led and h2 & left) \
                    or (u3 != led and h3 & left):
                return None
        played |= b0 | b1 | b2 | b3
        # the trick's winner, unrolled: the highest trump, else the highest of the led suit
        best, bs, w = c0, led, 0
        if u1 == bs:
            if c1 > best:
                best, w = c1, 1
        elif u1 == trump:
            best, bs, w = c1, u1, 1
        if u2 == bs:
            if c2 > best:
                best, w = c2, 2
        elif u2 == trump:
            best, bs, w = c2, u2, 2
        if u3 == bs:
            if c3 > best:
                w = 3
        elif u3 == trump:
            w = 3
        seat = (seat + w) & 3
        append(seat)
    # 52 cards held by their seats and together the whole deck: none was played twice, so
    # every "not played before" above was right
    return winners if played == FULL_DECK else None


def personal_bids(rules: RuleSet, totals: Sequence[int], dealer: int,
                  calls: Sequence[tuple[int, int]]) -> list[int] | None:
    """The four bids of a personal bidding, when ``calls`` are exactly four legal bids in
    turn from the dealer's right; else ``None``."""
    if len(calls) != 4:
        return None
    bids = [0, 0, 0, 0]
    seat = (dealer + 1) & 3
    steps = rules.min_bid_steps
    low = rules.min_bid
    for s, value in calls:
        if s != seat or value > 13 or value < (rules.lowest_bid(totals[s]) if steps else low):
            return None
        bids[s] = value
        seat = (seat + 1) & 3
    return bids


def auction(rules: RuleSet, dealer: int, calls: Sequence[tuple[int, int]]
            ) -> tuple[int | None, int | None] | None:
    """A classic auction that ``calls`` end exactly, every call legal and in turn: the
    declarer and the contract, ``(None, None)`` when all four passed; else ``None``."""
    passed = [False, False, False, False]
    high = n_passed = 0
    seat = (dealer + 1) & 3
    last = len(calls) - 1
    lowest = rules.auction_min
    for k, (s, value) in enumerate(calls):
        if s != seat:
            return None
        if value == PASS_CODE:
            passed[s] = True
            n_passed += 1
        elif max(lowest, high + 1) <= value <= 13:
            high, declarer = value, s
        else:
            return None
        if n_passed == 4:
            return (None, None) if k == last else None
        if (high == 13 and rules.auction_ends_on_13) or (n_passed == 3 and high > 0):
            return (declarer, high) if k == last else None
        seat = (seat + 1) & 3
        while passed[seat]:
            seat = (seat + 1) & 3
    return None


_CANCELLED = (True, None, None, None, [], [0, 0, 0, 0])


def whole_hand(rules: RuleSet, totals: Sequence[int], dealer: int, hands: Sequence[int],
               deal_trump: int | None, calls: Sequence[tuple[int, int]],
               claimed_trump: int | None, plays: bytes
               ) -> tuple[bool, int | None, int | None, int | None, list[int], list[int]] | None:
    """A hand whose every move is legal and which ends as the log says: cancelled with
    no card played, or 52 cards played.

    ``deal_trump`` is the trump the deal gives under ``rules``, ``claimed_trump`` the
    trump the log names (after an auction) or claims. Returns ``(cancelled, declarer,
    contract, trump, winners, tricks)``, or ``None``
    when the hand needs the move-by-move replay: an illegal or missing move, a trump
    other than the rules', cards after a cancelled bidding.
    """
    declarer = contract = None
    if rules.bidding == "personal":
        bids = personal_bids(rules, totals, dealer, calls)
        if bids is None:
            return None
        if sum(bids) < rules.lowest_total(max(totals)):
            return None if plays else _CANCELLED
        leader = (dealer + 1) & 3
    else:
        won = auction(rules, dealer, calls)
        if won is None:
            return None
        declarer, contract = won
        if declarer is None:
            return None if plays else _CANCELLED
        leader = declarer
    if declarer is not None:  # the auction's winner names the trump
        if claimed_trump is None:
            return None
        trump: int | None = claimed_trump
    elif claimed_trump != deal_trump:
        return None
    else:
        trump = deal_trump
    if len(plays) != 52:
        return None
    winners = all_tricks(hands, plays, leader, trump)
    if winners is None:
        return None
    count = winners.count
    return False, declarer, contract, trump, winners, [count(0), count(1), count(2), count(3)]


__all__ = ["all_tricks", "auction", "personal_bids", "whole_hand", "whole_tricks"]
