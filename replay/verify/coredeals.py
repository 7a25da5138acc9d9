"""The deals of the logs the compiled core confirmed, as
:class:`~tarneeb.replay.archive.battery.columns.DealColumns` records them, decoded from the core's
output a chunk at a time with numpy.

A log the core confirms (:mod:`tarneeb.replay.verify.compiled`) leaves its hands as rows
of bytes (``OUT_FORMAT``: the deck order, dealer, declarer, trump, the totals after each
hand). Made into one Python tuple a deal (``DealView``) and recorded number by number,
they cost nearly half as much as the rest of the chunk's tally; here every such match of a
chunk is decoded at once into the same per-deal numbers and masks that
:meth:`~tarneeb.replay.archive.battery.columns.DealColumns.add_match` makes from the views
(``tests/test_archive_columns.py`` holds the two to each other on generated logs).
The core shuffles the deck itself (Fisher–Yates over the 52 cards), so each row is a
whole deal: no deal of such a log is left out as :func:`~tarneeb.replay.archive.battery.measures.
is_deal` would leave out a broken one.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from tarneeb.replay.rules.ruleset import RuleSet
from tarneeb.replay.verify.compiled import OUT_FORMAT

# OUT_FORMAT ("<IIIBBBBBBBB52s13s4s4i4q") as a numpy record, field for field
_OUT = np.dtype([("n", "<u4"), ("calls_at", "<u4"), ("plays_at", "<u4"), ("dealer", "u1"),
                 ("thirteenth", "u1"), ("trump", "u1"), ("declarer", "u1"),
                 ("contract", "u1"), ("cancelled", "u1"), ("winner", "u1"),
                 ("n_calls", "u1"), ("deck", "u1", (52,)), ("winners", "u1", (13,)),
                 ("tricks", "u1", (4,)), ("scores", "<i4", (4,)), ("totals", "<i8", (4,))])
assert _OUT.itemsize == OUT_FORMAT.size
_NONE = 255  # the core's "none" in a byte field
_DEALT = np.dtype([("top", ">u4"), ("mid", ">u8"), ("lo", ">u8")])  # 20 bytes, big-endian

Rows = tuple[npt.NDArray[np.int64], npt.NDArray[np.uint64]]


def deals_in(rows: bytes) -> int:
    """The deals of one log's core output: one a row."""
    return len(rows) // OUT_FORMAT.size


def _trumps(rules: RuleSet) -> npt.NDArray[np.int64]:
    """The trump that follows from each possible 13th card under ``rules`` (-1: none)."""
    return np.array([-1 if (t := rules.trump_for_deal(c)) is None else t for c in range(52)],
                    dtype=np.int64)


def core_rows(matches: Sequence[tuple[int, bytes, RuleSet]], numbers: int) -> Rows:
    """The per-deal numbers (``numbers`` a deal, ``DealColumns.deal``'s) and the four masks
    of every deal of ``matches`` (each: its index among the chunk's matches, its core
    output, its rules), in the order given."""
    raw = np.frombuffer(b"".join(r for _, r, _ in matches), dtype=_OUT)
    n = len(raw)
    per = np.array([deals_in(r) for _, r, _ in matches], dtype=np.int64)
    starts = np.cumsum(per) - per  # each match's first row
    first = np.zeros(n, dtype=bool)
    first[starts[per > 0]] = True
    match = np.repeat(np.array([i for i, _, _ in matches], dtype=np.int64), per)
    number = np.arange(n, dtype=np.int64) - np.repeat(starts, per) + 1
    dealer = raw["dealer"].astype(np.int64)
    thirteenth = raw["thirteenth"].astype(np.int64)
    # the trump the deal gives (per match's rules), and a declarer's named trump
    tables: dict[int, npt.NDArray[np.int64]] = {}
    trump = np.empty(n, dtype=np.int64)
    named = np.zeros(n, dtype=bool)
    for (_, _, rules), s, k in zip(matches, starts.tolist(), per.tolist(), strict=True):
        table = tables.get(id(rules))
        if table is None:
            table = tables[id(rules)] = _trumps(rules)
        trump[s:s + k] = table[thirteenth[s:s + k]]
        named[s:s + k] = rules.trump == "named"
    has = named & (raw["declarer"] != _NONE) & (raw["trump"] != _NONE) & (raw["cancelled"] == 0)
    declarer = np.where(has, raw["declarer"].astype(np.int64), -1)
    suit = np.where(has, raw["trump"].astype(np.int64), -1)
    # the state before each deal: the totals after the deal before (none before the first)
    after = raw["totals"].astype(np.int64)  # (n, 4): the seats' totals after the deal
    teams = np.stack((after[:, 0] + after[:, 2], after[:, 1] + after[:, 3]), axis=1)
    scores = np.zeros((n, 4), dtype=np.int64)
    scores[1:] = after[:-1]
    scores[first] = 0
    totals = np.zeros((n, 2), dtype=np.int64)
    totals[1:] = teams[:-1]
    totals[first] = 0
    gained = teams - totals  # each deal's gain; "won" is the deal before's
    won_now = np.where(gained[:, 0] > gained[:, 1], 1,
                       np.where(gained[:, 1] > gained[:, 0], 2, 0)).astype(np.int64)
    won = np.zeros(n, dtype=np.int64)
    won[1:] = won_now[:-1]
    won[first] = 0
    # the hands: card q of the deck goes to seat dealer + 1 + q
    one = np.left_shift(np.uint64(1), raw["deck"].astype(np.uint64))  # (n, 52)
    dealt = np.stack([one[:, r::4].sum(axis=1, dtype=np.uint64) for r in range(4)], axis=1)
    masks = np.empty((n, 4), dtype=np.uint64)
    masks[np.arange(n)[:, None], (dealer[:, None] + 1 + np.arange(4)) & 3] = dealt
    out = np.stack((match, dealer, thirteenth, trump, number, totals[:, 0], totals[:, 1],
                    *scores.T, declarer, suit, won), axis=1)
    assert out.shape[1] == numbers
    return out, masks


def with_core(nums: npt.NDArray[np.int64], masks: npt.NDArray[np.uint64],
              core: Sequence[tuple[int, bytes, RuleSet]],
              ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.uint64], list[bytes]]:
    """``DealColumns``' rows (``nums``, its per-deal numbers, the match first; ``masks``)
    with the deals of the matches in ``core`` (:func:`core_rows`) among them, in the order
    of the matches, and every deal's dealt bytes (:func:`dealt_bytes`)."""
    if core:
        more, more_masks = core_rows(core, nums.shape[1])
        nums = np.concatenate((nums, more))
        order = np.argsort(nums[:, 0], kind="stable")  # each match's deals stay in order
        nums, masks = nums[order], np.concatenate((masks, more_masks))[order]
    return nums, masks, dealt_bytes(masks, nums[:, 1])


def dealt_bytes(masks: npt.NDArray[np.uint64], dealer: npt.NDArray[np.int64]) -> list[bytes]:
    """Each deal's first three hands dealt (the seats after the dealer's, in turn) as one
    156-bit number, in 20 bytes, big-endian: the value the repeat test of whole deals
    counts (``m[d+1] | m[d+2] << 52 | m[d+3] << 104``)."""
    rows = np.arange(len(masks))
    a, b, c = (masks[rows, (dealer + k) & 3] for k in (1, 2, 3))
    words = np.empty(len(masks), dtype=_DEALT)
    words["lo"] = a | b << np.uint64(52)
    words["mid"] = b >> np.uint64(12) | c << np.uint64(40)
    words["top"] = (c >> np.uint64(24)).astype(np.uint32)
    out: list[bytes] = words.view("V20").tolist()
    return out


__all__ = ["core_rows", "deals_in", "dealt_bytes", "with_core"]
