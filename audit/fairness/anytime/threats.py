"""The bets' arithmetic, and the e-processes of the threats read from every deal.

:mod:`~tarneeb.audit.fairness.anytime.evidence` keeps the archive's e-processes; here is what its
bets share (the exact ``ψ`` of a reference, a sub-Gaussian variance proxy, the average
of bets as a log), the card positions' step (:func:`placed_step`) and the bets of the
fixed-sample tests that read each deal in its match (:mod:`~tarneeb.audit.fairness.state`,
:mod:`~tarneeb.audit.fairness.drift`) or every deal's hands
(:mod:`~tarneeb.audit.fairness.nearrepeat`, :mod:`~tarneeb.audit.fairness.fit`), so that
the continuous audit tests what the fixed-sample battery tests. Each is a wealth that a
fair shuffle keeps at 1 on average at every match (a nonnegative supermartingale, most
of them a martingale):

* **State-adaptive dealing** (:func:`advance_cells`): per cell (a subject, a state of
  the match, as the state test's: the two teams, the computer and the human seats, each
  named player once they have :data:`~tarneeb.audit.fairness.state.MIN_PLAYER_MATCHES`
  matches, times the seven states), the sum of the subject's seats' points in each
  deal dealt in that state, bet on with the exact ``ψ`` of ``k`` hands' points
  (``k`` the seats in the cell that deal): the state is a function of the deals before,
  so under a fair shuffle each deal's points are independent of whether it is in the
  cell, and each factor has mean exactly 1. The test's e-value is the average of its
  cells': half the weight to the 28 cells of the teams and labels (equal), half to the
  players, the k-th player to qualify ``1/(k(k+1))`` of it, split over its states.
* **Drift** (:func:`advance_drift`): per series (seats 1+3's points; the computer seats'
  points in deals with human seats too), each deal's standardised value ``z`` against
  a direction learnt from the deals before it (an exponentially weighted mean of their
  ``z``, at two half-lives, clipped to ±1): ``λ d z − λ² d² r / 2``, ``r`` the
  standardised variance proxy of the exact distribution. ``d`` is known before the
  deal: a supermartingale. It bets that the next deal deviates as the recent ones did,
  so a bias that comes, goes or turns over the archive's life is bet on as it is
  (where a mean's e-process would give back what it won once the bias turns).
* **Serial balance** (:func:`advance_balance`): each match's luck of seats 1+3 (its
  points against their exact mean, over their exact standard deviation) against the
  covariate ``X``, the sum over its four players of their side's luck in their match
  before (signed by the side they sit on now): a player's successive matches, as the
  lag test bets on consecutive ones, bounded by the variance proxy.
* **Partners' fit** (:func:`advance_pairing`): given a deal's four hands (unordered),
  which two are partners is one of three pairings, each of chance 1/3 under a fair
  shuffle; the dealt pairing's fit less the three's mean is bet on with its exact ``ψ``
  (the log of the mean of ``exp(λ·)`` over the three), ``λ`` scaled by the deal's own
  spread (a function of the unordered hands): a martingale, exact.
* **Near-repeats**: :mod:`~tarneeb.audit.fairness.anytime.near`.
"""

from __future__ import annotations

import functools
import itertools
import math
import operator
from collections.abc import Iterable, Sequence
from typing import Any

from tarneeb.audit.fairness.exact import DrawSum
from tarneeb.audit.fairness.fit import pairing_values
from tarneeb.audit.fairness.nearrepeat import hands_of
from tarneeb.audit.fairness.state import DEAL_ROW, MIN_PLAYER_MATCHES, STATES, TEAMS, _side_in

STEPS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5)  # bet sizes, in units of 1/sd of one observation
# a covariate's scale is not known beforehand (a side behind is ±1, a score difference
# is in points): its bets span more sizes, per unit of the covariate
COV_STEPS = (1e-4, 3e-4, 1e-3, 3e-3, 0.01, 0.03, 0.1, 0.3)
DRIFT_HALF_LIVES = (100, 1000)  # deals: the drift bet's learnt direction
DRIFT_STEPS = (0.5, 1.0, 2.0)  # the drift bet's sizes, per unit of the learnt direction
BALANCE_STEPS = (0.02, 0.05, 0.1, 0.2, 0.5)  # per unit of the covariate (a sum of z's)
PAIRING_STEPS = (0.05, 0.1, 0.2, 0.5)  # per unit of the deal's spread of the three fits
_LABEL_CELLS = 4 * len(STATES)  # the teams' and the labels' cells
_BITS = [m.bit_count() for m in range(16)]


def _held(a: int, b: int, c: int, d: int) -> list[int]:
    """Per set of seats (a bit mask of seats 0..3), the sum of their values."""
    ab, cd = a + b, c + d
    return [0, a, b, ab, c, a + c, b + c, ab + c, d, a + d, b + d, ab + d, cd, a + cd, b + cd,
            ab + cd]


@functools.lru_cache(maxsize=1024)
def _sizes(sd: float) -> tuple[float, ...]:
    """The bets' sizes (up, then down, per ``STEPS``) for one observation of sd ``sd``."""
    n = len(STEPS)
    return tuple((1 if j < n else -1) * STEPS[j % n] / sd for j in range(2 * n))


@functools.lru_cache(maxsize=1024)
def _moments(ref: Any) -> tuple[float, float, tuple[float, ...]] | None:
    """Mean, sd and ``ψ`` at each bet (up then down, per ``STEPS``) of one observation of
    ``ref``; None when it has no numeric pmf."""
    dist = _dist(ref)
    if dist is None:
        return None
    mu = sum(v * p for v, p in dist)
    var = sum((v - mu) ** 2 * p for v, p in dist)
    if var <= 0:
        return None
    sd = math.sqrt(var)
    return mu, sd, tuple(_psis(dist, mu, [s * c / sd for s in (1, -1) for c in STEPS]))


def _dist(ref: Any) -> list[tuple[float, float]] | None:
    pmf = getattr(ref, "pmf", None)
    if pmf is None:
        return None
    items = pmf().items()
    if not all(isinstance(v, int | float) and not isinstance(v, bool) for v, _ in items):
        return None
    return [(float(v), p) for v, p in items if p > 0]


def _psi(dist: list[tuple[float, float]], mu: float, lam: float) -> float:
    """``log E exp(λ (x - μ))``, exactly."""
    top = max(lam * (v - mu) for v, _ in dist)
    return top + math.log(sum(p * math.exp(lam * (v - mu) - top) for v, p in dist))


def _psis(dist: list[tuple[float, float]], mu: float, lams: Sequence[float]) -> list[float]:
    """:func:`_psi` at each of ``lams``, to the last bit: the products and differences
    made by numpy with the same correctly rounded operations, the exponentials, the
    terms' sum (Python's ``sum``, whatever its way of adding on this Python) and the logs
    by Python; not all finite: :func:`_psi` itself."""
    import numpy as np
    x = np.array(lams, dtype=np.float64)[:, None] * (
        np.array([v for v, _ in dist], dtype=np.float64) - mu)[None, :]
    if not np.isfinite(x).all():
        return [_psi(dist, mu, lam) for lam in lams]
    tops = x.max(axis=1)
    e = np.array(list(map(math.exp, (x - tops[:, None]).ravel().tolist())),
                 dtype=np.float64).reshape(x.shape)
    terms = (np.array([p for _, p in dist], dtype=np.float64)[None, :] * e).tolist()
    log = math.log
    return [top + log(sum(row)) for top, row in zip(tops.tolist(), terms, strict=True)]


@functools.lru_cache(maxsize=64)
def variance_proxy(ref: Any) -> float:
    """The least ``s²`` with ``ψ(λ) ≤ λ² s² / 2`` for every ``λ`` (a sub-Gaussian variance
    proxy of one observation of ``ref``): the largest ``2 ψ(λ) / λ²`` over ``|λ| ≤ 20/sd``
    on a fine grid, and beyond it the bound ``2 R / |λ|`` (``R`` the largest distance from
    the mean), with a margin for the grid.

    >>> from tarneeb.audit.fairness.exact import DrawSum
    >>> team = DrawSum(((4, 4), (3, 4), (2, 4), (1, 4), (0, 36)), 26, 2)
    >>> round(team.variance, 2), round(variance_proxy(team), 2)
    (22.75, 22.97)
    """
    dist = _dist(ref)
    m = _moments(ref)
    if dist is None or m is None:
        raise ValueError(f"{ref!r} has no numeric distribution")
    mu, sd, _ = m
    reach = max(abs(v - mu) for v, _ in dist)
    grid = [k / 16 / sd for k in range(-16 * 20, 16 * 20 + 1) if k]
    grid = _near_top(dist, mu, grid)
    sup = max(2 * psi / (g * g) for g, psi in zip(grid, _psis(dist, mu, grid), strict=True))
    return max(sup * 1.01, sd * sd, 2 * reach * sd / 20)


def _near_top(dist: list[tuple[float, float]], mu: float, grid: list[float]) -> list[float]:
    """The points of ``grid`` where ``2 ψ(λ) / λ²`` may be largest: within a millionth of
    the largest as numpy's ``exp`` and ``log`` make it (some units in the last place from
    :func:`_psis`'), so the largest of :func:`_psis` is among them; all when not finite."""
    import numpy as np
    lams = np.array(grid, dtype=np.float64)
    x = lams[:, None] * (np.array([v for v, _ in dist], dtype=np.float64) - mu)[None, :]
    if not np.isfinite(x).all():
        return grid
    top = x.max(axis=1)
    psi = top + np.log((np.array([p for _, p in dist])[None, :] * np.exp(x - top[:, None])
                        ).sum(axis=1))
    ratio = 2 * psi / (lams * lams)
    if not np.isfinite(ratio).all():
        return grid
    near: list[float] = lams[ratio >= ratio.max() * (1 - 1e-6)].tolist()
    return near


def _logmean(values: Sequence[float]) -> float:
    top = max(values)
    if top == math.inf:
        return math.inf
    return top + math.log(sum([math.exp(v - top) for v in values]) / len(values))


def _logmeans(rows: Any) -> list[float]:
    """:func:`_logmean` of each row of ``rows`` (a 2-d float array), to the last bit: the
    largest and each difference from it made by numpy (the same correctly rounded
    subtraction), the exponentials and their sum by Python's ``math.exp`` and ``sum`` in
    the same order, the mean's quotient, its log and the sum with the largest as
    :func:`_logmean` makes them (numpy's quotient and sum: the same correctly rounded
    operations); rows not all finite go to :func:`_logmean` itself."""
    import numpy as np
    if not np.isfinite(rows).all():
        return [_logmean(r) for r in rows.tolist()]
    tops = rows.max(axis=1)
    n = rows.shape[1]
    # every exponential in one map, cut into rows of n (a row's terms in order): one
    # iterator for the whole array, not a list and a map per row
    terms = map(math.exp, (rows - tops[:, None]).ravel().tolist())
    sums = np.array([sum(row) for row in zip(*[terms] * n, strict=True)],
                    dtype=np.float64)
    out: list[float] = (tops + np.array(list(map(math.log, (sums / n).tolist())),
                                        dtype=np.float64)).tolist()
    return out


def placed_step(bets: list[float], seen: list[int], sizes: Sequence[int], width: int,
                share: list[float], deals: int, triples: list[int], prior: int,
                steps: Sequence[float]) -> None:
    """One reference's match of the card-position bet (``_Test._placed``): per group, each
    item's score (its log-likelihood ratio, learnt from ``seen``: deals and counts per group
    and item before, ``prior`` pseudo-observations of ``share``) summed over the items it
    got (``triples``), bet on at each of ``steps`` against its exact ``ψ``; ``bets`` and
    ``seen`` take the match in. Every group at once, the one-group code's operations."""
    import numpy as np
    groups = len(sizes)  # (and ``width`` items)
    counts = np.array(seen[1:], dtype=np.int64).reshape(groups, width)
    flat = np.array(triples, dtype=np.int64).reshape(-1, 3)
    g, i = flat[:, 0], flat[:, 1]
    whole = bool(((g >= 0) & (g < groups) & (i >= 0) & (i < width)).all())
    if whole:  # (whole numbers: summed in any order)
        got = np.bincount(g * width + i, weights=flat[:, 2],
                          minlength=groups * width).astype(np.int64)
    else:  # (damaged figures: as lists would take them, or fail)
        listed = [[0] * width for _ in sizes]
        for gi, ii, k in zip(*(iter(triples),) * 3, strict=True):
            listed[gi][ii] += k
        got = np.array(listed, dtype=np.int64).ravel()
    # per item, how often it was seen anywhere (every deal, for whole deals: the learnt
    # chances of an item then add up to 1 whatever the counts say)
    part = np.array(share, dtype=np.float64)[:, None]
    w_all = list(map(math.log, ((counts + prior * part) / (counts.sum(axis=0) + prior)[None, :]
                                / part).ravel().tolist()))
    got_of = got.tolist()
    means = [sum(w_all[k * width:(k + 1) * width]) / width for k in range(groups)]
    psis = _logmeans((np.array(steps)[None, :, None]
                      * (np.array(w_all).reshape(groups, width)
                         - np.array(means)[:, None])[:, None, :]).reshape(-1, width))
    for k, size in enumerate(sizes):
        total = sum(map(operator.mul, w_all[k * width:(k + 1) * width],
                        got_of[k * width:(k + 1) * width]))
        for j, lam in enumerate(steps):
            bets[k * len(steps) + j] += (lam * (total - deals * size * means[k])
                                         - deals * size * psis[k * len(steps) + j])
    seen[0] += deals
    if whole:
        seen[1:] = (counts.ravel() + got).tolist()
    else:
        for gi, ii, k in zip(*(iter(triples),) * 3, strict=True):
            seen[1 + gi * width + ii] += k


def _log_sum_exp(logs: list[float]) -> float:
    """``log(Σ e^v)``, from the largest ``v`` (summed in the list's order)."""
    top = max(logs)
    if top == math.inf:
        return math.inf
    return top + math.log(sum([math.exp(v - top) for v in logs]))


@functools.lru_cache(maxsize=16)
def _seats_ref(ref: DrawSum, k: int) -> DrawSum:
    """The sum of ``k`` hands' values (``ref`` one hand's)."""
    return DrawSum(ref.population, k * ref.draws, k)


def _rows(row: tuple[Any, ...]) -> tuple[list[tuple[int, ...]], list[int]]:
    """A match's row (:meth:`~tarneeb.audit.fairness.tally.Tally.rows`): per deal its four
    values, and its state byte."""
    raw = row[4]
    values = [tuple(raw[i:i + 4]) for i in range(0, len(raw) - DEAL_ROW + 1, DEAL_ROW)]
    states = [raw[i + 4] for i in range(0, len(raw) - DEAL_ROW + 1, DEAL_ROW)]
    return values, states


def _subjects(row: tuple[Any, ...], qualified: Iterable[str]) -> list[tuple[str, int]]:
    """The match's subjects and their seats (a bit mask): the teams, the labels (when the
    computer seats are known), the qualified players."""
    out = [("seats 1+3", TEAMS[0]), ("seats 2+4", TEAMS[1])]
    computer = row[3]
    if computer >= 0:
        out += [("computer seats", computer), ("human seats", ~computer & 15)]
    mine: dict[str, int] = {}
    ok = set(qualified)
    for seat, name in enumerate(row[2]):
        if name in ok:
            mine[name] = mine.get(name, 0) | TEAMS[seat & 1]
    out += [(f"player {name}", mask) for name, mask in sorted(mine.items())]
    return out


@functools.lru_cache(maxsize=256)
def _sides(state: int) -> tuple[int, ...]:
    """A deal's side in each state (``STATES``' order) from its state byte, as
    :func:`~tarneeb.audit.fairness.state._side_in` makes it."""
    import numpy as np
    st = np.array([state], dtype=np.int64)
    return tuple(int(_side_in(st, name)[0]) for name in STATES)


def advance_cells(totals: dict[Any, list[Any]], bets: list[float],
                  obs: dict[Any, list[Any]], cache: dict[Any, Any] | None = None) -> float:
    """State-adaptive dealing (see the module): ``obs`` per reference (one hand's value)
    the match's rows; ``totals`` per cell ``("cell", subject, state)`` its
    bets' log-wealths, per player ``("seen", name)`` the matches seen, and the
    players qualified ``("players",)``. Returns the test's log e-value."""
    updates, touched = cell_updates(totals, obs)
    for key, _, c, n, d in updates:
        cell = totals[key]
        cell[:] = [x + (lam * d - n * psi) for x, (lam, psi) in zip(cell, c[1], strict=True)]
    return cells_log_e(totals, {} if cache is None else cache, touched)


CellUpdate = tuple[tuple[Any, ...], tuple[Any, int], tuple[float, list[tuple[float, float]]],
                   int, float]


def cell_updates(totals: dict[Any, list[Any]], obs: dict[Any, list[Any]],
                 ) -> tuple[list[CellUpdate], set[tuple[Any, ...]]]:
    """:func:`advance_cells`' match without the arithmetic of the bets: the cells it
    makes, the players it counts and qualifies, and in order each cell's update (cell,
    its reference and number of seats, their mean and bets' sizes and ``ψ``, deals,
    points less their mean: each bet grows by ``lam d - n ψ``); the cells touched."""
    players = totals.setdefault(("players",), [])
    touched: set[tuple[Any, ...]] = set()
    updates: list[CellUpdate] = []
    for ref, rows in sorted(obs.items(), key=lambda kv: repr(kv[0])):
        bets_of: dict[int, tuple[float, list[tuple[float, float]]] | None] = {}
        for row in rows:
            values, states = _rows(row)
            if not values:
                continue
            qualified = [n for n in row[2]
                         if totals.get(("seen", n), [0])[0] >= MIN_PLAYER_MATCHES]
            # per state byte (a deal's sides are its byte's): its deals, values summed
            of_byte: dict[int, list[int]] = {}
            for v, b in zip(values, states, strict=True):
                acc = of_byte.get(b)
                if acc is None:
                    of_byte[b] = [1, *v]
                else:
                    acc[0] += 1
                    acc[1] += v[0]
                    acc[2] += v[1]
                    acc[3] += v[2]
                    acc[4] += v[3]
            sided = [(_sides(b), acc) for b, acc in of_byte.items()]
            # per state and side, its deals and the points of each set of seats (a bit
            # mask) over them: a subject's seats on that side are one set in every deal
            groups: dict[str, list[tuple[int, int, list[int]]]] = {}
            for i, state in enumerate(STATES):
                by_side: dict[int, list[int]] = {}
                for sides, acc in sided:
                    side = sides[i]
                    if side < 0:
                        continue
                    got = by_side.get(side)
                    if got is None:
                        by_side[side] = list(acc)
                    else:
                        for j in range(5):
                            got[j] += acc[j]
                groups[state] = [(side, got[0], _held(*got[1:]))
                                 for side, got in by_side.items()]
            # a subject's cells depend on its seats alone (the teams' and most players'
            # are the same): made once a set of seats
            made: dict[int, list[tuple[str, list[tuple[Any, ...]]]]] = {}
            for subject, seats in _subjects(row, qualified):
                cells = made.get(seats)
                if cells is None:
                    cells = made[seats] = _seats_cells(seats, groups, ref, bets_of)
                for state, tails in cells:
                    key = ("cell", subject, state)
                    if key not in totals:
                        totals[key] = [0.0] * (2 * len(STEPS))
                        if subject.startswith("player ") and subject[7:] not in players:
                            players.append(subject[7:])
                    touched.add(key)
                    for tail in tails:
                        updates.append((key, *tail))
            for name in dict.fromkeys(row[2]):  # in seat order: the same bytes every run
                totals.setdefault(("seen", name), [0])[0] += 1
    return updates, touched


def _seats_cells(seats: int, groups: dict[str, list[tuple[int, int, list[int]]]], ref: Any,
                 bets_of: dict[int, tuple[float, list[tuple[float, float]]] | None],
                 ) -> list[tuple[str, list[tuple[Any, ...]]]]:
    """:func:`cell_updates`' cells of a subject on ``seats`` in a row (its ``groups``):
    per state with deals of the subject, each update but the cell's key (reference and
    seats, their constants, deals, points less their mean), by number of seats."""
    side_masks = (TEAMS[0], TEAMS[1], 15, 0)
    out = []
    for state in STATES:
        per: dict[int, list[int]] = {}  # per k seats: deals, points
        for side, n, held in groups[state]:
            mask = seats & side_masks[side]
            if mask == 0 or mask == 15:
                continue
            got = per.get(_BITS[mask])
            if got is None:
                got = per[_BITS[mask]] = [0, 0]
            got[0] += n
            got[1] += held[mask]
        if not per:
            continue
        tails = []
        for k, (n, total) in sorted(per.items()):
            if k not in bets_of:  # per k seats: mean, and per bet size and ψ
                m = _moments(_seats_ref(ref, k))
                bets_of[k] = None if m is None else (
                    m[0], list(zip(_sizes(m[1]), m[2], strict=True)))
            c = bets_of[k]
            if c is not None:
                tails.append(((ref, k), c, n, total - n * c[0]))
        out.append((state, tails))
    return out


def cells_log_e(totals: dict[Any, list[Any]], cache: dict[Any, Any],
                touched: Iterable[Any] = ()) -> float:
    """The state test's e-value (a log): half the weight to the teams' and labels' cells,
    equal; half to the players, the k-th to qualify ``1/(k(k+1))``, equal over its states.
    ``cache`` keeps each cell's e-value (a log) between matches; ``touched``, the cells
    whose bets changed since."""
    logs = cache.setdefault("cells", {})
    for key in touched:
        logs[key] = _logmean(totals[key])
    return cells_combined(totals, cache)


def cells_combined(totals: dict[Any, list[Any]], cache: dict[Any, Any],
                   size: tuple[int, int] | None = None) -> float:
    """:func:`cells_log_e` from the cells' e-values ``cache`` keeps; ``size``: how many
    entries ``totals`` and players it had at the match (those first; default, all)."""
    logs = cache.setdefault("cells", {})
    players = totals.get(("players",), [])
    if size is None:
        size = (len(totals), len(players))
    known = cache.get("weights")
    if known is None or known[0] != size:
        # the cells and their weights' logs, made again when a cell or a player comes
        order = {name: k for k, name in enumerate(players[:size[1]], 1)}
        cells, used = [], 0.0
        for key, cell in itertools.islice(totals.items(), size[0]):
            if key[0] != "cell":
                continue
            if key[1].startswith("player "):
                k = order[key[1][7:]]
                w = 0.5 / (k * (k + 1)) / len(STATES)
            else:
                w = 0.5 / _LABEL_CELLS
            used += w
            if logs.get(key) is None:  # read back from bytes: made once
                logs[key] = _logmean(cell)
            cells.append((key, math.log(w)))
        known = cache["weights"] = (size, cells, 1 - used)
    cells, rest = known[1], known[2]
    terms: list[float] = [lw + logs[key] for key, lw in cells]
    if rest > 0:
        terms.append(math.log(rest))
    return _log_sum_exp(terms)


def advance_drift(totals: dict[Any, list[Any]], bets: list[float],
                  obs: dict[Any, list[Any]]) -> float:
    """Drift (see the module): ``obs`` per (reference, series) the match's rows;
    ``totals[("direction",)]`` the learnt direction per half-life; ``bets`` the log-wealth
    per half-life and size."""
    if not bets:
        bets.extend([0.0] * (len(DRIFT_HALF_LIVES) * len(DRIFT_STEPS)))
    steps = [(lam, lam * lam) for lam in DRIFT_STEPS]  # (lam * lam * d: the same products)
    for z, r, clipped in drift_deals(totals, obs):
        i = 0
        for d in clipped:
            for lam, square in steps:
                bets[i] += lam * d * z - square * d * d * r / 2
                i += 1
    return _logmean(bets)


def drift_deals(totals: dict[Any, list[Any]], obs: dict[Any, list[Any]],
                ) -> list[tuple[float, float, list[float]]]:
    """:func:`advance_drift`'s match without its bets: per deal bet on, in order, its
    ``z``, ``r`` and the learnt directions before it (clipped to ±1), the directions
    ``totals`` keeps learning from it."""
    direction = totals.setdefault(("direction",), [0.0] * len(DRIFT_HALF_LIVES))
    keep = [(kh, 1 - kh) for kh in (0.5 ** (1 / h) for h in DRIFT_HALF_LIVES)]
    out = []
    for (ref, series), rows in sorted(obs.items(), key=lambda kv: repr(kv[0])):
        known: dict[int, tuple[float, float, float] | None] = {}  # per k seats: μ, sd, r
        for row in rows:
            values, _ = _rows(row)
            if series == "seats 1+3":
                seats: tuple[int, ...] = (0, 2)
            else:
                computer = row[3]
                if not 0 < computer < 15:
                    continue
                seats = tuple(s for s in range(4) if computer >> s & 1)
            k = len(seats)
            if not values:
                continue
            if k not in known:
                r_ref = _seats_ref(ref, k)
                m = _moments(r_ref)
                known[k] = None if m is None else (
                    m[0], m[1], variance_proxy(r_ref) / (m[1] * m[1]))
            c = known[k]
            if c is None:
                continue
            mu, sd, r = c
            for v in values:
                # (whole numbers: summed in any order)
                held = v[seats[0]] + v[seats[1]] if k == 2 else sum(v[s] for s in seats)
                z = (held - mu) / sd
                out.append((z, r, [-1.0 if d < -1.0 else 1.0 if d > 1.0 else d
                                   for d in direction]))
                for h, (kh, rest) in enumerate(keep):
                    direction[h] = kh * direction[h] + rest * z
    return out


def advance_balance(totals: dict[Any, list[Any]], bets: list[float],
                    obs: dict[Any, list[Any]]) -> float:
    """Serial balance (see the module): ``obs`` per reference the match's rows;
    ``totals[("luck", name)]`` each player's side's luck in their match before."""
    if not bets:
        bets.extend([0.0] * (2 * len(BALANCE_STEPS)))
    for ref, rows in sorted(obs.items(), key=lambda kv: repr(kv[0])):
        team = _seats_ref(ref, 2)
        m = _moments(team)
        if m is None:
            continue
        mu, sd, _ = m
        r = variance_proxy(team) / (sd * sd)
        for row in rows:
            values, _ = _rows(row)
            names = row[2]
            if not values or len(names) != 4:
                continue
            n = len(values)
            z = (sum(v[0] + v[2] for v in values) - n * mu) / (sd * math.sqrt(n))
            x = sum((1 if seat % 2 == 0 else -1) * totals[("luck", name)][0]
                    for seat, name in enumerate(names) if ("luck", name) in totals)
            if x:
                for j in range(len(bets)):
                    lam = (1 if j < len(BALANCE_STEPS) else -1) * \
                        BALANCE_STEPS[j % len(BALANCE_STEPS)]
                    bets[j] += lam * x * z - lam * lam * x * x * r / 2
            for seat, name in enumerate(names):
                totals[("luck", name)] = [z if seat % 2 == 0 else -z]
    return _logmean(bets)


def deal_hands(values: Iterable[bytes]) -> Any:
    """The deals' four hands (deals x 4, uint64) from their 20-byte values."""
    counts: dict[bytes, int] = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return hands_of(counts)


def advance_pairing(totals: dict[Any, list[Any]], bets: list[float],
                    obs: dict[Any, list[Any]]) -> float:
    """Partners' fit (see the module): ``obs`` per fit (``"suit"``, ``"honour"``) the
    match's deals (20-byte values)."""
    import numpy as np
    if not bets:
        bets.extend([0.0] * (2 * len(PAIRING_STEPS)))
    for what, values in sorted(obs.items(), key=lambda kv: repr(kv[0])):
        hands = deal_hands(values)
        if not len(hands):
            continue
        fit, hon = pairing_values(hands)
        v = (fit if what == "suit" else hon).astype(float)
        dev = v - v.mean(axis=1, keepdims=True)
        spread = np.sqrt((dev ** 2).mean(axis=1))
        at = spread > 0
        dev, spread = dev[at], spread[at]
        steps = np.array([c * s for s in (1, -1) for c in PAIRING_STEPS])
        x = steps[:, None, None] * (dev / spread[:, None])[None]  # bets x deals x pairings
        top = x.max(axis=2)
        psi = top + np.log(np.exp(x - top[:, :, None]).mean(axis=2))
        for j, gained in enumerate((x[:, :, 0] - psi).sum(axis=1).tolist()):
            bets[j] += gained
    return _logmean(bets)


__all__ = ["COV_STEPS", "STEPS", "advance_balance", "advance_cells", "advance_drift",
           "advance_pairing", "cell_updates", "cells_combined", "cells_log_e", "deal_hands",
           "drift_deals", "placed_step", "variance_proxy"]
