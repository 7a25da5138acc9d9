"""Hypothesis strategies: rule sets, deals, whole legal matches and signed logs.

For engine teams who want to property-test their own code against the rules:

* :func:`rule_sets` — the five presets, with the house options their
  platforms offer (and, with ``variants=True``, other platforms' house rules);
* :func:`deals` — four 13-card hands and the dealer's 13th card;
* :func:`matches` — whole legal matches as :class:`~tarneeb.testing.regress.scripts.MatchScript`
  (every deal and every move, first deal to the win), ready for
  :func:`~tarneeb.testing.regress.driver.compare`;
* :func:`logs` — the same as signed log bytes, as a platform would write them;
* :func:`edited_logs` — such logs with their records edited as a forger would (seeds
  stripped, deals recorded or set to nil, plays and claims rewritten) and signed again,
  for properties of a verifier (clean must mean proven).

Matches are played by this project's computer players, steered by a handful of
drawn values (how they bid, how often the turn timer plays, and a few moves
swapped for any other legal move), so every example is legal and ends with a
winner, and a failing example shrinks towards plain, unsteered play.

>>> from hypothesis import given, settings
>>> from tarneeb.testing import compare
>>> from tarneeb.testing.adapters import reference
>>> @settings(max_examples=5, deadline=None)
... @given(matches())
... def test_my_engine(match):
...     assert compare(reference(), match) is None
>>> test_my_engine()
"""

from __future__ import annotations

import random
from typing import Any, NamedTuple

from hypothesis import reject
from hypothesis import strategies as st
from hypothesis.strategies import SearchStrategy

from tarneeb.replay.log import EndRecord
from tarneeb.replay.rules.actions import PASS, bid_action, trump_action
from tarneeb.replay.rules.cards import (
    SUIT_MASKS,
    by_seat,
    colour_mate,
    deal_hands,
    make_card,
    mask_of,
)
from tarneeb.replay.rules.engine import MatchState, Phase
from tarneeb.replay.rules.house import rule_set, shipped
from tarneeb.replay.rules.paths import END_PATHS, all_paths
from tarneeb.replay.rules.players import (
    BotPlayer,
    DealSource,
    MatchTooLong,
    Move,
    estimate_tricks,
    play_match,
    shuffled_deals,
)
from tarneeb.replay.rules.ruleset import (
    PAGE_OPTIONS,
    PRESETS,
    TIE_CHOICES,
    VALUES_400,
    RuleSet,
    preset_departures,
    tie_chain,
)
from tarneeb.replay.rules.scoring import team_of
from tarneeb.replay.server.simulate import MatchSecrets, play_logged_match
from tarneeb.testing.alterations.base import EditableLog, rewrite
from tarneeb.testing.alterations.deal import with_recorded_deals
from tarneeb.testing.corpus.scripted import (
    ScriptedHand,
    big_bid_tour,
    end_plan,
    going_on,
    trick_deal,
    trump_of,
)
from tarneeb.testing.corpus.steering import side_policy  # card play where one side takes the tricks
from tarneeb.testing.regress.scripts import MatchScript, script_from_history

HARD_CAP = 400  # hands; a match still running then is returned as it stands


class Deal(NamedTuple):
    """A deal: the dealer, four 13-card masks by seat, and the dealer's 13th card."""

    dealer: int
    hands: tuple[int, int, int, int]
    thirteenth: int


# ---------------------------------------------------------------------- rule sets

def _ordered(default: Any, choices: tuple[Any, ...]) -> list[Any]:
    """The choices with the preset's own value first (what a failing example shrinks to)."""
    return sorted(choices, key=lambda v: v != default)


def rule_sets(names: tuple[str, ...] | list[str] | None = None, house_options: bool = True,
              variants: bool = False) -> SearchStrategy[RuleSet]:
    """Rule sets: the presets ``names`` (default all five; a shipped variant's name works too).

    ``house_options`` draws the options each platform's page offers (qahwa41's
    target and table minimum, classic's target); ``variants`` also draws other
    platforms' house rules: the partner rule, a made 13 winning outright, the tie
    rule (a single rule or a chain), the timer's bid, another 400 value table, the
    classic defenders' scores and whether the auction goes on after a 13, under the
    preset's (or variant's) name with ``-house`` after it (a preset's own name is kept for
    the options its platform offers).

    >>> from hypothesis import find
    >>> find(rule_sets(["qahwa41"]), lambda r: r.target == 61).min_total
    11
    """
    chosen = list(names) if names is not None else list(PRESETS)
    for n in chosen:
        rule_set(n)  # unknown names fail here, not inside a test

    @st.composite
    def build(draw: st.DrawFn) -> RuleSet:
        name = draw(st.sampled_from(chosen))
        base = rule_set(name)
        options: dict[str, Any] = {}
        if house_options:
            for key, choices in PAGE_OPTIONS.get(name, {}).items():
                options[key] = draw(st.sampled_from(_ordered(getattr(base, key), choices)))
        if variants:
            options["partner_min"] = draw(st.sampled_from(_ordered(base.partner_min, (0, 1))))
            options["made_13_wins"] = draw(st.booleans())
            if base.scoring == "personal":
                ties = (*(tie_chain(n) for n in (*TIE_CHOICES, "team_0+2")),
                        ("highest_player", "team_total", "team_0+2"),
                        ("team_total", "highest_player", "team_1+3"))
                options["tie"] = draw(st.sampled_from(_ordered(base.tie, ties)))
                options["timer_bid"] = draw(st.sampled_from(
                    _ordered(base.timer_bid, ("lowest", "reach_minimum"))))
            else:
                options["kaboot_defenders_factor"] = draw(st.sampled_from(
                    _ordered(base.kaboot_defenders_factor, (1, 2))))
                options["defenders_all_tricks_value"] = draw(st.sampled_from(
                    _ordered(base.defenders_all_tricks_value, (16, 13))))
                options["kaboot_defenders_all_tricks_value"] = draw(st.sampled_from(
                    _ordered(base.kaboot_defenders_all_tricks_value, (16, 13, 26))))
                options["auction_ends_on_13"] = draw(st.booleans().map(lambda b: not b))
            if base.values == VALUES_400:
                options["values"] = draw(st.sampled_from(_ordered(base.values, (
                    VALUES_400, (2, 3, 4, 10, 12, 14, 16, 27, 30, 33, 36, 40)))))
        options = {k: v for k, v in options.items() if getattr(base, k) != v}
        rules = base.with_options(**options) if options else base
        if preset_departures(rules) or (rules != base and name in shipped()):
            rules = rules.with_options(name=f"{name}-house")  # a name of their own
        return rules

    return build()


# ---------------------------------------------------------------------- deals

def _deal(dealer: int, deck: list[int]) -> Deal:
    return Deal(dealer, deal_hands(deck, dealer), deck[51])


def deals(dealer: int | None = None) -> SearchStrategy[Deal]:
    """Deals of a shuffled deck (card ``i`` to seat ``(dealer+1+i) % 4``, the last card
    the dealer's 13th); ``dealer`` fixes the dealer, otherwise it is drawn too.

    >>> from hypothesis import find
    >>> d = find(deals(dealer=2), lambda d: True)
    >>> d.dealer, [h.bit_count() for h in d.hands], d.hands[2] >> d.thirteenth & 1
    (2, [13, 13, 13, 13], 1)
    """
    seats = st.just(dealer) if dealer is not None else st.integers(0, 3)
    return st.builds(_deal, seats, st.permutations(range(52)))


# ---------------------------------------------------------------------- matches

# A hand steered to a big bid: (the bidder: its rank by hand strength, or with a stacked
# deal its place after the dealer; the bid, 11-13; who takes the tricks: 0 the bots' own
# play, 1 the bidder's side, 2 the other side; whether the deal is stacked for it)
BigBid = tuple[int, int, int, bool]
BIG_BIDS = (11, 12, 13)
# A scripted match (stacked deals): one in four, an index into _scripts
SCRIPT_DRAWS: tuple[int | None, ...] = (*(None,) * 10, 0, 1, 2, 3)


class _Steered:
    """Four bots in one: the drawn style for the first ``steered_hands`` hands, with the moves
    numbered in ``swaps`` replaced by another legal move; plain bots after that.

    ``big`` names hands where one seat bids high (:data:`BigBid`). Without a stacked deal
    the bidder is the seat of that rank by hand strength (the strongest first; the weakest
    first when the other side is to take the tricks); a stacked deal (:func:`matches`, and
    :func:`logs` whose deals are recorded: seeds cannot be stacked) gives the bidder every
    trump, or the bidder and its partner the 26 lowest cards. In the auction the others
    pass that hand, and the declarer names the suit the taking side holds most of. This
    reaches bids of 11-13 made and failed, bidders who take no trick, defenders who take
    all 13, and a made 13.

    ``script`` (stacked deals only) plays the first hands as scripted
    (:mod:`tarneeb.testing.corpus.scripted`): through every big bid, or to an end of the match.
    """

    def __init__(self, seed: int, bid_shift: int, aggression: float, timer_rate: float,
                 swaps: dict[int, int], steered_hands: int,
                 big: dict[int, BigBid] | None = None,
                 script: tuple[ScriptedHand, ...] = ()) -> None:
        rng = random.Random(seed)
        self.bots = [BotPlayer(random.Random(rng.getrandbits(64)), timer_rate=timer_rate,
                               bid_shift=bid_shift, aggression=aggression) for _ in range(4)]
        self.plain = BotPlayer(random.Random(seed))
        self.swaps, self.steered_hands = swaps, steered_hands
        self.big = big or {}
        self.script = script
        self.moves = 0

    def choose(self, state: MatchState) -> Move:
        k = self.moves
        self.moves += 1
        if state.deal_number < len(self.script):
            bids, tricks = self.script[state.deal_number]
            if state.phase == Phase.BID:
                return Move(bid_action(bids[state.to_move]))
            cards = trick_deal(tricks, state.dealer, trump_of(state.rules))[2]
            return Move(cards[len(state.hand_under_way.plays) // 4][state.to_move])
        if state.deal_number >= self.steered_hands:
            return self.plain.choose(state)
        big = self.big.get(state.deal_number)
        if big is not None:
            move = _big_bid_move(state, *big)
            if move is not None:
                return move
        if k in self.swaps:
            legal = state.legal_actions()
            return Move(legal[self.swaps[k] % len(legal)])
        return self.bots[state.to_move].choose(state)


def _big_bid_move(state: MatchState, rank: int, bid: int, takers: int, stacked: bool
                  ) -> Move | None:
    """The move of a hand steered to a big bid (see :class:`_Steered`), or ``None``."""
    hand = state.hand_under_way
    seat = state.to_move
    if hand.declarer is not None:
        bidder = hand.declarer
    elif stacked:
        bidder = (state.dealer + 1 + rank) & 3
    else:  # the bidder: by hand strength, the strongest seat for rank 0, the weakest for 3
        bidder = sorted(range(4), key=lambda s: (-_strength(state.hands[s], state.trump), s))[
            rank if takers != 2 else 3 - rank]
    if state.phase == Phase.BID:
        if state.rules.bidding == "personal":
            if seat != bidder:
                return None
            return Move(bid_action(max(bid, state.lowest_bid(seat))))
        legal = state.legal_actions()
        return Move(bid_action(bid) if seat == bidder and bid_action(bid) in legal else PASS)
    if takers == 0:
        return None
    if state.rules.scoring == "personal":
        side = frozenset({bidder}) if takers == 1 else frozenset({bidder ^ 1, bidder ^ 3})
    else:
        team = team_of(bidder) if takers == 1 else 1 - team_of(bidder)
        side = frozenset({team, team + 2})
    if state.phase == Phase.TRUMP:  # the suit the taking side holds most of
        held = state.hands[min(side)] | state.hands[max(side)]
        suit = max(range(4), key=lambda s: ((held & SUIT_MASKS[s]).bit_count(), -s))
        return Move(trump_action(suit))
    if state.phase != Phase.PLAY:
        return None
    return Move(side_policy(side)(state))


def _strength(held: int, trump: int | None) -> float:
    if trump is not None:
        return estimate_tricks(held, trump)
    return max(estimate_tricks(held, s) for s in range(4))


def _rules_strategy(rules: RuleSet | str | SearchStrategy[RuleSet] | None,
                    ) -> SearchStrategy[RuleSet]:
    if rules is None:
        return rule_sets()
    if isinstance(rules, str):
        return st.just(rule_set(rules))
    if isinstance(rules, RuleSet):
        return st.just(rules)
    return rules


def _big_bid(rank: int, bid: int, takers: int, stacked: bool) -> BigBid:
    """A :data:`BigBid`; a stacked deal is dealt for a side to take the tricks (takers 0,
    the bots' own play, is then the bidder's side)."""
    return rank, bid, takers or int(stacked), stacked


def _steering(steered_hands: int) -> SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({
        "seed": st.integers(0, 2**32 - 1),
        "bid_shift": st.sampled_from((0, 1, -1, 2, -2, 3, -3)),
        "aggression": st.sampled_from((0.0, 1.0, 2.5)),
        "timer_rate": st.sampled_from((0.0, 0.05, 0.3)),
        "swaps": st.dictionaries(st.integers(0, 60 * steered_hands), st.integers(0, 70),
                                 max_size=6),
        "steered_hands": st.just(steered_hands),
        "big": st.dictionaries(st.integers(0, max(0, steered_hands - 1)),
                               st.builds(_big_bid, st.integers(0, 3),
                                         st.sampled_from(BIG_BIDS), st.sampled_from((1, 2, 0)),
                                         st.sampled_from((False, False, True))),
                               max_size=steered_hands),
        "script": st.sampled_from(SCRIPT_DRAWS),
    })


def _stacked(deals: DealSource, big: dict[int, BigBid], rules: RuleSet) -> DealSource:
    """``deals``, with the hands of ``big`` that ask for it stacked for their bidder: every
    card of the trump suit (or, where the dealer must show a card of another suit, all but
    one and that suit's ace), or with its partner the 26 lowest cards."""
    def source(n: int, dealer: int) -> tuple[tuple[int, int, int, int], int | None]:
        hands, thirteenth = deals(n, dealer)
        plan = big.get(n)
        if plan is None or not plan[3] or plan[2] == 0:
            return hands, thirteenth
        bidder = (dealer + 1 + plan[0]) & 3
        shown = None
        if plan[2] == 2:  # the bidder and its partner hold the 26 lowest cards
            by_rank = sorted(range(52), key=lambda c: (c % 13, c // 13))
            seats, chosen = [bidder ^ 2, bidder], by_rank[:26]
        else:
            trump = trump_of(rules)  # the fixed trump, else spades
            chosen = [c for c in range(52) if c // 13 == trump]
            if rules.reveals_card:  # the dealer shows the ace of the trump's colour-mate
                shown = make_card(12, colour_mate(trump) if rules.trump == "revealed_mate"
                                  else trump)  # (or of the trump itself)
                if bidder == dealer:
                    chosen = [*chosen[1:], shown]
            seats = [bidder]
        out = list(hands)
        rest = [c for c in range(52) if c not in chosen and c != shown]
        for i, seat in enumerate(seats):
            out[seat] = mask_of(chosen[13 * i:13 * i + 13])
        others = [s for s in range(4) if s not in seats]
        if shown is not None and bidder != dealer:
            rest.insert(others.index(dealer), shown)  # dealt to the dealer below
        for i, seat in enumerate(others):
            out[seat] = mask_of(rest[i::len(others)])
        if shown is not None:
            thirteenth = shown
        elif thirteenth is None or not out[dealer] >> thirteenth & 1:
            thirteenth = out[dealer].bit_length() - 1  # a card of the dealer's
        return by_seat(out), thirteenth
    return source


BIG_BID_TOUR = "big bids"


def _scripts(rules: RuleSet) -> list[str]:
    """What a scripted match of ``rules`` goes through: the :data:`BIG_BID_TOUR`, or an end
    of the match (a plan goes through those that leave it going on first,
    :func:`~tarneeb.testing.corpus.scripted.going_on`)."""
    if rules.scoring != "personal":
        return []
    along = {"partner-blocks-win", f"both-qualify:{rules.tie_label}", *going_on(rules)}
    if rules.tie[-1] != "play_on":
        along.add("both-qualify-decided")
    ends = sorted(p for p in all_paths(rules) if p.startswith(END_PATHS) and p not in along)
    return [BIG_BID_TOUR, *ends]


def _steered(rules: RuleSet, steer: dict[str, Any], stack: bool
             ) -> tuple[_Steered, tuple[ScriptedHand, ...]]:
    """The players of ``steer``, and the hands they play as scripted (with ``stack``, the
    deals may be stacked; otherwise nothing is scripted and no deal is stacked)."""
    steer = dict(steer)
    index = steer.pop("script", None)
    scripts = _scripts(rules)
    script: tuple[ScriptedHand, ...] | None = None
    if stack and index is not None and scripts:
        name = scripts[index % len(scripts)]
        script = big_bid_tour(rules) if name == BIG_BID_TOUR else end_plan(rules, name)
    if not stack:  # nothing can be stacked: the bidders are chosen by strength
        steer["big"] = {k: (*b[:3], False) for k, b in steer["big"].items()}
    return _Steered(**steer, script=script or ()), script or ()


def _scripted(deals: DealSource, script: tuple[ScriptedHand, ...], rules: RuleSet
              ) -> DealSource:
    """``deals``, with the first hands dealt for ``script``."""
    def source(n: int, dealer: int) -> tuple[tuple[int, int, int, int], int | None]:
        if n < len(script):
            hands, thirteenth, _ = trick_deal(script[n][1], dealer, trump_of(rules))
            return hands, thirteenth
        return deals(n, dealer)
    return source


def _play(rules: RuleSet, first_dealer: int, steer: dict[str, Any]) -> MatchScript:
    player, script = _steered(rules, steer, stack=True)
    deal_source = _scripted(_stacked(shuffled_deals(random.Random(steer["seed"])),
                                     steer["big"], rules), script, rules)
    try:
        state, _ = play_match(rules, first_dealer, deal_source, [player] * 4, max_hands=HARD_CAP)
    except MatchTooLong as e:  # returned as it stands
        state = e.state
    return script_from_history(rules, first_dealer, state.history,
                               f"{rules.name} match (seed {steer['seed']})")


def matches(rules: RuleSet | str | SearchStrategy[RuleSet] | None = None,
            steered_hands: int = 6) -> SearchStrategy[MatchScript]:
    """Whole legal matches: every deal and every move, from the first deal to the win.

    ``rules`` is a rule set, a preset name or a strategy (default :func:`rule_sets`).
    The players are steered for the first ``steered_hands`` hands and play plainly after
    that, so matches end (one still running after 400 hands is returned as it stands).

    >>> from hypothesis import given, settings
    >>> @settings(max_examples=3, deadline=None, database=None)
    ... @given(matches("classic"))
    ... def test_classic(m):
    ...     assert m.rules.name == "classic" and m.deals[0].actions[0] in range(52, 67)
    >>> test_classic()
    """
    return st.builds(_play, _rules_strategy(rules), st.integers(0, 3), _steering(steered_hands))


DEALINGS = ("seeds", "recorded")


def _log(rules: RuleSet, seed: bytes, steer: dict[str, Any], dealing: str | None = "seeds"
         ) -> bytes:
    """The log of a steered match: its deals derived from ``seed``; or, ``recorded`` (with
    ``dealing=None``: when a hand is stacked or the match scripted to its end), the same
    deals with those hands stacked, written out in the log as a platform without the seeds
    does."""
    big = steer["big"]
    player, script = _steered(rules, steer, stack=dealing != "seeds")
    if dealing is None:
        dealing = "recorded" if script or any(b[3] and b[2] for b in big.values()) else "seeds"
    try:
        if dealing == "seeds":
            return play_logged_match(rules, seed=seed, players=[player] * 4,
                                     max_hands=HARD_CAP)
        return play_logged_match(
            rules, seed=seed, players=[player] * 4, max_hands=HARD_CAP, seeded=False,
            rig=lambda deals: _scripted(_stacked(deals, big, rules), script, rules))
    except MatchTooLong:
        reject()


def logs(rules: RuleSet | str | SearchStrategy[RuleSet] | None = None,
         steered_hands: int = 6, dealing: str | None = None) -> SearchStrategy[bytes]:
    """Signed clean logs of whole matches (reproducible secrets: not secret).

    ``dealing`` says where the deals come from: ``"seeds"``, every deal derived from the
    log's committed seeds (the verdict: proven); ``"recorded"``, every deal written out in
    the log, as by a platform without the seed protocol (the verdict: recorded, not
    proven), which lets the hands steered to a big bid be stacked; ``None`` (the default)
    records the deals of a log exactly when one of its hands is stacked, so that logs reach
    every path :func:`matches` reaches (bids of 12 and 13 made, a made 13 that wins) and a
    failing example shrinks towards a log of seeds.

    >>> from hypothesis import given, settings
    >>> from tarneeb.replay.verify.replayer import verify_bytes
    >>> @settings(max_examples=3, deadline=None, database=None)
    ... @given(logs("qahwa41"), logs("eram41", dealing="recorded"))
    ... def test_logs(log, recorded):
    ...     assert verify_bytes(log).clean
    ...     v = verify_bytes(recorded)
    ...     assert v.clean and not v.deals_proven and v.recorded == v.hands
    >>> test_logs()
    """
    if dealing is not None and dealing not in DEALINGS:
        raise ValueError(f"dealing must be one of {', '.join(DEALINGS)} or None, not {dealing!r}")
    return st.builds(_log, _rules_strategy(rules), st.binary(min_size=1, max_size=8),
                     _steering(steered_hands), st.just(dealing))


# ---------------------------------------------------------------------- edited logs

SEED_EDITS = ("keep", "strip-all", "hide-server-seed", "drop-client-seeds",
              "drop-commitment")


def _edit_seeds(log: EditableLog, how: str) -> None:
    h = log.header
    if how in ("strip-all", "drop-commitment"):
        h.server_commitment, h.batch = None, None
    if how in ("strip-all", "drop-client-seeds"):
        h.client_seeds = None
    if how == "strip-all":
        h.client_commitments = None
    if how in ("strip-all", "hide-server-seed") and log.end is not None:
        log.end = EndRecord(log.end.winner, None)


def _edited(base: bytes, seed: bytes, recorded: bool, seeds: str, nil: list[bool],
            forged: list[bool], resign: bool) -> bytes:
    key = MatchSecrets(seed).key
    data = with_recorded_deals(base, key) if recorded else base

    def change(log: EditableLog) -> None:
        _edit_seeds(log, seeds)
        for rec, set_nil, forge in zip(log.hands, nil, forged, strict=False):
            if set_nil:
                rec.deal = None
            if forge and rec.plays:  # the forger's hand: every card in order, all 13 tricks
                rec.plays, rec.tricks = bytes(range(52)), [13, 0, 0, 0]

    return rewrite(data, change, key if resign else None)


def edited_logs(rules: RuleSet | str | SearchStrategy[RuleSet] | None = None,
                steered_hands: int = 2) -> SearchStrategy[bytes]:
    """Signed logs of whole matches with their records edited as a forger would: deals
    written out in the records (or not), seeds and commitments stripped or hidden in
    any combination, some recorded deals set to nil, some hands' plays and trick claims
    rewritten, and the log signed again with the platform's key (mostly) or not.

    Many of them prove nothing; a verifier's clean verdict must never say otherwise.

    >>> from hypothesis import given, settings
    >>> from tarneeb.replay.verify.replayer import verify_bytes
    >>> @settings(max_examples=3, deadline=None, database=None)
    ... @given(edited_logs("eram41"))
    ... def test_clean_means_proven(log):
    ...     verdict = verify_bytes(log)
    ...     assert not verdict.clean or verdict.hands > 0
    >>> test_clean_means_proven()
    """
    # made once: a composite is inspected when it is made
    rule_strategy, steering = _rules_strategy(rules), _steering(steered_hands)

    @st.composite
    def build(draw: st.DrawFn) -> bytes:
        seed = draw(st.binary(min_size=1, max_size=8))
        base = _log(draw(rule_strategy), seed, draw(steering))
        per_hand = st.lists(st.booleans(), max_size=40)
        return _edited(base, seed, draw(st.booleans()), draw(st.sampled_from(SEED_EDITS)),
                       draw(per_hand), draw(per_hand), draw(st.sampled_from((True, True, False))))

    return build()


__all__ = ["HARD_CAP", "Deal", "deals", "edited_logs", "logs", "matches", "rule_sets"]
