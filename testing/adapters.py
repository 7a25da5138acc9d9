"""Adapters from engines to the :class:`~tarneeb.testing.protocol.Engine` protocol.

* :class:`ReferenceEngine` wraps this project's own
  :class:`~tarneeb.replay.rules.engine.MatchState`: the worked example of
  ``docs/ENGINES.md`` (factory ``tarneeb.testing.adapters:reference``).
* :class:`BrokenTrumpEngine` is a deliberately broken copy whose trick winner
  ignores a trump played by a seat void in the led suit (the highest card of the
  led suit always wins): ``tarneeb regress`` must catch it (factory
  ``tarneeb.testing.adapters:broken_trump``).

>>> from tarneeb.replay.rules.cards import deal_hands
>>> from tarneeb.replay.rules.ruleset import preset
>>> e = reference()
>>> e.new_match(preset("qahwa41"), first_dealer=3)
>>> e.deal(deal_hands(list(range(52)), dealer=3), thirteenth=51)
>>> e.to_move(), e.legal_actions()[:2], e.totals()
(0, [54, 55], [0, 0, 0, 0])

The broken copy gives a trumped trick to the highest card of the led suit:

>>> from tarneeb.replay.rules.cards import SUIT_MASKS, parse_card
>>> def first_trick(engine):
...     engine.new_match(preset("qahwa41"), first_dealer=3)   # hearts are trumps
...     engine.deal(SUIT_MASKS, parse_card("AS"))      # seat 0 all ♣, 1 all ♦, 2 all ♥, 3 all ♠
...     for action in (54, 54, 54, 57):                # bids 2, 2, 2, 5
...         engine.apply(action)
...     for card in ("2C", "2D", "2H", "2S"):          # seat 2, void in clubs, trumps
...         engine.apply(parse_card(card))
...     return engine.tricks()
>>> first_trick(reference()), first_trick(broken_trump())
([0, 0, 1, 0], [1, 0, 0, 0])
"""

from __future__ import annotations

from tarneeb.replay.rules.cards import Card, Mask, by_seat
from tarneeb.replay.rules.engine import MatchState, Phase
from tarneeb.replay.rules.ruleset import RuleSet
from tarneeb.replay.rules.scoring import Hand


class ReferenceEngine:
    """This project's engine behind the protocol: every method is a line or two."""

    state_class: type[MatchState] = MatchState

    def __init__(self) -> None:
        self.state: MatchState | None = None

    def new_match(self, rules: RuleSet, first_dealer: int) -> None:
        self.state = self.state_class(rules, first_dealer)

    def deal(self, hands: tuple[Mask, Mask, Mask, Mask], thirteenth: Card | None) -> None:
        self._state.deal(by_seat(hands), thirteenth)

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


class _BrokenTrumpState(MatchState):
    """The engine with one bug: a trick is judged as if there were no trump, so the
    highest card of the led suit wins even when a seat void in it has trumped."""

    __slots__ = ()

    def _play(self, card: Card) -> None:
        if len(self._trick) < 3:
            super()._play(card)
            return
        trump = self.trump
        self.trump = None  # the bug
        try:
            super()._play(card)
        finally:
            if self.phase == Phase.PLAY:  # the hand goes on: the trump is back for the rules
                self.trump = trump


class BrokenTrumpEngine(ReferenceEngine):
    """:class:`ReferenceEngine` over the broken copy: a seat that trumps never wins."""

    state_class = _BrokenTrumpState


def broken_trump() -> BrokenTrumpEngine:
    """The factory ``tarneeb.testing.adapters:broken_trump``."""
    return BrokenTrumpEngine()


__all__ = ["BrokenTrumpEngine", "ReferenceEngine", "broken_trump", "reference"]
