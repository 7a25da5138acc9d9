"""The tests of card positions, long suits and voids by seat, consecutive matches and rule
sets: their p-values and exact moments against independent computations."""

from __future__ import annotations

import itertools
import math
import random

import numpy as np
import pytest
from scipy import stats

from tarneeb.audit.fairness import DrawClassCount, DrawSum, Tally
from tarneeb.audit.fairness.joint import PACK, lag_test
from tarneeb.audit.fairness.placement import placement_test
from tarneeb.replay.archive.audit import fairness_results
from tarneeb.testing.dealsim import off_by_one_placement, off_by_one_shuffle, synthetic_archive

POSITIONS = "dealer|dealer+1|dealer+2|dealer+3"
NAMES = tuple(str(c) for c in range(52))


def _cells(decks: np.ndarray) -> dict[tuple[int, int], int]:
    """Each card's count at each position mod 4 over ``decks`` (deck[i] = card at i)."""
    table = np.zeros((4, 52), dtype=int)
    for g in range(4):
        np.add.at(table[g], decks[:, g::4].ravel(), 1)
    return {(g, c): int(table[g, c]) for g in range(4) for c in range(52)}


def test_card_positions_of_fair_deals_are_flagged_at_most_at_the_level() -> None:
    """400 fair archives of 20 deals (each cell expects 5, the fewest the test takes):
    the share with p below 5 % is within the binomial bound (P < 0.3 %), and the
    statistic's mean is its exact 153 (over the scaling's)."""
    rng = np.random.default_rng(11)
    ps, xs = [], []
    for _ in range(400):
        decks = np.argsort(rng.random((20, 52)), axis=1)
        r = placement_test(("card position", "seat", POSITIONS), (13,) * 4, NAMES, 20,
                           _cells(decks))
        ps.append(r.p_value)
        xs.append(r.statistic)
    assert sum(p < 0.05 for p in ps) <= stats.binom.isf(0.003, 400, 0.05)
    assert np.mean(xs) == pytest.approx(153, abs=4 * math.sqrt(2 * 153 / 400))
    assert r.df == 153


def test_card_positions_need_five_expected_per_cell() -> None:
    decks = np.argsort(np.random.default_rng(1).random((19, 52)), axis=1)
    r = placement_test(("card position", "seat", POSITIONS), (13,) * 4, NAMES, 19,
                       _cells(decks))
    assert not r.tested


def test_the_off_by_one_shuffle_places_no_card_where_it_was() -> None:
    """Sattolo's algorithm: a cycle, so no card stays in its place; the exact placement
    the cheats' power is computed from matches a simulation of it."""
    rng = random.Random(3)
    counts = np.zeros((52, 4))
    for _ in range(4000):
        deck = off_by_one_shuffle(rng)
        assert all(card != i for i, card in enumerate(deck))
        for i, card in enumerate(deck):
            counts[card, (1 + i) % 4] += 1
    exact = np.array(off_by_one_placement())
    assert np.allclose(exact.sum(axis=1), 1)
    assert np.abs(counts / 4000 - exact).max() < 4.5 * math.sqrt(0.25 * 0.75 / 4000)


def test_the_card_position_power_line_is_one_card_at_one_position() -> None:
    results = fairness_results(synthetic_archive(random.Random(2), 100, 10,
                                                 recorded_share=1.0), 0.05)["recorded"]
    r = next(r for r in results if r.test[0] == "card position")
    assert r.detectable_unit == "percentage points (one card at one position)"
    assert 1 < r.detectable < 25
    assert r.expected[0] == pytest.approx(25.0) and len(r.categories) == 8


@pytest.mark.parametrize("at_least", [0, 2])
def test_class_count_moments_match_enumeration(at_least: int) -> None:
    """Three classes of three items, hands of three: every pair of disjoint hands."""
    items = [c for c in range(3) for _ in range(3)]
    ref = DrawClassCount((3, 3, 3), 3, at_least)

    def held(hand: tuple[int, ...]) -> int:
        counts = [sum(1 for i in hand if items[i] == c) for c in range(3)]
        return sum(1 for k in counts if (k == 0 if at_least == 0 else k >= at_least))

    pairs = [(held(a), held(b)) for a in itertools.combinations(range(9), 3)
             for b in itertools.combinations(sorted(set(range(9)) - set(a)), 3)]
    x = np.array(pairs, dtype=float)
    assert ref.mean == pytest.approx(x[:, 0].mean())
    assert ref.variance == pytest.approx(x[:, 0].var())
    assert ref.covariance(3) == pytest.approx(np.mean(x[:, 0] * x[:, 1]) - x[:, 0].mean() ** 2)
    two = DrawClassCount((3, 3, 3), 3, at_least, hands=2)
    assert two.variance == pytest.approx(2 * ref.variance + 2 * ref.covariance(3))
    # the exact distributions, one hand's and two hands' sum (what the evidence bets on)
    for r, values in ((ref, x[:, 0]), (two, x[:, 0] + x[:, 1])):
        counted = {int(v): float(np.mean(values == v)) for v in np.unique(values)}
        assert r.pmf() == pytest.approx(counted, abs=1e-12)


@pytest.mark.parametrize(("at_least", "hands"), [(0, 1), (0, 2), (5, 1), (5, 2)])
def test_a_hand_and_a_team_voids_and_long_suits_distributions_are_exact(
        at_least: int, hands: int) -> None:
    """The suits a seat's hand or a team's two hands hold none of (or five or more of):
    the distribution sums to 1 and has the moments counted apart."""
    ref = DrawClassCount((13, 13, 13, 13), 13, at_least, hands=hands)
    pmf = ref.pmf()
    mean = sum(k * p for k, p in pmf.items())
    assert sum(pmf.values()) == pytest.approx(1, abs=1e-12)
    assert mean == pytest.approx(ref.mean, rel=1e-12)
    assert sum((k - mean) ** 2 * p for k, p in pmf.items()) == pytest.approx(ref.variance,
                                                                            rel=1e-9)
    assert max(pmf) == (3 if at_least == 0 else 2) * hands


def test_the_lag_test_of_independent_matches_is_calibrated() -> None:
    """Independent match totals: the lag test's p-values below 5 % at most at the level;
    totals that carry over from one match to the next: flagged."""
    ref = DrawSum(((4, 4), (3, 4), (2, 4), (1, 4), (0, 36)), 26, 2)
    rng = np.random.default_rng(5)
    sd = math.sqrt(10 * ref.variance)
    low = 0
    for _ in range(200):
        totals = np.rint(200 + sd * rng.standard_normal(60)).astype(int)
        entries = {(7, i): (int(t) << PACK) + 10 for i, t in enumerate(totals)}
        low += lag_test(("t",), ref, entries).p_value < 0.05
    assert low <= stats.binom.isf(0.003, 200, 0.05)
    walk = 200 + np.cumsum(sd * 0.3 * rng.standard_normal(60))
    entries = {(7, i): (int(t) << PACK) + 10 for i, t in enumerate(np.rint(walk))}
    assert lag_test(("t",), ref, entries).p_value < 1e-3


def test_the_lag_tail_is_the_exact_null_not_the_normal() -> None:
    """One member in 13 holds the card (a skewed total): 31 matches, three consecutive
    holders. The sum of products is far from normal: the normal tail says 1e-5, but
    under independence about one archive in 700 is as extreme. The p-value is that of
    a brute-force simulation of the null, not the normal's."""
    ref = DrawSum(((1, 1), (0, 12)), 1)
    held = [0] * 31
    held[10] = held[11] = held[12] = 1
    r = lag_test(("t",), ref, {(3, i): (h << PACK) + 1 for i, h in enumerate(held)})
    assert r.p_method == "Monte Carlo"
    assert 2 * stats.norm.sf(abs(r.statistic)) < 3e-5
    rng = np.random.default_rng(8)
    z = ((rng.random((100_000, 31)) < 1 / 13) - 1 / 13) / math.sqrt(12 / 169)
    s = np.abs((z[:, 1:] * z[:, :-1]).sum(axis=1))
    brute = np.mean(s >= r.statistic * math.sqrt(30) - 1e-9)
    assert 0.5 * brute < r.p_value < 2 * brute
    assert r.p_value > 5e-4


def test_a_lag_needs_consecutive_leaves() -> None:
    ref = DrawSum(((1, 13), (0, 39)), 13)
    entries = {(1, 2 * i): (3 << PACK) + 1 for i in range(100)}  # no two consecutive
    assert not lag_test(("t",), ref, entries).tested


def test_the_first_dealers_share_is_said_in_percentage_points() -> None:
    results = fairness_results(synthetic_archive(random.Random(4), 60, 10), 0.05)
    r = next(r for rs in results.values() for r in rs
             if r.test == ("first dealer", "label", "computer"))
    assert r.detectable_unit == "percentage points" and r.categories == ["share"]
    assert 0 < r.expected[0] < 100 and 1 < r.detectable < 100


def test_rule_sets_are_tested_apart_only_with_enough_deals() -> None:
    """Rule sets, like keys, are tested apart when two or more have 100 deals: 30 matches
    over five rule sets have none; 150 have all."""
    def groups(matches: int) -> set[str]:
        tallies = synthetic_archive(random.Random(8), matches, 10, recorded_share=1.0)
        return {r.test[2] for r in fairness_results(tallies, 0.05, detectable=False)[
            "recorded"] if r.test[1] == "rule set"}
    assert groups(30) == set()
    assert len(groups(150)) >= 2


def test_tallies_with_the_new_tests_merge_in_any_order() -> None:
    """Card positions and consecutive matches are counts that add: two halves merged give
    the whole archive's results."""
    whole, first, second = Tally(), Tally(), Tally()
    from tarneeb.testing.dealsim import synthetic_match
    rng = random.Random(6)
    for leaf in range(40):
        state = rng.getstate()
        synthetic_match(whole, rng, "classic", 6, leaf=leaf)
        rng.setstate(state)
        synthetic_match(first if leaf % 2 else second, rng, "classic", 6, leaf=leaf)
    merged = Tally().merge(second).merge(first)
    a = {r.test: r.p_value for r in whole.results(detectable=False)}
    b = {r.test: r.p_value for r in merged.results(detectable=False)}
    assert a == b
    assert a[("card position", "seat", POSITIONS)] is not None
    assert a[("high-card points", "serial", "consecutive matches")] is not None
