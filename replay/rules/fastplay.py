"""The verifier's fast path: a whole hand's moves judged at once, with plain ints and bytes.

:class:`~tarneeb.replay.rules.engine.MatchState` applies moves one at a time and says
why a move is illegal. A log that follows the rules needs none of that: these
functions take a hand's calls and cards in one go and either give what the hand
came to, or ``None`` at the first thing out of the ordinary, and the caller
replays the hand move by move to say what. Nothing here judges a move the
engine would judge differently: ``tests/test_fastplay.py`` plays both on
generated and altered logs, and holds :func:`all_tricks` (a whole hand's cards, by
``bytes`` methods) to :func:`whole_tricks` (card by card) on legal and broken hands.

>>> from tarneeb.replay.rules.cards import deal_hands
>>> from tarneeb.replay.rules.ruleset import preset
>>> owners = owners_of(deal_hands(list(range(52)), dealer=3))  # seat 0 holds 0, 4, 8, …
>>> out = whole_hand(preset("qahwa41"), [0, 0, 0, 0], 3, owners, 3,
...                  [(0, 3), (1, 3), (2, 3), (3, 3)], None, b"")
>>> out is None  # the bids are legal and enough, but no card is played: not a whole hand
True
>>> whole_hand(preset("qahwa41"), [0, 0, 0, 0], 3, owners, 3,
...            [(0, 2), (1, 2), (2, 2), (3, 2)], None, b"")[0]  # 8 bid in all: cancelled
True
"""

from __future__ import annotations

from collections.abc import Sequence

from tarneeb.replay.rules.cards import SUIT_MASKS, check_deal
from tarneeb.replay.rules.ruleset import RuleSet
from tarneeb.replay.rules.scoring import trick_winner

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


# The whole-hand check below works on bytes and on ints holding one byte per card
# played ("SIMD within a register"), so that its per-card work is done by bytes
# methods in C; only each trick's best card is found in Python. Byte i of such an int
# (little-endian) is the ith card played.
_HIGH = int.from_bytes(b"\x80" * 52, "little")  # the top bit of every byte
_SEVENS = int.from_bytes(b"\x7f" * 52, "little")
_LEADS = int.from_bytes(b"\x03\x00\x00\x00" * 13, "little")  # the first byte of every trick
_SPREAD = 0x01010101  # a trick's first byte times this: that byte in all four
_AT = bytes(64 + i for i in range(52))  # the ith card played: 64 + i
_AFTER = int.from_bytes(bytes(65 + i for i in range(52)), "little")
_SUITS = bytes(c // 13 for c in range(52)) + bytes(204)  # card -> suit, as a bytes table
_PLUS_128 = bytes((b + 128) & 255 for b in range(256))
# the seats of a trick led by ``seat``, each + 128 (so that no seat is a card 0-51)
_TRICK_SEATS = tuple(bytes(128 + ((seat + k) & 3) for k in range(4)) for seat in range(4))
# dealer -> the seat of each deck position: the card dealt p-th goes to (dealer + 1 + p) % 4
_SEAT_OF_POSITION = tuple(bytes((d + 1 + p) & 3 for p in range(52)) for d in range(4))
# seat -> a bytes table: that seat -> "1", any other -> "0" (a hand as a binary numeral)
_BINARY = tuple(bytes(0x31 if b == s else 0x30 for b in range(256)) for s in range(4))
_ZEROS = int.from_bytes(b"0" * 52, "big")
_BEST: dict[int | None, tuple[bytes, ...]] = {}


def _best_of_two(trump: int | None) -> tuple[bytes, ...]:
    """``table[a][b]``: the card that wins of ``a``, the best of a trick so far (of the
    led suit, or a trump), and ``b`` played after it, under ``trump``."""
    table = _BEST.get(trump)
    if table is None:  # the trick rule itself, on a trick of two cards
        table = _BEST[trump] = tuple(
            bytes((a, b)[trick_winner([a, b], 0, trump)] for b in range(52)) for a in range(52))
    return table


def owners_from_order(order: bytes, dealer: int) -> bytes:
    """Who holds each card (``table[c]``: the seat, 0-3) when the deck ``order`` (52
    bytes) is dealt by ``dealer``, as a ``bytes.translate`` table.

    >>> owners_from_order(bytes(range(52)), 3)[:6]  # seat 0 receives first
    b'\\x00\\x01\\x02\\x03\\x00\\x01'
    """
    return bytes.maketrans(order, _SEAT_OF_POSITION[dealer])


def owners_of(hands: Sequence[int]) -> bytes | None:
    """The owners table of four hands (13-card sets as masks), or ``None`` when they are
    not a deal: four disjoint sets making the whole deck.

    >>> owners_of([0b0001, 0b0010, 0b0100, 0b1000]) is None  # four cards are no deal
    True
    """
    if check_deal(tuple(hands), 0, None, False) is not None:
        return None
    _, h1, h2, h3 = hands
    # a mask as 52 binary digits, card 51 first, read as bytes: a byte a card, 1 if held
    b1, b2, b3 = (int.from_bytes(format(h, "052b").encode(), "big") - _ZEROS
                  for h in (h1, h2, h3))
    return (b1 + 2 * b2 + 3 * b3).to_bytes(52, "little") + bytes(204)


def hands_of(owners: bytes) -> tuple[int, int, int, int]:
    """The four hands (masks) of an owners table: :func:`owners_of` undone.

    >>> from tarneeb.replay.rules.cards import deal_hands
    >>> hands = deal_hands(list(range(52)), dealer=3)
    >>> hands_of(owners_of(hands)) == tuple(hands)
    True
    """
    digits = owners[51::-1]  # card 51 first, as a numeral's digits are
    t0, t1, t2, t3 = _BINARY
    return (int(digits.translate(t0), 2), int(digits.translate(t1), 2),
            int(digits.translate(t2), 2), int(digits.translate(t3), 2))


def all_tricks(owners: bytes, cards: bytes, seat: int, trump: int | None) -> bytes | None:
    """The winners of the 13 tricks that the 52 ``cards`` make, led by ``seat``, when every
    card is played once, by the seat that holds it (``owners``, as :func:`owners_of`
    gives) in its turn, and follows suit when it can; else ``None``.

    What :func:`whole_tricks` checks card by card, for a whole hand at once:

    * a trick's winner is the seat that played its best card, and which card is best
      does not depend on who played it: each trick's best card is found first, and
      ``owners`` names the winners, so the seat to play each card follows;
    * each card 0-51 is played by the seat that holds it and none is missing: a table
      from each card to the seat that played it (the last time) is the owners table,
      with 52 cards played, so none was played twice;
    * a seat that did not follow the led suit held none of it any more: it plays every
      card it holds, so it holds one still exactly when it plays one later.

    >>> owners = bytes(c // 13 for c in range(52)) + bytes(204)  # seat s holds suit s
    >>> plays = bytes(c for t in range(13) for c in (t, 13 + t, 26 + t, 39 + t))
    >>> all_tricks(owners, plays, 0, None) == bytes(13)  # seat 0 leads and wins every trick
    True
    >>> all_tricks(owners, plays[:48] + plays[44:48], 0, None) is None  # a trick again
    True
    >>> all_tricks(owners, plays, 0, 3) is None  # spades win: seat 3 leads, not seat 0
    True
    """
    if len(cards) != 52:
        return None
    best = _best_of_two(trump)
    it = iter(cards)
    bests = bytes([best[best[best[c0][c1]][c2]][c3]
                   for c0, c1, c2, c3 in zip(it, it, it, it, strict=True)])
    winners = bests.translate(owners)
    seats = b"".join(map(_TRICK_SEATS.__getitem__, bytes((seat,)) + winners[:12]))
    # every card 0-51 played, by the seat that holds it (a card never played would map
    # to itself, below 52, and no seat + 128 is)
    if bytes.maketrans(cards, seats)[:52] != owners[:52].translate(_PLUS_128):
        return None
    suits = int.from_bytes(cards.translate(_SUITS), "little")
    led = (suits & _LEADS) * _SPREAD  # each card's trick's led suit
    off = ((suits ^ led) + _SEVENS) & _HIGH  # the top bit of the cards off the led suit
    if off:
        players = (int.from_bytes(seats, "little") ^ _HIGH) << 2  # seat * 4
        # (seat, suit) -> 64 + the last place it is played; absent: itself, below 64
        last = bytes.maketrans((players | suits).to_bytes(52, "little"), _AT)
        later = int.from_bytes((players | led).to_bytes(52, "little").translate(last), "little")
        if ((later | _HIGH) - _AFTER) & off:  # a led-suit card of that seat's, played later
            return None
    return winners


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


_CARD_BYTES = bytes(range(52))
HandOutcome = tuple[bool, int | None, int | None, int | None, list[int], list[int]]
"""What :func:`whole_hand` gives: cancelled, declarer, contract, trump, each trick's winner,
each seat's tricks."""
_CANCELLED: HandOutcome = (True, None, None, None, [], [0, 0, 0, 0])


def whole_hand(rules: RuleSet, totals: Sequence[int], dealer: int, owners: bytes,
               deal_trump: int | None, calls: Sequence[tuple[int, int]],
               claimed_trump: int | None, plays: bytes) -> HandOutcome | None:
    """A hand whose every move is legal and which ends as the log says: cancelled with
    no card played, or 52 cards played.

    ``owners`` says who holds each card (:func:`owners_of`, :func:`owners_from_order`),
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
    if plays.__class__ is not bytes or len(plays) != 52 or plays.translate(None, _CARD_BYTES):
        return None
    winners = all_tricks(owners, plays, leader, trump)
    if winners is None:
        return None
    count = winners.count
    return (False, declarer, contract, trump, list(winners),
            [count(0), count(1), count(2), count(3)])


__all__ = ["all_tricks", "auction", "hands_of", "owners_from_order", "owners_of",
           "personal_bids", "whole_hand", "whole_tricks"]
