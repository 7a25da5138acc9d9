"""Steered play for the corpus: card play where one side takes every trick, and the
:class:`Director` that chooses the bids (and when to ask for that card play) so that a
match walks through a rare rule path, stage after stage.

The bots of :mod:`tarneeb.replay.rules.players` take a director as their ``override``;
:mod:`tarneeb.testing.corpus.specs` steers the matches of ``fixtures/matches`` with one.

>>> from tarneeb.replay.rules.ruleset import preset
>>> s = stage({"made-13-wins": 1}, side_play=True)
>>> Director(preset("eram41"), [s]).done
False
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from tarneeb.replay.rules.actions import PASS, bid_action, trump_action
from tarneeb.replay.rules.cards import SUIT_MASKS, Card
from tarneeb.replay.rules.engine import MatchState, Phase
from tarneeb.replay.rules.paths import end_paths, exercised_paths, value_class
from tarneeb.replay.rules.players import Move, choose_card
from tarneeb.replay.rules.ruleset import RuleSet
from tarneeb.replay.rules.scoring import (
    Hand,
    match_winner,
    score_hand,
    trick_winner,
)


class SteeringFailed(RuntimeError):
    """A steered match did not go through the paths it was steered to."""


# ---------------------------------------------------------------- card play for steering

Policy = Callable[[MatchState], Card]


def _winning(trick: list[Card], trump: int | None) -> tuple[int, Card]:
    """Index and card of the card winning ``trick`` so far (by
    :func:`~tarneeb.replay.rules.scoring.trick_winner`, led from index 0)."""
    i = trick_winner(trick, 0, trump)
    return i, trick[i]


def _beats(card: Card, best: Card, trump: int | None) -> bool:
    return trick_winner([best, card], 0, trump) == 1


def _low(cards: Iterable[Card], trump: int | None) -> Card:
    """The lowest-ranked card, a non-trump before a trump."""
    return min(cards, key=lambda c: (c // 13 == trump, c % 13, c))


def taking_card(state: MatchState, side: frozenset[int]) -> Card:
    """A card for a seat of ``side`` that means to take the trick: lead as the bots do;
    follow with the highest card that wins it unless a seat of ``side`` already does.

    >>> import random
    >>> from tarneeb.replay.rules.house import rule_set
    >>> from tarneeb.replay.rules.players import shuffled_deals
    >>> m = MatchState(rule_set("qahwa41"), first_dealer=0)
    >>> m.deal(*shuffled_deals(random.Random(1))(0, 0))
    >>> for _ in range(4): m.apply(bid_action(3))
    >>> taking_card(m, frozenset({1})) in m.legal_actions()
    True
    """
    trick = state.trick
    if not trick:
        return choose_card(state)
    legal = state.legal_actions()
    i, best = _winning(trick, state.trump)
    if (state.leader + i) & 3 in side:
        return _low(legal, state.trump)
    winners = [c for c in legal if _beats(c, best, state.trump)]
    if winners:
        return max(winners, key=lambda c: (c % 13, c))
    return _low(legal, state.trump)


def giving_card(state: MatchState, side: frozenset[int]) -> Card:
    """A card for a seat outside ``side`` that means to let ``side`` take the trick:
    never trump in, stay under the winning card, and lead a suit ``side`` can win.
    """
    trick = state.trick
    legal = state.legal_actions()
    trump = state.trump
    if trick:
        _, best = _winning(trick, trump)
        under = [c for c in legal if not _beats(c, best, trump)]
        return max(under, key=lambda c: (c // 13 != trump, c % 13)) if under \
            else _low(legal, trump)
    takers = [state.hands[s] for s in side]

    def good_lead(c: Card) -> bool:
        suit = SUIT_MASKS[c // 13]
        for h in takers:
            if h & suit & ~((1 << (c + 1)) - 1):
                return True
            if not h & suit and trump is not None and h & SUIT_MASKS[trump]:
                return True
        return False

    good = [c for c in legal if good_lead(c)]
    return _low(good or legal, trump)


def side_policy(side: frozenset[int]) -> Policy:
    """Card play where the seats of ``side`` take tricks and the others give them."""
    def play(state: MatchState) -> Card:
        if state.current_player in side:
            return taking_card(state, side)
        return giving_card(state, side)
    return play


def _simulate(state: MatchState, policy: Policy, calls: Callable[[MatchState], int],
              trump: int | None = None) -> list[int]:
    """The tricks each seat takes from here when the bidding goes by ``calls`` and the
    play by ``policy`` (card play does not depend on the bids)."""
    sim = state.clone()
    while sim.phase == Phase.BID:
        sim.apply(calls(sim))
    if sim.phase == Phase.TRUMP:
        sim.apply(trump_action(trump if trump is not None else 0))
    while sim.phase == Phase.PLAY:
        sim.apply(policy(sim))
    return list(sim.history[-1].tricks)


# ---------------------------------------------------------------- the director

@dataclass(frozen=True)
class Stage:
    """One step of a steered match: the paths to go through (``want``: path → how many
    times, as :func:`~tarneeb.replay.rules.paths.exercised_paths` counts) and, meanwhile,
    the totals to keep to (``region``: seat → lowest, highest). ``side_play`` lets the
    director ask one side to give every trick to the other when that helps.

    >>> s = stage({"cancelled-in-a-row": 2}, {0: (30, 40)})
    >>> s.want, s.region
    ((('cancelled-in-a-row', 2),), ((0, 30, 40),))
    """

    want: tuple[tuple[str, int], ...]
    region: tuple[tuple[int, int, int], ...] = ()
    side_play: bool = False

    def remaining(self, hit: dict[str, int]) -> dict[str, int]:
        return {p: n for p, n in self.want if hit.get(p, 0) < n}

    def distance(self, totals: Sequence[int]) -> int:
        d = 0
        for seat, lo, hi in self.region:
            t = totals[seat]
            d += lo - t if t < lo else t - hi if t > hi else 0
        return d


def stage(want: dict[str, int] | Iterable[str], region: dict[int, tuple[int, int]] | None = None,
          side_play: bool = False) -> Stage:
    """A :class:`Stage` from a dict (or list) of paths and a dict of regions."""
    pairs = tuple(want.items()) if isinstance(want, dict) else tuple((p, 1) for p in want)
    reg = tuple((s, lo, hi) for s, (lo, hi) in sorted((region or {}).items()))
    return Stage(pairs, reg, side_play)


@dataclass
class _Plan:
    deal_number: int
    bids: list[int] | None = None  # personal bids by seat
    declarer: int | None = None  # classic
    contract: int | None = None
    trump: int | None = None
    side: frozenset[int] | None = None  # None: the bots' own card play
    tricks: list[int] | None = None  # what the plan expects


def _dummy_hand(tricks: list[int], declarer: int | None = None,
                contract: int | None = None, bids: Sequence[int] = ()) -> Hand:
    h = Hand(0, 0, (0, 0, 0, 0), None)
    h.tricks = list(tricks)
    h.declarer, h.contract = declarer, contract
    h.calls = [(s, bid_action(b)) for s, b in enumerate(bids)]
    return h


class Director:
    """Steers a match through :class:`Stage` after stage, one hand at a time.

    At the start of each hand it looks ahead: it plays the hand out on a copy of
    the state (card play does not depend on the bids), for the bots' own play and,
    with ``side_play``, for play where one side gives every trick to the other. Then
    it picks the bids (classic: the declarer, contract and trump, or four passes)
    whose outcome goes through the most wanted paths without ending the match too
    early, or else comes closest to the stage's region; a hand cancelled by low bids
    is one way to wait for a better deal. Once every stage is done the bots play on
    by themselves to the end of the match.

    Give the same director to all four :class:`~tarneeb.replay.rules.players.BotPlayer` as
    their ``override``.
    """

    def __init__(self, rules: RuleSet, stages: Sequence[Stage], budget: int = 80) -> None:
        self.rules = rules
        self.stages = list(stages)
        self.budget = budget
        self.index = 0
        self.hands_in_stage = 0
        self.plan: _Plan | None = None

    @property
    def done(self) -> bool:
        return self.index >= len(self.stages)

    def settle(self, history: Sequence[Hand]) -> None:
        """Count the stages that the finished match's ``history`` completed."""
        self._advance(history)

    def _advance(self, history: Sequence[Hand]) -> dict[str, int]:
        """Move past the stages ``history`` has completed; the paths it went through."""
        hit = dict(exercised_paths(self.rules, history, []))
        while not self.done and not self.stages[self.index].remaining(hit):
            self.index += 1
            self.hands_in_stage = 0
        return hit

    def __call__(self, state: MatchState) -> Move | None:
        if self.done:
            return None
        if state.phase == Phase.BID and (self.plan is None
                                         or self.plan.deal_number != state.deal_number):
            self._new_hand(state)
        plan = self.plan
        if plan is None:
            return None
        if state.phase == Phase.BID:
            if plan.bids is not None:
                return Move(bid_action(plan.bids[state.to_move]))
            seat = state.to_move
            if seat == plan.declarer and state.hand_under_way.bid_of(seat) is None:
                return Move(bid_action(plan.contract or 0))
            return Move(PASS)
        if state.phase == Phase.TRUMP:
            return Move(trump_action(plan.trump or 0))
        if state.phase == Phase.PLAY:
            if plan.side is None:
                return Move(choose_card(state))
            return Move(side_policy(plan.side)(state))
        return None

    # -- planning
    def _new_hand(self, state: MatchState) -> None:
        last = self.plan
        if last is not None and last.tricks is not None and state.history:
            got = state.history[-1].tricks
            if not state.history[-1].cancelled and got != last.tricks:
                raise SteeringFailed(f"hand {last.deal_number} took {got}, the look-ahead "
                                     f"said {last.tricks}")
        hit = self._advance(state.history)
        if self.done:
            self.plan = None
            return
        self.hands_in_stage += 1
        if self.hands_in_stage > self.budget:
            raise SteeringFailed(f"stage {self.index} not done after {self.budget} hands "
                                 f"(still wanted: {self.stages[self.index].remaining(hit)})")
        st = self.stages[self.index]
        final = self.index == len(self.stages) - 1
        if self.rules.bidding == "personal":
            self.plan = self._plan_personal(state, st, st.remaining(hit), final)
        else:
            self.plan = self._plan_auction(state, st, st.remaining(hit), final)

    def _sides(self, st: Stage, personal: bool, declarer: int = 0) -> list[frozenset[int] | None]:
        if not st.side_play:
            return [None]
        if personal:
            return [None, *(frozenset({s}) for s in range(4))]
        return [None, frozenset({declarer, declarer ^ 2}), frozenset({declarer ^ 1, declarer ^ 3})]

    def _total_paths(self, before: list[int], after: list[int], winner: int | None,
                     cancelled: bool, prev_cancelled: bool) -> set[str]:
        rules = self.rules
        out: set[str] = set()
        if cancelled:
            out.add("cancelled")
            if prev_cancelled:
                out.add("cancelled-in-a-row")
            if rules.bidding == "auction":
                out.add("auction-all-pass")
        else:
            if min(after) < 0:
                out.add("negative-total")
            if winner is not None:
                out.add("match-won")
            if rules.scoring == "personal":
                out.update(end_paths(rules, after, winner))
        if winner is None:  # the next hand is dealt with these totals
            for _, low in rules.min_bid_steps:
                if any(rules.lowest_bid(t) == low for t in after):
                    out.add(f"min-bid:{low}")
            for _, low in rules.min_total_steps:
                if rules.lowest_total(max(after)) == low:
                    out.add(f"min-total:{low}")
        return out

    def _choose(self, options: Iterable[tuple[tuple[int, ...], object, list[int], int | None,
                                              set[str]]],
                st: Stage, remaining: dict[str, int], final: bool) -> object:
        best_key: tuple[int, ...] | None = None
        best: object = None
        fallback_key: tuple[int, ...] | None = None
        fallback: object = None
        for order, plan, after, winner, paths in options:
            gain = sum(1 for p in paths if p in remaining)
            key = (-gain, st.distance(after), *order)
            if winner is not None and not (final and set(remaining) <= paths):
                if fallback_key is None or key < fallback_key:
                    fallback_key, fallback = key, plan
                continue
            if best_key is None or key < best_key:
                best_key, best = key, plan
        return best if best_key is not None else fallback

    def _plan_personal(self, state: MatchState, st: Stage, remaining: dict[str, int],
                       final: bool) -> _Plan:
        rules = self.rules
        before = list(state.totals)
        lows = [state.lowest_bid(s) for s in range(4)]
        low_total = state.lowest_total()
        prev_cancelled = bool(state.history) and state.history[-1].cancelled
        options: list[tuple[tuple[int, ...], object, list[int], int | None, set[str]]] = []
        if sum(lows) < low_total:
            plan = _Plan(state.deal_number, bids=lows)
            options.append(((1, 0, *lows), plan, before, None,
                            self._total_paths(before, before, None, True, prev_cancelled)))
        wanted_classes = {p for p in remaining if p.startswith(("made:", "failed:"))}
        for side_no, side in enumerate(self._sides(st, True)):
            policy = choose_card if side is None else side_policy(side)
            tricks = _simulate(state, policy, lambda s: bid_action(13))
            per_seat: list[list[tuple[int, int, str]]] = []
            for seat in range(4):
                took = tricks[seat]
                table = {}
                for b in range(lows[seat], 14):
                    v = rules.bid_value(b, before[seat])
                    made = took >= b
                    table[b] = (v if made else -v,
                                ("made:" if made else "failed:")
                                + value_class(rules, b, before[seat]))
                keep = {b for b in table if b <= took}
                failed = [b for b in table if b > took]
                keep |= set(failed[:2]) | ({13} if failed else set())
                keep.add(lows[seat])
                for b, (_, cls) in table.items():
                    if cls in wanted_classes or f"bid-{b}-{cls.split(':')[0]}" in remaining:
                        keep.add(b)
                by_region = sorted(table, key=lambda b: (
                    st.distance([before[s] + (table[b][0] if s == seat else 0)
                                 for s in range(4)]), b))
                keep |= set(by_region[:2])
                per_seat.append([(b, *table[b]) for b in sorted(keep)])
            for combo in itertools.product(*per_seat):
                bids = [c[0] for c in combo]
                if sum(bids) < low_total:
                    continue
                after = [before[s] + combo[s][1] for s in range(4)]
                winner = match_winner(rules, _dummy_hand(tricks, bids=bids), after)
                paths = {c[2] for c in combo}
                for s, b in enumerate(bids):
                    if b >= 11:
                        paths.add(f"bid-{b}-{'made' if tricks[s] >= b else 'failed'}")
                    if tricks[s] == 0:
                        paths.add("no-trick")
                    if b == 13 and tricks[s] == 13 and winner is not None and rules.made_13_wins:
                        paths.add("made-13-wins")
                paths |= self._total_paths(before, after, winner, False, prev_cancelled)
                plan = _Plan(state.deal_number, bids=bids, side=side, tricks=tricks)
                options.append(((0, side_no, *bids), plan, after, winner, paths))
        chosen = self._choose(options, st, remaining, final)
        assert isinstance(chosen, _Plan)
        return chosen

    def _plan_auction(self, state: MatchState, st: Stage, remaining: dict[str, int],
                      final: bool) -> _Plan:
        rules = self.rules
        before = list(state.totals)
        prev_cancelled = bool(state.history) and state.history[-1].cancelled
        options: list[tuple[tuple[int, ...], object, list[int], int | None, set[str]]] = [
            ((1, 0, 0, 0, 0), _Plan(state.deal_number), before, None,
             self._total_paths(before, before, None, True, prev_cancelled))]
        for declarer in range(4):
            def calls(sim: MatchState, d: int = declarer) -> int:
                if sim.current_player == d and sim.hand_under_way.bid_of(d) is None:
                    return bid_action(rules.auction_min)
                return PASS
            for side_no, side in enumerate(self._sides(st, False, declarer)):
                policy = choose_card if side is None else side_policy(side)
                for suit in range(4):
                    tricks = _simulate(state, policy, calls, suit)
                    t = tricks[declarer] + tricks[declarer ^ 2]
                    for contract in range(rules.auction_min, 14):
                        hand = _dummy_hand(tricks, declarer, contract)
                        scores = score_hand(rules, hand, before)
                        hand.scores = scores
                        after = [before[s] + scores[s] for s in range(4)]
                        winner = match_winner(rules, hand, after)
                        made = "made" if t >= contract else "failed"
                        paths = {f"bid-{contract}-{made}"} if contract >= 11 else set()
                        if contract == 13:
                            paths |= {"kaboot-made" if t == 13 else "kaboot-failed",
                                      "auction-ended-on-13" if rules.auction_ends_on_13
                                      else "auction-passes-after-13"}
                            if t == 0:
                                paths.add("kaboot-failed-no-trick")
                            if t == 13 and winner is not None and rules.made_13_wins:
                                paths.add("made-13-wins")
                        else:
                            paths.add(f"classic-{made}")
                            if t in (0, 13):
                                paths.add("all-13-without-13")
                            if t == 0:
                                paths.add("declarers-no-trick")
                        paths |= self._total_paths(before, after, winner, False, prev_cancelled)
                        plan = _Plan(state.deal_number, declarer=declarer, contract=contract,
                                     trump=suit, side=side, tricks=tricks)
                        options.append(((0, side_no, declarer, suit, contract), plan, after,
                                        winner, paths))
        chosen = self._choose(options, st, remaining, final)
        assert isinstance(chosen, _Plan)
        return chosen
