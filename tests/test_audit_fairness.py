"""The fairness statistics: exact distributions, tests, correction and detectable bias."""

from __future__ import annotations

import itertools
import math
import os
import random
from collections import Counter

import pytest
from scipy import stats

from tarneeb.audit.fairness import (
    DrawEmpty,
    DrawPattern,
    DrawSum,
    PairedDraws,
    StatResult,
    Tally,
    Uniform,
    detectable_shift,
    detectable_w,
    holm,
)

HCP = ((4, 4), (3, 4), (2, 4), (1, 4), (0, 36))


def _items(population):
    return [v for v, c in population for _ in range(c)]


def test_draw_sum_is_exact_on_a_small_population() -> None:
    """Every draw of 3 items from 8 enumerated: the pmf, mean and variance agree exactly."""
    pop = ((3, 2), (1, 3), (0, 3))
    items = _items(pop)
    sums = Counter(sum(c) for c in itertools.combinations(items, 3))
    total = sum(sums.values())
    ref = DrawSum(pop, 3)
    assert ref.pmf() == pytest.approx({s: n / total for s, n in sums.items()}, abs=1e-15)
    mean = sum(s * n for s, n in sums.items()) / total
    var = sum(n * (s - mean) ** 2 for s, n in sums.items()) / total
    assert ref.mean == pytest.approx(mean) and ref.variance == pytest.approx(var)


def test_draw_sums_are_exact_on_generated_populations() -> None:
    """Every draw enumerated, on populations whose last class is too small, empty, or
    shares a value with another: the pmf is the exact fractions, as floats, in order of
    the sum (the last class taken only to make up the draw, as the counts need)."""
    from fractions import Fraction

    rng = random.Random(12)  # NOT secret: the test's populations
    for _ in range(150):
        pop = tuple((rng.randrange(4), rng.randrange(4)) for _ in range(rng.randrange(1, 4)))
        items = _items(pop)
        for draws in range(len(items) + 1):
            sums = Counter(sum(c) for c in itertools.combinations(items, draws))
            total = sum(sums.values())
            want = {s: float(Fraction(n, total)) for s, n in sorted(sums.items())}
            assert list(DrawSum(pop, draws).pmf().items()) == list(want.items()), (pop, draws)


def test_two_values_are_the_hypergeometric() -> None:
    ref = DrawSum(((1, 13), (0, 38)), 12)
    want = stats.hypergeom(51, 13, 12)
    for k, p in ref.pmf().items():
        assert p == pytest.approx(want.pmf(k), rel=1e-12)
    assert ref.mean == pytest.approx(want.mean()) and ref.variance == pytest.approx(want.var())


def test_high_card_points_of_a_hand() -> None:
    ref = DrawSum(HCP, 13)
    pmf = ref.pmf()
    assert sum(pmf.values()) == pytest.approx(1.0, abs=1e-12)
    assert min(pmf) == 0 and max(pmf) == 37
    assert ref.mean == 10 and ref.variance == pytest.approx(17.0588, abs=1e-4)
    # bridge tables: 10 points 9.41 %, 0 points 0.36 %
    assert pmf[10] == pytest.approx(0.0941, abs=5e-5) and pmf[0] == pytest.approx(0.00364,
                                                                                  abs=5e-6)


def test_paired_draws_are_exact_on_a_small_population() -> None:
    """The difference of two disjoint draws, enumerated over every ordered pair."""
    pop = ((2, 2), (1, 2), (0, 3))
    items = _items(pop)
    idx = range(len(items))
    diffs = []
    for a in itertools.combinations(idx, 2):
        rest = [i for i in idx if i not in a]
        for b in itertools.combinations(rest, 1):
            diffs.append(sum(items[i] for i in a) / 2 - sum(items[i] for i in b))
    mean = sum(diffs) / len(diffs)
    var = sum((d - mean) ** 2 for d in diffs) / len(diffs)
    ref = PairedDraws(pop, 2, 2, 1, 1)
    assert ref.mean == pytest.approx(mean) and ref.variance == pytest.approx(var)


def test_patterns_and_voids_of_a_hand() -> None:
    patterns = DrawPattern((13, 13, 13, 13), 13).pmf()
    assert sum(patterns.values()) == pytest.approx(1.0, abs=1e-12)
    # the classic table of bridge hand patterns
    assert patterns["4-4-3-2"] == pytest.approx(0.2155, abs=5e-5)
    assert patterns["5-3-3-2"] == pytest.approx(0.1552, abs=5e-5)
    assert patterns["13-0-0-0"] == pytest.approx(6.3e-12, rel=0.01)
    voids = DrawEmpty((13, 13, 13, 13), 13)
    assert voids.pmf()[1] == pytest.approx(sum(p for k, p in patterns.items()
                                                if k.endswith("-0") and not k.endswith("0-0")))
    # a small case enumerated: 2 draws from classes of sizes 2 and 1
    assert DrawPattern((2, 1), 2).pmf() == pytest.approx({"2-0": 1 / 3, "1-1": 2 / 3})
    assert DrawEmpty((2, 1), 2).pmf() == pytest.approx({1: 1 / 3, 0: 2 / 3})


def test_holm_matches_the_textbook_example() -> None:
    rs = [StatResult(("t", str(i)), "G-test", 10, 1.0, 1, p)
          for i, p in enumerate([0.01, 0.04, 0.03, 0.005, None])]
    holm(rs, 0.05)
    adjusted = [r.p_adjusted for r in rs]
    assert adjusted[:4] == pytest.approx([0.03, 0.06, 0.06, 0.02]) and adjusted[4] is None
    assert [r.flagged for r in rs] == [True, False, False, True, False]


def test_detectable_effects_match_power_tables() -> None:
    # Cohen (1988), table 7.4.6: df 1, alpha 0.05, power 0.80 -> lambda 7.85
    assert detectable_w(100, 1, 0.05) == pytest.approx(math.sqrt(7.85 / 100), rel=2e-3)
    # a z-test needs (1.96 + 0.84) standard errors
    assert detectable_shift(1.0, 1, 0.05) == pytest.approx(2.8016, abs=1e-3)


def test_tallies_merge_to_the_same_result_in_any_order() -> None:
    ref = DrawSum(HCP, 13)
    rng = random.Random(3)
    values = rng.choices(list(ref.pmf()), weights=list(ref.pmf().values()), k=600)
    parts = [Tally() for _ in range(3)]
    whole = Tally()
    for i, v in enumerate(values):
        parts[i % 3].fit(("hcp",), ref, v)
        parts[i % 3].mean(("hcp",), ref, v)
        whole.fit(("hcp",), ref, v)
        whole.mean(("hcp",), ref, v)
    merged = Tally().merge(parts[2]).merge(parts[0]).merge(parts[1])
    a, b = merged.results(), whole.results()
    assert [r.to_json() for r in a] == [r.to_json() for r in b]


def test_merge_adds_as_counter_update_does_in_the_same_order() -> None:
    """Tally.merge (its loop in C) gives what Counter.update gave: the same sums, new keys
    after the old in the order the other holds them, zeros and negative counts kept,
    into an empty tally and into itself."""
    rng = random.Random(7)
    keys = [("fit", ("t", str(i % 3)), DrawSum(HCP, 13), i) for i in range(40)]
    for _ in range(50):
        a, b = Tally(), Tally()
        for t in (a, b):
            for k in rng.sample(keys, rng.randint(0, 30)):
                t.counts[k] = rng.randint(-3, 5)
                t.sums[k[:3]] += rng.randint(-2, 9)
        expected = (Counter(a.counts), Counter(a.sums))
        expected[0].update(b.counts)
        expected[1].update(b.sums)
        a.merge(b)
        assert list(a.counts.items()) == list(expected[0].items())
        assert list(a.sums.items()) == list(expected[1].items())
        into = Tally().merge(b)
        assert list(into.counts.items()) == list(b.counts.items())
        twice = Counter(b.counts)
        twice.update(b.counts)
        assert list(b.merge(b).counts.items()) == list(twice.items())


def _rejections(shift: float, reps: int, n: int, alpha: float) -> tuple[float, float]:
    """The share of samples of ``n`` hands flagged by the mean test, hands whose points
    are shifted by ``shift`` on average (one point added with that probability)."""
    ref = DrawSum(HCP, 13)
    values, weights = list(ref.pmf()), list(ref.pmf().values())
    rng = random.Random(12345)
    flagged = 0
    detectable = 0.0
    for _ in range(reps):
        t = Tally()
        for v in rng.choices(values, weights=weights, k=n):
            t.mean(("hcp",), ref, v + (rng.random() < shift))
        [r] = t.results(alpha)
        flagged += r.flagged
        detectable = r.detectable or 0.0
    return flagged / reps, detectable


def test_the_stated_error_rate_and_power_hold() -> None:
    """Fair samples are flagged at about alpha; a bias of the stated detectable size
    is flagged with about the stated power (80 %)."""
    alpha, reps, n = 0.05, 400, 300
    rate, detectable = _rejections(0.0, reps, n, alpha)
    # binomial(400, 0.05): 3 standard deviations above is 0.083
    assert rate <= 0.083
    power, _ = _rejections(detectable, reps, n, alpha)
    assert 0.72 <= power <= 0.88, (detectable, power)


def test_a_category_the_reference_cannot_give_is_flagged() -> None:
    t = Tally()
    u = Uniform((0, 1, 2, 3))
    for _ in range(40):
        t.fit(("seat",), u, 0)
    t.fit(("seat",), u, 7)
    [r] = t.results()
    assert r.flagged and r.p_value == 0.0


def test_too_few_samples_are_not_tested_and_not_flagged() -> None:
    t = Tally()
    t.fit(("x",), DrawSum(HCP, 13), 10)
    [r] = t.results()
    assert not r.tested and not r.flagged and r.detectable is None


def test_sparse_g_tests_get_a_reproducible_monte_carlo_p_value() -> None:
    """52 equally likely categories, 5 expected each: the p-value is simulated (the
    chi-square tail is liberal there), the same on every run given the counts, and
    near the exact multinomial tail (here: the share of simulated samples beyond)."""
    cards = Uniform(tuple(range(52)))
    rng = random.Random(4)
    t = Tally()
    for _ in range(260):
        t.fit(("card",), cards, rng.randrange(52))
    first, again = t.results(detectable=False)[0], t.results(detectable=False)[0]
    assert first.p_method == "Monte Carlo" and first.p_value == again.p_value
    assert 0 < first.p_value <= 1


def test_the_sequential_p_value_stops_at_the_tenth_hit_not_at_the_batch_end() -> None:
    """Besag and Clifford's rule: the p-value is 10 over the sample where the tenth
    reaches the statistic (here the 1,000th: one in a hundred reaches it), whatever the
    batches it was simulated in; none in all: 1 over the samples plus one."""
    import numpy as np

    from tarneeb.audit.fairness.tests import MC_MORE, sequential_p

    state = {"at": 0}

    def every_hundredth(m: int) -> np.ndarray:
        at = state["at"] + np.arange(1, m + 1)
        state["at"] += m
        return at % 100 == 0

    assert sequential_p(every_hundredth) == pytest.approx(10 / 1000)
    assert sequential_p(lambda m: np.zeros(m, dtype=bool)) == pytest.approx(1 / (MC_MORE + 1))
    assert sequential_p(lambda m: np.zeros(m, dtype=bool), 999) == pytest.approx(1 / 1000)


def test_a_monte_carlo_p_value_is_the_same_looked_at_early(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A sparse G-test looks at its first 50 simulated samples before it makes the other
    450 of the first batch: its p-value is the one the whole batch at once gives (the same
    random numbers, the same samples, each one's statistic to the last bit), with samples
    drawn an observation at a time (52 cards), by multinomial (2,500 hands' points) or
    both, in two strata (cards under two references), stopping early or not."""
    import numpy as np

    from tarneeb.audit.fairness import tests

    def p_values() -> list[float]:
        out = []
        for seed in range(6):
            rng = np.random.default_rng(seed)
            t = Tally()
            for card in rng.integers(0, 52, 260).tolist():
                t.fit(("card",), Uniform(tuple(range(52))), card)
            hcp = DrawSum(HCP, 13)
            values, probs = zip(*hcp.pmf().items(), strict=True)
            for v in rng.choice(values, 2500, p=np.array(probs) / sum(probs)).tolist():
                t.fit(("points",), hcp, v)
            for i, card in enumerate(rng.integers(0, 52, 300).tolist()):
                t.fit(("two",), Uniform(tuple(range(52)), units=1 + i % 2), card)
            rs = t.results(detectable=False)
            assert [r.p_method for r in rs] == ["Monte Carlo"] * 3
            out.extend(r.p_value for r in rs)
        return out

    early = p_values()
    monkeypatch.setattr(tests, "MC_HEAD", tests.MC_DRAWS)
    whole = p_values()
    assert early == whole
    assert min(early) < 10 / tests.MC_HEAD < max(early)  # stopped early, and not


def test_the_sequential_p_value_is_valid_under_the_null() -> None:
    """A continuous statistic under the null (its rank among the samples uniform): the
    p-value is at most ``u`` with probability at most ``u``."""
    import numpy as np

    from tarneeb.audit.fairness.tests import sequential_p

    rng = np.random.default_rng(2)
    ps = []
    for _ in range(3000):
        observed = rng.random()
        ps.append(sequential_p(lambda m, o=observed: rng.random(m) >= o, 2000))
    ps_ = np.array(ps)
    for u in (0.01, 0.05, 0.2):
        assert np.mean(ps_ <= u) <= stats.binom.isf(0.002, 3000, u) / 3000


def test_exact_sums_by_fft_match_direct_convolution() -> None:
    """The k-fold sums by FFT are those of direct convolution to 1e-15 in every entry,
    never negative, and their far tails (below 1e-9) right to 1e-13."""
    import numpy as np

    from tarneeb.audit.fairness.tests import _k_fold

    for ref, k in ((DrawSum(HCP, 13), 40), (DrawSum(((1, 13), (0, 39)), 13), 300)):
        table = tuple(sorted(ref.pmf().items()))
        one = np.zeros(table[-1][0] - table[0][0] + 1)
        for v, p in table:
            one[v - table[0][0]] = p
        direct = np.ones(1)
        for _ in range(k):
            direct = np.convolve(direct, one)
        fast = _k_fold(table, k)
        assert len(fast) == len(direct) and fast.min() >= 0
        assert np.abs(fast - direct).max() < 1e-15
        tail = np.searchsorted(np.cumsum(direct), 1e-9)
        assert abs(fast[:tail].sum() - direct[:tail].sum()) < 1e-13


def test_simulated_samples_count_each_draw_in_its_own_bin() -> None:
    """The Monte Carlo samples' counts per bin are those of each uniform draw looked up in
    the cumulative probabilities (the bin is how many are at most the draw, the last bin
    takes any draw past the last): over empty bins, draws exactly on a bin's end, a last
    end that rounding left below 1, one draw a row and one bin's worth of rows."""
    import numpy as np

    from tarneeb.audit.fairness.tests import _bin_counts

    rng = np.random.default_rng(7)
    for trial in range(120):
        bins, k, rows = (int(rng.integers(2, 40)), int(rng.integers(1, 400)),
                         int(rng.integers(1, 200)))
        p = rng.random(bins)
        if trial % 3 == 0:
            p[rng.integers(0, bins, size=max(1, bins // 3))] = 0.0
            p[-1] += 1e-3
        cdf = np.cumsum(p / p.sum())
        if trial % 5 == 0:
            cdf[-1] = (cdf[-2] + 1) / 2
        u = rng.random((rows, k))
        if trial % 4 == 0:
            u[:, : k // 2] = cdf[rng.integers(0, bins, size=k // 2)]
        which = np.minimum(np.searchsorted(cdf, u, side="right"), bins - 1)
        expected = np.array([np.bincount(w, minlength=bins) for w in which])
        got = _bin_counts(cdf, u)
        assert got.shape == (rows, bins) and (got == expected).all(), (bins, k, rows)


def test_simulated_draws_are_binned_exactly_at_the_table_cells_edges() -> None:
    """The bins looked up in a table of [0, 1)'s cells are each draw's own, where the
    table is hardest: bin ends on a cell's edge, draws on an end and just below it, two
    ends in one cell of 4,096 (the finer table) and in one of 65,536 (rows sorted)."""
    import numpy as np

    from tarneeb.audit.fairness.tests import _bin_counts

    rng = np.random.default_rng(3)
    cdfs = ([0.25, 0.5, 0.75, 1.0], [1 / 4096, 0.5 + 3 / 8192, 0.9, 1.0],
            [0.3, 0.3 + 1e-5, 0.7, 1.0], [0.3, 0.3 + 1e-6, 0.7, 1.0])
    for cdf in map(np.array, cdfs):
        ends = cdf[:-1]
        u = np.concatenate([ends, np.nextafter(ends, 0), rng.random(200)])
        u = np.tile(u, (3, 1))
        u[1] = rng.permutation(u[1])
        which = np.minimum(np.searchsorted(cdf, u, side="right"), len(cdf) - 1)
        expected = np.array([np.bincount(w, minlength=len(cdf)) for w in which])
        assert (_bin_counts(cdf, u) == expected).all(), cdf


def test_a_z_test_of_few_observations_is_exact() -> None:
    """40 draws of one seat in four: the exact binomial tail, not the normal one."""
    ref = DrawSum(((1, 1), (0, 3)), 1)
    t = Tally()
    for k in range(40):
        t.mean(("first dealer",), ref, int(k < 17))
    r = t.results(detectable=False)[0]
    assert r.p_method == "exact"
    assert r.p_value == pytest.approx(2 * stats.binom(40, 0.25).sf(16), rel=1e-9)


def test_the_two_teams_joint_test_is_one_z_test() -> None:
    """The teams' points add up to 40: their joint test (1 degree of freedom) is the z-test
    of one team's points, squared."""
    team = DrawSum(HCP, 26, 2)
    rng = random.Random(9)
    t = Tally()
    for _ in range(300):
        cards = rng.sample(_items(HCP), 52)
        a = sum(cards[:26])
        t.joint(("hcp", "team", "a|b"), (team, team), (a, 40 - a))
        t.mean(("hcp", "one team"), team, a)
    joint, one = sorted(t.results(detectable=False, correct=False), key=lambda r: r.method)
    assert joint.method == "joint chi-square" and joint.df == 1
    assert joint.statistic == pytest.approx(one.statistic ** 2, rel=1e-9)


def test_a_joint_test_without_deviation_has_p_value_one() -> None:
    """Deviations of exactly zero: rounding in the quadratic form must not give a
    negative statistic (whose chi-square tail is NaN)."""
    ref = DrawSum(((1, 3), (0, 36)), 13)  # 13 of 39 cards, 3 marked: mean 1 a hand
    t = Tally()
    for _ in range(5):
        t.joint(("marked", "hands", "a|b|c"), (ref, ref, ref), (1, 1, 1))
    r = t.results(detectable=False)[0]
    assert r.df == 2 and r.p_value == pytest.approx(1.0)


def test_repeated_hands_against_their_exact_expected_count() -> None:
    """Hands drawn from 10**12 equally likely ones: none repeated is p 1; one pair among
    1,000 is about as likely as its Poisson mean, C(1000, 2) / 10**12."""
    t = Tally()
    for v in range(1000):
        t.drawn(("hands",), v, 10 ** 12, 1)
    assert t.results(detectable=False)[0].p_value == 1.0
    t.drawn(("hands",), 7, 10 ** 12, 1)
    r = t.results(detectable=False)[0]
    assert r.statistic == 1 and r.p_value == pytest.approx(1001 * 1000 / 2 / 10 ** 12, rel=1e-3)


@pytest.mark.parametrize("df", [1, 2, 3, 12, 39, 51, 120])
@pytest.mark.parametrize("alpha", [0.05, 0.00125, 1e-4])
@pytest.mark.parametrize("power", [0.5, 0.8, 0.9])
def test_power_is_what_scipy_stats_gives(df: int, alpha: float, power: float) -> None:
    """The power figures come from scipy.special (scipy.stats is not loaded for them):
    the same as the noncentral chi-square's survival function solved for its
    noncentrality, and the normal quantiles, computed with scipy.stats."""
    from scipy import optimize, stats

    from tarneeb.audit.fairness.power import detectable_noncentrality

    crit = stats.chi2.isf(alpha, df)
    hi = 1.0
    while stats.ncx2.sf(crit, df, hi) < power:
        hi *= 2
    root = optimize.brentq(lambda nc: stats.ncx2.sf(crit, df, nc) - power, 1e-9, hi,
                           xtol=1e-14)
    assert detectable_noncentrality(df, alpha, power) == pytest.approx(root, rel=1e-9)
    z = stats.norm.isf(alpha / 2) + stats.norm.isf(1 - power)
    assert detectable_shift(2.5, 7, alpha, power) == pytest.approx(z * 2.5 / 7, rel=1e-12)


def test_a_reference_from_another_process_is_the_same_key() -> None:
    """References key the tallies and hash once, when made: one made in a process with
    another string hash seed (a worker) and sent here finds the same counts."""
    import pickle
    import subprocess
    import sys

    from tarneeb.audit.fairness.exact import DrawSum, Uniform

    made = subprocess.run(
        [sys.executable, "-c", "import pickle, sys\n"
         "from tarneeb.audit.fairness.exact import DrawSum, Uniform\n"
         "sys.stdout.buffer.write(pickle.dumps([Uniform(('a', 'b')),\n"
         "                                      DrawSum(((1, 13), (0, 39)), 13)]))"],
        capture_output=True, check=True, env={**os.environ, "PYTHONHASHSEED": "12345"})
    theirs = pickle.loads(made.stdout)
    ours = [Uniform(("a", "b")), DrawSum(((1, 13), (0, 39)), 13)]
    counts = {ref: i for i, ref in enumerate(ours)}
    assert [counts[ref] for ref in theirs] == [0, 1]


def test_a_strong_signal_in_a_small_family_clears_the_archive_level() -> None:
    """Sixty marginal tests at p 0.5 and one test of the match state at p 0.003: one
    family of all (plain Holm) would need 61 × 0.003 = 0.18; by families (the state's
    weight the square root of its one test against that of sixty) it is flagged at 5 %,
    and the marginal tests are not. Equal weights are plain Holm."""
    from tarneeb.audit.fairness import correct_all, family_of, holm
    from tarneeb.audit.fairness.correction import weighted_holm

    def battery() -> list[StatResult]:
        rs = [StatResult(("trumps", "seat", str(i)), "G-test", 100, 1.0, 3, 0.5)
              for i in range(60)]
        return [*rs, StatResult(("high-card points", "match state", "side behind"),
                                "covariate z-test", 100, 3.0, None, 0.003)]

    plain = battery()
    holm(plain, 0.05)
    assert not any(r.flagged for r in plain)
    rs = battery()
    correct_all(rs, 0.05, detectable=False)
    assert [r.test[1] for r in rs if r.flagged] == ["match state"]
    assert rs[-1].p_adjusted == pytest.approx(0.003 * (1 + math.sqrt(60)))
    assert rs[-1].to_json()["family"] == "match state" == family_of(rs[-1].test)
    same = battery()
    weighted_holm(same, [1 / 61] * 61, 0.05)
    assert [r.p_adjusted for r in same] == pytest.approx([r.p_adjusted for r in plain])
