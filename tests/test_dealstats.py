"""Deals as measures: the whole family of fairness tests on uniformly shuffled deals is
flagged at no more than the error rate it states, and a bias for one label is found."""

from __future__ import annotations

import random
from types import SimpleNamespace

from tarneeb.audit.fairness import Tally
from tarneeb.replay.archive.battery.measures import hcp, is_deal, tally_match
from tarneeb.replay.rules.cards import deal_hands
from tarneeb.replay.rules.ruleset import PRESETS


def _deals(rng: random.Random, n: int, favour: tuple[bool, ...] | None = None):
    """``n`` uniformly shuffled deals (or, with ``favour``, re-dealt once when the seats
    marked get fewer points than the others), dealers in turn from a random first."""
    first = rng.randrange(4)
    for k in range(n):
        dealer = (first + k) % 4
        deck = list(range(52))
        rng.shuffle(deck)
        hands = deal_hands(deck, dealer)
        if favour is not None:
            mine = sum(hcp(h) for h, f in zip(hands, favour, strict=True) if f)
            if mine < 10 * sum(favour):
                rng.shuffle(deck)
                hands = deal_hands(deck, dealer)
        yield SimpleNamespace(hands=hands, dealer=dealer, thirteenth=deck[51])


def _archive(seed: int, matches: int = 12, deals: int = 20,
             biased: bool = False) -> Tally:
    rng = random.Random(seed)
    tally = Tally()
    for m in range(matches):
        rules = PRESETS[("eram41", "qahwa41", "classic")[m % 3]]
        computer = (True, False, True, False) if m % 2 else (False, True, True, True)
        tally_match(tally, rules, computer, "k", _deals(rng, deals, computer if biased else None))
    return tally


def test_fair_archives_are_flagged_at_most_at_alpha() -> None:
    """60 fair archives of 240 deals, every test of each corrected together at 5 %:
    binomial(60, 0.05) exceeds 8 flagged archives with probability under 0.3 %."""
    flagged = 0
    for seed in range(60):
        results = _archive(seed).results(0.05, detectable=False)
        assert len(results) > 30
        flagged += any(r.flagged for r in results)
    assert flagged <= 8


def test_a_label_favoured_by_redealing_is_found() -> None:
    found = 0
    for seed in range(5):
        results = _archive(1000 + seed, biased=True).results(0.05, detectable=False)
        found += any(r.flagged and r.test[:2] == ("high-card points", "computer vs human")
                     for r in results)
    assert found == 5


def test_only_whole_deals_are_measured() -> None:
    good = next(_deals(random.Random(1), 1))
    assert is_deal(good.hands)
    assert not is_deal((0, 0, 0, 0))
    broken = (good.hands[0], good.hands[0], good.hands[2], good.hands[3])
    assert not is_deal(broken)
    t = Tally()
    assert tally_match(t, PRESETS["eram41"], (True,) * 4, None,
                       [SimpleNamespace(hands=broken, dealer=0, thirteenth=0), good]) == 1
