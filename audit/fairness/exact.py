"""Exact distributions under a uniform shuffle: sums, patterns and empty classes of draws.

A 13-card hand is ``draws`` items taken without replacement from a population whose
items carry a value (high-card points) or belong to a class (suits). Every distribution
here is computed by counting (hypergeometric and multivariate hypergeometric terms, with
integer arithmetic), never simulated.
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Hashable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import product
from typing import Any, ClassVar

Value = Hashable
TestId = tuple[str, ...]


class _HashedOnce:
    """A frozen reference that keeps its hash, made once when it is made, rather than at
    every use: an archive's tallies are keyed by these references, and hashing their
    nested tuples again for each observation was a fifth of an audit's time. A reference
    travels to another process as its fields and is hashed there anew (a string's hash
    differs between processes). A subclass names its fields in ``_HASHED``."""

    __slots__ = ()
    _HASHED: ClassVar[tuple[str, ...]] = ()
    _hash: int

    def __post_init__(self) -> None:
        object.__setattr__(self, "_hash", hash(self._key()))

    def _key(self) -> tuple[Any, ...]:
        return tuple(getattr(self, n) for n in self._HASHED)

    def _cached_hash(self) -> int:
        return self._hash

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return type(self), self._key()


def _pmf_from_counts(ways: dict[Any, int], total: int) -> dict[Any, float]:
    return {k: float(Fraction(w, total)) for k, w in ways.items() if w}


@dataclass(frozen=True, slots=True)
class DrawSum(_HashedOnce):
    """The sum of the values of ``draws`` items drawn without replacement.

    ``population`` is ``((value, how many items carry it), ...)``. With two values
    (1 and 0) this is the hypergeometric distribution. ``units`` is how many
    sampling units (hands) one draw stands for, so a mean shift is quoted per unit.

    >>> trumps = DrawSum(((1, 13), (0, 39)), 13)   # a suit's cards in a 13-card hand
    >>> round(trumps.pmf()[0], 5), trumps.mean
    (0.01279, 3.25)
    """

    population: tuple[tuple[int, int], ...]
    draws: int
    units: int = 1
    _hash: int = field(init=False, repr=False, compare=False, default=0)
    _HASHED = ("population", "draws", "units")
    __hash__ = _HashedOnce._cached_hash

    @property
    def size(self) -> int:
        return sum(c for _, c in self.population)

    @property
    def mean(self) -> float:
        return self.draws * self._item_mean

    @property
    def _item_mean(self) -> float:
        return sum(v * c for v, c in self.population) / self.size

    @property
    def _item_variance(self) -> float:
        m = self._item_mean
        return sum(c * (v - m) ** 2 for v, c in self.population) / self.size

    @property
    def variance(self) -> float:
        n, big = self.draws, self.size
        return n * self._item_variance * (big - n) / (big - 1) if big > 1 else 0.0

    def covariance(self, other_draws: int) -> float:
        """The covariance of this draw's sum with the sum of ``other_draws`` further,
        disjoint items from the same population."""
        big = self.size
        return -self.draws * other_draws * self._item_variance / (big - 1)

    def pmf(self) -> dict[int, float]:
        return _draw_sum_pmf(self.population, self.draws)

    def order(self) -> list[int]:
        return sorted(self.pmf())


@functools.lru_cache(maxsize=256)
def _draw_sum_pmf(population: tuple[tuple[int, int], ...], draws: int) -> dict[int, float]:
    # ways[(taken, total)]: the number of ways to take ``taken`` items summing to ``total``
    # (of the last class only the items that make up ``draws`` are taken: the other counts
    # would be left out below; the same integers, a fifth of the work of hands' points)
    ways: dict[tuple[int, int], int] = {(0, 0): 1}
    for i, (value, count) in enumerate(population):
        nxt: Counter[tuple[int, int]] = Counter()
        last = i == len(population) - 1
        for (taken, total), w in ways.items():
            for k in range(draws - taken if last else 0, min(count, draws - taken) + 1):
                nxt[(taken + k, total + k * value)] += w * math.comb(count, k)
        ways = dict(nxt)
    size = sum(c for _, c in population)
    by_sum: Counter[int] = Counter()
    for (taken, total), w in ways.items():
        if taken == draws:
            by_sum[total] += w
    return _pmf_from_counts(dict(sorted(by_sum.items())), math.comb(size, draws))


@functools.lru_cache(maxsize=64)
def _class_counts(class_sizes: tuple[int, ...], draws: int) -> dict[tuple[int, ...], int]:
    """How many ways each vector of per-class counts arises (multivariate hypergeometric)."""
    out: dict[tuple[int, ...], int] = {}
    if not class_sizes:
        return {(): 1} if draws == 0 else out
    *head, last_size = class_sizes
    # the last class's count follows from the others': the vectors in the same
    # (lexicographic) order as over every class, without the ones that do not add up
    for counts in product(*(range(min(s, draws) + 1) for s in head)):
        last = draws - sum(counts)
        if 0 <= last <= last_size:
            full = (*counts, last)
            out[full] = math.prod(math.comb(s, k) for s, k in zip(class_sizes, full,
                                                                   strict=True))
    return out


@dataclass(frozen=True, slots=True)
class DrawPattern(_HashedOnce):
    """The class counts of a draw, sorted from the largest: e.g. ``"4-3-3-3"``.

    >>> p = DrawPattern((13, 13, 13, 13), 13).pmf()
    >>> round(p["4-4-3-2"], 4), round(p["4-3-3-3"], 4), len(p)
    (0.2155, 0.1054, 39)
    """

    class_sizes: tuple[int, ...]
    draws: int
    units: int = 1
    _hash: int = field(init=False, repr=False, compare=False, default=0)
    _HASHED = ("class_sizes", "draws", "units")
    __hash__ = _HashedOnce._cached_hash

    def pmf(self) -> dict[str, float]:
        return _pattern_pmf(self.class_sizes, self.draws)

    def order(self) -> list[str]:
        """Most likely first (so the rare patterns are the ones merged together)."""
        pmf = self.pmf()
        return sorted(pmf, key=lambda k: (-pmf[k], k))


@functools.lru_cache(maxsize=32)
def _pattern_pmf(class_sizes: tuple[int, ...], draws: int) -> dict[str, float]:
    ways: Counter[str] = Counter()
    for counts, w in _class_counts(class_sizes, draws).items():
        ways[pattern_name(counts)] += w
    return _pmf_from_counts(dict(ways), math.comb(sum(class_sizes), draws))


def pattern_name(counts: Iterable[int]) -> str:
    """The pattern of class counts, largest first.

    >>> pattern_name([3, 5, 0, 5])
    '5-5-3-0'
    """
    return "-".join(str(c) for c in sorted(counts, reverse=True))


@dataclass(frozen=True, slots=True)
class DrawEmpty(_HashedOnce):
    """How many classes a draw leaves empty (voids, for suits in a hand).

    >>> {k: round(v, 4) for k, v in DrawEmpty((13, 13, 13, 13), 13).pmf().items()}
    {0: 0.9489, 1: 0.051, 2: 0.0001, 3: 0.0}
    """

    class_sizes: tuple[int, ...]
    draws: int
    units: int = 1
    _hash: int = field(init=False, repr=False, compare=False, default=0)
    _HASHED = ("class_sizes", "draws", "units")
    __hash__ = _HashedOnce._cached_hash

    def pmf(self) -> dict[int, float]:
        return _empty_pmf(self.class_sizes, self.draws)

    def order(self) -> list[int]:
        return sorted(self.pmf())

    @property
    def mean(self) -> float:
        return sum(k * p for k, p in self.pmf().items())

    @property
    def variance(self) -> float:
        m = self.mean
        return sum(p * (k - m) ** 2 for k, p in self.pmf().items())


@functools.lru_cache(maxsize=32)
def _empty_pmf(class_sizes: tuple[int, ...], draws: int) -> dict[int, float]:
    ways: Counter[int] = Counter()
    for counts, w in _class_counts(class_sizes, draws).items():
        ways[sum(1 for c in counts if c == 0)] += w
    return _pmf_from_counts(dict(sorted(ways.items())), math.comb(sum(class_sizes), draws))


@dataclass(frozen=True, slots=True)
class DrawClassCount(_HashedOnce):
    """The number of classes a draw holds ``at_least`` items of (``at_least=0``: holds
    none of: voids; 5: the long suits of a hand), summed over ``hands`` disjoint draws
    of ``draws`` items each from one population: its exact mean, variance and the
    covariance with other disjoint draws, by counting (two draws' class counts: the
    second from what the first left), for the joint tests of several seats.

    >>> voids = DrawClassCount((13, 13, 13, 13), 13, 0)
    >>> round(voids.mean, 4), round(voids.variance, 4), round(voids.covariance(13), 5)
    (0.0512, 0.0487, 0.001)
    >>> long = DrawClassCount((13, 13, 13, 13), 13, 5, hands=2)   # two hands' long suits
    >>> round(long.mean / 2, 4), long.units, long.draws
    (0.7053, 2, 26)
    """

    class_sizes: tuple[int, ...]
    hand: int
    at_least: int
    hands: int = 1
    _hash: int = field(init=False, repr=False, compare=False, default=0)
    _HASHED = ("class_sizes", "hand", "at_least", "hands")
    __hash__ = _HashedOnce._cached_hash

    @property
    def units(self) -> int:
        return self.hands

    @property
    def draws(self) -> int:
        return self.hand * self.hands

    @property
    def mean(self) -> float:
        return self.hands * _class_moments(self.class_sizes, self.hand, self.at_least)[0]

    @property
    def variance(self) -> float:
        _, v, c = _class_moments(self.class_sizes, self.hand, self.at_least)
        return self.hands * v + self.hands * (self.hands - 1) * c

    def covariance(self, other_draws: int) -> float:
        """With the sum over ``other_draws // hand`` further disjoint draws."""
        c = _class_moments(self.class_sizes, self.hand, self.at_least)[2]
        return self.hands * (other_draws // self.hand) * c

    def pmf(self) -> dict[int, float]:
        """The exact distribution of the count, summed over the ``hands`` draws (what
        the continuous evidence bets on: a team's voids or long suits, two hands).

        >>> pmf = DrawClassCount((13, 13, 13, 13), 13, 5, hands=2).pmf()
        >>> round(sum(pmf.values()), 12), max(pmf), round(pmf[0], 4)
        (1.0, 4, 0.1329)
        """
        return _class_count_pmf(self.class_sizes, self.hand, self.at_least, self.hands)


def _held(counts: Iterable[int], at_least: int) -> int:
    return sum(1 for k in counts if (k == 0 if at_least == 0 else k >= at_least))


@functools.lru_cache(maxsize=4096)
def _class_ways(class_sizes: tuple[int, ...], draws: int, at_least: int) -> int:
    # by linearity: the sum over classes of the (hypergeometric) ways that a class is
    # held, exactly the mean over every vector of class counts times C(size, draws),
    # without listing them
    size = sum(class_sizes)
    ways = 0
    for s in class_sizes:
        held = range(0, 1) if at_least == 0 else range(at_least, min(s, draws) + 1)
        ways += sum(math.comb(s, k) * math.comb(size - s, draws - k) for k in held)
    return ways


def _class_mean(class_sizes: tuple[int, ...], draws: int, at_least: int) -> Fraction:
    return Fraction(_class_ways(class_sizes, draws, at_least),
                    math.comb(sum(class_sizes), draws))


@functools.lru_cache(maxsize=16)
def _class_moments(class_sizes: tuple[int, ...], draws: int,
                   at_least: int) -> tuple[float, float, float]:
    """One draw's mean and variance, and the covariance of two disjoint draws, exactly:
    whole numbers of ways added up, over one common denominator each (the cards left
    after the first draw are ``size - draws`` whatever it held)."""
    ways = _class_counts(class_sizes, draws)
    size = sum(class_sizes)
    total = math.comb(size, draws)
    mean = _class_mean(class_sizes, draws, at_least)
    square = Fraction(sum(w * _held(c, at_least) ** 2 for c, w in ways.items()), total)
    both = Fraction(sum(
        w * _held(c, at_least) * _class_ways(
            tuple(sorted(s - k for s, k in zip(class_sizes, c, strict=True))), draws, at_least)
        for c, w in ways.items()), total * math.comb(size - draws, draws))
    return float(mean), float(square - mean ** 2), float(both - mean ** 2)


@functools.lru_cache(maxsize=16)
def _class_count_pmf(class_sizes: tuple[int, ...], draws: int, at_least: int,
                     hands: int) -> dict[int, float]:
    """:meth:`DrawClassCount.pmf`: for each half of the classes, the ways each hand's
    count from them and the classes held among them arise (a class of ``s`` items split
    ``a_1, …, a_hands`` among the hands, the rest left: ``s! / (a_1! … a_hands!
    (s - Σa)!)`` ways), in whole numbers; then the two halves that fill every hand."""
    half = len(class_sizes) // 2
    first = _class_splits(class_sizes[:half], draws, at_least, hands)
    rest = first if class_sizes[half:] == class_sizes[:half] else _class_splits(
        class_sizes[half:], draws, at_least, hands)  # (four suits: two halves alike)
    second: dict[tuple[int, ...], list[tuple[int, int]]] = {}
    for (taken, held), w in rest.items():
        second.setdefault(taken, []).append((held, w))
    by_held: Counter[int] = Counter()
    for (taken, held), w in first.items():
        for more, n in second.get(tuple(draws - t for t in taken), ()):
            by_held[held + more] += w * n
    total = math.prod(math.comb(sum(class_sizes) - draws * i, draws) for i in range(hands))
    return _pmf_from_counts(dict(sorted(by_held.items())), total)


def _class_splits(class_sizes: tuple[int, ...], draws: int, at_least: int,
                  hands: int) -> dict[tuple[tuple[int, ...], int], int]:
    """Per (each hand's count from these classes, the classes held among them), the ways."""
    ways: dict[tuple[tuple[int, ...], int], int] = {((0,) * hands, 0): 1}
    for size in class_sizes:
        splits = [(split, _held(split, at_least), _split_ways(size, split))
                  for split in product(range(min(size, draws) + 1), repeat=hands)
                  if sum(split) <= size]
        nxt: Counter[tuple[tuple[int, ...], int]] = Counter()
        for (taken, held), w in ways.items():
            for split, more, n in splits:
                after = tuple(t + a for t, a in zip(taken, split, strict=True))
                if max(after) <= draws:
                    nxt[(after, held + more)] += w * n
        ways = dict(nxt)
    return ways


def _split_ways(size: int, split: tuple[int, ...]) -> int:
    """The ways to give ``split[i]`` of ``size`` items to hand ``i`` (the rest to none)."""
    out, left = 1, size
    for a in split:
        out *= math.comb(left, a)
        left -= a
    return out


@dataclass(frozen=True, slots=True)
class Uniform(_HashedOnce):
    """Every category equally likely (a card dealt last, a seat drawn to deal first).

    >>> Uniform(("a", "b")).pmf()
    {'a': 0.5, 'b': 0.5}
    """

    categories: tuple[Value, ...]
    units: int = 1
    _hash: int = field(init=False, repr=False, compare=False, default=0)
    _HASHED = ("categories", "units")
    __hash__ = _HashedOnce._cached_hash

    def pmf(self) -> dict[Value, float]:
        p = 1 / len(self.categories)
        return dict.fromkeys(self.categories, p)

    def order(self) -> list[Value]:
        return list(self.categories)


@dataclass(frozen=True, slots=True)
class PairedDraws(_HashedOnce):
    """Two disjoint draws from one population: ``a`` items standing for ``ka`` units and
    ``b`` items for ``kb`` units; the statistic is ``sum_a / ka - sum_b / kb``, the
    difference of the per-unit means (e.g. points per computer hand minus points per
    human hand, in one deal).

    >>> d = PairedDraws(((4, 4), (3, 4), (2, 4), (1, 4), (0, 36)), 13, 1, 13, 1)
    >>> d.mean, round(d.variance, 3)   # two hands of one deal: 2V + 2V/3
    (0.0, 45.49)
    """

    population: tuple[tuple[int, int], ...]
    a: int
    ka: int
    b: int
    kb: int
    _hash: int = field(init=False, repr=False, compare=False, default=0)
    _HASHED = ("population", "a", "ka", "b", "kb")
    __hash__ = _HashedOnce._cached_hash

    @property
    def mean(self) -> float:
        return DrawSum(self.population, self.a).mean / self.ka - \
            DrawSum(self.population, self.b).mean / self.kb

    @property
    def variance(self) -> float:
        x, y = DrawSum(self.population, self.a), DrawSum(self.population, self.b)
        return (x.variance / self.ka ** 2 + y.variance / self.kb ** 2
                - 2 * x.covariance(self.b) / (self.ka * self.kb))


Reference = DrawSum | DrawPattern | DrawEmpty | Uniform


@functools.lru_cache(maxsize=16)
def _next_seat_moments(n: int, h: int) -> tuple[Fraction, Fraction]:
    """:class:`NextSeat`'s exact mean and variance (made once: the evidence asks at each
    match)."""
    size = n // h
    pairs = n - 1
    one = Fraction(size, n - 1)  # c + 1 among the seat after c's: size of n - 1 left
    chained = one * Fraction(size, n - 2)  # c, c + 1, c + 2 in three seats in turn
    left = [size - 1, size - 1] + [size] * (h - 2)  # after c and c + 1 placed so
    apart = one * Fraction(sum(left[t] * left[(t + 1) % h] for t in range(h)),
                           (n - 2) * (n - 3))
    disjoint = pairs * (pairs - 1) // 2 - (pairs - 1)
    var = (pairs * one * (1 - one) + 2 * (pairs - 1) * (chained - one * one)
           + 2 * disjoint * (apart - one * one))
    return pairs * one, var


@dataclass(frozen=True, slots=True)
class NextSeat(_HashedOnce):
    """Of the ``cards - 1`` pairs of cards next to each other in a fixed order (card ``c``
    and ``c + 1``), how many a deal gives to consecutive seats in dealing order (``c + 1``
    to the seat after ``c``'s), ``hands`` hands of ``cards / hands`` cards dealt at
    random. A deck in that order shuffled too little and dealt one card a seat leaves
    many such pairs. Its exact mean and variance, by counting (the pmf is not needed: its
    test is a Bernstein bound, :func:`~tarneeb.audit.fairness.joint.bounded_test`).

    >>> r = NextSeat(); r.mean, round(r.variance, 4)
    (13.0, 9.9412)
    """

    cards: int = 52
    hands: int = 4
    units: int = 1
    _hash: int = field(init=False, repr=False, compare=False, default=0)
    _HASHED = ("cards", "hands", "units")
    __hash__ = _HashedOnce._cached_hash

    @property
    def _moments(self) -> tuple[Fraction, Fraction]:
        return _next_seat_moments(self.cards, self.hands)

    @property
    def mean(self) -> float:
        return float(self._moments[0])

    @property
    def variance(self) -> float:
        return float(self._moments[1])

    @property
    def most(self) -> int:
        return self.cards - 1


__all__ = ["DrawClassCount", "DrawEmpty", "DrawPattern", "DrawSum", "NextSeat", "PairedDraws",
           "Reference", "TestId", "Uniform", "Value", "pattern_name"]
