"""What a regression run reports: the first :class:`Disagreement` of a match (or how
the engine failed), each match's :class:`MatchReport`, and the whole :class:`RegressRun`
with its summary and exit code. :mod:`tarneeb.testing.regress.junit` writes a run as JUnit XML.

>>> MatchReport("a.tlog", "skipped", reason="not clean").line()
'a.tlog: skipped: not clean'
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from tarneeb.replay.verify.findings import place
from tarneeb.replay.verify.people import hands_from_1

Status = Literal["agree", "disagree", "engine-failure", "skipped", "unreadable"]

# What the engine and the recording can disagree on ...
DISAGREEMENTS: dict[str, str] = {
    "to-move": "the seat to move (or that no one is, once the hand is over)",
    "legal-actions": "the set of legal actions of the seat to move",
    "trick-winner": "the seat that won a trick",
    "tricks": "the trick counts after a trick",
    "hand-score": "the score of a hand",
    "totals": "the running totals after a hand",
    "winner": "the team that has won (or that no team has yet)",
}
# ... and the ways an engine can fail a match.
ENGINE_FAILURES: dict[str, str] = {
    "factory": "the engine factory raised or did not return an engine",
    "protocol": "the engine lacks a method of the protocol, or (an engine command) broke "
                "the line protocol",
    "raised": "a method of the engine raised an exception (an engine command: answered "
              "an error)",
    "garbage": "a method answered with the wrong type or an out-of-range value (an engine "
               "command: a line that is not a JSON object, or lacks the answer)",
    "timeout": "the match did not finish within the time limit",
    "crashed": "the engine's process died",
}


_TEAM = re.compile(r"\bteam ([01]) \(seats ([0-3]) and ([0-3])\)|\bteam ([01])\+([23])\b")
# seats named in a sentence, not a range of the protocol's values ("a seat 0-3 or None")
_SEATS = re.compile(r"\b(seats?(?:\(s\))?) ([0-3](?:(?:, | and )[0-3])*)\b(?![-–])")


def for_people(text: str) -> str:
    """A sentence of the engine protocol's numbers (hands and seats from 0) as people read
    it: hands and seats counted from 1, a team named by its two seats.

    >>> print(for_people("hand 0, trick 7, seat 3: won by seat 3 per the recording, seat 0's"))
    hand 1, trick 7, seat 4: won by seat 4 per the recording, seat 1's
    >>> print(for_people("after the hand: team 1 (seats 1 and 3) per the recording, team 0+2"))
    after the hand: the team of seats 2 and 4 per the recording, the team of seats 1 and 3
    >>> print(for_people("the commitments of seat(s) 0, 2 are not; hand(s) 3, 5; a seat 0-3"))
    the commitments of seat(s) 1, 3 are not; hand(s) 4, 6; a seat 0-3
    """
    def team(m: re.Match[str]) -> str:
        t = int(m[1] if m[1] is not None else m[4])
        return f"the team of seats {t} and {t + 2}"  # numbered from 0: _SEATS counts them on

    text = _TEAM.sub(team, text)
    text = _SEATS.sub(lambda m: f"{m[1]} " + re.sub(r"\d", lambda n: str(int(n[0]) + 1),
                                                      m[2]), text)
    return hands_from_1(text)


@dataclass
class Disagreement:
    """The first place an engine departs from the recording (or fails).

    ``hand`` is the deal number (from 0), ``trick`` 1–13, ``seat`` and ``move``
    the move being compared: about to be made, or the card that ended the trick.
    ``engine`` and ``reference`` say what each side answered.
    """

    kind: str
    message: str
    hand: int | None = None
    trick: int | None = None
    seat: int | None = None
    move: str | None = None
    engine: str | None = None
    reference: str | None = None

    @property
    def engine_failure(self) -> bool:
        return self.kind in ENGINE_FAILURES

    def where(self) -> str:
        return place("match start", hand=self.hand, trick=self.trick, seat=self.seat,
                     move=self.move)

    def __str__(self) -> str:
        """Where and what, in the protocol's numbers (hands and seats from 0), as in
        ``--json``; :meth:`said` is the same for people."""
        return f"{self.where()}: {self.message}"

    def said(self) -> str:
        """Where and what as people read it: hands and seats counted from 1.

        >>> print(Disagreement("trick-winner", "won by seat 0", 2, 5, 3, "4♥").said())
        hand 3, trick 5, seat 4, move 4♥: won by seat 1
        """
        return for_people(str(self))

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def _plural(n: int, word: str, words: str | None = None) -> str:
    return f"{n} {word if n == 1 else words or word + 's'}"


@dataclass
class MatchReport:
    """The outcome of one match: ``status`` and, unless it agrees, why."""

    name: str
    status: Status
    rules: str | None = None
    hands: int = 0  # dealing attempts in the match, cancelled ones included
    moves: int = 0  # moves in the match
    seconds: float = 0.0
    first: Disagreement | None = None
    reason: str | None = None  # why a log was skipped or unreadable

    @property
    def ok(self) -> bool:
        return self.status == "agree"

    @property
    def compared(self) -> bool:
        return self.status in ("agree", "disagree", "engine-failure")

    def line(self) -> str:
        """One line for a terminal, hands and seats counted from 1 (``--json`` keeps the
        protocol's numbers, from 0).

        >>> MatchReport("a.tlog", "agree", "eram41", 17, 950, 0.02).line()
        'a.tlog: ok (eram41, 17 hands, 950 moves, 0.02 s)'
        >>> MatchReport("a.tlog", "disagree", first=Disagreement("to-move", "seat 0 is to move",
        ...             0, 1, 0)).line()
        'a.tlog: DISAGREES at hand 1, trick 1, seat 1: seat 1 is to move'
        """
        if self.status == "agree":
            return (f"{self.name}: ok ({self.rules}, {_plural(self.hands, 'hand')}, "
                    f"{_plural(self.moves, 'move')}, {self.seconds:.2f} s)")
        first = self.first.said() if self.first is not None else "match start"
        if self.status == "disagree":
            return f"{self.name}: DISAGREES at {first}"
        if self.status == "engine-failure":
            return f"{self.name}: ENGINE FAILED at {first}"
        return f"{self.name}: {self.status}: {for_people(self.reason or '')}"

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        out["first"] = self.first.to_json() if self.first is not None else None
        out["seconds"] = round(self.seconds, 4)
        return out


@dataclass
class RegressRun:
    """Every match's report and the run's time."""

    reports: list[MatchReport] = field(default_factory=list)
    seconds: float = 0.0

    def count(self, status: Status) -> int:
        return sum(1 for r in self.reports if r.status == status)

    @property
    def matches(self) -> int:
        """Matches compared (not skipped, not unreadable)."""
        return sum(1 for r in self.reports if r.compared)

    @property
    def hands(self) -> int:
        """Dealing attempts in the matches compared."""
        return sum(r.hands for r in self.reports if r.compared)

    @property
    def exit_code(self) -> int:
        """0 every match agrees, 1 a disagreement or engine failure, 2 an unreadable log, or
        no match compared at all (every log skipped: a run that checked nothing passes
        nothing)."""
        if self.count("unreadable") or not self.matches:
            return 2
        return 1 if self.count("disagree") or self.count("engine-failure") else 0

    @property
    def nothing_compared(self) -> str | None:
        """Why the run compared no match, when it compared none; else None.

        >>> RegressRun([MatchReport("a", "skipped", "eram41", 0, 0)], 0.1).nothing_compared
        'no match compared: every log was skipped (not clean: no reference)'
        """
        if self.matches or self.count("unreadable") == len(self.reports):
            return None
        return "no match compared: every log was skipped (not clean: no reference)"

    def summary(self) -> str:
        """
        >>> RegressRun([MatchReport("a", "agree", "eram41", 17, 900)], 0.5).summary()
        'regress: 1 match, 17 hands, 0.50 s: 1 agree, 0 disagree, 0 engine failures'
        >>> RegressRun([MatchReport("a", "engine-failure", "eram41", 1, 9)], 0.5).summary()
        'regress: 1 match, 1 hand, 0.50 s: 0 agree, 0 disagree, 1 engine failure'
        """
        text = (f"regress: {_plural(self.matches, 'match', 'matches')}, "
                f"{_plural(self.hands, 'hand')}, {self.seconds:.2f} s: "
                f"{self.count('agree')} agree, {self.count('disagree')} disagree, "
                f"{_plural(self.count('engine-failure'), 'engine failure')}")
        if self.count("skipped"):
            text += (f", {self.count('skipped')} skipped (no reference: not clean, or a "
                     "blind hand never shown)")
        if self.count("unreadable"):
            text += f", {self.count('unreadable')} unreadable"
        return text

    def to_json(self) -> dict[str, Any]:
        return {"matches": [r.to_json() for r in self.reports],
                "summary": {"matches": self.matches, "hands": self.hands,
                            "seconds": round(self.seconds, 3),
                            **{s: self.count(s) for s in ("agree", "disagree", "engine-failure",
                                                          "skipped", "unreadable")},
                            "exit_code": self.exit_code}}
