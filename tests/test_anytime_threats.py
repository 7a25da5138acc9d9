"""The e-processes of the tests that read every deal (state-adaptive dealing, drift, serial
balance, partners' fit, near-repeats): each factor's mean under a fair shuffle is at most
1, by enumeration of the exact distributions, and each grows on the rigging it is for."""

from __future__ import annotations

import math
import random
from collections import Counter

import numpy as np
import pytest
from scipy import stats

from tarneeb.audit.fairness import DrawSum, Tally
from tarneeb.audit.fairness.anytime import Evidence
from tarneeb.audit.fairness.anytime.near import NearIndex, advance_near, near_factor
from tarneeb.audit.fairness.anytime.threats import (
    BALANCE_STEPS,
    DRIFT_STEPS,
    STEPS,
    _seats_ref,
    advance_balance,
    advance_cells,
    advance_drift,
    advance_pairing,
)
from tarneeb.audit.fairness.nearrepeat import HANDS, SHARED
from tarneeb.audit.fairness.state import FIRST
from tarneeb.testing.dealsim import synthetic_match

HAND = DrawSum(((4, 4), (3, 4), (2, 4), (1, 4), (0, 36)), 13)  # one hand's points
NAMES = ("A", "B", "C", "D")


def row(deals: list[tuple[int, int, int, int, int]], computer: int = -1,
        names: tuple[str, ...] = NAMES) -> tuple[object, ...]:
    return (0, -1, names, computer, bytes(x for d in deals for x in d))


def mean_factor(run: object, ref: DrawSum) -> list[float]:
    """Per bet, the mean over ``ref``'s exact distribution of the factor one observation
    gives: ``run(total)`` returns the bets' log-wealths after the observation ``total``."""
    out = None
    for total, p in ref.pmf().items():
        bets = run(total)  # type: ignore[operator]
        terms = [p * math.exp(b) for b in bets]
        out = terms if out is None else [a + b for a, b in zip(out, terms, strict=True)]
    assert out is not None
    return out


@pytest.mark.parametrize("k", [1, 2, 3])
def test_a_state_cells_bet_has_mean_one_for_k_seats(k: int) -> None:
    """A deal in a cell of ``k`` seats (the computer seats: seat 1; seats 1+3; the human
    seats: 2, 3, 4), its points summed over the exact distribution of k hands'."""
    computer = 0b0001  # seat 1 a computer seat, seats 2 to 4 human

    def run(total: int) -> list[float]:
        values = {1: (total, 0, 0, 0), 2: (total, 0, 0, 0), 3: (0, total, 0, 0)}[k]
        totals: dict[object, list[object]] = {}
        advance_cells(totals, [], {HAND: [row([(*values, FIRST)], computer)]})
        cell = {1: "computer seats", 2: "seats 1+3", 3: "human seats"}[k]
        return [float(x) for x in totals[("cell", cell, "first deal")]]  # type: ignore[arg-type]

    means = mean_factor(run, _seats_ref(HAND, k))
    assert len(means) == 2 * len(STEPS)
    assert means == pytest.approx([1.0] * len(means), abs=1e-12)


@pytest.mark.parametrize("direction", [-1.0, -0.3, 0.05, 0.6, 1.0, 3.0])
@pytest.mark.parametrize("series", ["seats 1+3", "computer seats"])
def test_a_drift_bet_has_mean_at_most_one_whatever_the_learnt_direction(
        direction: float, series: str) -> None:
    for computer, k in ((0b0001, 1), (0b0101, 2), (0b0111, 3)):
        k = 2 if series == "seats 1+3" else k

        def run(total: int, computer: int = computer) -> list[float]:
            totals: dict[object, list[object]] = {("direction",): [direction, direction]}
            bets: list[float] = []
            # seat 1 is in seats 1+3 and among the computer seats
            advance_drift(totals, bets,
                          {(HAND, series): [row([(total, 0, 0, 0, 0)], computer)]})
            return bets

        means = mean_factor(run, _seats_ref(HAND, k))
        assert len(means) == 2 * len(DRIFT_STEPS)
        assert max(means) <= 1 + 1e-12 and min(means) > 0.5


@pytest.mark.parametrize("luck", [(0.0, 0.0, 0.0, 0.0), (2.0, -1.0, 0.5, 0.0),
                                  (-3.0, -3.0, -3.0, 2.0), (0.1, 4.0, 0.1, -4.0)])
def test_a_serial_balance_bet_has_mean_at_most_one(luck: tuple[float, ...]) -> None:
    def run(total: int) -> list[float]:
        totals: dict[object, list[object]] = {("luck", n): [x] for n, x in zip(NAMES, luck,
                                                                             strict=True)}
        bets: list[float] = []
        advance_balance(totals, bets, {HAND: [row([(total, 0, 0, 0, 0)])]})
        return bets

    means = mean_factor(run, _seats_ref(HAND, 2))
    assert len(means) == 2 * len(BALANCE_STEPS)
    assert max(means) <= 1 + 1e-12
    if any(luck):  # it bets
        assert min(means) < 1 - 1e-6


def _value(a: int, b: int, c: int) -> bytes:
    return (a | b << 52 | c << 104).to_bytes(20, "big")


def test_a_pairing_bet_has_mean_one_over_the_three_pairings() -> None:
    """Given a deal's four hands, each of the three pairings has chance 1/3: the mean of
    the factor over them is exactly 1, deal by deal."""
    rng = random.Random(3)  # NOT secret: a test
    full = (1 << 52) - 1
    for _ in range(20):
        deck = list(range(52))
        rng.shuffle(deck)
        a, b, c, d = (sum(1 << x for x in deck[13 * i:13 * i + 13]) for i in range(4))
        assert a | b | c | d == full
        for what in ("suit", "honour"):
            per = []
            # the pairings {ac|bd}, {ab|cd}, {ad|bc}, by the hands dealt first
            for first, second, third in ((a, b, c), (a, c, b), (a, b, d)):
                bets: list[float] = []
                advance_pairing({}, bets, {what: [_value(first, second, third)]})
                per.append(bets)
            means = [sum(math.exp(p[j]) for p in per) / 3 for j in range(len(per[0]))]
            assert means == pytest.approx([1.0] * len(means), abs=1e-12)


def test_the_near_count_is_every_pair_sharing_12_or_13_cards() -> None:
    rng = np.random.default_rng(4)  # NOT secret: a test
    base = [sum(1 << int(x) for x in rng.permutation(52)[:13]) for _ in range(30)]
    earlier = list(base)
    for h in base[:10]:  # near copies: one card swapped, or the same hand
        held = [c for c in range(52) if h >> c & 1]
        free = [c for c in range(52) if not h >> c & 1]
        earlier.append(h ^ 1 << held[int(rng.integers(13))] ^ 1 << free[int(rng.integers(39))])
    earlier.append(base[0])
    index = NearIndex()
    index.add(np.array(earlier[:25], dtype=np.uint64))
    index.add(np.array(earlier[25:], dtype=np.uint64))
    probe = [*base[:12], base[29] ^ 0b11]  # the last: two cards moved (or not near at all)
    brute = sum((p & e).bit_count() >= 12 for p in probe for e in earlier)
    assert index.count(np.array(probe, dtype=np.uint64)) == brute > 20


def test_the_near_count_is_exact_when_the_index_grows_past_its_bit_map() -> None:
    rng = np.random.default_rng(5)  # NOT secret: a test
    order = np.argsort(rng.random((40_200, 52)), axis=1)[:, :13]
    hands = (np.uint64(1) << order.astype(np.uint64)).sum(axis=1, dtype=np.uint64)
    index = NearIndex()
    for part in np.array_split(hands[:40_000], 30):  # past the 2^20 bits of the map at first
        index.add(part)
    assert index.log_bits > 20 and len(index) == 40_000
    # the first 50 with their lowest card swapped for the highest they lack: 12 shared
    moved = np.array([h ^ (h & -h) ^ 1 << max(c for c in range(52) if not h >> c & 1)
                      for h in map(int, hands[:50])], dtype=np.uint64)
    probe = np.concatenate((hands[:20], hands[40_000:], moved))
    brute = int((np.bitwise_count(probe[:, None] & hands[None, :40_000]) >= 12).sum())
    assert index.count(probe) == brute >= 70


def test_the_index_finds_each_probe_as_often_as_it_was_seen_in_the_probes_order() -> None:
    """NearIndex.found, per probe in the order given (the batch counts a match's pairs
    from it), the hands seen equal to it: sorted hands and the tail, with repeats."""
    rng = np.random.default_rng(6)  # NOT secret: a test
    order = np.argsort(rng.random((9_000, 52)), axis=1)[:, :13]
    hands = (np.uint64(1) << order.astype(np.uint64)).sum(axis=1, dtype=np.uint64)
    index = NearIndex()
    index.add(hands[:6_000])  # merged: sorted hands and their counts
    index.add(hands[:100])  # seen twice, in the tail
    probe = rng.permutation(np.concatenate((hands[:200], hands[5_900:6_100])))
    seen = Counter([*hands[:6_000].tolist(), *hands[:100].tolist()])
    assert index.found(probe).tolist() == [seen[p] for p in probe.tolist()]
    assert sorted(set(index.found(probe).tolist())) == [0, 1, 2]


def test_the_near_bet_has_mean_one_at_its_exact_chance() -> None:
    """Each pair's chance is the hypergeometric chance of 12 or 13 shared cards, and the
    factor is ``1 + λ (N − μ)`` with ``λμ ≤ 1``: nonnegative, affine in N, mean 1."""
    chance = stats.hypergeom(52, 13, 13).sf(11)
    assert pytest.approx(chance, rel=1e-12) == SHARED / HANDS
    for earlier, matches, hits in ((0, 0, 0), (400, 10, 0), (40_000, 1000, 3),
                                   (4_000_000, 100_000, 90_000), (10**9, 10**6, 10)):
        f = [math.exp(near_factor(n, 40, 10, earlier, matches, hits)[0]) for n in range(4)]
        mu = near_factor(0, 40, 10, earlier, matches, hits)[1]
        assert mu == pytest.approx((40 * earlier + 40 * 39 // 2 - 60) * chance)
        assert min(f) >= 0 and f[2] - f[1] == pytest.approx(f[1] - f[0], rel=1e-9, abs=1e-12)
        assert (1 - mu) * f[0] + mu * f[1] == pytest.approx(1, abs=1e-9)


def test_a_deal_dealt_again_with_a_card_swapped_is_near_evidence() -> None:
    index, bets = NearIndex(), list[float]()
    rng = random.Random(9)  # NOT secret: a test
    deck = list(range(52))
    decks = []
    for _ in range(3):
        rng.shuffle(deck)
        decks.append(list(deck))
    values = [_value(*(sum(1 << x for x in d[13 * i:13 * i + 13]) for i in range(3)))
              for d in decks]
    e0 = advance_near({}, bets, {"deals": values[:2]}, index)
    again = list(decks[0])
    again[0], again[13] = again[13], again[0]  # a card of hand 1 for one of hand 2
    moved = _value(*(sum(1 << x for x in again[13 * i:13 * i + 13]) for i in range(3)))
    e1 = advance_near({}, bets, {"deals": [values[2], moved]}, index)
    assert e0 < 0.0 and e1 > math.log(100) and bets[:2] == [2, 1]


def grown(cheat: str | None, matches: int, seed: int) -> Evidence:
    rng = random.Random(seed)  # NOT secret: a test
    e = Evidence()
    past: list[list[int]] = []
    luck: list[int] = []
    players: dict[str, int] = {}
    for leaf in range(matches):
        share = Tally()
        synthetic_match(share, rng, "classic", 10, cheat, 0.5, past, leaf, luck,
                        leaf / matches, players)
        e.advance(share, 0.05)
    return e


NEW = ("state", "drift", "balance", "pairing", "near")


def test_a_fair_archive_gives_the_new_bets_no_evidence() -> None:
    e = grown(None, 40, 1)
    new = {k: t.log_e for k, t in e.tests.items() if k[0] in NEW}
    assert {k[0] for k in new} == set(NEW) and len(new) == 7
    assert max(new.values()) < math.log(20)


@pytest.mark.parametrize(("cheat", "matches", "test"), [
    ("match state", 60, ("state", "high-card points", "match state",
                         "players, seat labels and teams")),
    ("partners fit", 30, ("pairing", "suit fit", "partners", "suit lengths")),
    ("player balance", 40, ("balance", "high-card points", "successive matches",
                            "each player's side")),
    ("near repeat", 3, ("near", "near-repeated hands", "all", "12 or 13 of 13 cards")),
])
def test_the_rigging_each_bet_is_for_makes_its_evidence_grow(
        cheat: str, matches: int, test: tuple[str, ...]) -> None:
    e = grown(cheat, matches, 2)
    assert e.tests[test].log_e > math.log(20)  # the test alone at 1/alpha


def test_the_weights_add_up_to_at_most_one_with_halves_or_as_evidence_made_before() -> None:
    """Each family's half for its aimed tests and half for the others (a new evidence),
    or one sequence a family (an evidence of version 1 goes on so: its weights were
    given that way)."""
    shares = []
    rng = random.Random(6)  # NOT secret: a test
    for leaf in range(3):
        share = Tally()
        synthetic_match(share, rng, "classic", 6, None, 0.5, [], leaf, [])
        shares.append(share)
    new = Evidence()
    old = Evidence()
    old.halves = False
    old.advance(shares[0], 0.05)
    old = Evidence.from_bytes(old.to_bytes())
    assert not old.halves and Evidence.from_bytes(new.to_bytes()).halves
    for e in (new, old):
        for share in shares[1:]:
            e.advance(share, 0.05)
        assert sum(t.weight for t in e.tests.values()) <= 1
    state = new.tests[("state", "high-card points", "match state",
                       "players, seat labels and teams")]
    # the first (and only) test aimed at the match state: half of its family's half
    assert state.weight == pytest.approx(1 / 5 / 2 / 2)
    assert old.tests[state_key(old)].weight < 1 / 50


def state_key(e: Evidence) -> tuple[str, ...]:
    return next(k for k in e.tests if k[0] == "state")


def _placed_by_item(bets: list[float], seen: list[int], sizes: tuple[int, ...], width: int,
                    deals: int, triples: list[int]) -> None:
    """The card-position step a group and an item at a time (as it was first written)."""
    import operator

    from tarneeb.audit.fairness.anytime.evidence import PLACE_STEPS, PRIOR
    from tarneeb.audit.fairness.anytime.threats import _logmean
    share = [g / sum(sizes) for g in sizes]
    seen_of = [sum(seen[1 + g * width + i] for g in range(len(sizes))) for i in range(width)]
    got = [[0] * width for _ in sizes]
    for g, i, k in zip(*(iter(triples),) * 3, strict=True):
        got[g][i] += k
    for g, size in enumerate(sizes):
        prior, part = PRIOR * share[g], share[g]
        w = [math.log((c + prior) / (o + PRIOR) / part) for c, o in
             zip(seen[1 + g * width:1 + (g + 1) * width], seen_of, strict=True)]
        mean = sum(w) / width
        total = sum(map(operator.mul, w, got[g]))
        for s, lam in enumerate(PLACE_STEPS):
            psi = _logmean([lam * (x - mean) for x in w])
            bets[g * len(PLACE_STEPS) + s] += (lam * (total - deals * size * mean)
                                               - deals * size * psi)
    seen[0] += deals
    for g, i, k in zip(*(iter(triples),) * 3, strict=True):
        seen[1 + g * width + i] += k


def test_the_card_positions_step_is_the_one_item_at_a_time_step_to_the_last_bit() -> None:
    """:func:`placed_step` (every group's scores at once, in numpy) against the step written
    a group and an item at a time, over matches of generated counts (items dealt twice in
    a match, groups of unequal sizes): the same bets and counts, bit for bit."""
    from tarneeb.audit.fairness.anytime.evidence import PLACE_STEPS, PRIOR
    from tarneeb.audit.fairness.anytime.threats import placed_step
    rng = random.Random(3)  # NOT secret: a test
    for sizes, width in (((13, 13, 13, 13), 52), ((1, 3), 7)):
        bets, seen = [0.0] * (len(sizes) * len(PLACE_STEPS)), [0] * (1 + len(sizes) * width)
        bets2, seen2 = list(bets), list(seen)
        for _ in range(30):
            deals = rng.randint(1, 5)
            triples = [x for _ in range(rng.randint(0, 3 * width))
                       for x in (rng.randrange(len(sizes)), rng.randrange(width),
                                 rng.randint(1, 3))]
            share = [g / sum(sizes) for g in sizes]
            placed_step(bets, seen, sizes, width, share, deals, triples, PRIOR, PLACE_STEPS)
            _placed_by_item(bets2, seen2, sizes, width, deals, triples)
            assert bets == bets2 and seen == seen2
        assert seen[0] > 30 and any(b != 0 for b in bets)


def test_the_variance_proxy_from_the_grid_points_near_its_top_is_the_whole_grid_s() -> None:
    """:func:`variance_proxy` asks :func:`_psis` only at the grid points numpy's estimate
    puts within a millionth of the largest: the largest over the whole grid, bit for
    bit, for references of every shape (skewed, two-valued, wide, many draws)."""
    from tarneeb.audit.fairness.anytime.threats import _dist, _moments, _psis, variance_proxy
    for ref in (DrawSum(((4, 4), (3, 4), (2, 4), (1, 4), (0, 36)), 26, 2), HAND,
                DrawSum(((1, 13), (0, 39)), 13), DrawSum(((1, 1), (0, 51)), 13),
                DrawSum(((10, 4), (0, 48)), 39, 3), DrawSum(((5, 2), (1, 10), (0, 40)), 6)):
        dist, m = _dist(ref), _moments(ref)
        assert dist is not None and m is not None
        mu, sd, _ = m
        grid = [k / 16 / sd for k in range(-16 * 20, 16 * 20 + 1) if k]
        whole = max(2 * psi / (g * g) for g, psi in zip(grid, _psis(dist, mu, grid),
                                                         strict=True))
        reach = max(abs(v - mu) for v, _ in dist)
        assert variance_proxy(ref) == max(whole * 1.01, sd * sd, 2 * reach * sd / 20)


def test_the_index_of_hands_seen_counts_as_numpy_unique_whatever_the_adds() -> None:
    """NearIndex merges its hands sorted in place, its counts one number read as many
    when few hands come twice (their other copies in its tail): what it finds is
    numpy.unique's counts of every hand added, with copies many, few or none, in any
    number of adds, empty ones included, arrays given up (taken as they are) or not."""
    rng = np.random.default_rng(5)  # NOT secret: the test's hands
    for _ in range(60):
        index, every = NearIndex(), []
        for _ in range(int(rng.integers(1, 5))):
            top = [10, 10_000, 1 << 40][int(rng.integers(3))]  # copies: many, some, none
            hands = rng.integers(0, int(rng.integers(1, top + 1)),
                                 size=int(rng.integers(0, 6000))).astype(np.uint64)
            if top > 10_000 and len(hands):  # a few hands twice
                hands[:3] = hands[-3:]
            index.add(hands.copy(), given_up=bool(rng.integers(2)))  # (sorted in place)
            every.append(hands)
        values, counts = np.unique(np.concatenate(every), return_counts=True)
        assert len(index) == sum(map(len, every))
        assert index.found(values).tolist() == counts.tolist()
        assert index.found(values + np.uint64(1 << 41)).tolist() == [0] * len(values)
        assert list(np.unique(index.hands)) == list(index.hands)
