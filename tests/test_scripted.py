"""Scripted hands: the deal gives each seat the tricks asked, and the plans go where they say."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tarneeb.replay.rules.actions import bid_action
from tarneeb.replay.rules.engine import MatchState, Phase
from tarneeb.replay.rules.house import rule_set, shipped
from tarneeb.replay.rules.paths import exercised_paths
from tarneeb.replay.rules.ruleset import PRESETS, RuleSet
from tarneeb.testing.corpus.scripted import (
    ScriptedHand,
    big_bid_tour,
    end_plan,
    going_on,
    trick_deal,
    trump_of,
)
from tarneeb.testing.strategies import BIG_BID_TOUR, _scripts

PERSONAL = [n for n in [*PRESETS, *shipped()] if rule_set(n).scoring == "personal"]


def _play(rules: RuleSet, plan: tuple[ScriptedHand, ...], first_dealer: int = 0) -> MatchState:
    """Play ``plan`` hand by hand from the first, as the strategies do."""
    state = MatchState(rules, first_dealer)
    for bids, tricks in plan:
        hands, thirteenth, cards = trick_deal(tricks, state.dealer, trump_of(rules))
        state.deal(hands, thirteenth)
        while state.phase == Phase.BID:
            state.apply(bid_action(bids[state.current_player]))  # checked: legal
        for row in cards:
            for _ in range(4):
                state.apply(row[state.current_player])  # checked: legal
        assert list(state.history[-1].tricks) == list(tricks)
    return state


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=13, max_size=13), st.integers(0, 3),
       st.sampled_from(["eram41", "qahwa41"]))
def test_each_seat_takes_the_tricks_asked(winners: list[int], dealer: int, name: str) -> None:
    tricks = tuple(winners.count(s) for s in range(4))
    rules = rule_set(name)
    state = MatchState(rules, dealer)
    hands, thirteenth, cards = trick_deal(tricks, dealer, trump_of(rules))  # type: ignore[arg-type]
    state.deal(hands, thirteenth)
    assert state.trump == trump_of(rules)
    for seat in range(4):
        state.apply(bid_action(5 if seat == 0 else 2))
    for row in cards:
        for _ in range(4):
            state.apply(row[state.current_player])
    assert tuple(state.history[-1].tricks) == tricks


@pytest.mark.parametrize("name", PERSONAL)
def test_every_script_goes_where_it_says(name: str) -> None:
    rules = rule_set(name)
    for script in _scripts(rules):
        plan = big_bid_tour(rules) if script == BIG_BID_TOUR else end_plan(rules, script)
        assert plan is not None, f"{name}: no plan for {script}"
        state = _play(rules, plan)
        seen = set(exercised_paths(rules, state.history, []))
        if script == BIG_BID_TOUR:
            wanted = {f"bid-{b}-{m}" for b in (11, 12, 13) for m in ("made", "failed")}
            assert wanted <= seen and not any(h.cancelled for h in state.history)
            assert (state.winner is not None) == rules.made_13_wins
        else:
            assert {script, *going_on(rules)} <= seen, f"{name}: {script}"
            assert state.winner is not None
