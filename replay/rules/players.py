"""Computer players, and a helper that plays a whole match with them.

A player looks at a :class:`~tarneeb.replay.rules.engine.MatchState` and returns a
:class:`Move`: an engine action and whether the turn timer made it. Players
draw randomness only from the :class:`random.Random` they are given, so the
same seeds always give the same match.

* :class:`BotPlayer` bids from its hand strength and plays by simple card-play
  heuristics. Its fields steer it towards rare paths (timer moves, over- and
  under-bidding, forced moves), which is what the fixture corpus needs.
* :class:`RandomPlayer` makes any legal move, uniformly.
* :func:`play_match` deals and plays until a team wins.

>>> import random
>>> from tarneeb.replay.rules.ruleset import preset
>>> rng = random.Random(7)
>>> bots = [BotPlayer(rng) for _ in range(4)]
>>> state, timer_flags = play_match(preset("eram41"), 0, shuffled_deals(random.Random(1)), bots)
>>> state.winner in (0, 1), len(timer_flags) == len(state.history)
(True, True)
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from tarneeb.replay.rules.actions import BID_BASE, PASS, TRUMP_BASE, Action, describe_action, is_bid
from tarneeb.replay.rules.cards import (
    FULL_DECK,
    SUIT_MASKS,
    SUITS,
    Card,
    Mask,
    deal_hands,
    lowest,
)
from tarneeb.replay.rules.engine import MatchState, Phase
from tarneeb.replay.rules.ruleset import RuleSet
from tarneeb.replay.rules.scoring import partner_of

Hands = tuple[Mask, Mask, Mask, Mask]
# deals(deal_number, dealer) -> (the four hands by seat, the dealer's 13th card or None)
DealSource = Callable[[int, int], tuple[Hands, Card | None]]


@dataclass(frozen=True, slots=True)
class Move:
    """One move: an engine ``action``; ``timer=True`` when the turn timer made it.

    A timer move must be one of ``state.timer_actions()``.

    >>> Move(PASS, timer=True)
    Move(action=66, timer=True)
    """

    action: Action
    timer: bool = False


class Player(Protocol):
    """Anything that picks a move for the seat to move (``state.current_player``)."""

    def choose(self, state: MatchState) -> Move: ...


Override = Callable[[MatchState], Move | None]


# ---------------------------------------------------------------------- hand strength

_ACE, _KING, _QUEEN = 12, 11, 10


def estimate_tricks(hand: Mask, trump: int | None) -> float:
    """Roughly how many tricks ``hand`` takes by itself with ``trump`` as the trump suit.

    High cards count in every suit (an ace about one trick, a guarded king most
    of one, a guarded queen a little); trumps beyond the third count almost a
    trick each, and short side suits count when there are trumps to ruff with.

    >>> from tarneeb.replay.rules.cards import mask_of, parse_card
    >>> h = mask_of(parse_card(c) for c in "AH KH QH JH TH 9H AS KS AC KC AD 2D 3D".split())
    >>> round(estimate_tricks(h, trump=2), 1)
    10.0
    """
    n_trumps = (hand & SUIT_MASKS[trump]).bit_count() if trump is not None else 0
    est = 0.0
    for s in SUITS:
        m = hand & SUIT_MASKS[s]
        n = m.bit_count()
        base = s * 13
        ace = m >> (base + _ACE) & 1
        king = m >> (base + _KING) & 1
        queen = m >> (base + _QUEEN) & 1
        if s == trump:
            est += ace + king * (0.9 if n >= 2 else 0.5) + queen * (0.7 if n >= 3 else 0.2)
            est += max(0, n - 3) * 0.9
            continue
        long_suit = 0.7 if n >= 6 else 1.0  # long side suits get ruffed sooner
        est += ace * long_suit
        est += king * (0.75 if n >= 2 else 0.2) * long_suit
        est += queen * (0.35 if n >= 3 and (ace or king) else 0.15)
        if n_trumps >= 3:
            if n == 0:
                est += 0.8
            elif n == 1 and not ace:
                est += 0.4
            elif n == 2:
                est += 0.1
    return est


def _clamp(n: int, low: int, high: int) -> int:
    return low if n < low else high if n > high else n


# ---------------------------------------------------------------------- card play

def _beats_mask(card: Card) -> Mask:
    """The cards of ``card``'s suit ranked above it."""
    return SUIT_MASKS[card // 13] & ~((1 << (card + 1)) - 1)


def _trick_leader(trick: list[Card], trump: int | None) -> int:
    """The index (in ``trick``) of the card winning the trick so far."""
    best = 0
    best_card = trick[0]
    best_suit = best_card // 13
    for i in range(1, len(trick)):
        c = trick[i]
        s = c // 13
        if s == best_suit:
            if c > best_card:
                best, best_card = i, c
        elif s == trump:
            best, best_card, best_suit = i, c, s
    return best


def _lowest_rank(mask: Mask, suit_len: Callable[[int], int]) -> Card:
    """The lowest-ranked card of ``mask``; between suits, the one from the shortest suit."""
    best = -1
    best_key = (99, 99)
    for s in SUITS:
        m = mask & SUIT_MASKS[s]
        if m:
            c = lowest(m)
            key = (c % 13, suit_len(s))
            if key < best_key:
                best, best_key = c, key
    return best


def _discard(own: Mask, trump: int | None) -> Card:
    """The card to throw away: the lowest-ranked non-trump, else the lowest trump."""
    plain = own & ~SUIT_MASKS[trump] if trump is not None else own
    pool = plain or own
    return _lowest_rank(pool, lambda s: (own & SUIT_MASKS[s]).bit_count())


def choose_card(state: MatchState) -> Card:
    """The card a sensible player plays now (``state`` must be in the play phase).

    Leading: a card that is the highest left in its suit (from the longest such
    suit), else the top trump when holding most of the trumps still out, else
    the lowest card of the longest side suit. Following: the lowest card that
    wins the trick unless the partner is already winning it, else the lowest card
    of the suit. Void: trump in with the lowest trump that wins when an opponent
    is winning, else discard the lowest-ranked card.
    """
    seat = state.to_move
    own = state.hands[seat]
    trump = state.trump
    trick = state.trick
    trump_mask = SUIT_MASKS[trump] if trump is not None else 0

    if not trick:
        played = 0
        for c in state.hand_under_way.plays:
            played |= 1 << c
        unseen = FULL_DECK & ~played & ~own
        side = own & ~trump_mask
        best_master, best_len = -1, -1
        m = side
        while m:
            low = m & -m
            c = low.bit_length() - 1
            m ^= low
            if not unseen & _beats_mask(c):
                n = (own & SUIT_MASKS[c // 13]).bit_count()
                if n > best_len or (n == best_len and c % 13 > best_master % 13):
                    best_master, best_len = c, n
        if best_master >= 0:
            return best_master
        trumps = own & trump_mask
        if trumps:
            top = trumps.bit_length() - 1
            if not unseen & _beats_mask(top) and \
                    2 * trumps.bit_count() >= (unseen & trump_mask).bit_count():
                return top
        if side:
            longest = max(SUITS, key=lambda s: ((side & SUIT_MASKS[s]).bit_count(), -s))
            return lowest(side & SUIT_MASKS[longest])
        return lowest(trumps)

    led = trick[0] // 13
    win_i = _trick_leader(trick, trump)
    win_card = trick[win_i]
    win_seat = (state.leader + win_i) & 3
    partner_winning = win_seat == partner_of(seat)
    follow = own & SUIT_MASKS[led]
    if follow:
        if partner_winning:
            return lowest(follow)
        beats = follow & _beats_mask(win_card) if win_card // 13 == led else 0
        return lowest(beats) if beats else lowest(follow)
    if not partner_winning and trump is not None:
        trumps = own & trump_mask
        over = trumps & _beats_mask(win_card) if win_card // 13 == trump else trumps
        if over:
            return lowest(over)
    return _discard(own, trump)


# ---------------------------------------------------------------------- players

def _timer_move(state: MatchState, rng: random.Random) -> Move:
    options = state.timer_actions()
    return Move(options[0] if len(options) == 1 else rng.choice(options), timer=True)


@dataclass
class BotPlayer:
    """A computer player that bids from hand strength and plays sensibly.

    Every choice is a function of the state and of ``rng``; the fields below steer
    it (the fixture corpus uses them to reach rare paths):

    * ``timer_rate``: the chance that a move is left to the turn timer instead
      (a random choice among ``state.timer_actions()``, marked ``timer=True``);
    * ``bid_shift``: whole tricks added to every bid (personal bids and the
      auction), then clamped to the legal range: +3 makes failed bids and negative
      totals, -3 makes cancelled hands. Shift one or two seats: with all four
      shifted up, or all four always bidding low, a match rarely ends;
    * ``aggression``: extra tricks counted on in the auction, and by a dealer
      topping up the bids to avoid a cancelled hand;
    * ``partner_help``: tricks expected from the partner in the auction;
    * ``override``: consulted first; a ``Move`` it returns is played as it is,
      ``None`` lets the bot decide.

    >>> import random
    >>> from tarneeb.replay.rules.engine import bid_action
    >>> from tarneeb.replay.rules.ruleset import preset
    >>> m = MatchState(preset("qahwa41"), first_dealer=3)
    >>> m.deal(*shuffled_deals(random.Random(2))(0, 3))
    >>> always_13 = BotPlayer(random.Random(0), override=lambda s: Move(bid_action(13)))
    >>> always_13.choose(m)
    Move(action=65, timer=False)
    """

    rng: random.Random = field(default_factory=lambda: random.Random(0))
    timer_rate: float = 0.0
    bid_shift: int = 0
    aggression: float = 0.0
    partner_help: float = 2.5
    override: Override | None = None

    def choose(self, state: MatchState) -> Move:
        if self.override is not None:
            forced = self.override(state)
            if forced is not None:
                return forced
        if self.timer_rate > 0 and self.rng.random() < self.timer_rate:
            return _timer_move(state, self.rng)
        phase = state.phase
        if phase == Phase.PLAY:
            return Move(choose_card(state))
        if phase == Phase.BID:
            if state.rules.bidding == "personal":
                return Move(self._personal_bid(state))
            return Move(self._auction_call(state))
        if phase == Phase.TRUMP:
            return Move(TRUMP_BASE + self._best_suit(state.hands[state.to_move]))
        raise ValueError(f"no move to choose: the match is in {phase.name}")

    # -- bidding
    def _personal_bid(self, state: MatchState) -> Action:
        seat = state.to_move
        est = estimate_tricks(state.hands[seat], state.trump)
        bid = int(est + 0.5)
        if seat == state.dealer:
            others = sum(a - BID_BASE for _, a in state.hand_under_way.calls if is_bid(a))
            needed = state.lowest_total() - others
            if bid < needed <= est + 1 + self.aggression:
                bid = needed
        low = state.lowest_bid(seat)
        return BID_BASE + _clamp(bid + self.bid_shift, low, state.rules.max_bid)

    def _auction_call(self, state: MatchState) -> Action:
        seat = state.to_move
        own = state.hands[seat]
        legal = state.legal_actions()
        bids = [a for a in legal if is_bid(a)]
        if not bids:
            return PASS
        low = bids[0] - BID_BASE
        partner = partner_of(seat)
        partner_calls = [a for s, a in state.hand_under_way.calls if s == partner]
        high_bidder = None
        high = 0
        for s, a in state.hand_under_way.calls:
            if is_bid(a) and a - BID_BASE > high:
                high, high_bidder = a - BID_BASE, s
        help_ = self.partner_help
        if partner_calls:
            help_ += 1.0 if is_bid(partner_calls[-1]) else -1.0
        best = max(estimate_tricks(own, s) for s in SUITS)
        team = best + help_ + self.aggression + self.bid_shift
        if high_bidder == partner:
            team -= 1.0  # only outbid the partner with something to spare
        if team >= 13:
            return BID_BASE + 13
        if team >= low:
            return BID_BASE + low
        return PASS

    @staticmethod
    def _best_suit(hand: Mask) -> int:
        return max(SUITS, key=lambda s: (estimate_tricks(hand, s),
                                         (hand & SUIT_MASKS[s]).bit_count(), -s))


@dataclass
class RandomPlayer:
    """Any legal move, uniformly at random (and a timer move with ``timer_rate``).

    >>> import random
    >>> from tarneeb.replay.rules.ruleset import preset
    >>> m = MatchState(preset("classic"), first_dealer=0)
    >>> m.deal(*shuffled_deals(random.Random(3))(0, 0))
    >>> RandomPlayer(random.Random(1)).choose(m).action in m.legal_actions()
    True
    """

    rng: random.Random = field(default_factory=lambda: random.Random(0))
    timer_rate: float = 0.0

    def choose(self, state: MatchState) -> Move:
        if self.timer_rate > 0 and self.rng.random() < self.timer_rate:
            return _timer_move(state, self.rng)
        return Move(self.rng.choice(state.legal_actions()))


# ---------------------------------------------------------------------- whole matches

class MatchTooLong(RuntimeError):
    """Raised by :func:`play_match` when ``max_hands`` hands are dealt without a winner.

    ``state`` and ``timer_flags`` hold the match so far, as :func:`play_match` returns them.
    """

    def __init__(self, message: str, state: MatchState, timer_flags: list[list[bool]]) -> None:
        super().__init__(message)
        self.state = state
        self.timer_flags = timer_flags


class BadMove(ValueError):
    """A player returned a move the rules do not allow (the message says which)."""


def shuffled_deals(rng: random.Random) -> DealSource:
    """A deal source for :func:`play_match` that shuffles a fresh deck with ``rng`` each hand.

    Card ``i`` goes to seat ``(dealer+1+i) % 4``; the dealer's 13th card is the last card.

    >>> hands, thirteenth = shuffled_deals(random.Random(5))(0, 2)
    >>> sum(h.bit_count() for h in hands), hands[2] >> thirteenth & 1
    (52, 1)
    """
    def deals(deal_number: int, dealer: int) -> tuple[Hands, Card | None]:
        deck = list(range(52))
        rng.shuffle(deck)
        return deal_hands(deck, dealer), deck[51]
    return deals


View = Callable[[MatchState, int], MatchState]
# on_move(state after the move, seat, move): e.g. a blind seat's proof of the card it played
MoveHook = Callable[[MatchState, int, Move], None]


def play_match(rules: RuleSet, first_dealer: int, deals: DealSource,
               players: Sequence[Player], max_hands: int = 500,
               view: View | None = None, on_move: MoveHook | None = None,
               ) -> tuple[MatchState, list[list[bool]]]:
    """Play a match from the first deal to the win.

    ``deals(deal_number, dealer)`` returns the four hands (masks by seat) and the
    dealer's 13th card (``None`` where nothing is revealed); ``players[seat]``
    chooses that seat's moves. Every move is applied with the engine's checks, and
    a timer move must be one of ``state.timer_actions()``; otherwise :class:`BadMove`.

    Returns the finished state (``state.history`` holds every hand, cancelled ones
    included; ``state.winner`` the winning team) and, for each hand of the history,
    one flag per move in the order of that hand's moves (its calls, then the trump
    choice where there is one, then its 52 plays): ``True`` for a timer move.
    Raises :class:`MatchTooLong` when ``max_hands`` hands pass without a winner.

    ``view(state, seat)``, when given, is what ``players[seat]`` sees instead of the
    whole state (blind dealing: its own hand only); ``on_move`` is called after
    every move.

    >>> from tarneeb.replay.rules.ruleset import preset
    >>> bots = [BotPlayer(random.Random(s), timer_rate=0.1) for s in range(4)]
    >>> state, flags = play_match(preset("classic"), 1, shuffled_deals(random.Random(4)), bots)
    >>> state.is_over, [len(f) for f in flags][:1] == [len(state.history[0].calls) + 53]
    (True, True)
    """
    if len(players) != 4:
        raise ValueError(f"a match needs 4 players, not {len(players)}")
    state = MatchState(rules, first_dealer)
    timer_flags: list[list[bool]] = []
    while not state.is_over:
        if state.deal_number >= max_hands:
            raise MatchTooLong(f"no winner after {max_hands} hands (totals {state.totals}); "
                               "raise max_hands or check the players", state, timer_flags)
        hands, thirteenth = deals(state.deal_number, state.dealer)
        state.deal(hands, thirteenth)
        flags: list[bool] = []
        while state.phase not in (Phase.DEAL, Phase.OVER):
            seat = state.to_move
            move = players[seat].choose(state if view is None else view(state, seat))
            if move.timer and move.action not in state.timer_actions():
                raise BadMove(
                    f"hand {state.deal_number + 1}: seat {seat}'s timer move "
                    f"{describe_action(move.action)} is not one the rules give "
                    f"({', '.join(map(describe_action, state.timer_actions()))})")
            problem = state.check(move.action)
            if problem is not None:
                raise BadMove(f"hand {state.deal_number + 1}: {problem}")
            state.apply(move.action, checked=False)
            flags.append(move.timer)
            if on_move is not None:
                on_move(state, seat, move)
        timer_flags.append(flags)
    return state, timer_flags


__all__ = [
    "BadMove", "BotPlayer", "DealSource", "MatchTooLong", "Move", "MoveHook", "Override",
    "Player", "RandomPlayer", "View", "choose_card", "estimate_tricks", "play_match",
    "shuffled_deals",
]
