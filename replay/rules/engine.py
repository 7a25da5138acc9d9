"""The rules engine: one state machine for a whole match.

The same :class:`MatchState` serves the simulator, the replayer and other people's code.
It does no I/O and draws no randomness: a deal is a chance event supplied from outside
(:meth:`MatchState.deal`), every other step is an action chosen by the seat whose turn it
is (:meth:`MatchState.apply`). Actions are small integers, like cards
(:mod:`~tarneeb.replay.rules.actions`); what a hand scores and when a match is won is
:mod:`~tarneeb.replay.rules.scoring`.

>>> from tarneeb.replay.rules.ruleset import preset
>>> from tarneeb.replay.rules.cards import deal_hands
>>> m = MatchState(preset("qahwa41"), first_dealer=3)
>>> m.phase, m.current_player
(<Phase.DEAL: 0>, None)
>>> m.deal(deal_hands(list(range(52)), dealer=3), thirteenth=51)
>>> m.phase, m.current_player, describe_action(m.legal_actions()[0])
(<Phase.BID: 1>, 0, 'bid 2')
"""

from __future__ import annotations

from tarneeb.replay.rules.actions import (
    BID_BASE,
    NUM_ACTIONS,
    PASS,
    TRUMP_BASE,
    Action,
    IllegalAction,
    Phase,
    bid_action,
    describe_action,
    is_bid,
    is_play,
    is_trump_choice,
    trump_action,
)
from tarneeb.replay.rules.batch import BatchMoves, MatchFields
from tarneeb.replay.rules.cards import (
    SUIT_MASKS,
    SUIT_SYMBOLS,
    Card,
    Mask,
    by_seat,
    card_name,
    cards_of,
    check_deal,
)
from tarneeb.replay.rules.ruleset import RuleSet
from tarneeb.replay.rules.scoring import (
    TIE_TEAMS,
    Hand,
    break_tie,
    match_winner,
    partner_of,
    qualifying_players,
    score_hand,
    team_of,
    team_totals,
    trick_winner,
)

_DEAL, _BID, _TRUMP, _PLAY, _OVER = Phase  # plain names: an Enum attribute costs a lookup


SEAT_NAMES = ("seat 0", "seat 1", "seat 2", "seat 3")


class MatchState(BatchMoves):
    """A match from the first deal to the win. See the module docstring; the moves it
    takes many at a time (the replayer's fast paths) are :class:`BatchMoves`'."""

    __slots__ = ()

    def __init__(self, rules: RuleSet, first_dealer: int) -> None:
        if first_dealer not in (0, 1, 2, 3):
            raise ValueError(f"first dealer must be a seat 0-3, not {first_dealer!r}")
        self.rules = rules
        self.dealer = first_dealer
        self.deal_number = 0
        self.totals = [0, 0, 0, 0]
        self.phase = _DEAL
        self.current_player = None
        self.history = []
        self.hand = None
        self.hands = [0, 0, 0, 0]
        self.trump = None
        self.winner = None
        self.leader = 0
        self._trick = []
        self._led = -1
        self._bids = [None] * 4
        self._passed = [False] * 4

    # ------------------------------------------------------------------ copying
    def clone(self) -> MatchState:
        """An independent copy (finished hands are shared, they never change)."""
        other = object.__new__(MatchState)
        for name in MatchFields.__slots__:
            v = getattr(self, name)
            if isinstance(v, list) and name != "history":
                v = list(v)
            setattr(other, name, v)
        other.history = list(self.history)
        if self.hand is not None:
            h = self.hand
            other.hand = Hand(h.deal_number, h.dealer, h.hands, h.thirteenth, h.trump,
                              list(h.calls), h.declarer, h.contract, list(h.plays),
                              list(h.trick_winners), list(h.tricks))
        return other

    # ------------------------------------------------------------------ chance
    def deal(self, hands: tuple[Mask, Mask, Mask, Mask], thirteenth: Card | None = None,
             validate: bool = True) -> None:
        """Deal the next hand: four 13-card masks by seat, and the dealer's 13th card.

        ``validate=False`` skips the check that the masks are a deal, for deals that are
        one by construction (derived from a deck order).
        """
        if self.phase != _DEAL:
            raise IllegalAction("wrong-phase",
                                f"cannot deal now: the match is in {self.phase.name}")
        if validate:
            problem = check_deal(hands, self.dealer, thirteenth, self.rules.reveals_card)
            if problem:
                raise IllegalAction("bad-deal", problem)
        self.hand = Hand(self.deal_number, self.dealer, by_seat(hands),
                         thirteenth, None, [], None, None, [], [], [0, 0, 0, 0])
        self.hands = list(hands)
        self.trump = self.rules.trump_for_deal(thirteenth)
        self.hand.trump = self.trump
        self._bids = [None] * 4
        self._passed = [False] * 4
        self._trick = []
        self._led = -1
        self.phase = _BID
        self.current_player = (self.dealer + 1) & 3

    # ------------------------------------------------------------------ queries
    @property
    def is_over(self) -> bool:
        return self.phase == _OVER

    @property
    def to_move(self) -> int:
        """The seat to move; :class:`IllegalAction` (``wrong-phase``) when no seat is
        (before a deal, after the match)."""
        seat = self.current_player
        if seat is None:
            raise IllegalAction("wrong-phase", f"no seat is to move: the match is in "
                                f"{self.phase.name}")
        return seat

    @property
    def hand_under_way(self) -> Hand:
        """The hand being bid or played; :class:`IllegalAction` (``wrong-phase``) when
        none is (before a deal, after the match)."""
        hand = self.hand
        if hand is None:
            raise IllegalAction("wrong-phase", f"no hand is under way: the match is in "
                                f"{self.phase.name}")
        return hand

    @property
    def trick(self) -> list[Card]:
        """The cards of the trick under way, in the order played."""
        return list(self._trick)

    def lowest_bid(self, seat: int) -> int:
        """The lowest personal bid ``seat`` may make now (the 400 minimum rises with the score)."""
        return self.rules.lowest_bid(self.totals[seat])

    def lowest_total(self) -> int:
        return self.rules.lowest_total(max(self.totals))

    def _highest_call(self) -> int:
        return max((b for b in self._bids if b is not None), default=0)

    def highest_call(self) -> int:
        """The highest bid of the auction so far (0 before any)."""
        return self._highest_call()

    @property
    def led_suit(self) -> int | None:
        """The suit led in the trick under way (``None`` before its first card)."""
        return self._led if self._led >= 0 else None

    def legal_actions(self) -> list[Action]:
        """The actions the seat to move may take, in increasing order."""
        p = self.phase
        if p == _PLAY:
            return cards_of(self._legal_mask())
        if p == _BID:
            if self.rules.bidding == "personal":
                return [BID_BASE + n for n in range(self.lowest_bid(self.to_move), 14)]
            low = max(self.rules.auction_min, self._highest_call() + 1)
            return [BID_BASE + n for n in range(low, 14)] + [PASS]
        if p == _TRUMP:
            return [TRUMP_BASE + s for s in range(4)]
        return []

    def _legal_mask(self) -> Mask:
        held = self.hands[self.to_move]
        if self._led >= 0:
            follow = held & SUIT_MASKS[self._led]
            if follow:
                return follow
        return held

    def check(self, action: Action) -> IllegalAction | None:
        """Why ``action`` is illegal now, or ``None`` when it is legal."""
        p = self.phase
        if p == _OVER:
            return IllegalAction("over", "the match is already won")
        if p == _DEAL:
            return IllegalAction("wrong-phase", "waiting for a deal")
        seat = self.to_move
        who = SEAT_NAMES[seat]
        if p == _PLAY:
            if not is_play(action):
                return IllegalAction("wrong-phase",
                                     f"{who} must play a card, not {describe_action(action)}")
            bit = 1 << action
            if not self.hands[seat] & bit:
                return IllegalAction("not-held", f"{who} does not hold {card_name(action)}")
            if self._led >= 0 and action // 13 != self._led \
                    and self.hands[seat] & SUIT_MASKS[self._led]:
                return IllegalAction(
                    "renege", f"{who} played {card_name(action)} on a "
                    f"{SUIT_SYMBOLS[self._led]} lead while holding {SUIT_SYMBOLS[self._led]}")
            return None
        if p == _TRUMP:
            if not is_trump_choice(action):
                return IllegalAction("wrong-phase", f"{who} must name the trump")
            return None
        # bidding
        if self.rules.bidding == "personal":
            if not is_bid(action):
                return IllegalAction("bid-range", f"{who} must bid 2-13; there is no pass")
            n = action - BID_BASE
            low = self.lowest_bid(seat)
            if not self.rules.min_bid <= n <= self.rules.max_bid:
                return IllegalAction("bid-range", f"{who} bid {n}; bids run from "
                                     f"{self.rules.min_bid} to {self.rules.max_bid}")
            if n < low:
                return IllegalAction("bid-minimum", f"{who} bid {n}, but with a score of "
                                     f"{self.totals[seat]} the lowest bid allowed is {low}")
            return None
        if action == PASS:
            return None
        if not is_bid(action):
            return IllegalAction("wrong-phase", f"{who} must bid or pass")
        n = action - BID_BASE
        if not self.rules.auction_min <= n <= 13:
            return IllegalAction("bid-range", f"{who} bid {n}; auction bids run from "
                                 f"{self.rules.auction_min} to 13")
        high = self._highest_call()
        if n <= high:
            return IllegalAction("bid-not-higher", f"{who} bid {n}, not higher than the {high} "
                                 "already bid")
        return None

    def timer_actions(self) -> list[Action]:
        """The moves the turn timer may make now (the rules' automatic move).

        Bidding: the lowest bid allowed (personal) or a pass (auction). Play: the
        weakest legal card, the lowest-ranked non-trump, else the lowest trump; ties
        between suits are all accepted. Naming the trump: the longest suit held.
        """
        p = self.phase
        if p == _BID:
            if self.rules.bidding == "personal":
                return [BID_BASE + self._timer_bid(self.to_move)]
            return [PASS]
        if p == _TRUMP:
            held = self.hands[self.to_move]
            lengths = [(held & SUIT_MASKS[s]).bit_count() for s in range(4)]
            longest = max(lengths)
            return [TRUMP_BASE + s for s in range(4) if lengths[s] == longest]
        if p == _PLAY:
            legal = self._legal_mask()
            plain = legal & ~SUIT_MASKS[self.trump] if self.trump is not None else legal
            pool = cards_of(plain or legal)
            low = min(c % 13 for c in pool)
            return [c for c in pool if c % 13 == low]
        return []

    def _timer_bid(self, seat: int) -> int:
        """The timer's personal bid: the lowest allowed; with ``timer_bid = "reach_minimum"``
        the last bidder's timer bid brings the total up to the table minimum where a bid of
        13 or less can (where none can, the hand is cancelled whatever it bids: the lowest)."""
        low = self.lowest_bid(seat)
        if self.rules.timer_bid == "reach_minimum" and seat == self.dealer:
            need = self.lowest_total() - sum(b for b in self._bids if b is not None)
            if low < need <= self.rules.max_bid:
                return need
        return low

    # ------------------------------------------------------------------ moves
    def apply(self, action: Action, checked: bool = True) -> None:
        """Take ``action`` for the seat to move.

        With ``checked=False`` a rule-breaking move that the state can still hold
        (a renege, a bid out of range or below the minimum, an auction bid not higher)
        is applied as it stands: the replayer uses this to report a move and keep going.
        A card the seat does not hold is never applied.
        """
        problem = self.check(action)
        if problem is not None and (checked or problem.kind in ("over", "wrong-phase", "not-held")):
            raise problem
        self.apply_unchecked(action)

    def apply_unchecked(self, action: Action) -> None:
        """Take an action that :meth:`check` has already judged, without judging it again.

        Only for an action whose ``check`` returned ``None`` or a problem that the state
        can hold (see :meth:`apply`); anything else corrupts the state.
        """
        p = self.phase
        if p == _PLAY:
            self._play(action)
        elif p == _BID:
            self._bid(action)
        else:
            self._name_trump(action - TRUMP_BASE)

    def _bid(self, action: Action) -> None:
        seat = self.to_move
        hand = self.hand_under_way
        hand.calls.append((seat, action))
        if self.rules.bidding == "personal":
            self._bids[seat] = action - BID_BASE
            if seat == self.dealer:
                total = sum(b or 0 for b in self._bids)
                if total < self.lowest_total():
                    self._finish_cancelled()
                else:
                    self.phase = _PLAY
                    self.leader = self.current_player = (self.dealer + 1) & 3
            else:
                self.current_player = (seat + 1) & 3
            return
        # classic auction
        if action == PASS:
            self._passed[seat] = True
        else:
            self._bids[seat] = action - BID_BASE
        n_passed = sum(self._passed)
        high = self._highest_call()
        if n_passed == 4:
            self._finish_cancelled()
            return
        if (high == 13 and self.rules.auction_ends_on_13) or (n_passed == 3 and high > 0):
            declarer = next(s for s in range(4) if self._bids[s] == high)
            hand.declarer, hand.contract = declarer, high
            self.phase = _TRUMP
            self.current_player = declarer
            return
        nxt = (seat + 1) & 3
        while self._passed[nxt]:
            nxt = (nxt + 1) & 3
        self.current_player = nxt

    def _name_trump(self, suit: int) -> None:
        hand = self.hand_under_way
        declarer = hand.declarer
        if declarer is None:
            raise IllegalAction("wrong-phase", "no auction winner names the trump")
        self.trump = hand.trump = suit
        self.phase = _PLAY
        self.leader = self.current_player = declarer

    def _play(self, card: Card) -> None:
        seat = self.to_move
        self.hands[seat] &= ~(1 << card)
        trick = self._trick
        hand = self.hand_under_way
        hand.plays.append(card)
        if not trick:
            self._led = card // 13
        trick.append(card)
        if len(trick) < 4:
            self.current_player = (seat + 1) & 3
            return
        winner = trick_winner(trick, self.leader, self.trump)
        hand.tricks[winner] += 1
        hand.trick_winners.append(winner)
        self._trick = []
        self._led = -1
        self.leader = self.current_player = winner
        if len(hand.plays) == 52:
            self._finish_scored()

    # ------------------------------------------------------------------ ends of hands
    def _finish_cancelled(self) -> None:
        hand = self.hand_under_way
        hand.cancelled = True
        hand.totals = list(self.totals)
        self._next_hand()

    def _finish_scored(self) -> None:
        hand = self.hand_under_way
        scores = score_hand(self.rules, hand, self.totals)
        self.finish_hand_with(scores)

    def finish_hand_with(self, scores: list[int]) -> None:
        """End the hand under way with the given per-seat ``scores`` and check for a win.

        The engine calls this itself after the 13th trick. The replayer also calls it
        to carry on past a hand it could not replay, with the scores the log claims.
        """
        if self.phase == _OVER:
            raise IllegalAction("over", "the match is already won")
        hand = self.hand
        if hand is None:  # a hand that could not even be dealt
            hand = self.hand = Hand(self.deal_number, self.dealer, (0, 0, 0, 0), None)
        s0, s1, s2, s3 = hand.scores = list(scores)
        t0, t1, t2, t3 = self.totals
        self.totals = [t0 + s0, t1 + s1, t2 + s2, t3 + s3]
        hand.totals = list(self.totals)
        self.winner = hand.winner = match_winner(self.rules, hand, self.totals)
        self._next_hand()

    def _next_hand(self) -> None:
        self.history.append(self.hand_under_way)
        self.hand = None
        self.hands = [0, 0, 0, 0]
        self.deal_number += 1
        if self.rules.dealer_rotates:  # else the first dealer deals every hand
            self.dealer = (self.dealer + 1) & 3
        self.trump = None
        self.current_player = None
        self.phase = _OVER if self.winner is not None else _DEAL


__all__ = [
    "BID_BASE", "NUM_ACTIONS", "PASS", "TIE_TEAMS", "TRUMP_BASE", "Action", "Hand",
    "IllegalAction", "MatchState", "Phase", "bid_action", "break_tie", "check_deal",
    "describe_action", "is_bid", "is_play", "is_trump_choice", "match_winner", "partner_of",
    "qualifying_players", "score_hand", "team_of", "team_totals", "trick_winner", "trump_action",
]
