"""Hypothesis strategies: rule sets, deals, whole legal matches and signed logs.

For engine teams who want to property-test their own code against the rules:

* :func:`rule_sets` — the five presets, with the house options their
  platforms offer (and, with ``variants=True``, other platforms' house rules);
* :func:`deals` — four 13-card hands and the dealer's 13th card;
* :func:`matches` — whole legal matches as :class:`~tarneeb.testing.regress.MatchScript`
  (every deal and every move, first deal to the win), ready for
  :func:`~tarneeb.testing.regress.compare`;
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

from tarneeb.replay.cards import deal_hands
from tarneeb.replay.engine import MatchState
from tarneeb.replay.logformat import EndRecord
from tarneeb.replay.players import BotPlayer, MatchTooLong, Move, play_match, shuffled_deals
from tarneeb.replay.rules import (
    PAGE_OPTIONS,
    PRESETS,
    TIE_CHOICES,
    VALUES_400,
    RuleSet,
    preset,
    preset_departures,
)
from tarneeb.replay.simulate import MatchSecrets, play_logged_match

from .alterations import EditableLog, rewrite, with_recorded_deals
from .regress import MatchScript, script_from_history

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
    """Rule sets: the presets ``names`` (default all five).

    ``house_options`` draws the options each platform's page offers (qahwa41's
    target and table minimum, classic's target); ``variants`` also draws other
    platforms' house rules: the partner rule, a made 13 winning outright, the tie
    rule and another 400 value table, under the preset's name with ``-house`` after it
    (a preset's own name is kept for the options its platform offers).

    >>> from hypothesis import find
    >>> find(rule_sets(["qahwa41"]), lambda r: r.target == 61).min_total
    11
    """
    chosen = list(names) if names is not None else list(PRESETS)
    for n in chosen:
        preset(n)  # unknown names fail here, not inside a test

    @st.composite
    def build(draw: st.DrawFn) -> RuleSet:
        name = draw(st.sampled_from(chosen))
        base = PRESETS[name]
        options: dict[str, Any] = {}
        if house_options:
            for key, choices in PAGE_OPTIONS[name].items():
                options[key] = draw(st.sampled_from(_ordered(getattr(base, key), choices)))
        if variants:
            options["partner_min"] = draw(st.sampled_from(_ordered(base.partner_min, (0, 1))))
            options["made_13_wins"] = draw(st.booleans())
            if base.scoring == "personal":
                options["tie"] = draw(st.sampled_from(_ordered(base.tie, TIE_CHOICES)))
            if base.values == VALUES_400:
                options["values"] = draw(st.sampled_from(_ordered(base.values, (
                    VALUES_400, (2, 3, 4, 10, 12, 14, 16, 27, 30, 33, 36, 40)))))
        options = {k: v for k, v in options.items() if getattr(base, k) != v}
        rules = base.with_options(**options) if options else base
        if preset_departures(rules):  # other house rules go under a name of their own
            rules = rules.with_options(name=f"{name}-house")
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

class _Steered:
    """Four bots in one: the drawn style for the first ``steered_hands`` hands, with the moves
    numbered in ``swaps`` replaced by another legal move; plain bots after that."""

    def __init__(self, seed: int, bid_shift: int, aggression: float, timer_rate: float,
                 swaps: dict[int, int], steered_hands: int) -> None:
        rng = random.Random(seed)
        self.bots = [BotPlayer(random.Random(rng.getrandbits(64)), timer_rate=timer_rate,
                               bid_shift=bid_shift, aggression=aggression) for _ in range(4)]
        self.plain = BotPlayer(random.Random(seed))
        self.swaps, self.steered_hands = swaps, steered_hands
        self.moves = 0

    def choose(self, state: MatchState) -> Move:
        k = self.moves
        self.moves += 1
        if state.deal_number >= self.steered_hands:
            return self.plain.choose(state)
        if k in self.swaps:
            legal = state.legal_actions()
            return Move(legal[self.swaps[k] % len(legal)])
        return self.bots[state.current_player].choose(state)


def _rules_strategy(rules: RuleSet | str | SearchStrategy[RuleSet] | None,
                    ) -> SearchStrategy[RuleSet]:
    if rules is None:
        return rule_sets()
    if isinstance(rules, str):
        return st.just(preset(rules))
    if isinstance(rules, RuleSet):
        return st.just(rules)
    return rules


def _steering(steered_hands: int) -> SearchStrategy[dict[str, Any]]:
    return st.fixed_dictionaries({
        "seed": st.integers(0, 2**32 - 1),
        "bid_shift": st.sampled_from((0, 1, -1, 2, -2, 3, -3)),
        "aggression": st.sampled_from((0.0, 1.0, 2.5)),
        "timer_rate": st.sampled_from((0.0, 0.05, 0.3)),
        "swaps": st.dictionaries(st.integers(0, 60 * steered_hands), st.integers(0, 70),
                                 max_size=6),
        "steered_hands": st.just(steered_hands),
    })


def _play(rules: RuleSet, first_dealer: int, steer: dict[str, Any]) -> MatchScript:
    player = _Steered(**steer)
    deal_source = shuffled_deals(random.Random(steer["seed"]))
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

    >>> from hypothesis import find
    >>> m = find(matches("classic"), lambda m: m.hands >= 2)
    >>> m.rules.name, m.hands >= 2, m.deals[0].actions[0] in range(52, 67)
    ('classic', True, True)
    """
    return st.builds(_play, _rules_strategy(rules), st.integers(0, 3), _steering(steered_hands))


def _log(rules: RuleSet, seed: bytes, steer: dict[str, Any]) -> bytes:
    player = _Steered(**steer)
    try:
        return play_logged_match(rules, seed=seed, players=[player] * 4, max_hands=HARD_CAP)
    except MatchTooLong:
        reject()


def logs(rules: RuleSet | str | SearchStrategy[RuleSet] | None = None,
         steered_hands: int = 6) -> SearchStrategy[bytes]:
    """Signed logs of whole matches (seed-derived deals, reproducible secrets: not secret).

    >>> from hypothesis import find
    >>> from tarneeb.replay.replayer import verify_bytes
    >>> verify_bytes(find(logs("qahwa41"), lambda b: True)).clean
    True
    """
    return st.builds(_log, _rules_strategy(rules), st.binary(min_size=1, max_size=8),
                     _steering(steered_hands))


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

    >>> from hypothesis import find
    >>> from tarneeb.replay.replayer import verify_bytes
    >>> verify_bytes(find(edited_logs("eram41"), lambda b: True)).clean
    True
    """
    @st.composite
    def build(draw: st.DrawFn) -> bytes:
        seed = draw(st.binary(min_size=1, max_size=8))
        base = _log(draw(_rules_strategy(rules)), seed, draw(_steering(steered_hands)))
        per_hand = st.lists(st.booleans(), max_size=40)
        return _edited(base, seed, draw(st.booleans()), draw(st.sampled_from(SEED_EDITS)),
                       draw(per_hand), draw(per_hand), draw(st.sampled_from((True, True, False))))

    return build()


__all__ = ["HARD_CAP", "Deal", "deals", "edited_logs", "logs", "matches", "rule_sets"]
