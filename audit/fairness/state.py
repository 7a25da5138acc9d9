"""State-adaptive dealing: a player's, a seat label's or a team's deal quality in each
state of the match, all in one test.

The input is plain numbers: per match (:meth:`~tarneeb.audit.fairness.tally.Tally.rows`)
its place in a season (series, index; index ``-1`` when it has none), its seats' player
names, a bit mask of its computer seats (``-1`` unknown), and per deal five bytes: the
four seats' values (high-card points) and the state of seats 1 and 3 before the deal
(:data:`BEHIND` ... :data:`FIRST`). The measures (:mod:`tarneeb.replay.archive.battery.measures`)
say how a state is read from the scores; nothing here knows a rule.

**The cells.** A *subject* is a team (seats 1+3, seats 2+4), a seat label (the computer
seats, the human seats) or a named player with at least :data:`MIN_PLAYER_MATCHES`
matches (its side: its hand and its partner's). A *state* is one of :data:`STATES`: the
subject's side behind, ahead, behind late, ahead late (late: a side at half the target
or more), after a deal it won, after one it lost (a label: its seats on that side), and
the match's first deal. A cell (subject, state) holds, for each deal in that state, the
sum of the subject's seats' values; cells with fewer than :data:`MIN_CELL` deals are left
out.

**The statistic.** Each cell's sum against its exact mean under a uniform shuffle, over
its exact standard deviation (one hand's variance, and the covariance of two hands of one
deal: the four hands' points add up to 40), ``z``; the test is the largest ``|z|`` over
the cells. Under a fair shuffle a deal is independent of the state before it (the state
is a function of the deals before), so the cell sums are sums of martingale differences
whose covariance, cell by cell, is the sum over their shared deals of the exact
covariance of the two seat sets (:func:`_covariance`); they are jointly normal in the
limit. The p-value of the max is simulated from that normal law (Besag and Clifford's
sequential rule): one test for the whole family, so the many cells (a hundred at a
thousand matches) cost it only their effective number, which their overlaps make far
smaller than their count, not a Bonferroni factor each. Its null is checked by
simulation (tests/test_fairness_state.py, bench/bench_calibration.py).

The drift of deal quality over the archive's order and each player's successive matches
are read from the same rows (:mod:`tarneeb.audit.fairness.drift`).
"""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from tarneeb.audit.fairness.exact import DrawSum, TestId
from tarneeb.audit.fairness.tests import StatResult, sequential_p

BEHIND, AHEAD, LATE, WON, LOST, FIRST = 1, 2, 4, 8, 16, 32  # seats 1 and 3's state bits
STATES = ("behind", "ahead", "behind late", "ahead late", "after a won deal",
          "after a lost deal", "first deal")
MIN_PLAYER_MATCHES = 20  # a named player with fewer matches is not a subject
MIN_CELL = 50  # deals a cell needs (its sum is then near normal)
STATE_MORE = 20_000  # simulated maxima at most (the least p-value 5e-5)
MAX_STATES = "max z over states"
TEAMS = (0b0101, 0b1010)  # seats 1+3 and 2+4 as bit masks of seats 0..3
DEAL_ROW = 5  # bytes a deal: four values, one state
DEALS_AT_ONCE = 1 << 12  # deals whose cell members are made at once (about 100 each)


def decode(counts: Mapping[tuple[Any, ...], int]) -> dict[str, Any]:
    """The rows of ``counts`` (``(ref, row) -> copies``) as arrays, matches in the
    archive's order (series, index; matches with no place after, in a fixed order):
    ``values`` (deals x 4), ``state`` (deals), ``match`` (the match of each deal),
    ``number`` (its deal number, from 0), and per match ``series``, ``index``,
    ``names``, ``computer``, ``deals``."""
    import numpy as np
    rows = sorted(((row, n) for (_, row), n in counts.items()),
                  key=lambda rn: (rn[0][1] < 0, rn[0][0], rn[0][1], repr(rn[0])))
    expanded = [row for row, n in rows for _ in range(n)]
    blob = b"".join(row[4] for row in expanded)
    return decoded(blob, np.array([len(row[4]) // DEAL_ROW for row in expanded],
                                  dtype=np.int64),
                   [row[0] for row in expanded],
                   np.array([row[1] for row in expanded], dtype=np.int64),
                   [row[2] for row in expanded],
                   np.array([row[3] for row in expanded], dtype=np.int64))


def decoded(blob: bytes, deals: Any, series: list[int], index: Any,
            names: list[tuple[str, ...]], computer: Any) -> dict[str, Any]:
    """:func:`decode`'s arrays from the matches' rows already in the archive's order:
    their deals' rows one after the other (``blob``, :data:`DEAL_ROW` bytes a deal) and,
    per match, its deals, series, index, names and computer seats."""
    import numpy as np
    raw = np.frombuffer(blob, dtype=np.uint8).reshape(-1, DEAL_ROW) if blob else \
        np.zeros((0, DEAL_ROW), dtype=np.uint8)
    match = np.repeat(np.arange(len(deals), dtype=np.int32), deals)
    starts = np.concatenate([[0], np.cumsum(deals)[:-1]]).astype(np.int32) if len(deals) \
        else deals.astype(np.int32)
    # small types (a hand's value is below 41, a state a byte): 15 bytes a deal, not 56
    return {"values": raw[:, :4].astype(np.int16), "state": raw[:, 4].copy(),
            "match": match,
            "number": np.arange(len(match), dtype=np.int32) - np.repeat(starts, deals),
            "series": series, "index": index, "names": names, "computer": computer,
            "deals": deals}


def _side_in(state: Any, name: str) -> Any:
    """Per deal, the side (0: seats 1+3, 1: seats 2+4) in team-relative state ``name``,
    -1 none; for ``first deal``, 2 (every subject's whole seat set)."""
    import numpy as np
    behind = np.where(state & BEHIND, 0, np.where(state & AHEAD, 1, -1))
    ahead = np.where(state & AHEAD, 0, np.where(state & BEHIND, 1, -1))
    late = (state & LATE) > 0
    if name == "behind":
        return behind
    if name == "ahead":
        return ahead
    if name == "behind late":
        return np.where(late, behind, -1)
    if name == "ahead late":
        return np.where(late, ahead, -1)
    if name == "after a won deal":
        return np.where(state & WON, 0, np.where(state & LOST, 1, -1))
    if name == "after a lost deal":
        return np.where(state & LOST, 0, np.where(state & WON, 1, -1))
    return np.where(state & FIRST, 2, -1)


def _players(d: Mapping[str, Any]) -> tuple[list[str], Any]:
    """The named players who are subjects (sorted), and per match and seat the index of
    the one sitting there (-1: none)."""
    import numpy as np
    seats_of: dict[str, int] = {}
    for names in d["names"]:
        for name in names:
            seats_of[name] = seats_of.get(name, 0) + 1
    players = sorted(name for name, k in seats_of.items() if k >= MIN_PLAYER_MATCHES)
    index = {name: i for i, name in enumerate(players)}
    at = np.array([[index.get(name, -1) for name in names] for names in d["names"]],
                  dtype=np.int64).reshape(-1, 4)
    return players, at


def _subjects_of(d: Mapping[str, Any], players: list[str], at: Any, lo: int, hi: int,
                 ) -> Iterator[tuple[int, str, Any]]:
    """Each subject's index and name, and its seats in deals ``lo`` to ``hi`` (a bit mask
    per deal, 0 where it is absent); a player only where it sits in one of them."""
    import numpy as np
    match = d["match"][lo:hi]
    yield 0, "seats 1+3", np.full(len(match), TEAMS[0])
    yield 1, "seats 2+4", np.full(len(match), TEAMS[1])
    computer = d["computer"][match] if len(match) else np.zeros(0, dtype=np.int64)
    known = computer >= 0
    yield 2, "computer seats", np.where(known, computer, 0)
    yield 3, "human seats", np.where(known, ~computer & 15, 0)
    if not len(match):
        return
    first = int(match[0])
    here = at[first:int(match[-1]) + 1]  # the matches of these deals (in order)
    for p in np.unique(here[here >= 0]).tolist():
        per_match = np.zeros(len(here), dtype=np.int64)
        for seat in range(4):
            per_match |= np.where(here[:, seat] == p, TEAMS[seat & 1], 0)
        yield 4 + p, f"player {players[p]}", per_match[match - first]


def subjects(d: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """Each subject's name and its seats per deal (a bit mask, 0 where it is absent)."""
    import numpy as np
    players, at = _players(d)
    n = len(d["match"])
    out = {i: (name, seats) for i, name, seats in _subjects_of(d, players, at, 0, n)}
    for p, name in enumerate(players):  # one absent from every deal (none: no matches)
        out.setdefault(4 + p, (f"player {name}", np.zeros(n, dtype=np.int64)))
    return [out[i] for i in sorted(out)]


def _members(d: Mapping[str, Any], players: list[str], at: Any, lo: int, hi: int,
             keep: Mapping[tuple[int, int], int] | None, count: bool = False,
             weight: Any = None,
             ) -> Iterator[tuple[tuple[int, int], str, Any, Any]]:
    """Per (subject, state) (``keep``: only those it numbers, by their numbers), its name
    and its members in deals ``lo`` to ``hi``: the deals and their seats (a bit mask,
    neither empty nor all); ``count``: how many members (each deal counted ``weight``
    times, a whole number per deal of ``d``, default once), and None, instead."""
    import numpy as np
    state = d["state"][lo:hi]
    sides = {name: _side_in(state, name) for name in STATES}
    side_masks = np.array([TEAMS[0], TEAMS[1], 15, 0])  # side 0, 1, whole subject, none
    for i, subject, seats in _subjects_of(d, players, at, lo, hi):
        for j, name in enumerate(STATES):
            if keep is not None and (i, j) not in keep:
                continue
            mask = seats & side_masks[sides[name]]  # -1 indexes the last: none
            inside = (mask != 0) & (mask != 15)
            if count:
                k = np.count_nonzero(inside) if weight is None else \
                    weight[lo:hi][inside].sum()
                yield (i, j), f"{subject}, {name}", int(k), None
                continue
            where = np.flatnonzero(inside)
            yield (i, j), f"{subject}, {name}", where + lo, mask[where]


def _blocks(d: Mapping[str, Any]) -> list[tuple[int, int]]:
    """The deals in ranges of :data:`DEALS_AT_ONCE`."""
    n = len(d["match"])
    return [(lo, min(n, lo + DEALS_AT_ONCE)) for lo in range(0, n, DEALS_AT_ONCE)]


def _cells_kept(parts: Iterable[tuple[Mapping[str, Any], Any]], players: list[str], at: Any,
                ) -> tuple[list[str], dict[tuple[int, int], int]]:
    """The cells with at least ``MIN_CELL`` deals (subjects' order, then states'): their
    names, and each one's number by its (subject, state). ``parts``: the deals (``d``'s
    arrays), and the deals each of them stands for (:func:`_groups`; None: one)."""
    size: dict[tuple[int, int], int] = {}
    names: dict[tuple[int, int], str] = {}
    for d, weight in parts:
        for lo, hi in _blocks(d):
            for key, name, k, _ in _members(d, players, at, lo, hi, None, True, weight):
                size[key] = size.get(key, 0) + k
                names[key] = name
    kept = sorted(key for key, k in size.items() if k >= MIN_CELL)
    return [names[key] for key in kept], {key: c for c, key in enumerate(kept)}


def cells(d: Mapping[str, Any]) -> tuple[list[str], Any, Any, Any]:
    """The cells with at least ``MIN_CELL`` deals: their names, and per member (a deal
    in a cell) its cell, its deal and its seats (a bit mask, neither empty nor all)."""
    import numpy as np
    players, at = _players(d)
    names, number = _cells_kept([(d, None)], players, at)
    if not names:
        empty = np.zeros(0, dtype=np.int64)
        return names, empty, empty, empty
    return (names, *_cell_members(d, players, at, number, 0, len(d["match"])))


def _cell_members(d: Mapping[str, Any], players: list[str], at: Any,
                  number: Mapping[tuple[int, int], int], lo: int, hi: int,
                  ) -> tuple[Any, Any, Any]:
    """The members of the cells ``number`` numbers in deals ``lo`` to ``hi``: per member
    its cell, its deal and its seats."""
    import numpy as np
    cell_of, deal_of, mask_of = [], [], []
    for key, _, deals, masks in _members(d, players, at, lo, hi, number):
        cell_of.append(np.full(len(deals), number[key]))
        deal_of.append(deals)
        mask_of.append(masks)
    if not cell_of:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    return np.concatenate(cell_of), np.concatenate(deal_of), np.concatenate(mask_of)


COV_DEALS = 2_048  # deals whose members' seats are laid out at once (32 KB a cell)


def _shared(k: int, cell_of: Any, deal_of: Any, mask_of: Any, weight: Any = None,
            ) -> tuple[Any, Any]:
    """Over the pairs of members of one deal (a member with itself too), per pair of
    cells (``k·k``, whole numbers): the seats the two share, and their sizes multiplied.
    Both are matrix products: the seats shared, added over the deals, are ``XᵀX``, ``X``
    a row per deal and seat and a column per cell (1 where the cell holds that seat of that
    deal), and the sizes' products ``YᵀY``, ``Y`` a row per deal (the seats the cell holds).
    Made :data:`COV_DEALS` deals at a time (memory flat in the archive's size), in floating
    point: whole numbers far below 2²⁴ (a block's) and 2⁵³ (the archive's) are added
    exactly in any order, so the sums are the same whole numbers on every machine, however
    the products are blocked. ``weight``: the deals each deal stands for (whole numbers,
    :func:`_alike`), its rows counted that many times; a block's sums are then at most 16
    times its deals' weights, in single precision while that is below 2²⁴."""
    import numpy as np
    first = int(deal_of.min()) if len(deal_of) else 0  # the deals' blocks from the first
    block = (deal_of - first) // COV_DEALS
    blocks = int(block.max()) + 1 if len(block) else 0
    small = np.uint16 if blocks <= 1 << 16 else np.int64  # 16 bits: a radix sort, linear
    order = np.argsort(block.astype(small), kind="stable")
    cell, deal, mask = cell_of[order], (deal_of[order] - first) % COV_DEALS, mask_of[order]
    bounds = np.searchsorted(block[order], np.arange(blocks + 1))
    shared = np.zeros((k, k))
    product = np.zeros((k, k))
    for b, (start, stop) in enumerate(itertools.pairwise(bounds)):
        if start == stop:  # no member in these deals
            continue
        span = int(deal[start:stop].max()) + 1  # the block's deals up to its last member
        w = None
        if weight is not None:  # the block's deals' weights
            w = weight[first + b * COV_DEALS:first + b * COV_DEALS + span]
        big = w is not None and 16 * int(w.sum()) >= 1 << 24
        seats = np.zeros((span, 4, k), dtype=np.float64 if big else np.float32)
        for s in range(4):
            held = start + np.flatnonzero(mask[start:stop] >> s & 1)
            # a deal is in a cell once: each (deal, seat, cell) is set at most once
            seats[deal[held], s, cell[held]] = 1.0
        x = seats.reshape(-1, k)
        y = seats.sum(axis=1)
        # a block's sums are at most 16·COV_DEALS (or 16 times its weights): exact
        if w is None:
            shared += x.T @ x
            product += y.T @ y
        else:
            shared += x.T @ (x * np.repeat(w, 4)[:, None].astype(x.dtype))
            product += y.T @ (y * w[:, None].astype(y.dtype))
    return (np.rint(shared).astype(np.int64).ravel(),  # whole numbers: exact
            np.rint(product).astype(np.int64).ravel())


def _alike(d: Mapping[str, Any], at: Any, lo: int, hi: int) -> tuple[Any, Any, Any]:
    """Deals ``lo`` to ``hi`` grouped by all that decides which seats of a deal each cell
    holds: its state byte, its match's computer seats and the subjects among its players
    seat by seat (``at``). Per group its first deal (groups in the order of their first
    deals) and its number of deals; per deal its group. Deals alike add the same to every
    cell's covariance and hands, so a group is counted once, times its deals."""
    import numpy as np
    match = d["match"][lo:hi]
    if not len(match):
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    m0, m1 = int(match[0]), int(match[-1]) + 1  # the matches of these deals (in order)
    # matches without players' names (deals only) have no subjects: -1 at every seat
    seated = (at[m0:m1].astype(np.int64) if len(at) >= m1
              else np.full((m1 - m0, 4), -1, dtype=np.int64))
    per_match = np.column_stack([np.asarray(d["computer"][m0:m1], dtype=np.int64), seated])
    kind = np.unique(per_match, axis=0, return_inverse=True)[1].reshape(-1)
    key = kind.astype(np.int64)[match - m0] * 256 + d["state"][lo:hi]
    _, first, group, weight = np.unique(key, return_index=True, return_inverse=True,
                                        return_counts=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return lo + first[order], rank[group.reshape(-1)], weight[order]


def _groups(d: Mapping[str, Any], at: Any) -> Iterator[tuple[dict[str, Any], Any, Any]]:
    """The deals a block of :data:`DEALS_AT_ONCE` at a time, grouped (:func:`_alike`): a
    block's first deal of each group as ``d``'s arrays (those the cells' members are read
    from), per deal of the block its group, and per group its deals."""
    for lo, hi in _blocks(d):
        first, group, weight = _alike(d, at, lo, hi)
        yield ({"match": d["match"][first], "state": d["state"][first],
                "computer": d["computer"]}, group, weight)


def _covariance(ref: DrawSum, k: int, cell_of: Any, deal_of: Any, mask_of: Any) -> Any:
    """The exact covariance of the cells' sums: for two seat sets ``a`` and ``b`` of one
    deal, ``var·|a∩b| + cov·|a|·|b|`` less ``cov·|a∩b|`` (``var`` one hand's variance,
    ``cov`` two hands' covariance), added over the deals the cells share; deals apart add
    nothing (:func:`_shared`)."""
    shared, product = _shared(k, cell_of, deal_of, mask_of)
    return _combine(ref, k, shared, product)


def _combine(ref: DrawSum, k: int, shared: Any, product: Any) -> Any:
    var, cov = ref.variance, ref.covariance(ref.draws)
    return ((var - cov) * shared + cov * product).reshape(k, k)


def state_test(test: TestId, ref: DrawSum, d: Mapping[str, Any]) -> StatResult:
    """The largest ``|z|`` over the cells, its p-value simulated (see the module)."""
    import numpy as np
    players, at = _players(d)
    # one deal of each group of deals alike (_alike) stands for them all: its members,
    # hands and covariance times the group's deals, its values the group's added up
    names, number = _cells_kept(((g, weight) for g, _, weight in _groups(d, at)), players,
                                at)
    n = len(d["match"])
    r = StatResult(test, MAX_STATES, n, None, len(names) or None, None)
    if not names:
        return r
    k = len(names)
    sums = np.zeros(k, dtype=np.int64)  # whole numbers: the same in any order of the deals
    hands = np.zeros(k, dtype=np.int64)
    shared = np.zeros(k * k, dtype=np.int64)
    product = np.zeros(k * k, dtype=np.int64)
    # the members of DEALS_AT_ONCE deals at a time
    for (lo, hi), (g, group, weight) in zip(_blocks(d), _groups(d, at), strict=True):
        # whole numbers far below 2**53, added exactly in any order
        values = np.stack([np.rint(np.bincount(group, d["values"][lo:hi, s], len(weight)))
                           .astype(np.int64) for s in range(4)], axis=1)
        cell_of, deal_of, mask_of = _cell_members(g, players, at, number, 0, len(weight))
        size = np.bitwise_count(mask_of.astype(np.uint8)).astype(np.int64) * weight[deal_of]
        held = sum(np.where(mask_of >> s & 1, values[deal_of, s], 0) for s in range(4))
        # bincount, not np.add.at (several times slower)
        sums += np.rint(np.bincount(cell_of, held, k)).astype(np.int64)
        hands += np.rint(np.bincount(cell_of, size, k)).astype(np.int64)
        more = _shared(k, cell_of, deal_of, mask_of, weight)
        shared += more[0]
        product += more[1]
    expected = hands * ref.mean
    cov = _combine(ref, k, shared, product)
    sd = np.sqrt(np.diag(cov))
    z = (sums - expected) / sd
    worst = int(np.argmax(np.abs(z)))
    stat = float(abs(z[worst]))
    corr = cov / np.outer(sd, sd)
    try:  # corr = root @ root.T
        root = np.linalg.cholesky(corr + 1e-12 * np.eye(k))
    except np.linalg.LinAlgError:  # singular: two cells that always move together
        w, v = np.linalg.eigh(corr)
        root = v * np.sqrt(np.clip(w, 0.0, None))
    seed = hashlib.sha256(repr((test, [round(float(x), 9) for x in z])).encode()).digest()
    rng = np.random.default_rng(int.from_bytes(seed[:8], "big"))
    cut = stat * (1 - 1e-9)

    def exceed(draws: int) -> Any:
        out = []
        rows = max(1, (1 << 18) // k)
        for done in range(0, draws, rows):
            # einsum: numpy's loops (BLAS's threads spin on a busy machine)
            g = np.einsum("ij,kj->ik", rng.standard_normal((min(rows, draws - done), k)), root)
            out.append(np.abs(g).max(axis=1) >= cut)
        return np.concatenate(out)

    r.statistic, r.p_value, r.p_method = stat, sequential_p(exceed, STATE_MORE), "Monte Carlo"
    r.categories = [names[worst]]
    r.observed = [float(sums[worst] / hands[worst])]
    r.expected = [float(ref.mean)]
    # one hand's standard error in the median cell: the power sentence's unit
    median = float(np.median(sd / hands))
    r.std_error = median
    return r


def row_tests(test: TestId, ref: DrawSum, counts: Mapping[tuple[Any, ...], int],
              rows: dict[str, Any] | None = None) -> list[StatResult]:
    """Every test read from the matches' rows: the state test (``test``), the drift over
    the archive's order and the serial balance of each player's successive matches;
    ``rows``: the rows as :func:`decode` gives them, kept apart from the tally in arrays
    (:class:`~tarneeb.replay.archive.battery.repeats.Repeats`), ``counts`` then empty."""
    from tarneeb.audit.fairness.drift import balance_test, drift_tests
    d = decode(counts) if rows is None else rows
    return [state_test(test, ref, d), *drift_tests(test[0], ref, d),
            balance_test(test[0], ref, d)]


__all__ = ["MAX_STATES", "MIN_CELL", "MIN_PLAYER_MATCHES", "STATES", "cells", "decode",
           "decoded", "row_tests", "state_test", "subjects"]
