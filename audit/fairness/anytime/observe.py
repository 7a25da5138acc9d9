"""One match's tally (its share) as the e-processes read it: per test, its kind and its
figures per reference (:func:`observations`), for
:mod:`~tarneeb.audit.fairness.anytime.evidence` and
:mod:`~tarneeb.audit.fairness.anytime.batch`."""

from __future__ import annotations

import functools
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


def observations(share: Tally) -> dict[tuple[Any, ...], tuple[str, dict[Any, list[float]]]]:
    """One match's tally (its share) as the e-processes read it: per test (its id, and a
    member or part where it has several), its kind and its figures per reference."""
    out: dict[tuple[Any, ...], tuple[str, dict[Any, list[float]]]] = {}

    def add(test: tuple[Any, ...], kind: str, ref: Any, figures: list[Any]) -> None:
        if kind in _MOMENTS and _moments(ref) is None:
            return
        got = out.get(test)
        if got is None:
            got = out[test] = (kind, {})
        entry = got[1].get(ref)
        if entry is None:
            entry = got[1][ref] = []
        if kind in _LISTED:
            entry.extend(figures)
        elif kind == "placed":
            entry.extend(figures if not entry else figures[1:])
        elif entry:
            for i, v in enumerate(figures):
                entry[i] += v
        else:
            entry.extend(figures)

    def add_sum(test: tuple[Any, ...], ref: Any, n: Any, total: Any) -> None:
        """``add(test, "sum", ref, [n, total])``, without its questions."""
        if _moments(ref) is None:
            return
        got = out.get(test)
        if got is None:
            got = out[test] = ("sum", {})
        entry = got[1].get(ref)
        if entry is None:
            got[1][ref] = [n, total]
        else:
            entry[0] += n
            entry[1] += total

    # the card positions' cells per test and the lag test's entries, in one pass over
    # the sums (in their order)
    placed: dict[Any, list[Any]] = {}
    ordered: list[tuple[Any, Any]] = []
    for key, v in share.sums.items():
        if key[0] == "placed":
            if len(key) == 4:
                cells = placed.get(key[1])
                if cells is None:
                    cells = placed[key[1]] = []
                cells.extend((key[2], key[3], v))
        elif key[0] == "ordered":
            ordered.append((key, v))

    # a fit test's figures per reference, by the test's part of the key (most of a
    # share's entries are a fit's: they skip add's questions, to the same lists)
    fits: dict[Any, dict[Any, list[Any]]] = {}
    for key, n in share.counts.items():
        kind = key[0]
        if kind == "fit" or kind == "fit+mean":
            if kind == "fit+mean":
                add_sum(("mean", *key[1]), key[2], n, n * key[3])
            refs = fits.get(key[1])
            if refs is None:
                test = ("fit", *key[1])
                got = out.get(test)
                if got is None:
                    got = out[test] = ("fit", {})
                refs = fits[key[1]] = got[1]
            entry = refs.get(key[2])
            if entry is None:
                refs[key[2]] = [key[3], n]
            else:
                entry.extend((key[3], n))
        elif kind == "mean":
            add_sum(("mean", *key[1]), key[2], n, share.sums[key])
        elif kind == "member":
            add_sum(("mean", *key[1], key[2]), key[3], n, share.sums[key])
        elif kind == "joint":
            for i, ref in enumerate(key[2]):
                add_sum(("mean", *key[1], str(i)), ref, n,
                        share.sums[("joint", key[1], key[2], i)])
        elif kind == "paired":  # the first draw's sum: its own exact distribution
            ref = key[2]
            add_sum(("mean", *key[1]), _sum_ref(ref.population, ref.a), n,
                    share.sums[("paired-x", key[1], ref)])
        elif kind == "covariate":
            s = [share.sums[(f"covariate-{w}", key[1], key[2])] for w in ("x", "xy", "xx")]
            add(("cov", *key[1]), "cov", key[2], s)
        elif kind == "bounded":
            add(("bound", *key[1]), "bounded", key[2], [n, share.sums[key]])
        elif kind == "repeat":
            add(("repeat", *key[1]), "repeat", (key[2], key[3]), [key[4], n])
            if key[3] == 1 and isinstance(key[4], bytes) and len(key[4]) == DEAL_BYTES:
                # every deal's hands: partners' fit and near-repeats
                for what, test in PAIRING_TESTS.items():
                    add(("pairing", *test), "pairing", what, [key[4]] * n)
                add(("near", *NEAR_TEST), "near", "deals", [key[4]] * n)
        elif kind == "rows":  # each deal in its match: state, drift, serial balance
            measure, ref, rows = key[1][0], key[2], [key[3]] * n
            add(("state", *key[1]), "cells", ref, rows)
            for series in ("seats 1+3", "computer seats"):
                add(("drift", measure, "archive order", series), "drift", (ref, series), rows)
            add(("balance", measure, "successive matches", "each player's side"), "balance",
                ref, rows)
        elif kind == "placed":
            add(("place", *key[1]), "placed", (key[2], key[3]),
                [n, *placed.get(key[1], ())])
    mask = (1 << PACK) - 1
    for key, v in ordered:
        add(("lag", *key[1]), "lag", key[2], [key[3], key[4], v >> PACK, v & mask])
    return out


_MOMENTS = frozenset({"sum", "cov", "lag"})  # kinds whose reference needs numeric moments
# kinds whose figures are a list the match's entries extend
_LISTED = frozenset({"fit", "lag", "repeat", "cells", "drift", "balance", "pairing", "near"})

__all__ = ["PAIRING_TESTS", "observations"]
