"""The battery's tests by threat that read every deal: state-adaptive dealing per player,
seat label and team; drift over the archive's order and each player's successive
matches; near-repeated hands; partners' fit. Each statistic's null against simulation
(small here: the calibration of the whole battery is bench/bench_calibration.py), and
each flags its rigger (tarneeb.testing.dealsim) where a fair archive is not flagged."""

from __future__ import annotations

import math
import random
from collections import Counter

import numpy as np
import pytest
from scipy import stats

from tarneeb.audit.fairness import drift, fit, nearrepeat, state
from tarneeb.audit.fairness.correction import family_of
from tarneeb.replay.archive.battery.measures import _HCP_HAND, HCP
from tarneeb.testing.dealsim import synthetic_archive

STATE = (HCP, "match state", "players, seat labels and teams")
NEAR = ("near-repeated hands", "all", "12 or 13 of 13 cards")
SUIT_FIT = ("suit fit", "partners", "suit lengths")
DRIFT = (HCP, "archive order", "computer seats")
BALANCE = (HCP, "successive matches", "each player's side")
_POINTS = np.array([4 if r == 12 else 3 if r == 11 else 2 if r == 10 else 1 if r == 9 else 0
                    for _ in range(4) for r in range(13)])


def _deals(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` uniform deals as four 52-bit hands each (position ``i`` of a shuffled deck
    to hand ``i % 4``)."""
    seat = np.argsort(rng.random((n, 52)), axis=1) % 4  # card c's hand
    bits = np.uint64(1) << np.arange(52, dtype=np.uint64)
    return np.stack([(np.where(seat == h, bits, np.uint64(0))).sum(axis=1, dtype=np.uint64)
                     for h in range(4)], axis=1)


def _mine(matches: int, cheat: str | None, strength: float, seed: int) -> dict:
    """This module's tests alone (uncorrected), read from the tally as an audit's are."""
    tally = synthetic_archive(random.Random(seed), matches, 10, cheat, strength,
                              recorded_share=1.0)["recorded"]
    rows = {k[2:]: n for k, n in tally.counts.items() if k[0] == "rows"}
    deals = {k[4]: n for k, n in tally.counts.items()
             if k[0] == "repeat" and k[1][0] == "repeated deals"}
    return {r.test: r for r in (*state.row_tests(STATE, _HCP_HAND, rows),
                                *nearrepeat.deal_tests(deals))}


def test_every_new_test_is_in_its_family() -> None:
    assert [family_of(t) for t in (STATE, NEAR, SUIT_FIT, DRIFT, BALANCE)] == [
        "match state", "shuffle", "partners", "splits", "splits"]


def test_near_pairs_agrees_with_comparing_every_pair(monkeypatch: pytest.MonkeyPatch) -> None:
    """Random hands with planted copies and one-card swaps: the leave-one-out count is the
    brute-force count, in one pass and in several (the keys split by a hash)."""
    rng = np.random.default_rng(1)
    hands = _deals(rng, 40).ravel()
    low = int(hands[7]) & -int(hands[7])
    absent = next(c for c in range(52) if not int(hands[7]) >> c & 1)
    planted = [int(hands[0]), int(hands[9]), int(hands[7]) ^ low | 1 << absent]  # 13, 13, 12
    h = np.concatenate([hands, np.array(planted, dtype=np.uint64)])
    brute = Counter()
    for i in range(len(h)):
        for j in range(i):
            shared = (int(h[i]) & int(h[j])).bit_count()
            if shared >= 12:
                brute[shared] += 1
    expected = (brute[12] + brute[13], brute[13])
    assert expected[0] >= 3 and nearrepeat.near_pairs(h) == expected
    monkeypatch.setattr(nearrepeat, "KEYS_AT_ONCE", 200)
    assert nearrepeat.near_pairs(h) == expected


def test_a_weak_shuffle_repeating_decks_with_a_few_cards_moved_is_flagged() -> None:
    rigged = _mine(60, "near repeat", 0.03, 3)[NEAR]
    assert rigged.p_value is not None and rigged.p_value < 1e-6
    assert rigged.observed[0] >= 5 and rigged.expected[0] < 0.01
    fair = _mine(60, None, 0.03, 3)[NEAR]
    assert fair.p_value == 1.0 and fair.observed == [0.0]


def test_the_pairing_null_has_its_variance_and_its_tails_are_valid() -> None:
    """300 samples of 60 uniform deals: the fits' standardised totals have variance 1,
    and the Monte Carlo p-value (and Bernstein's bound, used past 5,000 deals) is below
    5 % (20 %) no more often than that."""
    hands = _deals(np.random.default_rng(2), 300 * 60).reshape(300, 60, 4)
    zs, ps, bounds = [], [], []
    for sample in hands:
        for values, r in zip(fit.pairing_values(sample), fit.fit_tests(sample), strict=True):
            zs.append(r.statistic)
            ps.append(r.p_value)
            dev = values - values.mean(axis=1)[:, None]
            bounds.append(fit.bernstein_p(dev[:, 0].sum(), (dev ** 2).mean(axis=1).sum(),
                                          np.abs(dev).max()))
    assert np.var(zs) == pytest.approx(1.0, abs=0.15)
    for p in (ps, bounds):
        for level in (0.05, 0.2):
            assert np.mean(np.array(p) < level) <= stats.binom.isf(0.003, len(p), level) / len(p)
    assert np.mean(np.array(ps) < 0.2) > np.mean(np.array(bounds) < 0.2)  # the bound is loose


def test_partners_dealt_fitting_suits_are_flagged() -> None:
    rigged = _mine(60, "partners fit", 0.6, 4)[SUIT_FIT]
    assert rigged.p_value is not None and rigged.p_value < 1e-4 and rigged.statistic > 4
    fair = _mine(60, None, 0.6, 4)[SUIT_FIT]
    assert fair.p_value is not None and fair.p_value > 0.01


def test_the_cells_covariance_is_exact() -> None:
    """Fixed cells over 80 deals (states, players and labels at random), the deals
    dealt 1,500 times: the cells' sums have the covariance the test uses."""
    rng = np.random.default_rng(5)
    n, reps = 80, 1500
    names = [("A", "B", "C", "D") if m % 2 else ("B", "A", "D", "C") for m in range(n // 2)]
    d = {"match": np.repeat(np.arange(n // 2), 2), "state": rng.integers(0, 64, n),
         "names": names, "computer": rng.integers(0, 16, n // 2),
         "values": np.zeros((n, 4), dtype=np.int64)}
    monkey = {"MIN_CELL": state.MIN_CELL, "MIN_PLAYER_MATCHES": state.MIN_PLAYER_MATCHES}
    state.MIN_CELL, state.MIN_PLAYER_MATCHES = 10, 5
    try:
        labels, cell_of, deal_of, mask_of = state.cells(d)
        cov = state._covariance(_HCP_HAND, len(labels), cell_of, deal_of, mask_of)
    finally:
        state.MIN_CELL, state.MIN_PLAYER_MATCHES = monkey["MIN_CELL"], \
            monkey["MIN_PLAYER_MATCHES"]
    assert len(labels) > 10 and any(name.startswith("player A") for name in labels)
    hands = _deals(rng, n * reps).reshape(reps, n, 4)
    values = sum(np.stack([np.bitwise_count(hands & np.uint64(1 << (13 * s + r)))
                           for s in range(4)]).sum(axis=0) * w
                 for r, w in ((12, 4), (11, 3), (10, 2), (9, 1)))
    held = sum(np.where(mask_of >> s & 1, values[:, deal_of, s], 0) for s in range(4))
    sums = np.zeros((reps, len(labels)))
    for c in range(len(labels)):
        sums[:, c] = held[:, cell_of == c].sum(axis=1)
    empirical = np.cov(sums, rowvar=False)
    scale = np.sqrt(np.outer(np.diag(cov), np.diag(cov)))
    assert np.abs(empirical - cov).max() / scale.max() < 0.12
    assert np.abs(np.diag(empirical) / np.diag(cov) - 1).max() < 0.15


def test_a_named_player_s_side_dealt_worse_when_behind_late_is_flagged() -> None:
    """200 matches, the player in about 67 of them: the player's late cells stand out, in the
    one test of the family (its least p-value, 5e-5, clears the family's level)."""
    rigged = _mine(200, "behind late", 1.0, 6)
    r = rigged[STATE]
    assert r.p_value is not None and r.p_value < 1e-3 and r.df and r.df > 20
    assert r.categories[0].startswith("player Rami, behind")
    assert r.observed[0] < r.expected[0]
    assert all(t.p_value is None or t.p_value > 1e-3 for t in rigged.values() if t is not r)


def test_the_cusum_tail_is_conservative() -> None:
    """2,000 fair series of 300 standardised deals: p below 5 % (1 %) no more often."""
    x = np.random.default_rng(7).standard_normal((2000, 300))
    ps = np.array([stats.kstwobign.sf(drift.cusum(row)[0]) for row in x])
    for level in (0.05, 0.01):
        assert np.mean(ps < level) <= stats.binom.isf(0.003, 2000, level) / 2000


def test_a_drift_from_human_to_computer_seats_is_flagged_by_the_cusum() -> None:
    rigged = _mine(100, "drift", 1.0, 8)[DRIFT]
    assert rigged.p_value is not None and rigged.p_value < 1e-3
    fair = _mine(100, None, 1.0, 8)
    assert fair[DRIFT].p_value is not None and fair[DRIFT].p_value > 0.01
    assert fair[STATE].p_value is not None and fair[STATE].p_value > 0.01


def test_luck_made_up_across_a_player_s_matches_is_caught_by_the_balance() -> None:
    rigged = _mine(80, "player balance", 1.0, 9)[BALANCE]
    assert rigged.p_value is not None and rigged.p_value < 1e-3 and rigged.statistic < 0
    assert math.isfinite(rigged.statistic or math.nan)


def test_the_cells_covariance_is_the_sum_over_shared_deals_in_any_blocks(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The covariance matrix made a block of deals at a time is, entry for entry and to
    the last bit, the sum over each pair of members of one deal of ``(var - cov)·|a∩b|
    + cov·|a|·|b|``, whatever the blocks' size (one block, blocks of 7 deals)."""
    rng = np.random.default_rng(11)
    n, k = 200, 9
    members = [(c, d) for c in range(k) for d in np.flatnonzero(rng.random(n) < 0.4)]
    cell_of = np.array([c for c, _ in members], dtype=np.int64)
    deal_of = np.array([d for _, d in members], dtype=np.int64)
    mask_of = rng.integers(1, 15, len(members)).astype(np.int64)
    var, cov = _HCP_HAND.variance, _HCP_HAND.covariance(_HCP_HAND.draws)
    shared = np.zeros((k, k), dtype=np.int64)
    product = np.zeros((k, k), dtype=np.int64)
    for i in range(len(members)):
        for j in range(len(members)):
            if deal_of[i] == deal_of[j]:
                a, b = int(mask_of[i]), int(mask_of[j])
                shared[cell_of[i], cell_of[j]] += (a & b).bit_count()
                product[cell_of[i], cell_of[j]] += a.bit_count() * b.bit_count()
    expected = (var - cov) * shared + cov * product
    for block in (state.COV_DEALS, 7):
        monkeypatch.setattr(state, "COV_DEALS", block)
        got = state._covariance(_HCP_HAND, k, cell_of, deal_of, mask_of)
        assert np.array_equal(got, expected), block
