"""Alterations of the bidding and the trump: a bid changed, out of range, below the
minimum or no higher than the one before, a pass where there is none, calls swapped,
dropped or added, a hand's bids lowered or raised past cancelling, another trump.

Each registers in :data:`~tarneeb.testing.alterations.REGISTRY` (see
:mod:`tarneeb.testing.alterations` for the call form).
"""

from __future__ import annotations

import random
from dataclasses import replace

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarneeb.replay.log import (
    PASS_CODE,
    HandRecord,
)
from tarneeb.replay.rules.ruleset import RuleSet
from tarneeb.replay.rules.scoring import trick_winner
from tarneeb.testing.alterations.base import (
    Alteration,
    Altered,
    EditableLog,
    NotApplicable,
    _cancelled,
    _close,
    _open,
    _pick_hand,
    _played,
    _register,
    _replay,
    _totals_before,
)


def _auction(rules: RuleSet) -> bool:
    return rules.bidding == "auction"


def _personal(rules: RuleSet) -> bool:
    return rules.bidding == "personal"


def _raised_minimum(rules: RuleSet) -> bool:
    return rules.bidding == "personal" and any(b > rules.min_bid for _, b in rules.min_bid_steps)


# ---------------------------------------------------------------- the trump

_SUITS = "♣♦♥♠"


@_register("change-trump", "claim another trump (classic: the auction winner names another)")
def change_trump(data: bytes, *, choice: int = 0, hand: int | None = None,
                 resign: Ed25519PrivateKey | None = None) -> Altered:
    """One played hand's trump changed.

    Where the trump follows from the deal, the claimed trump byte changes. In classic
    the auction winner names the trump, so naming another is a legal move: the
    alteration picks a suit that changes the winner of some trick, which the play
    that follows then contradicts.
    """
    log = _open(data)
    rng = random.Random(choice)
    if log.rules.trump != "named":
        n = _pick_hand(log, rng, hand, _played, "played")
        rec = log.hands[n]
        assert rec.trump is not None
        new = (rec.trump + 1 + rng.randrange(3)) & 3
        log.hands[n] = replace(rec, trump=new)
        return _close(log, resign), Alteration(
            "change-trump", n, f"hand {n} claims {_SUITS[new]} trump, not "
            f"{_SUITS[rec.trump]}", expect="wrong-trump")
    history = _replay(log)
    options = []
    for n, rec in enumerate(log.hands):
        if (hand is not None and n != hand) or not _played(rec):
            continue
        h = history[n]
        for suit in range(4):
            if suit == h.trump:
                continue
            for t in range(13):
                cards = list(h.plays[4 * t:4 * t + 4])
                w = trick_winner(cards, h.trick_leaders[t], suit)
                if w != h.trick_winners[t]:
                    options.append((n, suit, t + 1, w))
                    break
    if not options:
        raise NotApplicable("no other trump changes the winner of a trick")
    n, suit, trick, winner = rng.choice(options)
    rec = log.hands[n]
    log.hands[n] = replace(rec, trump=suit)
    old = history[n].trick_winners[trick - 1]
    desc = (f"hand {n}: seat {history[n].declarer} names {_SUITS[suit]}, not "
            f"{_SUITS[rec.trump or 0]}; trick {trick} then goes to seat {winner}, not {old}")
    if trick < 13:  # the next trick is led by the old winner, not the new one
        return _close(log, resign), Alteration("change-trump", n, desc, trick=trick + 1,
                                               seat=winner, expect="wrong-trick-winner")
    return _close(log, resign), Alteration("change-trump", n, desc, seat=winner,
                                           expect="wrong-trick-count")

# ---------------------------------------------------------------- calls

def _bid_calls(rec: HandRecord) -> list[int]:
    return [i for i, (_, code) in enumerate(rec.calls) if code != PASS_CODE]


def _set_call(log: EditableLog, n: int, i: int, code: int) -> HandRecord:
    rec = log.hands[n]
    calls = list(rec.calls)
    calls[i] = (calls[i][0], code)
    log.hands[n] = replace(rec, calls=calls)
    return rec


def _call_text(code: int) -> str:
    return "pass" if code == PASS_CODE else f"bid {code}"


@_register("change-bid", "change one bid so the hand scores differently")
def change_bid(data: bytes, *, choice: int = 0, hand: int | None = None,
               resign: Ed25519PrivateKey | None = None) -> Altered:
    """One bid of a played hand changed to one that turns a made bid into a failed one
    or the other way round (classic: the winning bid)."""
    log = _open(data)
    rng = random.Random(choice)
    rules = log.rules
    n = _pick_hand(log, rng, hand, lambda r: _played(r) and r.tricks is not None, "played")
    rec = log.hands[n]
    assert rec.tricks is not None
    if rules.bidding == "personal":
        i = rng.randrange(len(rec.calls))
        seat: int | None
        seat, bid = rec.calls[i]
        took = rec.tricks[seat]
        if took >= bid:  # made: make it fail
            new = took + 1 if took < 13 else None
        else:  # failed: make it made
            new = max(took, rules.min_bid)
            new = new if new <= took else None
        if new is None or new == bid:
            new = rules.min_bid - 1 if rules.min_bid > 0 else None
        if new is None:
            raise NotApplicable("no bid to change")
        _set_call(log, n, i, new)
        before = _totals_before(log, n)
        bids = [code for _, code in log.hands[n].calls]
        if new < rules.min_bid:
            kind = "bid-out-of-range"
        elif new < rules.lowest_bid(before[seat]):
            kind = "bid-below-minimum"
        elif sum(bids) < rules.lowest_total(max(before)):
            kind = "played-when-cancelled"
            seat = None
        else:
            kind = "wrong-hand-score"
        return _close(log, resign), Alteration(
            "change-bid", n, f"hand {n}: seat {rec.calls[i][0]} bid {new}, not {bid}",
            seat=seat, expect=kind)
    # classic: the contract
    i = _bid_calls(rec)[-1]
    seat, bid = rec.calls[i]
    team = rec.tricks[seat] + rec.tricks[seat ^ 2]
    if bid == 13:
        new = 12
    elif team >= bid:
        new = min(team + 1, 13)
    else:
        new = team if team >= rules.auction_min else bid + 1
    _set_call(log, n, i, new)
    earlier = [code for _, code in rec.calls[:i] if code != PASS_CODE]
    passed = {s for s, code in rec.calls[:i] if code == PASS_CODE}
    if earlier and new <= max(earlier):
        kind = "bid-not-higher"
    # (under house rules where the others still pass after a 13, those passes follow it
    # in the log: a 13 made so overruns nothing, and a 13 made 12 ends on them as well)
    elif new == 13 and i < len(rec.calls) - 1 and rules.auction_ends_on_13:
        kind, seat = "bidding-overrun", rec.calls[i + 1][0]
    elif bid == 13 and len(passed) < 3 and rules.auction_ends_on_13:
        # the auction no longer ends on this bid
        kind = "bidding-incomplete"
        seat = next(s for s in ((seat + k) & 3 for k in (1, 2, 3)) if s not in passed)
    else:  # the bidding team's score changes (team scores stand on both partners)
        kind, seat = "wrong-hand-score", min(seat, seat ^ 2)
    return _close(log, resign), Alteration(
        "change-bid", n, f"hand {n}: seat {rec.calls[i][0]} bid {new}, not {bid}",
        seat=seat, expect=kind)


@_register("bid-out-of-range", "a bid below the lowest bid of the rules")
def bid_out_of_range(data: bytes, *, choice: int = 0, hand: int | None = None,
                     resign: Ed25519PrivateKey | None = None) -> Altered:
    """One bid changed to a number below the rules' range (personal: 0-1, auction: 1-6)."""
    log = _open(data)
    rng = random.Random(choice)
    rules = log.rules
    low = rules.min_bid if rules.bidding == "personal" else rules.auction_min
    if low == 0:
        raise NotApplicable("every bid from 0 is in range")
    n = _pick_hand(log, rng, hand, lambda r: bool(_bid_calls(r)), "with a bid")
    i = rng.choice(_bid_calls(log.hands[n]))
    new = rng.randrange(low)
    rec = _set_call(log, n, i, new)
    seat, old = rec.calls[i]
    return _close(log, resign), Alteration(
        "bid-out-of-range", n, f"hand {n}: seat {seat} bid {new}, not {old}", seat=seat,
        expect="bid-out-of-range")


@_register("bid-below-minimum", "a bid below the 400 minimum for the player's score",
           needs=_raised_minimum)
def bid_below_minimum(data: bytes, *, choice: int = 0, hand: int | None = None,
                      resign: Ed25519PrivateKey | None = None) -> Altered:
    """One bid of a player whose score raised their lowest bid changed to the plain lowest."""
    log = _open(data)
    rules = log.rules
    rng = random.Random(choice)
    options = []
    for n, rec in enumerate(log.hands):
        if hand is not None and n != hand:
            continue
        before = _totals_before(log, n)
        for i, (seat, code) in enumerate(rec.calls):
            if rules.lowest_bid(before[seat]) > rules.min_bid and code != PASS_CODE:
                options.append((n, i))
    if not options:
        raise NotApplicable("no player had a raised lowest bid")
    n, i = rng.choice(options)
    rec = _set_call(log, n, i, rules.min_bid)
    seat, old = rec.calls[i]
    return _close(log, resign), Alteration(
        "bid-below-minimum", n, f"hand {n}: seat {seat} (lowest bid "
        f"{rules.lowest_bid(_totals_before(log, n)[seat])}) bid {rules.min_bid}, not {old}",
        seat=seat, expect="bid-below-minimum")


@_register("bid-not-higher", "an auction bid no higher than the bid before it",
           needs=_auction)
def bid_not_higher(data: bytes, *, choice: int = 0, hand: int | None = None,
                   resign: Ed25519PrivateKey | None = None) -> Altered:
    """In the auction, a bid lowered to the bid before it."""
    log = _open(data)
    if log.rules.bidding != "auction":
        raise NotApplicable("only an auction has bids that must be higher")
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, lambda r: len(_bid_calls(r)) >= 2, "with two bids")
    rec = log.hands[n]
    bids = _bid_calls(rec)
    k = rng.randrange(1, len(bids))
    i, before = bids[k], rec.calls[bids[k - 1]][1]
    _set_call(log, n, i, before)
    seat, old = rec.calls[i]
    return _close(log, resign), Alteration(
        "bid-not-higher", n, f"hand {n}: seat {seat} bid {before} after a {before}, not {old}",
        seat=seat, expect="bid-not-higher")


@_register("pass-for-bid", "a pass where the rules have none", needs=_personal)
def pass_for_bid(data: bytes, *, choice: int = 0, hand: int | None = None,
                 resign: Ed25519PrivateKey | None = None) -> Altered:
    """In personal bidding, one bid changed to a pass."""
    log = _open(data)
    if log.rules.bidding != "personal":
        raise NotApplicable("the auction has passes")
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, lambda r: bool(r.calls), "with calls")
    i = rng.randrange(len(log.hands[n].calls))
    rec = _set_call(log, n, i, PASS_CODE)
    seat, old = rec.calls[i]
    return _close(log, resign), Alteration(
        "pass-for-bid", n, f"hand {n}: seat {seat} passes instead of bidding {old}",
        seat=seat, expect="pass-not-allowed")


@_register("swap-calls", "two calls in the wrong order")
def swap_calls(data: bytes, *, choice: int = 0, hand: int | None = None,
               resign: Ed25519PrivateKey | None = None) -> Altered:
    """Two neighbouring calls of different seats swapped: a call out of turn."""
    log = _open(data)
    rng = random.Random(choice)

    def ok(r: HandRecord) -> bool:
        return any(r.calls[i][0] != r.calls[i + 1][0] for i in range(len(r.calls) - 1))

    n = _pick_hand(log, rng, hand, ok, "with two calls")
    rec = log.hands[n]
    i = rng.choice([i for i in range(len(rec.calls) - 1) if rec.calls[i][0] != rec.calls[i + 1][0]])
    calls = list(rec.calls)
    calls[i], calls[i + 1] = calls[i + 1], calls[i]
    log.hands[n] = replace(rec, calls=calls)
    return _close(log, resign), Alteration(
        "swap-calls", n, f"hand {n}: calls {i} and {i + 1} swapped ({_call_text(calls[i][1])} "
        f"by seat {calls[i][0]} comes first)", seat=calls[i][0], expect="bid-out-of-turn")


@_register("drop-last-call", "the bidding stops a call early")
def drop_last_call(data: bytes, *, choice: int = 0, hand: int | None = None,
                   resign: Ed25519PrivateKey | None = None) -> Altered:
    """The last call of one hand removed."""
    log = _open(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, lambda r: bool(r.calls), "with calls")
    rec = log.hands[n]
    seat, code = rec.calls[-1]
    log.hands[n] = replace(rec, calls=list(rec.calls[:-1]))
    return _close(log, resign), Alteration(
        "drop-last-call", n, f"hand {n}: seat {seat}'s {_call_text(code)} removed", seat=seat,
        expect="bidding-incomplete")


@_register("extra-call", "a call after the bidding ended")
def extra_call(data: bytes, *, choice: int = 0, hand: int | None = None,
               resign: Ed25519PrivateKey | None = None) -> Altered:
    """A call appended after the last call of one hand."""
    log = _open(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, lambda r: bool(r.calls), "with calls")
    rec = log.hands[n]
    seat = (rec.calls[-1][0] + 1) & 3
    code = PASS_CODE if log.rules.bidding == "auction" and rng.random() < 0.5 \
        else rng.randrange(7, 14)
    log.hands[n] = replace(rec, calls=[*rec.calls, (seat, code)])
    return _close(log, resign), Alteration(
        "extra-call", n, f"hand {n}: seat {seat} {_call_text(code)} after the bidding ended",
        seat=seat, expect="bidding-overrun")


@_register("lower-bids", "bids too low to play, in a hand that was played")
def lower_bids(data: bytes, *, choice: int = 0, hand: int | None = None,
               resign: Ed25519PrivateKey | None = None) -> Altered:
    """Every call of a played hand lowered to the least the seat may call (classic: a
    pass), so the hand should have been cancelled."""
    log = _open(data)
    rules = log.rules
    rng = random.Random(choice)

    def ok(r: HandRecord) -> bool:
        if not _played(r):
            return False
        if rules.bidding == "auction":
            return True
        before = _totals_before(log, r.deal_number)
        return sum(rules.lowest_bid(b) for b in before) < rules.lowest_total(max(before))

    n = _pick_hand(log, rng, hand, ok, "played with bids that can be lowered")
    rec = log.hands[n]
    before = _totals_before(log, n)
    if rules.bidding == "auction":
        calls = [((rec.dealer + k) & 3, PASS_CODE) for k in (1, 2, 3, 4)]
    else:
        calls = [(s, rules.lowest_bid(before[s])) for s, _ in rec.calls]
    log.hands[n] = replace(rec, calls=calls)
    return _close(log, resign), Alteration(
        "lower-bids", n, f"hand {n}: calls lowered to {', '.join(_call_text(c) for _, c in calls)}",
        expect="played-when-cancelled")


@_register("raise-cancelled-bids", "bids enough to play, in a hand that was cancelled")
def raise_cancelled_bids(data: bytes, *, choice: int = 0, hand: int | None = None,
                         resign: Ed25519PrivateKey | None = None) -> Altered:
    """The dealer's bid of a cancelled hand raised to 13 (classic: the first pass made a
    bid of 7), so the hand should have been played."""
    log = _open(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, lambda r: _cancelled(r) and bool(r.calls), "cancelled")
    rec = log.hands[n]
    if log.rules.bidding == "auction":
        rec = _set_call(log, n, 0, log.rules.auction_min)
        seat = rec.calls[0][0]
        return _close(log, resign), Alteration(
            "raise-cancelled-bids", n, f"hand {n}: seat {seat} bids {log.rules.auction_min} "
            "instead of passing, and nobody names a trump", seat=seat, expect="wrong-trump")
    i = len(rec.calls) - 1
    _set_call(log, n, i, 13)
    return _close(log, resign), Alteration(
        "raise-cancelled-bids", n, f"hand {n}: the dealer bids 13, not {rec.calls[i][1]}",
        expect="cancelled-wrongly")
