"""Saying things to people: players by name, hands counted from 1, cards with their colour.

The replayer speaks in seats 0–3 and deal numbers from 0, as the log format and every
JSON output do; a player reads names and counts from 1. :class:`Table` translates, for
``tarneeb verify``'s and ``tarneeb show``'s text and for the HTML report alike.

>>> t = Table(["Ana", "Ben", "Cy", "Dee"])
>>> t.say("seat 2 played 10♣ in hand 22 when it was seat 1's turn; team 1+3 won")
'Cy played 10♣ in hand 23 when it was Ben’s turn; Ben & Dee won'
>>> t.say("Hands 0-11 (12 dealing attempts) could not be replayed")
'Hands 1-12 (12 dealing attempts) could not be replayed'
>>> t.card(34)
Card(text='10♥', colour='red', trump=False)
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tarneeb.audit.encoding import ascii_name_keys
from tarneeb.replay.rules.cards import SUIT_SYMBOLS, card_name
from tarneeb.replay.verify.findings import Verdict

# The replayer's words for seats, teams and hands, read in one pass (a name put in is not
# read again: a player called "hand 3" or "seat 1" keeps the name), ASCII only, as the
# TypeScript CLI reads them (js/src/verify/people.ts)
_HANDS = (r"\b([Hh]ands?|[Hh]and\(s\)|attempt|dealing attempt) "
          r"([0-9]+(?:-[0-9]+)?(?:, [0-9]+(?:-[0-9]+)?)*)\b")
_HAND = re.compile(_HANDS, re.ASCII)
_WORDS = re.compile(r"\bteam ([01])\+([23])\b|\bseat ([0-3])('s)?\b|" + _HANDS, re.ASCII)
_NUMBER = re.compile(r"[0-9]+")
# a seat named in a name, anywhere in it ("seat 3", "Omar (Seat 3)", "Seat #3", "player
# three"), and the quotes a verdict puts around a name it writes with its seat: casefolded,
# spaces made one, not inside a word
_SEAT_LIKE = re.compile(r"(?<![^\W_])(?:seat|player|hand|team)[ #:.\-]*"
                        r"(?:\d+|one|two|three|four)(?![^\W_])|[“”\"]")


def name_looks(name: str) -> frozenset[str]:
    """The forms in which two names that look the same share one (UTS #39's skeleton, the
    invisible characters left out, :func:`~tarneeb.audit.names.name_keys`), their spaces
    made one."""
    keys = ascii_name_keys(name)
    if keys is None:  # (Unicode's data, loaded for a name that needs it)
        from tarneeb.audit.names import name_keys

        keys = name_keys(name)
    return frozenset(" ".join(k.split()) for k in keys)


# the seat-like words and digits as those forms write them ("hand" is "hancl", "1" is "l")
_SEAT_LOOK = re.compile("(?<![^\\W_])(?:{}) ?[{}]+(?![^\\W_])".format(
    "|".join(sorted({k for w in ("seat", "player", "hand", "team") for k in name_looks(w)})),
    re.escape("".join(sorted({k for d in "0123456789" for k in name_looks(d)})))))


def hands_from_1(text: str) -> str:
    """The replayer's sentence with hands counted from 1, seats left as numbers (for text
    that names no players, such as an archive's findings).

    >>> hands_from_1("hand 0, seat 2: a keys record for hand 0; hands 3-4 not replayed")
    'hand 1, seat 2: a keys record for hand 1; hands 4-5 not replayed'
    >>> hands_from_1("hands 0-3, 7, 9-10 (8 dealing attempts) could not be replayed")
    'hands 1-4, 8, 10-11 (8 dealing attempts) could not be replayed'
    """
    return _HAND.sub(lambda m: f"{m[1]} "
                     + _NUMBER.sub(lambda n: str(int(n[0]) + 1), m[2]), text)


@dataclass(frozen=True, slots=True)
class Card:
    """A card as drawn on the page: its text (``10♥``), colour class and trump mark."""

    text: str
    colour: str  # "red" or "black"
    trump: bool = False


class Table:
    """The four players of a match, for putting the replayer's words to people."""

    def __init__(self, names: list[str]) -> None:
        self.given = list(names)
        self.raw = [n.strip() for n in names]
        # A name that reads as a seat ("seat 2") or that two seats share would make a
        # sentence blame the wrong player: such a name is shown quoted, with its seat; so
        # is one that only looks so (an invisible character in it, a letter of another
        # script or a digit for a letter: "Seat\u200b 4", Cyrillic "Оmar" and "Omar")
        plain = [" ".join(n.casefold().split()) for n in self.raw]
        looks = [name_looks(n) for n in self.raw]

        def seat_like(s: int) -> bool:
            own = f"seat {s + 1}"
            return not (plain[s] == own or looks[s] & name_looks(own)) and (
                bool(_SEAT_LIKE.search(plain[s]))
                or any(_SEAT_LOOK.search(k) for k in looks[s])
                # a name that only looks blank (U+3164, a Hangul filler): a sentence about
                # its player would read as having no subject
                or not any(looks[s]))

        self.names = [
            f"Seat {s + 1}" if not n else
            f"“{n}” (Seat {s + 1})" if sum(1 for k in looks if k & looks[s]) > 1
            or seat_like(s) else n for s, n in enumerate(self.raw)]

    @classmethod
    def of(cls, verdict: Verdict) -> Table:
        """The players a verdict's log names (``Seat 1``–``Seat 4`` when it names none).

        >>> Table.of(Verdict("m.tlog", names=("Ana", "", "Cy", "Dee"))).say("seat 1 led")
        'Seat 2 led'
        >>> Table(["seat 2", "Bo", "Cy", "Bo"]).say("seat 0 played, then seat 1")
        '“seat 2” (Seat 1) played, then “Bo” (Seat 2)'
        """
        return cls(list(verdict.names) or ["", "", "", ""])

    def name(self, seat: int | None) -> str:
        return "—" if seat is None else self.names[seat]

    def team(self, team: int) -> str:
        """``team`` 0 is seats 0 and 2, 1 is seats 1 and 3."""
        return f"{self.names[team]} & {self.names[team + 2]}"

    def ending(self, verdict: Verdict) -> str:
        """How an abandoned match ended (``verdict.ending``) as :meth:`say` tells it, but for
        the platform's reason it ends with: quoted and kept as the end record gives it (a
        reason's "seat 2" is the platform's word, not a seat for a name).

        >>> v = Verdict("m.tlog", names=("Ana", "Bo", "Cy", "Dee"), reason="seat 2 lag",
        ...             ending="abandoned at hand 0, trick 3: seat 1 (Bo) timed out: seat 2 lag")
        >>> Table.of(v).ending(v)
        'abandoned at hand 1, trick 3: Bo timed out: “seat 2 lag”'
        """
        text, reason = verdict.ending or "", verdict.reason
        if reason and text.endswith(f": {reason}"):
            return f"{self.say(text[:-len(reason)])}“{reason}”"
        return self.say(text)

    def say(self, text: str) -> str:
        """The replayer's sentence with names for seats and teams, hands counted from 1,
        in one pass: what a name says is not read again.

        >>> t = Table(["seat 1", "Ben", "hand 3", "Dee"])
        >>> t.say("seat 2 led in hand 0; team 0+2 won; seat 1 (Ben) left")
        '“hand 3” (Seat 3) led in hand 1; seat 1 & “hand 3” (Seat 3) won; Ben left'
        """
        out: list[str] = []
        at = 0
        for m in _WORDS.finditer(text):
            if m.start() < at:  # inside a name already said
                continue
            out.append(text[at:m.start()])
            at = m.end()
            if m[1] is not None:
                out.append(self.team(int(m[1])))
            elif m[3] is not None:
                s = int(m[3])
                out.append(self.names[s] + ("’s" if m[4] else ""))
                said = f" ({self.given[s]})"  # "seat 2 (Cy)" says the name twice
                if not m[4] and text.startswith(said, at):
                    at += len(said)
            else:
                out.append(f"{m[5]} " + _NUMBER.sub(lambda n: str(int(n[0]) + 1), m[6]))
        return "".join(out) + text[at:]

    @staticmethod
    def card(card: int, trump: int | None = None) -> Card:
        return Card(card_name(card), "red" if card // 13 in (1, 2) else "black",
                    card // 13 == trump)

    @staticmethod
    def suit(suit: int | None) -> Card | None:
        if suit is None:
            return None
        return Card(SUIT_SYMBOLS[suit], "red" if suit in (1, 2) else "black")
