"""Match scripts: what an engine under test is driven through.

A :class:`MatchScript` is a whole match as plain input (rules, first dealer, every
deal and move); :func:`script_from_history` makes one from a match this project's
engine played, :func:`prepare` from a clean log (or says why the log is no
reference). :mod:`tarneeb.testing.regress.driver` drives an engine through one.

>>> from tarneeb.replay.rules.ruleset import preset
>>> script_from_history(preset("eram41"), 0, []).moves
0
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from tarneeb.replay.log import LogError, ParsedLog, parse_log
from tarneeb.replay.rules.actions import TRUMP_BASE
from tarneeb.replay.rules.cards import by_seat
from tarneeb.replay.rules.ruleset import RuleSet
from tarneeb.replay.rules.scoring import Hand
from tarneeb.replay.verify.replayer import judged_log, verify_log
from tarneeb.testing.regress.report import MatchReport


class ScriptError(ValueError):
    """A match script whose moves the rules do not allow: it is no reference."""


# ---------------------------------------------------------------------- match scripts

@dataclass(frozen=True)
class DealScript:
    """One dealing attempt: the four hands, the dealer's 13th card, every move in order.

    ``actions`` are the calls, then the trump choice (classic), then the 52 cards;
    a cancelled hand has its calls only.
    """

    hands: tuple[int, int, int, int]
    thirteenth: int | None
    actions: tuple[int, ...]
    # the hand an abandoned match stops in: its moves, then no end (the last deal)
    open: bool = False


@dataclass(frozen=True)
class MatchScript:
    """A whole match as input for an engine: rules, first dealer, every deal and move.

    >>> from tarneeb.replay.rules.ruleset import preset
    >>> MatchScript(preset("eram41"), 0, ()).hands
    0
    """

    rules: RuleSet
    first_dealer: int
    deals: tuple[DealScript, ...]
    name: str = "<match>"
    reference: str = "the rules"  # who is right, in messages: "the recording" for a log

    @property
    def hands(self) -> int:
        return len(self.deals)

    @property
    def moves(self) -> int:
        return sum(len(d.actions) for d in self.deals)


def hand_actions(hand: Hand) -> tuple[int, ...]:
    """Every move of an engine :class:`~tarneeb.replay.rules.engine.Hand`, in the order made."""
    actions = [a for _, a in hand.calls]
    if hand.declarer is not None and not hand.cancelled and hand.trump is not None:
        actions.append(TRUMP_BASE + hand.trump)
    actions.extend(hand.plays)
    return tuple(actions)


def script_from_history(rules: RuleSet, first_dealer: int, history: Sequence[Hand],
                        name: str = "<match>", reference: str = "the rules") -> MatchScript:
    """The script of a match the engine played (``MatchState.history``)."""
    deals = tuple(DealScript(by_seat(h.hands), h.thirteenth, hand_actions(h))
                  for h in history)
    return MatchScript(rules, first_dealer, deals, name, reference)


# ---------------------------------------------------------------------- logs as references

def prepare(log: bytes | ParsedLog, name: str = "<log>") -> MatchScript | MatchReport:
    """The script of a clean log, or the report saying why the log is no reference."""
    if not isinstance(log, ParsedLog):
        try:
            log = parse_log(log, name)
        except LogError as e:
            return MatchReport(name, "unreadable", reason=str(e))
    verdict = verify_log(log, name)
    rules = log.header.rules.name
    if verdict.error is not None:
        return MatchReport(name, "unreadable", rules, verdict.hands, reason=verdict.error)
    if not verdict.clean:
        first = verdict.findings[0]
        return MatchReport(name, "skipped", rules, verdict.hands,
                           reason=f"the log is not clean, so it is no reference "
                           f"({len(verdict.findings)} finding(s); first: {first})")
    secret = [h.deal_number for h in verdict.history if not any(h.hands)]
    if secret:  # a blind hand cancelled in the bidding: no deal to give an engine
        return MatchReport(name, "skipped", rules, verdict.hands,
                           reason="the log is no reference: its hands dealt blind and cancelled "
                           "in the bidding were never shown (hand(s) "
                           f"{', '.join(map(str, secret))}), so there is no deal to give an "
                           "engine")
    script = script_from_history(log.header.rules, log.header.first_dealer, verdict.history,
                                 name, "the recording")
    last = log.hands[-1] if log.hands else None
    if last is not None and not last.closed:  # an abandoned match stops in this hand: its
        # moves, every one the verifier held to the rules, are the engine's to agree with
        # (the Python replay's, which keeps the hand under way)
        under_way = judged_log(log, name, fast=False)[1].open_hand
        if under_way is None or not any(under_way.hands):
            return MatchReport(name, "skipped", rules, verdict.hands,
                               reason="the log is no reference: the hand it stops in could "
                               "not be replayed")
        script = replace(script, deals=(*script.deals, DealScript(
            by_seat(under_way.hands), under_way.thirteenth, hand_actions(under_way), True)))
    return script
