"""The tests that read every deal (repeated deals, near-repeated hands, partners' fit,
the match-state cells) keep the archive's deals at 20 bytes each in numpy arrays and do
the rest of their work in pieces of bounded size: the same results in one piece as in
many, and memory that does not grow with the archive beyond the deals themselves."""

from __future__ import annotations

import tracemalloc
from collections import Counter

import numpy as np
import pytest

from tarneeb.audit.fairness import fit, nearrepeat, state
from tarneeb.audit.fairness.nearrepeat import Deals, unpack_hands
from tarneeb.replay.archive.battery import repeats
from tarneeb.replay.archive.battery.measures import _HCP_HAND, HCP
from tarneeb.testing.dealsim import synthetic_archive

_WORDS = np.dtype([("top", ">u4"), ("mid", ">u8"), ("lo", ">u8")])


def _hands(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` uniform deals as four 52-bit hands each (deals x 4)."""
    seat = np.argsort(rng.random((n, 52)), axis=1) % 4
    bits = np.uint64(1) << np.arange(52, dtype=np.uint64)
    return np.stack([np.where(seat == h, bits, np.uint64(0)).sum(axis=1, dtype=np.uint64)
                     for h in range(4)], axis=1)


def _packed(hands: np.ndarray) -> np.ndarray:
    """Deals as the repeated-deals tally's 20-byte values (the first three hands)."""
    a, b, c = hands[:, 0], hands[:, 1], hands[:, 2]
    w = np.empty(len(hands), dtype=_WORDS)
    w["lo"] = a | b << np.uint64(52)
    w["mid"] = b >> np.uint64(12) | c << np.uint64(40)
    w["top"] = c >> np.uint64(24)
    return w.view("V20")


def test_deals_unpack_to_their_hands() -> None:
    hands = _hands(np.random.default_rng(0), 50)
    assert (Deals([_packed(hands)]).sorted_hands() == hands[np.argsort(_packed(hands))]).all()
    by_value = {v.tobytes(): 1 for v in _packed(hands)}
    assert (nearrepeat.hands_of(by_value) == Deals.of(by_value).sorted_hands()).all()


def test_near_repeats_are_counted_alike_in_one_pass_and_in_many(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """300 uniform deals, one dealt twice (its four hands equal) and one again with a card
    of hand 0 swapped for one of hand 1 (two hands equal, two sharing 12 cards): 8 pairs
    sharing 12 or more, 6 of them all 13, whether the keys are sorted at once or in many
    passes over small blocks of deals."""
    hands = _hands(np.random.default_rng(1), 300)
    swapped = hands[7].copy()
    x, y = int(swapped[0]) & -int(swapped[0]), int(swapped[1]) & -int(swapped[1])
    swapped[0], swapped[1] = int(swapped[0]) ^ x | y, int(swapped[1]) ^ y | x
    values = _packed(np.vstack([hands, hands[3:4], swapped[None]]))
    whole = nearrepeat.near_repeats_test(Deals([values]))
    assert whole.observed == [8.0] and "6 of them all 13" in whole.categories[0]
    assert whole.p_value is not None and whole.p_value < 1e-12
    monkeypatch.setattr(nearrepeat, "KEYS_AT_ONCE", 500)  # 32 passes
    monkeypatch.setattr(nearrepeat, "BLOCK", 7)
    parts = nearrepeat.near_repeats_test(Deals([values[:150], values[150:]]))
    assert parts.to_json() == whole.to_json()


def test_equal_pairs_are_counted_exactly_through_colliding_hashes() -> None:
    """The near-repeat count's pairs of equal keys, found through 32-bit hashes: distinct
    keys made to share their hash (``v`` and ``v + 1/MIX``) are not counted, equal keys
    are, in runs of every length, as sorting the whole keys counts them."""
    rng = np.random.default_rng(5)
    v = rng.integers(0, 1 << 52, 4000, dtype=np.uint64)
    inverse = np.uint64(pow(nearrepeat._MIX, -1, 1 << 64))
    twins = v[:1500] + inverse  # the same 32-bit hash as v[:1500], other values
    h = (np.concatenate([v[:1500], twins]) * np.uint64(nearrepeat._MIX)) >> np.uint64(32)
    assert (h[:1500] == h[1500:]).all()
    values = np.concatenate([v, twins, v[:40], v[:10], v[3000:3300]])
    rng.shuffle(values)
    pairs = 30 + 10 * 3 + 300  # v[10:40] twice, v[:10] three times, v[3000:3300] twice
    assert nearrepeat.equal_pairs(values) == nearrepeat.sorted_pairs(values.copy()) == pairs
    assert nearrepeat.equal_pairs(np.concatenate([v, twins])) == 0
    assert nearrepeat.equal_pairs(v[:1]) == 0


def test_partners_fit_by_blocks_is_the_whole_arrays_test(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the Monte Carlo's size the fit is read a block of deals at a time, into whole-
    number sums: the same statistic and Bernstein p-value as the test of the whole arrays
    (and as its float formula, to rounding); within it, the same Monte Carlo p-value."""
    hands = _hands(np.random.default_rng(2), 400)
    deals = Deals([_packed(hands)])
    values = fit.pairing_values(deals.sorted_hands())
    monkeypatch.setattr(nearrepeat, "BLOCK", 37)
    monkeypatch.setattr(fit, "MC_UP_TO", 100)
    streamed = fit.fit_tests_by_block(len(deals), deals.hands, deals.sorted_hands)
    for r, v in zip(streamed, values, strict=True):
        assert r.to_json() == fit.pairing_test(r.test, v).to_json()
        assert r.p_method != "Monte Carlo"
        dev = v - v.mean(axis=1)[:, None]
        assert r.p_value == pytest.approx(fit.bernstein_p(
            dev[:, 0].sum(), (dev ** 2).mean(axis=1).sum(), np.abs(dev).max()), rel=1e-12)
    monkeypatch.setattr(fit, "MC_UP_TO", 400)
    small = fit.fit_tests_by_block(len(deals), deals.hands, deals.sorted_hands)
    assert [r.p_method for r in small] == ["Monte Carlo"] * 2
    assert [r.to_json() for r in small] == [fit.pairing_test(r.test, v).to_json()
                                            for r, v in zip(small, values, strict=True)]


def test_repeated_deals_are_kept_at_20_bytes_and_paired_in_passes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(3)
    pool = [bytes(rng.integers(0, 256, 20, dtype=np.uint8)) for _ in range(400)]
    drawn = [pool[i] for i in rng.integers(0, len(pool), 600)]
    store = repeats.Repeats()
    for v in drawn:
        store.add(("repeated deals",), 1e28, 1, v, 1)
    expected = sum(c * (c - 1) // 2 for c in Counter(drawn).values())
    total = store.totals()[("repeated deals",)]
    assert total[2:4] == (600, expected) and expected > 0
    assert store.nbytes() == 20 * 600 and len(total[4]()) == 600
    monkeypatch.setattr(repeats, "AT_ONCE", 50)  # 12 passes
    assert store.totals()[("repeated deals",)][2:4] == (600, expected)


def test_deals_on_disk_are_read_as_in_memory(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past ``SPILL`` values a repeat test's deals go to a temporary file, read back a
    block at a time: the same pairs, near-repeats and partners' fit as the deals held in
    memory, in the same order."""
    monkeypatch.setattr(fit, "MC_UP_TO", 100)  # the fit by blocks, as a large archive's
    hands = _hands(np.random.default_rng(5), 700)
    values = _packed(np.vstack([hands, hands[:40]]))  # 40 deals dealt twice
    results = []
    for spill, batch in ((1 << 16, 1 << 12), (100, 30)):
        monkeypatch.setattr(repeats, "SPILL", spill)
        monkeypatch.setattr(repeats, "BATCH", batch)
        monkeypatch.setattr(nearrepeat, "BLOCK", 64)
        store = repeats.Repeats()
        for v in values:
            store.add(("repeated deals",), 1e28, 1, v.tobytes(), 1)
        total = store.totals()[("repeated deals",)]
        held = store.tests[(("repeated deals",), 1e28, 1)]
        assert (held.spill.items > 0) == (spill == 100)
        deals = total[4]()
        assert (np.concatenate(list(deals.hands())) == unpack_hands(values)).all()
        results.append((total[2:4], [r.to_json() for r in nearrepeat.deal_tests(deals)]))
    assert results[0] == results[1] and results[0][0] == (740, 40)


def _peak(deals: Deals) -> int:
    tracemalloc.start()
    try:
        nearrepeat.deal_tests(deals)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_deal_tests_memory_does_not_grow_with_the_deals(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the Monte Carlo's size, four times the deals take about the same memory:
    the keys and blocks are bounded, and nothing is made per deal."""
    monkeypatch.setattr(nearrepeat, "KEYS_AT_ONCE", 1 << 16)
    monkeypatch.setattr(nearrepeat, "BLOCK", 1 << 11)
    monkeypatch.setattr(fit, "MC_UP_TO", 1000)
    values = _packed(_hands(np.random.default_rng(4), 24_000))
    _peak(Deals([values[:100]]))  # the imports, before measuring
    small, large = _peak(Deals([values[:6000]])), _peak(Deals([values]))
    assert large < 1.3 * small and large < 3_000_000  # the deals themselves are 480 KB


def test_the_state_test_is_the_same_a_few_deals_at_a_time(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The cells' members are made a block of deals at a time, their sums and covariance
    added up in whole numbers: the same result whatever the block."""
    import random
    tally = synthetic_archive(random.Random(6), 80, 10, "match state", 0.3,
                              recorded_share=1.0)["recorded"]
    rows = {k[2:]: n for k, n in tally.counts.items() if k[0] == "rows"}
    d = state.decode(rows)
    test = (HCP, "match state", "players, seat labels and teams")
    monkeypatch.setattr(state, "DEALS_AT_ONCE", 1 << 20)
    whole = state.state_test(test, _HCP_HAND, d)
    monkeypatch.setattr(state, "DEALS_AT_ONCE", 37)
    assert state.state_test(test, _HCP_HAND, d).to_json() == whole.to_json()
    assert whole.df is not None and whole.df > 10 and whole.p_value is not None


def test_the_state_test_counts_deals_alike_once_with_the_same_result() -> None:
    """Deals alike (the same state, computer seats and players) are counted once, times
    their number: the cells, sums and covariance are those made deal by deal."""
    import random
    tally = synthetic_archive(random.Random(7), 80, 10, "match state", 0.3,
                              recorded_share=1.0)["recorded"]
    d = state.decode({k[2:]: n for k, n in tally.counts.items() if k[0] == "rows"})
    test = (HCP, "match state", "players, seat labels and teams")
    got = state.state_test(test, _HCP_HAND, d)
    names, cell_of, deal_of, mask_of = state.cells(d)
    weight = np.concatenate([w for _, _, w in state._groups(d, state._players(d)[1])])
    assert len(weight) < len(d["match"]) / 1.5  # deals alike: the grouping does something
    held = sum(np.where(mask_of >> s & 1, d["values"][deal_of, s], 0) for s in range(4))
    sums = np.bincount(cell_of, held, len(names))
    hands = np.bincount(cell_of, np.bitwise_count(mask_of.astype(np.uint8)), len(names))
    cov = state._covariance(_HCP_HAND, len(names), cell_of, deal_of, mask_of)
    z = (sums - hands * _HCP_HAND.mean) / np.sqrt(np.diag(cov))
    worst = int(np.argmax(np.abs(z)))
    assert got.df == len(names) and got.categories == [names[worst]]
    assert got.statistic == abs(z[worst])  # to the last bit
    assert got.observed == [sums[worst] / hands[worst]]
    assert got.std_error == float(np.median(np.sqrt(np.diag(cov)) / hands))
