"""Abandoned matches across an archive: by cause, by who left, and the score then.

A platform (or a player) that abandons the matches it is losing would not show in a
count of clean logs: each abandoned log can be clean (the end record says who left and
why). The audit counts the abandoned matches (each match once) by cause, by the seat
that left, its team and its label (computer or human), with the difference of the
team totals at the time (the leaver's team minus the other, after the last hand
closed), and tests whether matches are abandoned more by the side that is behind.

**The test.** If leaving has nothing to do with the score, the leaver's team is as
likely behind as ahead: among the abandonments with a seat and a score that is not
level, the number with the leaver behind is binomial with probability 1/2. The p-value
is the exact one-sided tail, ``P(X >= behind)``, summed with integers (no
approximation); level scores are left out. A server fault names no seat, so it is
counted by cause only.

>>> t = Abandonments()
>>> for diff in (-5, -12, -3, 4, 0):
...     t.add(("disconnect", 1, False, diff))
>>> t.add(("server-fault", None, None, None))
>>> t.matches, t.behind, t.ahead, t.level, round(t.p_value(), 4)
(6, 3, 1, 1, 0.3125)
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from math import comb
from typing import TYPE_CHECKING, Any

from tarneeb.replay.rules.scoring import team_totals

if TYPE_CHECKING:
    from tarneeb.replay.log import ParsedLog

# an abandonment as a worker sends it: cause, the seat that left (None: the server), that
# seat's label (True a computer), the score then (its team's total minus the other's)
Ending = tuple[str, int | None, bool | None, int | None]
TEAMS = ("team 0+2", "team 1+3")


def ending_of(log: ParsedLog) -> Ending | None:
    """The abandonment a log's end record declares, or None (won, or no end record)."""
    a = log.end.abandoned if log.end is not None else None
    if a is None:
        return None
    seat = a.seat if a.seat is not None and 0 <= a.seat < len(log.header.seats) else None
    diff = None
    if seat is not None:
        totals = next((r.totals for r in reversed(log.hands) if r.closed and r.totals),
                      [0, 0, 0, 0])
        ours, theirs = team_totals(log.header.rules, list(totals))
        if seat & 1:
            ours, theirs = theirs, ours
        diff = ours - theirs
    label = log.header.seats[seat].computer if seat is not None else None
    return a.cause, seat, label, diff


@dataclass
class Abandonments:
    """The abandoned matches of an archive, counted as they are folded in."""

    matches: int = 0
    by_cause: Counter[str] = field(default_factory=Counter)
    by_seat: Counter[int] = field(default_factory=Counter)  # seat from 0
    by_team: Counter[int] = field(default_factory=Counter)
    by_label: Counter[str] = field(default_factory=Counter)  # computer, human
    differences: Counter[int] = field(default_factory=Counter)  # leaver's team minus other
    behind: int = 0
    ahead: int = 0
    level: int = 0

    def add(self, e: Ending) -> None:
        cause, seat, computer, diff = e
        self.matches += 1
        self.by_cause[cause] += 1
        if seat is None:
            return
        self.by_seat[seat] += 1
        self.by_team[seat & 1] += 1
        self.by_label["computer" if computer else "human"] += 1
        if diff is None:
            return
        self.differences[diff] += 1
        if diff < 0:
            self.behind += 1
        elif diff > 0:
            self.ahead += 1
        else:
            self.level += 1

    def p_value(self) -> float | None:
        """The exact one-sided binomial p-value of "the leaver's team is behind more often
        than ahead" (level scores left out); None with no abandonment to test."""
        n = self.behind + self.ahead
        if n == 0:
            return None
        tail = sum(comb(n, k) for k in range(self.behind, n + 1))
        return float(Fraction(tail, 2 ** n))

    def to_json(self) -> dict[str, Any]:
        """The counts and the test, seats and teams numbered from 0 as in the protocol."""
        return {
            "matches": self.matches,
            "by_cause": dict(sorted(self.by_cause.items())),
            "by_seat": {str(k): v for k, v in sorted(self.by_seat.items())},
            "by_team": {TEAMS[k]: v for k, v in sorted(self.by_team.items())},
            "by_label": dict(sorted(self.by_label.items())),
            "score_differences": {str(k): v for k, v in sorted(self.differences.items())},
            "leaver_behind": self.behind, "leaver_ahead": self.ahead, "level": self.level,
            "behind_test": {"method": "exact one-sided binomial, p = 1/2, level scores left "
                            "out", "p_value": self.p_value()},
        }

    def sentence(self, alpha: float) -> str:
        """The abandoned matches in words.

        >>> t = Abandonments()
        >>> t.add(("resignation", 0, False, -7))
        >>> t.sentence(0.05)  # doctest: +ELLIPSIS
        '1 match was abandoned (resignation 1); by seat 1 1 (human 1); the side that left ...'
        """
        were = "match was" if self.matches == 1 else "matches were"
        causes = ", ".join(f"{c} {n:,}" for c, n in sorted(self.by_cause.items()))
        out = f"{self.matches:,} {were} abandoned ({causes})"
        if self.by_seat:
            seats = ", ".join(f"seat {s + 1} {n:,}" for s, n in sorted(self.by_seat.items()))
            labels = ", ".join(f"{k} {n:,}" for k, n in sorted(self.by_label.items()))
            out += f"; by {seats} ({labels})"
        p = self.p_value()
        if p is not None:
            verdict = ("MORE OFTEN BY THE SIDE BEHIND" if p < alpha else
                       "no evidence that the side behind leaves more often")
            out += (f"; the side that left was behind {self.behind:,}, ahead {self.ahead:,}, "
                    f"level {self.level:,}: {verdict} (exact binomial p = {p:.3g})")
        return out + "."


__all__ = ["TEAMS", "Abandonments", "Ending", "ending_of"]
