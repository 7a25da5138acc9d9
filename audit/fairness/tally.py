"""Observations grouped by test: integer counts that merge by addition, then every result.

Counts made on different processes or machines merge into exactly the same result,
whatever the order; :meth:`Tally.results` then runs every test, corrects them together
and computes each one's power.
"""

from __future__ import annotations

import hashlib
import itertools
import operator
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from tarneeb.audit.fairness.correction import DEFAULT_ALPHA, correct_all
from tarneeb.audit.fairness.exact import DrawEmpty, DrawSum, PairedDraws, Reference, TestId, Value
from tarneeb.audit.fairness.joint import (
    PACK,
    bounded_test,
    covariate_test,
    joint_test,
    lag_test,
    max_test,
    repeats_result,
    repeats_test,
)
from tarneeb.audit.fairness.nearrepeat import DEAL_BYTES, Deals, deal_tests
from tarneeb.audit.fairness.placement import placement_test
from tarneeb.audit.fairness.power import DEFAULT_POWER
from tarneeb.audit.fairness.state import row_tests
from tarneeb.audit.fairness.tests import StatResult, _g_test, _mean_test, _paired_test


def draw_digest(value: int | bytes) -> int:
    """A drawn value (an int or bytes) as 63 bits of its BLAKE2b digest: what the
    continuous audit's bet on values drawn again keeps of each (8 bytes, whatever the
    value). Two values taken for one differ with chance 2⁻⁶³: a million logs of 20 deals
    make such a pair with chance about 10⁻⁵, a false repeat, never a repeat missed."""
    data = value if isinstance(value, bytes) else int(value).to_bytes(
        (int(value).bit_length() + 8) // 8, "big", signed=True)
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "big") >> 1


def _add(mine: Counter[tuple[Any, ...]], theirs: Counter[tuple[Any, ...]]) -> None:
    """``Counter.update(theirs)`` on ``mine``, the same sums in the same order, with its
    loop in C: a run merges hundreds of shares of a few hundred keys (an empty ``mine``
    takes ``theirs`` whole, as ``Counter.update`` does)."""
    if not mine or mine is theirs:
        mine.update(theirs)
        return
    add_values(mine, theirs, theirs.values())


def add_values(into: dict[Any, int], keys: Iterable[Any], values: Iterable[int]) -> None:
    """Add each of ``values`` to ``into``'s value of its key in ``keys`` (0 when it has
    none), in order, with the loop in C: a key given twice gets both (each sum read as
    the one before is written).

    >>> d = {"a": 1}; add_values(d, ["a", "b", "a"], [2, 3, 4]); d
    {'a': 7, 'b': 3}
    """
    keys = list(keys)
    dict.update(into, zip(keys, map(operator.add, values,
                                    map(into.get, keys, itertools.repeat(0))), strict=True))


def draw_digests(values: Iterable[int | bytes]) -> list[int]:
    """:func:`draw_digest` of each of ``values``, the same numbers, for many at once:
    values in bytes hashed by copies of one hasher (cheaper than a hasher made a value),
    their digests' numbers made by numpy at once (the continuous audit's, which has it)."""
    given = list(values)
    data = [v for v in given if isinstance(v, bytes)]
    if len(data) != len(given):
        return [draw_digest(v) for v in given]
    import numpy as np
    out: list[int] = (np.frombuffer(digest_bytes(data), dtype=">u8") >> np.uint64(1)).tolist()
    return out


def digest_bytes(values: Iterable[bytes]) -> bytes:
    """The 8-byte BLAKE2b digests of ``values``, joined (each :func:`draw_digest` before
    its shift), by copies of one hasher (cheaper than a hasher made a value)."""
    proto, digests = hashlib.blake2b(digest_size=8), []
    for v in values:
        h = proto.copy()
        h.update(v)
        digests.append(h.digest())
    return b"".join(digests)


class Tally:
    """Integer counts of observations, per test and per reference distribution.

    Every observation names its test (a tuple of labels, e.g. ``("hcp", "seat",
    "dealer")``) and the exact distribution it follows under a uniform shuffle,
    which may differ from one observation to the next (a mixture is fine: the
    expected counts add up). Tallies :meth:`merge` by adding counts, so the result
    does not depend on how the work was split.
    """

    __slots__ = ("counts", "sums")

    def __init__(self) -> None:
        self.counts: Counter[tuple[Any, ...]] = Counter()
        self.sums: Counter[tuple[Any, ...]] = Counter()  # integer sums for z-tests

    def fit(self, test: TestId, ref: Reference, value: Value) -> None:
        """One observation for a G-test of its distribution."""
        self.counts[("fit", test, ref, value)] += 1

    def fit_and_mean(self, test: TestId, ref: DrawSum | DrawEmpty, value: int) -> None:
        """One observation for both a G-test and a z-test of the mean (one count kept)."""
        self.counts[("fit+mean", test, ref, value)] += 1

    def mean(self, test: TestId, ref: DrawSum | DrawEmpty, value: int) -> None:
        """One observation for a z-test of the mean (``value`` a whole number)."""
        self.counts[("mean", test, ref)] += 1
        self.sums[("mean", test, ref)] += value

    def paired(self, test: TestId, ref: PairedDraws, x: int, y: int) -> None:
        """One pair of sums (``x`` of the ``a`` items, ``y`` of the ``b`` items)."""
        self.counts[("paired", test, ref)] += 1
        self.sums[("paired-x", test, ref)] += x
        self.sums[("paired-y", test, ref)] += y

    def joint(self, test: TestId, refs: tuple[DrawSum, ...], values: tuple[int, ...]) -> None:
        """One deal's sums of disjoint draws from one population (e.g. the points of the
        four seats), tested together against their exact covariance: the group names
        are ``test``'s last label, joined by ``|`` (``("hcp", "seat", "N|E|S|W")``)."""
        self.counts[("joint", test, refs)] += 1
        for i, v in enumerate(values):
            self.sums[("joint", test, refs, i)] += v

    def member(self, test: TestId, member: str, ref: DrawSum | DrawEmpty, value: int) -> None:
        """One observation of a member (a player by name) for the max test over members."""
        self.counts[("member", test, member, ref)] += 1
        self.sums[("member", test, member, ref)] += value

    def covariate(self, test: TestId, ref: DrawSum, x: int, value: int) -> None:
        """One value with the covariate ``x`` it must not depend on (an integer)."""
        self.counts[("covariate", test, ref)] += 1
        for what, v in (("x", x), ("xx", x * x), ("y", value), ("xy", x * value)):
            self.sums[("covariate-" + what, test, ref)] += v

    def drawn(self, test: TestId, value: int | bytes, population: float,
              sampled: int) -> None:
        """One draw of ``value`` (one of ``population`` equally likely values), kept by a
        sample of one value in ``sampled`` (the caller keeps it or not), for the test of
        values drawn again. The value is kept whole: the tests of near-repeated hands and
        of partners' fit read every deal's hands (the continuous audit's bet keeps only
        :func:`draw_digest`)."""
        self.counts[("repeat", test, population, sampled, value)] += 1

    def placed(self, test: TestId, sizes: tuple[int, ...], items: tuple[str, ...], samples: int,
               cells: dict[tuple[int, int], int]) -> None:
        """``samples`` permutations of ``items`` into groups of ``sizes`` (a match's deals),
        ``cells[(group, item index)]`` how often each item landed in each group."""
        self.counts[("placed", test, sizes, items)] += samples
        for (g, i), k in cells.items():
            self.sums[("placed", test, g, i)] += k

    def ordered(self, test: TestId, ref: DrawSum, series: int, index: int, total: int,
                n: int) -> None:
        """A member of a series (a match at leaf ``index`` of the season ``series``): the
        sum ``total`` of its ``n`` draws of ``ref``, for the test of consecutive members
        (one entry a match: ``total`` and ``n`` packed in one integer)."""
        self.counts[("ordered", test, ref)] += 1
        self.sums[("ordered", test, ref, series, index)] += (total << PACK) + n

    def bounded(self, test: TestId, ref: Any, value: int) -> None:
        """One observation of a bounded whole number (``ref`` gives its exact mean and
        variance and its largest value), for a test by Bernstein's bound."""
        self.counts[("bounded", test, ref)] += 1
        self.sums[("bounded", test, ref)] += value

    def rows(self, test: TestId, ref: DrawSum, row: tuple[Any, ...]) -> None:
        """One match's row of numbers (its deals, packed), for the tests that need each
        deal in its match and the archive's order (:func:`~tarneeb.audit.fairness.state.\
row_tests`); ``ref`` the distribution of one hand's value."""
        self.counts[("rows", test, ref, row)] += 1

    def merge(self, other: Tally) -> Tally:
        _add(self.counts, other.counts)
        _add(self.sums, other.sums)
        return self

    def __bool__(self) -> bool:
        return bool(self.counts)

    def tests(self) -> list[tuple[str, TestId]]:
        """The ``(kind, test)`` pairs observed: kind is fit, mean or paired."""
        return sorted({(k[0], k[1]) for k in self.counts}, key=repr)

    def results(self, alpha: float = DEFAULT_ALPHA, power: float = DEFAULT_POWER,
                select: Callable[[TestId], bool] | None = None,
                detectable: bool = True, correct: bool = True,
                repeats: dict[TestId, tuple[float, int, int, int, Any]] | None = None,
                rows: dict[TestId, Any] | None = None,
                lags: dict[TestId, Any] | None = None,
                ) -> list[StatResult]:
        """Every test (or those ``select`` keeps), Holm-corrected together at
        family-wise level ``alpha``; ``detectable=False`` skips the power calculation;
        ``correct=False`` leaves the correction (and the power, which depends on it) to
        the caller, who corrects these tests together with others
        (:func:`~tarneeb.audit.fairness.correction.correct_all`). ``repeats``: repeat tests
        whose values are kept apart (per test: population, sample rate, values drawn,
        equal pairs, and a function giving the values drawn: every deal as
        :class:`~tarneeb.audit.fairness.nearrepeat.Deals`, or each value's count, or None;
        :class:`~tarneeb.replay.archive.battery.repeats.Repeats`), tested in their place among
        the others. ``rows``: the matches' rows kept apart (per test, an object whose
        ``ref`` is the test's reference, ``decoded()`` gives the rows as
        :func:`~tarneeb.audit.fairness.state.decode` does and ``counts()`` as this tally's
        counts would hold them; :class:`~tarneeb.replay.archive.battery.repeats.Rows`). ``lags``:
        lag tests' entries kept apart (per test, an object whose ``entries()`` gives
        ``(series, index) -> value``, added to the sums' ones:
        :class:`~tarneeb.replay.archive.battery.repeats.Ordered`)."""
        groups: dict[tuple[str, TestId], dict[Any, int]] = {}
        for key, n in self.counts.items():
            if select is not None and not select(key[1]):
                continue
            groups.setdefault((key[0], key[1]), {})[key[2:]] = n
        kept_apart = {("repeat", t): v for t, v in (repeats or {}).items()
                      if select is None or select(t)}
        for kind_test in kept_apart:
            groups.setdefault(kind_test, {})
        rows_apart = {("rows", t): v for t, v in (rows or {}).items()
                      if select is None or select(t)}
        for kind_test in rows_apart:
            groups.setdefault(kind_test, {})
        out: list[StatResult] = []
        for (kind, test), counts in sorted(groups.items(), key=lambda kv: repr(kv[0])):
            if kind != "repeat":  # in a fixed order, so that floating-point sums are too:
                # a tally summed in another order (an audit with a state) gives the same
                counts = dict(sorted(counts.items(), key=lambda kv: repr(kv[0])))
            if kind in ("fit", "fit+mean"):
                out.append(_g_test(test, counts))
            if kind == "fit+mean":
                strata: Counter[Any] = Counter()
                totals: Counter[Any] = Counter()
                for (ref, value), k in counts.items():
                    strata[ref] += k
                    totals[ref] += k * value
                out.append(_mean_test(test, [(r, k, totals[r]) for r, k in strata.items()]))
            elif kind == "mean":
                out.append(_mean_test(test, [(ref, k, self.sums[("mean", test, ref)])
                                             for (ref,), k in counts.items()]))
            elif kind == "paired":
                out.append(_paired_test(test, counts, self.sums))
            elif kind == "joint":
                out.append(joint_test(test, tuple(test[-1].split("|")), counts, self.sums))
            elif kind == "member":
                members: dict[str, list[tuple[Any, int, int]]] = {}
                for (name, ref), k in counts.items():
                    members.setdefault(name, []).append(
                        (ref, k, self.sums[("member", test, name, ref)]))
                out.append(max_test(test, members))
            elif (kind, test) in kept_apart:
                if counts:
                    raise ValueError(f"repeats of {test} both in the tally and apart")
                population, sampled, kept, pairs, values = kept_apart[(kind, test)]
                out.append(repeats_result(test, kept, pairs, population, sampled))
                if sampled == 1:  # every deal: the tests that need its hands too
                    drawn = values()  # the Deals (numpy arrays), or value -> count
                    if isinstance(drawn, Deals) or (drawn is not None and all(
                            isinstance(v, bytes) and len(v) == DEAL_BYTES for v in drawn)):
                        out.extend(deal_tests(drawn))
            elif kind == "repeat":
                by_value: dict[Any, int] = {}
                (population, sampled) = next(iter(counts))[:2]
                for (_, _, value), k in counts.items():
                    by_value[value] = by_value.get(value, 0) + k
                out.append(repeats_test(test, by_value, population, sampled))
                if sampled == 1 and all(isinstance(v, bytes) and len(v) == DEAL_BYTES
                                        for v in by_value):  # every deal, its hands
                    out.extend(deal_tests(by_value))
            elif kind == "rows" and (kind, test) in rows_apart and not counts:
                apart = rows_apart[(kind, test)]
                out.extend(row_tests(test, apart.ref, {}, apart.decoded()))
            elif kind == "rows":
                if (kind, test) in rows_apart:  # some in the tally too: together
                    counts = dict(counts)
                    for key, n in rows_apart[(kind, test)].counts().items():
                        counts[key] = counts.get(key, 0) + n
                ref = next(iter(counts))[0]
                out.extend(row_tests(test, ref, counts))
            elif kind == "ordered":
                (ref,) = next(iter(counts))
                entries = {k[3:]: v for k, v in self.sums.items()
                           if k[0] == "ordered" and k[1] == test}
                if lags is not None and test in lags:
                    for k, v in lags[test].entries().items():
                        entries[k] = entries.get(k, 0) + v
                out.append(lag_test(test, ref, entries))
            elif kind == "bounded":
                (ref,) = next(iter(counts))
                out.append(bounded_test(test, ref, sum(counts.values()),
                                        self.sums[("bounded", test, ref)]))
            elif kind == "placed":
                (sizes, items) = next(iter(counts))
                cells = {(g, i): self.sums[("placed", test, g, i)]
                         for g in range(len(sizes)) for i in range(len(items))}
                out.append(placement_test(test, sizes, items, sum(counts.values()), cells))
            elif kind == "covariate":
                out.append(covariate_test(test, [
                    (ref, k, *(self.sums[("covariate-" + w, test, ref)]
                               for w in ("x", "xx", "y", "xy")))
                    for (ref,), k in sorted(counts.items(), key=lambda kv: repr(kv[0]))]))
        if correct:
            correct_all(out, alpha, power, detectable)
        return out



__all__ = ["Tally", "add_values", "digest_bytes", "draw_digest", "draw_digests"]
