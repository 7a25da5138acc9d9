"""Alterations of what a log claims: the trick counts, hand scores and running totals,
the declared winner (and a hand added after it or the winning hand removed), the end
record, and claims a cancelled hand must not carry.

Each registers in :data:`~tarneeb.testing.alterations.REGISTRY` (see
:mod:`tarneeb.testing.alterations` for the call form). The replayer has to find each
from the moves, which stay as they were.
"""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarneeb.replay.log import EndRecord
from tarneeb.testing.alterations.base import (
    Alteration,
    Altered,
    EditableLog,
    NotApplicable,
    _cancelled,
    _close,
    _open,
    _pick_hand,
    _played,
    _register,
)

# ---------------------------------------------------------------- the end of the log

@_register("drop-end", "remove the end record", match_level=True)
def drop_end(data: bytes, *, choice: int = 0, hand: int | None = None,
             resign: Ed25519PrivateKey | None = None) -> Altered:
    """The end record removed: no winner declared, the log looks unfinished."""
    log = _open(data)
    if log.end is None:
        raise NotApplicable("the log has no end record")
    log.end = None
    return _close(log, resign), Alteration("drop-end", None, "the end record removed",
                                           expect="cut-short")


@_register("change-winner", "declare the other team or no team the winner", match_level=True)
def change_winner(data: bytes, *, choice: int = 0, hand: int | None = None,
                  resign: Ed25519PrivateKey | None = None) -> Altered:
    """The end record declares the other team (``choice`` even) or nobody (odd)."""
    log = _open(data)
    if log.end is None or log.end.winner is None:
        raise NotApplicable("the log declares no winner")
    old = log.end.winner
    new = 1 - old if choice % 2 == 0 else None
    log.end = EndRecord(new, log.end.server_seed)
    kind = "wrong-winner" if new is not None else "no-winner"
    return _close(log, resign), Alteration(
        "change-winner", None, f"winner team {old} → {'none' if new is None else f'team {new}'}",
        expect=kind)


@_register("drop-last-hand", "remove the winning hand, keep the declared winner",
           match_level=True)
def drop_last_hand(data: bytes, *, choice: int = 0, hand: int | None = None,
                   resign: Ed25519PrivateKey | None = None) -> Altered:
    """The last hand record removed: the winner is declared before the match is won."""
    log = _open(data)
    if log.end is None or log.end.winner is None or len(log.hands) < 2:
        raise NotApplicable("the log has no winner or a single hand")
    n = len(log.hands) - 1
    del log.hands[n]
    return _close(log, resign), Alteration(
        "drop-last-hand", None, f"hand {n}, which won the match, removed",
        expect="winner-too-early")


@_register("append-hand", "add a hand after the match was won")
def append_hand(data: bytes, *, choice: int = 0, hand: int | None = None,
                resign: Ed25519PrivateKey | None = None) -> Altered:
    """A copy of a played hand appended after the winning hand, numbered as the next one."""
    log = _open(data)
    if not log.hands:
        raise NotApplicable("the log has no hands")
    rng = random.Random(choice)
    src = _pick_hand(log, rng, None, _played, "played")
    last = log.hands[-1]
    if last.totals is None:
        raise NotApplicable("the last hand has no totals: the log stops inside it")
    n = len(log.hands)
    rec = replace(log.hands[src], deal_number=n, dealer=(last.dealer + 1) & 3,
                  calls=list(log.hands[src].calls), totals=list(last.totals))
    log.hands.append(rec)
    return _close(log, resign), Alteration(
        "append-hand", n, f"hand {n} (a copy of hand {src}) appended after the win",
        expect="played-after-win")

# ---------------------------------------------------------------- claims

@_register("cancelled-claims", "a cancelled hand's record carries a trump, tricks or scores")
def cancelled_claims(data: bytes, *, choice: int = 0, hand: int | None = None,
                     resign: Ed25519PrivateKey | None = None) -> Altered:
    """A cancelled hand given a trump, or trick counts, or hand scores of zero: fields
    FORMAT.md has nil for a cancelled hand (the claims are no lie, the byte form is)."""
    log = _open(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, _cancelled, "cancelled")
    field, value = [("trump", rng.randrange(4)), ("tricks", [0, 0, 0, 0]),
                    ("scores", [0, 0, 0, 0])][choice % 3]
    changes: dict[str, Any] = {field: value}  # the field is chosen by name
    log.hands[n] = replace(log.hands[n], **changes)
    return _close(log, resign), Alteration(
        "cancelled-claims", n, f"hand {n}, cancelled, carries {field} {value}",
        expect="not-canonical")


def _claim(log: EditableLog, n: int, field: str, seat: int, delta: int) -> tuple[int, int]:
    rec = log.hands[n]
    values = list(getattr(rec, field))
    old = values[seat]
    values[seat] = old + delta
    changes: dict[str, Any] = {field: values}  # the field is chosen by name
    log.hands[n] = replace(rec, **changes)
    return old, values[seat]


@_register("change-score", "claim another hand score for one seat")
def change_score(data: bytes, *, choice: int = 0, hand: int | None = None,
                 resign: Ed25519PrivateKey | None = None) -> Altered:
    """One seat's claimed hand score changed (the totals stay)."""
    log = _open(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, lambda r: r.scores is not None, "scored")
    seat = rng.randrange(4)
    old, new = _claim(log, n, "scores", seat, rng.choice([-2, -1, 1, 2]))
    return _close(log, resign), Alteration(
        "change-score", n, f"hand {n}: seat {seat}'s score {old} → {new}", seat=seat,
        expect="wrong-hand-score")


@_register("change-tricks", "claim another trick count for one seat")
def change_tricks(data: bytes, *, choice: int = 0, hand: int | None = None,
                  resign: Ed25519PrivateKey | None = None) -> Altered:
    """One seat's claimed trick count changed."""
    log = _open(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, lambda r: r.tricks is not None, "played")
    seat = rng.randrange(4)
    tricks = log.hands[n].tricks
    assert tricks is not None  # the hand was picked for its tricks
    delta = -1 if tricks[seat] == 13 else 1 if tricks[seat] == 0 else rng.choice([-1, 1])
    old, new = _claim(log, n, "tricks", seat, delta)
    return _close(log, resign), Alteration(
        "change-tricks", n, f"hand {n}: seat {seat}'s tricks {old} → {new}", seat=seat,
        expect="wrong-trick-count")


@_register("change-total", "claim another running total for one seat")
def change_total(data: bytes, *, choice: int = 0, hand: int | None = None,
                 resign: Ed25519PrivateKey | None = None) -> Altered:
    """One seat's claimed running total after a hand changed."""
    log = _open(data)
    rng = random.Random(choice)
    # (the hand an abandoned match stops in claims no totals)
    n = _pick_hand(log, rng, hand, lambda r: r.totals is not None, "totalled")
    seat = rng.randrange(4)
    old, new = _claim(log, n, "totals", seat, rng.choice([-3, -1, 1, 3]))
    return _close(log, resign), Alteration(
        "change-total", n, f"hand {n}: seat {seat}'s total {old} → {new}", seat=seat,
        expect="wrong-total")
