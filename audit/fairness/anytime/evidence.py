"""Evidence that stays valid however often one looks: e-processes over an archive's matches.

A fixed-sample test run again every day on a growing archive is a new test each day: a
fair platform looked at long enough is flagged some day. An **e-process** is a running
figure that a fair shuffle keeps, on average, at or below 1 whatever the order and the
number of the looks (a nonnegative supermartingale started at 1); by Ville's
inequality the chance that it *ever* reaches ``1/alpha`` is at most ``alpha``. So an
archive flagged when the e-process first reaches ``1/alpha`` is flagged with
probability at most ``alpha`` over all its history, looked at as often as one likes
(Ramdas, Grünwald, Vovk and Shafer, *Game-theoretic statistics and safe anytime-valid
inference*, 2023).

The observations are those of a :class:`~tarneeb.audit.fairness.Tally`, one match at a
time in the order the archive's state first saw the matches, each a sum of values whose
exact distribution under a fair shuffle is known (a reference of
:mod:`~tarneeb.audit.fairness.exact`). For one test, a bet of size ``λ`` (fixed
beforehand) multiplies the wealth by ``exp(λ (x - μ) - ψ(λ))`` per observation ``x``,
where ``ψ(λ) = log E exp(λ (x - μ))`` is computed exactly from the reference: under a
fair shuffle each factor has mean exactly 1, so the product is a martingale, and it
depends only on the running sum and the count per reference, which the tally keeps. A
test's e-process is the average of such bets over a grid of sizes, up and down
(``STEPS``, in units of the reference's standard deviation): it grows fastest near the
bias the data show, without choosing it after seeing them.

What is bet on, by kind of tally entry:

* ``fit+mean``, ``mean`` (a hand's points, trumps, voids, aces, kings, by seat, key,
  rule set, label; the first dealer's label): the sum, exact ``ψ``;
* ``member`` (a player by name across matches): each player's sum apart, exact ``ψ``;
* ``joint`` (the four seats, the two teams, the partners of a declarer): each part's sum
  apart, exact ``ψ`` (a seat's or a team's voids and long suits too: their distribution
  over one hand or two is counted exactly, :meth:`~tarneeb.audit.fairness.DrawClassCount.pmf`;
  a part whose reference has no distribution written out would be left to the
  fixed-sample tests, and named so);
* ``paired`` (the computer seats' hands against the human seats' in one deal): the sum of
  the first draw (the computer seats' cards), whose exact distribution is known whatever
  the other's, exact ``ψ``;
* ``covariate`` (the points against the state of the match: behind, close to the target,
  …): ``Σ x (y - μ)`` with the covariate ``x`` known before the deal, bounded by the
  reference's sub-Gaussian variance proxy (``ψ(λ) ≤ λ² s² / 2``, with ``s²`` the least
  such for the exact distribution): a supermartingale, so valid, if a little slow;
* ``fit`` (a G-test's counts: patterns, revealed cards, first dealer, …): a likelihood
  ratio against a distribution learnt from the matches before (the null's, nudged by
  the counts seen so far), a martingale too.

* ``ordered`` (a match's points against the matches next to it in its season, the lag
  test): when a match comes, its total against the standardised totals of its
  neighbours seen before (``Σ x (y - μ)``, ``x`` their sum), bounded as a covariate's
  (the new match's deals are independent of every match seen before);
* ``bounded`` (a whole number between 0 and its largest value, with an exact mean and
  variance: the deck-order residue): the sum, bounded by Bennett's inequality (``ψ(λ) ≤
  σ² (e^{|λ| b} - 1 - |λ| b) / b²``, ``b`` the largest deviation on that side);
* ``placed`` (each card's position in each deal): per position, the sum over the cards
  it got of each card's log-likelihood ratio there (learnt from the matches before: the
  null's chances, nudged by the counts seen). A position's cards are drawn without
  replacement, so the sum's moment generating function is at most that of draws with
  replacement (Hoeffding 1963, theorem 4), whose ``ψ`` is exact: a supermartingale per
  position, averaged over the positions (and over ``PLACE_STEPS``);
* ``repeat`` (values drawn again: deals, sampled hands): per match, whether it brings a
  value seen before or twice, against its exact chance given the number of values seen
  (the birthday null), as a likelihood ratio against a chance learnt from the matches
  before; the e-value is the average of that bet and of not betting, so a fair
  archive's long run without repeats costs it at most half its weight. The values seen
  are kept as 8-byte digests; in the bytes, the deals' (values drawn one at a time)
  only where the caller cannot give them back (:meth:`Evidence.to_bytes`'s
  ``recoverable``: the archive's state keeps every counted log's deals), with their
  count and sum to check the set made again.
* ``rows`` (each deal in its match, :mod:`~tarneeb.audit.fairness.state`) and every
  deal's hands (the repeated deals' values): state-adaptive dealing, drift, serial
  balance across a player's matches, partners' fit and near-repeats, each with a bet of
  its own (:mod:`~tarneeb.audit.fairness.anytime.threats`,
  :mod:`~tarneeb.audit.fairness.anytime.near`). The near-repeats bet asks about every
  hand seen before: not kept here, but made again, at the first match a run advances,
  from the deals the caller gives (:attr:`Evidence.earlier`: the archive's state keeps
  them), those the evidence has seen (its repeated deals' digests).

A test of the fixed-sample battery none of these covers (today none; a test whose
reference has no distribution written out, or any kind added to the battery after these
were written) is named by
:func:`fixed_sample_only`, which the report and ``--json`` show: never silently absent.

The tests are grouped by **family** (``family_of``: the threats of the fixed-sample
battery: the marginal distributions, the match state, the splits by key, rule set,
player and order, the partners and teams, the shuffle's residue). Each family has an
equal share of the weight, in two halves: one for the tests aimed at the family's threat
(:data:`THREAT_KINDS`: state-adaptive dealing, drift and serial balance, partners' fit,
near-repeats), one for the others; within a half the k-th test to appear takes
``1/(k(k+1))`` of it (they sum to 1), so the archive's combined e-value, the weighted
average of its tests', is an e-process too, whatever tests a growing archive brings (a
test not seen yet counts at its starting value, 1). Evidence made before the halves
(version 1 of its bytes) goes on with one sequence a family, as it began.
"""

from __future__ import annotations

import contextlib
import functools
import gc
import math
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from tarneeb.audit.fairness.anytime.near import NearIndex, advance_near
from tarneeb.audit.fairness.anytime.observe import observations
from tarneeb.audit.fairness.anytime.threats import (
    COV_STEPS,
    STEPS,
    _logmean,
    _moments,
    advance_balance,
    advance_cells,
    advance_drift,
    advance_pairing,
    placed_step,
    variance_proxy,
)
from tarneeb.audit.fairness.codec import CodecError, pack_value, unpack_value
from tarneeb.audit.fairness.correction import FAMILIES, family_of
from tarneeb.audit.fairness.nearrepeat import unpack_hands
from tarneeb.audit.fairness.tally import Tally, draw_digest, draw_digests

if TYPE_CHECKING:  # (numpy's: loaded when the deals seen are first needed)
    from tarneeb.audit.fairness.anytime.recall import DealsSeen

PLACE_STEPS = (0.25, 0.5, 1.0, 2.0)  # bets on the card-position score (a log-likelihood ratio)
PRIOR = 200  # pseudo-observations of the null's distribution a fit test's bet starts from
# the families are the fixed-sample battery's (correction.py): the two agree in what they test


@dataclass
class _Test:
    """One test's running figures."""

    kind: str  # sum, cov, fit, lag, bounded, placed, repeat
    weight: float
    # per reference: fit, counts; lag, the members seen; placed, the counts per cell;
    # repeat, the digests of the values seen
    totals: dict[Any, list[Any]] = field(default_factory=dict)
    log_e: float = 0.0
    # sum, cov, lag, bounded, placed: the log of each bet's wealth (up, then down, per
    # STEPS, COV_STEPS or PLACE_STEPS): a sum over the observations, so it grows by each
    # match's alone; repeat: matches, matches with a repeat, the log of the wealth
    bets: list[float] = field(default_factory=list)
    # lag and repeat: ``totals`` indexed (made again from it when read back, never kept)
    index: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)

    def advance(self, obs: dict[Any, list[Any]]) -> None:
        """Fold in one match's observations: per reference, [count, sum] (sum, bounded),
        [Σx, Σxy, Σx²] (cov), value, count pairs (fit, repeat), series, index, total,
        count quadruples (lag), or deals and group, item, count triples (placed)."""
        other = _OWN_KINDS.get(self.kind)  # (by name: no dict of bound methods a call)
        if other is not None:
            getattr(self, other)(obs)
            return
        threat = _THREATS.get(self.kind)
        if threat is not None:  # threats.py: the tests that read every deal
            self.log_e = threat(self.totals, self.bets, obs)
            return
        if self.kind == "cells":
            self.log_e = advance_cells(self.totals, self.bets, obs, self.index)
            return
        if self.kind == "near":
            index = self.index.get("hands")
            if index is None:
                index = self.index["hands"] = NearIndex()
            self.log_e = advance_near(self.totals, self.bets, obs, index)
            return
        steps = STEPS if self.kind == "sum" else COV_STEPS
        if not self.bets:
            self.bets = [0.0] * (2 * len(steps))
        per = self.bets
        for ref, t in sorted(obs.items(), key=_order):
            m = _moments(ref)
            if m is None:
                continue
            mu, sd, psis = m
            if self.kind == "sum":
                for j in range(len(per)):
                    lam = (1 if j < len(steps) else -1) * steps[j % len(steps)] / sd
                    per[j] += lam * (t[1] - t[0] * mu) - t[0] * psis[j]
            else:  # Σ x (y - μ) against the proxy: x is known before the deal
                proxy = variance_proxy(ref)
                for j in range(len(per)):
                    lam = (1 if j < len(steps) else -1) * steps[j % len(steps)] / sd
                    per[j] += lam * (t[1] - mu * t[0]) - lam * lam * proxy * t[2] / 2
        self.log_e = _logmean(per)

    def _fit(self, obs: dict[Any, list[Any]]) -> None:
        """A plug-in likelihood ratio: the counts of this match against a distribution
        fixed before it (the null's, with ``PRIOR`` pseudo-observations, plus the counts
        seen before)."""
        for ref, values in sorted(obs.items(), key=_order):
            seen = self.totals.setdefault(ref, [])
            counts = dict(zip(seen[0::2], seen[1::2], strict=True))
            self.log_e, _ = fit_step(self.log_e, ref.pmf(), counts, sum(counts.values()),
                                     values)
            self.totals[ref] = [x for kv in counts.items() for x in kv]


    def _lag(self, obs: dict[Any, list[Any]]) -> None:
        """Each match's total against its neighbours' in its season seen before (their
        totals kept per series and index)."""
        if not self.bets:
            self.bets = [0.0] * (2 * len(STEPS))
        for ref, figures in sorted(obs.items(), key=_order):
            m = _moments(ref)
            if m is None:
                continue
            mu, sd, _ = m
            proxy = variance_proxy(ref)
            seen = self.totals.setdefault(ref, [])
            known = self.index.get(ref)
            if known is None:
                known = self.index[ref] = {
                    (a, b): (c, d) for a, b, c, d in zip(*(iter(seen),) * 4, strict=True)}
            for series, index, total, n in sorted(zip(*(iter(figures),) * 4, strict=True)):
                x = sum((t - k * mu) / (sd * math.sqrt(k))
                        for t, k in (known.get((series, index + d), (0, 0)) for d in (-1, 1))
                        if k)
                if x and n:
                    for j in range(len(self.bets)):
                        lam = (1 if j < len(STEPS) else -1) * STEPS[j % len(STEPS)] / sd
                        self.bets[j] += (lam * x * (total - n * mu)
                                         - lam * lam * proxy * x * x * n / 2)
                if (series, index) not in known:
                    known[(series, index)] = (total, n)
                    seen.extend((series, index, total, n))
        self.log_e = _logmean(self.bets)

    def _bounded(self, obs: dict[Any, list[Any]]) -> None:
        """The sum of bounded observations, by Bennett's bound on each side."""
        if not self.bets:
            self.bets = [0.0] * (2 * len(STEPS))
        for ref, (n, total) in sorted(obs.items(), key=_order):
            mu, var = ref.mean, ref.variance
            if var <= 0:
                continue
            sd = math.sqrt(var)
            for j in range(len(self.bets)):
                up = j < len(STEPS)
                b = ref.most - mu if up else mu
                if b <= 0:
                    continue
                lam = STEPS[j % len(STEPS)] / sd
                self.bets[j] += ((1 if up else -1) * lam * (total - n * mu)
                                 - n * var * (math.expm1(lam * b) - lam * b) / (b * b))
        self.log_e = _logmean(self.bets)

    def _placed(self, obs: dict[Any, list[Any]]) -> None:
        """Per group (a hand's position), the sum over the items it got of a score learnt
        from the matches before (each item's log-likelihood ratio there, against the
        null's chance); bet on with its exact bound, and averaged over the groups."""
        for ref, figures in sorted(obs.items(), key=_order):
            sizes, items = ref
            big, width = sum(sizes), len(items)
            share = [g / big for g in sizes]
            deals, triples = figures[0], figures[1:]
            seen = self.totals.setdefault(ref, [0] * (1 + len(sizes) * width))
            if not self.bets:
                self.bets = [0.0] * (len(sizes) * len(PLACE_STEPS))
            # a group's items are drawn without replacement: their sum's moment generating
            # function is at most that of draws with replacement (Hoeffding 1963, theorem
            # 4), whose ψ is exact
            placed_step(self.bets, seen, sizes, width, share, deals, triples, PRIOR,
                        PLACE_STEPS)
            self.log_e = _logmean(self.bets)

    def _repeat(self, obs: dict[Any, list[Any]],
                digest: Callable[[Any], int] = draw_digest) -> None:
        """Whether the match brings a value seen before (or twice), against the birthday
        null, bet on at a chance learnt from the matches before (``digest``: each value's
        :func:`draw_digest`, or the same number made beforehand)."""
        if not self.bets:
            self.bets = [0.0, 0.0, 0.0]  # matches, matches with a repeat, log of the wealth
        for ref, figures in sorted(obs.items(), key=_order):
            population, sampled = ref
            space = population / sampled
            seen = self.totals.setdefault(ref, [])
            known = self.index.get(ref)
            if known is None:
                known = self.index[ref] = set(seen)
            pairs = list(zip(figures[0::2], figures[1::2], strict=True))
            draws = sum(c for _, c in pairs)
            digests = [digest(v) for v, _ in pairs]  # 8 bytes a value seen
            ask = getattr(known, "missing", None)  # (recall.SortedDigests: at once)
            absent = ask(digests) if ask else [d for d in digests if d not in known]
            hit = any(c > 1 for _, c in pairs) or len(absent) < len(digests)
            m = len(known)
            chance = -math.expm1(sum(math.log1p(-min(1.0, (m + j) / space))
                                     for j in range(draws))) if draws else 0.0
            matches, repeats, log_w = self.bets
            q = (repeats + 1) / (matches + 2)
            if draws and 0 < chance < 1:
                log_w += math.log(q / chance) if hit else math.log((1 - q) / (1 - chance))
            elif draws and chance == 0 and hit:  # cannot happen under the null
                log_w = math.inf
            self.bets = [matches + 1, repeats + hit, log_w]
            new = list(dict.fromkeys(absent))
            seen.extend(new)
            (known.add if ask else known.update)(new)
        self.log_e = _logmean([0.0, self.bets[2]])  # the average of no bet and the bet


_OWN_KINDS = {k: f"_{k}" for k in ("fit", "lag", "bounded", "placed", "repeat")}  # methods
# the kinds of the tests aimed at a family's threat (state-adaptive dealing, drift and
# serial balance, partners' fit, near-repeats): half their family's weight
THREAT_KINDS = frozenset({"cells", "drift", "balance", "pairing", "near"})
_THREATS = {"drift": advance_drift, "balance": advance_balance, "pairing": advance_pairing}


@functools.lru_cache(maxsize=8192)
def _repr(key: Any) -> str:
    return repr(key)


def weighted_log_mean(used: float, terms: list[float]) -> float:
    """The log of a weighted average of e-values: ``terms`` each a weight's log plus its
    e-value's log, ``used`` the weights' sum; the weight not used yet counts at e-value 1.

    >>> round(weighted_log_mean(0.5, [math.log(0.5) + math.log(3.0)]), 6) == round(math.log(2), 6)
    True
    """
    if used < 1:
        terms = [*terms, math.log(1 - used)]
    top = max(terms)
    if top == math.inf:
        return math.inf
    return top + math.log(sum([math.exp(x - top) for x in terms]))


def fit_step(log_e: float, pmf: Mapping[Any, float], counts: dict[Any, int], n: int,
             values: list[Any]) -> tuple[float, int]:
    """One match's plug-in likelihood ratio of a fit test's reference: ``log_e`` and its
    values ``values`` (value, count, value, count, ...) against the null's ``pmf`` with
    ``PRIOR`` pseudo-observations plus ``counts`` (``n`` of them) seen before; ``counts``
    then takes the match's values in. Returns the new ``log_e`` and the values added."""
    pairs = list(zip(values[0::2], values[1::2], strict=True))
    if len(pairs) > 1:
        pairs.sort(key=_order)
    log, get, seen = math.log, pmf.get, counts.get
    for value, c in pairs:
        p = get(value, 0.0)
        if p <= 0:  # a value a fair shuffle never gives
            log_e = math.inf
            continue
        q = (seen(value, 0) + PRIOR * p) / (n + PRIOR)
        log_e += c * log(q / p)
    added = 0
    for value, c in pairs:
        counts[value] = seen(value, 0) + c
        added += c
    return log_e, added


@contextlib.contextmanager
def no_cycle_collection() -> Iterator[None]:
    """Python's collector of reference cycles held off: the e-processes make many small
    lists and tuples and no cycles, and a collection walks every object the audit holds
    (a tenth of an advance's time, or more, in a run of a large state); it runs, as it
    was set, after."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def _order(item: Any) -> str:
    """A fixed order for a test's or a reference's items (a share's keys come in any
    order); their text, kept: a reference's is long to make."""
    return _repr(item[0])


def fixed_sample_only(tests: Iterable[tuple[Any, ...]],
                      evidence: Evidence) -> list[tuple[Any, ...]]:
    """The tests of the fixed-sample battery (their ids) with no e-process in
    ``evidence``: none of its tests is that test, or a member or part of it."""
    covered = {t[1:1 + n] for t in evidence.tests for n in range(1, len(t))}
    return [t for t in tests if tuple(t) not in covered]


class Evidence:
    """The archive's e-processes, advanced one match at a time; bytes with
    :meth:`to_bytes` (kept in the archive's state between runs)."""

    def __init__(self) -> None:
        self.tests: dict[tuple[Any, ...], _Test] = {}
        self.slots: dict[str, int] = dict.fromkeys(FAMILIES, 0)
        # each family's weight in two halves, its aimed tests' (THREAT_KINDS) and the
        # others'; evidence of version 1 (made before) keeps one sequence a family
        self.halves = True
        self.matches = 0
        self.log_e = 0.0  # the combined e-value, as a natural log
        self.max_log_e = 0.0
        self.crossed: dict[str, int] = {}  # per alpha (repr): the match it first crossed at
        self.read_version: int | None = None  # the version of the bytes it was read from
        # the deals seen before this run (20-byte values, read once, when a match first
        # needs them): the archive's state gives them as arrays (recall.DealsSeen)
        self.earlier: Callable[[], Iterable[bytes]] | None = None
        # from bytes of version 3, per repeat test and reference of single draws: the digests
        # earlier does not give, those it gives not seen, the set's count and sum (recover)
        self._pending: list[tuple[tuple[Any, ...], Any, list[int], list[int], int, int]] = []
        self._earlier: DealsSeen | None = None  # earlier's, each once by digest

    def advance(self, share: Tally | None, alpha: float) -> float:
        """One match (``share``: its observations; None: it has none, the wealth stays);
        the combined e-value after it, as a natural log."""
        self.matches += 1
        if share is not None:
            self.recover()
            # in a fixed order (a share's keys come in any order): the slots and the sums
            for test, (kind, obs) in sorted(observations(share).items(), key=_order):
                t = self.tests.get(test)
                if t is None:
                    t = self.tests[test] = _Test(kind, self._weight(test, kind))
                if kind == "near" and "hands" not in t.index:
                    t.index["hands"] = self._recalled()
                t.advance(obs)
            self.log_e = self._combined()
        self.max_log_e = max(self.max_log_e, self.log_e)
        key = repr(alpha)
        if key not in self.crossed and self.log_e >= math.log(1 / alpha):
            self.crossed[key] = self.matches
        return self.log_e

    def _weight(self, test: tuple[Any, ...], kind: str) -> float:
        """A new test's weight, fixed as it first appears: its family's share
        (``1/len(FAMILIES)``), half of it to the tests aimed at the family's threat
        (:data:`THREAT_KINDS`) and half to the others, the k-th of each to appear
        ``1/(k(k+1))`` of its half."""
        fam = family_of(test[1:])
        half = 1.0
        if self.halves:
            half = 0.5
            if kind in THREAT_KINDS:
                fam = f"{fam}: aimed"
        k = self.slots[fam] = self.slots.get(fam, 0) + 1
        return half / (len(FAMILIES) * k * (k + 1))

    def _recalled(self) -> NearIndex:
        """The hands seen before this run, for the near-repeats bet: of the deals ``earlier``
        gives (the state keeps every log's), those the evidence has seen (by digest), each
        once; one it has not seen (of a log never advanced, or of the match advancing) is
        left out: the bet's exact mean is that of the hands it asks about, whichever."""
        index = NearIndex()
        tests = [v for t in self.tests.values() if t.kind == "repeat"
                 for (_, sampled), v in t.totals.items() if sampled == 1]
        if self.earlier is None or not any(tests):
            return index
        from tarneeb.audit.fairness.anytime.recall import repeat_digests
        deals = self._recall().deals_among(repeat_digests(tests))
        if len(deals):  # each once: their hands, in any order
            index.add(unpack_hands(deals), given_up=True)
        return index

    def _recall(self) -> DealsSeen:
        """The deals ``earlier`` gives, each once, with their digests (made once a run)."""
        if self._earlier is None:
            from tarneeb.audit.fairness.anytime.recall import DealsSeen
            self._earlier = DealsSeen.of((self.earlier or tuple)())
        return self._earlier

    def let_go(self) -> None:
        """The digests recovered, what advancing made again let go (the hands seen, the
        deals ``earlier`` gave; made again, as a new run would, if it advances again)."""
        self.recover()
        self._earlier = None
        for t in self.tests.values():
            t.index.pop("hands", None)

    def recover(self) -> None:
        """The deals' digests left out of the bytes (version 3) made again from those
        ``earlier`` gives: a set whose count or sum differs is damaged evidence."""
        if not self._pending:
            return
        import numpy as np

        import tarneeb.audit.fairness.anytime.recall as recall
        pending, self._pending = self._pending, []
        given = self._recall().digests
        for test, ref, extra, excluded, count, check in pending:
            more, less = recall.as_digests(extra), recall.as_digests(excluded)
            if more is not None and less is not None:  # sorted, each once, by numpy
                made = recall.distinct(np.concatenate((recall.minus(given, recall.distinct(less)),
                                                       more)))
                digests: Any = recall.DigestList(made)  # (a list, as numpy's array)
                total = int(made.sum(dtype=np.uint64))  # (numpy's sum: modulo 2**64)
            else:  # digests read that are not such numbers: as they are (a set in order)
                back = set(draw_digests(list((self.earlier or tuple)())))
                seen = (back - set(excluded)) | set(extra)
                digests, total = sorted(seen), sum(seen) % 2 ** 64
            if len(digests) != count or total != check:
                raise CodecError(f"the deals seen by {' '.join(map(str, test))} are not "
                                 "those the state keeps")
            self.tests[test].totals[ref] = digests
            self.tests[test].index[ref] = recall.SortedDigests(digests)  # (_repeat's set)

    def _combined(self) -> float:
        """The weighted average: each test's weight times its e-value, and the weight of
        the slots not filled yet at 1."""
        return weighted_log_mean(sum(t.weight for t in self.tests.values()),
                                 [(math.log(t.weight) + t.log_e) for t in self.tests.values()])

    def crossed_at(self, alpha: float) -> int | None:
        """The match (from 1, in the order first seen) at which the evidence first reached
        ``1/alpha``; None if it never did."""
        return self.crossed.get(repr(alpha))

    def strongest(self, n: int = 5) -> list[tuple[tuple[Any, ...], float]]:
        """The ``n`` tests with the most evidence now: (test, e-value as a log10)."""
        ranked = sorted(self.tests.items(), key=lambda kv: -kv[1].log_e)[:n]
        return [(test, t.log_e / math.log(10)) for test, t in ranked]

    def to_json(self, alpha: float) -> dict[str, Any]:
        return {"matches": self.matches, "e_value_log10": self.log_e / math.log(10),
                "max_e_value_log10": self.max_log_e / math.log(10),
                "threshold_log10": math.log10(1 / alpha), "crossed_at": self.crossed_at(alpha),
                "flagged": self.crossed_at(alpha) is not None,
                "tests": len(self.tests),
                "strongest": [{"test": list(t), "e_value_log10": e}
                              for t, e in self.strongest()]}

    def to_bytes(self, recoverable: Iterable[bytes] | None = None) -> bytes:
        """The evidence as bytes. ``recoverable``: the deals (20-byte values) the caller
        will give back as :attr:`earlier` when the bytes are read (each once, any order;
        a :class:`~tarneeb.audit.fairness.anytime.recall.DealsSeen` is read by digest):
        the repeat tests' digests of the deals among them are left out (version 3)."""
        with no_cycle_collection():
            return self._to_bytes(recoverable)

    def _to_bytes(self, recoverable: Iterable[bytes] | None) -> bytes:
        self.recover()
        given = None
        if recoverable is not None:
            from tarneeb.audit.fairness.anytime.recall import DealsSeen, left_out
            given = DealsSeen.of(recoverable).digests  # (the state's: digests made)
        tests, left = [], []
        for k, t in self.tests.items():
            totals = []
            for r, v in t.totals.items():
                if given is not None and t.kind == "repeat" and r[1] == 1:
                    left.append((k, r, *left_out(v, given)))
                else:
                    totals.append((r, tuple(v)))
            tests.append((k, t.kind, t.weight, t.log_e, tuple(totals), tuple(t.bets)))
        version = (2 if self.halves else 1) if given is None else (3 if self.halves else -3)
        return pack_value((version, self.matches, self.log_e, self.max_log_e,
                           tuple(self.crossed.items()), tuple(self.slots.items()),
                           tuple(tests), *(() if given is None else (tuple(left),))))

    @classmethod
    def from_bytes(cls, data: bytes) -> Evidence:
        try:
            version, matches, log_e, max_log_e, crossed, slots, tests, *more = unpack_value(data)
            if version not in (1, 2, 3, -3) or len(more) != (abs(version) == 3):
                raise CodecError(f"evidence of version {version}")
            e = cls()
            e.matches, e.log_e, e.max_log_e = matches, log_e, max_log_e
            e.crossed = dict(crossed)
            e.slots.update(dict(slots))
            e.halves = version in (2, 3)  # -3: version 3 of evidence made as version 1
            e.read_version = version
            for key, kind, weight, t_log_e, totals, bets in tests:
                e.tests[key] = _Test(kind, weight, {r: list(v) for r, v in totals}, t_log_e,
                                     list(bets))
            for test, ref, extra, excluded, count, check in (more[0] if more else ()):
                if test not in e.tests:
                    raise CodecError(f"deals seen by a test it does not have ({test})")
                e._pending.append((test, ref, list(extra), list(excluded), count, check))
            return e
        except (TypeError, ValueError) as err:
            if isinstance(err, CodecError):
                raise
            raise CodecError(f"not evidence: {err}") from None


__all__ = ["FAMILIES", "STEPS", "Evidence", "family_of", "fixed_sample_only", "observations"]
