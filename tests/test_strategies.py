"""The hypothesis strategies of ``tarneeb.testing``: legal, varied, and able to catch a bug."""

from __future__ import annotations

import contextlib
import doctest
import importlib
import warnings
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis.errors import HypothesisWarning

from tarneeb.replay.log import parse_log
from tarneeb.replay.rules.engine import PASS, TRUMP_BASE, MatchState, check_deal
from tarneeb.replay.rules.house import rule_set, shipped
from tarneeb.replay.rules.paths import all_paths, exercised_paths
from tarneeb.replay.rules.ruleset import PAGE_OPTIONS, PRESETS, RuleSet, preset_departures
from tarneeb.replay.server.simulate import play_logged_match
from tarneeb.replay.verify.replayer import verify_bytes
from tarneeb.testing import (
    Deal,
    MatchScript,
    assert_agrees,
    compare,
    deals,
    logs,
    matches,
    regress_log,
    rule_sets,
)
from tarneeb.testing.adapters import BrokenTrumpEngine, ReferenceEngine, reference

FAST = settings(max_examples=25, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow])


def _replay(m: MatchScript) -> MatchState:
    state = MatchState(m.rules, m.first_dealer)
    for d in m.deals:
        state.deal(d.hands, d.thirteenth)
        for a in d.actions:
            state.apply(a)  # checked: raises on any illegal move
    return state


@FAST
@given(rule_sets(variants=True))
def test_rule_sets_are_valid_presets_with_options(rules: RuleSet) -> None:
    base = PRESETS[rules.name.removesuffix("-house")]
    assert (rules.name in PRESETS) != bool(preset_departures(rules.with_options(name=base.name)))
    assert RuleSet.from_dict(rules.to_dict()) == rules
    assert rules.scoring == base.scoring and rules.bidding == base.bidding


@FAST
@given(rule_sets(house_options=True))
def test_house_options_are_the_ones_offered(rules: RuleSet) -> None:
    base = PRESETS[rules.name]
    for key in ("target", "min_total"):
        value = getattr(rules, key)
        assert value == getattr(base, key) or value in PAGE_OPTIONS[rules.name][key]


@FAST
@given(deals())
def test_deals_are_valid(deal: Deal) -> None:
    assert check_deal(deal.hands, deal.dealer, deal.thirteenth, needs_thirteenth=True) is None


@FAST
@given(matches())
def test_matches_are_legal_and_finished_and_the_reference_agrees(m: MatchScript) -> None:
    state = _replay(m)
    assert state.is_over and state.winner in (0, 1)
    assert compare(ReferenceEngine(), m) is None
    assert_agrees(reference, m)


@settings(max_examples=5, deadline=None, database=None)
@given(logs(rule_sets(["eram41", "sahrat400", "classic"])))
def test_logs_are_clean_signed_logs(data: bytes) -> None:
    verdict = verify_bytes(data)
    assert verdict.clean, [str(f) for f in verdict.findings]
    assert parse_log(data).end.winner in (0, 1)
    assert regress_log("tarneeb.testing.adapters:reference", data, time_limit=None).ok


class _Reached(Exception):
    """Every wanted path reached: ends the search early."""


def _reach(strategy: st.SearchStrategy[Any], paths_of: Callable[[Any], set[str]],
           wanted: set[str], cap: int) -> set[str]:
    """The paths ``cap`` examples of ``strategy`` go through (they stop at the first example
    by which every ``wanted`` path is reached: a search, not a fixed sample)."""
    seen: set[str] = set()

    @settings(max_examples=cap, deadline=None, database=None, derandomize=True,
              phases=[Phase.generate], report_multiple_bugs=False,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(example: Any) -> None:
        seen.update(paths_of(example))
        if wanted <= seen:
            raise _Reached

    with contextlib.suppress(_Reached), warnings.catch_warnings():
        warnings.simplefilter("ignore", HypothesisWarning)  # the repr of the last example
        collect()
    return seen


def test_matches_cover_every_rule_set_and_the_rare_paths() -> None:
    def kinds(m: MatchScript) -> set[str]:
        out = {m.rules.name}
        for d in m.deals:
            if len(d.actions) < 52:
                out.add("cancelled")
            if PASS in d.actions:
                out.add("pass")
            if any(a >= TRUMP_BASE for a in d.actions):
                out.add("trump named")
        return out

    wanted = {*PRESETS, "cancelled", "pass", "trump named"}
    seen = _reach(matches(), kinds, wanted, 150)
    assert not wanted - seen, f"never reached: {sorted(wanted - seen)}"


def test_a_property_test_catches_the_broken_engine() -> None:
    @settings(max_examples=20, deadline=None, database=None, phases=[Phase.generate])
    @given(matches(st.sampled_from([PRESETS["qahwa41"], PRESETS["eram41"]])))
    def engine_agrees(m: MatchScript) -> None:
        assert_agrees(BrokenTrumpEngine, m)

    with pytest.raises(AssertionError, match=r"hand \d+, trick \d+, .*: trick \d+ .* won by "
                       r"seat \d per the rules, by seat \d per the engine"):
        engine_agrees()


def test_rule_sets_refuse_unknown_names() -> None:
    with pytest.raises(ValueError, match="unknown rule set"):
        rule_sets(["bridge"])


BIG = {f"bid-{b}-{m}" for b in (11, 12, 13) for m in ("made", "failed")}


@pytest.mark.parametrize(("names", "wanted"), [
    (["classic"], BIG | {"declarers-no-trick", "kaboot-failed-no-trick", "made-13-wins",
                         "auction-passes-after-13"}),
    (["eram41", "sahrat400"], BIG | {"no-trick", "made-13-wins"}),
])
def test_matches_reach_big_bids_made_and_failed(names: list[str], wanted: set[str]) -> None:
    """Bids of 11-13 made and failed, a bidder (or the declarers) taking no trick, defenders
    taking all 13, a made 13 that wins the match where the rules say so."""
    seen = _reach(matches(rule_sets(names, variants=True)),
                  lambda m: set(exercised_paths(m.rules, _replay(m).history, [])), wanted, 300)
    assert not wanted - seen, f"never reached: {sorted(wanted - seen)}"


def _verified_paths(data: bytes) -> set[str]:
    """The paths of a log that must verify clean, and where its verdict says its deals
    come from (``deals proven`` by the seeds or ``deals recorded`` in the log)."""
    verdict = verify_bytes(data, count_paths=True)
    assert verdict.clean, [str(f) for f in verdict.findings]
    assert verdict.hands > 0 and verdict.deals_proven != (verdict.recorded == verdict.hands)
    return {*verdict.paths, "deals proven" if verdict.deals_proven else "deals recorded"}


@pytest.mark.parametrize("name", [*PRESETS, *shipped()])
def test_logs_reach_every_path_of_every_rule_set(name: str) -> None:
    """Generated logs, verified as a user would, go through every path of the rules (made
    12s and 13s, a made 13 that wins, every bid value, both teams qualifying at once and
    each step of the tie rule, a partner at zero...), and say where their deals come from:
    the seeds (proven), or the log (recorded: stacked or scripted hands)."""
    rules = rule_set(name)
    wanted = all_paths(rules) | {"deals proven", "deals recorded"}
    seen = _reach(logs(rules), _verified_paths, wanted, 150)
    assert not wanted - seen, f"never reached: {sorted(wanted - seen)}"


@pytest.mark.parametrize("dealing", ["seeds", "recorded"])
def test_logs_deal_as_asked(dealing: str) -> None:
    @settings(max_examples=4, deadline=None, database=None, phases=[Phase.generate])
    @given(logs(rule_sets(["eram41", "classic"]), dealing=dealing))
    def check(data: bytes) -> None:
        assert f"deals {'proven' if dealing == 'seeds' else 'recorded'}" in _verified_paths(data)

    check()
    with pytest.raises(ValueError, match="dealing must be one of seeds, recorded"):
        logs(dealing="blind")


@pytest.mark.parametrize("name", ["strategies", "corpus.scripted"])
def test_the_docstring_examples_run(name: str) -> None:
    module = importlib.import_module(f"tarneeb.testing.{name}")
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0 and result.attempted >= 5


def test_deals_derived_from_seeds_cannot_be_rigged() -> None:
    with pytest.raises(ValueError, match="rig needs seeded=False"):
        play_logged_match("eram41", seed=b"rig", rig=lambda deals: deals)
