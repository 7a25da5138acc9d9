"""The trumps and the trump honours (:mod:`~tarneeb.replay.archive.battery.honours`) over a chunk's
deals at once, for :mod:`~tarneeb.replay.archive.battery.columns`: the honours' columns, and the
tests ``measures.py``'s ``sums`` and ``labels`` make deal by deal of the seats' trumps and
trump honours (the same counts and sums, held to them by ``tests/test_archive_columns.py``)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import numpy.typing as npt

from tarneeb.audit.fairness.streams import Int, KeyOf, Streams
from tarneeb.replay.archive.battery.honours import (
    HONOUR_POPS,
    HONOUR_RANKS,
    HONOUR_VALUES,
    TRUMP_HONOURS,
)
from tarneeb.replay.archive.battery.measures import TRUMPS, _paired_ref, _sum_ref

# the trumps' populations by code (``columns._pop_code``): none, a fixed trump, a card shown
# of another suit, the shown card's own suit
TRUMP_POPS = (None, ((1, 13), (0, 39)), ((1, 13), (0, 38)), ((1, 12), (0, 39)))
_SHOWN = np.array([0, 0, 0, *HONOUR_VALUES], dtype=np.int64)  # by code: the shown card's


def _part(key: KeyOf, i: int) -> KeyOf:
    return lambda k: (*key(k), i)


def honour_columns(hands: npt.NDArray[np.uint64], trump: Int, pop: Int, thirteenth: Int,
                   dealer: Int) -> tuple[Int, Int]:
    """Per deal its population's code (``honour_code``: from the trumps' population
    code ``pop``, 1 fixed, 2 a card shown of another suit, 3 the shown card's own suit),
    and per deal and seat the trump honours' points (the dealer's less its shown card's)."""
    rank = np.where(thirteenth >= 0, thirteenth % 13, 0)
    code = np.where(pop == 1, 1, np.where(pop == 0, 0, 2))
    code = np.where((pop == 3) & (thirteenth >= 0) & (rank >= 9), 15 - rank, code)
    shift = (13 * np.maximum(trump, 0))[:, None]
    points = np.zeros(hands.shape, dtype=np.int64)
    for v, r in zip(HONOUR_VALUES, HONOUR_RANKS, strict=True):
        points += v * ((hands >> (shift + r).astype(np.uint64)) & np.uint64(1)).astype(np.int64)
    points = np.where(code[:, None] > 0, points, 0)
    rows = np.arange(len(code))
    points[rows, dealer] -= _SHOWN[code]
    return code, points


def joint_trumps(s: Streams, c: Any, group: tuple[str, str],
                 split: Callable[[Int], list[Int]], dealer_part: Int, k: int) -> None:
    """``sums``' test of the trumps of the parts ``split`` makes (the positions, the table
    seats, the teams), ``dealer_part`` the part holding the dealer (its shown card left
    out where it is a trump)."""
    _joint(s, c, group, split, dealer_part, k, TRUMPS, c.pop, c.trumps, TRUMP_POPS)


def joint_honours(s: Streams, c: Any, group: tuple[str, str],
                  split: Callable[[Int], list[Int]], dealer_part: Int, k: int) -> None:
    """``sums``' test of the trump honours of the parts ``split`` makes."""
    _joint(s, c, group, split, dealer_part, k, TRUMP_HONOURS, c.honour_code, c.honours,
           HONOUR_POPS)


def _joint(s: Streams, c: Any, group: tuple[str, str], split: Callable[[Int], list[Int]],
           dealer_part: Int, k: int, measure: str, codes: Int, values: Int,
           pops: tuple[Any, ...]) -> None:
    """The joint test of ``measure`` (per deal and seat ``values``, drawn from the
    population ``pops[codes]``; none where the code is 0) over the parts ``split`` makes."""
    t = np.flatnonzero(codes > 0)
    if not len(t):
        return
    per_part = split(values)
    n = len(per_part)
    code = (codes[t] * 2 + c.reveals[t]) * 8 + np.where(c.reveals[t], dealer_part[t], 7)
    test = (measure, *group)

    def refs(code: int) -> tuple[Any, ...]:
        pop, reveals, dp = pops[code >> 4], code >> 3 & 1, code & 7
        return tuple(_sum_ref(pop, 13 * k - (1 if reveals and i == dp else 0), k)
                     for i in range(n))

    def key(x: int) -> tuple[Any, ...]:
        return ("joint", test, refs(x))

    match = c.match[t]
    s.count(match, code, key)
    for i, v in enumerate(per_part):
        s.total(match, code, _part(key, i), v[t])


def paired_drawn(s: Streams, c: Any, rows: Int, comp: Int, kc: Int, dealer_comp: Int,
                 group: tuple[str, str], pairs: Callable[..., None]) -> None:
    """``labels``' tests of the computer seats' trumps and trump honours against the human
    seats', in the deals ``rows`` (both labels present; ``comp`` per deal and seat whether
    it is a computer's, ``kc`` how many, ``dealer_comp`` whether the dealer is one)."""
    for measure, codes, values, pops in ((TRUMPS, c.pop, c.trumps, TRUMP_POPS),
                                         (TRUMP_HONOURS, c.honour_code, c.honours,
                                          HONOUR_POPS)):
        t = codes[rows] > 0
        if not t.any():
            continue
        r = rows[t]
        known_c = (c.reveals[r] & (dealer_comp[t] == 1)).astype(np.int64)
        known_h = (c.reveals[r] & (dealer_comp[t] == 0)).astype(np.int64)
        vx = (values[r] * comp[t]).sum(axis=1)
        vy = values[r].sum(axis=1) - vx
        code = ((codes[r] * 2 + known_c) * 2 + known_h) * 4 + kc[t]

        def ref(code: int, pops: tuple[Any, ...] = pops) -> Any:
            pop, k = pops[code >> 4], code & 3
            return _paired_ref(pop, 13 * k - (code >> 3 & 1), k,
                               13 * (4 - k) - (code >> 2 & 1), 4 - k)

        pairs(s, c.match[r], code, group, measure, vx, vy, ref)


__all__ = ["TRUMP_POPS", "honour_columns", "joint_honours", "joint_trumps", "paired_drawn"]
