"""Many moves in one call: the replayer's fast paths through the bidding, the tricks and
a whole hand, with the rules of :meth:`MatchState.apply
<tarneeb.replay.rules.engine.MatchState.apply>` move by move.

:class:`BatchMoves` is a part of :class:`~tarneeb.replay.rules.engine.MatchState` (its
base class), kept apart because it is one job: taking a log's moves as fast as they can be
judged, where the engine takes one move at a time. Each stops before the first move the
engine would refuse, leaving the state exactly as move-by-move play would.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tarneeb.replay.rules.actions import BID_BASE, PASS, Action, Phase
from tarneeb.replay.rules.cards import SUIT_MASKS, Card, Mask, by_seat
from tarneeb.replay.rules.fastplay import owners_of, whole_hand, whole_tricks
from tarneeb.replay.rules.ruleset import RuleSet
from tarneeb.replay.rules.scoring import Hand, trick_winner

_DEAL, _BID, _PLAY = Phase.DEAL, Phase.BID, Phase.PLAY
_CALL_ACTIONS = (*range(52, 66), 66, 66)  # a call's value in the log (15: pass) -> action


class MatchFields:
    """The fields of a match's state, :class:`~tarneeb.replay.rules.engine.MatchState`'s
    (which sets them): the rules, the phase and whose turn, the hand under way and the
    finished ones, the cards still held, the trick under way and the bids."""

    __slots__ = (
        "_bids", "_led", "_passed", "_trick", "current_player", "deal_number", "dealer",
        "hand", "hands", "history", "leader", "phase", "rules", "totals", "trump", "winner",
    )

    rules: RuleSet
    phase: Phase
    dealer: int
    deal_number: int
    totals: list[int]
    current_player: int | None
    history: list[Hand]  # finished hands, scored or cancelled
    hand: Hand | None  # the hand under way
    hands: list[Mask]  # cards still held
    trump: int | None
    winner: int | None
    leader: int
    _trick: list[Card]
    _led: int
    _bids: list[int | None]
    _passed: list[bool]


class BatchMoves(MatchFields):
    """The batch moves of a match state (see the module)."""

    __slots__ = ()

    if TYPE_CHECKING:
        @property
        def to_move(self) -> int: ...
        @property
        def hand_under_way(self) -> Hand: ...
        def lowest_total(self) -> int: ...
        def _highest_call(self) -> int: ...
        def _bid(self, action: Action) -> None: ...
        def _finish_cancelled(self) -> None: ...
        def _finish_scored(self) -> None: ...

    def apply_calls(self, calls: Sequence[tuple[int, Action]]) -> int:
        """Calls ``(seat, action)`` in order, as many as are legal; returns how many.

        The replayer's fast path for the bidding, with the rules of :meth:`apply`: it
        stops before a call out of turn or against the rules, or when the bidding
        is over, leaving the state as call-by-call play would.

        >>> from tarneeb.replay.rules.actions import PASS, bid_action
        >>> from tarneeb.replay.rules.engine import MatchState
        >>> from tarneeb.replay.rules.ruleset import preset
        >>> from tarneeb.replay.rules.cards import deal_hands
        >>> m = MatchState(preset("classic"), first_dealer=0)
        >>> m.deal(deal_hands(list(range(52)), dealer=0))
        >>> m.apply_calls([(1, bid_action(7)), (2, PASS), (3, bid_action(7))])  # 7 is not higher
        2
        """
        if self.phase != _BID:
            return 0
        rules, totals, bids = self.rules, self.totals, self._bids
        n = 0
        if rules.bidding == "personal":
            record = self.hand_under_way.calls
            low = None if rules.min_bid_steps else rules.min_bid  # the same for every seat
            for seat, action in calls:
                bid = action - BID_BASE
                if seat != self.current_player or not (
                        low if low is not None else rules.lowest_bid(totals[seat])) <= bid <= 13:
                    break
                bids[seat] = bid
                record.append((seat, action))
                n += 1
                if seat == self.dealer:
                    if sum(b or 0 for b in bids) < self.lowest_total():
                        self._finish_cancelled()
                    else:
                        self.phase = _PLAY
                        self.leader = self.current_player = (self.dealer + 1) & 3
                    break
                self.current_player = (seat + 1) & 3
            return n
        for seat, action in calls:
            if self.phase != _BID or seat != self.current_player:
                break
            if action != PASS and not (
                    max(rules.auction_min, self._highest_call() + 1) <= action - BID_BASE <= 13):
                break
            self._bid(action)
            n += 1
        return n

    def play_cards(self, cards: bytes | list[Card]) -> int:
        """Play cards in order, as many as are legal; returns how many were played.

        The same rules as :meth:`apply` card by card, in one tight loop: the replayer's
        fast path. It stops before the first card that :meth:`check` would refuse (or
        when the hand ends), leaving the state exactly as card-by-card play would.

        >>> from tarneeb.replay.rules.actions import PASS, bid_action
        >>> from tarneeb.replay.rules.engine import MatchState
        >>> from tarneeb.replay.rules.ruleset import preset
        >>> from tarneeb.replay.rules.cards import deal_hands
        >>> m = MatchState(preset("qahwa41"), first_dealer=3)
        >>> m.deal(deal_hands(list(range(52)), dealer=3), thirteenth=51)
        >>> for _ in range(4): m.apply(bid_action(3))
        >>> m.play_cards(bytes([0, 1, 2, 3, 40]))  # seat 1 cannot lead: it is seat 0's turn
        4
        """
        if self.phase != _PLAY:
            return 0
        hands = self.hands
        hand = self.hand_under_way
        plays = hand.plays
        trump = self.trump
        seat = self.to_move
        trick = self._trick
        led = self._led
        leader = self.leader
        suit_masks = SUIT_MASKS
        n = 0
        if not trick:  # whole tricks, four cards at a time
            n, played, seat = whole_tricks(hands, cards, seat, trump, hand.trick_winners,
                                           hand.tricks)
            if played:
                rest = ~played
                for s in range(4):
                    hands[s] &= rest
            if n:
                plays.extend(cards[:n])
                led = -1
                leader = seat
                if len(plays) == 52:
                    self._trick, self._led, self.leader, self.current_player = trick, -1, seat, seat
                    self._finish_scored()
                    return n
        for card in cards[n:]:
            held = hands[seat]
            bit = 1 << card
            if not held & bit:
                break
            if trick:
                if card // 13 != led and held & suit_masks[led]:
                    break
            else:
                led = card // 13
                leader = seat
            hands[seat] = held ^ bit
            trick.append(card)
            plays.append(card)
            n += 1
            if len(trick) == 4:
                winner = trick_winner(trick, leader, trump)
                hand.tricks[winner] += 1
                hand.trick_winners.append(winner)
                trick = []
                led = -1
                seat = leader = winner
                if len(plays) == 52:
                    self._trick, self._led, self.leader, self.current_player = trick, -1, seat, seat
                    self._finish_scored()
                    return n
            else:
                seat = (seat + 1) & 3
        self._trick, self._led, self.leader, self.current_player = trick, led, leader, seat
        return n

    def play_hand(self, hands: tuple[Mask, Mask, Mask, Mask], thirteenth: Card | None,
                  calls: Sequence[tuple[int, int]], trump: int | None,
                  cards: bytes, owners: bytes | None = None) -> Hand | None:
        """Deal and play a whole hand at once, when every move is legal and the hand ends
        as given (cancelled without cards, or all 52 played); returns the finished hand.
        Otherwise returns ``None`` and leaves the state as it was, for move-by-move play.

        ``calls`` are ``(seat, value)``, value 0-13 a bid and 15 a pass, as in the log;
        ``trump`` is the suit the auction winner names, or the trump the log claims.
        ``owners``, who holds each card (:func:`~tarneeb.replay.rules.fastplay.owners_of`), may
        be given with ``hands`` when the caller has it. The verifier's fast path
        (:mod:`tarneeb.replay.rules.fastplay`); four hands that are not a deal give ``None``.

        >>> from tarneeb.replay.rules.actions import PASS, bid_action
        >>> from tarneeb.replay.rules.engine import MatchState
        >>> from tarneeb.replay.rules.ruleset import preset
        >>> from tarneeb.replay.rules.cards import deal_hands
        >>> m = MatchState(preset("qahwa41"), first_dealer=3)
        >>> m.play_hand(deal_hands(list(range(52)), dealer=3), 51,
        ...             [(0, 2), (1, 2), (2, 2), (3, 2)], None, bytes(range(52))) is None
        True
        >>> m.phase  # the trump is spades (the 13th card's suit), not none: nothing done
        <Phase.DEAL: 0>
        """
        if self.phase != _DEAL:
            return None
        rules = self.rules
        deal_trump = rules.trump_for_deal(thirteenth)
        if owners is None:
            owners = owners_of(hands)
            if owners is None:
                return None
        out = whole_hand(rules, self.totals, self.dealer, owners, deal_trump, calls, trump,
                         cards)
        if out is None:
            return None
        cancelled, declarer, contract, trump, winners, tricks = out
        actions = _CALL_ACTIONS
        hand = self.hand = Hand(
            self.deal_number, self.dealer, by_seat(hands), thirteenth,
            deal_trump if cancelled else trump, [(s, actions[v]) for s, v in calls],
            declarer, contract, list(cards), winners, tricks)
        if cancelled:
            self._finish_cancelled()
        else:
            self.trump = trump
            self._finish_scored()
        return hand


__all__ = ["BatchMoves", "MatchFields"]
