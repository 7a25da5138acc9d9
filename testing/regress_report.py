"""What a regression run reports: the first :class:`Disagreement` of a match (or how
the engine failed), each match's :class:`MatchReport`, and the whole :class:`RegressRun`
with its summary and exit code. :mod:`tarneeb.testing.junit` writes a run as JUnit XML.

>>> MatchReport("a.tlog", "skipped", reason="not clean").line()
'a.tlog: skipped: not clean'
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from tarneeb.replay.findings import place

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
    "protocol": "the engine lacks a method of the protocol",
    "raised": "a method of the engine raised an exception",
    "garbage": "a method answered with the wrong type or an out-of-range value",
    "timeout": "the match did not finish within the time limit",
    "crashed": "the engine's process died",
}


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
        return f"{self.where()}: {self.message}"

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


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
        """One line for a terminal.

        >>> MatchReport("a.tlog", "agree", "eram41", 17, 950, 0.02).line()
        'a.tlog: ok (eram41, 17 hands, 950 moves, 0.02 s)'
        """
        if self.status == "agree":
            return (f"{self.name}: ok ({self.rules}, {self.hands} hands, {self.moves} moves, "
                    f"{self.seconds:.2f} s)")
        if self.status == "disagree":
            return f"{self.name}: DISAGREES at {self.first}"
        if self.status == "engine-failure":
            return f"{self.name}: ENGINE FAILED at {self.first}"
        return f"{self.name}: {self.status}: {self.reason}"

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
        """0 every match agrees, 1 a disagreement or engine failure, 2 an unreadable log."""
        if self.count("unreadable"):
            return 2
        return 1 if self.count("disagree") or self.count("engine-failure") else 0

    def summary(self) -> str:
        """
        >>> RegressRun([MatchReport("a", "agree", "eram41", 17, 900)], 0.5).summary()
        'regress: 1 match, 17 hands, 0.50 s: 1 agree, 0 disagree, 0 engine failures'
        """
        matches = f"{self.matches} match" + ("" if self.matches == 1 else "es")
        text = (f"regress: {matches}, {self.hands} hands, {self.seconds:.2f} s: "
                f"{self.count('agree')} agree, {self.count('disagree')} disagree, "
                f"{self.count('engine-failure')} engine failures")
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
