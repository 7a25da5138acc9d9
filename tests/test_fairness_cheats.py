"""The ways a dishonest platform would bias its deals, each found by the test aimed at it.

Each cheat of :mod:`tarneeb.testing.dealsim` (the platform re-deals, or trades cards,
in 60 % of deals) is flagged by its test after the correction over every test of the
archive, at a size where that test's detectable bias (80 % power, as printed) is
smaller than the bias the cheat made; the same archive dealt fairly is not flagged."""

from __future__ import annotations

import random

import pytest
from scipy import stats

from tarneeb.audit.fairness import StatResult
from tarneeb.replay.archive.audit import fairness_results
from tarneeb.testing.dealsim import CHEATS, off_by_one_placement, synthetic_archive

HCP = "high-card points"
# cheat: (matches, the test that must flag it)
TARGETS = {
    "player": (60, (HCP, "player", "by name")),
    "table seat": (30, (HCP, "table seat", "seat 1|seat 2|seat 3|seat 4")),
    "team": (30, (HCP, "team", "seats 1+3|seats 2+4")),
    "honours": (30, ("aces", "table seat", "seat 1|seat 2|seat 3|seat 4")),
    "match state": (30, (HCP, "match state", "side behind")),
    "first dealer": (30, ("first dealer", "label", "computer")),
    "repeat": (30, ("repeated hands", "all", "13-card hands")),
    "serial": (30, (HCP, "serial", "previous deal")),
    "shuffle": (200, ("card position", "seat", "dealer|dealer+1|dealer+2|dealer+3")),
    # (40: at 30 its p after the correction, 0.051, passed the level before the trump
    # honours added five tests to the battery)
    "long suits": (40, ("long suits", "table seat", "seat 1|seat 2|seat 3|seat 4")),
    "voids": (60, ("voids", "team", "seats 1+3|seats 2+4")),
    # the simulated scores follow the deals (the stronger side scores), so a side is
    # alone near the target less often than when they went to a side at random
    "close to the target": (150, (HCP, "match state", "close to the target")),
    "late comeback": (150, (HCP, "match state", "side behind by hand number")),
    "rule set": (150, (HCP, "rule set", "classic")),
    "consecutive matches": (60, (HCP, "serial", "consecutive matches")),
    # half the matches under a second key, the bias under that key only
    "signing key": (100, (HCP, "key", "platform B")),
    # one player favoured at one game only (a fifth of their matches)
    "player in one rule set": (400, (HCP, "player", "by name and rule set")),
}


def _results(matches: int, cheat: str | None, seed: int = 5) -> dict:
    tallies = synthetic_archive(random.Random(seed), matches, 10, cheat, 0.6,
                                recorded_share=1.0)
    return {r.test: r for r in fairness_results(tallies, 0.05)["recorded"]}


def _placement_power(r: StatResult, tests: int) -> float:
    """The power of the card-position test against the off-by-one shuffle at ``r``'s size,
    at the level of Holm's first step: the exact noncentrality of its placements."""
    shares = off_by_one_placement()
    per_deal = sum((p - 0.25) ** 2 / 0.25 for row in shares for p in row) * 51 / 52
    crit = stats.chi2.isf(0.05 / tests, r.df)
    return float(stats.ncx2.sf(crit, r.df, per_deal * r.n))


def test_every_cheat_has_its_test() -> None:
    assert set(TARGETS) == set(CHEATS)


@pytest.mark.parametrize("cheat", CHEATS)
def test_a_cheat_is_flagged_by_its_test_at_the_size_its_power_predicts(cheat: str) -> None:
    matches, target = TARGETS[cheat]
    results = _results(matches, cheat)
    r = results[target]
    assert r.flagged and r.p_adjusted is not None and r.p_adjusted <= 0.05
    assert r.detectable is not None and r.detectable > 0
    if cheat == "shuffle":  # 153 cells off at once: the power of the cheat's own pattern
        assert _placement_power(r, len(results)) >= 0.8
        return
    if cheat == "repeat":  # the hands dealt again (60 % of 300 deals, 4 hands each)
        assert r.detectable < 0.5 * 300 * 4
        return
    effect = max(abs(o - e) for o, e in zip(r.observed, r.expected, strict=True))
    assert r.detectable < effect


def test_the_same_archives_dealt_fairly_are_not_flagged() -> None:
    results = _results(60, None)
    assert not [t for t, r in results.items() if r.flagged]
    for cheat, (_, target) in TARGETS.items():
        if cheat != "signing key":  # these archives are signed under one key
            assert results[target].tested and results[target].detectable
