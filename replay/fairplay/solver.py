"""Double-dummy values of the cards a seat may play, from DDS (through ``endplay``).

DDS (Bo Haglund and Sören Hein's solver) is reached through ``endplay``'s ctypes
binding, ``endplay._dds``: a position is four hands of remaining cards, the seat on
lead to the current trick, the cards already in it and the trump; the answer is, for
every card the seat to move may play, the tricks its side takes from then on (this
trick included) with best play by all. Tarneeb's card play is bridge's (follow suit,
no duty to trump, the highest trump or else the highest card of the led suit wins,
the winner leads), so DDS's values are the game's.

Cards here are the package's (``suit * 13 + rank``, ♣ 0 … ♠ 3); DDS numbers suits
♠ 0 … ♣ 3 and ranks 2 … 14, and its seats north, east, south, west are the seats
0 … 3 (play goes round in the same direction, partners face each other).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from tarneeb.replay.rules.cards import Card, Mask

INSTALL = "the fair-play analysis needs endplay (DDS): pip install 'tarneeb[play]'"
_NT = 4


class PlayUnavailable(RuntimeError):
    """``endplay`` is not installed: the message says how to install it."""


_dds: Any = None


def dds() -> Any:
    """The DDS binding, loaded once (one thread: the audit's processes are its cores)."""
    global _dds
    if _dds is None:
        try:
            import endplay._dds as binding
        except ImportError as e:  # endplay's wheel carries DDS itself
            raise PlayUnavailable(INSTALL) from e
        binding.SetMaxThreads(1)
        _dds = binding
    return _dds


def available() -> bool:
    """Whether the solver can be loaded."""
    try:
        dds()
    except PlayUnavailable:
        return False
    return True


@dataclass(frozen=True, slots=True)
class Position:
    """Cards still held by each seat, the seat that led the current trick, the cards in it
    (in play order) and the trump suit (None: no trump)."""

    hands: tuple[Mask, Mask, Mask, Mask]
    leader: int
    trick: tuple[Card, ...]
    trump: int | None


def _dds_suit(suit: int) -> int:
    return 3 - suit


def _fill(d: Any, pos: Position) -> None:
    d.trump = _NT if pos.trump is None else _dds_suit(pos.trump)
    d.first = pos.leader
    for seat in range(4):
        h = pos.hands[seat]
        for suit in range(4):
            bits = (h >> (13 * suit)) & 0x1FFF
            d.remainCards[seat][_dds_suit(suit)] = bits << 2
    for i in range(3):
        if i < len(pos.trick):
            c = pos.trick[i]
            d.currentTrickSuit[i] = _dds_suit(c // 13)
            d.currentTrickRank[i] = c % 13 + 2
        else:
            d.currentTrickSuit[i] = 0
            d.currentTrickRank[i] = 0


def _values(fut: Any) -> dict[Card, int]:
    out: dict[Card, int] = {}
    for i in range(fut.cards):
        score = fut.score[i]
        if score < 0:
            continue
        suit = 3 - fut.suit[i]
        ranks = (1 << fut.rank[i]) | fut.equals[i]
        for r in range(2, 15):
            if ranks >> r & 1:
                out[suit * 13 + r - 2] = score
    return out


def solve(pos: Position) -> dict[Card, int]:
    """Per legal card of the seat to move: the tricks its side takes from here on."""
    binding = dds()
    d = binding.deal()
    _fill(d, pos)
    fut = binding.futureTricks()
    binding.SolveBoard(d, 0, 3, 1, fut, 0)  # a DDS error code raises DDSError
    return _values(fut)


def solve_many(positions: Sequence[Position]) -> list[dict[Card, int]]:
    """:func:`solve` for each position, in DDS batches (one thread)."""
    binding = dds()
    out: list[dict[Card, int]] = []
    limit = int(binding.MAXNOOFBOARDS)
    for start in range(0, len(positions), limit):
        part = positions[start:start + limit]
        bop = binding.boards()
        bop.noOfBoards = len(part)
        for i, pos in enumerate(part):
            _fill(bop.deals[i], pos)
            bop.target[i] = 0
            bop.solutions[i] = 3
            bop.mode[i] = 1
        solved = binding.solvedBoards()
        binding.SolveAllBoardsBin(bop, solved)
        out.extend(_values(solved.solvedBoard[i]) for i in range(len(part)))
    return out


__all__ = ["INSTALL", "PlayUnavailable", "Position", "available", "dds", "solve",
           "solve_many"]
