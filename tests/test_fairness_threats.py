"""The threats the battery's newer tests aim at: a deck in new-deck order shuffled as a
person does (its residue in who gets the cards next to each other), and a small seed
space (whole deals dealt again); each test's null checked against simulation."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest
from scipy import stats

from tarneeb.audit.fairness import NextSeat
from tarneeb.audit.fairness.joint import bounded_test
from tarneeb.replay.archive.audit import fairness_results
from tarneeb.testing import dealsim
from tarneeb.testing.dealsim import synthetic_archive

DECK_ORDER = ("deck order", "all", "card c+1 to the seat after card c's")
REPEATED_DEALS = ("repeated deals", "all", "every deal")


def _next_seat_counts(deals: int, rng: np.random.Generator) -> np.ndarray:
    """Uniform deals: position ``i`` of a shuffled deck to seat ``i % 4``; per deal, the
    cards ``c`` whose ``c + 1`` went to the seat after ``c``'s."""
    seat = np.argsort(rng.random((deals, 52)), axis=1) % 4
    return ((seat[:, 1:] - seat[:, :-1]) % 4 == 1).sum(axis=1)


def test_the_next_seat_count_has_its_exact_moments() -> None:
    x = _next_seat_counts(40_000, np.random.default_rng(3))
    ref = NextSeat()
    assert ref.mean == 13.0
    assert x.mean() == pytest.approx(ref.mean, abs=4 * math.sqrt(ref.variance / len(x)))
    assert x.var() == pytest.approx(ref.variance, abs=0.25)


def test_the_bernstein_bound_is_conservative_on_fair_deals() -> None:
    """400 fair samples of 50 deals: p below 5 % (and 20 %) no more often than that."""
    rng = np.random.default_rng(4)
    x = _next_seat_counts(400 * 50, rng).reshape(400, 50).sum(axis=1)
    ps = np.array([bounded_test(DECK_ORDER, NextSeat(), 50, int(t)).p_value for t in x])
    for level in (0.05, 0.2):
        assert np.mean(ps < level) <= stats.binom.isf(0.003, 400, level) / 400


def test_a_person_s_riffle_shuffles_are_flagged_by_the_deck_order() -> None:
    """Three riffle shuffles and a cut of a deck in new-deck order, every deal of 30
    matches: flagged by the deck-order test (and the same archive dealt fairly not)."""
    rigged = {r.test: r for r in fairness_results(
        synthetic_archive(random.Random(6), 30, 10, "riffle", 1.0, recorded_share=1.0),
        0.05)["recorded"]}
    assert rigged[DECK_ORDER].flagged and rigged[DECK_ORDER].family == "shuffle"
    fair = {r.test: r for r in fairness_results(
        synthetic_archive(random.Random(6), 30, 10, None, 1.0, recorded_share=1.0),
        0.05)["recorded"]}
    assert fair[DECK_ORDER].tested and not fair[DECK_ORDER].flagged
    assert 0 < fair[DECK_ORDER].detectable < rigged[DECK_ORDER].observed[0] - 13


def test_a_small_seed_space_repeats_whole_deals_over_the_whole_archive(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every deal from one of 2^16 seeds, 60 matches (600 deals: 2.7 deals dealt twice on
    average): every deal is kept (no sample), the repeats flag it, and the seed space the
    test could detect is larger than the one used."""
    monkeypatch.setattr(dealsim, "SEEDS", 1 << 16)
    rigged = {r.test: r for r in fairness_results(
        synthetic_archive(random.Random(7), 60, 10, "seed space", 1.0, recorded_share=1.0),
        0.05)["recorded"]}
    r = rigged[REPEATED_DEALS]
    assert r.n == 600 and r.flagged and r.family == "shuffle"
    assert r.detectable is not None and r.detectable > 1 << 16
    fair = {r.test: r for r in fairness_results(
        synthetic_archive(random.Random(7), 40, 10, None, 1.0, recorded_share=1.0),
        0.05)["recorded"]}
    assert fair[REPEATED_DEALS].tested and not fair[REPEATED_DEALS].flagged


def test_computer_seats_favoured_on_a_match_s_first_deal_only() -> None:
    """The computer seats get the better of two deals on each match's first deal only
    (one deal in ten): the first deals' own paired test, in the match-state family,
    flags it at 150 matches; over all deals the paired test sees a tenth of it."""
    results = {r.test: r for r in fairness_results(
        synthetic_archive(random.Random(8), 150, 10, "first deal", 1.0, recorded_share=1.0),
        0.05)["recorded"]}
    first = results[("high-card points", "first deal", "computer vs human")]
    assert first.flagged and first.family == "match state"
    assert first.detectable is not None and first.detectable < first.observed[0]
    assert not results[("high-card points", "computer vs human", "per hand")].flagged
