"""Adapters from engines to the :class:`~tarneeb.testing.protocol.Engine` protocol.

* :class:`ReferenceEngine` wraps this project's own
  :class:`~tarneeb.replay.engine.MatchState`: the worked example of
  ``docs/ENGINES.md`` (factory ``tarneeb.testing.adapters:reference``).
* :class:`BrokenTrumpEngine` is a deliberately broken copy whose trick winner
  ignores a trump played by a seat void in the led suit: ``tarneeb regress``
  must catch it (factory ``tarneeb.testing.adapters:broken_trump``).

>>> from tarneeb.replay.cards import deal_hands
>>> from tarneeb.replay.rules import preset
>>> e = reference()
>>> e.new_match(preset("qahwa41"), first_dealer=3)
>>> e.deal(deal_hands(list(range(52)), dealer=3), thirteenth=51)
>>> e.to_move(), e.legal_actions()[:2], e.totals()
(0, [54, 55], [0, 0, 0, 0])
"""

from __future__ import annotations

from tarneeb.replay.cards import Card, Mask
from tarneeb.replay.engine import Hand, MatchState
from tarneeb.replay.rules import RuleSet


class ReferenceEngine:
    """This project's engine behind the protocol: every method is a line or two."""

    state_class: type[MatchState] = MatchState

    def __init__(self) -> None:
        self.state: MatchState | None = None

    def new_match(self, rules: RuleSet, first_dealer: int) -> None:
        self.state = self.state_class(rules, first_dealer)

    def deal(self, hands: tuple[Mask, Mask, Mask, Mask], thirteenth: Card | None) -> None:
        self._state.deal(tuple(hands), thirteenth)  # type: ignore[arg-type]

    def to_move(self) -> int | None:
        return self._state.current_player

    def legal_actions(self) -> list[int]:
        return self._state.legal_actions()

    def apply(self, action: int) -> None:
        self._state.apply(action)

    def tricks(self) -> list[int]:
        hand = self._current_or_last()
        return list(hand.tricks) if hand is not None else [0, 0, 0, 0]

    def hand_scores(self) -> list[int] | None:
        for hand in reversed(self._state.history):
            if hand.scores is not None:
                return list(hand.scores)
        return None

    def totals(self) -> list[int]:
        return list(self._state.totals)

    def winner(self) -> int | None:
        return self._state.winner

    # -- helpers
    @property
    def _state(self) -> MatchState:
        if self.state is None:
            raise RuntimeError("new_match() was not called")
        return self.state

    def _current_or_last(self) -> Hand | None:
        s = self._state
        if s.hand is not None:
            return s.hand
        return s.history[-1] if s.history else None


def reference() -> ReferenceEngine:
    """The factory ``tarneeb.testing.adapters:reference``."""
    return ReferenceEngine()


def broken_trick_winner(cards: list[Card], leader: int, trump: int | None) -> int:
    """The deliberate bug: the highest card of the led suit wins, trumps or not.

    >>> from tarneeb.replay.cards import parse_card as c
    >>> broken_trick_winner([c("2H"), c("AH"), c("3S"), c("KH")], leader=0, trump=3)
    1
    """
    led = cards[0] // 13
    best = max(c for c in cards if c // 13 == led)
    return (leader + cards.index(best)) & 3


class _BrokenTrumpState(MatchState):
    """A copy of the engine whose trick winner ignores trumps played on another suit."""

    __slots__ = ()

    def _play(self, card: Card) -> None:
        seat = self.current_player
        self.hands[seat] &= ~(1 << card)
        hand = self.hand
        hand.plays.append(card)
        if not self._trick:
            self._led = card // 13
            hand.trick_leaders.append(seat)
        self._trick.append(card)
        if len(self._trick) < 4:
            self.current_player = (seat + 1) & 3
            return
        winner = broken_trick_winner(self._trick, self.leader, self.trump)
        hand.tricks[winner] += 1
        hand.trick_winners.append(winner)
        self._trick = []
        self._led = -1
        self.leader = self.current_player = winner
        if len(hand.plays) == 52:
            self._finish_scored()


class BrokenTrumpEngine(ReferenceEngine):
    """:class:`ReferenceEngine` over the broken copy: a seat that trumps never wins."""

    state_class = _BrokenTrumpState


def broken_trump() -> BrokenTrumpEngine:
    """The factory ``tarneeb.testing.adapters:broken_trump``."""
    return BrokenTrumpEngine()


__all__ = ["BrokenTrumpEngine", "ReferenceEngine", "broken_trick_winner", "broken_trump",
           "reference"]
