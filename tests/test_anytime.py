"""The anytime-valid evidence of ``audit --state``: e-processes with a mean of exactly 1 per
observation under a fair shuffle, kept as bytes between runs, that flag a rigged archive."""

from __future__ import annotations

import math
import random
from typing import Any

import msgpack
import numpy as np
import pytest

from tarneeb.audit.fairness import DrawEmpty, DrawSum, Tally
from tarneeb.audit.fairness.anytime.batch import advance_many
from tarneeb.audit.fairness.anytime.evidence import (
    COV_STEPS,
    STEPS,
    Evidence,
    _moments,
    _Test,
    fixed_sample_only,
    variance_proxy,
)
from tarneeb.audit.fairness.anytime.observe import gather, observations
from tarneeb.audit.fairness.anytime.threats import _logmean, _logmeans, _psi, _psis
from tarneeb.audit.fairness.codec import CodecError, pack_value, unpack_value
from tarneeb.audit.fairness.tally import draw_digest, draw_digests
from tarneeb.testing.dealsim import synthetic_match

HCP = DrawSum(((4, 4), (3, 4), (2, 4), (1, 4), (0, 36)), 13)
TEAM = DrawSum(((4, 4), (3, 4), (2, 4), (1, 4), (0, 36)), 26, 2)
TRUMPS = DrawSum(((1, 13), (0, 38)), 12)


@pytest.mark.parametrize("ref", [HCP, TEAM, TRUMPS, DrawEmpty((13, 13, 13, 13), 13)])
def test_each_bet_is_fair_under_the_exact_distribution(ref: DrawSum) -> None:
    """E exp(λ (x - μ) - ψ(λ)) = 1 for every bet: the wealth is a martingale."""
    m = _moments(ref)
    assert m is not None
    mu, sd, psis = m
    pmf = ref.pmf()
    assert mu == pytest.approx(sum(v * p for v, p in pmf.items()))
    for j, psi in enumerate(psis):
        lam = (1 if j < len(STEPS) else -1) * STEPS[j % len(STEPS)] / sd
        assert sum(p * math.exp(lam * (v - mu) - psi) for v, p in pmf.items()) == \
            pytest.approx(1, abs=1e-12)


def test_the_variance_proxy_bounds_every_bet() -> None:
    """ψ(λ) ≤ λ² s² / 2 for the covariate's bets, at every size and far beyond."""
    m = _moments(TEAM)
    assert m is not None
    mu, sd, _ = m
    proxy = variance_proxy(TEAM)
    dist = [(float(v), p) for v, p in TEAM.pmf().items() if p > 0]
    for lam in [c * x / sd for c in (*COV_STEPS, 1.0, 3.0, 30.0, 300.0) for x in (1, -1, 7)]:
        assert _psi(dist, mu, lam) <= lam * lam * proxy / 2 + 1e-12


@pytest.mark.parametrize("ref", [HCP, TEAM, TRUMPS])
def test_the_bets_constants_made_at_once_are_those_made_one_at_a_time(ref: DrawSum) -> None:
    """ψ at many sizes at once (numpy for the products and the running sum) is ψ one
    size at a time to the last bit, as is the log-mean of many rows of bets at once (the
    e-values, the bytes and the crossing points depend on it)."""
    m = _moments(ref)
    assert m is not None
    mu, sd, _ = m
    dist = [(float(v), p) for v, p in ref.pmf().items() if p > 0]
    lams = [k / 16 / sd for k in range(-320, 321) if k] + [1e300, -1e300]
    assert _psis(dist, mu, lams) == [_psi(dist, mu, lam) for lam in lams]
    rng = random.Random(repr(ref))  # NOT secret: a test
    rows = [[rng.gauss(0, 10 ** rng.randint(0, 3)) for _ in range(14)] for _ in range(200)]
    assert _logmeans(np.array(rows)) == [_logmean(r) for r in rows]
    rows[7][3] = math.inf
    assert _logmeans(np.array(rows)) == [_logmean(r) for r in rows]
    for width in (1, 52):  # rows of one bet, of a card position's 52 items
        rows = [[rng.gauss(0, 10 ** rng.randint(0, 3)) for _ in range(width)]
                for _ in range(50)]
        assert _logmeans(np.array(rows)) == [_logmean(r) for r in rows]


def grown(cheat: str | None, matches: int, seed: int) -> Evidence:
    rng = random.Random(seed)  # NOT secret: a test
    e = Evidence()
    past: list[list[int]] = []
    luck: list[int] = []
    for leaf in range(matches):
        share = Tally()
        synthetic_match(share, rng, rng.choice(["eram41", "classic", "qahwa41"]), 10, cheat,
                        0.5, past, leaf, luck)
        e.advance(share, 0.05)
    return e


def test_rigging_by_match_state_is_flagged_and_a_fair_archive_is_not() -> None:
    fair = grown(None, 60, 1)
    assert fair.crossed_at(0.05) is None and fair.max_log_e < math.log(20)
    rigged = grown("match state", 60, 1)
    crossed = rigged.crossed_at(0.05)
    assert crossed is not None and crossed < 60
    assert rigged.strongest(1)[0][0][2] == "match state"


def fair_shares(seed: int, rules: str, matches: int) -> list[Tally]:
    """``matches`` fair matches' shares (8 deals each, one a season leaf) under ``rules``,
    drawn from ``seed`` (NOT secret: a test)."""
    rng = random.Random(seed)
    shares = []
    for leaf in range(matches):
        t = Tally()
        synthetic_match(t, rng, rules, 8, None, 0.5, [], leaf, [])
        shares.append(t)
    return shares


def test_evidence_goes_on_from_its_bytes_as_if_never_stopped() -> None:
    shares = fair_shares(7, "eram41", 12)
    once = Evidence()
    for t in shares:
        once.advance(t, 0.05)
    twice = Evidence()
    for t in shares[:5]:
        twice.advance(t, 0.05)
    twice = Evidence.from_bytes(twice.to_bytes())
    # the hands seen before are not in the bytes: the archive's state gives them back
    # (here with a deal never seen, which the near-repeats bet must leave out)
    twice.earlier = lambda: [k[4] for t in (*shares[:5], shares[6]) for k in t.counts
                             if k[0] == "repeat" and k[3] == 1]
    for t in shares[5:]:
        twice.advance(t, 0.05)
    assert twice.to_bytes() == once.to_bytes()


def test_the_deals_seen_are_left_to_the_state_and_checked_when_given_back() -> None:
    """With ``recoverable`` the repeated deals' digests are not in the bytes (but those of
    deals the caller will not give back): the evidence made again from the deals goes on
    as if never stopped; given other deals, it is damaged, never silently other."""
    shares = fair_shares(8, "classic", 10)

    def deals(ts: list[Tally]) -> list[bytes]:
        return list(dict.fromkeys(k[4] for t in ts for k in t.counts
                                  if k[0] == "repeat" and k[3] == 1))

    def seen(e: Evidence) -> dict[Any, list[int]]:
        return {(test, r): sorted(v) for test, t in e.tests.items() if t.kind == "repeat"
                for r, v in t.totals.items()}

    once = Evidence()
    for t in shares:
        once.advance(t, 0.05)
    part = Evidence()
    for t in shares[:6]:
        part.advance(t, 0.05)
    # the state keeps the deals of the matches seen, and of a match the evidence never saw
    kept = deals([*shares[:6], shares[8]])
    blob = part.to_bytes(kept)
    assert not any(draw_digest(d).to_bytes(8, "big") in blob for d in deals(shares[:6]))
    again = Evidence.from_bytes(blob)
    again.earlier = lambda: kept
    for t in shares[6:]:
        again.advance(t, 0.05)
    assert again.to_json(0.05) == once.to_json(0.05)
    assert seen(again) == seen(once)
    # the 6th match's log gone: its deals' digests are written, and the set made again
    # is the one seen
    fewer = deals([*shares[:5], shares[8]])
    blob = part.to_bytes(fewer)
    assert all(draw_digest(d).to_bytes(8, "big") in blob for d in deals(shares[5:6]))
    back = Evidence.from_bytes(blob)
    back.earlier = lambda: fewer
    back.recover()
    assert seen(back) == seen(part)
    wrong = Evidence.from_bytes(blob)
    wrong.earlier = lambda: fewer[1:]
    with pytest.raises(CodecError, match="not those the state keeps"):
        wrong.advance(shares[6], 0.05)


def test_the_digests_made_at_once_are_each_value_s_digest() -> None:
    """draw_digests (the deals given back, a block's values drawn) is draw_digest of each
    value, bytes (hashed by copies of one hasher) or whole numbers."""
    deals = [bytes(range(k, k + 20)) for k in range(30)] + [b"", b"\x00" * 20]
    assert draw_digests(deals) == [draw_digest(v) for v in deals]
    mixed = [*deals[:3], 0, -1, 2 ** 70, 635_013_559_600]
    assert draw_digests(mixed) == [draw_digest(v) for v in mixed]
    assert draw_digests([]) == []


def test_the_codec_builds_nothing_but_the_references_it_knows() -> None:
    assert unpack_value(pack_value(("fit", HCP, 3))) == ("fit", HCP, 3)
    evil = msgpack.packb(msgpack.ExtType(1, msgpack.packb(["Popen", "rm"])))
    with pytest.raises(CodecError, match="unknown reference 'Popen'"):
        unpack_value(evil)
    with pytest.raises(CodecError, match="unknown extension"):
        unpack_value(msgpack.packb(msgpack.ExtType(9, b"")))
    with pytest.raises(CodecError):
        Evidence.from_bytes(b"\xc1")


def test_the_deck_order_bets_are_supermartingales() -> None:
    """Bennett's bound: E exp(increment) <= 1 for each bet, on a bounded whole number whose
    distribution is known (a binomial, standing in for the deck-order residue)."""
    from dataclasses import dataclass

    @dataclass(frozen=True)
    class Binomial:
        n: int = 12
        p: float = 0.3

        @property
        def mean(self) -> float:
            return self.n * self.p

        @property
        def variance(self) -> float:
            return self.n * self.p * (1 - self.p)

        @property
        def most(self) -> int:
            return self.n

    ref = Binomial()
    pmf = {k: math.comb(ref.n, k) * ref.p ** k * (1 - ref.p) ** (ref.n - k)
           for k in range(ref.n + 1)}
    means = [0.0] * (2 * len(STEPS))
    for k, p in pmf.items():
        t = _Test("bounded", 1.0)
        t.advance({ref: [1, k]})
        for j, b in enumerate(t.bets):
            means[j] += p * math.exp(b)
    assert all(m <= 1 + 1e-12 for m in means) and max(means) > 0.9


def test_the_card_position_bets_are_supermartingales_whatever_was_learnt() -> None:
    """Four items in two groups of two: every placement equally likely, the bets learnt
    from skewed counts before, and each bet's factor has mean at most 1."""
    import itertools

    ref = ((2, 2), ("a", "b", "c", "d"))
    t = _Test("placed", 1.0)
    t.advance({ref: [30, 0, 0, 25, 1, 0, 5, 0, 1, 28, 1, 1, 2, 0, 2, 7, 1, 2, 23, 0, 3, 0,
                     1, 3, 30]})  # a and c were mostly in group 0
    before = list(t.bets)
    means = [0.0] * len(before)
    orders = list(itertools.permutations(range(4)))
    for order in orders:  # order[0] and order[1] are the items in group 0
        u = Evidence.from_bytes(_one(t)).tests[("t",)]
        u.advance({ref: [1, *(x for i in range(4) for x in (int(i not in order[:2]), i, 1))]})
        for j, (b, a) in enumerate(zip(u.bets, before, strict=True)):
            means[j] += math.exp(b - a) / len(orders)
    assert all(m <= 1 + 1e-12 for m in means) and min(means) < 0.999


def test_the_repeat_bet_has_mean_one_under_the_birthday_null() -> None:
    ref = (10.0, 1)
    t = _Test("repeat", 1.0)
    t.advance({ref: [0, 1, 1, 1, 2, 1]})  # three values seen
    before = t.bets[2]
    total = 0.0
    for a in range(10):
        for b in range(10):
            u = Evidence.from_bytes(_one(t)).tests[("t",)]
            u.advance({ref: [a, 2] if a == b else [a, 1, b, 1]})
            total += math.exp(u.bets[2] - before) / 100
    assert total == pytest.approx(1, abs=1e-12)


def _one(t: _Test) -> bytes:
    """Evidence holding the one test ``t`` (to copy it through its bytes)."""
    e = Evidence()
    e.tests[("t",)] = t
    return e.to_bytes()


def test_a_battery_test_without_an_e_process_is_named() -> None:
    e = Evidence()
    e.tests[("mean", "trumps", "seat", "dealer")] = _Test("sum", 0.1)
    e.tests[("mean", "voids", "team", "a|b", "0")] = _Test("sum", 0.1)  # a part of a joint
    battery = [("trumps", "seat", "dealer"), ("voids", "team", "a|b"),
               ("a new measure", "all", "all")]
    assert fixed_sample_only(battery, e) == [("a new measure", "all", "all")]


def test_a_tally_summed_in_another_order_gives_the_same_results() -> None:
    """An audit with a state sums the same observations in another order than a full audit:
    the fixed-sample results must agree to the last bit (--json is compared whole)."""
    from tarneeb.testing.dealsim import synthetic_archive

    tally = synthetic_archive(random.Random(4), 60, 6)["proven"]
    rng = random.Random(0)  # NOT secret: a test
    other = Tally()
    for mine, theirs in ((tally.counts, other.counts), (tally.sums, other.sums)):
        keys = list(mine)
        rng.shuffle(keys)
        for key in keys:
            theirs[key] = mine[key]
    def split(test: tuple[str, ...]) -> bool:  # tests whose references are several
        return test[1] in ("key", "label")

    assert [r.to_json() for r in other.results(detectable=False, select=split)] == \
        [r.to_json() for r in tally.results(detectable=False, select=split)]


def test_many_matches_at_once_give_the_one_match_figures_to_the_last_bit() -> None:
    """:func:`advance_many` (a test at a time over a run's new matches) against
    :meth:`Evidence.advance` once a match: the same combined e-value after every match and
    the same bytes, in blocks of any size, matches without observations among them, and
    from bytes read back (the near-repeats bet recalling the hands seen before)."""
    rng = random.Random(11)  # NOT secret: a test
    shares: list[Tally | None] = []
    past: list[list[int]] = []
    for leaf in range(16):
        t = Tally()
        synthetic_match(t, rng, rng.choice(["eram41", "classic"]), 8, "match state", 0.5,
                        past, leaf, [])
        shares.append(t)
    shares[5] = None
    # a match with a repeated value but no deal: the near-repeats bet not advanced by it
    first = shares[0]
    assert first is not None
    deal_key = next(k for k in first.counts if k[0] == "repeat")
    shares[3] = Tally()
    shares[3].counts[(*deal_key[:4], b"\x01" * 19)] = 1
    once = Evidence()
    curve = [once.advance(s, 0.05) for s in shares]
    for cuts in ([], [1, 2, 9], [5, 6, 7, 8]):
        many = Evidence()
        got: list[float] = []
        for a, b in zip([0, *cuts], [*cuts, len(shares)], strict=True):
            got += advance_many(many, shares[a:b], 0.05)
        assert got == curve and many.to_bytes() == once.to_bytes()
    for cut in (3, 4, 5):  # read back before the match without deals, or after it
        part = Evidence()
        advance_many(part, shares[:cut], 0.05)
        back = Evidence.from_bytes(part.to_bytes())
        # the deals the caller gives back: of every match (those of matches not seen yet
        # are left out: the near-repeats bet recalls them at its first match, not after)
        back.earlier = lambda: [k[4] for s in shares if s is not None for k in s.counts
                                if k[0] == "repeat" and k[3] == 1 and len(k[4]) == 20]
        assert advance_many(back, shares[cut:], 0.05) == curve[cut:]
        assert back.to_bytes() == once.to_bytes()


@pytest.mark.parametrize("cheat", ["near repeat", "partners fit"])
def test_the_deal_bets_at_once_give_the_one_match_figures_with_pairs_to_count(
        cheat: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The near-repeats and partners' fit bets advanced over many matches at once (the
    near pairs counted for a block of matches, blocks of one match or several) against a
    match at a time, on an archive where near pairs are many, with matches of up to 20
    deals and a deal dealt twice in one match."""
    from tarneeb.audit.fairness.anytime import near as near_module
    rng = random.Random(cheat)  # NOT secret: a test
    shares: list[Tally | None] = []
    past: list[list[int]] = []
    for leaf in range(24):
        t = Tally()
        synthetic_match(t, rng, "classic", rng.choice([2, 9, 20]), cheat, 0.7, past, leaf, [])
        shares.append(t)
    twice = shares[7]
    assert twice is not None
    deal_key = next(k for k in twice.counts if k[0] == "repeat" and k[3] == 1)
    twice.counts[deal_key] += 1
    once = Evidence()
    curve = [once.advance(s, 0.05) for s in shares]
    near = next(t for k, t in once.tests.items() if k[0] == "near")
    assert near.bets[1] > 0 or cheat != "near repeat"  # matches with near pairs
    for block in (1, 30, 4096):
        monkeypatch.setattr(near_module, "NEAR_BLOCK", block)
        many = Evidence()
        got = advance_many(many, shares[:10], 0.05) + advance_many(many, shares[10:], 0.05)
        assert got == curve and many.to_bytes() == once.to_bytes()


def test_the_figures_gathered_at_once_are_each_matchs_own() -> None:
    """:func:`gather` (every match's figures at once, per test) gives each match the
    figures :func:`observations` gives it alone, whatever the references' objects: a
    reference equal to another but made apart counts as it, a fit test's entries of one
    reference apart or together add up, a joint test's parts come from its sums whether
    their references are the tally's objects or equal ones (a part's sum missing: 0)."""
    pop = ((4, 4), (3, 4), (2, 4), (1, 4), (0, 36))
    hand, again, team = DrawSum(pop, 13), DrawSum(pop, 13), DrawSum(pop, 26, 2)
    assert hand == again and hand is not again
    fit, joint = ("hcp", "seat", "dealer"), ("hcp", "seat", "a|b|c")
    t = Tally()
    t.counts[("fit", fit, hand, 3)] = 2
    t.counts[("fit+mean", fit, hand, 5)] = 1
    t.counts[("fit", ("hcp", "seat", "other"), hand, 1)] = 1
    t.counts[("fit+mean", fit, again, 7)] = 2
    t.counts[("mean", fit, hand)] = 1
    t.sums[("mean", fit, hand)] = 10
    t.counts[("joint", joint, (hand, hand, team))] = 2
    t.sums[("joint", joint, (again, again, team), 0)] = 20
    t.sums[("joint", joint, (again, again, team), 2)] = 30  # part 1: 0, not kept
    t.counts[("joint", joint, (team, team, team))] = 1
    for i, v in enumerate((7, 8, 9)):
        t.sums[("joint", joint, (team, team, team), i)] = v
    got = observations(t)
    assert got[("fit", *fit)] == ("fit", {hand: [3, 2, 5, 1, 7, 2]})
    assert got[("mean", *fit)] == ("sum", {hand: [4, 29]})
    assert got[("mean", *joint, "0")] == ("sum", {hand: [2, 20], team: [1, 7]})
    assert got[("mean", *joint, "1")] == ("sum", {hand: [2, 0], team: [1, 8]})
    assert got[("mean", *joint, "2")] == ("sum", {team: [3, 39]})
    rng = random.Random(5)  # NOT secret: a test
    shares: list[Tally | None] = [t, None]
    for leaf in range(6):
        s = Tally()
        synthetic_match(s, rng, rng.choice(["eram41", "classic"]), 6, "match state", 0.5, [],
                        leaf, [])
        shares.append(s)
    alone = [None if s is None else observations(s) for s in shares]
    at_once = gather(shares)
    assert set(at_once) == {test for one in alone if one for test in one}
    for test, (kind, seq) in at_once.items():
        assert seq == [(m, one[test][1]) for m, one in enumerate(alone)
                       if one is not None and test in one]
        assert all(one[test][0] == kind for one in alone if one is not None and test in one)
        # the same references in the same order (the kinds that read them in turn)
        assert [list(obs) for _, obs in seq] == [list(one[test][1]) for one in alone
                                                 if one is not None and test in one]


def test_the_deals_digests_made_again_are_sorted_and_checked_whatever_their_size() -> None:
    """The digests :meth:`Evidence.recover` makes again are kept sorted and checked by
    their count and sum modulo 2⁶⁴, those read from bytes whatever they are (out of 64
    bits, negative, not whole numbers): a wrong sum is damaged evidence."""
    test, ref = ("repeat", "repeated deals", "all", "every deal"), (5e28, 1)
    deals = [bytes([i]) * 20 for i in range(40)]
    given = [draw_digest(d) for d in deals]
    for extra in ([2 ** 63 + 7, 5], [2 ** 64 + 3], [-4, 2 ** 64 - 1], [True], [2.5]):
        seen = (set(given) - set(given[:3])) | set(extra)
        for check, good in ((sum(seen) % 2 ** 64, True), ((sum(seen) + 2 ** 40) % 2 ** 64, False)):
            e = Evidence()
            e.tests[test] = _Test("repeat", 0.1)
            e.earlier = lambda: deals
            e._pending = [(test, ref, list(extra), given[:3], len(seen), check)]
            if good:
                e.recover()
                assert e.tests[test].totals[ref] == sorted(seen)
            else:
                with pytest.raises(CodecError, match="not those the state keeps"):
                    e.recover()


def test_the_deals_seen_held_as_arrays_are_those_of_python_sets() -> None:
    """DealsSeen (the deals seen before a run, by digest) holds each deal given once, with
    how often it was given; ``changed`` takes away and adds as counts do (a deal two logs
    gave stays when one goes), refuses to take away a deal it does not hold; left_out
    gives what the Python sets gave: empty sets and repeats included."""
    from collections import Counter

    from tarneeb.audit.fairness.anytime.recall import DealsSeen, left_out
    rng = random.Random(11)  # NOT secret: the test's deals
    pool = [rng.randbytes(20) for _ in range(60)]
    for _ in range(20):
        base = [rng.choice(pool) for _ in range(rng.randrange(0, 50))]
        less = list(Counter(rng.sample(base, rng.randrange(0, len(base) + 1))).elements())
        more = [rng.choice(pool) for _ in range(rng.randrange(0, 20))]
        seen = DealsSeen.of(base)
        assert sorted(seen) == sorted(set(base))
        assert seen.digests.tolist() == sorted({draw_digest(d) for d in base})
        got = seen.changed(DealsSeen.of(less), DealsSeen.of(more))
        assert got is not None
        want = Counter(base) - Counter(less) + Counter(more)
        assert sorted(got) == sorted(want)
        assert dict(zip(got.digests.tolist(), got.counts.tolist(), strict=True)) == {
            draw_digest(d): n for d, n in want.items()}
        values = [draw_digest(d) for d in [rng.choice(pool) for _ in range(10)]] * 2
        given = set(seen.digests.tolist())
        assert left_out(values, seen.digests) == (
            tuple(sorted(set(values) - given)), tuple(sorted(given - set(values))),
            len(set(values)), sum(set(values)) % 2 ** 64)
    import numpy as np

    from tarneeb.audit.fairness.anytime.recall import among, distinct
    for n, m in ((0, 0), (0, 5), (5, 0), (40, 30), (300, 200)):
        a = np.array([rng.randrange(60) for _ in range(n)], dtype=np.uint64)
        b = distinct(np.array([rng.randrange(60) for _ in range(m)], dtype=np.uint64))
        assert distinct(a).tolist() == np.unique(a).tolist()
        assert among(a, b).tolist() == np.isin(a, b).tolist()
    seen = DealsSeen.of(pool[:3])
    assert seen.changed(DealsSeen.of([pool[5]]), DealsSeen.of([])) is None
    assert seen.changed(DealsSeen.of([pool[0]] * 2), DealsSeen.of([])) is None


def test_evidence_that_lets_go_of_the_hands_seen_goes_on_as_a_new_run_would() -> None:
    """Evidence.let_go (a run done advancing, before its bytes are written) drops the
    hands seen and the deals given back; advanced again it makes them again from
    ``earlier``, to the figures of evidence read back from its bytes."""
    shares = fair_shares(9, "eram41", 8)

    def deals() -> list[bytes]:
        return [k[4] for t in shares[:4] for k in t.counts if k[0] == "repeat" and k[3] == 1]

    went = Evidence()
    for t in shares[:4]:
        went.advance(t, 0.05)
    went.earlier = deals
    assert any("hands" in t.index for t in went.tests.values())
    went.let_go()
    assert not any("hands" in t.index for t in went.tests.values()) and went._earlier is None
    back = Evidence.from_bytes(went.to_bytes())
    back.earlier = deals
    for t in shares[4:]:
        went.advance(t, 0.05)
        back.advance(t, 0.05)
    assert went.to_bytes() == back.to_bytes() and went.to_json(0.05) == back.to_json(0.05)


def test_the_digests_held_as_arrays_past_the_bound_act_as_the_list_and_set(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A repeat test's digests, held as arrays once those in Python numbers pass the bound
    (a first run's), below and past it, from a list and set or from arrays made again:
    the same list in the same order, the same answers to ``in``, ``missing`` and ``len``
    as the Python list and set, after what the bet adds."""
    import numpy as np

    import tarneeb.audit.fairness.anytime.recall as recall
    monkeypatch.setattr(recall, "_HELD", 16)
    rng = random.Random(13)  # NOT secret: the test's digests
    for start in ("list", "array"):
        base = sorted({rng.getrandbits(63) for _ in range(40)})
        values: Any = list(base) if start == "list" else recall.DigestList(
            np.array(base, dtype=np.uint64))
        index: Any = set(base) if start == "list" else recall.SortedDigests(values)
        plain, seen, made = list(base), set(base), 0
        for _ in range(30):
            added = [rng.getrandbits(63) for _ in range(rng.randint(0, 9))]
            added += rng.sample(plain, 2)
            ask = getattr(index, "missing", None)
            absent = ask(added) if ask else [d for d in added if d not in index]
            assert absent == [d for d in added if d not in seen]
            new = list(dict.fromkeys(absent))
            values.extend(new)
            (index.add if ask else index.update)(new)
            plain.extend(new)
            seen.update(new)
            got = recall.held(values, index)
            if got is not None:
                values, index = got
                made += 1
            asked = [*plain[-5:], rng.getrandbits(63), -1, 1 << 64, 2.5, "x"]
            assert [d in index for d in asked] == [d in seen for d in asked]
            assert len(index) == len(seen) == len(values) and list(values) == plain
        assert made >= 2 and isinstance(values, recall.DigestList)
    twice = [rng.getrandbits(63) for _ in range(40)]  # (read from bytes: one twice)
    assert recall.held([*twice, twice[0]], set(twice)) is None


def test_the_digests_kept_as_an_array_act_as_the_list_and_set_they_replace() -> None:
    """DigestList (a repeat test's digests made again, an array) iterates, extends and
    counts as the list it replaces; SortedDigests over it or over a sorted list answers
    as a Python set of the same numbers, whatever is asked (absent digests, numbers out
    of 64 bits, other types), empty or not, after what the bet adds."""
    import numpy as np

    from tarneeb.audit.fairness.anytime.recall import DigestList, SortedDigests, as_digests
    rng = random.Random(12)  # NOT secret: the test's digests
    for n in (0, 1, 7, 300):
        base = sorted({rng.getrandbits(63) for _ in range(n)})
        kept = DigestList(np.array(base, dtype=np.uint64))
        plain = list(base)
        for values in (kept, plain):
            index, seen = SortedDigests(values), set(values)
            added = [rng.getrandbits(63) for _ in range(5)] + base[:2]
            new = [d for d in dict.fromkeys(added) if d not in index]
            assert new == [d for d in dict.fromkeys(added) if d not in seen]
            values.extend(new)
            index.update(new)
            seen.update(new)
            asked = [*base[:5], *new, rng.getrandbits(63), -1, 1 << 64, 2.5, "x", True]
            assert [d in index for d in asked] == [d in seen for d in asked]
            assert len(index) == len(seen) == len(values)
            assert list(values) == as_digests(values).tolist() == base + new
