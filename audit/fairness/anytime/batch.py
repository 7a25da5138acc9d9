"""The evidence advanced over many matches at once: a test at a time, not a match at a time.

:meth:`Evidence.advance <tarneeb.audit.fairness.anytime.evidence.Evidence.advance>` takes
one match and advances every test it observes. The tests are independent of one another
(each has its own wealth, learnt from its own earlier observations), so a run over many
new matches can as well advance each test over all of them, then combine the tests'
e-values match by match: :func:`advance_many`. Its figures are those of
:meth:`Evidence.advance` called once per match, to the last bit:

* the tests appear, and take their weights, in the order the matches bring them;
* a sum or covariate test's bets (sizes fixed beforehand) grow by one increment per
  observation, made with numpy over all the matches' observations with the arithmetic
  of the one-match code, and added up in the same order (``numpy.cumsum`` adds one term
  after another); so do the drift bets' (each deal's terms made in order); the fit tests,
  state cells, partners' fit and near-repeats have their own block code (``_MANY``), the
  other kinds advance as they do one match at a time;
* the combined e-value after each match is made from the tests' e-values then, in the
  order the tests appeared, as the one-match code makes it;
* the near-repeats bet, which first recalls the hands seen before when it first
  advances in a run (from the repeated-deals test's digests as they are then), is
  recalled at the same point: the matches are split there.
"""

from __future__ import annotations

import bisect
import math
import operator
from collections.abc import Sequence
from itertools import chain
from typing import Any, cast

import numpy as np

from tarneeb.audit.fairness.anytime.evidence import (
    Evidence,
    _order,
    _repr,
    _Test,
    fit_step,
    no_cycle_collection,
    weighted_log_mean,
)
from tarneeb.audit.fairness.anytime.near import near_many
from tarneeb.audit.fairness.anytime.observe import Seq, gather
from tarneeb.audit.fairness.anytime.recall import held
from tarneeb.audit.fairness.anytime.threats import (
    COV_STEPS,
    DRIFT_HALF_LIVES,
    DRIFT_STEPS,
    PAIRING_STEPS,
    STEPS,
    _logmean,
    _logmeans,
    _moments,
    cell_updates,
    cells_combined,
    drift_deals,
    variance_proxy,
)
from tarneeb.audit.fairness.fit import pairing_values
from tarneeb.audit.fairness.nearrepeat import DEAL_BYTES, unpack_hands
from tarneeb.audit.fairness.tally import Tally, draw_digests


def advance_many(evidence: Evidence, shares: Sequence[Tally | None], alpha: float) -> list[float]:
    """Advance ``evidence`` over ``shares`` (one a match, in order; None: a match with no
    observations) as :meth:`Evidence.advance` once per match would; the combined e-value
    (natural log) after each match."""
    with no_cycle_collection():
        # the matches' figures are let go before the collector runs again: it would walk
        # them all (made while it was held off) to find no cycle
        return _advance(evidence, shares, alpha)


def _advance(evidence: Evidence, shares: Sequence[Tally | None], alpha: float) -> list[float]:
    """:func:`advance_many`, its collector held off."""
    # every match's figures at once, per test (not a dict per match regrouped after)
    tests = gather(shares)
    observed = [s is not None for s in shares]
    out: list[float] = []
    start = 0
    while start < len(shares):
        end = _split(evidence, tests, start, len(shares))
        block = tests if start == 0 and end == len(shares) else _between(tests, start, end)
        out.extend(_block(evidence, block, observed[start:end], start, alpha))
        start = end
    return out


Tests = dict[tuple[Any, ...], tuple[str, Seq]]  # per test: its kind, its matches' figures


def _split(evidence: Evidence, tests: Tests, start: int, end: int) -> int:
    """The end of the block from ``start`` (matches up to ``end``): before the first match
    after ``start`` with a near-repeats observation whose test has not recalled the hands
    seen before (it recalls them from the other tests as they are at that match)."""
    for test, (kind, seq) in tests.items():
        if kind != "near":
            continue
        t = evidence.tests.get(test)
        if t is None or "hands" not in t.index:
            after = bisect.bisect_right(seq, start, key=operator.itemgetter(0))
            if after < len(seq):
                end = min(end, seq[after][0])
    return end


def _between(tests: Tests, start: int, end: int) -> Tests:
    """The tests' figures of the matches from ``start`` to ``end`` (the tests with some)."""
    out: Tests = {}
    first = operator.itemgetter(0)
    for test, (kind, seq) in tests.items():
        a = bisect.bisect_left(seq, start, key=first)
        b = bisect.bisect_left(seq, end, lo=a, key=first)
        if a < b:
            out[test] = (kind, seq[a:b])
    return out


def _block(evidence: Evidence, tests: Tests, observed: list[bool], start: int,
           alpha: float) -> list[float]:
    """Advance over a block of matches (from ``start``; ``observed``: whether each has a
    share), in which a near-repeats test that recalls the hands does so at the block's
    first match."""
    if any(observed):
        evidence.recover()
    # a match's new tests take their slots in the order one match at a time gives: by
    # their first match, then by their text
    had = len(evidence.tests)
    firsts = sorted(((seq[0][0], _repr(test), test, kind)
                     for test, (kind, seq) in tests.items() if test not in evidence.tests),
                    key=operator.itemgetter(0, 1))
    born = [had] * len(observed)  # how many tests there are after each match's
    for m, _, test, kind in firsts:
        evidence.tests[test] = _Test(kind, evidence._weight(test, kind))
        born[m - start] = len(evidence.tests)
    for i in range(1, len(born)):
        born[i] = max(born[i], born[i - 1])
    slot = {k: i for i, k in enumerate(evidence.tests)}
    # each test's term of the combination before the block (its weight's log plus its
    # e-value's), made again below only for the tests that moved at a match
    terms = [math.log(t.weight) + t.log_e for t in evidence.tests.values()]
    # per match, the tests (their slots) whose e-values changed at it, and their e-values
    changed: list[list[tuple[int, float]]] = [[] for _ in observed]
    # the tests in the order one match at a time advances them (the near-repeats bet
    # recalls the hands seen from the repeated deals' test as it is before the block)
    order = sorted(tests, key=_repr)
    sums = [(test, evidence.tests[test], tests[test][1]) for test in order
            if tests[test][0] in ("sum", "cov")]
    for (test, _, seq), logs in zip(sums, _sums([(t, seq) for _, t, seq in sums]),
                                    strict=True):
        i = slot[test]
        for (m, _), log_e in zip(seq, logs, strict=True):
            changed[m - start].append((i, log_e))
    for test in order:
        kind, seq = tests[test]
        if kind in ("sum", "cov"):
            continue
        t, i = evidence.tests[test], slot[test]
        if t.kind == "near" and "hands" not in t.index:
            t.index["hands"] = evidence._recalled()
        many = _MANY.get(t.kind)
        if many is not None:
            for m, log_e in many(t, seq):
                changed[m - start].append((i, log_e))
        else:
            for m, obs in seq:
                t.advance(obs)
                changed[m - start].append((i, t.log_e))
    weights = [t.weight for t in evidence.tests.values()]
    log_weights = [math.log(w) for w in weights]
    threshold = math.log(1 / alpha)
    key = repr(alpha)
    out = []
    used, upto = 0.0, -1  # the weights' sum of the first ``upto`` tests
    for seen, moved, b in zip(observed, changed, born, strict=True):
        evidence.matches += 1
        if seen:
            for i, log_e in moved:
                terms[i] = log_weights[i] + log_e
            if b != upto:  # the sum as Evidence._combined makes it, when tests come
                used, upto = sum(weights[:b]), b
            evidence.log_e = weighted_log_mean(used, terms if b == len(terms) else terms[:b])
        evidence.max_log_e = max(evidence.max_log_e, evidence.log_e)
        if key not in evidence.crossed and evidence.log_e >= threshold:
            evidence.crossed[key] = evidence.matches
        out.append(evidence.log_e)
    return out


class _Constants:
    """Per kind (sum, covariate), each reference's constants as :meth:`_Test.advance`
    makes them, a row each: its mean, and per bet its size and ``ψ`` (sum) or its
    variance proxy (covariate); the rows as numpy arrays, made again when rows come."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self.row: dict[Any, int | None] = {}
        self.rows: list[tuple[float, list[float], list[float]]] = []
        self.arrays: tuple[Any, Any, Any] | None = None

    def of(self, ref: Any) -> int | None:
        """The row of ``ref``; None when it has no numeric distribution."""
        if ref in self.row:
            return self.row[ref]
        m = _moments(ref)
        if m is None:
            self.row[ref] = None
            return None
        mu, sd, psis = m
        steps = STEPS if self.kind == "sum" else COV_STEPS
        n = 2 * len(steps)
        lams = [(1 if j < len(steps) else -1) * steps[j % len(steps)] / sd for j in range(n)]
        other = list(psis) if self.kind == "sum" else [variance_proxy(ref)] * n
        self.row[ref] = len(self.rows)
        self.rows.append((mu, lams, other))
        self.arrays = None
        return self.row[ref]

    def take(self, rows: list[int]) -> tuple[Any, Any, Any]:
        """The constants of ``rows``: means (a column), sizes, ``ψ`` or proxies."""
        if self.arrays is None:
            self.arrays = (np.array([r[0] for r in self.rows], dtype=np.float64)[:, None],
                           np.array([r[1] for r in self.rows], dtype=np.float64),
                           np.array([r[2] for r in self.rows], dtype=np.float64))
        at = np.array(rows, dtype=np.intp)
        return self.arrays[0][at], self.arrays[1][at], self.arrays[2][at]


_CONSTANTS = {"sum": _Constants("sum"), "cov": _Constants("cov")}
_first, _second = operator.itemgetter(0), operator.itemgetter(1)


def _sums(tests: list[tuple[_Test, list[tuple[int, dict[Any, list[Any]]]]]],
          ) -> list[list[float]]:
    """Sum and covariate tests' bets over their observations (per test, ``seq``: match,
    figures per reference): every observation's increments made at once (per kind, with
    the one-match code's arithmetic), each test's added up in order from its bets; per
    test, its e-value after each of its matches (those of ``seq``)."""
    out: list[list[float]] = [[] for _ in tests]
    for kind, constants in _CONSTANTS.items():
        which = [i for i, (t, _) in enumerate(tests) if t.kind == kind]
        rows: list[int] = []
        figs: list[list[Any]] = []
        spans = []  # per test: its first row, and per match of seq its rows' end
        known = constants.row
        # a reference's row by its id (the figures hold every reference for the call, so
        # that ids stay their own): a reference's hash is a Python call
        by_id: dict[int, int | None] = {}
        for i in which:
            t, seq = tests[i]
            first, ends = len(rows), []
            # every match's (reference, figures), iterated in C
            items = list(chain.from_iterable(map(dict.items, map(_second, seq))))
            if len(items) == len(seq):
                # most tests have one reference a match (most often the same object):
                # each object's row once, every match's figures as they are
                refs = list(map(_first, items))
                ids = list(map(id, refs))
                if not by_id.keys() >= set(ids):
                    for ref in refs:
                        if id(ref) not in by_id:
                            by_id[id(ref)] = known[ref] if ref in known else constants.of(ref)
                got = list(map(by_id.__getitem__, ids))
                if None not in got:
                    rows.extend(cast(list[int], got))  # (no None among them)
                    figs.extend(map(_second, items))
                    spans.append((first, list(range(1, len(items) + 1))))
                    continue
            for _, obs in seq:
                # most observations have one reference: nothing to sort
                for ref, fig in (obs.items() if len(obs) == 1
                                 else sorted(obs.items(), key=_order)):
                    r = by_id.get(id(ref), -1)
                    if r == -1:
                        r = by_id[id(ref)] = known[ref] if ref in known else constants.of(ref)
                    if r is not None:
                        rows.append(r)
                        figs.append(fig)
                ends.append(len(rows) - first)
            spans.append((first, ends))
        steps = STEPS if kind == "sum" else COV_STEPS
        width = 2 * len(steps)
        for i in which:
            t = tests[i][0]
            if not t.bets:
                t.bets = [0.0] * width
        # the tests with increments: their bets before and after each increment, one
        # segment each of one array (bets first), each added up in order on its own
        # (numpy's accumulate adds one row after another, as cumsum does)
        grown = [k for k, (_, ends) in enumerate(spans) if ends and ends[-1]]
        logs: list[list[float]] = [[] for _ in which]
        if grown:
            mu, lam, other = constants.take(rows)
            size = len(figs[0])
            if set(map(len, figs)) == {size}:  # made from one flat list: the same floats
                f = np.fromiter(chain.from_iterable(figs), dtype=np.float64,
                                count=len(figs) * size).reshape(len(figs), size)
            else:
                f = np.array(figs, dtype=np.float64)
            if kind == "sum":  # lam (Σy - n μ) - n ψ
                inc = lam * (f[:, 1:2] - f[:, 0:1] * mu) - f[:, 0:1] * other
            else:  # lam (Σxy - μ Σx) - lam² s² Σx² / 2
                inc = lam * (f[:, 1:2] - mu * f[:, 0:1]) - lam * lam * other * f[:, 2:3] / 2
            lengths = [spans[k][1][-1] for k in grown]
            # test k's segment starts at its first row plus the segments before it
            starts = [spans[k][0] + j for j, k in enumerate(grown)]
            wealth = np.empty((len(rows) + len(grown), width), dtype=np.float64)
            at = np.array(starts, dtype=np.intp)
            wealth[at] = np.array([tests[which[k]][0].bets for k in grown], dtype=np.float64)
            placed = np.ones(len(wealth), dtype=bool)
            placed[at] = False
            wealth[placed] = inc[np.concatenate([np.arange(spans[k][0], spans[k][0] + n)
                                                 for k, n in zip(grown, lengths, strict=True)])]
            for a, n in zip(starts, lengths, strict=True):
                np.add.accumulate(wealth[a:a + n + 1], axis=0, out=wealth[a:a + n + 1])
            picks = [a + e for a, k in zip(starts, grown, strict=True) for e in spans[k][1]]
            every = _logmeans(wealth[picks])
            lasts = wealth[[a + n for a, n in zip(starts, lengths, strict=True)]].tolist()
            done = 0
            for k, bets in zip(grown, lasts, strict=True):
                count = len(spans[k][1])
                logs[k] = every[done:done + count]
                done += count
                tests[which[k]][0].bets = bets
        for k, (i, (_, ends)) in enumerate(zip(which, spans, strict=True)):
            t = tests[i][0]
            if not (ends and ends[-1]):
                logs[k] = [_logmean(t.bets)] * len(ends)
            out[i] = logs[k]
            if logs[k]:
                t.log_e = logs[k][-1]
    return out


def _fits(t: _Test, seq: list[tuple[int, dict[Any, list[Any]]]]) -> list[tuple[int, float]]:
    """A fit test's likelihood ratios over its observations ``seq``, as
    :meth:`_Test.advance` makes them a match at a time (:func:`fit_step`), with each
    reference's counts kept as a dict over the matches (not made again from the flat list
    each match) and its ``pmf`` asked once."""
    kept: dict[Any, tuple[dict[Any, int], list[int], Any]] = {}
    out = []
    for m, obs in seq:
        for ref, values in (obs.items() if len(obs) == 1 else sorted(obs.items(), key=_order)):
            got = kept.get(ref)
            if got is None:
                seen = t.totals.setdefault(ref, [])
                c0 = dict(zip(seen[0::2], seen[1::2], strict=True))
                got = kept[ref] = (c0, [sum(c0.values())], ref.pmf())
            counts, total, pmf = got
            t.log_e, added = fit_step(t.log_e, pmf, counts, total[0], values)
            total[0] += added
        out.append((m, t.log_e))
    for ref, (counts, _, _) in kept.items():
        t.totals[ref] = [x for kv in counts.items() for x in kv]
    return out


def _near(t: _Test, seq: list[tuple[int, dict[Any, list[Any]]]]) -> list[tuple[int, float]]:
    """The near-repeats bet over its matches ``seq`` (:func:`near_many`)."""
    if not t.bets:
        t.bets.extend([0.0, 0.0, 0.0])
    out = near_many(t.bets, t.index["hands"], seq)
    if out:
        t.log_e = out[-1][1]
    return out


def _pairing(t: _Test, seq: list[tuple[int, dict[Any, list[Any]]]]) -> list[tuple[int, float]]:
    """Partners' fit over its matches ``seq``, as :func:`advance_pairing` a match at a
    time: every deal's fits and bets' terms made at once (the same arithmetic, a deal at
    a time), each match's gain summed over its own deals as the one-match code sums it."""
    if not t.bets:
        t.bets.extend([0.0] * (2 * len(PAIRING_STEPS)))
    parts: list[list[tuple[str, int, int]]] = []  # per match: fit, its first deal, deals
    order: list[bytes] = []
    for _, obs in seq:
        got = []
        for what, values in (obs.items() if len(obs) == 1 else sorted(obs.items(), key=_order)):
            got.append((what, len(order), len(values)))
            # the deals as deal_hands takes them: each value once in order, as often as
            # drawn (equal values are the same bytes: the values sorted)
            order.extend(sorted(values))
        parts.append(got)
    terms: dict[str, tuple[Any, Any]] = {}  # per fit: bets x deals kept, deals kept before
    if order:
        fits = dict(zip(("suit", "honour"), pairing_values(unpack_hands(
            np.frombuffer(b"".join(order), dtype=np.dtype(f"V{DEAL_BYTES}")))), strict=True))
        steps = np.array([c * s for s in (1, -1) for c in PAIRING_STEPS])
        for what in {w for got in parts for w, _, _ in got}:
            v = fits["suit" if what == "suit" else "honour"].astype(float)
            dev = v - v.mean(axis=1, keepdims=True)
            spread = np.sqrt((dev ** 2).mean(axis=1))
            keep = spread > 0
            dev, spread = dev[keep], spread[keep]
            x = steps[:, None, None] * (dev / spread[:, None])[None]  # bets x deals x pairings
            top = x.max(axis=2)
            psi = top + np.log(np.exp(x - top[:, :, None]).mean(axis=2))
            terms[what] = (x[:, :, 0] - psi, np.concatenate(([0], np.cumsum(keep))))
    bets, after = t.bets, []  # the bets after each match
    for got in parts:
        for what, lo, n in got:
            if not n:
                continue
            gains, kept = terms[what]
            for j, gained in enumerate(gains[:, kept[lo]:kept[lo + n]].sum(axis=1).tolist()):
                bets[j] += gained
        after.append(list(bets))
    # each match's e-value, every match's at once
    logs = _logmeans(np.array(after, dtype=np.float64)) if after else []
    if logs:
        t.log_e = logs[-1]
    return [(m, log_e) for (m, _), log_e in zip(seq, logs, strict=True)]


def _cells(t: _Test, seq: list[tuple[int, dict[Any, list[Any]]]]) -> list[tuple[int, float]]:
    """State-adaptive dealing over its matches ``seq``, as :func:`advance_cells` a match
    at a time: each match's cells, players and updates made in order
    (:func:`cell_updates`), then every update's increment at once (``lam d - n ψ`` in
    numpy, the same products), each cell's bets added up in order from its own (one
    ``numpy.cumsum`` down a cells' array, a cell's updates one after another in its
    column: an accumulation adds term after term), the touched cells' e-values after
    each match at once (:func:`_logmeans`), and each match's combination from the cells
    it had then."""
    totals, cache = t.totals, t.index
    logs = cache.setdefault("cells", {})
    # cells read back from bytes: their e-values made from the values before the block,
    # as the one-match code makes them at its first match (a cell it touches has its own)
    for key, cell in totals.items():
        if key[0] == "cell" and logs.get(key) is None:
            logs[key] = _logmean(cell)
    had: list[tuple[int, int]] = []  # per match, its size (entries, players) after it
    column: dict[tuple[Any, ...], int] = {}  # per cell touched: its column
    done: list[int] = []  # per column, its updates so far
    consts: dict[tuple[Any, int], int] = {}  # per reference and seats: its row of sizes, ψ
    table: list[tuple[list[float], list[float]]] = []
    rows: list[int] = []
    ns: list[int] = []
    ds: list[float] = []
    at: list[int] = []  # per update: its column and place in it (1, 2, ... per column)
    where: list[int] = []
    picks: list[tuple[int, int]] = []  # per match, per cell it touched: (place, column)
    ends: list[int] = []  # per match, its picks' end
    for _, obs in seq:
        updates, touched = cell_updates(totals, obs)
        for key, ck, c, n, d in updates:
            r = consts.get(ck)
            if r is None:
                r = consts[ck] = len(table)
                table.append(([lam for lam, _ in c[1]], [psi for _, psi in c[1]]))
            j = column.get(key)
            if j is None:
                j = column[key] = len(done)
                done.append(0)
            done[j] += 1
            at.append(j)
            where.append(done[j])
            rows.append(r)
            ns.append(n)
            ds.append(d)
        for key in touched:
            j = column.get(key)
            if j is None:  # touched without a bet made: as it is
                j = column[key] = len(done)
                done.append(0)
            # the touched cell's bets after its last update at or before the match
            picks.append((done[j], j))
        ends.append(len(picks))
        had.append((len(totals), len(totals.get(("players",), []))))
    keys = list(column)
    every: Any = None
    if keys:
        width = len(totals[keys[0]])
        every = np.zeros((max(done) + 1, len(keys), width), dtype=np.float64)
        every[0] = np.array([totals[key] for key in keys], dtype=np.float64)
        if rows:
            ix = np.array(rows, dtype=np.intp)
            lam = np.array([a for a, _ in table], dtype=np.float64)[ix]
            psi = np.array([b for _, b in table], dtype=np.float64)[ix]
            every[where, at] = (lam * np.array(ds, dtype=np.float64)[:, None]
                                - np.array(ns, dtype=np.float64)[:, None] * psi)
        # each column's bets before the block and after each of its updates (a column's
        # places past its last update are never read)
        np.cumsum(every, axis=0, out=every)
    got = _logmeans(every[tuple(np.array(picks, dtype=np.intp).T)]) if picks else []
    out = []
    begin = 0
    for (m, _), end, size in zip(seq, ends, had, strict=True):
        for (_, j), log_e in zip(picks[begin:end], got[begin:end], strict=True):
            logs[keys[j]] = log_e
        begin = end
        t.log_e = cells_combined(totals, cache, size)
        out.append((m, t.log_e))
    if every is not None:
        for j, key in enumerate(keys):
            if done[j]:
                totals[key][:] = every[done[j], j].tolist()
    return out


def _drift(t: _Test, seq: list[tuple[int, dict[Any, list[Any]]]]) -> list[tuple[int, float]]:
    """Drift over its matches ``seq``, as :func:`advance_drift` a match at a time: each
    deal's ``z``, ``r`` and directions in order (:func:`drift_deals`), then every
    deal's bets' terms at once (numpy, the same products in the same order), added up in
    order from the bets (``numpy.cumsum``), the e-value after each match from the bets
    then (:func:`_logmeans`)."""
    if not t.bets:
        t.bets = [0.0] * (len(DRIFT_HALF_LIVES) * len(DRIFT_STEPS))
    deals: list[tuple[float, float, list[float]]] = []
    ends = []  # per match, its deals' end
    for _, obs in seq:
        deals += drift_deals(t.totals, obs)
        ends.append(len(deals))
    if not deals:
        logs = [_logmean(t.bets)] * len(seq)
    else:
        z = np.array([x for x, _, _ in deals], dtype=np.float64)[:, None, None]
        r = np.array([x for _, x, _ in deals], dtype=np.float64)[:, None, None]
        d = np.array([x for _, _, x in deals], dtype=np.float64)[:, :, None]
        lam = np.array(DRIFT_STEPS, dtype=np.float64)[None, None, :]
        # bet (half-life h, size s) at h * len(DRIFT_STEPS) + s, as advance_drift's
        inc = (lam * d * z - lam * lam * d * d * r / 2).reshape(len(deals), -1)
        wealth = np.cumsum(np.vstack([np.array(t.bets, dtype=np.float64)[None, :], inc]),
                           axis=0)
        t.bets = wealth[-1].tolist()
        logs = _logmeans(wealth[ends])
    t.log_e = logs[-1] if logs else t.log_e
    return [(m, log_e) for (m, _), log_e in zip(seq, logs, strict=True)]


def _repeats(t: _Test, seq: list[tuple[int, dict[Any, list[Any]]]]) -> list[tuple[int, float]]:
    """Values drawn again over the matches ``seq``, as :meth:`_Test._repeat` a match at a
    time, every value's digest made first, at once (:func:`draw_digests`: the same
    numbers; a digest depends on the value alone)."""
    values = [v for _, obs in seq for figures in obs.values() for v in figures[0::2]]
    digest = dict(zip(values, draw_digests(values), strict=True)).__getitem__
    out = []
    for m, obs in seq:
        t._repeat(obs, digest)
        out.append((m, t.log_e))
    for ref, seen in t.totals.items():  # (past a bound, held as arrays)
        made = held(seen, t.index.get(ref))
        if made is not None:
            t.totals[ref], t.index[ref] = cast(list[Any], made[0]), made[1]  # (a list's)
    return out


_MANY = {"drift": _drift, "fit": _fits, "near": _near, "pairing": _pairing, "cells": _cells,
         "repeat": _repeats}
