"""The protocol another engine implements to be driven by ``tarneeb regress``.

An engine under test is any object with the nine methods of :class:`Engine`.
Everything crossing the protocol is a plain ``int`` (or a sequence of them):

* a **seat** is ``0``–``3`` in play order; teams are ``0`` (seats 0 and 2) and
  ``1`` (seats 1 and 3);
* a **card** is ``suit * 13 + rank`` with suits ``♣ 0, ♦ 1, ♥ 2, ♠ 3`` and
  ranks ``2 → 0 … A → 12`` (so ``10♥`` is ``2 * 13 + 8 = 34``);
* a **hand of cards** is a 52-bit mask, bit ``card`` set for each card held;
* an **action** is ``0``–``51`` play that card, ``52 + n`` bid ``n`` tricks
  (``BID_BASE = 52``), ``66`` pass in the classic auction (``PASS``),
  ``67 + suit`` name that suit as trump (``TRUMP_BASE = 67``).

The driver calls the methods in this order (``docs/ENGINES.md`` has the
whole contract): ``new_match`` once; then for every dealing attempt ``deal``,
and for every move ``to_move``, ``legal_actions`` and ``apply``; ``tricks``
after every fourth card; ``to_move``, ``hand_scores`` (hands played to the
end), ``totals`` and ``winner`` when a hand is over.

>>> from tarneeb.testing.adapters import ReferenceEngine
>>> isinstance(ReferenceEngine(), Engine)
True
>>> card(rank=8, suit=2), bid(7), trump(3)
(34, 59, 70)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

from tarneeb.replay.rules.actions import BID_BASE, PASS, TRUMP_BASE
from tarneeb.replay.rules.ruleset import RuleSet

DEFAULT_TIME_LIMIT = 10.0  # seconds an engine may take over one match in ``regress``

Seat = int
Card = int
Action = int
Mask = int
NUM_ACTIONS = TRUMP_BASE + 4  # actions are 0 .. 70


@runtime_checkable
class Engine(Protocol):
    """A Tarneeb engine as ``tarneeb regress`` drives it (one object per match).

    Raising from any method, answering with the wrong type or an out-of-range
    value, or taking longer than the time limit, is that engine's failure on
    that match.
    """

    def new_match(self, rules: RuleSet, first_dealer: Seat) -> None:
        """Start a match under ``rules`` (see :class:`~tarneeb.replay.rules.ruleset.RuleSet`;
        ``rules.to_dict()`` gives every field as plain data) with ``first_dealer`` dealing."""

    def deal(self, hands: tuple[Mask, Mask, Mask, Mask], thirteenth: Card | None) -> None:
        """Deal the next hand: four 13-card masks by seat, and the dealer's 13th card
        (the last card the dealer received; it decides the trump in eram41 and sahrat41)."""

    def to_move(self) -> Seat | None:
        """The seat to move, or ``None`` between hands and once the match is won."""

    def legal_actions(self) -> Sequence[Action]:
        """Every action the seat to move may take now (any order, no repeats)."""

    def apply(self, action: Action) -> None:
        """Make ``action`` for the seat to move; it is always one the rules allow."""

    def tricks(self) -> Sequence[int]:
        """Tricks taken by each seat in the hand being played, four counts by seat
        (read after every trick, the 13th included, before the next deal)."""

    def hand_scores(self) -> Sequence[int] | None:
        """Each seat's score for the hand just played to its 13th trick (team
        games: the team's score on both partners); ``None`` before any hand is scored."""

    def totals(self) -> Sequence[int]:
        """Each seat's running total (team games: the team's total on both partners)."""

    def winner(self) -> int | None:
        """The team that has won the match, or ``None`` while play goes on."""


EngineFactory = Callable[[], Engine]


class EngineFailure(Exception):
    """Raised by an adapter when the engine behind it failed in a way of its own, not by
    raising: ``kind`` is one of the engine failures of a report (``timeout``, ``crashed``,
    ``garbage``, ``protocol``, ``raised``) and ``message`` says what happened. The driver
    reports it as that kind, with the message as it is (no adapter traceback).
    ``calls_back`` is how many calls before the one that raised it the failure belongs to
    (an answer read late, as an engine command's ``apply`` is), so that the report names the
    place of that call.

    >>> EngineFailure("crashed", "the engine's process died").kind
    'crashed'
    """

    def __init__(self, kind: str, message: str, calls_back: int = 0) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.calls_back = calls_back


def card(rank: int, suit: int) -> Card:
    """The card of ``rank`` (``0`` = 2 … ``12`` = ace) in ``suit`` (♣ 0, ♦ 1, ♥ 2, ♠ 3).

    >>> card(12, 3)  # the ace of spades
    51
    """
    return suit * 13 + rank


def bid(n: int) -> Action:
    """The action that bids ``n`` tricks.

    >>> bid(2), bid(13)
    (54, 65)
    """
    return BID_BASE + n


def trump(suit: int) -> Action:
    """The action that names ``suit`` as trump (classic: the auction winner's choice).

    >>> trump(2)  # hearts
    69
    """
    return TRUMP_BASE + suit


__all__ = [
    "BID_BASE", "NUM_ACTIONS", "PASS", "TRUMP_BASE", "Action", "Card", "Engine",
    "EngineFactory", "EngineFailure", "Mask", "Seat", "bid", "card", "trump",
]
