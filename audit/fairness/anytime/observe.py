"""Matches' tallies (their shares) as the e-processes read them: per test, its kind and its
figures per reference, one match's (:func:`observations`, for
:mod:`~tarneeb.audit.fairness.anytime.evidence`) or many matches' at once, per test the
matches that observe it (:func:`gather`, for :mod:`~tarneeb.audit.fairness.anytime.batch`).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from typing import Any

from tarneeb.audit.fairness.anytime.threats import _moments
from tarneeb.audit.fairness.exact import DrawSum
from tarneeb.audit.fairness.joint import PACK
from tarneeb.audit.fairness.nearrepeat import DEAL_BYTES
from tarneeb.audit.fairness.nearrepeat import TEST as NEAR_TEST
from tarneeb.audit.fairness.tally import Tally

# the fixed-sample tests of partners' fit (fit.py) and near-repeats (nearrepeat.py)
PAIRING_TESTS = {"suit": ("suit fit", "partners", "suit lengths"),
                 "honour": ("honour fit", "partners", "honours in the partner's suits")}
_sum_ref = functools.lru_cache(maxsize=256)(DrawSum)

# a test's figures: per match that observes it (its index among the shares, in order), its
# figures per reference
Seq = list[tuple[int, dict[Any, list[Any]]]]


def observations(share: Tally) -> dict[tuple[Any, ...], tuple[str, dict[Any, list[float]]]]:
    """One match's tally (its share) as the e-processes read it: per test (its id, and a
    member or part where it has several), its kind and its figures per reference."""
    return {test: (kind, seq[0][1]) for test, (kind, seq) in gather([share]).items()}


def gather(shares: Sequence[Tally | None]) -> dict[tuple[Any, ...], tuple[str, Seq]]:
    """:func:`observations` of each of ``shares`` (None: a match with no observations) at
    once, per test: its kind and its figures per match that observes it (the match's
    index in ``shares``, in order), each match's as :func:`observations` gives them (the
    same references in the same order, the same lists)."""
    out: dict[tuple[Any, ...], tuple[str, Seq]] = {}
    # per test: its matches' figures, the last match it has figures of and those figures
    recs: dict[tuple[Any, ...], list[Any]] = {}
    # Speed: a share's keys are new tuples (read from bytes) but its references are few
    # objects: what is asked of a reference is kept by its id (the reference kept with
    # it, so that the id stays its own), not asked of its hash (a Python call) at each
    # key; and each test's record is found by the key's test part, its id not made again.
    numeric: dict[int, tuple[Any, bool]] = {}  # has numeric moments (sum, cov, lag)
    firsts: dict[int, tuple[Any, Any]] = {}  # a paired reference's first draw
    fits: dict[tuple[Any, ...], list[Any]] = {}  # per test part: the fit test's record
    means: dict[tuple[Any, ...], list[Any]] = {}  # per test part: the sum test's record
    repeats: dict[tuple[Any, ...], list[Any]] = {}  # per test part: the repeat test's record
    # per joint test part and its references (their ids), the references and each part's
    # sum test's record (None: its reference has no numeric moments)
    joints: dict[tuple[Any, ...], tuple[Any, list[list[Any] | None]]] = {}
    deals: list[tuple[list[Any], Any]] = []  # the tests of every deal's hands: record, ref
    m = 0

    def record(test: tuple[Any, ...], kind: str) -> list[Any]:
        rec = recs.get(test)
        if rec is None:
            seq: Seq = []
            out[test] = (kind, seq)
            rec = recs[test] = [seq, -1, None]
        return rec

    def figures(rec: list[Any], m: int) -> dict[Any, list[Any]]:
        """The record's figures of match ``m`` (a new dict at its first: a test's
        matches come in order)."""
        if rec[1] != m:
            rec[1], rec[2] = m, {}
            rec[0].append((m, rec[2]))
        got: dict[Any, list[Any]] = rec[2]
        return got

    def has_moments(ref: Any) -> bool:
        got = numeric.get(id(ref))
        if got is None:
            got = numeric[id(ref)] = (ref, _moments(ref) is not None)
        return got[1]

    def add(test: tuple[Any, ...], kind: str, ref: Any, figs: list[Any]) -> None:
        if kind in _MOMENTS and not has_moments(ref):
            return
        obs = figures(record(test, kind), m)
        entry = obs.get(ref)
        if entry is None:
            entry = obs[ref] = []
        if kind in _LISTED:
            entry.extend(figs)
        elif kind == "placed":
            entry.extend(figs if not entry else figs[1:])
        elif entry:
            for i, v in enumerate(figs):
                entry[i] += v
        else:
            entry.extend(figs)

    def add_sum(part: tuple[Any, ...], ref: Any, n: Any, total: Any) -> list[Any] | None:
        """``add(("mean", *part), "sum", ref, [n, total])``, without its questions; the
        reference's figures (None: not numeric)."""
        if not has_moments(ref):
            return None
        rec = means.get(part)
        if rec is None:
            rec = means[part] = record(("mean", *part), "sum")
        return sum_into(figures(rec, m), ref, n, total)

    def sum_into(obs: dict[Any, list[Any]], ref: Any, n: Any, total: Any) -> list[Any]:
        """``[n, total]`` added to the figures of ``ref`` in ``obs``; those figures."""
        entry = obs.get(ref)
        if entry is None:
            entry = obs[ref] = [n, total]
        else:
            entry[0] += n
            entry[1] += total
        return entry

    def joint_parts(part: tuple[Any, ...], refs: tuple[Any, ...]) -> list[list[Any] | None]:
        """The records of a joint test's parts (made at their first numeric figures)."""
        key = (part, tuple(map(id, refs)))
        known = joints.get(key)
        if known is None:
            known = joints[key] = (refs, [record(("mean", *part, str(i)), "sum")
                                          if has_moments(ref) else None
                                          for i, ref in enumerate(refs)])
        return known[1]

    mask = (1 << PACK) - 1
    for m, share in enumerate(shares):
        if share is None:
            continue
        sums = share.sums
        # the card positions' cells per test, the lag test's entries and the joint tests'
        # parts' sums, in one pass over the sums (in their order)
        placed: dict[Any, list[Any]] = {}
        ordered: list[tuple[Any, Any]] = []
        # per joint test part and tuple of references (its id: the share holds it), each
        # part's sum (None: not seen)
        joint: dict[tuple[Any, int], list[Any]] = {}
        cells: list[Any] = []
        last: Any = None  # the test part of ``cells`` (a tally's cells come in a run)
        for key, v in sums.items():
            what = key[0]
            if what == "placed":
                if len(key) == 4:
                    if key[1] is not last:
                        last = key[1]
                        cells = placed.setdefault(last, [])
                    cells += (key[2], key[3], v)
            elif what == "joint" and len(key) == 4 and type(key[2]) is tuple:
                parts = joint.get((key[1], id(key[2])))
                if parts is None:
                    parts = joint[(key[1], id(key[2]))] = [None] * len(key[2])
                if type(key[3]) is int and 0 <= key[3] < len(parts):
                    parts[key[3]] = v
            elif what == "ordered":
                ordered.append((key, v))

        # most of a share's entries are a fit's: consecutive ones of one test and
        # reference extend the same lists
        last_part: Any = None
        last_ref: Any = None
        entry: Any = None
        mean: list[Any] | None = None
        for key, n in share.counts.items():
            kind = key[0]
            if kind == "fit" or kind == "fit+mean":
                part, ref = key[1], key[2]
                if ref is last_ref and part == last_part:
                    entry += (key[3], n)  # (in place: extend, without its call)
                    if kind == "fit+mean":
                        if mean is None:  # the first of the test's fit+mean entries
                            mean = add_sum(part, ref, n, n * key[3])
                        else:
                            mean[0] += n
                            mean[1] += n * key[3]
                    continue
                mean = add_sum(part, ref, n, n * key[3]) if kind == "fit+mean" else None
                rec = fits.get(part)
                if rec is None:
                    rec = fits[part] = record(("fit", *part), "fit")
                obs = figures(rec, m)
                entry = obs.get(ref)
                if entry is None:
                    entry = obs[ref] = [key[3], n]
                else:
                    entry += (key[3], n)
                last_part, last_ref = part, ref
            elif kind == "joint":
                part, refs = key[1], key[2]
                # its parts' sums from the pass over the sums when they hold the same
                # tuple of references (the tally's), else looked up (missing: the 0 of a
                # share's Counter)
                totals = joint.get((part, id(refs))) or [None] * len(refs)
                for i, (ref, rec, total) in enumerate(zip(refs, joint_parts(part, refs),
                                                          totals, strict=True)):
                    if rec is None:
                        continue
                    if total is None:
                        total = sums[("joint", part, refs, i)]
                    sum_into(figures(rec, m), ref, n, total)
            elif kind == "repeat":
                rec = repeats.get(key[1])
                if rec is None:
                    rec = repeats[key[1]] = record(("repeat", *key[1]), "repeat")
                obs = figures(rec, m)
                drawn = obs.get((key[2], key[3]))
                if drawn is None:
                    obs[(key[2], key[3])] = [key[4], n]
                else:
                    drawn += (key[4], n)
                if key[3] == 1 and isinstance(key[4], bytes) and len(key[4]) == DEAL_BYTES:
                    # every deal's hands: partners' fit and near-repeats
                    if not deals:
                        deals.extend((record(("pairing", *test), "pairing"), what)
                                     for what, test in PAIRING_TESTS.items())
                        deals.append((record(("near", *NEAR_TEST), "near"), "deals"))
                    for rec, what in deals:
                        figures(rec, m).setdefault(what, []).extend([key[4]] * n)
            elif kind == "mean":
                add_sum(key[1], key[2], n, sums[key])
            elif kind == "member":
                add_sum((*key[1], key[2]), key[3], n, sums[key])
            elif kind == "paired":  # the first draw's sum: its own exact distribution
                ref = key[2]
                first = firsts.get(id(ref))
                if first is None:
                    first = firsts[id(ref)] = (ref, _sum_ref(ref.population, ref.a))
                add_sum(key[1], first[1], n, sums[("paired-x", key[1], ref)])
            elif kind == "covariate":
                s = [sums[(w, key[1], key[2])] for w in _COVARIATE]
                add(("cov", *key[1]), "cov", key[2], s)
            elif kind == "bounded":
                add(("bound", *key[1]), "bounded", key[2], [n, sums[key]])
            elif kind == "rows":  # each deal in its match: state, drift, serial balance
                measure, ref, rows = key[1][0], key[2], [key[3]] * n
                add(("state", *key[1]), "cells", ref, rows)
                for series in ("seats 1+3", "computer seats"):
                    add(("drift", measure, "archive order", series), "drift", (ref, series),
                        rows)
                add(("balance", measure, "successive matches", "each player's side"),
                    "balance", ref, rows)
            elif kind == "placed":
                add(("place", *key[1]), "placed", (key[2], key[3]),
                    [n, *placed.get(key[1], ())])
        for key, v in ordered:
            add(("lag", *key[1]), "lag", key[2], [key[3], key[4], v >> PACK, v & mask])
    return out


_COVARIATE = ("covariate-x", "covariate-xy", "covariate-xx")  # a covariate's sums, in turn
_MOMENTS = frozenset({"sum", "cov", "lag"})  # kinds whose reference needs numeric moments
# kinds whose figures are a list the match's entries extend
_LISTED = frozenset({"fit", "lag", "repeat", "cells", "drift", "balance", "pairing", "near"})

__all__ = ["PAIRING_TESTS", "Seq", "gather", "observations"]
