"""The trump honours' points: the measure that sees the trump ace steered to the computer
seats, or to one table seat, by a swap that keeps every other count (the points, aces,
kings, trumps and suit lengths of each hand). Before it, such an archive of 1,000
recorded matches was "no evidence of bias"."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from tarneeb.audit.fairness import Tally
from tarneeb.replay.archive.audit import bias_flagged, fairness_results
from tarneeb.replay.archive.battery.honours import HONOUR_POPS, honour_code, honour_points
from tarneeb.replay.archive.battery.measures import hcp, suit_lengths
from tarneeb.replay.rules.cards import deal_hands
from tarneeb.replay.rules.ruleset import PRESETS
from tarneeb.testing.dealsim import _trump_ace_to_computers, synthetic_archive

FIXED = [name for name, r in PRESETS.items() if r.trump in ("fixed", "revealed_mate")]


def test_the_swap_moves_the_trump_ace_and_nothing_any_other_measure_sees() -> None:
    rng = random.Random(5)  # NOT secret: a reproducible test
    moved = 0
    for _ in range(400):
        deck = list(range(52))
        rng.shuffle(deck)
        dealer, rules = rng.randrange(4), PRESETS[rng.choice(FIXED)]
        computer = tuple(rng.random() < 0.5 for _ in range(4))
        trump = rules.trump_for_deal(deck[51])
        assert trump is not None
        before, shown = deal_hands(deck, dealer), deck[51]
        _trump_ace_to_computers(deck, dealer, trump, computer)
        after = deal_hands(deck, dealer)
        assert deck[51] == shown  # the shown card stays put (it names the trump)
        for a, b in zip(before, after, strict=True):
            assert (hcp(a), suit_lengths(a)) == (hcp(b), suit_lengths(b))
        if before != after:
            moved += 1
            ace = 1 << (13 * trump + 12)
            assert not any(h & ace for h, c in zip(before, computer, strict=True) if c)
            assert any(h & ace for h, c in zip(after, computer, strict=True) if c)
    assert moved > 40


@pytest.mark.parametrize("code", range(1, 7))
def test_the_exact_reference_is_the_honours_of_a_uniform_deal(code: int) -> None:
    """The population each code names: the trump honours of 13 cards drawn from the deck
    less the shown card (where one is), by simulation against the exact mean and
    variance of the draws."""
    trump, rng = 2, random.Random(code)  # NOT secret
    shown = {1: None, 2: 13 * 0 + 12, 3: 13 * trump + 12, 4: 13 * trump + 11,
             5: 13 * trump + 10, 6: 13 * trump + 9}[code]
    rule = "fixed" if code == 1 else "revealed_mate" if code == 2 else "revealed"
    assert honour_code(rule, code > 1, trump, shown) == code
    pop = HONOUR_POPS[code]
    assert pop is not None
    cards = [c for c in range(52) if c != shown]
    assert sum(n for _, n in pop) == len(cards)
    values = Counter(honour_points(1 << c, trump) for c in cards)
    assert sorted(values.items()) == sorted(Counter(
        {v: n for v, n in pop}).items())  # the population is the 51 (52) cards' values
    draws = [honour_points(sum(1 << c for c in rng.sample(cards, 13)), trump)
             for _ in range(20_000)]
    n, big = 13, len(cards)
    mean = sum(v * k for v, k in pop) / big
    var = sum(v * v * k for v, k in pop) / big - mean ** 2
    exact_mean, exact_var = n * mean, n * var * (big - n) / (big - 1)
    got_mean = sum(draws) / len(draws)
    got_var = sum((d - got_mean) ** 2 for d in draws) / (len(draws) - 1)
    assert abs(got_mean - exact_mean) < 4 * (exact_var / len(draws)) ** 0.5
    assert abs(got_var / exact_var - 1) < 0.05


def test_the_trump_ace_to_the_computer_seats_is_flagged_by_the_honours_alone() -> None:
    """Recorded deals, the trump ace steered on every deal where a swap can do it: the
    archive is flagged, and only by tests of the trump honours (the swap hides it from
    every other measure)."""
    tallies = synthetic_archive(random.Random(33), 300, 10, "trump ace", 1.0,
                                recorded_share=1.0)
    results = fairness_results(tallies, 0.05, detectable=False)
    flagged = [r for rs in results.values() for r in rs
               if r.p_adjusted is not None and r.p_adjusted < 0.05]
    assert bias_flagged(results)
    assert ("trump honours", "computer vs human", "per hand") in {r.test for r in flagged}
    assert {r.test[0] for r in flagged} == {"trump honours"}


def test_a_fair_archive_gives_the_honours_tests_no_edge() -> None:
    """Fair deals: no honours test flagged in a few archives, and each has its tests (one
    per grouping: the seats, the table seats, the teams, computer against human, the
    first deal)."""
    tested: Counter[str] = Counter()
    for seed in range(3):
        tally = Tally()
        for t in synthetic_archive(random.Random(seed), 100, 10).values():
            tally.merge(t)
        results = fairness_results({"recorded": tally}, 0.05, detectable=False)
        for r in results["recorded"]:
            if r.test[0] == "trump honours" and r.p_value is not None:
                tested[r.test[1]] += 1
                assert r.p_adjusted is None or r.p_adjusted >= 0.05, r.test
    assert set(tested) == {"seat", "table seat", "team", "computer vs human", "first deal"}
