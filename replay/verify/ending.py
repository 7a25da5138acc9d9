"""How a match ends: the end record checked against the replayed state.

The end record declares a winner, or says the match was abandoned: who left and
why (``[cause, seat, reason]``, FORMAT.md). The winner is checked against the
scores. Of an abandonment, the one part the moves can prove or refute is a
**timeout**: it blames the seat whose turn it was when the log stops, in the
bidding, the trump naming or the play. A timeout that blames another seat
(``timeout-out-of-turn``), or comes when nobody was to move — between two hands,
after a hand's last card or once the match was won (``timeout-no-turn``) — is a
finding: it is how a platform would hand a match to one team by blaming a player
of the other. A disconnect or a resignation may come from any seat at any time,
so who left then is the platform's word.

>>> from tarneeb.replay.log import Abandonment, EndRecord, parse_log
>>> from tarneeb.replay.verify.replayer import verify_log
>>> from tarneeb.replay.server.simulate import play_logged_match
>>> log = parse_log(play_logged_match("eram41", seed=b"ending doc"))  # reproducible: not secret
>>> log.hands, log.offsets = log.hands[:3], log.offsets[:3]  # stopped after hand 2 (from 0)
>>> log.end = EndRecord(None, log.end.server_seed, Abandonment("timeout", 1, "no answer"))
>>> [str(f) for f in verify_log(log).findings if f.kind.startswith("timeout")]  # doctest: +ELLIPSIS
['hand 2, seat 1: the log says seat 1 (...) timed out after hand 2, before the next deal, ...']
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from tarneeb.replay.log.records import Abandonment, HandRecord, ParsedLog
from tarneeb.replay.rules.engine import MatchState, Phase
from tarneeb.replay.verify.findings import Verdict

TEAM_NAMES = ("team 0+2", "team 1+3")
# in a ``cut-short`` finding's message: the log stops before its end record (its match may
# still be going on: its log may yet grow, deals and all)
NO_END_RECORD = "without its end record"
# the one ``cut-short`` finding not where the log's reader stopped: a signed end record
# that says the match goes on
ENDS_UNFINISHED = "the match ends unfinished"


def no_end_record(findings: Iterable[Any]) -> bool:
    """Whether ``findings`` (each with a ``kind`` and ``message``) say the log stops before
    its end record (a ``cut-short`` finding): its match may still be going on."""
    return any(f.kind == "cut-short" and NO_END_RECORD in f.message for f in findings)


def stopped_at(findings: Iterable[Any], size: int) -> int | None:
    """Where the reader of a log of ``size`` bytes stopped, from its findings (each with a
    ``kind``, ``message`` and ``offset``): None when the log is whole, with its end record
    and signed (no ``unsigned`` finding, no ``cut-short`` one for a log without its end
    record), whatever else it is found to be; else the offset of its first cut (``size``:
    none, a log not signed yet), the bytes before it all the log says so far."""
    if not no_end_record(findings) and not any(f.kind == "unsigned" for f in findings):
        return None
    return min((f.offset for f in findings if f.kind == "cut-short" and f.offset is not None
                and not f.message.startswith(ENDS_UNFINISHED)), default=size)


def team_name(team: int | None) -> str:
    """The name of ``team`` (0 or 1), or ``"no team"``."""
    return "no team" if team is None else TEAM_NAMES[team]

_CAUSE_TEXT = {"disconnect": "disconnected", "timeout": "timed out", "resignation": "resigned"}
_TURN_TEXT = {Phase.BID: "call", Phase.TRUMP: "name the trump", Phase.PLAY: "play"}


def check_end(log: ParsedLog, state: MatchState, v: Verdict, at_last_move: bool) -> None:
    """Compare the log's end (or its lack) with the state the replay left.

    ``at_last_move``: the hand the log stops in (if any) was replayed to its last move,
    so ``state`` is the position the log stops at and says whose turn it was."""
    last = log.hands[-1] if log.hands else None
    if log.end is None:
        cut = log.cut_short
        at = cut.offset if cut is not None and cut.offset is not None else log.size
        what = cut.message if cut is not None else f"cut at byte {at}: the log ends"
        v.add("cut-short", f"{what}, after {len(log.hands)} dealing attempts, {NO_END_RECORD}"
              + (f" (hand {last.deal_number} stops after {_moves(last)})"
                 if last is not None and not last.closed else ""), offset=at)
        return
    if log.cut_short is not None:
        v.add("cut-short", f"{log.cut_short.message}, after the end record",
              offset=log.cut_short.offset)
    claimed, actual = log.end.winner, state.winner
    at = log.end_offset if log.end_offset is not None else log.size
    abandoned = log.end.abandoned
    if abandoned is not None:
        v.ending = f"abandoned at {_stop_place(last)}: {_abandon_text(log, abandoned)}"
        v.reason = abandoned.reason or None
        waiting = None if last is None or last.blind is None else last.blind.waiting_for
        if abandoned.cause == "timeout" and abandoned.seat is not None and waiting is not None:
            _check_dealing_timeout(log, v, abandoned, last, waiting)
        elif abandoned.cause == "timeout" and abandoned.seat is not None:
            _check_timeout(log, state, v, abandoned, last, at_last_move)
    elif last is not None and not last.closed:
        v.add("hand-incomplete", f"hand {last.deal_number} has no claims record: the match "
              f"ends inside it, after {_moves(last)}", hand=last.deal_number, offset=at)
    if actual is None and claimed is not None:
        v.add("winner-too-early", f"the log declares {TEAM_NAMES[claimed]} the winner, but no "
              f"team has won yet (totals {state.totals})", offset=at)
    elif actual is not None and claimed is None:
        v.add("no-winner", f"{TEAM_NAMES[actual]} won{_won_in(state)}, but the log declares no "
              "winner" + (" (it says the match was abandoned after that)"
                          if abandoned is not None else ""), offset=at)
    elif actual != claimed:
        v.add("wrong-winner", f"the log declares {team_name(claimed)} the winner, but "
              f"{team_name(actual)} won", offset=at)
    elif actual is None and abandoned is None:
        v.add("cut-short", f"{ENDS_UNFINISHED}: no team has won, and the log does not "
              "say it was abandoned", offset=at)


def _check_timeout(log: ParsedLog, state: MatchState, v: Verdict, a: Abandonment,
                   last: HandRecord | None, at_last_move: bool) -> None:
    """A timeout blames the seat to move where the log stops: another seat, or nobody's
    turn at all, is a finding at that hand and trick, on the seat blamed."""
    if a.seat is None:  # a server fault blames no seat
        return
    blamed = f"the log says seat {a.seat} ({log.header.seats[a.seat].name}) timed out"
    at = log.end_offset
    hand = None if last is None else last.deal_number
    if state.is_over:
        v.add("timeout-no-turn", f"{blamed}, but the match was already over: "
              f"{team_name(state.winner)} had won it{_won_in(state)}", seat=a.seat,
              hand=hand, offset=at)
        return
    if last is None or last.closed:
        where = ("before the first deal" if last is None else
                 f"after hand {last.deal_number}, before the next deal")
        v.add("timeout-no-turn", f"{blamed} {where}, when no player was to move: dealing "
              "is up to the platform", hand=hand, seat=a.seat, offset=at)
        return
    n = last.deal_number
    if not at_last_move:  # a finding stopped the replay inside the hand: the turn is not known
        v.notes.append(f"the timeout's seat is not checked: hand {n} could not be replayed to "
                       "its last move")
        return
    phase = state.phase
    if phase not in _TURN_TEXT:  # the hand's last card is played, or it was cancelled
        why = "its 13 tricks were played" if len(last.plays) == 52 else "it was cancelled"
        v.add("timeout-no-turn", f"{blamed} at the end of hand {n}, but no player was to "
              f"move: {why}, and only its claims were still to come", hand=n, seat=a.seat,
              offset=at)
        return
    seat = state.current_player
    if seat != a.seat:
        trick = len(last.plays) // 4 + 1 if phase == Phase.PLAY else None
        v.add("timeout-out-of-turn", f"{blamed}, but it was seat {seat}'s turn to "
              f"{_TURN_TEXT[phase]} when the log stops: a timeout blames the player to move",
              hand=n, trick=trick, seat=a.seat, offset=at)


def _check_dealing_timeout(log: ParsedLog, v: Verdict, a: Abandonment, last: HandRecord | None,
                           waiting: int) -> None:
    """A blind deal that stopped (PROTOCOL.md §13.8): the timeout must blame the seat whose
    step the transcript shows is missing."""
    assert last is not None and last.blind is not None
    from tarneeb.replay.verify.blind import waiting_step

    if a.seat is not None and a.seat != waiting:
        blamed = f"the log says seat {a.seat} ({log.header.seats[a.seat].name}) timed out"
        v.add("timeout-out-of-turn", f"{blamed}, but the blind deal stops at seat {waiting}: "
              f"it is seat {waiting} that has not delivered {waiting_step(last.blind)}",
              hand=last.deal_number, seat=a.seat, offset=log.end_offset)


def _won_in(state: MatchState) -> str:
    """`` in hand 7``: the hand that won the match, when the replay has it."""
    won = next((h.deal_number for h in state.history if h.winner is not None), None)
    return "" if won is None else f" in hand {won}"


def _moves(rec: HandRecord) -> str:
    calls, cards = len(rec.calls), len(rec.plays)
    return f"{calls} call{'' if calls == 1 else 's'} and {cards} card{'' if cards == 1 else 's'}"


def _stop_place(last: HandRecord | None) -> str:
    """Where a match stopped, from its last hand: ``hand 3, trick 5``."""
    if last is None:
        return "the start, before the first deal"
    if last.closed:
        return f"the end of hand {last.deal_number}, before the next deal"
    if last.blind is not None and last.blind.waiting_for is not None:
        return (f"hand {last.deal_number}, in its blind deal, waiting for seat "
                f"{last.blind.waiting_for}")
    if len(last.plays) == 52:
        return f"hand {last.deal_number}, after its 13th trick, before its claims"
    if last.plays:
        return f"hand {last.deal_number}, trick {len(last.plays) // 4 + 1}"
    return f"hand {last.deal_number}, in the bidding"


def _abandon_text(log: ParsedLog, a: Abandonment) -> str:
    if a.seat is None:
        who = "the server" if a.cause == "server-fault" else "a player"
    else:
        who = f"seat {a.seat} ({log.header.seats[a.seat].name})"
    what = "failed" if a.cause == "server-fault" else _CAUSE_TEXT.get(a.cause, a.cause)
    return f"{who} {what}" + (f": {a.reason}" if a.reason else "")


__all__ = ["ENDS_UNFINISHED", "NO_END_RECORD", "TEAM_NAMES", "check_end", "no_end_record",
           "stopped_at", "team_name"]
