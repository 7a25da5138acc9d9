"""Actions: every step a seat takes, as a small integer, like a card.

* ``0``–``51`` play that card;
* ``bid_action(n)`` (``52 + n``) bids ``n`` tricks;
* ``PASS`` passes in the classic auction;
* ``trump_action(suit)`` names the trump (classic, the auction winner).

:class:`~tarneeb.replay.rules.engine.MatchState` takes and lists actions in this form.

>>> [describe_action(a) for a in (34, bid_action(7), PASS, trump_action(2))]
['10♥', 'bid 7', 'pass', 'trump ♥']
>>> is_bid(bid_action(13)), is_play(PASS), is_trump_choice(trump_action(3))
(True, False, True)
"""

from __future__ import annotations

import enum

from tarneeb.replay.rules.cards import SUIT_SYMBOLS, card_name

Action = int
BID_BASE = 52
PASS = 66
TRUMP_BASE = 67
NUM_ACTIONS = 71


def bid_action(n: int) -> Action:
    """The action that bids ``n`` tricks (0–13)."""
    return BID_BASE + n


def trump_action(suit: int) -> Action:
    """The action that names ``suit`` as trump."""
    return TRUMP_BASE + suit


def is_bid(a: Action) -> bool:
    return BID_BASE <= a < PASS


def is_play(a: Action) -> bool:
    return 0 <= a < 52


def is_trump_choice(a: Action) -> bool:
    return TRUMP_BASE <= a < NUM_ACTIONS


def describe_action(a: Action) -> str:
    """``'bid 7'``, ``'pass'``, ``'trump ♥'`` or the card, e.g. ``'10♥'``."""
    if is_play(a):
        return card_name(a)
    if is_bid(a):
        return f"bid {a - BID_BASE}"
    if a == PASS:
        return "pass"
    if is_trump_choice(a):
        return f"trump {SUIT_SYMBOLS[a - TRUMP_BASE]}"
    return f"action {a}"


class Phase(enum.IntEnum):
    DEAL = 0  # waiting for a deal (a chance event)
    BID = 1  # personal bids or the auction
    TRUMP = 2  # the auction winner names the trump
    PLAY = 3  # the 13 tricks
    OVER = 4  # the match is won


class IllegalAction(ValueError):
    """An action that the rules do not allow now; ``kind`` says which rule.

    Kinds: ``over``, ``not-your-turn``, ``wrong-phase``, ``not-held``, ``renege``,
    ``bid-range``, ``bid-minimum``, ``bid-not-higher``, ``bad-deal``.
    """

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


__all__ = [
    "BID_BASE",
    "NUM_ACTIONS",
    "PASS",
    "TRUMP_BASE",
    "Action",
    "IllegalAction",
    "Phase",
    "bid_action",
    "describe_action",
    "is_bid",
    "is_play",
    "is_trump_choice",
    "trump_action",
]
