"""Lies about how a match ended: a timeout blamed on the wrong player, or on nobody's turn.

A platform that wants to hand a match to one team can stop the log and blame a
player of the other for a timeout. Each alteration here ends a clean log as
abandoned in a way its moves refute, and names the finding ``verify`` must report
(see :mod:`tarneeb.replay.verify.ending`). :func:`abandon_in_hand` writes the honest
version too: the log stopped inside a hand, the seat to move blamed.

They register in :data:`~tarneeb.testing.alterations.REGISTRY` like the others.

>>> from tarneeb.replay.verify.replayer import verify_bytes
>>> from tarneeb.replay.server.simulate import MatchSecrets, play_logged_match
>>> from tarneeb.testing.alterations import alter
>>> log = play_logged_match("classic", seed=b"end doc")  # reproducible: not secret
>>> bad, alt = alter("blame-timeout", log, resign=MatchSecrets(b"end doc").key)
>>> alt.expect, [(f.hand, f.trick, f.seat) for f in verify_bytes(bad).findings] == [
...     (alt.hand, alt.trick, alt.seat)]
('timeout-out-of-turn', True)
"""

from __future__ import annotations

import random

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from tarneeb.replay.log import Abandonment, EndRecord, HandRecord
from tarneeb.replay.rules.actions import is_play
from tarneeb.replay.rules.engine import MatchState
from tarneeb.testing.alterations.base import (
    Alteration,
    Altered,
    EditableLog,
    NotApplicable,
    _close,
    _open,
    _pick_hand,
    _played,
    _register,
    _replay,
)

# (seat to move, trick of the play or None) before each move of a hand
Turns = list[tuple[int, int | None]]


def _log(data: bytes) -> EditableLog:
    log = _open(data)
    if log.header.blind:  # a blind hand cut short would need its proofs cut too
        raise NotApplicable("the log is dealt blind")
    if log.end is None:
        raise NotApplicable("the log has no end record")
    return log


def _turns(log: EditableLog, n: int) -> Turns:
    """Whose turn it is before each move of hand ``n`` of a clean log."""
    turns: Turns = []

    def visit(state: MatchState, move: int, action: int) -> None:
        trick = len(state.hand_under_way.plays) // 4 + 1 if is_play(action) else None
        turns.append((state.to_move, trick))

    _replay(log, n, visit)
    return turns


def _stop(log: EditableLog, n: int, moves: int) -> None:
    """Keep the hands before ``n``, and hand ``n`` open after its first ``moves`` moves."""
    rec = log.hands[n]
    calls = rec.calls[:moves]
    named = log.rules.trump == "named" and rec.trump is not None and rec.plays
    trump = rec.trump if named and moves > len(rec.calls) else None
    plays = rec.plays[:max(0, moves - len(rec.calls) - (1 if named else 0))]
    log.hands[n:] = [HandRecord(rec.deal_number, rec.dealer, calls, rec.revealed, trump, plays,
                                rec.timer & ((1 << moves) - 1), None, None, None, rec.deal,
                                closed=False)]


def _end(log: EditableLog, cause: str, seat: int | None, reason: str) -> None:
    assert log.end is not None
    log.end = EndRecord(None, log.end.server_seed, Abandonment(cause, seat, reason))


def abandon_in_hand(data: bytes, hand: int, moves: int, seat: int | None = None,
                    resign: Ed25519PrivateKey | None = None) -> tuple[bytes, int]:
    """The log stopped after ``moves`` moves of hand ``hand`` (its index) and ended by a
    timeout of ``seat`` (by default the seat to move: an honest log); returns the log and
    the seat that was to move."""
    log = _log(data)
    turns = _turns(log, hand)
    if not 0 <= moves < len(turns):
        raise NotApplicable(f"hand {hand} has no move {moves}")
    to_move = turns[moves][0]
    _stop(log, hand, moves)
    _end(log, "timeout", to_move if seat is None else seat, "no answer")
    return _close(log, resign), to_move


@_register("blame-timeout", "blame a timeout on a seat whose turn it was not")
def blame_timeout(data: bytes, *, choice: int = 0, hand: int | None = None,
                  resign: Ed25519PrivateKey | None = None) -> Altered:
    """The log stopped inside a played hand (in the bidding, the trump naming or the
    play) and ended as a timeout of another seat than the one to move."""
    log = _log(data)
    rng = random.Random(choice)
    n = _pick_hand(log, rng, hand, _played, "played")
    turns = _turns(log, n)
    moves = rng.randrange(len(turns))
    to_move, trick = turns[moves]
    blamed = (to_move + 1 + rng.randrange(3)) & 3
    _stop(log, n, moves)
    _end(log, "timeout", blamed, "no answer")
    return _close(log, resign), Alteration(
        "blame-timeout", n, f"hand {n} stops before move {moves}, seat {to_move}'s, and seat "
        f"{blamed} is blamed for a timeout", trick=trick, seat=blamed,
        expect="timeout-out-of-turn")


@_register("timeout-no-turn", "a timeout between two hands or after a hand's last card")
def timeout_no_turn(data: bytes, *, choice: int = 0, hand: int | None = None,
                    resign: Ed25519PrivateKey | None = None) -> Altered:
    """The log stopped after a hand that did not win the match (``choice`` even: after its
    claims; odd: a played hand after its 52nd card, before them) and ended as a timeout:
    no player was to move."""
    log = _log(data)
    rng = random.Random(choice)
    last = len(log.hands) - 1 if log.end is not None and log.end.winner is not None else None

    def ok(rec: HandRecord) -> bool:  # (a closed hand: the one a log stops in is open)
        return rec.deal_number != last and rec.closed and (choice % 2 == 0 or _played(rec))

    n = _pick_hand(log, rng, hand, ok, "a hand before the last" +
                   ("" if choice % 2 == 0 else ", played"))
    blamed = rng.randrange(4)
    if choice % 2 == 0:
        del log.hands[n + 1:]
        what = "after its claims"
    else:
        _stop(log, n, len(_turns(log, n)))
        what = "after its 52nd card"
    _end(log, "timeout", blamed, "no answer")
    return _close(log, resign), Alteration(
        "timeout-no-turn", n, f"the log stops at hand {n}, {what}, with seat {blamed} blamed "
        "for a timeout", seat=blamed, expect="timeout-no-turn")


@_register("abandon-won-match", "say a match that was won was abandoned", match_level=True)
def abandon_won_match(data: bytes, *, choice: int = 0, hand: int | None = None,
                      resign: Ed25519PrivateKey | None = None) -> Altered:
    """Every hand kept, but the end record says the match was abandoned (a disconnect,
    a resignation or a timeout, by ``choice``) instead of declaring the team that won."""
    log = _log(data)
    if log.end is None or log.end.winner is None:
        raise NotApplicable("the log declares no winner")
    cause = ("disconnect", "resignation", "timeout")[choice % 3]
    seat = random.Random(choice).randrange(4)
    winner = log.end.winner
    _end(log, cause, seat, "left")
    return _close(log, resign), Alteration(
        "abandon-won-match", None, f"the match won by team {winner} said to be "
        f"abandoned ({cause} of seat {seat})", expect="no-winner")


__all__ = ["abandon_in_hand"]
