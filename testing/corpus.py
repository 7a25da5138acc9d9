"""The recorded-match corpus in ``fixtures/``: clean logs that between them cover
every rule path, and altered logs with the finding each must produce.

Regenerate everything (deterministic, well under a minute)::

    python -m tarneeb.testing.corpus fixtures      # what `make fixtures` runs

Every clean log is made the way ``tarneeb play`` makes one:
:func:`~tarneeb.replay.simulate.play_logged_match` with a fixed seed. The plain
ones use the default players, so ``tarneeb play --rules eram41 --seed
corpus-eram41-01`` writes the very same bytes as ``fixtures/matches/eram41-01.tlog``.
The others pass steered computer players (``players=``): bots that leave moves to
the turn timer, or a :class:`Director` that chooses the bids (and, for a few
hands, asks one side to let the other take every trick) so that the match goes
through a rare path. Nothing is ever edited in a log.

The altered logs are clean corpus logs changed in exactly one way by
:mod:`tarneeb.testing.alterations`; ``fixtures/altered/manifest.json`` names the
finding each must produce.

>>> spec = MATCHES[0]
>>> spec.file, spec.seed_text
('eram41-01.tlog', 'corpus-eram41-01')
>>> from tarneeb.replay.replayer import verify_bytes
>>> verify_bytes(make_match(spec)).clean
True
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import random
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarneeb.replay.cards import SUIT_MASKS, Card
from tarneeb.replay.engine import (
    PASS,
    Hand,
    MatchState,
    Phase,
    bid_action,
    break_tie,
    match_winner,
    qualifying_players,
    score_hand,
    team_of,
    trump_action,
)
from tarneeb.replay.findings import KINDS
from tarneeb.replay.houserules import nearest_preset, rule_set
from tarneeb.replay.logformat import parse_log
from tarneeb.replay.paths import all_paths, exercised_paths, value_class
from tarneeb.replay.players import BotPlayer, Move, choose_card
from tarneeb.replay.replayer import verify_bytes
from tarneeb.replay.rules import PRESETS, RuleSet
from tarneeb.replay.simulate import MatchSecrets, play_logged_match, seed_bytes
from tarneeb.testing.alterations import REGISTRY, Alteration, NotApplicable

RULE_SETS = tuple(PRESETS)
REGENERATE = "python -m tarneeb.testing.corpus fixtures"


class SteeringFailed(RuntimeError):
    """A steered match did not go through the paths it was steered to."""


# ---------------------------------------------------------------- card play for steering

Policy = Callable[[MatchState], Card]


def _winning(trick: list[Card], trump: int | None) -> tuple[int, Card]:
    """Index and card of the card winning ``trick`` so far."""
    best_i, best = 0, trick[0]
    for i, c in enumerate(trick[1:], 1):
        if c // 13 == best // 13:
            if c > best:
                best_i, best = i, c
        elif c // 13 == trump:
            best_i, best = i, c
    return best_i, best


def _beats(card: Card, best: Card, trump: int | None) -> bool:
    if card // 13 == best // 13:
        return card > best
    return card // 13 == trump


def _low(cards: Iterable[Card], trump: int | None) -> Card:
    """The lowest-ranked card, a non-trump before a trump."""
    return min(cards, key=lambda c: (c // 13 == trump, c % 13, c))


def taking_card(state: MatchState, side: frozenset[int]) -> Card:
    """A card for a seat of ``side`` that means to take the trick: lead as the bots do;
    follow with the highest card that wins it unless a seat of ``side`` already does.

    >>> import random
    >>> from tarneeb.replay.players import shuffled_deals
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
    times, as :func:`~tarneeb.replay.paths.exercised_paths` counts) and, meanwhile,
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

    Give the same director to all four :class:`~tarneeb.replay.players.BotPlayer` as
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
        hit = dict(exercised_paths(self.rules, history, []))
        while not self.done and not self.stages[self.index].remaining(hit):
            self.index += 1

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
                return Move(bid_action(plan.bids[state.current_player]))
            seat = state.current_player
            if seat == plan.declarer and state.hand.bid_of(seat) is None:
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
        hit = dict(exercised_paths(self.rules, state.history, []))
        while not self.done and not self.stages[self.index].remaining(hit):
            self.index += 1
            self.hands_in_stage = 0
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
                on_target = [p for p in range(4) if after[p] >= rules.target]
                if on_target:
                    qualifying = qualifying_players(rules, after)
                    blocked = [p for p in on_target if p not in qualifying]
                    if blocked:
                        out.add("partner-blocks-win")
                        if any(after[p ^ 2] == 0 for p in blocked):
                            out.add("partner-blocks-win:zero")
                    if len({team_of(p) for p in qualifying}) == 2:
                        out.add(f"both-qualify:{rules.tie_label}")
                        out.add("both-qualify-equal" if winner is None
                                else "both-qualify-decided")
                        if rules.tie[-1] != "play_on":
                            out.add(f"tie-decided:{break_tie(rules, after, qualifying)[1]}")
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
                if sim.current_player == d and sim.hand.bid_of(d) is None:
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


# ---------------------------------------------------------------- the clean corpus

@dataclass(frozen=True)
class MatchSpec:
    """One clean log of the corpus: ``fixtures/matches/<rules>-<label>.tlog``.

    ``stages`` steer it with a :class:`Director`; ``timer_rate`` leaves moves to the
    turn timer; ``requires`` are paths the log must show. ``variant`` is the first
    seed variant (0, 1, 2 …) that does all that, found by ``--search`` and kept here
    so regeneration is quick. ``seeded=False`` writes a platform's log with recorded
    deals instead of committed seeds.
    """

    rules: str
    label: str
    about: str
    stages: tuple[Stage, ...] = ()
    timer_rate: float = 0.0
    requires: frozenset[str] = frozenset()
    variant: int = 0
    seeded: bool = True
    dealing: str = "seeds"  # or "blind" (PROTOCOL.md §13)
    base: str | None = None  # house rules: ``rules`` names them, ``base`` the preset ...
    target: int | None = None  # ... played to this target (a short blind match)

    @property
    def file(self) -> str:
        return f"{self.rules}-{self.label}.tlog"

    @property
    def steered(self) -> bool:
        return bool(self.stages) or self.timer_rate > 0

    @property
    def seed_text(self) -> str:
        """The ``--seed`` text; a variant other than 0 is appended as ``/v<n>``."""
        base = f"corpus-{self.rules}-{self.label}"
        return base if self.variant == 0 else f"{base}/v{self.variant}"

    def with_variant(self, variant: int) -> MatchSpec:
        return dataclasses.replace(self, variant=variant)


def _players(spec: MatchSpec, seed: bytes) -> tuple[list[BotPlayer], Director | None]:
    rng = random.Random(MatchSecrets(seed).rng_seed)
    director = Director(rule_set(spec.rules), spec.stages) if spec.stages else None
    return [BotPlayer(random.Random(rng.getrandbits(64)), timer_rate=spec.timer_rate,
                      override=director) for _ in range(4)], director


def make_match(spec: MatchSpec) -> bytes:
    """The signed log of ``spec``: the same call as ``tarneeb play --seed``, with steered
    players where the spec asks for them. Raises :class:`SteeringFailed` when the match
    misses what the spec requires."""
    seed = seed_bytes(spec.seed_text)
    players, director = _players(spec, seed) if spec.steered else (None, None)
    if spec.dealing == "blind":
        from tarneeb.replay.blindplay import play_blind_match

        rules = rule_set(spec.rules) if spec.base is None else dataclasses.replace(
            rule_set(spec.base), name=spec.rules, target=spec.target)
        data = play_blind_match(rules, seed=seed, players=players)
    else:
        data = play_logged_match(rule_set(spec.rules), seed=seed, players=players,
                                 seeded=spec.seeded)
    if director is not None or spec.requires:
        verdict = verify_bytes(data, count_paths=True)
        if director is not None:
            director.settle(verdict.history)
            if not director.done:
                raise SteeringFailed(f"{spec.file}: the match ended in stage {director.index}")
        missing = spec.requires - set(verdict.paths)
        if missing:
            raise SteeringFailed(f"{spec.file}: no {', '.join(sorted(missing))}")
    return data


def search_variant(spec: MatchSpec, tries: int = 50) -> MatchSpec:
    """The spec with the first variant from 0 whose match does what it should."""
    problem = ""
    for v in range(tries):
        candidate = spec.with_variant(v)
        try:
            make_match(candidate)
        except SteeringFailed as e:
            problem = str(e)
            continue
        return candidate
    raise SteeringFailed(f"{spec.file}: no variant in {tries} tries ({problem})")


def _personal(name: str) -> list[MatchSpec]:
    r = PRESETS[name]
    t = r.target
    close = (t - 3, t - 1)  # one made low bid from the target
    low = (1, 12)  # a partner above zero, far from the target
    out = [
        MatchSpec(name, "01", "default players, as `tarneeb play --seed corpus-"
                  f"{name}-01` plays it"),
        MatchSpec(name, "timer", "every player leaves one move in five to the turn timer",
                  timer_rate=0.2, requires=frozenset({"timer-bid", "timer-play"})),
        MatchSpec(name, "cancelled-in-a-row", "three hands in a row cancelled by low bids, "
                  "then a negative total",
                  (stage({"cancelled": 1, "cancelled-in-a-row": 2}),
                   stage({"negative-total": 1}, {s: (-30, 10) for s in range(4)}))),
        MatchSpec(name, "partner-blocks-win", "seat 0 on the target while its partner is at "
                  "exactly zero, then below zero: no win",
                  (stage({"partner-blocks-win:zero": 1}, {0: close, 2: (2, 4), 1: low, 3: low}),
                   stage({"partner-blocks-win": 2}, {0: (t, t + 20), 2: (-20, -1)}))),
        MatchSpec(name, "both-qualify-equal", f"both teams qualify in one hand with the tie "
                  f"rule ({r.tie_label}) equal, so another hand is dealt; then both qualify again "
                  "and the rule decides",
                  (stage({"both-qualify-equal": 1}, {0: close, 1: close, 2: low, 3: low}),
                   stage({"both-qualify-decided": 1}, {2: low, 3: low}))),
    ]
    out.append(MatchSpec(
        name, "big-bids", "bids of 11, 12 and 13 made and failed, and a bidder who takes no "
        "trick (one player takes the tricks, the others let it)",
        (stage(BIG_BIDS | {"no-trick": 1}, {s: (-300, 0) for s in range(4)},
               side_play=True),)))
    classes = sorted(p for p in all_paths(r) if p.startswith(("made:", "failed:"))
                     and "@" not in p)
    if len(classes) > 2:
        out.append(MatchSpec(
            name, "bid-values", "a made and a failed bid of every value class (one side lets "
            "the other take the tricks where a high bid needs them)",
            (stage(classes, {s: (-300, 0) for s in range(4)}, side_play=True),)))
    if r.min_bid_steps:
        steps = list(zip(r.min_bid_steps, r.min_total_steps, strict=True))
        stages = []
        for i, ((at, bid), (_, total)) in enumerate(steps):
            upto = steps[i + 1][0][0] - 1 if i + 1 < len(steps) else at + 20
            want = {f"min-bid:{bid}": 1, f"min-total:{total}": 1}
            if r.values_high_from is not None and i == 0:
                want |= {p: 1 for p in all_paths(r) if "@" in p}
            stages.append(stage(want, {0: (at, upto), 2: (-30, 0), 1: (-30, 25),
                                       3: (-30, 25)}))
        out.append(MatchSpec(
            name, "min-steps", "seat 0 climbs through every step of the lowest bid and the "
            "lowest total (its partner below zero, so no win), bidding at the values that "
            "change at 30", tuple(stages)))
    return out


BIG_BIDS = {f"bid-{b}-{m}": 1 for b in (11, 12, 13) for m in ("made", "failed")}


def _classic() -> list[MatchSpec]:
    name = "classic"
    keep = {0: (-40, 30), 1: (-40, 30)}
    return [
        MatchSpec(name, "big-contracts", "contracts of 11 and 12 made and failed, declarers "
                  "who take no trick, below 13 and on a 13 (the defenders take all 13)",
                  (stage({p: 1 for p in BIG_BIDS if "13" not in p}
                         | {"declarers-no-trick": 1, "kaboot-failed-no-trick": 1}, keep,
                         side_play=True),)),
        MatchSpec(name, "01", "default players, as `tarneeb play --seed corpus-classic-01` "
                  "plays it"),
        MatchSpec(name, "timer", "every player leaves one move in five to the turn timer, "
                  "naming the trump too", timer_rate=0.2,
                  requires=frozenset({"timer-bid", "timer-play", "timer-trump"})),
        MatchSpec(name, "cancelled-in-a-row", "all four pass in three hands in a row",
                  (stage({"cancelled": 1, "cancelled-in-a-row": 2}),)),
        MatchSpec(name, "kaboot-made", "a bid of 13 ends the auction at once and is made",
                  (stage({"kaboot-made": 1}, keep, side_play=True),)),
        MatchSpec(name, "kaboot-failed", "a bid of 13 that fails, and a failed contract "
                  "below 13 (negative totals)",
                  (stage({"kaboot-failed": 1, "classic-failed": 1, "negative-total": 1},
                         keep),)),
        MatchSpec(name, "all-13-without-13", "a team takes all 13 tricks on a bid below 13",
                  (stage({"all-13-without-13": 1, "classic-made": 1}, keep,
                         side_play=True),)),
    ]


def _variants() -> list[MatchSpec]:
    """Two of the shipped house-rule variants, through the paths their fields add."""
    keep = {0: (-40, 20), 1: (-40, 20)}
    return [
        MatchSpec("house400", "01", "default players, as `tarneeb play --rules house400 "
                  "--seed corpus-house400-01` plays it"),
        MatchSpec("house400", "timer", "every player leaves one move in five to the turn "
                  "timer, which raises the last bid to the table minimum", timer_rate=0.2,
                  requires=frozenset({"timer-bid", "timer-play", "timer-bid-reaches-minimum"})),
        MatchSpec("house400", "made-13", "one player bids 13 and takes every trick (the others "
                  "let it): a made 13 wins the match at once",
                  (stage({"made-13-wins": 1}, {s: (-30, 20) for s in range(4)},
                         side_play=True),)),
        *(MatchSpec("house400", f"tie-{step.replace('_', '-').replace('+', '')}",
                    f"both teams qualify after one hand and the tie chain's step {step} "
                    "decides", (stage({f"tie-decided:{step}": 1},
                                      {0: (38, 40), 1: (38, 40), 2: (1, 12), 3: (1, 12)}),))
          for step in rule_set("house400").tie),
        MatchSpec("house-classic31", "01", "default players, as `tarneeb play --rules "
                  "house-classic31 --seed corpus-house-classic31-01` plays it"),
        MatchSpec("house-classic31", "after-13", "the others pass in turn after a 13; the "
                  "defenders score twice their tricks on a failed 13, 13 for taking all 13 "
                  "tricks, 26 against a 13",
                  (stage({"auction-passes-after-13": 1, "kaboot-failed": 1,
                          "declarers-no-trick": 1, "kaboot-failed-no-trick": 1}, keep,
                         side_play=True),)),
    ]


MATCHES: list[MatchSpec] = [spec for name in RULE_SETS if name != "classic"
                            for spec in _personal(name)] + _classic() + [
    MatchSpec("eram41", "recorded-deals", "a platform without the seed protocol: every deal "
              "written out in the log, nothing committed", seeded=False),
    MatchSpec("qahwa5", "blind", "dealt blind (docs/PROTOCOL.md §13): each seat its own "
              "keys, every card played with its proof, the keys revealed after the match; "
              "house rules qahwa5, qahwa41 to 5 points: one hand", dealing="blind",
              base="qahwa41", target=5),
] + _variants()

# Variants found by `python -m tarneeb.testing.corpus fixtures --search`.
VARIANTS: dict[str, int] = {
    "sahrat400-partner-blocks-win.tlog": 1,
    "sahrat400-both-qualify-equal.tlog": 3,
    "house400-tie-team-total.tlog": 1,
    "house400-tie-team-02.tlog": 3,
    "qahwa5-blind.tlog": 4,  # one hand: each blind log is about 27 KB
}

MATCHES = [m.with_variant(VARIANTS.get(m.file, 0)) for m in MATCHES]


# ---------------------------------------------------------------- the altered corpus

@dataclass(frozen=True)
class AlteredSpec:
    """One altered log: ``tamper`` applied to the corpus log ``base`` (a ``.tlog`` name
    without the suffix), with the first ``choice`` from the one given whose alteration
    produces ``kind``; re-signed with the platform's key unless ``resign`` is false."""

    kind: str
    base: str
    tamper: str
    choice: int = 0
    hand: int | None = None
    resign: bool = True

    @property
    def file(self) -> str:
        return f"{self.kind}-{self.base.split('-')[0]}.tlog"


ALTERED: list[AlteredSpec] = [
    AlteredSpec("broken-signature", "eram41-01", "flip-signature", resign=False),
    AlteredSpec("unsigned", "qahwa41-01", "drop-signature", resign=False),
    AlteredSpec("key-mismatch", "sahrat41-01", "other-key", resign=False),
    AlteredSpec("server-seed", "sahrat400-01", "corrupt-server-seed"),
    AlteredSpec("seed-not-revealed", "classic-01", "hide-server-seed"),
    AlteredSpec("batch-proof", "eram41-timer", "bad-batch-proof"),
    AlteredSpec("client-seed", "qahwa41-timer", "corrupt-client-seed"),
    AlteredSpec("wrong-first-dealer", "sahrat41-timer", "first-dealer"),
    AlteredSpec("wrong-deal-number", "sahrat400-timer", "change-deal-number"),
    AlteredSpec("wrong-dealer", "classic-timer", "change-dealer"),
    AlteredSpec("wrong-deal", "eram41-01", "record-wrong-deal"),
    AlteredSpec("bad-deal", "eram41-recorded-deals", "move-dealt-card"),
    AlteredSpec("wrong-revealed-card", "sahrat41-01", "change-revealed"),
    AlteredSpec("wrong-revealed-card", "eram41-timer", "change-revealed-and-trump"),
    AlteredSpec("wrong-trump", "qahwa41-01", "change-trump"),
    AlteredSpec("wrong-trump", "eram41-both-qualify-equal", "change-trump"),
    AlteredSpec("bid-out-of-turn", "sahrat400-01", "swap-calls"),
    AlteredSpec("bid-out-of-range", "eram41-cancelled-in-a-row", "bid-out-of-range"),
    AlteredSpec("bid-out-of-range", "classic-01", "bid-out-of-range"),
    AlteredSpec("bid-below-minimum", "sahrat400-min-steps", "bid-below-minimum"),
    AlteredSpec("bid-not-higher", "classic-01", "bid-not-higher"),
    AlteredSpec("pass-not-allowed", "qahwa41-01", "pass-for-bid"),
    AlteredSpec("bidding-incomplete", "sahrat41-01", "drop-last-call"),
    AlteredSpec("bidding-incomplete", "classic-kaboot-made", "drop-last-call"),
    AlteredSpec("bidding-overrun", "classic-01", "extra-call"),
    AlteredSpec("bidding-overrun", "eram41-01", "extra-call"),
    AlteredSpec("played-when-cancelled", "eram41-01", "lower-bids"),
    AlteredSpec("played-when-cancelled", "classic-cancelled-in-a-row", "play-cancelled"),
    AlteredSpec("cancelled-wrongly", "qahwa41-cancelled-in-a-row", "raise-cancelled-bids"),
    AlteredSpec("cancelled-wrongly", "classic-01", "drop-plays"),
    AlteredSpec("card-not-held", "sahrat41-01", "replace-played-card"),
    AlteredSpec("card-already-played", "qahwa41-01", "replace-played-card", choice=1),
    AlteredSpec("played-out-of-turn", "eram41-01", "swap-plays"),
    AlteredSpec("played-out-of-turn", "classic-01", "move-dealt-card"),
    AlteredSpec("wrong-trick-winner", "sahrat400-01", "lead-out-of-turn"),
    AlteredSpec("wrong-trick-winner", "classic-01", "change-trump"),
    AlteredSpec("renege", "eram41-01", "renege"),
    AlteredSpec("renege", "classic-01", "renege"),
    AlteredSpec("hand-incomplete", "qahwa41-01", "truncate-plays"),
    AlteredSpec("wrong-timer-move", "eram41-timer", "mark-timer"),
    AlteredSpec("wrong-timer-move", "classic-timer", "mark-timer"),
    AlteredSpec("wrong-trick-count", "sahrat41-01", "change-tricks"),
    AlteredSpec("wrong-hand-score", "sahrat400-bid-values", "change-bid"),
    AlteredSpec("wrong-hand-score", "classic-kaboot-failed", "change-score"),
    AlteredSpec("wrong-total", "eram41-partner-blocks-win", "change-total"),
    AlteredSpec("played-after-win", "qahwa41-both-qualify-equal", "append-hand"),
    AlteredSpec("wrong-winner", "sahrat41-both-qualify-equal", "change-winner"),
    AlteredSpec("winner-too-early", "sahrat400-01", "drop-last-hand"),
    AlteredSpec("no-winner", "classic-01", "change-winner", choice=1),
    AlteredSpec("no-winner", "sahrat41-01", "abandon-won-match"),
    AlteredSpec("timeout-out-of-turn", "eram41-01", "blame-timeout"),
    AlteredSpec("timeout-no-turn", "classic-01", "timeout-no-turn"),
    AlteredSpec("cut-short", "eram41-01", "cut-short", resign=False),
    AlteredSpec("cut-short", "classic-all-13-without-13", "drop-end"),
    AlteredSpec("not-replayed", "qahwa41-01", "strip-seeds"),
    AlteredSpec("not-replayed", "eram41-recorded-deals", "nil-deal"),
    AlteredSpec("weak-key", "sahrat41-01", "weak-key", resign=False),
    AlteredSpec("not-canonical", "sahrat400-cancelled-in-a-row", "cancelled-claims"),
    AlteredSpec("not-canonical", "classic-cancelled-in-a-row", "cancelled-claims"),
    AlteredSpec("not-canonical", "eram41-01", "reorder-rules"),
    AlteredSpec("wrong-rules", "sahrat400-01", "misname-rules"),
    AlteredSpec("wrong-rules", "classic-01", "misname-rules"),
    AlteredSpec("wrong-decryption", "qahwa5-blind", "wrong-partial-decryption"),
    AlteredSpec("wrong-shuffle", "qahwa5-blind", "pass-duplicates-card"),
    AlteredSpec("card-not-dealt", "qahwa5-blind", "forged-play-proof"),
    AlteredSpec("wrong-key", "qahwa5-blind", "wrong-revealed-key"),
    AlteredSpec("blind-transcript", "qahwa5-blind", "drop-play-proof"),
]

# Finding kinds no single alteration of a tarneeb log can produce, and why.
NOT_PRODUCIBLE: dict[str, str] = {
    "receipt-mismatch": "it compares a log with a seat's pre-play receipt, a second file; "
                        "tests/test_protocol_v2.py plays it (a server that moves the match to "
                        "another season leaf, or re-makes the commitments)",
}


def make_altered(spec: AlteredSpec, clean: dict[str, bytes],
                 keys: dict[str, Ed25519PrivateKey]) -> tuple[bytes, Alteration]:
    """The altered log of ``spec`` and what changed; the first choice from ``spec.choice``
    whose alteration is expected to give ``spec.kind``."""
    base = clean[spec.base]
    key = keys[spec.base] if spec.resign else None
    for choice in range(spec.choice, spec.choice + 500):
        try:
            data, alt = REGISTRY[spec.tamper](base, choice=choice, hand=spec.hand, resign=key)
        except NotApplicable:
            continue
        if alt.expect == spec.kind:
            return data, alt
    raise NotApplicable(f"{spec.tamper} on {spec.base} never gives {spec.kind}")


def platform_key(spec: MatchSpec) -> Ed25519PrivateKey:
    """The platform's signing key of a corpus match (derived from its seed: not secret).

    >>> len(platform_key(MATCHES[0]).sign(b"x"))
    64
    """
    return MatchSecrets(seed_bytes(spec.seed_text)).key


# ---------------------------------------------------------------- writing fixtures/

@dataclass
class Written:
    """What :func:`write_corpus` wrote: file → bytes, and the manifest."""

    matches: dict[str, bytes] = field(default_factory=dict)
    altered: dict[str, bytes] = field(default_factory=dict)
    manifest: list[dict[str, object]] = field(default_factory=list)


def build(specs: Sequence[MatchSpec] = MATCHES,
          altered: Sequence[AlteredSpec] = ALTERED) -> Written:
    """Make every clean and altered log in memory."""
    out = Written()
    files = [a.file for a in altered]
    if len(set(files)) != len(files):
        raise ValueError("two altered logs have the same file name")
    keys: dict[str, Ed25519PrivateKey] = {}
    clean: dict[str, bytes] = {}
    for spec in specs:
        data = make_match(spec)
        out.matches[spec.file] = data
        name = spec.file.removesuffix(".tlog")
        clean[name] = data
        keys[name] = platform_key(spec)
    for a in altered:
        data, alt = make_altered(a, clean, keys)
        out.altered[a.file] = data
        entry: dict[str, object] = {
            "file": a.file, "kind": a.kind, "hand": alt.hand, "trick": alt.trick,
            "seat": alt.seat, "description": alt.description, "base": f"{a.base}.tlog",
            "alteration": alt.name, "resigned": a.resign}
        if alt.pin_key is not None:
            entry["public_key"] = alt.pin_key.hex()
        out.manifest.append(entry)
    return out


def write_corpus(root: Path, written: Written) -> None:
    """Replace ``root/matches``, ``root/altered`` and ``root/README.md``."""
    for sub, files in (("matches", written.matches), ("altered", written.altered)):
        d = root / sub
        d.mkdir(parents=True, exist_ok=True)
        for old in d.glob("*.tlog"):
            if old.name not in files:
                old.unlink()
        for name, data in files.items():
            (d / name).write_bytes(data)
    (root / "altered" / "manifest.json").write_text(
        json.dumps(written.manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    (root / "README.md").write_text(readme(written), encoding="utf-8")


def readme(written: Written) -> str:
    """The text of ``fixtures/README.md``."""
    lines = [
        "# Fixtures",
        "",
        "Everything here except `vectors/` is generated; regenerate it with",
        "",
        "```sh",
        f"{REGENERATE}      # or: make fixtures",
        "```",
        "",
        "Regeneration is deterministic: the same code writes the same bytes (signatures",
        "included: Ed25519 is deterministic). Do not edit a log by hand; change",
        "`testing/corpus.py` and regenerate.",
        "",
        "## `matches/`: clean recorded matches",
        "",
        "Each log is a whole signed match made the way `tarneeb play` makes one,",
        "`play_logged_match` with a fixed seed (the `--seed` text below). The plain ones",
        "(`-01`) use the default players: `tarneeb play --rules eram41 --seed",
        "corpus-eram41-01 -o x.tlog` writes the same bytes as `matches/eram41-01.tlog`.",
        "The others pass steered computer players: bots that leave moves to the turn",
        "timer, or bots whose bids (and, in a few hands, card play where one side lets",
        "the other take the tricks) are chosen by the `Director` of `testing/corpus.py`,",
        "which looks ahead one hand at a time to walk the match through a rare path. A",
        "variant number (`/vN` in the seed text) is the first seed under which the",
        "steering got there; it is recorded in `testing/corpus.py` so regeneration does",
        "not search. Every log verifies clean; `eram41-recorded-deals` has a note that its",
        "deals are recorded, not proven (a platform without the seed protocol).",
        "",
        "| file | seed text | dealing attempts | bytes | what it shows |",
        "|---|---|---|---|---|",
    ]
    by_file = {m.file: m for m in MATCHES}
    for name, data in written.matches.items():
        spec = by_file[name]
        hands = len(parse_log(data).hands)
        lines.append(f"| `{name}` | `{spec.seed_text}` | {hands} | {len(data)} | {spec.about} |")
    total = sum(map(len, written.matches.values()))
    lines += [
        "",
        f"{len(written.matches)} logs, {total} bytes.",
        "",
        "### Rule paths",
        "",
        "`tarneeb.replay.paths.exercised_paths` names the paths of RULES.md a match went",
        "through; `all_paths(rules)` lists those a corpus must cover, and",
        "`tests/test_corpus.py` fails when a path of any preset has no log. The names:",
        "",
        "| path | meaning |",
        "|---|---|",
        *(f"| `{p}` | {m} |" for p, m in PATH_MEANINGS),
        "",
        "Paths per rule set, and the logs that show each:",
        "",
    ]
    # a house rule set made for one log (the blind match) adds no path of its own
    for rules_name in dict.fromkeys([*RULE_SETS, *(m.rules for m in MATCHES if m.base is None)]):
        rules = rule_set(rules_name)
        seen: dict[str, list[str]] = {}
        for name, data in written.matches.items():
            if by_file[name].rules != rules_name:
                continue
            for p in verify_bytes(data, count_paths=True).paths:
                seen.setdefault(p, []).append(name.removesuffix(".tlog")
                                              .removeprefix(rules_name + "-"))
        wanted = all_paths(rules)
        if rules_name not in PRESETS:  # a variant: the paths its own fields add
            wanted -= all_paths(nearest_preset(rules))
            wanted |= set(seen) & {"kaboot-failed", "declarers-no-trick",
                                   "kaboot-failed-no-trick"}
        lines.append(f"- **{rules_name}**" + ("" if rules_name in PRESETS else
                                             " (shipped variant: the paths its fields add)")
                     + ": " + "; ".join(f"`{p}` ({', '.join(seen.get(p, ['MISSING']))})"
                                        for p in sorted(wanted)))
    lines += [
        "",
        "## `altered/`: logs altered in exactly one way",
        "",
        "Each is a clean log of `matches/` changed in one place by `tarneeb.testing.alterations`",
        "and, unless the change is to the signature itself, signed again with the",
        "platform's key (as when a platform itself wrote a wrong log), so the rule finding",
        "is what shows. `manifest.json` lists, for each file, the finding it must produce:",
        "`kind`, `hand` (deal number), `trick` (1-13) and `seat` (null where the finding",
        "names none), with a `description`, the `base` log and the `alteration`. Where",
        "`public_key` is given (raw Ed25519 key, hex), verify with that key pinned",
        "(`verify_bytes(data, public_key=...)`, or `tarneeb verify --key` with the key as",
        "PEM): the log was re-signed by another key that it names itself. The test",
        "`tests/test_corpus.py` checks that each altered log gives its finding and that no",
        "clean log gives any.",
        "",
        "| file | finding | where | what was changed |",
        "|---|---|---|---|",
    ]
    for e in written.manifest:
        where = ", ".join(f"{k} {e[k]}" for k in ("hand", "trick", "seat")
                          if e[k] is not None) or "match"
        lines.append(f"| `{e['file']}` | `{e['kind']}` | {where} | {e['description']} |")
    covered = {e["kind"] for e in written.manifest}
    lines += [
        "",
        f"{len(written.manifest)} altered logs cover {len(covered)} of the {len(KINDS)} finding "
        "kinds of `tarneeb.replay.findings.KINDS`."
        + (" Not covered:" if NOT_PRODUCIBLE else ""),
        "",
        *(f"- `{k}`: {why}." for k, why in NOT_PRODUCIBLE.items()),
        "A log whose deals are recorded by the platform rather than derived from committed "
        "seeds breaks no rule: the verdict says so in a note, not a finding.",
        "",
    ]
    return "\n".join(lines)


PATH_MEANINGS: tuple[tuple[str, str], ...] = (
    ("made:C / failed:C", "a personal bid of value class C made / failed: `face` (worth its "
     "number), `double`, `triple`, `quadruple`, `value-N` (another value); `@30` marks a "
     "value that the bidder's own score changed (400: 5 and 6 worth 5 and 6 from 30 on)"),
    ("cancelled", "a hand cancelled: personal bids below the minimum total, or all four pass"),
    ("cancelled-in-a-row", "a cancelled hand right after another (counted once per hand from "
     "the second)"),
    ("negative-total", "a running total below zero after a hand"),
    ("partner-blocks-win", "a player on the target whose partner is at zero or below: no win"),
    ("partner-blocks-win:zero", "the same, with the partner at exactly zero"),
    ("both-qualify:RULE", "both teams qualify after the same hand, under tie rule RULE"),
    ("both-qualify-equal", "both qualify and the tie rule finds them equal: another hand"),
    ("both-qualify-decided", "both qualify and the tie rule picks the winner"),
    ("min-bid:N", "400: a hand dealt while some player's lowest bid is N (score 30, 40, 50 "
     "and up)"),
    ("min-total:N", "400: a hand dealt while the lowest total of the bids is N"),
    ("timer-bid / timer-play / timer-trump", "a move made by the turn timer when bidding, "
     "playing a card, naming the trump"),
    ("match-won", "the match ends with a winner"),
    ("bid-N-made / bid-N-failed", "a bid (classic: a contract) of N = 11, 12 or 13 made / "
     "failed"),
    ("no-trick", "a personal bidder who takes no trick"),
    ("declarers-no-trick", "classic: the declarers take no trick on a contract below 13 "
     "(the defenders take all 13)"),
    ("kaboot-failed-no-trick", "classic: the defenders take all 13 tricks against a 13"),
    ("made-13-wins", "a made 13 wins a match the totals had not (rules where it does)"),
    ("timer-bid-reaches-minimum", "the timer raises the last bid to the table minimum "
     "(`timer_bid = \"reach_minimum\"`)"),
    ("auction-passes-after-13", "classic: the others pass in turn after a 13 "
     "(`auction_ends_on_13 = false`)"),
    ("tie-decided:STEP", "both teams qualify and that step of a tie chain ending in a team "
     "decides"),
    ("classic-made / classic-failed", "classic: a contract below 13 made / failed"),
    ("kaboot-made / kaboot-failed", "classic: a bid of 13 made / failed"),
    ("auction-ended-on-13", "classic: the auction ended at once on a bid of 13"),
    ("auction-all-pass", "classic: all four passed"),
    ("all-13-without-13", "classic: one team took all 13 tricks on a contract below 13"),
)


# ---------------------------------------------------------------- command line

def main(argv: Sequence[str] | None = None) -> int:
    """``python -m tarneeb.testing.corpus DIR [--search]``."""
    ap = argparse.ArgumentParser(prog="python -m tarneeb.testing.corpus",
                                 description="Regenerate the fixture corpus.")
    ap.add_argument("root", type=Path, help="the fixtures directory, e.g. fixtures")
    ap.add_argument("--search", action="store_true",
                    help="search the variant of every steered log again (slow) and print "
                         "the VARIANTS table to keep in testing/corpus.py")
    args = ap.parse_args(argv)
    start = time.perf_counter()
    specs = MATCHES
    if args.search:
        specs = [search_variant(m) if m.steered else m for m in MATCHES]
        print("VARIANTS: dict[str, int] = {")
        for m in specs:
            if m.variant:
                print(f"    {m.file!r}: {m.variant},")
        print("}")
    try:
        written = build(specs)
    except SteeringFailed as e:
        print(f"corpus: {e}; run with --search to find new variants", file=sys.stderr)
        return 1
    write_corpus(args.root, written)
    size = sum(map(len, written.matches.values()))
    print(f"wrote {len(written.matches)} logs ({size} bytes) to {args.root / 'matches'} and "
          f"{len(written.altered)} altered logs to {args.root / 'altered'} in "
          f"{time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
